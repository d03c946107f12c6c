//! `--por` (engine/por.rs, standard/reduce.rs) never changes a verdict:
//! on generated models, with and without rendezvous, for error properties
//! and deadlocks, against the unreduced search; on every shipped model; and
//! the traces it reports replay; and BEEM's published answers (the rows of
//! tests/data/beem/counts.csv, read by `beem.rs`) hold under `--por`.

use super::beem;
use super::common;
use super::deadlock::with_deadlocks;
use super::differential;
use crate::engine::{self, CheckOptions, Mode, Verdict};
use crate::program::Program;
use proptest::prelude::*;
use serde_json::Value;

fn por(jobs: usize) -> CheckOptions {
    CheckOptions {
        por: true,
        jobs: Some(jobs),
        ..CheckOptions::default()
    }
}

/// Checks `prog` with and without `--por`: the same verdict for every
/// property, at most as many states, the same count for one and two jobs,
/// and every reduced trace replays to an error state. Returns the state
/// counts (full, reduced).
pub(super) fn agree(prog: &Program) -> Result<(u64, u64), TestCaseError> {
    let full = engine::check(prog, Mode::Standard, &CheckOptions::default()).unwrap();
    let reduced = engine::check(prog, Mode::Standard, &por(2)).unwrap();
    let one_job = engine::check(prog, Mode::Standard, &por(1)).unwrap();
    let r = reduced.stats.count("states");
    prop_assert_eq!(r, one_job.stats.count("states"), "jobs change the count");
    // A search stops once every property but `model-errors` is violated,
    // so either may leave `model-errors` undecided where the other, by
    // another order, met a run-time error first: both then search the
    // whole space (`--continue`), where every verdict is decided.
    let undecided =
        |a: Verdict, b: Verdict| a != b && (a == Verdict::Unknown || b == Verdict::Unknown);
    let (full, reduced) = match full
        .outcomes
        .iter()
        .zip(&reduced.outcomes)
        .any(|(a, b)| undecided(a.verdict, b.verdict))
    {
        false => (full, reduced),
        true => {
            let whole = |por: bool| CheckOptions {
                por,
                keep_going: true,
                jobs: Some(2),
                ..CheckOptions::default()
            };
            let full = engine::check(prog, Mode::Standard, &whole(false)).unwrap();
            (
                full,
                engine::check(prog, Mode::Standard, &whole(true)).unwrap(),
            )
        }
    };
    for (a, b) in full.outcomes.iter().zip(&reduced.outcomes) {
        prop_assert_eq!(&a.property, &b.property);
        prop_assert_eq!(a.verdict, b.verdict, "{}: {}", a.property, b.reason);
    }
    let (f, r) = (full.stats.count("states"), reduced.stats.count("states"));
    if full.outcomes.iter().all(|o| o.verdict == Verdict::Safe) {
        prop_assert!(r <= f, "{:?} reduced states, {:?} full", r, f);
    }
    for line in reduced.to_json_lines().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["verdict"] == "unsafe" && v.get("property").is_some() {
            common::replay_line(prog, &v, &prog.name);
        }
    }
    Ok((f.unwrap_or(0), r.unwrap_or(0)))
}

const GUARDS: &[&str] = &[
    "true",
    "k == 0",
    "k == 1",
    "j != k",
    "j == 0",
    "g0 == 0",
    "g1 != 0",
    "g2 == 1",
    "g0 == 1 && k == 0",
    "g1 == 0 || g2 == 0",
    "!(g0 == 0 && j == 0)",
    "a[0] == 0",
    "a[1] != 0 && k == 1",
    "a[j] == 1",
];
/// Half of them on locals only.
const UPDATES: &[&str] = &[
    "k := 1 - k",
    "j := k",
    "j := 1 - j",
    "k := any",
    "g0 := 1",
    "g0 := 0",
    "g1 := (g1 + 1) % 3",
    "g2 := k",
    "mine := 1",
    "mine := 1 - mine",
    "a[0] := 1",
    "a[1] := 1 - a[1]",
    "a[j] := k",
];
const ERRORS: &[&str] = &[
    "g0 == 1 && g1 == 2",
    "g2 == 1 && g1 == 1",
    "exists(*: @L3) && g0 == 1",
    "g1 == 2 && g2 == 2",
    "h0 == 1 && h1 == 0",
    "h1 == 1 && h0 == 0 && g0 == 0",
    "a[1] == 1 && g2 == 1",
    "false",
];

