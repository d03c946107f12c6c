//! `--refine control`: counterexample-guided refinement of a control
//! abstraction, after Gupta, Popeea and Rybalchenko, "Non-monotonic
//! refinement of control abstraction for concurrent programs" (ATVA 2010),
//! Fig. 3 (NONMONCEGAR) with Fig. 4 (NONMONCONTROLREFINE), and the
//! monotonic scheme they compare it with in Table 1.
//!
//! 1. Compute the thread-modular fixpoint in which each thread sees the
//!    others' locations up to the current partition (`fixpoint`).
//! 2. No error state in γ: `safe`; γ is an inductive invariant.
//! 3. An error state: rebuild each glued thread's abstract counterexample
//!    and replay it (`path`). A path without a mismatch is a real run:
//!    `unsafe`, with its trace.
//! 4. Otherwise the path's mismatches ℓ ≢ ℓ′ form a clause; the partition
//!    is re-solved over every clause seen so far (non-monotonic) or split
//!    (monotonic), and the loop goes to 1 (`partition`).
//!
//! Progress (the paper's Theorem 1): a path found with a partition has all
//! its mismatches inside classes of that partition, so every new clause is
//! violated by the current partition, and no later partition violates it.
//! A path whose mismatches are all at one location (the thread is there,
//! but with other values of its own variables) is beyond any partition of
//! locations; like the paper's tool, which refines data monotonically
//! beside the control abstraction (§6), such a location is *exploded*: the
//! others then see the thread's local store there. Exploding every location
//! with the finest partition is exact, so the loop ends on a finite model.

mod failing;
pub(crate) mod fixpoint;
pub(crate) mod partition;
mod path;

use super::abstract_report;
use crate::engine::error::CheckError;
use crate::engine::render_guard::RenderGuard;
use crate::engine::result::{
    AbstractProduct, Invariant, InvariantForm, Outcome, RunReport, Stats, Trace,
};
use crate::engine::{Budget, CheckOptions, MODEL_ERRORS, Mode, Refinement, next};
use crate::program::{CExpr, Explorer, Program};
use crate::property::Decider;
use fixpoint::ControlFixpoint;
use partition::{Clause, Key, Partition, Refiner};
use path::Replay;
use std::time::{Duration, Instant};

/// What one property's alarm in one round asks for.
enum Alarm {
    /// No error state in γ.
    None,
    /// A real run to the error.
    Real(Box<Trace>),
    /// Spurious paths: the clauses of some, the data locations of others
    /// (paths whose gaps are all data).
    Spurious(Vec<Clause>, Vec<Key>),
    /// A real run to a state where the property cannot be evaluated (the
    /// message): a model error there, not an error of the property.
    Unevaluable(String),
}

