//! Rendezvous in the abstract modes (issue 13; Flanagan and Qadeer §2 and
//! Malkis, Podelski and Rybalchenko §4, extended to joint steps), on a
//! two-thread handshake whose fixpoints are computed by hand below, the same handshake watched
//! by a third thread that sees the joint moves through G only, and the BEEM
//! families that need rendezvous (lann, lamport_nonatomic).
//!
//! The handshake: global x ∈ 0..2 (init 0); client c (local v, init 0)
//! and server s (local w, init 0):
//!
//! ```text
//! c: idle --req!1--> wait --ack?v--> done
//! s: ready --req?w; x := w--> busy --ack!x+1; x := 0--> ready
//! ```
//!
//! Concretely: (x=0, idle v=0, ready w=0) → req → (x=1, wait v=0, busy
//! w=1) → ack (value x+1 = 2 read before the sender's x := 0) → (x=0, done
//! v=2, ready w=1): three states, and nothing moves from the last.
//!
//! Thread-modular, by hand. Neither thread has a step of its own; every
//! fact comes from a rendezvous of one R fact of c with one of s at the
//! same x:
//!
//! 1. AG INIT: R(c, 0, idle·0), R(s, 0, ready·0).
//! 2. At x = 0, idle·0 offers req!1, ready·0 offers req?w: the joint step
//!    gives R(c, 1, wait·0), R(s, 1, busy·1) and the pair's edge 0 → 1.
//! 3. At x = 1, busy·1 offers ack!2, wait·0 offers ack?v: R(c, 0, done·2),
//!    R(s, 0, ready·1) and the pair's edge 1 → 0.
//! 4. At x = 0 again: ready·1 with idle·0 gives wait·0 and busy·1 at x = 1
//!    (known); done·2 offers nothing. The pair's edges are seen by no
//!    other thread (there is none), and never by c or s themselves: c has
//!    no fact (1, idle·0), which applying 0 → 1 to c would give.
//!
//! So R(c) = {(0, idle·0), (1, wait·0), (0, done·2)}, R(s) = {(0, ready·0),
//! (1, busy·1), (0, ready·1)}, and G(c) = G(s) = {0 → 1, 1 → 0}, both edges
//! the pair's. With an observer o that never moves, (AG ENV) applies the
//! pair's edges to it: R(o) = {(0, watch), (1, watch)}, G(o) = ∅, and R(c),
//! R(s) are unchanged. cartesian-exc with E = ∅ has the same thread states:
//! X(0) = {idle·0, done·2} × {ready·0, ready·1}, X(1) = {wait·0} × {busy·1}.
//! X(0) glues done·2 with ready·0, which no run has: `c@done && s.w == 0`
//! is an alarm there, and refine proves it by making x = 0 precise, with
//! E(0) = {idle·0} × {ready·0} ∪ {done·2} × {ready·1}.

use super::common;
use crate::Derived;
use crate::engine::cartesian::{Cartesian, Exceptions};
use crate::engine::thread_modular::ThreadModular;
use crate::engine::{self, CheckOptions, Mode, Refinement, Verdict};
use crate::program::{Program, Val};
use rustc_hash::FxHashSet;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn handshake(observer: bool) -> Value {
    let mut threads = vec![
        json!({"name": "c", "start": "idle", "locals": {"v": {"type": "int", "min": 0, "max": 2}},
            "transitions": [
                {"from": "idle", "to": "wait", "sync": "req!1", "label": "request"},
                {"from": "wait", "to": "done", "sync": "ack?v", "label": "acked"}]}),
        json!({"name": "s", "start": "ready", "locals": {"w": {"type": "int", "min": 0, "max": 2}},
            "transitions": [
                {"from": "ready", "to": "busy", "sync": "req?w", "do": "x := w", "label": "serve"},
                {"from": "busy", "to": "ready", "sync": "ack!x + 1", "do": "x := 0", "label": "reply"}]}),
    ];
    if observer {
        threads.push(json!({"name": "o", "start": "watch", "transitions": []}));
    }
    json!({
        "name": "handshake",
        "channels": ["req", "ack"],
        "globals": {"x": {"type": "int", "min": 0, "max": 2, "init": 0}},
        "threads": threads,
        "properties": [
            {"name": "bad", "error": "c@done && c.v != 2"},
            {"name": "glued", "error": "c@done && s.w == 0"},
            {"name": "served", "error": "c@done"}
        ]
    })
}

/// A local store as values: the location's index, then the locals.
fn local(prog: &Program, t: usize, at: &str, vars: &[Val]) -> Vec<Val> {
    let tpl = prog.template_of(t);
    let pc = tpl.locations.iter().position(|l| l == at).unwrap() as Val;
    [vec![pc], vars.to_vec()].concat()
}

