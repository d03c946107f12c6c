//! The fixpoint engines over one compiled program, and what they share:
//! options, budgets, property selection.

mod abstract_report;
pub(crate) mod cartesian;
mod concrete;
pub(crate) mod error;
pub(crate) mod exceptions;
pub(crate) mod progress;
pub(crate) mod refine;
mod rendezvous;
pub(crate) mod replay;
pub(crate) mod result;
pub(crate) mod simulate;
pub(crate) mod standard;
pub(crate) mod store;
pub(crate) mod symmetry;
pub(crate) mod thread_modular;
pub(crate) mod trace;
mod verdict;

pub use error::CheckError;
pub use simulate::SimulateOptions;
pub use verdict::{Mode, Verdict};

use crate::program::Program;
use crate::property::Decider;
use result::{Outcome, RunReport, Trace, Witness};
use std::time::{Duration, Instant};

/// The implicit property every run checks: no run-time model error
/// (division by zero, index out of bounds, assignment out of range).
pub const MODEL_ERRORS: &str = "model-errors";

/// How to run a check: which properties, which budgets, what to report.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Property names to check; empty means all.
    pub properties: Vec<String>,
    /// Stop with `unknown` after this many states (`--max-states`).
    pub max_states: Option<usize>,
    /// Stop with `unknown` at this resident memory (`--max-memory`);
    /// `None` is 80% of physical memory.
    pub max_memory_bytes: Option<u64>,
    /// Stop with `unknown` after this long (`--timeout`).
    pub timeout: Option<Duration>,
    /// `--show invariant`: include the abstract fixpoint in the report.
    pub show_invariant: bool,
    /// `--symmetry`: reduce interchangeable threads (standard only).
    pub symmetry: bool,
    /// `--jobs`: worker threads of `standard`; `None` (or 0) is one per
    /// core, and more than 1024 are taken as 1024.
    pub jobs: Option<usize>,
    /// `--refine`: what `refine` makes more precise (refine only).
    pub refinement: Refinement,
    /// `--max-depth`: expand no state deeper than this many steps from an
    /// initial state (standard only); a property not violated within the
    /// bound is `unknown` when the bound cut off states.
    pub max_depth: Option<usize>,
}

/// What `--mode refine` refines when an alarm is spurious.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refinement {
    /// Make the glued global stores precise: an exception set E is
    /// computed (Malkis, Podelski and Rybalchenko, §5).
    #[default]
    Exceptions,
    /// Non-monotonic control abstraction (Gupta, Popeea and Rybalchenko):
    /// each thread sees the others' locations up to a partition, re-solved
    /// for the fewest classes over every spurious path seen so far.
    Control,
    /// The monotonic variant of `Control`: each spurious path splits two
    /// locations off into classes of their own, and no class is ever merged
    /// again (the paper's baseline in Table 1).
    ControlMonotonic,
}

/// Budget checks, cheap enough to call once per new state.
pub(crate) struct Budget {
    max_states: Option<usize>,
    max_memory_kib: Option<u64>,
    deadline: Option<Instant>,
    timeout: Option<Duration>,
    /// When `exceeded_now` last read the resident memory (a file read).
    last_memory_read: std::cell::Cell<Option<Instant>>,
}

/// `exceeded_now` reads the resident memory at most this often.
const MEMORY_READ_INTERVAL: Duration = Duration::from_millis(20);

impl Budget {
    pub(crate) fn new(opts: &CheckOptions) -> Budget {
        Budget {
            max_states: opts.max_states,
            // By default, stop at 80% of physical memory rather than be killed.
            max_memory_kib: opts
                .max_memory_bytes
                .map(|b| b / 1024)
                .or_else(|| crate::sys::physical_memory_kib().map(|m| m / 5 * 4)),
            // A timeout too large to add to the clock is no deadline.
            deadline: opts.timeout.and_then(|t| Instant::now().checked_add(t)),
            timeout: opts.timeout,
            last_memory_read: std::cell::Cell::new(None),
        }
    }

    /// `Some(reason)` once a budget is exhausted. Time and memory are
    /// sampled every 4096 states.
    pub(crate) fn exceeded(&self, states: usize) -> Option<String> {
        self.check(states, states.is_multiple_of(4096))
    }

    /// As `exceeded`, for callers that check now and then rather than per
    /// state: reads the clock now and the memory every 20 ms. `capacity` is
    /// the most states the caller's store can hold.
    pub(crate) fn exceeded_now(&self, states: usize, capacity: usize) -> Option<String> {
        if states >= capacity {
            return Some(format!("the state store is full ({capacity} states)"));
        }
        let now = Instant::now();
        let due = self
            .last_memory_read
            .get()
            .is_none_or(|t| now.duration_since(t) >= MEMORY_READ_INTERVAL);
        if due {
            self.last_memory_read.set(Some(now));
            return self.check(states, true);
        }
        self.check(states, false).or_else(|| self.out_of_time())
    }

