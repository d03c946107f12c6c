//! `--por` on hand-made cases, each one a way a persistent set, its
//! enabling sets or the cycle proviso could go wrong (engine/por/,
//! standard/reduce.rs): visibility, ignoring in a cycle, the proviso of a
//! deadlock check, atoms read through array indexes, guards opened by
//! their own thread or closed by another, budgets under `--por`. The
//! generated models and BEEM's answers are in `por.rs`.

use super::common;
use super::por::por;
use crate::engine::{self, CheckOptions, Mode, Verdict};
use serde_json::Value;

/// Two threads, each writing a global of its own once, so that either
/// order reaches the same state: the smallest persistent set at the start
/// is one thread. Visibility: an error that needs t1 to go first is only
/// found if `--por` sees that t1's step changes an atom of the property.
/// Ignoring: t0 can also toggle a local for ever; the proviso must stop it
/// from being the only thread explored.
#[test]
fn visible_steps_are_never_postponed_and_no_thread_is_ignored_in_a_cycle() {
    let model = |error: &str, t0_cycles: bool| {
        let mut t0 = vec![serde_json::json!({"from": "a", "to": "b", "do": "h0 := true"})];
        if t0_cycles {
            t0 = vec![serde_json::json!({"from": "a", "to": "a", "do": "k := 1 - k"})];
        }
        serde_json::json!({
            "name": "two-writers",
            "globals": {"h0": {"type": "bool", "init": false}, "h1": {"type": "bool", "init": false}},
            "threads": [
                {"name": "t0", "start": "a", "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": 0}}, "transitions": t0},
                {"name": "t1", "start": "a", "transitions": [{"from": "a", "to": "b", "do": "h1 := true"}]},
            ],
            "properties": [{"name": "bad", "error": error}],
        })
    };
    for (error, cycles) in [("h1 && !h0", false), ("h0 && !h1", false), ("h1", true)] {
        let prog = common::load_value(&model(error, cycles));
        for opts in [CheckOptions::default(), por(1)] {
            let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
            assert_eq!(
                r.outcome("bad").unwrap().verdict,
                Verdict::Unsafe,
                "{error} {}",
                opts.por
            );
        }
    }
    // And the reduction does reduce here: t1 alone first, then t0 (the
    // state between has that one step, so it is passed through, not
    // stored: standard/pass/).
    let prog = common::load_value(&model("false", false));
    let r = engine::check(&prog, Mode::Standard, &por(1)).unwrap();
    assert_eq!(r.stats.count("states"), Some(2));
    assert_eq!(r.stats.count("por_passed_states"), Some(1));
}

/// A deadlock check needs no cycle proviso, but a run-time error does:
/// t0 toggles a local for ever, t1 takes a step and then one that may
/// overflow `x`. Where it overflows (`x := x + 2`, x in 0..1), the
/// reduced search must not cycle through t0 alone and leave t1 out (the
/// proviso applies to a set that leaves out a thread which may still
/// fail, and a state whose one reduced step is t0's is not passed through
/// where t1 may still fail); where it cannot (`x := 1 - x`), the proviso
/// is not applied and t0's cycle alone is explored: the two states of
/// `k`, the second passed through (one step, back to the first), t1
/// never moving, and no deadlock is lost (t0 can always move).
#[test]
fn a_deadlock_check_skips_the_proviso_unless_a_thread_left_out_may_fail() {
    let model = |step: &str| {
        serde_json::json!({
            "name": "toggle-and-step",
            "globals": {"x": {"type": "int", "min": 0, "max": 1, "init": 0}},
            "threads": [
                {"name": "t0", "start": "a", "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": 0}},
                 "transitions": [{"from": "a", "to": "a", "do": "k := 1 - k"}]},
                {"name": "t1", "start": "a", "transitions": [
                    {"from": "a", "to": "b"},
                    {"from": "b", "to": "c", "do": step}]},
            ],
            "check-deadlock": true,
            "properties": [{"name": "never", "error": "false"}],
        })
    };
    let prog = common::load_value(&model("x := x + 2"));
    for opts in [CheckOptions::default(), por(1), por(2)] {
        let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
        let verdict = r.outcome("model-errors").unwrap().verdict;
        assert_eq!(verdict, Verdict::Unsafe, "--por {}", opts.por);
    }
    let prog = common::load_value(&model("x := 1 - x"));
    let full = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    assert_eq!(full.stats.count("states"), Some(6));
    for opts in [por(1), por(2)] {
        let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
        assert_eq!(r.outcome("deadlock").unwrap().verdict, Verdict::Safe);
        assert_eq!(r.outcome("model-errors").unwrap().verdict, Verdict::Safe);
        assert_eq!(r.stats.count("states"), Some(1));
        assert_eq!(r.stats.count("por_passed_states"), Some(1));
    }
}