type Facts = FxHashSet<(Vec<Val>, Vec<Val>)>;

/// (x, location, locals) triples as R values.
fn facts(prog: &Program, t: usize, items: &[(Val, &str, &[Val])]) -> Facts {
    items
        .iter()
        .map(|(x, at, vars)| (vec![*x], local(prog, t, at, vars)))
        .collect()
}

fn edges(items: &[(Val, Val)]) -> Facts {
    items.iter().map(|(a, b)| (vec![*a], vec![*b])).collect()
}

#[test]
fn handshake_reach_and_guarantee_are_the_hand_computed_ones() {
    let prog = common::load_value(&handshake(false));
    let tm = ThreadModular::compute(&prog);
    let rc = facts(
        &prog,
        0,
        &[(0, "idle", &[0]), (1, "wait", &[0]), (0, "done", &[2])],
    );
    let rs = facts(
        &prog,
        1,
        &[(0, "ready", &[0]), (1, "busy", &[1]), (0, "ready", &[1])],
    );
    assert_eq!(tm.reach_values(0), rc);
    assert_eq!(tm.reach_values(1), rs);
    for t in 0..2 {
        assert_eq!(tm.guarantee_values(t), edges(&[(0, 1), (1, 0)]), "G({t})");
        // Both edges are the pair's: neither thread steps alone.
        assert!(tm.guarantee[t].is_empty());
    }
    assert_eq!(tm.pair_guarantee.len(), 2);
    assert!(tm.model_error.is_none());
}

#[test]
fn a_third_thread_sees_the_pairs_moves_through_g_only() {
    let prog = common::load_value(&handshake(true));
    let tm = ThreadModular::compute(&prog);
    let rc = facts(
        &prog,
        0,
        &[(0, "idle", &[0]), (1, "wait", &[0]), (0, "done", &[2])],
    );
    let rs = facts(
        &prog,
        1,
        &[(0, "ready", &[0]), (1, "busy", &[1]), (0, "ready", &[1])],
    );
    let ro = facts(&prog, 2, &[(0, "watch", &[]), (1, "watch", &[])]);
    assert_eq!(tm.reach_values(0), rc);
    assert_eq!(tm.reach_values(1), rs);
    assert_eq!(tm.reach_values(2), ro);
    assert!(tm.guarantee_values(2).is_empty());
    // o's fact at x = 1 is an environment step of the pair.
    let g1 = tm.exp.globals.lookup(&[1]).unwrap();
    let watch = tm.exp.locals[2].lookup(&[0]).unwrap();
    let d = tm.derivation(2, g1, watch);
    let by: Vec<&Derived> = d.iter().map(|f| &f.by).collect();
    assert_eq!(by, [&Derived::Init, &Derived::Env("c and s".into())]);
}

#[test]
fn cartesian_products_are_the_hand_computed_ones() {
    let prog = common::load_value(&handshake(false));
    let c = Cartesian::compute(&prog, Exceptions::Empty, &CheckOptions::default()).unwrap();
    let mut got = c.products();
    got.sort();
    let l = |t: usize, at: &str, v: Val| local(&prog, t, at, &[v]);
    let mut want = vec![
        (
            vec![0],
            vec![
                vec![l(0, "idle", 0), l(0, "done", 2)],
                vec![l(1, "ready", 0), l(1, "ready", 1)],
            ],
        ),
        (vec![1], vec![vec![l(0, "wait", 0)], vec![l(1, "busy", 1)]]),
    ];
    for p in got.iter_mut().chain(want.iter_mut()) {
        p.1.iter_mut().for_each(|c| c.sort());
    }
    want.sort();
    assert_eq!(got, want);
}

fn outcomes(prog: &Program, mode: Mode) -> Vec<Verdict> {
    let r = engine::check(prog, mode, &CheckOptions::default()).unwrap();
    r.outcomes.iter().map(|o| o.verdict).collect()
}