/// Models where much is independent: one template per thread, most steps
/// on a local or on a global few threads touch, properties on globals
/// mostly (so few transitions are visible), and in one of four cases
/// deadlocks only (`false` as the error, `check-deadlock`).
fn independent_model() -> impl Strategy<Value = Value> {
    // Control flows forward (L0 to L4) in three models of four: no cycle
    // brings a thread back, so nothing but the persistent sets themselves
    // keeps a step from being ignored.
    let transition = (0..4usize, 0..5usize, 0..GUARDS.len(), proptest::collection::vec(0..UPDATES.len(), 0..3), 0..4u8)
        .prop_map(|(f, t, g, us, loops)| {
            let updates: Vec<&str> = us.iter().map(|&u| UPDATES[u]).collect();
            // `to` before `f`: a loop (models with cycles).
            let t = if loops == 0 { t } else { f + 1 + t % (4 - f) };
            serde_json::json!({"from": format!("L{f}"), "to": format!("L{t}"), "when": GUARDS[g], "do": updates.join("; ")})
        });
    let template = proptest::collection::vec(transition, 2..9);
    (proptest::collection::vec(template, 2..=4), 0..ERRORS.len(), 0..3i64).prop_map(|(ts, e, g0)| {
        // `mine` is the thread's own global `h<i>`: written by it alone.
        let ts: Vec<Value> = ts.into_iter().enumerate().map(|(i, ts)| {
            serde_json::from_str(&serde_json::to_string(&ts).unwrap().replace("mine", &format!("h{i}"))).unwrap()
        }).collect();
        let threads: Vec<Value> = ts.into_iter().enumerate().map(|(i, ts)| serde_json::json!({
            "name": format!("t{i}"), "start": "L0", "locations": ["L0", "L1", "L2", "L3", "L4"],
            "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": 0}, "j": {"type": "int", "min": 0, "max": 1, "init": 0}},
            "transitions": ts,
        })).collect();
        serde_json::json!({
            "name": "independent",
            "globals": {
                "g0": {"type": "int", "min": 0, "max": 2, "init": g0},
                "g1": {"type": "int", "min": 0, "max": 2, "init": 0},
                "g2": {"type": "int", "min": 0, "max": 2, "init": 0},
                "h0": {"type": "int", "min": 0, "max": 1, "init": 0},
                "h1": {"type": "int", "min": 0, "max": 1, "init": 0},
                "h2": {"type": "int", "min": 0, "max": 1, "init": 0},
                "h3": {"type": "int", "min": 0, "max": 1, "init": 0},
                "a": {"type": "array", "len": 2, "of": {"type": "int", "min": 0, "max": 1}, "init": 0},
            },
            "threads": threads,
            "check-deadlock": ERRORS[e] == "false",
            "properties": [{"name": "bad", "error": ERRORS[e]}],
        })
    })
}

/// Cooperative models: `independent_model`'s, made cooperative.
fn cooperative_model() -> impl Strategy<Value = Value> {
    independent_model().prop_flat_map(super::cooperative::made_cooperative)
}

