//! weft: a model checker for finite multithreaded programs.
//!
//! A model is a global store, thread templates with local stores and
//! guarded transitions, and properties naming error states
//! (docs/model-format.md). weft decides whether an error state is
//! reachable, exactly ([`Mode::Standard`]) or in polynomial time by
//! thread-modular abstraction ([`Mode::ThreadModular`],
//! [`Mode::CartesianExc`]), refined automatically until it proves or
//! refutes ([`Mode::Refine`]).
//!
//! ```
//! use weft::{CheckOptions, Mode, Model, Verdict};
//!
//! let model = Model::load("models/peterson.json")?;
//! let report = model.check(Mode::CartesianExc, &CheckOptions::default())?;
//! assert_eq!(report.verdict(), Verdict::Safe);
//! for outcome in &report.outcomes {
//!     println!("{}: {} ({})", outcome.property, outcome.verdict.name(), outcome.reason);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The pipeline: `model` (text → diagnostics or a compiled `program`),
//! one engine in `engine` over that program, typed results
//! ([`RunReport`]), rendered by `report` ([`RunReport::to_text`],
//! [`RunReport::to_json_lines`]). docs/ARCHITECTURE.md is the code map.

#![warn(missing_docs)]

pub use serde_json;

pub mod bench;
mod builder;
mod engine;
mod facade;
pub mod families;
mod model;
pub mod phase;
mod program;
mod promela;
mod property;
mod report;
mod sys;
mod words;

#[cfg(test)]
mod tests;

pub use builder::{ModelBuilder, TemplateBuilder};
pub use engine::dispose::leave_engine_state_at_exit;
pub use engine::result::{
    AbstractProduct, ClassProduct, Derivation, Derived, GuaranteeEdge, Invariant, InvariantForm,
    Outcome, Partner, ReachFact, RefinedExceptions, RunReport, Stats, Store, ThreadClass,
    ThreadSummary, Trace, TraceStep, Witness, WitnessThread,
};
pub use engine::result::{BlockLocation, BlockReport, BlockTransition, TemplateBlockReport};
pub use engine::result::{Coverage, CoverageBasis, TemplateCoverage, UntakenTransition};
pub use engine::result::{Limit, NextStep, Suggestion};
pub use engine::result::{
    ReplayFailure, ReplayReport, ReplayStopped, SimulationReport, StuckState,
};
pub use engine::{CheckError, CheckOptions, MODEL_ERRORS, Mode, Refinement, Verdict};
pub use engine::{ReplayOptions, SimulateOptions};
pub use facade::{LoadOptions, Promela, PromelaError};
pub use model::{Diagnostic, Expectation, Model};
pub use phase::Phase;
pub use report::SavedTrace;
pub use report::{exception_entries, write_exception_entries};