    fn out_of_time(&self) -> Option<String> {
        match (self.deadline, self.timeout) {
            (Some(d), Some(t)) if Instant::now() >= d => {
                Some(format!("time budget of {:.1} s exhausted", t.as_secs_f64()))
            }
            _ => None,
        }
    }

    fn check(&self, states: usize, sample: bool) -> Option<String> {
        if let Some(m) = self.max_states
            && states >= m
        {
            return Some(format!("state budget of {m} states exhausted"));
        }
        if sample {
            if let Some(why) = self.out_of_time() {
                return Some(why);
            }
            if let (Some(m), Some(cur)) = (self.max_memory_kib, crate::sys::current_memory_kib())
                && cur >= m
            {
                return Some(format!(
                    "memory budget of {:.0} MiB exhausted",
                    m as f64 / 1024.0
                ));
            }
        }
        None
    }
}

/// The Cartesian decision procedure of each selected property, or the
/// refusal naming the property and the mode.
pub(crate) fn deciders(
    prog: &Program,
    props: &[usize],
    mode: Mode,
) -> Result<Vec<Decider>, CheckError> {
    props
        .iter()
        .map(|&p| {
            let prop = &prog.properties[p];
            Decider::new(prog, &prop.error).map_err(|u| {
                CheckError::Unsupported(format!(
                    "property `{}` cannot be decided by {}: {}",
                    prop.name,
                    mode.name(),
                    u.0
                ))
            })
        })
        .collect()
}

/// Indices of the properties to check (all when none are named).
pub(crate) fn selected_properties(prog: &Program, names: &[String]) -> Vec<usize> {
    (0..prog.properties.len())
        .filter(|&i| names.is_empty() || names.contains(&prog.properties[i].name))
        .collect()
}

pub(crate) fn model_error_outcome(
    verdict: Verdict,
    reason: String,
    trace: Option<Trace>,
    witness: Option<Witness>,
) -> Outcome {
    Outcome {
        property: MODEL_ERRORS.into(),
        verdict,
        reason,
        trace,
        witness,
    }
}

/// The `model-errors` outcome of an abstract mode: an alarm with the
/// abstract state where a step fails, or proved, or unknown when a budget
/// stopped the fixpoint.
pub(crate) fn abstract_model_error_outcome(
    stopped: bool,
    error: Option<(&str, Witness)>,
) -> Outcome {
    match error {
        Some((msg, w)) => model_error_outcome(
            Verdict::Unknown,
            format!("alarm: a run-time error is possible in the over-approximation: {msg}"),
            None,
            Some(w),
        ),
        None if stopped => model_error_outcome(
            Verdict::Unknown,
            "not fully checked: a budget stopped the computation".into(),
            None,
            None,
        ),
        None => model_error_outcome(
            Verdict::Safe,
            "proved: no run-time error in the over-approximation".into(),
            None,
            None,
        ),
    }
}

/// Runs one mode. Errors are refusals (a property or model the mode cannot
/// handle), reported to the user as such.
pub(crate) fn check(
    prog: &Program,
    mode: Mode,
    opts: &CheckOptions,
) -> Result<RunReport, CheckError> {
    check_property_names(prog, &opts.properties)?;
    if !prog.channels.is_empty()
        && mode == Mode::Refine
        && opts.refinement != Refinement::Exceptions
    {
        return Err(CheckError::Unsupported(
            "the model has channels (rendezvous between threads), which --refine control does not support yet; use --refine exceptions".into(),
        ));
    }
    if opts.symmetry && !prog.channels.is_empty() {
        return Err(CheckError::Unsupported(
            "--symmetry does not support models with channels yet".into(),
        ));
    }
    if opts.symmetry && mode != Mode::Standard {
        return Err(CheckError::Unsupported(format!(
            "--symmetry applies to mode standard only; {} is already polynomial in the number of threads",
            mode.name()
        )));
    }
    if opts.max_depth.is_some() && mode != Mode::Standard {
        return Err(CheckError::Unsupported(format!(
            "--max-depth applies to mode standard only; {} does not search by depth",
            mode.name()
        )));
    }
    match mode {
        Mode::Standard => standard::run(prog, opts),
        Mode::ThreadModular => thread_modular::run(prog, opts),
        Mode::CartesianExc => cartesian::run(prog, opts),
        Mode::Refine => refine::run(prog, opts),
    }
}

/// Checks that every name is a property of the model.
pub(crate) fn check_property_names(prog: &Program, names: &[String]) -> Result<(), CheckError> {
    for name in names {
        if !prog.properties.iter().any(|p| p.name == *name) {
            let known: Vec<&str> = prog.properties.iter().map(|p| p.name.as_str()).collect();
            return Err(CheckError::UnknownProperty {
                name: name.clone(),
                known: known.join(", "),
            });
        }
    }
    Ok(())
}