/// Under a cooperative scheduler a thread's turn can get stuck (b at b1
/// once c has set x), a run-time error no single transition shows, and the
/// scheduler writes `waiting`, which a guard or an action may read: a
/// deadlock check keeps its proviso there, or a's yielding loop alone is
/// explored and the errors are put off for ever (found in review).
#[test]
fn a_cooperative_deadlock_check_keeps_its_proviso() {
    let model = |b: Value, c: Value| {
        serde_json::json!({
            "name": "coop", "scheduling": "cooperative", "events": ["e"],
            "globals": {
                "x": {"type": "int", "min": 0, "max": 1, "init": 0},
                "y": {"type": "int", "min": 0, "max": 1, "init": 0},
                "arr": {"type": "array", "len": 1, "of": {"type": "int", "min": 0, "max": 1}, "init": 0},
            },
            "threads": [
                {"name": "a", "start": "a0", "final": ["a0"], "transitions": [
                    {"from": "a0", "to": "a0", "do": "y := 1 - y", "yield": true}]},
                {"name": "b", "start": "b0", "transitions": b},
                {"name": "c", "start": "c0", "transitions": c},
            ],
            "check-deadlock": true, "properties": [],
        })
    };
    let stuck = model(
        serde_json::json!([{"from": "b0", "to": "b1"}, {"from": "b1", "to": "b2", "when": "x == 0"}]),
        serde_json::json!([{"from": "c0", "to": "c1", "do": "x := 1"}]),
    );
    unsafe_with_and_without_por(&stuck, "model-errors");
    let reads_waiting = model(
        serde_json::json!([{"from": "b0", "to": "b1", "do": "x := arr[waiting[2]]", "yield": true}]),
        serde_json::json!([{"from": "c0", "to": "c1", "wait": "e"}]),
    );
    unsafe_with_and_without_por(&reads_waiting, "model-errors");
}

/// A property that indexes a global array by a thread's local reads that
/// local: a step writing it is visible (t0 sets k to 1 while t1 has set
/// a[1], then back). Found by fuzzing: its atoms held the array only, so
/// `--por` put t0's steps off and missed the error; the same for an
/// `assert` with such an index, and for `--blocks` (`lipton.rs`).
#[test]
fn an_array_index_read_by_a_property_is_an_atom() {
    let exists = serde_json::json!({
        "name": "idx",
        "globals": {"a": {"type": "array", "len": 2, "of": {"type": "int", "min": 0, "max": 1}, "init": 0}},
        "threads": [
            {"name": "t0", "start": "L0", "locations": ["L0", "L1", "L2"],
             "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": 0}},
             "transitions": [{"from": "L0", "to": "L1", "do": "k := 1"}, {"from": "L1", "to": "L2", "do": "k := 0"}]},
            {"name": "t1", "start": "M0", "locations": ["M0", "M1"],
             "transitions": [{"from": "M0", "to": "M1", "do": "a[1] := 1"}]},
        ],
        "properties": [{"name": "bad", "error": "exists(t0: a[k] == 1)"}],
    });
    unsafe_with_and_without_por(&exists, "bad");
    let assertion = serde_json::json!({
        "name": "asrt",
        "globals": {
            "a": {"type": "array", "len": 2, "of": {"type": "int", "min": 0, "max": 1}, "init": 0},
            "go": {"type": "int", "min": 0, "max": 1, "init": 0},
        },
        "threads": [
            {"name": "t0", "start": "L0", "locations": ["L0", "L1", "L2", "L3", "L4"],
             "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": 0}},
             "transitions": [
                {"from": "L0", "to": "L1", "do": "go := 1"},
                {"from": "L1", "to": "L2", "do": "k := 1"},
                {"from": "L2", "to": "L3", "do": "k := 0"},
                {"from": ["L1", "L2", "L3"], "to": "L4", "when": "false", "assert": "a[k] == 0"}]},
            {"name": "t1", "start": "M0", "locations": ["M0", "M1"],
             "transitions": [{"from": "M0", "to": "M1", "do": "a[1] := 1", "when": "go == 1"}]},
        ],
        "properties": [{"name": "never", "error": "false"}],
    });
    unsafe_with_and_without_por(&assertion, "assertions");
}

/// `property` of `model` is violated without `--por` and with it, on one
/// job and two.
fn unsafe_with_and_without_por(model: &Value, property: &str) {
    let prog = common::load_value(model);
    for opts in [CheckOptions::default(), por(1), por(2)] {
        let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
        let verdict = r.outcome(property).unwrap().verdict;
        assert_eq!(verdict, Verdict::Unsafe, "{property}, --por {}", opts.por);
    }
}

