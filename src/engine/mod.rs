//! The fixpoint engines over one compiled program, and what they share:
//! options, budgets, property selection.

pub(crate) mod abstract_report;
pub(crate) mod atoms;
mod budget;
pub(crate) mod cartesian;
mod concrete;
pub(crate) mod dispose;
pub(crate) mod error;
pub(crate) mod exceptions;
pub(crate) mod lipton;
pub(crate) mod next;
pub(crate) mod por;
pub(crate) mod progress;
pub(crate) mod refine;
pub(crate) mod render_guard;
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

pub(crate) use budget::{Budget, POLL_EVERY};
#[cfg(test)]
pub(crate) use budget::{REBUILD_OUT_FOR_TESTS, STEP_OUT_AT_FOR_TESTS};

pub use error::CheckError;
pub use replay::ReplayOptions;
pub use simulate::SimulateOptions;
pub use verdict::{Mode, Verdict};

use crate::program::Program;
use crate::property::Decider;
use result::{NextStep, Outcome, RunReport, Witness};
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
    /// Stop with `unknown` after this long (`--timeout`), counted from
    /// `started`.
    pub timeout: Option<Duration>,
    /// Where the time budget counts from: the command line passes the
    /// process's start, so that loading spends from the same budget;
    /// `None` is when the check starts.
    pub started: Option<Instant>,
    /// `--show invariant`: include the abstract fixpoint in the report
    /// (the abstract modes; `standard` has none and ignores it).
    pub show_invariant: bool,
    /// `--symmetry`: reduce interchangeable threads (standard only).
    pub symmetry: bool,
    /// `--por`: partial-order reduction (standard only): persistent sets
    /// with a cycle proviso (only where a thread left out may still do a
    /// visible step or fail), and a state whose reduced expansion is one
    /// step passed through, checked but not stored (not under
    /// `max_depth`, which counts steps); verdicts are unchanged, traces
    /// are real but not necessarily shortest.
    pub por: bool,
    /// `--blocks`: Lipton reduction (standard and thread-modular): a step
    /// runs a thread through a whole reducible block of movers (Popeea,
    /// Rybalchenko and Wilhelm); verdicts are unchanged, states are only
    /// those where every thread is outside a block.
    pub blocks: bool,
    /// `--show blocks`: include the inferred blocks in the report (with or
    /// without `blocks`).
    pub show_blocks: bool,
    /// `--show coverage`: include which transitions the run took
    /// (`RunReport::coverage`; refine runs one more round for it).
    pub show_coverage: bool,
    /// `--jobs`: worker threads of `standard`; `None` (or 0) is one per
    /// core, and more than 1024 are taken as 1024.
    pub jobs: Option<usize>,
    /// `--refine`: what `refine` makes more precise (refine only).
    pub refinement: Refinement,
    /// `--max-depth`: expand no state deeper than this many steps from an
    /// initial state (standard only); a property not violated within the
    /// bound is `unknown` when the bound cut off states.
    pub max_depth: Option<usize>,
    /// `--continue` (standard only): search on after every property is
    /// violated, as TLC's `-continue` and SPIN's `-c0` do, so every state is
    /// checked (model errors too) and each violated property's error states
    /// are counted; the traces stay the shortest ones.
    pub keep_going: bool,
    /// A progress line on stderr while the check runs, when stderr is a
    /// terminal and `CI` is not set (the command line's; off by default, so
    /// that a program embedding weft keeps its terminal).
    pub progress: bool,
    /// Internal: under `symmetry`, keep the sorted representation of a
    /// block's local stores rather than counters (the comparison the
    /// tests and docs/performance.md make; hidden `--symmetry-sorted`).
    #[doc(hidden)]
    pub symmetry_sorted: bool,
}

