//! What a run produces, as data: a verdict per property, the reason, a
//! concrete trace or an abstract witness, statistics and, on request, the
//! abstract fixpoint. Nothing here is rendered: `crate::report` turns these
//! values into text and JSON.

use super::{Mode, Verdict};
use serde_json::Value;
use std::time::Duration;

mod coverage;
mod invariant;
mod replay;
pub use coverage::{Coverage, CoverageBasis, TemplateCoverage, UntakenTransition};
pub(crate) use invariant::runs;
pub use invariant::{
    AbstractProduct, ClassProduct, GuaranteeEdge, Invariant, InvariantForm, ReachFact,
    RefinedExceptions, ThreadClass, ThreadSummary,
};
pub use replay::{ReplayFailure, ReplayReport, ReplayStopped};

/// A store as the user reads it: variable name → value, in declaration
/// order. Booleans are JSON booleans, arrays JSON arrays; a thread's local
/// store starts with `pc`, its location's name.
pub type Store = Vec<(String, Value)>;

/// Everything one `check` produced.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// The model's name.
    pub model: String,
    /// The mode that ran.
    pub mode: Mode,
    /// One outcome per checked property, then `model-errors`.
    pub outcomes: Vec<Outcome>,
    /// Engine statistics, in display order.
    pub stats: Stats,
    /// The abstract fixpoint (`show_invariant`, abstract modes only).
    pub invariant: Option<Invariant>,
    /// The exception set `refine` computed (refine only).
    pub exceptions: Option<RefinedExceptions>,
    /// The reducible blocks steps ran through (`--blocks`).
    pub blocks: Option<BlockReport>,
    /// The transitions the run took (`show_coverage`; standard,
    /// thread-modular and cartesian-exc).
    pub coverage: Option<Coverage>,
}

/// The reducible blocks `--blocks` inferred (Popeea, Rybalchenko and
/// Wilhelm, §V), per thread template, for `--show blocks`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BlockReport {
    /// One entry per thread template, in the model's order.
    pub templates: Vec<TemplateBlockReport>,
}

/// One template's locations and transitions as the inference sees them.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TemplateBlockReport {
    /// The template's name.
    pub name: String,
    /// Its locations, in order.
    pub locations: Vec<BlockLocation>,
    /// Its transitions, in order.
    pub transitions: Vec<BlockTransition>,
}

/// A location: the locks held there (the thread alone), the phases that
/// reach it (`pre`, `post`), In or Out, and why it is Out besides the
/// phase rule.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BlockLocation {
    /// The location's name.
    pub name: String,
    /// The locks held there (the thread alone).
    pub held: Vec<String>,
    /// `pre` and/or `post`; empty where the location is unreachable.
    pub phases: Vec<String>,
    /// In: inside a block (never a state of the reduced search).
    pub inside: bool,
    /// Why it is Out besides the phase rule.
    pub why_out: Option<String>,
}

/// A transition and its mover class (`rm`, `lm`, `bm`, `nm`), with why it
/// is a non-mover.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BlockTransition {
    /// The transition's label.
    pub label: String,
    /// Its source locations.
    pub from: Vec<String>,
    /// Its target location.
    pub to: String,
    /// `rm`, `lm`, `bm` or `nm`.
    pub mover: String,
    /// Why it is a non-mover.
    pub why: Option<String>,
}

impl RunReport {
    /// The run's verdict: the worst over its properties.
    pub fn verdict(&self) -> Verdict {
        worst(&self.outcomes)
    }

    /// The outcome of the property named `name`.
    pub fn outcome(&self, name: &str) -> Option<&Outcome> {
        self.outcomes.iter().find(|o| o.property == name)
    }
}

