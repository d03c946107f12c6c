//! The entry point of `--mode cartesian-exc`: the fixpoint on classes of
//! interchangeable threads where the program allows it (`symmetric.rs`,
//! Malkis, Podelski and Rybalchenko, Sections 4 and 5 read up to thread
//! permutations), else per thread (`Cartesian`), then the shared report.

use super::symmetric;
use super::{Cartesian, Exceptions};
use crate::engine::abstract_report;
use crate::engine::error::CheckError;
use crate::engine::result::{RefinedExceptions, RunReport};
use crate::engine::{CheckOptions, Mode};
use crate::program::Program;
use std::time::Instant;

/// Which representation computes the fixpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Path {
    /// One component per class of interchangeable threads where the
    /// program allows it (`symmetric.rs`), else per thread.
    Auto,
    /// One component per thread, always (`refine`, which reads E per
    /// thread, and the tests that compare both paths).
    PerThread,
}

/// Set in the environment, forces the per-thread path (measurements of
/// both paths with one binary).
const PER_THREAD_ENV: &str = "WEFT_CARTESIAN_PER_THREAD";

pub(crate) fn run(prog: &Program, opts: &CheckOptions) -> Result<RunReport, CheckError> {
    let path = match std::env::var_os(PER_THREAD_ENV) {
        Some(_) => Path::PerThread,
        None => Path::Auto,
    };
    run_with(prog, opts, path)
}

pub(crate) fn run_with(
    prog: &Program,
    opts: &CheckOptions,
    path: Path,
) -> Result<RunReport, CheckError> {
    let start = Instant::now();
    let selected = abstract_report::prepare(prog, opts, Mode::CartesianExc)?;
    if path == Path::Auto
        && let Some(s) = symmetric::Symmetric::compute(prog, opts)?
    {
        let report = abstract_report::report(prog, &s, selected.clone(), opts, start)?;
        // Witnesses' derivations are recorded per thread only: an alarm
        // (same verdicts on both paths) is reported by the per-thread path,
        // with them; proofs and budget stops by classes.
        if report.outcomes.iter().all(|o| o.witness.is_none()) {
            return Ok(report);
        }
    }
    let c = Cartesian::compute(prog, Exceptions::Model, opts)?;
    abstract_report::report(prog, &c, selected, opts, start)
}

/// The per-thread path's report and its exception set E (`refine` reads E
/// back when the model's own set proves every property).
pub(crate) fn run_per_thread_with_exceptions(
    prog: &Program,
    opts: &CheckOptions,
) -> Result<(RunReport, RefinedExceptions), CheckError> {
    let start = Instant::now();
    let selected = abstract_report::prepare(prog, opts, Mode::CartesianExc)?;
    let c = Cartesian::compute(prog, Exceptions::Model, opts)?;
    let report = abstract_report::report(prog, &c, selected, opts, start)?;
    Ok((report, c.exception_set()))
}

/// The report of the class path alone (`None`: it does not apply), alarms
/// included: tests look at its witnesses.
#[cfg(test)]
pub(crate) fn run_classes(
    prog: &Program,
    opts: &CheckOptions,
) -> Result<Option<RunReport>, CheckError> {
    let start = Instant::now();
    let selected = abstract_report::prepare(prog, opts, Mode::CartesianExc)?;
    match symmetric::Symmetric::compute(prog, opts)? {
        Some(s) => abstract_report::report(prog, &s, selected, opts, start).map(Some),
        None => Ok(None),
    }
}
