//! `weft simulate`: random runs, as SPIN's and TLC's simulation modes. Each
//! run starts from an initial state picked at random and takes at most
//! `steps` steps, each picked uniformly among every move of the state
//! (every thread's successors, every rendezvous). Every state is checked
//! against the selected properties and for run-time model errors, as
//! `standard` checks them; the first error ends the simulation, with the
//! run's trace (the shape `standard` reports, so `weft replay` reads it).
//! A run where nothing can move ends there: stuck in a deadlock, or in a
//! valid end state, as the predicate `deadlock` tells them apart.
//!
//! The choices come from xoshiro256++ seeded by SplitMix64 (`rand`'s
//! `Xoshiro256PlusPlus`, an algorithm fixed by its name), and a choice
//! among n moves is the high half of a 64×64-bit product: the same seed,
//! model and options give the same runs on every platform and version.

use super::concrete::{self, Move};
use super::result::{NextStep, Suggestion};
use super::result::{Outcome, SimulationReport, Stats, StuckState, Trace};
use super::trace::{StateIds, StepIds};
use super::{
    Budget, CheckError, CheckOptions, MODEL_ERRORS, POLL_EVERY, check_property_names,
    selected_properties,
};
use crate::program::{Explorer, Program};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};
use rustc_hash::FxHashMap;
use std::time::{Duration, Instant};

/// Distinct states of each kind (deadlocks, valid ends) kept for the
/// report.
const SHOWN: usize = 10;

/// How to simulate: which properties, how many runs of how many steps, the
/// seed, and the budgets.
#[derive(Clone, Debug)]
pub struct SimulateOptions {
    /// Property names to check; empty means all.
    pub properties: Vec<String>,
    /// Runs at most (`--runs`); the simulation stops at the first error.
    pub runs: u64,
    /// Steps per run at most (`--steps`).
    pub steps: u64,
    /// The seed of the pseudo-random choices (`--seed`).
    pub seed: u64,
    /// Stop simulating after this long (`--timeout`), counted from
    /// `started`: the runs so far are reported, as when all have run.
    pub timeout: Option<Duration>,
    /// Stop simulating when the resident memory reaches this many bytes
    /// (`--max-memory`; default 80% of physical memory, as `check`): the
    /// states met are interned and their successors memoised, so a long
    /// simulation grows.
    pub max_memory_bytes: Option<u64>,
    /// When the process started (budgets count from it); `None`: now.
    pub started: Option<Instant>,
}

impl Default for SimulateOptions {
    /// 1000 runs of at most 10,000 steps, seed 0, no time budget.
    fn default() -> SimulateOptions {
        SimulateOptions {
            properties: Vec::new(),
            runs: 1000,
            steps: 10_000,
            seed: 0,
            timeout: None,
            max_memory_bytes: None,
            started: None,
        }
    }
}

/// A uniform choice in `0..n` (n > 0): the high half of `x * n`, whose
/// bias (at most n / 2^64) is far below anything a simulation can see.
fn pick(rng: &mut Xoshiro256PlusPlus, n: usize) -> usize {
    ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize
}

/// The run that found an error: its number, initial state and moves, and
/// what is wrong in its last state.
struct Found {
    run: u64,
    initial: StateIds,
    path: Vec<Move>,
    violated: Vec<usize>,
    failure: Option<String>,
}

/// What one simulated run found in its last state.
enum End {
    /// Some property's error predicate holds, or a model error.
    Error {
        violated: Vec<usize>,
        failure: Option<String>,
    },
    /// No move: a deadlock or a valid end state.
    NoMove,
    /// The step bound.
    Bound,
}