/// The answer for one property. Built only by `Outcome::safe`,
/// `Outcome::violated` and `Outcome::unknown`, so that every `unknown`
/// carries a next step.
// The private field is the point: `#[non_exhaustive]` would keep struct
// literals out of other crates only, this keeps them out of the engines too.
#[allow(clippy::manual_non_exhaustive)]
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The property's name (`model-errors` for the implicit one).
    pub property: String,
    /// Safe, unsafe or unknown.
    pub verdict: Verdict,
    /// One sentence saying why.
    pub reason: String,
    /// A concrete counterexample (verdict unsafe: `standard`, `refine`,
    /// and `simulate`'s runs). Missing from an unsafe outcome only when
    /// `standard`'s budget ran out while it rebuilt the trace, after the
    /// search had found the error state; the reason then says so.
    pub trace: Option<Trace>,
    /// An abstract witness (abstract modes, verdict unknown).
    pub witness: Option<Witness>,
    /// What to try next: present exactly when the verdict is unknown.
    pub next_step: Option<NextStep>,
    /// Keeps struct literals out, so the constructors are the only way in.
    _sealed: (),
}

impl Outcome {
    /// A proved property.
    pub(crate) fn safe(property: impl Into<String>, reason: impl Into<String>) -> Outcome {
        Outcome::new(property.into(), Verdict::Safe, reason.into(), None)
    }

    /// A violated property, with its counterexample.
    pub(crate) fn violated(
        property: impl Into<String>,
        reason: impl Into<String>,
        trace: Trace,
    ) -> Outcome {
        let mut o = Outcome::new(property.into(), Verdict::Unsafe, reason.into(), None);
        o.trace = Some(trace);
        o
    }

    /// A violated property whose counterexample could not be rebuilt
    /// within the budget (`standard`, after its search found the error
    /// state): unsafe all the same, and the reason says how to get it.
    pub(crate) fn violated_untraced(
        property: impl Into<String>,
        reason: impl Into<String>,
    ) -> Outcome {
        Outcome::new(property.into(), Verdict::Unsafe, reason.into(), None)
    }

    /// An undecided property and what the user can do about it. The one way
    /// to build an `unknown` outcome: the next step is not optional.
    pub(crate) fn unknown(
        property: impl Into<String>,
        reason: impl Into<String>,
        next_step: NextStep,
    ) -> Outcome {
        Outcome::new(
            property.into(),
            Verdict::Unknown,
            reason.into(),
            Some(next_step),
        )
    }

    /// The same outcome with an abstract witness.
    pub(crate) fn with_witness(mut self, witness: Option<Witness>) -> Outcome {
        self.witness = witness;
        self
    }

    fn new(property: String, verdict: Verdict, reason: String, next: Option<NextStep>) -> Outcome {
        Outcome {
            property,
            verdict,
            reason,
            trace: None,
            witness: None,
            next_step: next,
            _sealed: (),
        }
    }
}

/// What to do after an `unknown`: one or more suggestions, the best fit
/// first; never empty. The engines choose them as data; `report` words them
/// with the command line's flags (docs/output.md).
#[derive(Clone, Debug, PartialEq)]
pub struct NextStep {
    suggestions: Vec<Suggestion>,
}

impl NextStep {
    /// Raise the budget that ran out: the next step of a run stopped by
    /// `limit` before any engine could say more (while loading).
    pub fn raise(limit: Limit) -> NextStep {
        NextStep::new(Suggestion::Raise(limit))
    }

    /// A next step of one suggestion.
    pub(crate) fn new(first: Suggestion) -> NextStep {
        NextStep {
            suggestions: vec![first],
        }
    }

    /// The same step with `s` as a further alternative (ignored if there).
    pub(crate) fn or(mut self, s: Suggestion) -> NextStep {
        if !self.suggestions.contains(&s) {
            self.suggestions.push(s);
        }
        self
    }

    /// The suggestions, best fit first (at least one).
    pub fn suggestions(&self) -> &[Suggestion] {
        &self.suggestions
    }
}

/// One thing to try after an `unknown`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Suggestion {
    /// Run this mode instead (`refine` to refine an abstract alarm
    /// automatically, `standard` to search concretely).
    Mode(Mode),
    /// Run `refine` with this strategy.
    Refinement(crate::engine::Refinement),
    /// Run again with more of the budget that ran out.
    Raise(Limit),
    /// Reduce the interchangeable threads by symmetry (`standard`); the
    /// number of threads that are interchangeable.
    Symmetry {
        /// Threads in the blocks of interchangeable instances.
        threads: usize,
    },
    /// Give cartesian-exc an exception set: the model has none.
    Exceptions,
    /// Check this property on its own.
    Alone(String),
    /// Search on after the properties' violations (`standard`'s
    /// `CheckOptions::keep_going`), so every state is checked.
    Continue,
    /// An internal error of weft: report the model.
    Report,
    /// Search exhaustively (`weft check`, mode `standard`): after a
    /// simulation, which cannot take `--mode`.
    Search,
}

