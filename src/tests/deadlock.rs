//! The built-in predicate `deadlock` (model/load/deadlock.rs): against an
//! oracle that asks the explorer for each reachable state's successors
//! (not the compiled predicate), against SPIN's invalid end states on the
//! Promela export, on the dining philosophers and two locks taken in
//! opposite orders, and in every mode (the abstract modes never say `safe`
//! where a deadlock is reachable). BEEM's published deadlock counts are
//! checked in `beem.rs`.

use super::common;
use super::differential;
use crate::engine::{self, CheckOptions, Mode, Verdict};
use crate::program::{Explorer, Program};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

fn load(path: &Path) -> Program {
    common::load_path(path, None)
}

/// No thread can move, alone or in a rendezvous, and no step fails: asked
/// of the explorer, independently of the compiled predicate.
fn stuck(exp: &mut Explorer, g: u32, ls: &[u32]) -> bool {
    (0..ls.len()).all(|t| {
        let s = exp.successors(t, g, ls[t]);
        s.steps.is_empty() && s.error.is_none()
    }) && {
        let (steps, error) = exp.sync_steps(g, ls);
        steps.is_empty() && error.is_none()
    }
}

/// The `deadlock` outcome's trace, replayed step by step; its last state
/// is stuck with a thread at a location that is not final.
fn deadlock_trace(prog: &Program) -> usize {
    let report = engine::check(prog, Mode::Standard, &CheckOptions::default()).unwrap();
    let outcome = report.outcome("deadlock").expect("a deadlock property");
    assert_eq!(outcome.verdict, Verdict::Unsafe, "{}", prog.name);
    let line = report
        .to_json_lines()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["property"] == "deadlock")
        .unwrap();
    let (mut exp, g, ls) = common::replay_line(prog, &line, &prog.name);
    assert!(
        stuck(&mut exp, g, &ls),
        "{}: the last state moves",
        prog.name
    );
    assert!(
        (0..ls.len()).any(|t| {
            let l = exp.local(t, ls[t])[0] as usize;
            !prog.template_of(t).final_locations[l]
        }),
        "{}: every thread is at a final location",
        prog.name
    );
    outcome.trace.as_ref().unwrap().steps.len()
}

#[test]
fn the_dining_philosophers_deadlock_after_each_takes_one_fork() {
    // BEEM's phils.1: four philosophers, each takes the fork on its left
    // first. The shortest deadlock: each takes one fork, 4 steps.
    let prog = load(&data("beem/dve/phils.1.dve"));
    assert_eq!(deadlock_trace(&prog), 4);
    // Resource ordering (the last philosopher takes the lower fork first).
    let fixed = load(&data("deadlock/phils-ordered.dve"));
    let r = engine::check(&fixed, Mode::Standard, &CheckOptions::default()).unwrap();
    assert_eq!(r.outcome("deadlock").unwrap().verdict, Verdict::Safe);
    assert_eq!(r.stats.count("deadlocks"), Some(0));
}

#[test]
fn two_locks_in_opposite_orders_deadlock_in_two_steps() {
    // p holds a and waits for b, q holds b and waits for a.
    let prog = common::load("bug-deadlock-two-locks.json");
    assert_eq!(deadlock_trace(&prog), 2);
    // `--error` replaces every property, the one `check-deadlock` adds too.
    let path = common::models_dir().join("bug-deadlock-two-locks.json");
    let only = common::load_path(&path, Some("p@cs && q@cs"));
    let names: Vec<&str> = only.properties.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["error"]);
    let fixed = common::load("two-locks-ordered.json");
    let r = engine::check(&fixed, Mode::Standard, &CheckOptions::default()).unwrap();
    assert_eq!(r.verdict(), Verdict::Safe);
}

#[test]
fn a_thread_resting_at_a_final_location_is_no_deadlock() {
    // p runs once and ends at `done` (final by default: no transition
    // leaves it); q waits for a flag nobody sets, at a location it declares
    // final (a server waiting for requests): no deadlock. Declaring nothing
    // final for q makes the same state a deadlock.
    let model = |q_final: Value| {
        json!({"name": "rest", "globals": {"x": {"type": "bool"}},
            "threads": [
                {"name": "p", "start": "run", "transitions": [{"from": "run", "to": "done"}]},
                {"name": "q", "start": "wait", "final": q_final, "transitions": [
                    {"from": "wait", "to": "served", "when": "x"}]}],
            "check-deadlock": true, "properties": []})
    };
    let verdict = |m: Value| {
        let r = engine::check(
            &common::load_value(&m),
            Mode::Standard,
            &CheckOptions::default(),
        )
        .unwrap();
        (
            r.outcome("deadlock").unwrap().verdict,
            r.stats.count("deadlocks"),
        )
    };
    assert_eq!(verdict(model(json!(["wait"]))), (Verdict::Safe, Some(0)));
    assert_eq!(verdict(model(json!([]))), (Verdict::Unsafe, Some(1)));
}