pub(crate) fn run(
    prog: &Program,
    opts: &CheckOptions,
    monotonic: bool,
) -> Result<RunReport, CheckError> {
    let start = Instant::now();
    if !prog.channels.is_empty() {
        return Err(CheckError::Unsupported(
            "--refine control does not support channels (rendezvous) yet; use --refine exceptions or --mode standard".into(),
        ));
    }
    let (props, deciders) = abstract_report::prepare(prog, opts, Mode::Refine)?;
    let budget = Budget::new(opts);
    let mut exp = Explorer::new(prog);
    exp.set_step_budget(Some(budget.for_steps()));
    let mut refiner = Refiner::new(monotonic);
    let mut part = Partition::coarsest(prog);
    let names: Vec<String> = props
        .iter()
        .map(|&p| prog.properties[p].name.clone())
        .chain([MODEL_ERRORS.to_string()])
        .collect();
    let mut decided: Vec<Option<Outcome>> = vec![None; names.len()];
    let (mut refinements, mut paths) = (0u64, 0u64);
    let (mut fixpoint_time, mut refine_time) = (Duration::ZERO, Duration::ZERO);
    let scheme = if monotonic {
        "monotonic"
    } else {
        "non-monotonic"
    };
    let fx = loop {
        let t0 = Instant::now();
        let fx = ControlFixpoint::compute(&mut exp, &part, &budget);
        fixpoint_time += t0.elapsed();
        if fx.stopped.is_some() {
            break fx;
        }
        let (mut clauses, mut data): (Vec<Clause>, Vec<Key>) = (Vec::new(), Vec::new());
        for k in 0..names.len() {
            if decided[k].is_some() {
                continue;
            }
            let alarm = match deciders.get(k) {
                Some(d) => property_alarm(&exp, &fx, d, &prog.properties[props[k]].error),
                None => model_error_alarm(&exp, &fx),
            };
            let classes = part.count();
            match alarm {
                Alarm::None => {
                    let what = match k < props.len() {
                        true => "no error state",
                        false => "no run-time error",
                    };
                    decided[k] = Some(Outcome::safe(
                        &names[k],
                        format!(
                            "proved after {}: {what} in the invariant (a thread-modular fixpoint where each thread sees the others' locations up to {}, {scheme})",
                            crate::words::count(refinements, "refinement"),
                            crate::words::count(classes, "class")
                        ),
                    ));
                }
                Alarm::Real(trace) => {
                    decided[k] = Some(super::unsafe_outcome(&names[k], *trace, refinements));
                }
                Alarm::Unevaluable(why) => {
                    decided[k] = Some(super::unevaluable(&names[k], &why));
                }
                Alarm::Spurious(c, d) => {
                    paths += (c.len() + d.len().min(1)) as u64;
                    clauses.extend(c);
                    data.extend(d);
                }
            }
        }
        if decided.iter().all(Option::is_some) {
            break fx;
        }
        let t0 = Instant::now();
        let mut stop = || budget.exceeded_now(fx.size(), usize::MAX).is_some();
        let next = refiner.refine(prog, clauses, data, &mut stop);
        refine_time += t0.elapsed();
        match next {
            Ok(None) => {
                let mut fx = fx;
                let why = budget
                    .hit_reason()
                    .unwrap_or_else(|| "a budget ran out".into());
                fx.stopped = Some(format!("{why} while refining the partition"));
                break fx;
            }
            Ok(Some(p)) if p != part => part = p,
            Ok(Some(_)) => {
                return Err(CheckError::Internal(
                    "internal error: control refinement made no progress; please report this model"
                        .into(),
                ));
            }
            Err(e) => {
                return Err(CheckError::Internal(format!(
                    "internal error: control refinement: {e}; please report this model"
                )));
            }
        }
        refinements += 1;
    };
    let why = fx.stopped.clone().unwrap_or_default();
    let strategy = match monotonic {
        true => Refinement::ControlMonotonic,
        false => Refinement::Control,
    };
    let next = next::refine_stopped(fx.stopped.as_ref().and(budget.hit()), strategy);
    let outcomes = decided
        .into_iter()
        .zip(&names)
        .map(|(d, name)| {
            d.unwrap_or_else(|| {
                Outcome::unknown(
                    name,
                    format!(
                        "{why} after {} ({}); no real error found so far",
                        crate::words::count(refinements, "refinement"),
                        crate::words::count(part.count(), "class")
                    ),
                    next.clone(),
                )
            })
        })
        .collect();
    let mut stats = Stats::default();
    stats.push("states", fx.size() as u64);
    stats.push("guarantee", fx.guarantee_size() as u64);
    stats.push("classes", part.count() as u64);
    stats.push("data_locations", part.data_locations() as u64);
    stats.push("refinements", refinements);
    stats.push("spurious_paths", paths);
    stats.push("transitions", fx.rule_applications);
    stats.push("fixpoint_s", round6(fixpoint_time));
    stats.push("refine_s", round6(refine_time));
    let invariant = opts.show_invariant.then(|| {
        let guard = RenderGuard::new(opts);
        guard.finish(invariant(&exp, &fx, &part, &guard), false)
    });
    let coverage = opts
        .show_coverage
        .then(|| super::coverage::with_control(prog, &mut exp, &part, &budget))
        .flatten();
    // After the rendering and the coverage round, so that they count.
    stats.finish(start.elapsed());
    Ok(RunReport {
        coverage,
        blocks: None,
        model: prog.name.clone(),
        mode: Mode::Refine,
        outcomes,
        stats,
        invariant,
        exceptions: None,
    })
}

/// The partition and γ as data, products ordered by their global store.
fn invariant(
    exp: &Explorer,
    fx: &ControlFixpoint,
    part: &Partition,
    guard: &RenderGuard,
) -> Invariant {
    let prog = exp.prog;
    let mut gamma = fx.products();
    gamma.sort_by(|((g, k), _), ((h, j), _)| {
        (exp.globals.get(*g), fx.vectors.get(*k)).cmp(&(exp.globals.get(*h), fx.vectors.get(*j)))
    });
    let products = gamma
        .into_iter()
        .take_while(|_| guard.go_on())
        .map(|((g, _), cands)| AbstractProduct {
            global: prog.globals.render(exp.globals.get(g)),
            threads: cands
                .iter()
                .enumerate()
                .map(|(t, ls)| {
                    let tpl = prog.template_of(t);
                    ls.iter()
                        .map(|&l| tpl.render_local(exp.local(t, l)))
                        .collect()
                })
                .collect(),
        })
        .collect();
    Invariant {
        form: InvariantForm::Control {
            classes: part.describe(prog),
            data_locations: part.describe_data(prog),
            products,
        },
        globals: prog.globals.clone(),
        blocks: false,
    }
}

fn round6(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e6
}

