//! A budget that runs out inside one step of many transitions (a
//! cooperative macro-step, a `--blocks` block) stops that step short
//! (`Succs::cut`), and the run ends `unknown` in every mode, saying which
//! step it was in, never `safe` on the step's missing ends (the budget
//! stays out, and each engine looks once more when its worklist is empty).
//! `STEP_OUT_AT_FOR_TESTS` decides where the budget runs out, so that
//! nothing here depends on the clock.

use super::common;
use crate::engine::{self, CheckOptions, Mode, Refinement, STEP_OUT_AT_FOR_TESTS, Verdict};
use crate::engine::{SimulateOptions, simulate};
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

/// Out from the `at`-th poll on.
struct OutAt(AtomicU32);

impl StepBudget for OutAt {
    fn exhausted(&self, _: &mut StepPoll, _: u64) -> bool {
        self.0.fetch_sub(1, Ordering::Relaxed) <= 1
    }
    fn cut(&self, _: String) {}
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
