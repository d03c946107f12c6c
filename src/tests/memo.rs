//! The successor memo is a cache within a share of the memory budget
//! (`program/memo.rs`): once the resident memory has reached half the
//! budget the engine installs, it stops taking entries at a quarter of
//! it, keeps what it took, and every successor it no longer keeps is
//! computed again, the same.

use super::common;
use crate::program::explore::Step;
use crate::program::{Explorer, Program, StepBudget, StepPoll};
use serde_json::json;
use std::sync::Arc;

/// One thread counting a global from 0 to 999: every `(g, l)` it is
/// stepped from is new, as in a model whose every state has a global
/// store of its own.
fn counter() -> Program {
    common::load_value(&json!({
        "name": "counter",
        "globals": {"n": {"type": "int", "min": 0, "max": 999}},
        "threads": [{"name": "T", "start": "s", "transitions": [
            {"from": "s", "to": "s", "when": "n < 999", "do": "n := n + 1"}
        ]}],
        "properties": [{"name": "p", "error": "false"}]
    }))
}

/// A budget that never runs out, with a memory budget of `.0` bytes, the
/// resident memory at half of it or more when `.1`.
struct Memory(Option<u64>, bool);

impl StepBudget for Memory {
    fn exhausted(&self, _: &mut StepPoll, _: u64) -> bool {
        false
    }
    fn cut(&self, _: String) {}
    fn memory_bytes(&self) -> Option<u64> {
        self.0
    }
    fn memory_pressed(&self) -> bool {
        self.1
    }
}

/// A step by value: its global and local stores and its transition.
type Stores = (Vec<i32>, Vec<i32>, u32);

/// The counter's successors along its one run, `steps` steps of it.
fn walk(exp: &mut Explorer, steps: usize) -> Vec<Vec<Stores>> {
    let (mut g, ls) = exp.initial_states()[0].clone();
    let mut out = Vec::new();
    for _ in 0..steps {
        let succs = exp.successors(0, g, ls[0]);
        let stores = |s: &Step| {
            (
                exp.globals.get(s.g).to_vec(),
                exp.local(0, s.l).to_vec(),
                s.trans,
            )
        };
        out.push(succs.steps.iter().map(stores).collect());
        g = succs.steps[0].g;
    }
    out
}

#[test]
fn the_memo_stops_at_a_quarter_of_a_pressed_memory_budget_and_its_successors_stay_the_same() {
    let prog = counter();
    let mut free = Explorer::new(&prog);
    free.set_step_budget(Some(Arc::new(Memory(None, true))));
    let all = walk(&mut free, 999);
    // No memory budget: every entry is kept.
    assert_eq!(free.memo_size().0, 999);
    let per_entry = free.memo_size().1 / 999;
    assert!((100..=400).contains(&per_entry), "{per_entry} bytes");

    // A budget of 400 entries' bytes (each entry has one step), half of it
    // resident: the memo keeps a quarter of it.
    let budget = 400 * per_entry;
    let mut held = Explorer::new(&prog);
    held.set_step_budget(Some(Arc::new(Memory(Some(budget), true))));
    assert_eq!(walk(&mut held, 999), all);
    let (entries, bytes) = held.memo_size();
    assert!(bytes <= budget / 4, "{bytes} of {budget}");
    assert_eq!(entries, 100);

    // What it kept is read from it; what it did not is computed again.
    let (g, ls) = held.initial_states()[0].clone();
    let first = held.successors(0, g, ls[0]);
    assert!(Arc::ptr_eq(&first, &held.successors(0, g, ls[0])));
    let far = (0..998).fold(g, |g, _| held.successors(0, g, ls[0]).steps[0].g);
    let late = held.successors(0, far, ls[0]);
    assert!(!Arc::ptr_eq(&late, &held.successors(0, far, ls[0])));
    assert_eq!(held.memo_size(), (entries, bytes));
}

/// While the resident memory stays below half the budget, the memo goes
/// past its quarter.
#[test]
fn the_memo_passes_its_share_while_the_memory_is_not_pressed() {
    let prog = counter();
    let mut exp = Explorer::new(&prog);
    exp.set_step_budget(Some(Arc::new(Memory(Some(1_000), false))));
    walk(&mut exp, 999);
    assert_eq!(exp.memo_size().0, 999);
}

/// The counter again, sending its count on a channel at every store, with
/// a receiver: every `(g, l)` offers a rendezvous of its own.
fn sender() -> Program {
    common::load_value(&json!({
        "name": "sender",
        "channels": ["c"],
        "globals": {"n": {"type": "int", "min": 0, "max": 999}},
        "threads": [
            {"name": "T", "start": "s", "transitions": [
                {"from": "s", "to": "s", "when": "n < 999", "do": "n := n + 1"},
                {"from": "s", "to": "s", "sync": "c!n"}
            ]},
            {"name": "R", "start": "r", "locals": {"x": {"type": "int", "min": 0, "max": 999}},
             "transitions": [{"from": "r", "to": "r", "sync": "c?x"}]}
        ],
        "properties": [{"name": "p", "error": "false"}]
    }))
}

/// The rendezvous offers' memo counts against the same share: with the
/// memory pressed, the offers of the first stores are kept and those of
/// the last are not; with it not pressed, both are.
#[test]
fn the_offers_memo_keeps_to_the_same_share() {
    let prog = sender();
    for pressed in [true, false] {
        let mut exp = Explorer::new(&prog);
        exp.set_step_budget(Some(Arc::new(Memory(Some(100_000), pressed))));
        let (g0, ls) = exp.initial_states()[0].clone();
        let mut g = g0;
        let mut last = g0;
        for _ in 0..999 {
            exp.offers(0, g, ls[0]);
            last = g;
            g = exp.successors(0, g, ls[0]).steps[0].g;
        }
        let kept =
            |exp: &mut Explorer, g| Arc::ptr_eq(&exp.offers(0, g, ls[0]), &exp.offers(0, g, ls[0]));
        assert!(kept(&mut exp, g0), "pressed: {pressed}");
        assert_eq!(kept(&mut exp, last), !pressed);
        assert!(exp.memo_size().1 <= 100_000 / 4 || !pressed);
    }
}