/// The first error states of γ (up to `ALARMS_PER_ROUND`), analysed: one
/// abstract counterexample per glued thread. A real path wins; otherwise
/// every spurious one is learnt at once, which saves rounds (each clause is
/// violated by the current partition, so progress is kept).
fn property_alarm(exp: &Explorer, fx: &ControlFixpoint, decider: &Decider, error: &CExpr) -> Alarm {
    let mut alarms = Vec::new();
    // A real run to a state where the property fails to evaluate: a model
    // error there, not an error of the property; a real counterexample
    // wins over it.
    let mut unevaluable = None;
    for ((g, k), cands) in fx.products() {
        // An evaluation error counts as an error state: refine, never
        // prove. The states to replay are then those where the property
        // fails or holds, as `standard` evaluates it (`failing.rs`).
        let choices = match decider.witness(exp, g, &cands) {
            Ok(None) => continue,
            Ok(Some(choice)) => vec![(choice, None)],
            Err(why) => failing::choices(exp, error, g, &cands)
                .unwrap_or_else(|| vec![(cands.iter().map(|c| c[0]).collect(), Some(*why.0))]),
        };
        for (choice, failed) in choices {
            if alarms.len() >= ALARMS_PER_ROUND {
                break;
            }
            // Once a failure is real, only a real counterexample matters.
            if failed.is_some() && unevaluable.is_some() {
                continue;
            }
            let end: Vec<Option<u32>> = choice.iter().map(|&l| Some(l)).collect();
            let replays = (0..choice.len()).map(|t| {
                let (init, steps) = fx.path(t, g, k, choice[t]);
                (path::replay(&fx.initial[init], &steps, &end), None)
            });
            match (analyse(exp, replays), failed) {
                (Alarm::Real(_), Some(why)) => {
                    unevaluable.get_or_insert(why);
                }
                (Alarm::Real(trace), None) => return Alarm::Real(trace),
                (a, _) => alarms.push(a),
            }
        }
        if alarms.len() >= ALARMS_PER_ROUND {
            break;
        }
    }
    // Spurious paths left: refine them first, as a real counterexample
    // (the property `unsafe` in `standard` too) may lie behind them; the
    // real failure is met again next round.
    match (merge(alarms), unevaluable) {
        (Alarm::None, Some(why)) => Alarm::Unevaluable(why),
        (a, _) => a,
    }
}

/// Error states analysed per property and round.
const ALARMS_PER_ROUND: usize = 8;

/// The spurious alarms of one round as one.
fn merge(alarms: Vec<Alarm>) -> Alarm {
    let (mut clauses, mut data) = (Vec::new(), Vec::new());
    for a in alarms {
        match a {
            Alarm::Spurious(c, d) => {
                clauses.extend(c);
                data.extend(d);
            }
            Alarm::None | Alarm::Real(_) | Alarm::Unevaluable(_) => {}
        }
    }
    match (clauses.is_empty(), data.is_empty()) {
        (true, true) => Alarm::None,
        _ => Alarm::Spurious(clauses, data),
    }
}

/// The model-errors decision: the failing steps' own paths.
fn model_error_alarm(exp: &Explorer, fx: &ControlFixpoint) -> Alarm {
    let n = exp.prog.threads.len();
    let mut alarms = Vec::new();
    for e in fx.model_errors.iter().take(ALARMS_PER_ROUND) {
        let (init, steps) = fx.path(e.thread, e.g, e.k, e.l);
        let r = path::replay(&fx.initial[init], &steps, &vec![None; n]);
        match analyse(exp, [(r, Some(e.message.clone()))]) {
            Alarm::Real(trace) => return Alarm::Real(trace),
            a => alarms.push(a),
        }
    }
    merge(alarms)
}

/// The alarm of one error state (or failing step) from its glued threads'
/// replayed paths: a real path wins; otherwise the clause with the fewest
/// mismatches (the strongest); otherwise, every path's gaps being data,
/// their locations.
fn analyse(exp: &Explorer, replays: impl IntoIterator<Item = (Replay, Option<String>)>) -> Alarm {
    let mut best: Option<Clause> = None;
    let mut data: Option<Vec<Key>> = None;
    for (r, failure) in replays {
        if r.gaps.is_empty() {
            let mut trace = Trace::build(exp, &r.initial, &r.steps);
            trace.failure = failure;
            return Alarm::Real(Box::new(trace));
        }
        let clause = path::clause(exp, &r);
        if clause.is_empty() {
            data.get_or_insert_with(|| path::data_locations(exp, &r));
        } else if best.as_ref().is_none_or(|b| clause.len() < b.len()) {
            best = Some(clause);
        }
    }
    match (best, data) {
        (Some(c), _) => Alarm::Spurious(vec![c], Vec::new()),
        (None, Some(keys)) => Alarm::Spurious(Vec::new(), keys),
        (None, None) => Alarm::None,
    }
}
