//! Budgets stop every engine where they say (weft issue 19): `--max-states`
//! exactly at N in each mode, counted in the mode's own unit (states,
//! thread states, posts), and `--timeout` inside a BFS level whose
//! successors are all computed by the coordinator, with what was explored
//! reported. The bounds on time are generous: the assertions that decide
//! are on counts.

use super::common;
use crate::engine::result::RunReport;
use crate::engine::{self, CheckOptions, MODEL_ERRORS, Mode, Refinement, Verdict};
use crate::families::{lock, lock_state_count, simple};
use serde_json::json;
use std::time::{Duration, Instant};

fn check(prog: &crate::program::Program, mode: Mode, opts: CheckOptions) -> RunReport {
    engine::check(prog, mode, &opts).unwrap()
}

fn states(max: usize) -> CheckOptions {
    CheckOptions {
        max_states: Some(max),
        ..CheckOptions::default()
    }
}

/// Every outcome is `unknown`, and says which budget ran out.
fn stopped_by_states(r: &RunReport, max: usize) {
    for o in &r.outcomes {
        assert_eq!(o.verdict, Verdict::Unknown, "{}: {}", o.property, o.reason);
        assert!(
            o.reason.contains(&format!("state budget of {max} states")),
            "{}: {}",
            o.property,
            o.reason
        );
    }
}

/// standard: lock(12, 2) has 9,034,497 states (far more than asked for);
/// the visited set refuses every state past N, so exactly N are kept,
/// sequentially, on two workers, and with symmetry (lock(10, 3) reduced).
#[test]
fn standard_stops_exactly_at_max_states() {
    assert_eq!(lock_state_count(12, 2), Some(9_034_497));
    let prog = common::load_value(&lock(12, 2));
    for (jobs, max) in [(1, 10_007), (2, 10_007), (2, 123_457)] {
        let r = check(
            &prog,
            Mode::Standard,
            CheckOptions {
                jobs: Some(jobs),
                ..states(max)
            },
        );
        assert_eq!(r.stats.count("states"), Some(max as u64), "jobs {jobs}");
        stopped_by_states(&r, max);
        assert!(
            r.outcomes[0]
                .reason
                .contains(&format!("no error among the {max} states explored")),
            "{}",
            r.outcomes[0].reason
        );
    }
    let prog = common::load_value(&lock(10, 3));
    let r = check(
        &prog,
        Mode::Standard,
        CheckOptions {
            symmetry: true,
            jobs: Some(2),
            ..states(1_001)
        },
    );
    assert_eq!(r.stats.count("states"), Some(1_001));
    stopped_by_states(&r, 1_001);
}

/// A model of exactly N states is not cut by `--max-states N`'s refusal
/// (nothing is refused), but reaching N still stops it, as before.
#[test]
fn standard_counts_the_states_it_keeps_when_the_budget_is_larger() {
    let prog = common::load_value(&lock(3, 1));
    let all = check(&prog, Mode::Standard, CheckOptions::default());
    let n = all.stats.count("states").unwrap() as usize;
    let r = check(&prog, Mode::Standard, states(n + 1));
    assert_eq!(r.verdict(), Verdict::Safe);
    assert_eq!(r.stats.count("states"), Some(n as u64));
}

/// thread-modular and `--refine control` count thread states (R facts,
/// the `states` statistic): a fact past N is refused. Simple(40) adds
/// several facts per fact processed, so a check per fact alone overshot
/// (1240 for 1234).
#[test]
fn thread_state_engines_stop_exactly_at_max_states() {
    let prog = common::load_value(&simple(40, false));
    for (mode, refinement) in [
        (Mode::ThreadModular, Refinement::Exceptions),
        (Mode::Refine, Refinement::Control),
    ] {
        let r = check(
            &prog,
            mode,
            CheckOptions {
                refinement,
                ..states(1234)
            },
        );
        assert_eq!(r.stats.count("states"), Some(1234), "{mode:?}");
        stopped_by_states(&r, 1234);
        assert!(
            r.outcome(MODEL_ERRORS)
                .unwrap()
                .reason
                .contains("(1234 thread states)"),
            "{mode:?}: {}",
            r.outcome(MODEL_ERRORS).unwrap().reason
        );
    }
}

/// cartesian-exc and refine (exceptions) count posts (the `transitions`
/// statistic; refine's over all its rounds): a post past N is refused.
/// On lock(100, 9) without its exception set a round makes about a
/// hundred posts, which a check per round overshot (1300 for 1234).
#[test]
fn posting_engines_stop_exactly_at_max_states() {
    let prog = common::without_exceptions(common::load_value(&lock(100, 9)));
    for mode in [Mode::CartesianExc, Mode::Refine] {
        for max in [1234, 2500] {
            // On classes of interchangeable threads lock(100, 9) takes 79
            // posts in all: the per-thread path is the one posting this
            // many (tests/cartesian_classes.rs stops the class path).
            let r = match mode {
                Mode::CartesianExc => {
                    use crate::engine::cartesian::{Path, run_with};
                    run_with(&prog, &states(max), Path::PerThread).unwrap()
                }
                _ => check(&prog, mode, states(max)),
            };
            assert_eq!(r.stats.count("transitions"), Some(max as u64), "{mode:?}");
            let o = r.outcome(MODEL_ERRORS).unwrap();
            assert_eq!(o.verdict, Verdict::Unknown);
            assert!(
                o.reason.contains(&format!("state budget of {max} states"))
                    && o.reason.contains(&format!("({max} posts)")),
                "{mode:?}: {}",
                o.reason
            );
        }
    }
}