pub(crate) fn run(prog: &Program, opts: &SimulateOptions) -> Result<SimulationReport, CheckError> {
    let start = Instant::now();
    check_property_names(prog, &opts.properties)?;
    let props = selected_properties(prog, &opts.properties);
    super::refuse_too_many_initial_states(prog)?;
    let budget = Budget::new(&CheckOptions {
        timeout: opts.timeout,
        max_memory_bytes: opts.max_memory_bytes,
        started: opts.started,
        ..CheckOptions::default()
    });
    crate::phase::enter(crate::Phase::Simulating);
    let mut exp = Explorer::new(prog);
    exp.set_step_budget(Some(budget.for_steps()));
    let inits = exp.initial_states();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(opts.seed);
    let mut moves: Vec<Move> = Vec::new();
    let mut path: Vec<Move> = Vec::new();
    let mut total_steps: u64 = 0;
    let mut runs: u64 = 0;
    // Where runs could not move: kept apart, as a deadlock is a finding
    // and a valid end state is a run that finished.
    let mut stuck = Ends::default();
    let mut ended = Ends::default();
    let mut found: Option<Found> = None;
    // Why a budget stopped the simulation, if one did.
    let mut stopped: Option<String> = None;
    // States looked at: the budget reads the clock and the memory every
    // 4096 of them (a run may be a single state).
    let mut looked: usize = 0;
    while runs < opts.runs && !inits.is_empty() && stopped.is_none() {
        runs += 1;
        let initial = inits[pick(&mut rng, inits.len())].clone();
        let (mut g, mut ls) = initial.clone();
        path.clear();
        let end = loop {
            looked += 1;
            if looked.is_multiple_of(POLL_EVERY as usize)
                && let Some(why) = budget.time_or_memory_exceeded()
            {
                stopped = Some(why);
                break End::Bound;
            }
            let (violated, eval_error) = concrete::violated(&exp, &props, g, &ls);
            let step_error = concrete::moves(&mut exp, g, &ls, &mut moves);
            // A step the budget cut short (`Succs::cut`): its moves are
            // some of them, so neither a pick nor a dead end is fair.
            if let Some(why) = budget.hit_reason() {
                stopped = Some(why);
                break End::Bound;
            }
            let failure = eval_error.or(step_error);
            if !violated.is_empty() || failure.is_some() {
                break End::Error { violated, failure };
            }
            if path.len() as u64 >= opts.steps {
                break End::Bound;
            }
            if moves.is_empty() {
                break End::NoMove;
            }
            let m = moves[pick(&mut rng, moves.len())];
            g = m.apply(&mut ls);
            path.push(m);
            total_steps += 1;
        };
        match end {
            End::Error { violated, failure } => {
                found = Some(Found {
                    run: runs,
                    initial,
                    path: path.clone(),
                    violated,
                    failure,
                });
                break;
            }
            End::NoMove if concrete::deadlocked(&exp, g, &ls) => stuck.add((g, ls)),
            End::NoMove => ended.add((g, ls)),
            End::Bound => {}
        }
    }
    let outcomes = outcomes(&exp, opts, &props, runs, total_steps, stopped, found);
    let mut stats = Stats::default();
    stats.push("runs", runs);
    stats.push("steps", total_steps);
    stats.push("stuck_runs", stuck.runs);
    stats.push("ended_runs", ended.runs);
    stats.push("max_steps", opts.steps);
    stats.push("seed", opts.seed);
    stats.finish(start.elapsed());
    Ok(SimulationReport {
        model: prog.name.clone(),
        seed: opts.seed,
        outcomes,
        stuck: stuck.render(&exp),
        ended: ended.render(&exp),
        stats,
    })
}

/// The states of one kind where runs could not move: how many runs ended
/// in one, and the first `SHOWN` distinct ones with the runs that ended
/// there, in the order first met.
#[derive(Default)]
struct Ends {
    runs: u64,
    states: Vec<(StateIds, u64)>,
    index: FxHashMap<StateIds, usize>,
}

impl Ends {
    fn add(&mut self, state: StateIds) {
        self.runs += 1;
        match self.index.get(&state) {
            Some(&i) => self.states[i].1 += 1,
            None if self.states.len() < SHOWN => {
                self.index.insert(state.clone(), self.states.len());
                self.states.push((state, 1));
            }
            None => {}
        }
    }

