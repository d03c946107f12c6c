//! A budget that runs out inside one step of many transitions (a
//! cooperative macro-step, a `--blocks` block) stops that step short
//! (`Succs::cut`), and the run ends `unknown` in every mode, saying which
//! step it was in, never `safe` on the step's missing ends (the budget
//! stays out, and each engine looks once more when its worklist is empty).
//! `STEP_OUT_AT_FOR_TESTS` decides where the budget runs out, so that
//! nothing here depends on the clock.

use super::common;
use crate::engine::REBUILD_OUT_FOR_TESTS;
use crate::engine::{self, CheckOptions, Mode, Refinement, STEP_OUT_AT_FOR_TESTS, Verdict};
use crate::engine::{ReplayOptions, SimulateOptions, replay, simulate};
use crate::program::{Explorer, Program, StepBudget, StepPoll};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// One cooperative thread whose first macro-step reaches 210 stores (x,
/// then y, over 0..9, then one more each) and 100 ends; the error is one
/// of them.
fn macro_step() -> Value {
    json!({
        "name": "one-long-step", "scheduling": "cooperative",
        "globals": {
            "x": {"type": "int", "min": 0, "max": 9},
            "y": {"type": "int", "min": 0, "max": 9},
            "bad": {"type": "bool"}
        },
        "threads": [{"name": "T", "start": "s0", "transitions": [
            {"from": "s0", "to": "s1", "do": "x := any"},
            {"from": "s1", "to": "s2", "do": "y := any"},
            {"from": "s2", "to": "s0", "when": "x + y < 18", "yield": true},
            {"from": "s2", "to": "s3", "when": "x + y == 18", "do": "bad := true"}
        ]}],
        "properties": [{"name": "p", "error": "bad"}]
    })
}

/// The same run of stores as one `--blocks` block (local, so that the
/// block runs on to `s3`, before the step that writes what `p` reads).
fn block() -> Value {
    json!({
        "name": "one-long-block",
        "globals": {"bad": {"type": "bool"}},
        "threads": [{"name": "T", "start": "s0",
            "locals": {
                "x": {"type": "int", "min": 0, "max": 9},
                "y": {"type": "int", "min": 0, "max": 9},
                "z": {"type": "int", "min": 0, "max": 9}
            },
            "transitions": [
                {"from": "s0", "to": "s1", "do": "x := any"},
                {"from": "s1", "to": "s2", "do": "y := any"},
                {"from": "s2", "to": "s3", "do": "z := any"},
                {"from": "s3", "to": "s0", "do": "bad := x + y + z == 27; x := 0; y := 0; z := 0"}
            ]}],
        "properties": [{"name": "p", "error": "bad"}]
    })
}

/// `p`'s verdict and reason in `mode`, the budget running out at the
/// first poll inside a step (`cut`) or never.
fn run(prog: &Program, mode: Mode, opts: &CheckOptions, cut: bool) -> (Verdict, String) {
    STEP_OUT_AT_FOR_TESTS.with(|c| c.set(cut.then_some(1)));
    let r = engine::check(prog, mode, opts).unwrap();
    STEP_OUT_AT_FOR_TESTS.with(|c| c.set(None));
    let o = r.outcomes.iter().find(|o| o.property == "p").unwrap();
    (o.verdict, o.reason.clone())
}

fn refine(strategy: Refinement) -> CheckOptions {
    CheckOptions {
        refinement: strategy,
        ..CheckOptions::default()
    }
}