impl CheckOptions {
    /// The resident-memory budget in bytes: `max_memory_bytes`, or by
    /// default 80% of physical memory (stop with `unknown` rather than be
    /// killed); `None` where the machine's memory is unknown.
    pub fn memory_budget_bytes(&self) -> Option<u64> {
        self.max_memory_bytes
            .or_else(|| crate::sys::physical_memory_kib().map(|m| m / 5 * 4 * 1024))
    }
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

/// The `model-errors` outcome of an abstract mode: an alarm with the
/// abstract state where a step fails (and `alarm`, what to do about it), or
/// proved, or unknown when the fixpoint stopped early (and `stopped`, why
/// — the budget and the count reached — and what to do about that).
pub(crate) fn abstract_model_error_outcome(
    stopped: Option<(&str, NextStep)>,
    error: Option<(&str, Witness)>,
    alarm: NextStep,
) -> Outcome {
    match (error, stopped) {
        (Some((msg, w)), _) => Outcome::unknown(
            MODEL_ERRORS,
            format!("alarm: a run-time error is possible in the over-approximation: {msg}"),
            alarm,
        )
        .with_witness(Some(w)),
        (None, Some((why, next))) => {
            Outcome::unknown(MODEL_ERRORS, format!("not fully checked: {why}"), next)
        }
        (None, None) => Outcome::safe(
            MODEL_ERRORS,
            "proved: no run-time error in the over-approximation",
        ),
    }
}

/// A program with an error state (`program/error_state.rs`) is explored by
/// `standard` alone: the abstract modes and the reductions do not know that
/// a failing transition leads there.
fn refuse_error_state(prog: &Program, mode: Mode, opts: &CheckOptions) -> Result<(), CheckError> {
    if prog.error_state.is_none() {
        return Ok(());
    }
    if prog.scheduler.is_some() {
        return Err(CheckError::Unsupported(
            "a cooperative model cannot have an error state (`error-state`): a macro-step that fails is a model error".into(),
        ));
    }
    let mode_name = format!("mode {}", mode.name());
    let used = [
        (mode != Mode::Standard, mode_name.as_str()),
        (opts.por, "--por"),
        (opts.symmetry, "--symmetry"),
        (opts.blocks, "--blocks"),
    ];
    match used.iter().find(|(on, _)| *on) {
        None => Ok(()),
        Some((_, what)) => Err(CheckError::Unsupported(format!(
            "the model sends a transition that fails at run time to an error state (`error-state`, DiVinE's semantics, which --divine-errors asks of a DVE file); only mode standard without --por, --symmetry or --blocks explores it, not {what}: run mode standard without them, or drop the error state (--divine-errors for a DVE file, `error-state` in a weft/1 model), which makes a failing transition a model error, reported by `model-errors`"
        ))),
    }
}

/// Runs one mode. Errors are refusals (a property or model the mode cannot
/// handle), reported to the user as such.
pub(crate) fn check(
    prog: &Program,
    mode: Mode,
    opts: &CheckOptions,
) -> Result<RunReport, CheckError> {
    // One start for every phase's budget: refine, and cartesian-exc's
    // class path falling back to the per-thread one, each make their own.
    let opts = &CheckOptions {
        started: Some(opts.started.unwrap_or_else(Instant::now)),
        ..opts.clone()
    };
    check_property_names(prog, &opts.properties)?;
    // A budget of no states would end with nothing explored, and the
    // engines took that for the whole state space (`safe`: "all 0
    // reachable states"; found in review, through `weft test`).
    if opts.max_states == Some(0) {
        return Err(CheckError::Unsupported(
            "a state budget of 0 explores nothing; give at least 1".into(),
        ));
    }
    if !prog.channels.is_empty()
        && mode == Mode::Refine
        && opts.refinement != Refinement::Exceptions
    {
        return Err(CheckError::Unsupported(
            "the model has channels (rendezvous between threads), which --refine control does not support yet; use --refine exceptions".into(),
        ));
    }
    if opts.refinement != Refinement::Exceptions && mode != Mode::Refine {
        return Err(CheckError::Unsupported(format!(
            "--refine applies to mode refine only; {} does not refine",
            mode.name()
        )));
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
    if opts.por && mode != Mode::Standard {
        return Err(CheckError::Unsupported(format!(
            "--por applies to mode standard only; {} does not enumerate interleavings",
            mode.name()
        )));
    }
    if opts.por && opts.symmetry {
        return Err(CheckError::Unsupported(
            "--por and --symmetry cannot be combined yet: use one of them".into(),
        ));
    }
    if opts.keep_going && mode != Mode::Standard {
        return Err(CheckError::Unsupported(format!(
            "--continue applies to mode standard only; {} has no search to continue",
            mode.name()
        )));
    }
    if opts.max_depth.is_some() && mode != Mode::Standard {
        return Err(CheckError::Unsupported(format!(
            "--max-depth applies to mode standard only; {} does not search by depth",
            mode.name()
        )));
    }
    refuse_error_state(prog, mode, opts)?;
    if matches!(mode, Mode::Standard | Mode::Refine) {
        refuse_too_many_initial_states(prog)?;
    }
    let blocks = lipton::for_options(prog, mode, opts)?;
    let bounds = blocks.as_ref().map(|b| std::sync::Arc::new(b.boundaries()));
    crate::phase::enter(crate::Phase::Searching);
    let mut report = match mode {
        Mode::Standard => standard::run(prog, opts, bounds),
        Mode::ThreadModular => thread_modular::run(prog, opts, bounds),
        Mode::CartesianExc => cartesian::run(prog, opts),
        Mode::Refine => refine::run(prog, opts),
    }?;
    if mode != Mode::Standard {
        withhold_model_errors_proof(prog, opts, &mut report);
    }
    crate::phase::enter(crate::Phase::Finishing);
    if opts.show_blocks {
        let shown = match blocks {
            Some(b) => b,
            None => lipton::infer(prog, &selected_properties(prog, &opts.properties))
                .map_err(|why| CheckError::Unsupported(format!("--show blocks: {why}")))?,
        };
        report.blocks = Some(shown.report(prog));
    }
    next::every_unknown_has_one(report)
}

/// An abstract mode proves model-errors over the threads' steps; a checked
/// property's own evaluation may fail too (a division by zero, an index out
/// of bounds), which `standard` counts as a model error and these modes do
/// not track. Where a checked property may fail
/// (`Property::may_fail_to_evaluate`), a `safe` model-errors is withheld.
fn withhold_model_errors_proof(prog: &Program, opts: &CheckOptions, report: &mut RunReport) {
    let fallible = selected_properties(prog, &opts.properties)
        .into_iter()
        .map(|p| &prog.properties[p])
        .find(|p| p.may_fail_to_evaluate());
    let Some(p) = fallible else {
        return;
    };
    for o in &mut report.outcomes {
        if o.property == MODEL_ERRORS && o.verdict == Verdict::Safe {
            *o = Outcome::unknown(
                MODEL_ERRORS,
                format!(
                    "no step fails in the over-approximation, but the property `{}` may fail to evaluate (a division, a shift, an index by a variable, …), which {} does not track; `standard` counts such a failure as a model error",
                    p.name,
                    report.mode.name()
                ),
                next::unevaluable(),
            );
        }
    }
}

/// Checks that every name is a property of the model. `model-errors`, always
/// checked, may be named too: named alone, it is checked on its own.
/// Initial states (an initial global store and one initial local store
/// per thread) are enumerated before `standard`'s search, `refine`'s
/// concrete search and a simulation start, so no state budget can stop
/// their enumeration: past this many, those refuse the model (five threads
/// with an `"init": "any"` array over 64 local stores each gave 2^30, and
/// filled 7 GB under `--max-states 1000`). The other abstract modes start
/// from each thread's initial local stores and never build the product.
const MAX_INITIAL_STATES: f64 = 10_000_000.0;

pub(crate) fn refuse_too_many_initial_states(prog: &Program) -> Result<(), CheckError> {
    let count = prog.init_globals.len() as f64
        * prog
            .threads
            .iter()
            .map(|t| prog.templates[t.template as usize].init.len() as f64)
            .product::<f64>();
    if count > MAX_INITIAL_STATES {
        return Err(CheckError::Unsupported(format!(
            "the initial values give {count:.0} initial states (the initial global stores times each thread's initial local stores, from `\"init\": \"any\"`); a search enumerates them before it starts and supports at most {MAX_INITIAL_STATES:.0}: give fewer variables `\"init\": \"any\"`, set them with an `any` transition from the start location, or use --mode cartesian-exc or thread-modular, which take each thread's initial stores alone"
        )));
    }
    Ok(())
}

pub(crate) fn check_property_names(prog: &Program, names: &[String]) -> Result<(), CheckError> {
    for name in names {
        if name != MODEL_ERRORS && !prog.properties.iter().any(|p| p.name == *name) {
            let known: Vec<&str> = prog.properties.iter().map(|p| p.name.as_str()).collect();
            return Err(CheckError::UnknownProperty {
                name: name.clone(),
                known: known.join(", "),
            });
        }
    }
    Ok(())
}
