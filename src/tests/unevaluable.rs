//! Properties that fail to evaluate (found by fuzzing, 2026-11-28). In
//! `standard` a property is not violated where its evaluation fails; the
//! failure is a model error. The abstract modes do not track such
//! failures, so they must neither prove model-errors where one is
//! reachable nor call the state an error of the property: before, the
//! abstract modes answered model-errors `safe`, refine answered the
//! property with an internal error, control refinement called it `unsafe`
//! with a trace that does not replay, and thread-modular and cartesian-exc
//! refused the model as bad input.

use super::common;
use crate::Suggestion;
use crate::engine::{self, CheckOptions, MODEL_ERRORS, Mode, Refinement, Verdict};
use serde_json::{Value, json};

/// `1 / g` once `g` is 0.
fn property_dividing_by_zero() -> Value {
    json!({"name": "pe2", "globals": {"g": {"type": "int", "min": 0, "max": 1, "init": 1}},
        "threads": [{"name": "t", "start": "l0", "transitions": [{"from": "l0", "to": "l1", "do": "g := 0"}]}],
        "properties": [{"name": "p", "error": "1 / g == 7"}]})
}

/// An assertion shifting by a value that overflows once `a` has run.
fn assertion_overflowing() -> Value {
    json!({"name": "as", "globals": {"g": {"type": "int", "min": 0, "max": 63, "init": 0}},
        "threads": [
            {"name": "a", "start": "l0", "transitions": [{"from": "l0", "to": "l1", "do": "g := 63"}]},
            {"name": "b", "start": "m0", "transitions": [{"from": "m0", "to": "m0", "when": "false", "assert": "(1 << g) > 0"}]}],
        "properties": [{"name": "never", "error": "false"}]})
}