#[test]
fn a_budget_out_inside_a_macro_step_ends_every_mode_unknown() {
    let prog = common::load_value(&macro_step());
    let modes = [
        (Mode::Standard, CheckOptions::default()),
        (Mode::ThreadModular, CheckOptions::default()),
        (Mode::CartesianExc, CheckOptions::default()),
        (Mode::Refine, refine(Refinement::Exceptions)),
        (Mode::Refine, refine(Refinement::Control)),
    ];
    // The error is reachable, through the long step.
    assert_eq!(
        run(&prog, Mode::Standard, &modes[0].1, false).0,
        Verdict::Unsafe
    );
    for (mode, opts) in &modes {
        let (verdict, reason) = run(&prog, *mode, opts, true);
        assert_eq!(verdict, Verdict::Unknown, "{mode:?}: {reason}");
        assert!(
            reason.contains("time budget of 0 s exhausted in a macro-step of T after 64 stores: a `yield` would split it"),
            "{mode:?}: {reason}"
        );
    }
    STEP_OUT_AT_FOR_TESTS.with(|c| c.set(Some(1)));
    let opts = SimulateOptions {
        runs: 5,
        ..SimulateOptions::default()
    };
    let sim = simulate::run(&prog, &opts).unwrap();
    STEP_OUT_AT_FOR_TESTS.with(|c| c.set(None));
    let o = &sim.outcomes[0];
    assert_eq!(o.verdict, Verdict::Unknown, "{}", o.reason);
    assert!(
        o.reason.contains(
            "stopped in run 1 of 5: time budget of 0 s exhausted in a macro-step of T after 64 stores"
        ),
        "{}",
        o.reason
    );
}

#[test]
fn a_budget_out_inside_a_block_ends_unknown() {
    let prog = common::load_value(&block());
    let blocks = CheckOptions {
        blocks: true,
        ..CheckOptions::default()
    };
    assert_eq!(
        run(&prog, Mode::Standard, &blocks, false).0,
        Verdict::Unsafe
    );
    for mode in [Mode::Standard, Mode::ThreadModular] {
        let (verdict, reason) = run(&prog, mode, &blocks, true);
        assert_eq!(verdict, Verdict::Unknown, "{mode:?}: {reason}");
        assert!(
            reason.contains(
                "time budget of 0 s exhausted in a block step of T after 70 stores: without `--blocks` each transition is a step"
            ),
            "{mode:?}: {reason}"
        );
    }
}

/// A replay re-executes a step whole: a budget out inside it stops the
/// replay at that step, undecided (exit 3), neither confirmed nor failed.
#[test]
fn a_budget_out_inside_a_replayed_step_stops_the_replay_there() {
    let prog = common::load_value(&macro_step());
    let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    let trace = r.outcomes[0].trace.clone().unwrap();
    let opts = ReplayOptions::default();
    let whole = replay::replay(&prog, &trace, Some("p"), &opts).unwrap();
    assert!(whole.confirmed() && whole.stopped.is_none());
    assert_eq!(whole.exit_code(), 0);
    STEP_OUT_AT_FOR_TESTS.with(|c| c.set(Some(1)));
    let cut = replay::replay(&prog, &trace, Some("p"), &opts).unwrap();
    STEP_OUT_AT_FOR_TESTS.with(|c| c.set(None));
    assert!(cut.failure.is_none() && !cut.confirmed(), "{cut:?}");
    assert_eq!(cut.exit_code(), 3);
    let stop = cut.stopped.as_ref().unwrap();
    assert_eq!(stop.step, Some(1));
    assert_eq!(
        stop.reason,
        "time budget of 0 s exhausted in a macro-step of T after 64 stores: a `yield` would split it"
    );
    let text = cut.to_text();
    assert!(
        text.contains("replay STOPPED at step 1 of 1 (unknown: 0 steps re-executed)")
            && text.contains("next: raise `--timeout`"),
        "{text}"
    );
}

/// `macro_step`'s thread T (no longer reaching `bad`) beside a thread U
/// whose one short step sets `bad`; and the trace of that step.
fn short_error_beside_a_long_step() -> (Program, crate::Trace) {
    let mut model = macro_step();
    model["threads"][0]["transitions"][3]["do"] = json!("x := 0");
    model["threads"].as_array_mut().unwrap().push(
        json!({"name": "U", "start": "u0", "transitions": [
            {"from": "u0", "to": "u1", "do": "bad := true"}
        ]}),
    );
    let prog = common::load_value(&model);
    let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    let trace = r.outcomes[0].trace.clone().unwrap();
    assert_eq!(trace.steps.len(), 1, "U's one step: {trace:?}");
    (prog, trace)
}

