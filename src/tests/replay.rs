//! The replay engine against the search engines, on generated models (the
//! differential generator: about half with rendezvous): every trace
//! `standard` reports, written as JSON Lines and read back, replays to its
//! error state; every error a simulation finds replays and is one
//! `standard` finds too; and a trace with one step's values changed fails
//! no later than that step.

use super::common;
use super::differential::model;
use crate::engine::result::{RunReport, Trace};
use crate::engine::{self, CheckOptions, Mode, SimulateOptions, Verdict, replay, simulate};
use crate::report::SavedTrace;
use proptest::prelude::*;
use serde_json::Value;

/// Each outcome's trace, as `weft replay` reads it from `--format json`.
fn saved_traces(r: &RunReport) -> Vec<(String, Trace)> {
    let text = r.to_json_lines();
    r.outcomes
        .iter()
        .filter(|o| o.trace.is_some())
        .map(|o| {
            let saved = SavedTrace::parse(&text, "generated.jsonl", Some(&o.property))
                .unwrap_or_else(|d| panic!("{}", d.render()));
            (o.property.clone(), saved.trace)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_standard_trace_replays(m in model()) {
        let prog = common::load_value(&m);
        let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        for (property, trace) in saved_traces(&r) {
            let rep = replay::replay(&prog, &trace, Some(&property), &Default::default()).unwrap();
            prop_assert!(rep.confirmed(), "{property}: {}\n{m}", rep.to_text());
            prop_assert_eq!(rep.replayed.map(|t| t.steps.len()), Some(trace.steps.len()));
        }
    }

    #[test]
    fn every_simulated_error_replays_and_is_real(m in model(), seed in any::<u64>()) {
        let prog = common::load_value(&m);
        let opts = SimulateOptions { runs: 20, steps: 30, seed, ..SimulateOptions::default() };
        let sim = simulate::run(&prog, &opts).unwrap();
        let exact = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        for o in &sim.outcomes {
            let Some(trace) = &o.trace else { continue };
            prop_assert_eq!(o.verdict, Verdict::Unsafe);
            let rep = replay::replay(&prog, trace, Some(&o.property), &Default::default()).unwrap();
            prop_assert!(rep.confirmed(), "{}: {}\n{m}", o.property, rep.to_text());
            // `standard` stops once every property is violated, so
            // model-errors may be left unknown there.
            let v = exact.outcome(&o.property).unwrap().verdict;
            prop_assert!(v == Verdict::Unsafe || (v == Verdict::Unknown && o.property == engine::MODEL_ERRORS), "{}: {v:?}\n{m}", o.property);
        }
    }

    /// A global changed after step k: the replay stops at exactly that
    /// step, with the values the step leads to instead, unless the changed
    /// state is itself an outcome of the step (`any`).
    #[test]
    fn a_changed_value_stops_the_replay_at_its_step(m in model(), pick in any::<prop::sample::Index>(), bump in 1..3i64) {
        let prog = common::load_value(&m);
        let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        for (property, mut trace) in saved_traces(&r) {
            if trace.steps.is_empty() {
                continue;
            }
            let k = pick.index(trace.steps.len());
            let (_, v) = &mut trace.steps[k].globals[0];
            *v = Value::from((v.as_i64().unwrap() + bump) % 3);
            let mut prefix = trace.clone();
            prefix.steps.truncate(k + 1);
            if replay::replay(&prog, &prefix, None, &Default::default()).unwrap().failure.is_none() {
                continue; // another outcome of step k leads there
            }
            let rep = replay::replay(&prog, &trace, Some(&property), &Default::default()).unwrap();
            let failure = rep.failure.as_ref().expect("a failure");
            prop_assert_eq!(failure.step, k + 1, "{}", rep.to_text());
            prop_assert!(failure.reason.contains(" leads to "), "{}", failure.reason);
        }
    }
}

/// The generator gives the replay engine what it must handle: traces
/// through rendezvous, run-time errors, and simulations that find errors.
#[test]
fn generated_traces_exercise_rendezvous_and_run_time_errors() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut traces, mut joint, mut failures, mut simulated) = (0, 0, 0, 0);
    for seed in 0..400 {
        let m = model().new_tree(&mut runner).unwrap().current();
        let prog = common::load_value(&m);
        let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        for (property, trace) in saved_traces(&r) {
            assert!(
                replay::replay(&prog, &trace, Some(&property), &Default::default())
                    .unwrap()
                    .confirmed()
            );
            traces += 1;
            joint += trace.steps.iter().any(|s| s.partner.is_some()) as u32;
            failures += trace.failure.is_some() as u32;
        }
        let opts = SimulateOptions {
            runs: 20,
            steps: 30,
            seed,
            ..SimulateOptions::default()
        };
        simulated += simulate::run(&prog, &opts).unwrap().found_error() as u32;
    }
    eprintln!(
        "traces {traces}, through a rendezvous {joint}, run-time errors {failures}, simulations that found an error {simulated}"
    );
    assert!(
        traces >= 100 && joint >= 10 && failures >= 10 && simulated >= 50,
        "{traces} {joint} {failures} {simulated}"
    );
}

