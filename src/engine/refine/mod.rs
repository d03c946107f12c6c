//! `refine`: Cartesian abstraction refined automatically until it proves
//! the property or finds a real error — the counterexample-guided loop the
//! precise thread-modular paper (Malkis, Podelski, Rybalchenko) leaves as
//! future work, with its exception set E computed instead of written.
//!
//! 1. Compute the fixpoint with the current precise stores P (`hybrid`):
//!    Cartesian outside P, an exact union of products (E) at P. A round
//!    starts from what of the previous one still holds (`carry`) and stops
//!    at its first alarms; only a round without alarms runs to the end.
//! 2. No error state in it: `safe`. The fixpoint is an inductive invariant
//!    that excludes the error; E is reported (and `--save-exceptions` writes
//!    it, so cartesian-exc re-proves the model in one pass).
//! 3. An error state in an untainted product of E: it is reachable; a
//!    search inside the exact part (`search`) returns its trace: `unsafe`.
//! 4. Otherwise the alarm is possibly spurious: the abstraction glued it
//!    from thread states of different histories at the stores its taint
//!    names (or at the alarm's own store, in the Cartesian part). Make those
//!    stores precise and go to 1.
//!
//! P grows every round and P = every store is exact, so the loop ends on a
//! finite model; budgets end it with `unknown` and the best E so far.

mod carry;
pub(crate) mod control;
mod coverage;
pub(crate) mod hybrid;
mod search;

use super::abstract_report;
use super::cartesian::{Cartesian, abstract_product};
use super::error::CheckError;
use super::exceptions::Product;
use super::result::{
    AbstractProduct, Invariant, InvariantForm, Limit, NextStep, Outcome, RefinedExceptions,
    RunReport, Stats, Suggestion, Trace, Witness, WitnessThread,
};
use super::{Budget, CheckOptions, MODEL_ERRORS, Mode, Refinement, Verdict, next};
use crate::engine::render_guard::RenderGuard;
use crate::program::ranges::Ranges;
use crate::program::{Explorer, Program};
use crate::property::{Decider, WitnessScratch};
use hybrid::{Extent, Hybrid};
use rustc_hash::FxHashSet;
use search::{Found, Goal};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// What the decision of one property in one round asks for.
pub(crate) enum Alarm {
    /// No error state in the fixpoint.
    None,
    /// An error state in an untainted product: real.
    Exact,
    /// Possibly spurious: the Cartesian stores with an error state, the
    /// taints of the precise products with one, and a witness.
    Spurious {
        cartesian: BTreeSet<u32>,
        tainted: BTreeSet<u32>,
        witness: Witness,
    },
    /// The time or memory budget ran out while deciding: why.
    Stopped(String),
}

/// Time spent, for the statistics.
#[derive(Default)]
struct Clock {
    fixpoint: Duration,
    search: Duration,
}

pub(crate) fn run(prog: &Program, opts: &CheckOptions) -> Result<RunReport, CheckError> {
    match opts.refinement {
        Refinement::Exceptions => {
            // The first pass counts in refine's time: a set that does not
            // prove the model can cost more than the loop after it.
            let start = Instant::now();
            match proved_by_the_models_set(prog, opts)? {
                Some(report) => Ok(report),
                None => {
                    let first_pass = (!prog.exceptions.is_empty()).then(|| start.elapsed());
                    run_exceptions(prog, opts, start, first_pass)
                }
            }
        }
        Refinement::Control => control::run(prog, opts, false),
        Refinement::ControlMonotonic => control::run(prog, opts, true),
    }
}