#[test]
fn deadlock_combines_with_other_predicates_and_is_refused_elsewhere() {
    let base = |error: &str, guard: &str| {
        json!({"name": "combo", "globals": {"x": {"type": "int", "min": 0, "max": 2}},
            "threads": [{"name": "p", "count": 2, "start": "a", "final": [], "transitions": [
                {"from": "a", "to": "b", "when": guard, "do": "x := x + 1"}]}],
            "properties": [{"name": "e", "error": error}]})
    };
    let load = |m: Value| {
        crate::model::load_str(&m.to_string(), "combo.json", &[]).map(|m| m.into_program())
    };
    let check = |m: Value| {
        let prog = load(m).unwrap_or_else(|d| panic!("{}", d.render()));
        engine::check(&prog, Mode::Standard, &CheckOptions::default())
            .unwrap()
            .outcomes[0]
            .verdict
    };
    // Both threads end at `b` with x = 2: a deadlock (nothing is final).
    assert_eq!(check(base("deadlock && x == 2", "true")), Verdict::Unsafe);
    assert_eq!(check(base("deadlock && x == 1", "true")), Verdict::Safe);
    assert_eq!(check(base("!deadlock || x != 2", "true")), Verdict::Unsafe);
    // In a guard, `deadlock` means nothing: a clear error at its position.
    let d = load(base("x == 3", "!deadlock")).unwrap_err();
    assert!(
        d.message.contains("only defined in a property"),
        "{}",
        d.render()
    );
    // `final` names a location or a group; a typo is caught.
    let mut m = base("deadlock", "true");
    m["threads"][0]["final"] = json!(["bb"]);
    let d = load(m).unwrap_err();
    assert!(d.render().contains("did you mean `b`?"), "{}", d.render());
    let mut m = base("deadlock", "true");
    m["check-deadlock"] = json!("yes");
    assert!(load(m).is_err());
    // `check-deadlock` with a property already named `deadlock`.
    let mut m = base("deadlock", "true");
    m["properties"][0]["name"] = json!("deadlock");
    m["check-deadlock"] = json!(true);
    assert!(load(m).unwrap_err().message.contains("has one already"));
}

/// What review found (2026-11-23): a property's own evaluation error in
/// `x && deadlock` is a model error wherever x fails; a variable named
/// `deadlock` is an error in a property, not a silent shadow; a deadlock
/// found in the level where a budget ran out is reported; the Promela
/// export refuses `deadlock` inside a larger predicate rather than panic.
#[test]
fn review_findings_stay_fixed() {
    let model = |error: &str| {
        json!({"name": "r", "globals": {"i": {"type": "int", "min": 0, "max": 3},
                "a": {"type": "array", "len": 2, "of": {"type": "int", "min": 0, "max": 1}}},
            "threads": [{"name": "p", "start": "s", "transitions": [
                {"from": "s", "to": "t", "do": "i := 3"}, {"from": "t", "to": "s"}]}],
            "properties": [{"name": "d", "error": error}]})
    };
    let prog = common::load_value(&model("a[i] == 1 && deadlock"));
    let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    assert_eq!(
        r.outcome(engine::MODEL_ERRORS).unwrap().verdict,
        Verdict::Unsafe
    );
    // `!deadlock` as an invariant is `deadlock` itself: exported natively.
    let mut m = model("false");
    m["properties"] = json!([{"name": "d", "invariant": "!deadlock"}]);
    let prog = common::load_value(&m);
    assert_eq!(prog.properties[0].error, prog.deadlock);
    let prog = common::load_value(&model("i == 3 && deadlock"));
    let err = crate::promela::to_promela(&prog, &crate::promela::Options::default()).unwrap_err();
    assert!(
        err.to_string().contains("inside a larger predicate"),
        "{err}"
    );
    let mut m = model("deadlock");
    m["globals"]["deadlock"] = json!({"type": "bool"});
    let d = crate::model::load_str(&m.to_string(), "r.json", &[]).unwrap_err();
    assert!(d.message.contains("both a variable"), "{}", d.render());
    // Three threads each end at `d` (a deadlock at depth 3) or `b`
    // (final); a state budget runs out inside the level of the deadlock.
    let budget = json!({"name": "b", "threads": [{"name": "p", "count": 3, "start": "s",
        "final": ["b"], "transitions": [{"from": "s", "to": "d"}, {"from": "s", "to": "a"},
        {"from": "a", "to": "b"}]}], "check-deadlock": true, "properties": []});
    let prog = common::load_value(&budget);
    let opts = CheckOptions {
        max_states: Some(50),
        ..CheckOptions::default()
    };
    let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
    if r.stats.count("deadlocks").unwrap_or(0) > 0 {
        assert_eq!(r.outcome("deadlock").unwrap().verdict, Verdict::Unsafe);
    }
}