/// A budget that stopped a run, with its size.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Limit {
    /// The time budget (`CheckOptions::timeout`).
    Time(Duration),
    /// The memory budget in bytes (`CheckOptions::max_memory_bytes`, or
    /// its default of 80% of physical memory).
    Memory(u64),
    /// The state budget (`CheckOptions::max_states`).
    States(usize),
    /// The capacity of standard's state store (not a user's budget).
    Store(usize),
    /// The depth bound (`CheckOptions::max_depth`): the depth reached.
    Depth(usize),
}

/// Seconds as people write them: `20`, `1.5`, `0.25` (at most three
/// decimals, no trailing zeros), and a budget below a millisecond in full
/// (`0.0000001`, not `0`).
pub(crate) fn format_seconds(s: f64) -> String {
    let text = format!("{s:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "0" && s > 0.0 {
        format!("{s}")
    } else {
        text.to_string()
    }
}

/// A memory budget in MiB as people write it: whole when it is
/// (`--max-memory 500`) or large (the default, 80% of physical memory),
/// else to two decimals (a library's `1.43`), never `0` for a budget of a
/// few bytes.
pub(crate) fn format_mib(bytes: u64) -> String {
    let m = bytes as f64 / 1048576.0;
    if m.fract() == 0.0 || m >= 100.0 {
        format!("{m:.0}")
    } else if m >= 0.01 {
        format!("{m:.2}")
    } else {
        format!("{m:.2e}")
    }
}

/// A concrete run from an initial state to an error state.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The globals of the initial state.
    pub initial_globals: Store,
    /// Every thread's initial locals, by instance name.
    pub initial_locals: Vec<(String, Store)>,
    /// The steps, in order.
    pub steps: Vec<TraceStep>,
    /// For a run-time model error: what failed in the last state.
    pub failure: Option<String>,
}

/// One step of a trace: which thread moved, by which transition, and the
/// state after it.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceStep {
    /// The moving thread's instance name (`p[2]`).
    pub thread: String,
    /// The transition's label.
    pub transition: String,
    /// Globals after the step.
    pub globals: Store,
    /// The moving thread's locals after the step, `pc` first.
    pub locals: Store,
    /// For a rendezvous, the receiving thread.
    pub partner: Option<Partner>,
}

/// The receiving side of a rendezvous step.
#[derive(Clone, Debug, PartialEq)]
pub struct Partner {
    /// The receiver's instance name.
    pub thread: String,
    /// The receiver's transition label.
    pub transition: String,
    /// The receiver's locals after the step.
    pub locals: Store,
}

/// An abstract error state and, per thread, how its local state was derived.
#[derive(Clone, Debug)]
pub struct Witness {
    /// The global store of the abstract error state.
    pub globals: Store,
    /// The threads' local stores in it.
    pub threads: Vec<WitnessThread>,
}

/// One thread of an abstract witness.
#[derive(Clone, Debug)]
pub struct WitnessThread {
    /// The instance name.
    pub thread: String,
    /// Its local store in the abstract error state.
    pub local: Store,
    /// How the abstraction derived it (thread-modular and cartesian-exc;
    /// empty otherwise), from the initial state forward.
    pub derivation: Vec<Derivation>,
}

/// One fact of a derivation: the thread's (global, local) pair and the
/// rule that produced it.
#[derive(Clone, Debug)]
pub struct Derivation {
    /// The rule.
    pub by: Derived,
    /// The global store of the fact.
    pub global: Store,
    /// The thread's local store of the fact.
    pub local: Store,
}

/// The rule that derived a fact of R (Flanagan–Qadeer's rules), or an
/// element of cartesian-exc's fixpoint (the same three, and E).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Derived {
    /// An initial state.
    Init,
    /// A step of the thread itself, by the transition with this label.
    Step(String),
    /// An environment step: another thread's guarantee, by that instance.
    Env(String),
    /// A state of the exception set E, which cartesian-exc takes as
    /// reachable (the derivation starts there).
    Exception,
}