/// Step 1 with the model's own exception set, when it has one: one
/// cartesian-exc pass; if that proves every selected property, it is the
/// answer (with 0 refinements, and the model's E as the set computed).
/// Otherwise the loop starts from E = ∅, where every alarm's provenance is
/// its own.
fn proved_by_the_models_set(
    prog: &Program,
    opts: &CheckOptions,
) -> Result<Option<RunReport>, CheckError> {
    if prog.exceptions.is_empty() {
        return Ok(None);
    }
    let (mut report, exceptions) = super::cartesian::run_with_exceptions(prog, opts)?;
    // A budget that ran out in this pass is out for the loop too: say where.
    let ran_out = report.outcomes.iter().find_map(|o| {
        o.next_step
            .as_ref()?
            .suggestions()
            .iter()
            .find_map(|s| match s {
                Suggestion::Raise(limit) => Some(*limit),
                _ => None,
            })
    });
    if let Some(limit) = ran_out {
        report.mode = Mode::Refine;
        for o in &mut report.outcomes {
            if o.verdict == Verdict::Unknown {
                o.reason = format!(
                    "{}, in the first pass (cartesian-exc with the model's own exception set, before any refinement)",
                    o.reason
                );
                o.next_step = Some(NextStep::raise(limit));
            }
        }
        report.stats.push("refinements", 0);
        // Where the loop would have started: E = ∅ (refine always hands
        // back a set; `--save-exceptions` writes it, with its warning).
        let threads = prog.threads.iter().map(|t| t.name.clone()).collect();
        report.exceptions = Some(RefinedExceptions::new(threads, vec![], vec![], vec![]));
        return Ok(Some(report));
    }
    let Some(exceptions) = exceptions else {
        return Ok(None);
    };
    report.exceptions = Some(exceptions);
    report.mode = Mode::Refine;
    for o in &mut report.outcomes {
        o.reason = format!(
            "proved after 0 refinements by the model's own exception set, in one cartesian-exc pass ({})",
            o.reason
        );
    }
    report.stats.push("refinements", 0);
    Ok(Some(report))
}

