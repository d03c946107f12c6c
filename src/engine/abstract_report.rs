//! The tail both abstract engines share: decide every selected property on
//! the products of the fixpoint (γ of the abstract state, Flanagan–Qadeer
//! §2; γ_E(γ_cart X) for Malkis–Podelski–Rybalchenko, Def. 5), turn the
//! first product that holds an error state into an alarm with its witness,
//! add the `model-errors` outcome, the statistics and, on request, the
//! invariant. An abstract mode never says `unsafe`.

use super::error::CheckError;
use super::result::{
    Coverage, CoverageBasis, Invariant, Limit, Outcome, RunReport, Stats, Witness, WitnessThread,
};
use super::{
    CheckOptions, Mode, abstract_model_error_outcome, deciders, next, selected_properties,
};
use crate::engine::render_guard::RenderGuard;
use crate::program::{EvalError, Explorer, Program};
use crate::property::Decider;
use std::time::Instant;

/// Decides a property on one product: the global store and, per thread,
/// the candidate local stores; `Some(choice)` picks an error state.
pub(crate) type Decide<'a> = dyn FnMut(u32, &[&[u32]]) -> Result<Option<Vec<u32>>, EvalError> + 'a;

/// An error state found in a fixpoint: the global store, one local store
/// per thread, and which part of the fixpoint held it.
pub(crate) type Found = Option<(u32, Vec<u32>, &'static str)>;

/// A computed abstract fixpoint, as the shared tail sees it.
pub(crate) trait AbstractFixpoint<'p> {
    /// The mode that computed it.
    const MODE: Mode;
    /// The explorer whose ids the fixpoint uses.
    fn explorer(&self) -> &Explorer<'p>;
    /// Calls `decide` on each product (global store, candidate local stores
    /// per thread) until it finds an error state; returns the global store,
    /// the thread-by-thread choice, and which part of the fixpoint held it.
    fn find_error(&self, decide: &mut Decide) -> Result<Found, EvalError>;
    /// Why the computation stopped early (a budget), if it did.
    fn stopped(&self) -> Option<&str>;
    /// The budget that stopped it, if a budget did (an internal error
    /// stops it with none).
    fn limit(&self) -> Option<Limit>;
    /// The witness of an alarm at `g` with one local store per thread.
    fn witness(&self, g: u32, choice: &[u32]) -> Witness;
    /// The reason of an alarm found in `part`.
    fn alarm_reason(&self, part: &str) -> String;
    /// The reason of a property not violated in a partial fixpoint.
    fn unfinished_reason(&self, why: &str) -> String;
    /// The reason of a proved property.
    fn proved_reason(&self) -> String;
    /// A run-time model error met while computing: its message and where.
    fn model_error(&self) -> Option<(&str, Witness)>;
    /// The engine's own statistics (time and memory are added here).
    fn stats(&self) -> Stats;
    /// The fixpoint as data.
    fn invariant(&self, guard: &RenderGuard) -> Invariant;
}

/// The selected properties and their decision procedures, built before
/// the fixpoint so that a refusal costs nothing.
pub(crate) fn prepare(
    prog: &Program,
    opts: &CheckOptions,
    mode: Mode,
) -> Result<(Vec<usize>, Vec<Decider>), CheckError> {
    let props = selected_properties(prog, &opts.properties);
    let deciders = deciders(prog, &props, mode)?;
    Ok((props, deciders))
}

/// Decides the selected properties on `fx` and assembles the report.
pub(crate) fn report<'p, F: AbstractFixpoint<'p>>(
    prog: &Program,
    fx: &F,
    (props, deciders): (Vec<usize>, Vec<Decider>),
    opts: &CheckOptions,
    start: Instant,
) -> Result<RunReport, CheckError> {
    let mut outcomes = Vec::new();
    let alarm_next = next::alarm(prog, F::MODE);
    let stop_next = fx.stopped().map(|_| next::stopped(fx.limit(), &[]));
    for (k, &p) in props.iter().enumerate() {
        let property = prog.properties[p].name.clone();
        let found = match fx
            .find_error(&mut |g, cands| deciders[k].witness(fx.explorer(), g, cands))
        {
            Ok(found) => found,
            // Not an error of the property there (standard's semantics) but
            // a model error, which these modes do not track: undecided.
            Err(e) => {
                let why = unevaluable_reason(&property, &e.0, "a state of the over-approximation");
                outcomes.push(Outcome::unknown(property, why, next::unevaluable()));
                continue;
            }
        };
        outcomes.push(match (found, fx.stopped(), &stop_next) {
            (Some((g, choice, part)), _, _) => {
                Outcome::unknown(property, fx.alarm_reason(part), alarm_next.clone())
                    .with_witness(Some(fx.witness(g, &choice)))
            }
            (None, Some(why), Some(next)) => {
                Outcome::unknown(property, fx.unfinished_reason(why), next.clone())
            }
            (None, _, _) => Outcome::safe(property, fx.proved_reason()),
        });
    }
    outcomes.push(abstract_model_error_outcome(
        fx.stopped().zip(stop_next),
        fx.model_error(),
        alarm_next,
    ));
    let invariant = opts.show_invariant.then(|| {
        let guard = RenderGuard::new(opts);
        guard.finish(fx.invariant(&guard), false)
    });
    // A complete fixpoint holds every reachable state, and every step from
    // them was fired (under --blocks, from the Out states only).
    let basis = match fx.stopped() {
        None if fx.explorer().blocks().is_none() => CoverageBasis::OverApproximation,
        _ => CoverageBasis::Partial,
    };
    let coverage = opts
        .show_coverage
        .then(|| fx.explorer().taken())
        .flatten()
        .map(|taken| Coverage::of(prog, taken, basis));
    let mut stats = fx.stats();
    // After the rendering, so that its peak memory counts.
    stats.finish(start.elapsed());
    Ok(RunReport {
        coverage,
        blocks: None,
        model: prog.name.clone(),
        mode: F::MODE,
        outcomes,
        stats,
        invariant,
        exceptions: None,
    })
}

/// Why a property that fails to evaluate (`why`) in `place` is `unknown`
/// in an abstract mode (refine's too): there it is not violated, as
/// `standard` decides it, but the failure is a model error.
pub(crate) fn unevaluable_reason(property: &str, why: &str, place: &str) -> String {
    format!(
        "`{property}` fails to evaluate ({why}) in {place}; a failing evaluation is a model error, which `standard` reports while it decides the property"
    )
}

/// The witness `{g} × choice` without derivations (cartesian-exc and
/// refine keep no per-fact provenance).
pub(crate) fn plain_witness(exp: &Explorer, g: u32, choice: &[u32]) -> Witness {
    let prog = exp.prog;
    Witness {
        globals: prog.globals.render(exp.globals.get(g)),
        threads: choice
            .iter()
            .enumerate()
            .map(|(t, &l)| WitnessThread {
                thread: prog.threads[t].name.clone(),
                local: prog.template_of(t).render_local(exp.local(t, l)),
                derivation: Vec::new(),
            })
            .collect(),
    }
}