/// The proviso within one BFS level: t0 goes from `a` to `b` or `c` and
/// then between them for ever, so `b` and `c` are one level and a cycle;
/// t1's one step is visible. Each state of the cycle, alone, could leave
/// t1 out (its successor by t0 is new, or later in the level); the second
/// of them must not, or t1 is ignored and the error never found.
#[test]
fn a_cycle_inside_one_level_does_not_ignore_a_thread() {
    let model = serde_json::json!({
        "name": "level-cycle",
        "globals": {"h1": {"type": "bool", "init": false}},
        "threads": [
            {"name": "t0", "start": "a", "locations": ["a", "b", "c"], "transitions": [
                {"from": "a", "to": "b"}, {"from": "a", "to": "c"},
                {"from": "b", "to": "c"}, {"from": "c", "to": "b"},
            ]},
            {"name": "t1", "start": "a", "transitions": [{"from": "a", "to": "b", "do": "h1 := true"}]},
        ],
        "properties": [{"name": "bad", "error": "h1"}],
    });
    let prog = common::load_value(&model);
    for jobs in [1, 2] {
        let r = engine::check(&prog, Mode::Standard, &por(jobs)).unwrap();
        assert_eq!(r.outcome("bad").unwrap().verdict, Verdict::Unsafe);
        // The reduction did apply: t0 alone at the start.
        assert!(
            r.stats.count("states") < Some(6),
            "{:?}",
            r.stats.count("states")
        );
    }
}

/// A disabled transition's enabling set when its guard is false by the
/// thread's own local: t1's `k := 1` opens it, so t1 must come with it.
/// t0's write of `g` does not commute with t1's guarded step; were only
/// the writers of globals its enabling set, t0 alone would be expanded
/// first, `g := 1` would close the guard for ever, and the error be lost.
#[test]
fn a_guard_false_by_a_local_is_opened_by_its_own_thread() {
    let model = serde_json::json!({
        "name": "own-local",
        "globals": {"g": {"type": "int", "min": 0, "max": 1, "init": 0},
                    "bad": {"type": "bool", "init": false}},
        "threads": [
            {"name": "t0", "start": "a", "transitions": [{"from": "a", "to": "b", "do": "g := 1"}]},
            {"name": "t1", "start": "a",
             "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": 0}},
             "transitions": [
                {"from": "a", "to": "a", "when": "k == 0", "do": "k := 1"},
                {"from": "a", "to": "b", "when": "k == 1 && g == 0", "do": "bad := true"},
            ]},
        ],
        "properties": [{"name": "bad", "error": "bad"}],
    });
    unsafe_with_and_without_por(&model, "bad");
}

/// A disabled transition's enabling set holds the writers that may open
/// its guard (`engine/por/reason.rs`). t0 waits for `x == 2` while `z` is
/// still 0; t1's `z := 1` closes it for ever, so the error needs t2's
/// `x := 2` (in the second model, a value received from t3) before t1's
/// step. t1's set holds t0's step, whose enabling set must hold t2 (or the
/// rendezvous that writes x): without it t1 alone is expanded and the error
/// is lost. Kept from the "may enable" refinement measured on 2026-11-27
/// (docs/performance.md), whose wrong variants (the atom's test inverted,
/// a received value taken for a constant) it caught.
#[test]
fn a_guards_enabling_set_holds_the_writers_that_may_open_it() {
    let waiter = serde_json::json!(
        {"name": "t0", "start": "a", "transitions": [
            {"from": "a", "to": "b", "when": "x == 2 && z == 0", "do": "bad := true"}]});
    let closer = serde_json::json!(
        {"name": "t1", "start": "a", "transitions": [{"from": "a", "to": "b", "do": "z := 1"}]});
    let globals = serde_json::json!({"x": {"type": "int", "min": 0, "max": 2, "init": 0},
                                     "z": {"type": "int", "min": 0, "max": 1, "init": 0},
                                     "bad": {"type": "bool", "init": false}});
    let stores = serde_json::json!({
        "name": "stores", "globals": globals,
        "threads": [waiter, closer, {"name": "t2", "start": "a", "transitions": [
            {"from": "a", "to": "b", "do": "x := 1"},
            {"from": "b", "to": "c", "do": "x := 2"}]}],
        "properties": [{"name": "bad", "error": "bad"}],
    });
    unsafe_with_and_without_por(&stores, "bad");
    let receives = serde_json::json!({
        "name": "receives", "globals": globals, "channels": ["c"],
        "threads": [waiter, closer,
            {"name": "t2", "start": "a", "transitions": [{"from": "a", "to": "b", "sync": "c?x"}]},
            {"name": "t3", "start": "a", "transitions": [{"from": "a", "to": "b", "sync": "c!2"}]}],
        "properties": [{"name": "bad", "error": "bad"}],
    });
    unsafe_with_and_without_por(&receives, "bad");
}