/// Strategy `exceptions`: the loop of the module header. `start` is
/// refine's own start, and `first_pass` how long the model's own set took
/// to fail, if it has one.
fn run_exceptions(
    prog: &Program,
    opts: &CheckOptions,
    start: Instant,
    first_pass: Option<Duration>,
) -> Result<RunReport, CheckError> {
    let (props, deciders) = abstract_report::prepare(prog, opts, Mode::Refine)?;
    crate::phase::enter(crate::Phase::Ranges);
    let ranges = Ranges::infer(prog);
    crate::phase::enter(crate::Phase::Searching);
    let (mut exp, universe) = Cartesian::explorer(prog, &ranges)?;
    let budget = Budget::new(opts);
    exp.set_step_budget(Some(budget.for_steps()));
    let mut precise: FxHashSet<u32> = FxHashSet::default();
    // One slot per property, then model-errors: None while open.
    let mut decided: Vec<Option<Outcome>> = vec![None; props.len() + 1];
    let mut last_witness: Vec<Option<Witness>> = vec![None; props.len() + 1];
    let (mut refinements, mut posts, mut clock) = (0u64, 0u64, Clock::default());
    let mut carried = 0u64;
    let names: Vec<String> = props
        .iter()
        .map(|&p| prog.properties[p].name.clone())
        .chain([MODEL_ERRORS.to_string()])
        .collect();
    // The previous round's fixpoint: the next one starts from it (carry.rs).
    // Rounds stop at their first alarms; one that found none goes on to
    // the fixpoint, since only a complete one proves anything.
    let (mut prev, mut extent): (Option<Hybrid>, _) = (None, Extent::UntilAlarm);
    let h = loop {
        let t0 = Instant::now();
        let open: Vec<usize> = (0..props.len()).filter(|&k| decided[k].is_none()).collect();
        let mut scratch = ErrorScratch::default();
        let mut has_error = |exp: &Explorer, g: u32, p: &Product| {
            open.iter()
                .any(|&k| error_in(exp, g, p, &deciders[k], &mut scratch).is_some())
        };
        let mut h = Hybrid::round(
            prev.take(),
            &mut exp,
            &universe,
            &precise,
            &budget,
            &mut has_error,
            extent,
        );
        clock.fixpoint += t0.elapsed();
        posts += h.posts;
        budget.spend(h.posts as usize);
        carried += (h.carried.cart + h.carried.products) as u64;
        if h.stopped.is_some() {
            break h;
        }
        // Stores to make precise: the Cartesian alarms', and the taints of
        // the precise part's alarms.
        let (mut cart_alarms, mut taints) = (BTreeSet::new(), BTreeSet::new());
        let mut stopped = None;
        for k in 0..names.len() {
            if decided[k].is_some() {
                continue;
            }
            let alarm = if k < props.len() {
                decide(&exp, &h, &deciders[k], &budget)
            } else {
                model_error_alarm(&exp, &h)
            };
            match alarm {
                // Only a complete fixpoint is an invariant.
                Alarm::None if h.partial => {}
                Alarm::None => {
                    decided[k] = Some(proved(&names[k], refinements, &h, precise.len()));
                }
                Alarm::Exact => {
                    let goal = match k < props.len() {
                        true => Goal::Error(&prog.properties[props[k]].error),
                        false => Goal::ModelError,
                    };
                    let t0 = Instant::now();
                    let found = search::search(&mut exp, &h, goal, &budget);
                    clock.search += t0.elapsed();
                    decided[k] = Some(real_error(&names[k], found, refinements, budget.hit()));
                }
                Alarm::Spurious {
                    cartesian,
                    tainted,
                    witness,
                } => {
                    cart_alarms.extend(cartesian);
                    taints.extend(tainted);
                    last_witness[k] = Some(witness);
                }
                Alarm::Stopped(why) => {
                    stopped = Some(why);
                    break;
                }
            }
        }
        if let Some(why) = stopped {
            h.stopped = Some(format!(
                "{why} ({posts} posts, while deciding the properties on the fixpoint)"
            ));
            break h;
        }
        let grow = choose(&h, cart_alarms, taints, &precise, refinements);
        if decided.iter().all(Option::is_some) {
            break h;
        }
        if grow.is_empty() {
            // A round stopped at alarms that are no longer open (a real
            // error was found meanwhile): finish it with the same P.
            if h.partial && extent == Extent::UntilAlarm {
                extent = Extent::Complete;
                prev = Some(h);
                continue;
            }
            break h;
        }
        precise.extend(grow);
        refinements += 1;
        prev = Some(h);
        extent = Extent::UntilAlarm;
    };
    let why = h.stopped.clone().unwrap_or_else(|| {
        "internal error: refinement found no store to make precise; please report this model".into()
    });
    // A budget, or (no budget stopped the last round) an internal error.
    let next = next::refine_stopped(h.stopped.as_ref().and(budget.hit()), Refinement::Exceptions);
    let outcomes = decided
        .into_iter()
        .zip(last_witness)
        .zip(&names)
        .map(|((d, w), name)| {
            d.unwrap_or_else(|| {
                let reason = format!(
                    "{why} after {} ({}); no real error found so far",
                    crate::words::count(refinements, "refinement"),
                    crate::words::count(precise.len(), "precise global store")
                );
                Outcome::unknown(name, reason, next.clone()).with_witness(w)
            })
        })
        .collect();
    let mut stats = Stats::default();
    stats.push("states", h.cartesian_size() as u64);
    stats.push("exception_products", h.precise_size() as u64);
    stats.push("precise_globals", precise.len() as u64);
    stats.push("refinements", refinements);
    stats.push("transitions", posts);
    stats.push("carried", carried);
    stats.push("fixpoint_s", round6(clock.fixpoint));
    stats.push("search_s", round6(clock.search));
    if let Some(first_pass) = first_pass {
        stats.push("first_pass_s", round6(first_pass));
    }
    let exceptions = exception_set(&exp, &h);
    let invariant = opts.show_invariant.then(|| {
        let guard = RenderGuard::new(opts);
        guard.finish(
            Invariant {
                form: InvariantForm::Cartesian {
                    products: cartesian_products(&exp, &h, &guard),
                    exceptions: exceptions
                        .products()
                        .take_while(|_| guard.go_on())
                        .collect(),
                },
                globals: prog.globals.clone(),
                blocks: false,
            },
            true,
        )
    });
    let coverage = opts
        .show_coverage
        .then(|| coverage::with_exceptions(prog, &mut exp, (&universe, &precise), &budget))
        .flatten();
    // After the rendering and the coverage round, so that they count.
    stats.finish(start.elapsed());
    crate::engine::dispose::dispose((h, exp));
    Ok(RunReport {
        coverage,
        blocks: None,
        model: prog.name.clone(),
        mode: Mode::Refine,
        outcomes,
        stats,
        invariant,
        exceptions: Some(exceptions),
    })
}

fn round6(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e6
}

/// `error_in`'s buffers, kept by a caller that asks for many products:
/// the candidate lists (a product of 2000 threads made 2000 lists per call,
/// and allocating them was 40% of simple-bool(2000)'s time) and the
/// witness search's.
#[derive(Default)]
struct ErrorScratch {
    lists: Vec<Vec<u32>>,
    witness: WitnessScratch,
}