/// A time budget already out stops a replay before its first step, even
/// one of a single transition (steps that short never poll).
#[test]
fn a_replay_checks_its_budget_between_steps() {
    let (prog, trace) = short_error_beside_a_long_step();
    let opts = ReplayOptions {
        timeout: Some(std::time::Duration::ZERO),
        ..ReplayOptions::default()
    };
    let rep = replay::replay(&prog, &trace, Some("p"), &opts).unwrap();
    let stop = rep.stopped.as_ref().unwrap();
    assert_eq!(
        (stop.step, stop.reason.as_str()),
        (Some(1), "time budget of 0 s exhausted")
    );
    assert!(rep.replayed.unwrap().steps.is_empty());
}

/// The replay looks for a run-time error in the last state by computing
/// every thread's moves there; a budget out in one of them leaves that
/// unknown, but a trace that reaches its property's error state is still
/// confirmed.
#[test]
fn a_budget_out_in_the_last_state_leaves_its_run_time_errors_unknown() {
    let (prog, trace) = short_error_beside_a_long_step();
    STEP_OUT_AT_FOR_TESTS.with(|c| c.set(Some(1)));
    let cut = replay::replay(&prog, &trace, Some("p"), &ReplayOptions::default()).unwrap();
    STEP_OUT_AT_FOR_TESTS.with(|c| c.set(None));
    let stop = cut.stopped.as_ref().unwrap();
    assert_eq!(stop.step, None);
    assert!(cut.confirmed(), "{cut:?}");
    assert_eq!(cut.exit_code(), 0);
    let text = cut.to_text();
    assert!(
        text.contains("  the trace ends in an error state of property `p`\n  whether the last state has a run-time error is not known: time budget of 0 s exhausted in a macro-step of T"),
        "{text}"
    );
    // Asked for a run-time error, the same trace is undecided.
    STEP_OUT_AT_FOR_TESTS.with(|c| c.set(Some(1)));
    let cut = replay::replay(
        &prog,
        &trace,
        Some("model-errors"),
        &ReplayOptions::default(),
    );
    STEP_OUT_AT_FOR_TESTS.with(|c| c.set(None));
    let cut = cut.unwrap();
    assert_eq!(cut.exit_code(), 3);
    let text = cut.to_text();
    assert!(
        !text.contains("ends in no")
            && text.contains("  whether the last state has a run-time error is not known: "),
        "{text}"
    );
}

/// Out from the `at`-th poll on.
struct OutAt(AtomicU32);

impl StepBudget for OutAt {
    fn exhausted(&self, _: &mut StepPoll, _: u64) -> bool {
        self.0.fetch_sub(1, Ordering::Relaxed) <= 1
    }
    fn cut(&self, _: String) {}
    fn memory_bytes(&self) -> Option<u64> {
        None
    }
    fn memory_pressed(&self) -> bool {
        false
    }
}

/// A cut step has no ends and counts as moving, and is not memoised: asked
/// again under a budget that is never out, the step has all its ends.
/// The step reaches 210 stores (10 values of x, 100 of x and y, and one
/// successor of each of those, depth first), so it polls at 64, 128 and 192.
#[test]
fn a_cut_step_is_neither_stuck_nor_remembered() {
    let prog = common::load_value(&macro_step());
    let mut exp = Explorer::new(&prog);
    let (g, ls) = exp.initial_states()[0].clone();
    for at in [1, 3] {
        exp.set_step_budget(Some(Arc::new(OutAt(AtomicU32::new(at)))));
        let cut = exp.successors(0, g, ls[0]);
        assert!(cut.cut && cut.steps.is_empty() && cut.moves(false), "{at}");
    }
    exp.set_step_budget(Some(Arc::new(OutAt(AtomicU32::new(4)))));
    let whole = exp.successors(0, g, ls[0]);
    assert!(!whole.cut);
    assert_eq!(whole.steps.len(), 100);
    assert!(whole.moves(false));
}

