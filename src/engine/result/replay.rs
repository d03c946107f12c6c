//! What `weft replay` produces (`engine/replay`): how far a saved trace
//! re-executes, the first step that does not, or the budget that stopped
//! it.

use super::{NextStep, Trace};
use crate::engine::MODEL_ERRORS;

/// What `weft replay` found: how far a saved trace re-executes on the
/// model, where it stopped if it did, and which error states its last
/// state is in.
#[derive(Clone, Debug)]
pub struct ReplayReport {
    /// The model's name.
    pub model: String,
    /// The property the trace is a counterexample to, if known (the
    /// record's `property`, or the one asked for).
    pub property: Option<String>,
    /// The steps in the trace.
    pub steps: usize,
    /// The confirmed part: the initial state and every step that
    /// re-executed, with the values the model computed. `None` when the
    /// initial state itself is not one of the model's.
    pub replayed: Option<Trace>,
    /// The first step that does not re-execute (0: the initial state).
    pub failure: Option<ReplayFailure>,
    /// The properties whose error predicate holds in the last state (when
    /// every step re-executed), in the model's order.
    pub error_properties: Vec<String>,
    /// The run-time model error in the last state, if any (worded as
    /// `standard` words it).
    pub model_error: Option<String>,
    /// The `failure` the saved trace recorded, if any.
    pub recorded_failure: Option<String>,
    /// A budget ran out before the replay could decide: at a step it was
    /// re-executing, or while looking for a run-time error in the last
    /// state (`step: None`).
    pub stopped: Option<ReplayStopped>,
}

/// The first step of a saved trace that the model does not take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayFailure {
    /// The step's number, from 1; 0 is the initial state.
    pub step: usize,
    /// Why: the step is not enabled, leads elsewhere, or names what the
    /// model does not have.
    pub reason: String,
}

/// Where and why a budget (`--timeout`, `--max-memory`) stopped a replay:
/// a step can run many transitions (a cooperative macro-step), and
/// re-executing it computes them all.
#[derive(Clone, Debug)]
pub struct ReplayStopped {
    /// The step being re-executed, from 1 (the steps before it did);
    /// `None`: every step did, and the budget ran out while the last
    /// state's moves were computed, looking for a run-time error.
    pub step: Option<usize>,
    /// Which budget ran out, and in which step of many transitions.
    pub reason: String,
    /// What to do next (raise the budget that ran out).
    pub next_step: NextStep,
}

impl ReplayReport {
    /// Did the whole trace re-execute and end in an error state: of its
    /// property when known (`model-errors`: a run-time error), else of
    /// any property or a run-time error?
    ///
    /// A trace that reaches its error state is confirmed even when a
    /// budget stopped the look for a run-time error there (any error found
    /// before the stop is real); one stopped at a step is not (its last
    /// state was never reached).
    pub fn confirmed(&self) -> bool {
        if self.failure.is_some() {
            return false;
        }
        match self.property.as_deref() {
            Some(MODEL_ERRORS) => self.model_error.is_some(),
            Some(p) => self.error_properties.iter().any(|e| e == p),
            None => !self.error_properties.is_empty() || self.model_error.is_some(),
        }
    }

    /// `weft replay`'s exit code: 0 confirmed, 3 a budget stopped it
    /// before it could tell, 1 it does not replay to its error state.
    pub fn exit_code(&self) -> i32 {
        if self.confirmed() {
            0
        } else if self.stopped.is_some() {
            3
        } else {
            1
        }
    }
}