/// An error state of `decider` in `{g} × product`: one local store per
/// thread. An evaluation error counts as an error state (refine, never
/// prove); an empty product has none.
fn error_in(
    exp: &Explorer,
    g: u32,
    product: &Product,
    decider: &Decider,
    scratch: &mut ErrorScratch,
) -> Option<Vec<u32>> {
    let ErrorScratch { lists, witness } = scratch;
    lists.resize_with(product.len(), Vec::new);
    for (list, component) in lists.iter_mut().zip(product) {
        list.clear();
        list.extend(component.iter());
        if list.is_empty() {
            return None;
        }
    }
    let refs: Vec<&[u32]> = lists.iter().map(Vec::as_slice).collect();
    decider
        .witness_with(exp, g, &refs, witness)
        .unwrap_or_else(|_| Some(refs.iter().map(|c| c[0]).collect()))
}

/// Decides one property on the fixpoint: exact alarms first, otherwise
/// every spurious alarm's stores (refining them all at once saves rounds).
/// `budget`: time and memory, read every 16 products (simple-bool(2000):
/// 3 s to decide four properties on 8000 products of 2000 threads).
pub(crate) fn decide(exp: &Explorer, h: &Hybrid, decider: &Decider, budget: &Budget) -> Alarm {
    let (mut tainted, mut cartesian) = (BTreeSet::new(), BTreeSet::new());
    let mut witness = None;
    let mut scratch = ErrorScratch::default();
    let mut gs: Vec<u32> = h.disj.keys().copied().collect();
    gs.sort_unstable();
    let mut seen = 0u32;
    let mut out_of_budget = || {
        seen = seen.wrapping_add(1);
        seen.is_multiple_of(16)
            .then(|| budget.time_or_memory_exceeded())
            .flatten()
    };
    for g in gs {
        for t in h.precise_products(g) {
            if let Some(why) = out_of_budget() {
                return Alarm::Stopped(why);
            }
            if let Some(choice) = error_in(exp, g, &t.product, decider, &mut scratch) {
                if t.taint.is_empty() {
                    return Alarm::Exact;
                }
                tainted.extend(t.taint.iter().copied());
                witness.get_or_insert_with(|| abstract_report::plain_witness(exp, g, &choice));
            }
        }
    }
    let mut gs: Vec<u32> = h.cart.keys().copied().collect();
    gs.sort_unstable();
    for g in gs {
        if let Some(why) = out_of_budget() {
            return Alarm::Stopped(why);
        }
        if let Some(choice) = error_in(exp, g, &h.cart[&g], decider, &mut scratch) {
            cartesian.insert(g);
            witness.get_or_insert_with(|| abstract_report::plain_witness(exp, g, &choice));
        }
    }
    match witness {
        None => Alarm::None,
        Some(witness) => Alarm::Spurious {
            cartesian,
            tainted,
            witness,
        },
    }
}

/// The model-errors decision: as `decide`, on the steps that failed.
fn model_error_alarm(exp: &Explorer, h: &Hybrid) -> Alarm {
    if h.model_errors.iter().any(|e| e.taint.is_empty()) {
        return Alarm::Exact;
    }
    let Some(first) = h.model_errors.first() else {
        return Alarm::None;
    };
    let prog = exp.prog;
    let witness = Witness {
        globals: prog.globals.render(exp.globals.get(first.g)),
        threads: vec![WitnessThread {
            thread: prog.threads[first.thread].name.clone(),
            local: prog
                .template_of(first.thread)
                .render_local(exp.local(first.thread, first.l)),
            derivation: Vec::new(),
        }],
    };
    let tainted = h
        .model_errors
        .iter()
        .flat_map(|e| e.taint.iter().copied())
        .collect();
    Alarm::Spurious {
        cartesian: BTreeSet::new(),
        tainted,
        witness,
    }
}

/// The stores to make precise this round. A Cartesian alarm at a store is
/// often only the echo of one at another store (a glued state released
/// there), and making an echo precise can cost exponentially many products
/// (lock(n, m): the free lock's store), so the Cartesian alarms are refined
/// in the order their errors appeared (over the rounds: an alarm carried
/// from an earlier round counts as met then), the earliest first: one
/// store per round at first, twice as many every `DOUBLING`
/// rounds, so that models needing many precise stores need few rounds.
/// Without Cartesian alarms: every taint of the precise part's alarms.
fn choose(
    h: &Hybrid,
    cartesian: BTreeSet<u32>,
    tainted: BTreeSet<u32>,
    precise: &FxHashSet<u32>,
    round: u64,
) -> BTreeSet<u32> {
    let mut alarms: Vec<u32> = cartesian
        .into_iter()
        .filter(|g| !precise.contains(g))
        .collect();
    if alarms.is_empty() {
        return tainted
            .into_iter()
            .filter(|g| !precise.contains(g))
            .collect();
    }
    alarms.sort_by_key(|g| (h.first_alarm.get(g).copied().unwrap_or(u64::MAX), *g));
    let k = 1usize << (round / DOUBLING).min(20);
    alarms.into_iter().take(k).collect()
}