/// A deadlock check over a guard that divides by zero.
fn deadlock_over_a_failing_guard() -> Value {
    json!({"name": "dl", "globals": {"z": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [{"name": "t", "start": "l0", "transitions": [{"from": "l0", "to": "l1", "when": "1 / z == 1"}]}],
        "properties": [{"name": "dl", "error": "deadlock"}]})
}

/// A cooperative deadlock check over the guard of a thread that waits
/// (found in review): `deadlock` evaluated it (a model error in
/// `standard`, which no abstract mode saw: they proved model-errors), no
/// step does. Now `deadlock` reads a thread's `waiting` cell first, so the
/// state is the deadlock it is: the thread waits for ever at `w`, which
/// is not final.
fn cooperative_deadlock_over_a_waiting_threads_guard() -> Value {
    json!({"name": "coop-dl", "scheduling": "cooperative", "events": ["ev"],
        "globals": {"g": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [{"name": "a", "start": "s", "final": [], "transitions": [
            {"from": "s", "to": "w", "wait": "ev"},
            {"from": "w", "to": "x", "when": "1 / g > 0"}]}],
        "properties": [{"name": "dl", "error": "deadlock"}]})
}

#[test]
fn abstract_modes_neither_prove_nor_misplace_a_failing_evaluation() {
    let runs = [
        (Mode::ThreadModular, Refinement::Exceptions),
        (Mode::CartesianExc, Refinement::Exceptions),
        (Mode::Refine, Refinement::Exceptions),
        (Mode::Refine, Refinement::Control),
        (Mode::Refine, Refinement::ControlMonotonic),
    ];
    for m in [
        property_dividing_by_zero(),
        assertion_overflowing(),
        deadlock_over_a_failing_guard(),
        cooperative_deadlock_over_a_waiting_threads_guard(),
    ] {
        let prog = common::load_value(&m);
        let exact = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        let errors = exact
            .outcomes
            .iter()
            .find(|o| o.property == MODEL_ERRORS)
            .unwrap();
        // Each model has one reachable error: a failing evaluation, or the
        // cooperative deadlock.
        let deadlock = m["name"] == "coop-dl";
        assert_eq!(
            errors.verdict == Verdict::Unsafe,
            !deadlock,
            "{}",
            m["name"]
        );
        let found = exact.outcomes.iter().any(|o| o.verdict == Verdict::Unsafe);
        assert!(found, "{}", m["name"]);
        for (mode, refinement) in runs {
            let opts = CheckOptions {
                refinement,
                ..CheckOptions::default()
            };
            let what = format!("{} {mode:?} {refinement:?}", m["name"]);
            let r = engine::check(&prog, mode, &opts).unwrap_or_else(|e| panic!("{what}: {e}"));
            for (e, a) in exact.outcomes.iter().zip(&r.outcomes) {
                assert_eq!(e.property, a.property, "{what}");
                assert!(!a.reason.contains("internal error"), "{what}: {}", a.reason);
                if e.verdict == Verdict::Unsafe {
                    assert_ne!(
                        a.verdict,
                        Verdict::Safe,
                        "{what} {}: {}",
                        a.property,
                        a.reason
                    );
                }
                if e.verdict == Verdict::Safe {
                    assert_ne!(
                        a.verdict,
                        Verdict::Unsafe,
                        "{what} {}: {}",
                        a.property,
                        a.reason
                    );
                }
            }
        }
    }
}

/// `p` holds in the initial state, so `standard` decides it there; `q`
/// never holds, so the search goes on, to the state where `g` is 0 and
/// `p` fails to evaluate (found by the POR proptest, 2026-11-28).
fn violated_first_failing_later() -> Value {
    json!({"name": "late", "globals": {"g": {"type": "int", "min": 0, "max": 1, "init": 1},
            "h": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [{"name": "t", "start": "l0", "transitions": [{"from": "l0", "to": "l1", "do": "g := 0"}]}],
        "properties": [{"name": "p", "error": "1 / g == 1"}, {"name": "q", "error": "h == 1"}]})
}

fn model_errors(prog: &crate::program::Program, opts: &CheckOptions) -> crate::Outcome {
    let r = engine::check(prog, Mode::Standard, opts).unwrap();
    r.outcomes
        .into_iter()
        .find(|o| o.property == MODEL_ERRORS)
        .unwrap()
}

/// `standard` stopped evaluating a property once it was violated, so a
/// later failure of its evaluation went unseen and model-errors was
/// `safe`. A violated property that may fail is still evaluated for its
/// failures. `model-errors` covers the properties checked in the run:
/// alone it evaluates none, so where a checked one may fail, the next
/// step after an early stop is `--continue`, not checking it alone.
#[test]
fn standard_looks_for_failures_of_a_property_it_found_violated() {
    let prog = common::load_value(&violated_first_failing_later());
    for jobs in [1, 2] {
        let opts = CheckOptions {
            jobs: Some(jobs),
            ..CheckOptions::default()
        };
        let o = model_errors(&prog, &opts);
        assert_eq!(o.verdict, Verdict::Unsafe, "jobs {jobs}: {}", o.reason);
        assert!(o.reason.contains("division by zero"), "{}", o.reason);
        let p = engine::check(&prog, Mode::Standard, &opts)
            .unwrap()
            .outcomes;
        assert_eq!(p[0].verdict, Verdict::Unsafe);
        assert_eq!(p[1].verdict, Verdict::Safe);
    }
    let only = |names: &[&str]| CheckOptions {
        properties: names.iter().map(|n| n.to_string()).collect(),
        ..CheckOptions::default()
    };
    let early = model_errors(&prog, &only(&["p"]));
    assert_eq!(early.verdict, Verdict::Unknown);
    let next = early.next_step.unwrap();
    assert_eq!(next.suggestions(), &[Suggestion::Continue]);
    let on = CheckOptions {
        keep_going: true,
        ..only(&["p"])
    };
    assert_eq!(model_errors(&prog, &on).verdict, Verdict::Unsafe);
    // `weft simulate` stops at `p`'s violation too: it suggests a search.
    let sim = crate::engine::simulate::run(&prog, &Default::default()).unwrap();
    let errors = sim.outcomes.iter().find(|o| o.property == MODEL_ERRORS);
    let next = errors.and_then(|o| o.next_step.as_ref()).unwrap();
    assert_eq!(next.suggestions(), &[Suggestion::Search]);
    let unchecked = model_errors(&prog, &only(&["q"]));
    assert_eq!(unchecked.verdict, Verdict::Safe);
    assert!(
        unchecked.reason.contains("`p`, not checked, may fail"),
        "{}",
        unchecked.reason
    );
}

/// `2 - count(p: @cs)` is 0 only where both threads are in `cs`, which
/// the lock excludes; the first control abstraction cannot tell that state
/// from a reachable one. Control refinement replayed one arbitrary choice
/// of local stores there (both at `l0`, a real run) and answered `unknown`
/// after no refinement (found in review); it now replays the choices where
/// the property fails or holds, finds their paths spurious, and proves it
/// as refine-exceptions does.
#[test]
fn control_refinement_replays_the_states_where_a_property_fails() {
    let m = json!({"name": "divcs", "globals": {"lock": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [{"name": "p", "count": 2, "start": "l0", "transitions": [
            {"from": "l0", "to": "cs", "when": "lock == 0", "do": "lock := 1"},
            {"from": "cs", "to": "l0", "do": "lock := 0"}]}],
        "properties": [{"name": "e", "error": "1 / (2 - count(p: @cs)) == 7"}]});
    let prog = common::load_value(&m);
    for refinement in [
        Refinement::Exceptions,
        Refinement::Control,
        Refinement::ControlMonotonic,
    ] {
        let opts = CheckOptions {
            refinement,
            ..CheckOptions::default()
        };
        let r = engine::check(&prog, Mode::Refine, &opts).unwrap();
        let e = &r.outcomes[0];
        assert_eq!(e.verdict, Verdict::Safe, "{refinement:?}: {}", e.reason);
    }
}

/// A remainder or quotient by a constant other than 0 cannot fail on
/// bounded values, so the abstract modes prove model-errors where the
/// properties use one (they withheld it for any `%` or `/`: an audit's
/// random models met it in every abstract-mode difference); by a variable,
/// which may be 0, they still withhold it.
#[test]
fn a_remainder_by_a_constant_does_not_withhold_model_errors() {
    let model = |assert: &str| {
        json!({
            "name": "mod-assert",
            "globals": {"g": {"type": "int", "min": 0, "max": 2, "init": 0}},
            "threads": [{"name": "p", "count": 2, "start": "a", "transitions": [
                {"from": "a", "to": "a", "do": "g := (g + 1) % 3", "assert": assert}]}],
            "properties": [{"name": "never", "error": "false"}]
        })
    };
    for (assert, proved) in [
        ("(g + 1) % 3 != 5", true),
        ("(g + 7) / -2 != 5 && g >> 1 != 5", true),
        ("(g + 1) % g != 5", false),
        ("5 / (g - 1) != 9", false),
    ] {
        let prog = common::load_value(&model(assert));
        assert_eq!(
            model_errors(&prog, &CheckOptions::default()).verdict,
            if proved {
                Verdict::Safe
            } else {
                Verdict::Unsafe
            },
            "standard: {assert}"
        );
        for mode in [Mode::CartesianExc, Mode::ThreadModular, Mode::Refine] {
            let r = engine::check(&prog, mode, &CheckOptions::default()).unwrap();
            let o = r
                .outcomes
                .iter()
                .find(|o| o.property == MODEL_ERRORS)
                .unwrap();
            let want = if proved {
                Verdict::Safe
            } else {
                Verdict::Unknown
            };
            assert_eq!(o.verdict, want, "{mode:?}: {assert}: {}", o.reason);
        }
    }
}
