//! The entry point of `--mode cartesian-exc`: the fixpoint on classes of
//! interchangeable threads where the program allows it (`symmetric.rs`,
//! Malkis, Podelski and Rybalchenko, Sections 4 and 5 read up to thread
//! permutations), else per thread (`Cartesian`), then the shared report.

use super::symmetric;
use super::{Cartesian, Exceptions};
use crate::engine::abstract_report;
use crate::engine::error::CheckError;
use crate::engine::result::{RefinedExceptions, RunReport};
use crate::engine::{Budget, CheckOptions, Mode, Verdict};
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
        crate::engine::dispose::dispose(s);
        // Witnesses' derivations are recorded per thread only: an alarm
        // (same verdicts on both paths) is reported by the per-thread path,
        // with them; proofs and budget stops by classes.
        if report.outcomes.iter().all(|o| o.witness.is_none()) {
            return Ok(report);
        }
    }
    let c = Cartesian::compute(prog, Exceptions::Model, opts)?;
    let report = abstract_report::report(prog, &c, selected, opts, start);
    crate::engine::dispose::dispose(c);
    report
}

/// The report of `run`, and E when the run proves every property
/// (`refine` reads it back then, as the set it answers with). The class
/// path where it applies, as in `run`: lock(2000, 9) took 50 s per thread,
/// n components of each of n products of E met at every post, and takes
/// milliseconds by classes.
pub(crate) fn run_with_exceptions(
    prog: &Program,
    opts: &CheckOptions,
) -> Result<(RunReport, Option<RefinedExceptions>), CheckError> {
    let start = Instant::now();
    let selected = abstract_report::prepare(prog, opts, Mode::CartesianExc)?;
    if let Some(s) = symmetric::Symmetric::compute(prog, opts)? {
        let report = abstract_report::report(prog, &s, selected.clone(), opts, start)?;
        if report.outcomes.iter().all(|o| o.witness.is_none()) {
            if !proves_every_property(&report) {
                return Ok((report, None));
            }
            // Too large to read back per thread, or past the time or
            // memory budget while it is: the per-thread path below, whose
            // own budget checks stop it there.
            if let Some(exceptions) = s.exception_set(&Budget::new(opts)) {
                return Ok((report, Some(exceptions)));
            }
        }
    }
    let c = Cartesian::compute(prog, Exceptions::Model, opts)?;
    let report = abstract_report::report(prog, &c, selected, opts, start)?;
    let exceptions = proves_every_property(&report).then(|| c.exception_set());
    Ok((report, exceptions))
}

fn proves_every_property(report: &RunReport) -> bool {
    report.outcomes.iter().all(|o| o.verdict == Verdict::Safe)
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
