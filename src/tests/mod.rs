//! Tests that need the crate's internals (the engines, the explorer, range
//! inference, the exception sets): differential proptests between engines,
//! the papers' and BEEM's goldens, and SPIN cross-checks. Tests that only
//! drive the command line or the public API live in tests/.

mod beem;
mod beem_bakery;
mod beem_suite;
mod budgets;
mod cartesian;
mod cartesian_classes;
pub(crate) mod common;
mod control;
mod cooperative;
mod counter;
mod coverage;
mod deadlock;
mod depth;
mod derivations;
mod differential;
mod divine_errors;
mod fallible;
mod incremental;
mod keep_going;
mod lipton;
mod lipton_commute;
mod memo;
mod por;
mod por_cases;
mod por_pass;
mod por_proviso;
mod por_quiet;
mod promela;
mod ranges;
mod refine;
mod rendezvous;
mod replay;
mod standard;
mod step_budget;
mod symmetry;
mod thread_modular;
mod thread_modular_compact;
mod unevaluable;