/// Rounds between doublings of the stores refined per round.
const DOUBLING: u64 = 4;

fn proved(name: &str, refinements: u64, h: &Hybrid, precise: usize) -> Outcome {
    let reason = if name == MODEL_ERRORS {
        format!(
            "proved after {}: no run-time error in the over-approximation",
            crate::words::count(refinements, "refinement")
        )
    } else {
        format!(
            "proved after {}: no error state in the invariant (Cartesian at {}, exact at {precise} with {})",
            crate::words::count(refinements, "refinement"),
            crate::words::count(h.cart.len(), "global store"),
            crate::words::count(h.precise_size(), "exception product")
        )
    };
    Outcome::safe(name, reason)
}

/// `unsafe` with the trace of a real error, found after `refinements`.
fn unsafe_outcome(name: &str, trace: Trace, refinements: u64) -> Outcome {
    let reason = match &trace.failure {
        Some(msg) => {
            format!(
                "a run-time error is reachable: {msg} (found after {})",
                crate::words::count(refinements, "refinement")
            )
        }
        None => format!(
            "an error state is reachable in {} (found after {})",
            crate::words::count(trace.steps.len(), "step"),
            crate::words::count(refinements, "refinement")
        ),
    };
    Outcome::violated(name, reason, trace)
}

/// The outcome of an exact alarm: the trace the concrete search found, or
/// why it found none (`limit`: the budget that stopped it, if one did).
fn real_error(name: &str, found: Found, refinements: u64, limit: Option<Limit>) -> Outcome {
    let standard = [Suggestion::Mode(Mode::Standard)];
    match found {
        Found::Trace(t) => unsafe_outcome(name, *t, refinements),
        Found::Stopped(why) => Outcome::unknown(
            name,
            format!(
                "{why} while searching for the trace of an error that the refined abstraction shows reachable"
            ),
            next::stopped(limit, &standard),
        ),
        Found::Unevaluable(why) => unevaluable(name, &why),
        Found::Nothing => Outcome::unknown(
            name,
            "internal error: an exact alarm whose trace was not found; please report this model",
            next::stopped(None, &standard),
        ),
    }
}

/// A property that fails to evaluate where a real run leads (the exact
/// search found the state; control refinement's replayed paths reached the
/// abstract state holding it): there it is not violated (standard's
/// semantics: the failing evaluation is a model error), and refine, which
/// counts a failing evaluation as an alarm so as never to prove it, cannot
/// decide it.
pub(super) fn unevaluable(name: &str, why: &str) -> Outcome {
    Outcome::unknown(
        name,
        crate::engine::abstract_report::unevaluable_reason(
            name,
            why,
            "a state that refinement cannot tell from a reachable one",
        ),
        next::unevaluable(),
    )
}

/// X, one product per store outside P, ordered by the store's values.
fn cartesian_products(exp: &Explorer, h: &Hybrid, guard: &RenderGuard) -> Vec<AbstractProduct> {
    let mut gs: Vec<u32> = h.cart.keys().copied().collect();
    gs.sort_by(|a, b| exp.globals.get(*a).cmp(exp.globals.get(*b)));
    gs.iter()
        .take_while(|_| guard.go_on())
        .map(|&g| abstract_product(exp, g, &h.cart[&g]))
        .collect()
}

/// E: the products at the precise stores, ordered by the store's values.
fn exception_set(exp: &Explorer, h: &Hybrid) -> RefinedExceptions {
    let mut gs: Vec<u32> = h.disj.keys().copied().collect();
    gs.sort_by(|a, b| exp.globals.get(*a).cmp(exp.globals.get(*b)));
    super::cartesian::refined_exceptions(
        exp,
        gs.iter()
            .flat_map(|&g| h.precise_products(g).map(move |t| (g, &t.product))),
    )
}