/// One thread setting 28 bits one at a time: level d holds C(28, d)
/// states, every one with a global store never seen before, so no
/// successor is memoised and the coordinator computes them all (as on
/// BEEM's peg_solitaire). `--timeout 1` must stop inside a level: the
/// states reported are fewer than the levels up to the next one hold
/// (a check only between levels reports exactly that many, after 4 s or
/// more here), and the run ends well within 10 s.
#[test]
fn a_timeout_stops_the_search_inside_a_level() {
    const BITS: usize = 28;
    let transitions: Vec<_> = (0..BITS)
        .map(|i| json!({"from": "s", "to": "s", "when": format!("!a[{i}]"), "do": format!("a[{i}] := true")}))
        .collect();
    let model = json!({"name": "bits",
        "globals": {"a": {"type": "array", "len": BITS, "of": {"type": "bool"}}},
        "threads": [{"name": "p", "start": "s", "transitions": transitions}],
        "properties": [{"name": "never", "error": "false"}]});
    let prog = common::load_value(&model);
    let binomial = |k: u64| (0..k).fold(1u64, |c, i| c * (BITS as u64 - i) / (i + 1));
    let through = |d: u64| (0..=d).map(binomial).sum::<u64>();
    for jobs in [1, 2] {
        let t0 = Instant::now();
        let r = check(
            &prog,
            Mode::Standard,
            CheckOptions {
                timeout: Some(Duration::from_secs(1)),
                jobs: Some(jobs),
                ..CheckOptions::default()
            },
        );
        let took = t0.elapsed();
        assert!(took < Duration::from_secs(10), "took {took:?}");
        let o = &r.outcomes[0];
        assert_eq!(o.verdict, Verdict::Unknown, "{}", o.reason);
        assert!(o.reason.contains("time budget of 1 s"), "{}", o.reason);
        let depth = r.stats.count("depth").unwrap();
        let n = r.stats.count("states").unwrap();
        assert!(
            n < through(depth + 1),
            "jobs {jobs}: {n} states at depth {depth}, the level's expansion finished ({})",
            through(depth + 1)
        );
    }
}

/// A state budget of 0 explored nothing, and every mode took that for the
/// whole state space: `safe` for a model that is unsafe (found in review,
/// through `weft test --max-states 0`). Every mode refuses it now.
#[test]
fn a_state_budget_of_zero_is_refused_in_every_mode() {
    let prog = common::load("bug-peterson-swapped-turn.json");
    for mode in [
        Mode::Standard,
        Mode::ThreadModular,
        Mode::CartesianExc,
        Mode::Refine,
    ] {
        let err = engine::check(&prog, mode, &states(0)).unwrap_err();
        assert!(
            err.to_string().contains("state budget of 0"),
            "{mode:?}: {err}"
        );
        let r = check(&prog, mode, states(1));
        assert!(
            r.outcomes.iter().all(|o| o.verdict != Verdict::Safe),
            "{mode:?}: {}",
            r.to_text()
        );
    }
}

/// `--show invariant` renders within the budgets (`RenderGuard`): past
/// the time budget (plus its grace) or the memory budget the invariant is
/// not shown, and says why; within them it is shown whole.
#[test]
fn an_invariant_is_rendered_only_within_the_budgets() {
    use crate::engine::abstract_report::AbstractFixpoint;
    use crate::engine::render_guard::RenderGuard;
    use crate::engine::result::InvariantForm;
    use crate::engine::thread_modular::ThreadModular;
    // Simple(20): 20 threads of 82 thread states each, past one check.
    let prog = common::load_value(&simple(20, false));
    let tm = ThreadModular::compute(&prog);
    let shown = |opts: &CheckOptions| {
        let guard = RenderGuard::new(opts);
        guard.finish(tm.invariant(&guard), false).form
    };
    match shown(&CheckOptions::default()) {
        InvariantForm::ThreadModular(threads) => {
            assert_eq!(
                threads.iter().map(|t| t.reach.len()).sum::<usize>(),
                20 * 82
            )
        }
        other => panic!("{other:?}"),
    }
    let past_memory = CheckOptions {
        max_memory_bytes: Some(1),
        ..CheckOptions::default()
    };
    let past_time = CheckOptions {
        timeout: Some(Duration::from_secs(1)),
        started: Instant::now().checked_sub(Duration::from_secs(10)),
        ..CheckOptions::default()
    };
    for (opts, why) in [
        (past_memory, "rendering it passed the memory budget"),
        (past_time, "rendering it passed the time budget"),
    ] {
        match shown(&opts) {
            InvariantForm::NotShown(reason) => assert!(reason.starts_with(why), "{reason}"),
            other => panic!("{other:?}"),
        }
    }
}