#[test]
fn every_mode_decides_the_handshake_and_refines_the_glued_state_away() {
    use Verdict::{Safe, Unknown, Unsafe};
    let prog = common::load_value(&handshake(false));
    // bad, glued, served, model-errors.
    assert_eq!(outcomes(&prog, Mode::Standard), [Safe, Safe, Unsafe, Safe]);
    for mode in [Mode::ThreadModular, Mode::CartesianExc] {
        assert_eq!(
            outcomes(&prog, mode),
            [Safe, Unknown, Unknown, Safe],
            "{mode:?}"
        );
    }
    let opts = CheckOptions {
        properties: vec!["glued".into()],
        ..CheckOptions::default()
    };
    let r = engine::check(&prog, Mode::Refine, &opts).unwrap();
    assert_eq!(r.outcomes[0].verdict, Safe, "{}", r.to_text());
    let stat = |k: &str| r.stats.get(k).and_then(|v| v.as_u64());
    assert_eq!(
        (stat("precise_globals"), stat("exception_products")),
        (Some(1), Some(2))
    );
    // `served` is real: two rendezvous, each naming both threads, and the
    // trace replays step by step.
    let r = engine::check(&prog, Mode::Refine, &CheckOptions::default()).unwrap();
    assert_eq!(r.outcomes[2].verdict, Unsafe);
    let trace = r.outcomes[2].trace.as_ref().unwrap();
    let names: Vec<(&str, &str)> = trace
        .steps
        .iter()
        .map(|s| {
            (
                s.thread.as_str(),
                s.partner.as_ref().unwrap().thread.as_str(),
            )
        })
        .collect();
    assert_eq!(names, [("c", "s"), ("s", "c")]);
    replay_unsafe(&prog, &r);
}

/// Three instances of one template each send their own `tid`: only the
/// third's (4, counting the receiver) makes `got == 4`, in one step. The
/// abstract modes once shared the offers of a template's instances (its
/// memo class, `uses_tid`, looked at guards and assignments only), so every
/// instance sent the first one's `tid` and `cartesian-exc`, `refine` and
/// `thread-modular` all said `safe`.
#[test]
fn each_instance_sends_its_own_tid() {
    use Verdict::{Safe, Unknown, Unsafe};
    let prog = common::load_value(&json!({
        "name": "send-tid", "channels": ["req"],
        "globals": {"got": {"type": "int", "min": 0, "max": 7}},
        "threads": [
            {"name": "s", "start": "r", "locals": {"x": {"type": "int", "min": 0, "max": 7}},
             "transitions": [{"from": "r", "to": "r", "sync": "req?x", "do": "got := x"}]},
            {"name": "c", "count": 3, "start": "i",
             "transitions": [{"from": "i", "to": "w", "sync": "req!tid", "label": "send"}]}],
        "properties": [{"name": "p", "error": "got == 4"}]
    }));
    // p (model-errors, `unknown` where the search stops early, aside).
    assert_eq!(outcomes(&prog, Mode::Standard)[0], Unsafe);
    for mode in [Mode::ThreadModular, Mode::CartesianExc] {
        assert_eq!(outcomes(&prog, mode), [Unknown, Safe], "{mode:?}");
    }
    let r = engine::check(&prog, Mode::Refine, &CheckOptions::default()).unwrap();
    assert_eq!(r.outcomes[0].verdict, Unsafe, "{}", r.to_text());
    replay_unsafe(&prog, &r);
}

/// Every unsafe outcome's trace replays against the model.
fn replay_unsafe(prog: &Program, r: &crate::RunReport) {
    let lines = r.to_json_lines();
    let unsafe_lines: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["verdict"] == "unsafe" && v.get("property").is_some())
        .collect();
    assert!(!unsafe_lines.is_empty());
    for v in &unsafe_lines {
        common::replay_line(prog, v, &prog.name);
    }
}

#[test]
fn control_refinement_still_refuses_channels() {
    let prog = common::load_value(&handshake(false));
    let opts = CheckOptions {
        refinement: Refinement::Control,
        ..CheckOptions::default()
    };
    let err = engine::check(&prog, Mode::Refine, &opts).unwrap_err();
    assert!(err.to_string().contains("channels"), "{err}");
}

fn beem(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/beem/dve/{name}.dve"))
}

fn load_beem(name: &str) -> Program {
    common::load_path(&beem(name), Some("count(*: @CS) >= 2"))
}

/// lann and lamport_nonatomic are all rendezvous (no globals at all): the
/// abstract modes raise alarms (the one global store glues every thread
/// state), and refine makes that store precise and decides.
#[test]
fn beem_rendezvous_families_in_the_abstract_modes() {
    for name in [
        "lann.1",
        "lann.2",
        "lamport_nonatomic.1",
        "lamport_nonatomic.2",
        "lamport_nonatomic.3",
    ] {
        let prog = load_beem(name);
        for mode in [Mode::ThreadModular, Mode::CartesianExc] {
            assert_eq!(
                outcomes(&prog, mode)[0],
                Verdict::Unknown,
                "{name} {mode:?}"
            );
        }
    }
    // The quickest of them for refine (about 3 s).
    let prog = load_beem("lamport_nonatomic.2");
    let r = engine::check(&prog, Mode::Refine, &CheckOptions::default()).unwrap();
    assert_eq!(r.verdict(), Verdict::Safe, "{}", r.to_text());
}