/// Engine statistics, in display order.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// `(key, value)` pairs; the keys are documented in docs/output.md.
    pub entries: Vec<(&'static str, Value)>,
}

impl Stats {
    pub(crate) fn push(&mut self, key: &'static str, v: impl Into<Value>) {
        self.entries.push((key, v.into()));
    }
    /// The value of the statistic `key` (docs/output.md lists them).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// The integer statistic `key`.
    pub fn count(&self, key: &str) -> Option<u64> {
        self.get(key).and_then(Value::as_u64)
    }

    /// `states`: states explored (standard) or thread states in the
    /// abstraction (the other modes).
    pub fn states(&self) -> u64 {
        self.count("states").unwrap_or(0)
    }

    /// `transitions`: transitions fired, or rule and post applications.
    pub fn transitions(&self) -> u64 {
        self.count("transitions").unwrap_or(0)
    }

    /// Wall-clock time of the check.
    pub fn time(&self) -> Duration {
        self.get("time_s")
            .and_then(Value::as_f64)
            .map_or(Duration::ZERO, Duration::from_secs_f64)
    }

    /// Peak resident memory of the process (Linux only).
    pub fn peak_memory_bytes(&self) -> Option<u64> {
        self.count("peak_memory_bytes")
    }
    pub(crate) fn finish(&mut self, elapsed: Duration) {
        self.push("time_s", (elapsed.as_secs_f64() * 1e6).round() / 1e6);
        if let Some(kb) = crate::sys::peak_memory_kib() {
            self.push("peak_memory_bytes", kb * 1024);
        }
    }
}

/// What `weft simulate` found: per property, `unsafe` with the trace of
/// the first random run that reached an error, else `unknown` (a
/// simulation proves nothing); and where runs could not move.
#[derive(Clone, Debug)]
pub struct SimulationReport {
    /// The model's name.
    pub model: String,
    /// The seed of the pseudo-random choices: the same seed (and model and
    /// options) gives the same runs.
    pub seed: u64,
    /// One outcome per checked property, then `model-errors`. Traces have
    /// the same shape as `standard`'s (not shortest).
    pub outcomes: Vec<Outcome>,
    /// Deadlocks where runs got stuck (nothing could move and some thread
    /// rested at a location that is not final, as the predicate `deadlock`
    /// decides), distinct, in the order first met (at most ten of them).
    pub stuck: Vec<StuckState>,
    /// Valid end states where runs ended (nothing could move, but it is no
    /// deadlock: every thread rested at a final location), likewise.
    pub ended: Vec<StuckState>,
    /// `runs`, `steps`, `stuck_runs`, `ended_runs`, `max_steps`, `seed`,
    /// `time_s`, `peak_memory_bytes` (docs/output.md).
    pub stats: Stats,
}

impl SimulationReport {
    /// Did some run reach an error state or a run-time error?
    pub fn found_error(&self) -> bool {
        self.outcomes.iter().any(|o| o.verdict == Verdict::Unsafe)
    }

    /// The simulation's verdict: the worst over its properties, as for
    /// `weft check` (`unsafe` or `unknown`: a simulation proves nothing).
    pub fn verdict(&self) -> Verdict {
        worst(&self.outcomes)
    }

    /// `weft simulate`'s exit code: 1 when a run found an error, else 0
    /// (not `unknown`'s 3: no error found is the answer a simulation gives).
    pub fn exit_code(&self) -> i32 {
        if self.found_error() { 1 } else { 0 }
    }
}

/// A state with no successor that a simulated run ended in.
#[derive(Clone, Debug)]
pub struct StuckState {
    /// Its globals.
    pub globals: Store,
    /// Every thread's locals, by instance name.
    pub locals: Vec<(String, Store)>,
    /// How many runs ended there.
    pub runs: u64,
}

/// The worst verdict of `outcomes` (`safe` if none).
fn worst(outcomes: &[Outcome]) -> Verdict {
    outcomes
        .iter()
        .map(|o| o.verdict)
        .max()
        .unwrap_or(Verdict::Safe)
}