/// Every mode on the shipped deadlock models: standard and refine find the
/// deadlock with a trace, the abstract modes never prove it absent.
#[test]
fn every_mode_is_sound_on_the_deadlock_models() {
    for (name, deadlock) in [
        ("bug-deadlock-two-locks.json", true),
        ("two-locks-ordered.json", false),
    ] {
        let prog = common::load(name);
        for mode in [
            Mode::Standard,
            Mode::ThreadModular,
            Mode::CartesianExc,
            Mode::Refine,
        ] {
            let r = engine::check(&prog, mode, &CheckOptions::default()).unwrap();
            let v = r.outcome("deadlock").unwrap().verdict;
            match mode {
                Mode::Standard | Mode::Refine => assert_eq!(
                    v,
                    if deadlock {
                        Verdict::Unsafe
                    } else {
                        Verdict::Safe
                    },
                    "{name} {mode:?}"
                ),
                _ => assert!(
                    v == Verdict::Unknown || (!deadlock && v == Verdict::Safe),
                    "{name} {mode:?}: {v:?}"
                ),
            }
        }
    }
}

/// A generated model with `check-deadlock`, a random `final` per template
/// (or none: the default), and a property that never holds so the search
/// sees every state.
pub(super) fn with_deadlocks(mut m: Value, finals: &[Option<u8>]) -> Value {
    m["check-deadlock"] = json!(true);
    m["properties"] = json!([{"name": "never", "error": "false"}]);
    for (i, t) in m["threads"].as_array_mut().unwrap().iter_mut().enumerate() {
        if let Some(Some(mask)) = finals.get(i) {
            let locs: Vec<String> = (0..3)
                .filter(|b| mask & (1 << b) != 0)
                .map(|b| format!("L{b}"))
                .collect();
            t["final"] = json!(locs);
        }
    }
    m
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// standard's deadlock count and verdict equal the oracle's (every
    /// reachable state asked of the explorer); the abstract modes never
    /// prove a reachable deadlock absent, and refine agrees with standard.
    #[test]
    fn deadlocks_agree_with_an_oracle_in_every_mode(
        m in differential::model(),
        finals in proptest::collection::vec(proptest::option::of(0u8..8), 4),
    ) {
        let prog = common::load_value(&with_deadlocks(m, &finals));
        let report = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        let mut exp = Explorer::new(&prog);
        let mut oracle = 0;
        for (g, ls) in engine::standard::reachable(&prog).unwrap() {
            let g = exp.globals.intern(&g);
            let ls: Vec<u32> = ls.iter().enumerate().map(|(t, l)| exp.intern_local(t, l)).collect();
            let resting = (0..ls.len()).all(|t| {
                prog.template_of(t).final_locations[exp.local(t, ls[t])[0] as usize]
            });
            if stuck(&mut exp, g, &ls) && !resting {
                oracle += 1;
            }
        }
        prop_assert_eq!(report.stats.count("deadlocks"), Some(oracle));
        let exact = report.outcome("deadlock").unwrap().verdict;
        prop_assert_eq!(exact, if oracle > 0 { Verdict::Unsafe } else { Verdict::Safe });
        let opts = CheckOptions { properties: vec!["deadlock".into()], ..CheckOptions::default() };
        for mode in [Mode::ThreadModular, Mode::CartesianExc, Mode::Refine] {
            let v = engine::check(&prog, mode, &opts).unwrap().outcomes[0].verdict;
            prop_assert_ne!(v, if exact == Verdict::Unsafe { Verdict::Safe } else { Verdict::Unsafe }, "{:?}", mode);
            if mode == Mode::Refine && v != Verdict::Unknown {
                prop_assert_eq!(v, exact);
            }
        }
    }
}