/// The same with rendezvous: about a third of the transitions become a
/// send or a receive on `c0` or `c1` (a value from a local, into a local
/// or the thread's own global), so that rendezvous are reduced as
/// transitions of their own (`stubborn/`, `Item::Pair`).
fn rendezvous_model() -> impl Strategy<Value = Value> {
    independent_model().prop_flat_map(|m| {
        let n = common::transitions(&m);
        proptest::collection::vec(0..12u8, n).prop_map(move |kinds| {
            let mut m = m.clone();
            m["channels"] = serde_json::json!(["c0", "c1"]);
            let mut k = 0;
            for (i, t) in m["threads"].as_array_mut().unwrap().iter_mut().enumerate() {
                for tr in t["transitions"].as_array_mut().unwrap() {
                    let kind = kinds[k];
                    k += 1;
                    let sync = match kind {
                        0 => "c0!k".to_string(),
                        1 => "c0?j".to_string(),
                        2 => "c1!".to_string(),
                        3 => "c1?".to_string(),
                        4 => format!("c0?h{i}"),
                        _ => continue,
                    };
                    tr["sync"] = serde_json::json!(sync);
                }
            }
            m
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Rendezvous among mostly independent steps.
    #[test]
    fn por_keeps_every_verdict_of_models_with_rendezvous(m in rendezvous_model()) {
        agree(&common::load_value(&m))?;
    }

    /// Cooperative models: macro-steps, events, and the reduction's
    /// futures relative to the set (`futures_without`).
    #[test]
    fn por_keeps_every_verdict_of_cooperative_models(m in cooperative_model()) {
        agree(&common::load_value(&m))?;
    }

    /// Models built to have independent steps, so that the reduction
    /// bites.
    #[test]
    fn por_keeps_every_verdict_of_models_with_independent_steps(m in independent_model()) {
        agree(&common::load_value(&m))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Error properties over locations, locals and globals, with and
    /// without rendezvous.
    #[test]
    fn por_keeps_every_verdict_of_generated_models(m in differential::model()) {
        agree(&common::load_value(&m))?;
    }

    /// Deadlocks (with random `final` locations), the whole state space
    /// searched.
    #[test]
    fn por_keeps_every_deadlock_of_generated_models(
        m in differential::model(),
        finals in proptest::collection::vec(proptest::option::of(0u8..8), 4),
    ) {
        agree(&common::load_value(&with_deadlocks(m, &finals)))?;
    }
}

#[test]
fn por_keeps_every_verdict_of_the_shipped_models() {
    let mut reduced = 0;
    for entry in std::fs::read_dir(common::models_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let prog = common::load_path(&path, None);
        let (f, r) = agree(&prog).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        reduced += (r < f) as usize;
    }
    // The reduction does something on this collection.
    assert!(reduced >= 10, "only {reduced} models reduced");
}

#[test]
fn two_locks_taken_in_opposite_orders_deadlock_with_and_without_por() {
    for (name, deadlock) in [
        ("bug-deadlock-two-locks.json", Verdict::Unsafe),
        ("two-locks-ordered.json", Verdict::Safe),
    ] {
        let prog = common::load(name);
        for opts in [CheckOptions::default(), por(2)] {
            let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
            assert_eq!(r.outcome("deadlock").unwrap().verdict, deadlock, "{name}");
        }
    }
}

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
    // And the reduction does reduce here: t1 alone first, then t0.
    let prog = common::load_value(&model("false", false));
    let r = engine::check(&prog, Mode::Standard, &por(1)).unwrap();
    assert_eq!(r.stats.count("states"), Some(3));
}

/// A deadlock check needs no cycle proviso, but a run-time error does:
/// t0 toggles a local for ever, t1 takes a step and then one that may
/// overflow `x`. Where it overflows (`x := x + 2`, x in 0..1), the
/// reduced search must not cycle through t0 alone and leave t1 out (the
/// proviso applies to a set that leaves out a thread which may still
/// fail); where it cannot (`x := 1 - x`), the proviso is not applied and
/// t0's cycle alone is explored: the two states of `k`, t1 never moving,
/// and no deadlock is lost (t0 can always move).
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
        assert_eq!(r.stats.count("states"), Some(2));
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

/// `--por` keeps BEEM's published answers: the error predicate reachable or
/// not, and a deadlock (a state without a successor) reachable or not;
/// every reduced trace replays.
#[test]
fn por_keeps_the_published_answers() {
    let por = CheckOptions {
        por: true,
        ..CheckOptions::default()
    };
    for row in beem::rows() {
        let path = beem::data().join(&row.file);
        let load = |error: Option<&str>| common::load_path(&path, error);
        let mut checks = vec![];
        if let Some(reachable) = row.reachable {
            checks.push((load(Some(&row.error)), "error", reachable));
        }
        if let Some(d) = row.deadlocks {
            checks.push((load(None), "deadlock", d > 0));
        }
        for (prog, property, reachable) in checks {
            let r = engine::check(&prog, Mode::Standard, &por).unwrap();
            let o = r.outcome(property).unwrap();
            let want = if reachable {
                Verdict::Unsafe
            } else {
                Verdict::Safe
            };
            assert_eq!(o.verdict, want, "{} {property}", row.file);
            for line in r.to_json_lines().lines() {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                if v["verdict"] == "unsafe" && v.get("property").is_some() {
                    common::replay_line(&prog, &v, &row.file);
                }
            }
        }
    }
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

/// The reduced counts do not depend on the number of jobs, nor on the run:
/// each level is decided in the order of its states' packed words, not in
/// the store's, which races between workers (at.2 stored 48,185 to 48,198
/// states from run to run before; review, 2026-11-25). at.2 (a timer that
/// every process reads) and pgm_protocol.2 (rendezvous) vary most.
#[test]
fn reduced_counts_are_the_same_for_any_number_of_jobs() {
    for file in ["dve/at.2.dve", "dve/pgm_protocol.2.dve"] {
        let path = beem::data().join(file);
        let prog = common::load_path(&path, None);
        let counts = |jobs| {
            let r = engine::check(&prog, Mode::Standard, &por(jobs)).unwrap();
            (r.stats.count("states"), r.stats.count("transitions"))
        };
        let one = counts(1);
        for _ in 0..3 {
            assert_eq!(counts(2), one, "{file}: two jobs against one");
        }
    }
}