/// A deadlock reachable only with a step that closes a rendezvous's guard
/// first: t2's `g := 1` closes t0's offer for ever, and then t0 and t1 are
/// stuck. The rendezvous and t2's step do not commute; `--por` keeps the
/// deadlock.
#[test]
fn a_rendezvous_whose_guard_another_thread_closes_keeps_the_deadlock() {
    let model = serde_json::json!({
        "name": "closed-offer",
        "globals": {"g": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "channels": ["c"],
        "threads": [
            {"name": "t0", "start": "a", "transitions": [{"from": "a", "to": "b", "when": "g == 0", "sync": "c!"}]},
            {"name": "t1", "start": "a", "transitions": [{"from": "a", "to": "b", "sync": "c?"}]},
            {"name": "t2", "start": "a", "transitions": [{"from": "a", "to": "b", "do": "g := 1"}]},
        ],
        "check-deadlock": true,
        "properties": [],
    });
    unsafe_with_and_without_por(&model, "deadlock");
}

/// A guard false by its second operand may still fail by its first: t1's
/// `i := 5` makes t0's `a[i]` read out of bounds, a run-time error (the
/// reviewer's counterexample). The writers of what the first operand reads
/// belong to the enabling set.
#[test]
fn a_guard_false_by_its_second_operand_can_fail_by_its_first() {
    let model = serde_json::json!({
        "name": "failing-guard",
        "globals": {"a": {"type": "array", "len": 2, "of": {"type": "int", "min": 0, "max": 1}, "init": 0},
                    "i": {"type": "int", "min": 0, "max": 7, "init": 0},
                    "x": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [
            {"name": "t0", "start": "a", "locations": ["a", "b", "c"], "transitions": [
                {"from": "a", "to": "b"},
                {"from": "a", "to": "c", "when": "a[i] == 0 && x == 1"}]},
            {"name": "t1", "start": "a", "transitions": [{"from": "a", "to": "b", "do": "i := 5"}]},
        ],
        "check-deadlock": true,
        "properties": [],
    });
    unsafe_with_and_without_por(&model, "model-errors");
}

/// A budget ends a `--por` run in `unknown` with what was explored; the
/// next step never suggests `--symmetry`, which `--por` does not combine
/// with, and `--continue` counts the error states of the reduced space.
#[test]
fn budgets_and_next_steps_under_por() {
    let prog = common::load_value(&crate::families::lock(9, 3));
    let opts = CheckOptions {
        por: true,
        max_states: Some(5000),
        ..CheckOptions::default()
    };
    let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
    let o = r.outcome("mutex").unwrap();
    assert_eq!(o.verdict, Verdict::Unknown);
    assert_eq!(r.stats.count("states"), Some(5000));
    let next = o.next_step.as_ref().unwrap().suggestions();
    assert!(!next.is_empty());
    assert!(
        !next
            .iter()
            .any(|s| matches!(s, crate::engine::result::Suggestion::Symmetry { .. })),
        "{next:?}"
    );
    let bug = common::load_value(&crate::families::token_ring(3, true));
    let opts = CheckOptions {
        por: true,
        keep_going: true,
        ..CheckOptions::default()
    };
    let r = engine::check(&bug, Mode::Standard, &opts).unwrap();
    assert!(
        r.outcome("token")
            .unwrap()
            .reason
            .contains("states of the reduced state space")
    );
}

/// A side of a rendezvous fails on its own, partner or none: u offers
/// `c!` under `x[i]` (no receiver ever), w's `i := 2` makes the guard read
/// out of bounds. The reduction must not move u past its offer before w
/// writes (review of the rendezvous closure, 2026-11-25).
#[test]
fn a_send_whose_guard_another_thread_breaks_fails_under_por() {
    let model = serde_json::json!({
        "name": "breaks-offer",
        "globals": {"i": {"type": "int", "min": 0, "max": 2, "init": 0},
            "x": {"type": "array", "len": 2, "of": {"type": "bool"}}},
        "channels": ["c"],
        "threads": [
            {"name": "u", "start": "a", "transitions": [
                {"from": "a", "to": "b"}, {"from": "a", "to": "b", "when": "x[i]", "sync": "c!"}]},
            {"name": "w", "start": "p", "transitions": [{"from": "p", "to": "q", "do": "i := 2"}]},
        ],
        "properties": [{"name": "never", "error": "false"}],
    });
    let prog = common::load_value(&model);
    for opts in [CheckOptions::default(), por(1)] {
        let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
        assert_eq!(
            r.outcome(engine::MODEL_ERRORS).unwrap().verdict,
            Verdict::Unsafe,
            "por: {}",
            opts.por
        );
    }
}