/// SPIN agrees on the Promela export of each: pan reports an invalid end
/// state exactly where weft reports a deadlock, and stores weft's state
/// count plus one on the deadlock-free variants.
#[test]
fn spin_reports_invalid_end_states_exactly_where_weft_finds_deadlocks() {
    if !super::promela::spin_present(
        "spin_reports_invalid_end_states_exactly_where_weft_finds_deadlocks",
    ) {
        return;
    }
    let cases = [
        (load(&data("beem/dve/phils.1.dve")), true),
        (load(&data("deadlock/phils-ordered.dve")), false),
        (common::load("bug-deadlock-two-locks.json"), true),
        (common::load("two-locks-ordered.json"), false),
    ];
    for (prog, deadlock) in cases {
        let (verdict, _, pan) = super::promela::cross_check(&prog, &[]);
        assert_eq!(verdict == Verdict::Unsafe, deadlock, "{}", prog.name);
        assert_eq!(
            pan.output.contains("pan:1: invalid end state"),
            deadlock,
            "{}: {}",
            prog.name,
            pan.output
        );
    }
}

/// Every reachable state of `prog`, as store ids of `exp`.
fn reachable_ids(prog: &Program, exp: &mut Explorer) -> Vec<(u32, Vec<u32>)> {
    let states = engine::standard::reachable(prog).unwrap();
    states
        .into_iter()
        .map(|(g, ls)| {
            let ids = ls
                .iter()
                .enumerate()
                .map(|(t, l)| exp.intern_local(t, l))
                .collect();
            (exp.globals.intern(&g), ids)
        })
        .collect()
}

/// `standard` decides `deadlock` directly (`Explorer::deadlocked`) rather
/// than evaluating the predicate: the two agree on every reachable state
/// of BEEM instances with rendezvous (where the predicate's per-channel
/// counts matter) and without, and where a guard fails to evaluate the
/// direct decision declines (the predicate then fails too, or its short
/// circuit decides).
#[test]
fn the_direct_deadlock_decision_is_the_predicate() {
    let mut decided = 0;
    for name in [
        "cyclic_scheduler.1",
        "phils.1",
        "elevator.1",
        "gear.1",
        "lup.1",
        "train-gate.1",
        "bakery.1",
        "driving_phils.1",
        "firewire_link.1",
    ] {
        let prog = load(&data(&format!("beem/dve/{name}.dve")));
        let mut exp = Explorer::new(&prog);
        let mut deadlocks = 0;
        for (g, ls) in reachable_ids(&prog, &mut exp) {
            let predicate = crate::property::holds(&prog.deadlock, &exp, g, &ls);
            let direct = exp.deadlocked(g, &ls);
            assert_eq!(direct, predicate.clone().ok(), "{name}");
            deadlocks += predicate.unwrap() as usize;
            decided += 1;
        }
        if name == "phils.1" || name == "train-gate.1" {
            assert!(deadlocks > 0, "{name}: no deadlock met");
        }
    }
    assert!(decided > 1000);
    // One thread offers both a send and a receive on `c`: no partner, so
    // a deadlock (it counts once among the threads offering on `c`).
    let alone = common::load_value(&json!({"name": "alone", "channels": ["c"],
        "threads": [{"name": "p", "start": "a", "final": [], "transitions": [
            {"from": "a", "to": "b", "sync": "c!"}, {"from": "a", "to": "b", "sync": "c?"}]}],
        "check-deadlock": true, "properties": []}));
    let mut exp = Explorer::new(&alone);
    let (g, ls) = exp.initial_states().remove(0);
    assert_eq!(exp.deadlocked(g, &ls), Some(true));
    assert_eq!(
        crate::property::holds(&alone.deadlock, &exp, g, &ls),
        Ok(true)
    );
    // x[i] with i = 2 is out of bounds: the guard fails, so it is not a
    // true guard, in the predicate as in the direct decision: the state
    // where p waits on it is a deadlock (the step is the model error).
    let prog = common::load_value(&json!({"name": "f",
        "globals": {"i": {"type": "int", "min": 0, "max": 2},
            "x": {"type": "array", "len": 2, "of": {"type": "bool"}}},
        "threads": [{"name": "p", "start": "a", "transitions": [
            {"from": "a", "to": "b", "do": "i := 2"},
            {"from": "b", "to": "c", "when": "x[i]"}]}],
        "check-deadlock": true, "properties": []}));
    let mut exp = Explorer::new(&prog);
    let mut deadlocks = 0;
    for (g, ls) in reachable_ids(&prog, &mut exp) {
        let predicate = crate::property::holds(&prog.deadlock, &exp, g, &ls);
        assert_eq!(
            exp.deadlocked(g, &ls).ok_or(()),
            predicate.clone().map_err(|_| ())
        );
        deadlocks += predicate.unwrap_or(false) as usize;
    }
    assert_eq!(deadlocks, 1);
}