    fn render(self, exp: &Explorer) -> Vec<StuckState> {
        let prog = exp.prog;
        self.states
            .into_iter()
            .map(|((g, ls), runs)| StuckState {
                globals: prog.globals.render(exp.globals.get(g)),
                locals: (0..prog.threads.len())
                    .map(|t| {
                        (
                            prog.threads[t].name.clone(),
                            prog.template_of(t).render_local(exp.local(t, ls[t])),
                        )
                    })
                    .collect(),
                runs,
            })
            .collect()
    }
}

/// One outcome per selected property, then `model-errors`: `unsafe` with
/// the run's trace for what the last run found, else `unknown`.
fn outcomes(
    exp: &Explorer,
    opts: &SimulateOptions,
    props: &[usize],
    runs: u64,
    steps: u64,
    stopped: Option<String>,
    found: Option<Found>,
) -> Vec<Outcome> {
    let prog = exp.prog;
    let stopped = stopped.map_or_else(String::new, |why| {
        format!("; stopped in run {runs} of {}: {why}", opts.runs)
    });
    let nothing = format!(
        "no error in {} of at most {} ({} in all{stopped}); a simulation proves nothing",
        crate::words::count(runs, "random run"),
        crate::words::count(opts.steps, "step"),
        crate::words::count(steps, "step")
    );
    let Some(Found {
        run,
        initial,
        path,
        violated,
        failure,
    }) = found
    else {
        // Only an exhaustive search decides.
        let search = || NextStep::new(Suggestion::Search);
        let mut out: Vec<Outcome> = props
            .iter()
            .map(|&p| Outcome::unknown(&prog.properties[p].name, nothing.clone(), search()))
            .collect();
        out.push(Outcome::unknown(MODEL_ERRORS, nothing, search()));
        return out;
    };
    let trace = trace_of(exp, &initial, &path);
    let at = format!(
        "in run {run} after {}",
        crate::words::count(path.len(), "step")
    );
    let stopped = "not checked further: the simulation stopped at the first error".to_string();
    let mut out: Vec<Outcome> = props
        .iter()
        .map(|&p| {
            let name = &prog.properties[p].name;
            if violated.contains(&p) {
                Outcome::violated(
                    name,
                    format!("an error state is reached {at}"),
                    trace.clone(),
                )
            } else if failure.is_some() {
                // Every simulation checks model-errors: alone, `name` would
                // stop at the same run-time error.
                Outcome::unknown(name, stopped.clone(), NextStep::new(Suggestion::Search))
            } else {
                Outcome::unknown(name, stopped.clone(), alone(name))
            }
        })
        .collect();
    out.push(match failure {
        Some(msg) => {
            let mut trace = trace;
            trace.failure = Some(msg.clone());
            Outcome::violated(
                MODEL_ERRORS,
                format!("a run-time error is reached {at}: {msg}"),
                trace,
            )
        }
        // Alone, model-errors evaluates no property: where a checked one
        // may fail to evaluate, only a search checks the same thing.
        None if props
            .iter()
            .any(|&p| prog.properties[p].may_fail_to_evaluate()) =>
        {
            Outcome::unknown(MODEL_ERRORS, stopped, NextStep::new(Suggestion::Search))
        }
        None => Outcome::unknown(MODEL_ERRORS, stopped, alone(MODEL_ERRORS)),
    });
    out
}

/// A property the simulation stopped before checking further: simulate it
/// on its own.
fn alone(property: &str) -> NextStep {
    NextStep::new(Suggestion::Alone(property.to_string()))
}

/// The trace of a run: its initial state and moves.
fn trace_of(exp: &Explorer, initial: &StateIds, path: &[Move]) -> Trace {
    let mut ls = initial.1.clone();
    let steps: Vec<StepIds> = path
        .iter()
        .map(|m| {
            let g = m.apply(&mut ls);
            StepIds {
                thread: m.thread,
                trans: m.trans,
                partner: m.partner.map(|(u, tr, _)| (u, tr)),
                state: (g, ls.clone()),
            }
        })
        .collect();
    Trace::build(exp, initial, &steps)
}