/// Trace lengths per property, and whether each replays.
pub(super) fn traces(
    prog: &crate::program::Program,
    opts: &CheckOptions,
) -> Vec<(String, usize, bool)> {
    let r = engine::check(prog, Mode::Standard, opts).unwrap();
    saved_traces(&r)
        .into_iter()
        .map(|(property, trace)| {
            let rep = replay::replay(prog, &trace, Some(&property), &Default::default()).unwrap();
            (property, trace.steps.len(), rep.confirmed())
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// The visited set keeps each state's depth modulo a period, and a
    /// trace is rebuilt by searching the level before for a predecessor;
    /// with a period of 3 (two tag bits) the levels share tags from depth
    /// 3 on, so the rebuilding must tell them apart (`--continue` searches
    /// on past the error, deeper than the trace). The traces must stay
    /// real and as short as with the full tag.
    #[test]
    fn traces_stay_shortest_when_depth_tags_wrap(m in model(), keep_going in any::<bool>()) {
        let prog = common::load_value(&m);
        let opts = CheckOptions { keep_going, ..CheckOptions::default() };
        let full = traces(&prog, &opts);
        let short = crate::engine::store::TAG_BITS_FOR_TESTS.with(|b| {
            b.set(2);
            let t = traces(&prog, &opts);
            b.set(24);
            t
        });
        prop_assert_eq!(&short, &full, "\n{}", m);
        prop_assert!(full.iter().all(|t| t.2), "{:?}\n{}", full, m);
    }
}

/// The wrapped tags on a model whose error lies deep: two counters that
/// two threads raise one step at a time, the error when the first reaches
/// 25 and the second 5: 30 levels, ten periods of the shortened tag. A
/// third thread lowers the first counter by 2, so a state at depth d also
/// has a predecessor at depth d + 2, tagged like d - 1: taken for one, it
/// would lead the trace away from the initial state.
#[test]
fn a_deep_trace_is_rebuilt_past_many_tag_periods() {
    let model = serde_json::json!({
        "format": "weft/1",
        "name": "two-counters",
        "globals": {
            "x": {"type": "int", "min": 0, "max": 40, "init": 0},
            "y": {"type": "int", "min": 0, "max": 40, "init": 0}
        },
        "threads": [
            {"name": "p", "start": "a", "transitions": [
                {"from": "a", "to": "a", "when": "x < 40", "do": "x := x + 1", "label": "up"}]},
            {"name": "q", "start": "a", "transitions": [
                {"from": "a", "to": "a", "when": "y < 40", "do": "y := y + 1", "label": "up"}]},
            {"name": "r", "start": "a", "transitions": [
                {"from": "a", "to": "a", "when": "x >= 2", "do": "x := x - 2", "label": "down"}]}
        ],
        "properties": [{"name": "far", "error": "x == 25 && y == 5"}]
    });
    let prog = common::load_value(&model);
    for keep_going in [false, true] {
        let opts = CheckOptions {
            keep_going,
            ..CheckOptions::default()
        };
        let short = crate::engine::store::TAG_BITS_FOR_TESTS.with(|b| {
            b.set(2);
            let t = traces(&prog, &opts);
            b.set(24);
            t
        });
        assert_eq!(
            short,
            vec![("far".to_string(), 30, true)],
            "keep_going {keep_going}"
        );
    }
}

/// A property whose formula cannot be evaluated (an index out of bounds)
/// is a model error at the state where it fails: the trace `standard`
/// prints for `model-errors` ends there, with and without `--por`, and the
/// tests' `common::replay_line` replays it (it once refused such traces,
/// and the `--por` proptests skipped them).
#[test]
fn a_failing_property_evaluation_replays_as_a_model_error() {
    let model = serde_json::json!({"name": "property",
        "globals": {"x": {"type": "int", "min": 0, "max": 3},
                    "a": {"type": "array", "len": 3, "of": {"type": "int", "min": 0, "max": 1}}},
        "threads": [{"name": "p", "start": "s", "transitions": [
            {"from": "s", "to": "s", "when": "x < 3", "do": "x := x + 1"}]}],
        "properties": [{"name": "bad", "error": "a[x] == 1"}]});
    let prog = common::load_value(&model);
    for por in [false, true] {
        let opts = CheckOptions {
            por,
            ..CheckOptions::default()
        };
        let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
        let text = r.to_json_lines();
        let line = text
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|v| v["property"] == engine::MODEL_ERRORS)
            .unwrap();
        assert_eq!(line["verdict"], "unsafe", "{text}");
        assert!(line.to_string().contains("evaluating property"), "{text}");
        common::replay_line(&prog, &line, "property");
    }
}