/// A guard that fails to evaluate is not a true guard: another thread that
/// can move still makes `deadlock` false, so properties that read it are
/// decided (they were "safe" while `x == 1` alone was unsafe: the failing
/// guard made the whole predicate fail; found by fuzzing against an
/// interpreter of the docs); and where no guard is true, the state is a
/// deadlock, in standard (direct decision, both jobs counts, --por) and in
/// refine alike.
#[test]
fn a_failing_guard_is_not_a_true_guard() {
    let prog = common::load_value(&json!({"name": "dl-atom",
        "globals": {"x": {"type": "int", "min": 0, "max": 1},
            "a": {"type": "array", "len": 1, "of": {"type": "int", "min": 0, "max": 1}}},
        "threads": [
            {"name": "t", "start": "s0", "transitions": [{"from": "s0", "to": "s1", "when": "a[x + 1] == 0"}]},
            {"name": "u", "start": "s0", "transitions": [{"from": "s0", "to": "s0", "do": "x := 1 - x"}]}],
        "properties": [{"name": "nodl_and", "error": "!deadlock && x == 1"},
            {"name": "and_nodl", "error": "x == 1 && !deadlock"},
            {"name": "dl_or", "error": "deadlock || x == 1"}]}));
    for (jobs, por) in [(1, false), (2, false), (2, true)] {
        let opts = CheckOptions {
            jobs: Some(jobs),
            por,
            keep_going: true,
            ..CheckOptions::default()
        };
        let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
        for p in ["nodl_and", "and_nodl", "dl_or"] {
            assert_eq!(
                r.outcome(p).unwrap().verdict,
                Verdict::Unsafe,
                "{p}: {}",
                r.to_text()
            );
        }
    }
    // t's only guard fails at s0 and nothing else moves: a deadlock.
    let stuck = common::load_value(&json!({"name": "dl",
        "globals": {"z": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [{"name": "t", "start": "l0", "transitions": [{"from": "l0", "to": "l1", "when": "1 / z == 1"}]}],
        "properties": [{"name": "dl", "error": "deadlock"}]}));
    for mode in [Mode::Standard, Mode::Refine] {
        let r = engine::check(&stuck, mode, &CheckOptions::default()).unwrap();
        assert_eq!(
            r.outcome("dl").unwrap().verdict,
            Verdict::Unsafe,
            "{mode:?}: {}",
            r.to_text()
        );
        assert_eq!(
            r.outcome(crate::engine::MODEL_ERRORS).unwrap().verdict,
            Verdict::Unsafe
        );
    }
}

/// With the program's error state (DiVinE's semantics) a guard that fails
/// to evaluate counts as true: the transition is taken, into the error
/// state, so its thread is not stuck there (a state whose only move was
/// such a step was counted as a deadlock; found in review). Both ways of
/// deciding (the direct one and the predicate inside a larger property),
/// with either jobs count.
#[test]
fn with_an_error_state_a_failing_guard_moves_there() {
    let model = |property: &str| {
        common::load_value(&json!({"name": "es-dl",
            "globals": {"z": {"type": "int", "min": 0, "max": 1, "init": 0},
                "x": {"type": "int", "min": 0, "max": 1, "init": 0}},
            "threads": [{"name": "t", "start": "l0", "locations": ["l0", "l1", "error"],
                "final": ["l1", "error"],
                "transitions": [{"from": "l0", "to": "l1", "when": "1 / z == 1"}]}],
            "error-state": {"thread": "t", "location": "error"},
            "properties": [{"name": "dl", "error": property}]}))
    };
    for property in ["deadlock", "deadlock || x == 1"] {
        let prog = model(property);
        for jobs in [1, 2] {
            let opts = CheckOptions {
                jobs: Some(jobs),
                keep_going: true,
                ..CheckOptions::default()
            };
            let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
            let dl = r.outcome("dl").unwrap();
            assert_eq!(dl.verdict, Verdict::Safe, "{property}: {}", r.to_text());
            assert_eq!(r.stats.states(), 2, "{}", r.to_text());
            if property == "deadlock" {
                assert_eq!(r.stats.count("deadlocks"), Some(0), "{}", r.to_text());
            }
        }
        // Each layer on its own: the direct decision, the predicate, the
        // thread's successors and `may_move` (what the quiet filter reads).
        let mut exp = Explorer::new(&prog);
        let (g, ls) = exp.initial_states().remove(0);
        assert_eq!(exp.deadlocked(g, &ls), Some(false));
        assert_eq!(
            crate::property::holds(&prog.deadlock, &exp, g, &ls),
            Ok(false)
        );
        assert!(exp.may_move(0, g, ls[0]));
        assert!(exp.successors(0, g, ls[0]).moves(true));
    }
}
