//! Which phase of a load or a check this process is in: reading the
//! model, parsing it, compiling it, inferring ranges, instantiating an
//! exception set, searching, reporting. Budgets name it when they run out
//! before the search could report for itself (issue "every budget holds
//! from the first byte read"), and the command line's watchdog reads it.
//!
//! One value per process: with several loads or checks running at once,
//! it is the phase the most recent one entered.

use std::sync::atomic::{AtomicU8, Ordering};

/// A phase of loading or checking a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Phase {
    /// Nothing has started yet.
    Starting,
    /// Reading the model file.
    Reading,
    /// Reading an exception set file (`--exceptions`).
    ReadingExceptions,
    /// Reading a saved trace (`weft replay`).
    ReadingTrace,
    /// Parsing JSON or DVE text.
    Parsing,
    /// Translating DVE to weft/1.
    Translating,
    /// Resolving names and compiling declarations, templates, properties.
    Compiling,
    /// Inferring the variables' ranges (the abstract modes).
    Ranges,
    /// Instantiating an exception set (cartesian-exc, refine).
    Exceptions,
    /// The engine's search.
    Searching,
    /// Re-executing a saved trace (`weft replay`).
    Replaying,
    /// Random runs (`weft simulate`).
    Simulating,
    /// The search has stopped (done, or a budget ran out); its result is
    /// being assembled and its memory freed.
    Finishing,
    /// Rendering the report.
    Reporting,
}

const ALL: [Phase; 14] = [
    Phase::Starting,
    Phase::Reading,
    Phase::ReadingExceptions,
    Phase::ReadingTrace,
    Phase::Parsing,
    Phase::Translating,
    Phase::Compiling,
    Phase::Ranges,
    Phase::Exceptions,
    Phase::Searching,
    Phase::Replaying,
    Phase::Simulating,
    Phase::Finishing,
    Phase::Reporting,
];

static CURRENT: AtomicU8 = AtomicU8::new(0);

impl Phase {
    /// What the process is doing in this phase, as a sentence's end:
    /// "exhausted while {describe}".
    pub fn describe(self) -> &'static str {
        match self {
            Phase::Starting => "starting",
            Phase::Reading => "reading the model file",
            Phase::ReadingExceptions => "reading the exception set file",
            Phase::ReadingTrace => "reading the trace file",
            Phase::Parsing => "parsing the model",
            Phase::Translating => "translating the DVE model",
            Phase::Compiling => "compiling the model",
            Phase::Ranges => "inferring the variables' ranges",
            Phase::Exceptions => "instantiating the exception set",
            Phase::Searching => "searching",
            Phase::Replaying => "replaying the trace",
            Phase::Simulating => "simulating",
            Phase::Finishing => "assembling the result after the search stopped",
            Phase::Reporting => "writing the report",
        }
    }

    /// The phase's name in JSON output (docs/output.md).
    pub fn name(self) -> &'static str {
        match self {
            Phase::Starting => "starting",
            Phase::Reading => "reading",
            Phase::ReadingExceptions => "reading-exceptions",
            Phase::ReadingTrace => "reading-trace",
            Phase::Parsing => "parsing",
            Phase::Translating => "translating",
            Phase::Compiling => "compiling",
            Phase::Ranges => "ranges",
            Phase::Exceptions => "exceptions",
            Phase::Searching => "searching",
            Phase::Replaying => "replaying",
            Phase::Simulating => "simulating",
            Phase::Finishing => "finishing",
            Phase::Reporting => "reporting",
        }
    }
}

/// The phase this process is in.
pub fn current() -> Phase {
    ALL.get(CURRENT.load(Ordering::Relaxed) as usize)
        .copied()
        .unwrap_or(Phase::Starting)
}

/// Records that the process enters `phase`.
pub fn enter(phase: Phase) {
    let index = ALL.iter().position(|&p| p == phase).unwrap_or(0);
    CURRENT.store(index as u8, Ordering::Relaxed);
}
