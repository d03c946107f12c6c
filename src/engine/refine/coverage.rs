//! `--show coverage` under refine: the transitions taken by one more
//! round, complete and from scratch, with the abstraction the loop ended
//! with (its precise global stores, or its partition of the locations).
//! Such a round holds every reachable state (Malkis, Podelski and
//! Rybalchenko §5 for the exception sets; the control abstraction as
//! thread-modular) and fires every step from them, so a transition it
//! never takes is taken in no reachable state. The loop's own rounds are
//! no use for this: the early ones are coarse and take what the final one
//! shows unreachable (the alarms refined away), later ones start from the
//! previous fixpoint without firing its steps again, and the successor
//! memo fires each step once for all rounds. The round runs only when the
//! flag asks, under what is left of the budget; stopped, its list is
//! partial.

use super::control::fixpoint::ControlFixpoint;
use super::control::partition::Partition;
use super::hybrid::{Extent, Hybrid};
use crate::engine::Budget;
use crate::engine::result::{Coverage, CoverageBasis};
use crate::program::{Explorer, Program};
use rustc_hash::FxHashSet;

fn basis(complete: bool) -> CoverageBasis {
    match complete {
        true => CoverageBasis::OverApproximation,
        false => CoverageBasis::Partial,
    }
}

/// Strategy `exceptions`: a complete round with the `precise` stores.
pub(super) fn with_exceptions(
    prog: &Program,
    exp: &mut Explorer,
    (universe, precise): (&[usize], &FxHashSet<u32>),
    budget: &Budget,
) -> Option<Coverage> {
    exp.restart_taken();
    let mut no_alarm = |_: &Explorer, _: u32, _: &_| false;
    let h = Hybrid::round(
        None,
        exp,
        universe,
        precise,
        budget,
        &mut no_alarm,
        Extent::Complete,
    );
    let complete = h.stopped.is_none() && !h.partial;
    exp.taken()
        .map(|taken| Coverage::of(prog, taken, basis(complete)))
}

/// Strategy `control`: the fixpoint of the final partition.
pub(super) fn with_control(
    prog: &Program,
    exp: &mut Explorer,
    part: &Partition,
    budget: &Budget,
) -> Option<Coverage> {
    exp.restart_taken();
    let fx = ControlFixpoint::compute(exp, part, budget);
    exp.taken()
        .map(|taken| Coverage::of(prog, taken, basis(fx.stopped.is_none())))
}