/// What rebuilding a trace asks for is looked up in the memo but not
/// kept there (the rebuild computes most states' steps once, after the
/// search, beside all the search keeps).
#[test]
fn unkept_successors_are_looked_up_but_not_kept() {
    let prog = common::load_value(&macro_step());
    let mut exp = Explorer::new(&prog);
    let (g, ls) = exp.initial_states()[0].clone();
    let a = exp.successors_unkept(0, g, ls[0]);
    let b = exp.successors_unkept(0, g, ls[0]);
    assert!(!Arc::ptr_eq(&a, &b), "kept in the memo");
    assert_eq!(a.steps.len(), 100);
    let kept = exp.successors(0, g, ls[0]);
    assert!(Arc::ptr_eq(&kept, &exp.successors_unkept(0, g, ls[0])));
}

/// `standard` rebuilds a trace after its search, within a budget of its
/// own; when that runs out, the error state found stays `unsafe`, without
/// its trace, and the reason says which budget to raise to see it.
#[test]
fn a_trace_the_rebuild_cannot_finish_is_dropped_and_the_verdict_kept() {
    let prog = common::load_value(&block());
    let overflow = common::load_value(&json!({
        "name": "overflow",
        "globals": {"x": {"type": "int", "min": 0, "max": 3}},
        "threads": [{"name": "T", "start": "a", "transitions": [
            {"from": "a", "to": "a", "do": "x := x + 1"}
        ]}],
        "properties": [{"name": "never", "error": "false"}]
    }));
    for (prog, property) in [(&prog, "p"), (&overflow, "model-errors")] {
        for blocks in [false, true] {
            let opts = CheckOptions {
                blocks,
                ..CheckOptions::default()
            };
            let whole = engine::check(prog, Mode::Standard, &opts).unwrap();
            REBUILD_OUT_FOR_TESTS.with(|c| c.set(true));
            let cut = engine::check(prog, Mode::Standard, &opts);
            REBUILD_OUT_FOR_TESTS.with(|c| c.set(false));
            let find = |r: &crate::RunReport| {
                let o = r.outcomes.iter().find(|o| o.property == property);
                o.unwrap().clone()
            };
            let (whole, cut) = (find(&whole), find(&cut.unwrap()));
            assert_eq!(whole.verdict, Verdict::Unsafe, "{}", whole.reason);
            assert!(whole.trace.is_some());
            assert_eq!(cut.verdict, Verdict::Unsafe, "{}", cut.reason);
            assert!(cut.trace.is_none() && cut.next_step.is_none());
            assert!(
                cut.reason.contains(" is reachable (found at depth ")
                    && cut.reason.contains(
                        "; its trace was not rebuilt within the time budget of 0 s (and 5 s more to assemble the result): raise `--timeout` to see it"
                    ),
                "{}",
                cut.reason
            );
        }
    }
}

/// The search for the transitions inside a block, for a trace, polls the
/// budget as the block's step does, and gives up once it is out.
#[test]
fn a_block_path_gives_up_once_the_budget_is_out() {
    let prog = common::load_value(&block());
    let opts = CheckOptions {
        blocks: true,
        ..CheckOptions::default()
    };
    let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
    let trace = r.outcomes[0].trace.clone().unwrap();
    assert!(trace.steps.len() > 3, "{trace:?}");
    let b = crate::engine::lipton::infer(&prog, &[0])
        .unwrap()
        .boundaries();
    let mut exp = Explorer::new(&prog);
    let (g, ls) = exp.initial_states()[0].clone();
    let (from_g, from_l) = (exp.globals.get(g).to_vec(), exp.local(0, ls[0]).to_vec());
    // The block from the initial state, through x, y, z := 9: its end.
    let mut to_l = from_l.clone();
    to_l[1..].copy_from_slice(&[9, 9, 9]);
    to_l[0] = 3;
    let path = |exp: &Explorer| {
        crate::program::blocks::block_path(exp, &b, 0, (&from_g, &from_l), (&from_g, &to_l), 0)
    };
    assert_eq!(path(&exp).map(|p| p.len()), Some(3));
    exp.set_step_budget(Some(Arc::new(OutAt(AtomicU32::new(1)))));
    assert!(path(&exp).is_none());
}
