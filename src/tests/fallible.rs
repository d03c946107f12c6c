//! Which transitions may fail at run time (`Ranges::fallible`, used by
//! `--por` to skip its cycle proviso on deadlock checks): on small models
//! against answers worked out by hand, and on generated models against
//! every failure met in a reachable state, which must be of a transition
//! marked as possibly failing.

use super::{common, differential};
use crate::program::ranges::Ranges;
use crate::program::{Explorer, Program, fire};
use proptest::prelude::*;
use serde_json::{Value, json};

/// A thread of one template whose transitions are `(from, to, when, do)`,
/// with a global `x` in 0..3 (init 0), an array `a` of 3 cells in 0..3 and
/// a local `i` in 0..2 (init 0).
fn one_thread(transitions: &[(&str, &str, &str, &str)]) -> Program {
    let ts: Vec<Value> = transitions
        .iter()
        .map(|(f, t, w, d)| json!({"from": f, "to": t, "when": w, "do": d}))
        .collect();
    common::load_value(&json!({
        "name": "fallible",
        "globals": {
            "x": {"type": "int", "min": 0, "max": 3, "init": 0},
            "a": {"type": "array", "len": 3, "of": {"type": "int", "min": 0, "max": 3}, "init": 0},
        },
        "threads": [{"name": "p", "start": "L0", "locations": ["L0", "L1", "L2"],
            "locals": {"i": {"type": "int", "min": 0, "max": 2, "init": 0}},
            "transitions": ts}],
        "properties": [{"name": "never", "error": "false"}],
    }))
}

fn fallible(transitions: &[(&str, &str, &str, &str)]) -> Vec<bool> {
    Ranges::fallible(&one_thread(transitions)).remove(0)
}

#[test]
fn what_may_fail_worked_out_by_hand() {
    // x counts up for ever: x + 1 leaves 0..3 from 3.
    assert_eq!(fallible(&[("L0", "L0", "true", "x := x + 1")]), [true]);
    // Modulo 4 it stays inside.
    assert_eq!(
        fallible(&[("L0", "L0", "true", "x := (x + 1) % 4")]),
        [false]
    );
    // The guard bounds it: x < 3 before x + 1.
    assert_eq!(fallible(&[("L0", "L0", "x < 3", "x := x + 1")]), [false]);
    // i is in 0..2, a has 3 cells: a[i] is inside; a[i + 1] is not.
    assert_eq!(
        fallible(&[("L0", "L0", "true", "a[i] := 1; i := (i + 1) % 3")]),
        [false]
    );
    assert_eq!(
        fallible(&[("L0", "L0", "a[i + 1] == 0", "i := (i + 1) % 3")]),
        [true]
    );
    // The short circuit: the right side is evaluated only where the left
    // holds (i < 2, so i + 1 < 3); the other way round it may fail.
    let guarded = [("L0", "L0", "i < 2 && a[i + 1] == 0", "i := (i + 1) % 3")];
    assert_eq!(fallible(&guarded), [false]);
    let unguarded = [("L0", "L0", "a[i + 1] == 0 && i < 2", "i := (i + 1) % 3")];
    assert_eq!(fallible(&unguarded), [true]);
    // A division by x, which may be 0, and by the constant 2.
    assert_eq!(fallible(&[("L0", "L0", "true", "x := 3 / x")]), [true]);
    assert_eq!(fallible(&[("L0", "L0", "true", "x := x / 2")]), [false]);
    // A step from a location never reached never fails.
    let unreached = [
        ("L0", "L1", "x == 3", ""),
        ("L1", "L1", "true", "x := x + 1"),
    ];
    assert_eq!(fallible(&unreached), [false, false]);
}

/// The cooperative scheduler writes `waiting`, no action does: an index
/// read from it may leave an array (found in review: its range was kept
/// at the initial 0).
#[test]
fn the_schedulers_waiting_cells_take_any_value() {
    let prog = common::load_value(&json!({
        "name": "coop", "scheduling": "cooperative", "events": ["e"],
        "globals": {
            "arr": {"type": "array", "len": 1, "of": {"type": "int", "min": 0, "max": 1}, "init": 0},
            "z": {"type": "int", "min": 0, "max": 1, "init": 0},
        },
        "threads": [
            {"name": "b", "start": "b0", "transitions": [
                {"from": "b0", "to": "b1", "do": "z := arr[waiting[1]]", "yield": true}]},
            {"name": "c", "start": "c0", "transitions": [{"from": "c0", "to": "c1", "wait": "e"}]},
        ],
        "properties": [{"name": "never", "error": "false"}],
    }));
    assert_eq!(Ranges::fallible(&prog)[0], [true]);
    failures_are_marked(&prog).unwrap();
}

/// Every run-time error met in a reachable state of `prog` (a thread's
/// step, a rendezvous that fails, or an offer that fails alone) is of a
/// transition `Ranges::fallible` marks (either side of a failing pair).
pub(super) fn failures_are_marked(prog: &Program) -> Result<usize, TestCaseError> {
    let fallible = Ranges::fallible(prog);
    let marked = |t: usize, ti: u32| fallible[prog.threads[t].template as usize][ti as usize];
    let mut met = 0;
    let mut exp = Explorer::new(prog);
    for (g, ls) in crate::engine::standard::reachable(prog).unwrap() {
        for (t, l) in ls.iter().enumerate() {
            let tpl = prog.template_of(t);
            for &ti in &tpl.outgoing[l[0] as usize] {
                if tpl.transitions[ti as usize].sync.is_none()
                    && fire::fire_one(prog, t, ti, &g, l).is_err()
                {
                    met += 1;
                    prop_assert!(
                        marked(t, ti),
                        "{} fails at {g:?} {ls:?}",
                        tpl.transitions[ti as usize].path
                    );
                }
            }
        }
        let ids: Vec<u32> = ls
            .iter()
            .enumerate()
            .map(|(t, l)| exp.intern_local(t, l))
            .collect();
        let gid = exp.globals.intern(&g);
        let (_, _, failed) = exp.sync_steps_failing(gid, &ids);
        for (t, ti, partner) in failed {
            met += 1;
            let either = marked(t, ti) || partner.is_some_and(|(u, ui)| marked(u, ui));
            prop_assert!(either, "a rendezvous of thread {t} fails at {g:?} {ls:?}");
        }
    }
    Ok(met)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Arithmetic, comparisons and rendezvous the range analysis bounds.
    #[test]
    fn every_failure_of_a_guarded_arithmetic_model_is_marked(m in differential::range_model()) {
        failures_are_marked(&common::load_value(&m))?;
    }

    /// Rendezvous that put a value out of the receiver's range.
    #[test]
    fn every_failure_of_a_generated_model_is_marked(m in differential::model()) {
        failures_are_marked(&common::load_value(&m))?;
    }
}
