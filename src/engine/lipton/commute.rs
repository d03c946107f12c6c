//! The semantic commutation check (Popeea, Rybalchenko and Wilhelm, §V-A:
//! the mover rules are syntactic, "where the syntactic rule is too coarse"
//! the issue asks for this check; Lipton's movers by their definition).
//!
//! Two transitions of different threads that race syntactically (a common
//! global, one writing) may still commute: two increments of one counter,
//! two writes of one value, a write that a guard of the other cannot see.
//! What matters is the states where both can be taken, and those are
//! over-approximated by a thread-modular pre-pass (Flanagan and Qadeer:
//! `thread_modular/`): every reachable state projects to a pair (g, l_i),
//! (g, l_j) of its R with one global store. On every such pair at the two
//! sources, the check fires τ then σ and σ then τ: both orders must give
//! the same set of outcomes (global store and both locals: one disables
//! the other only if it does in both orders), and a run-time error in
//! either order fails the check. A rendezvous (a step of two threads) and
//! a transition that reads other threads' stores are never lifted
//! (`movers.rs`). Then τ;σ = σ;τ on every reachable
//! state, which is what the race rule in `movers.rs` would otherwise deny.
//!
//! The pre-pass runs only when some race is in question, under a state cap
//! (`PRE_PASS_STATES`, so the inference is deterministic); if R is not
//! complete within it, or a pair takes more than `PAIR_CHECKS` firings,
//! the race stands (the syntactic answer, sound).

use crate::engine::abstract_report::AbstractFixpoint;
use crate::engine::thread_modular::ThreadModular;
use crate::engine::{Budget, CheckOptions};
use crate::program::fire::fire_one;
use crate::program::{Program, Val};
use rustc_hash::{FxHashMap, FxHashSet};

/// Thread states the pre-pass may reach before it is given up.
const PRE_PASS_STATES: usize = 200_000;
/// Pairs of thread states examined per pair of transitions of two threads,
/// at most.
const PAIR_CHECKS: usize = 200_000;

/// The pre-pass's R per thread, by global store: the local stores.
pub(super) struct Reach {
    by_global: Vec<FxHashMap<Vec<Val>, Vec<Vec<Val>>>>,
}

/// An outcome of two steps: the global store and the two local stores.
type Outcome = (Vec<Val>, Vec<Val>, Vec<Val>);

impl Reach {
    /// Runs the thread-modular pre-pass; `None` when it does not finish
    /// within its cap.
    pub(super) fn compute(prog: &Program) -> Option<Reach> {
        let opts = CheckOptions {
            max_states: Some(PRE_PASS_STATES),
            ..CheckOptions::default()
        };
        let tm = ThreadModular::compute_within(prog, &Budget::new(&opts), None);
        if tm.stopped().is_some() {
            return None;
        }
        let by_global = (0..prog.threads.len())
            .map(|t| {
                let mut m: FxHashMap<Vec<Val>, Vec<Vec<Val>>> = FxHashMap::default();
                for (g, l) in tm.reach_values(t) {
                    m.entry(g).or_default().push(l);
                }
                m
            })
            .collect();
        Some(Reach { by_global })
    }

    /// Do transition `a` of thread `t` and transition `b` of thread `u`
    /// (t ≠ u) commute on every pair of thread states of R at their
    /// sources?
    pub(super) fn commute(
        &self,
        prog: &Program,
        (t, a): (usize, u32),
        (u, b): (usize, u32),
    ) -> bool {
        let from = |thread: usize, tr: u32| {
            let tpl = prog.template_of(thread);
            tpl.transitions[tr as usize].from.clone()
        };
        let (from_a, from_b) = (from(t, a), from(u, b));
        let at = |l: &Vec<Val>, from: &[u16]| from.iter().any(|&f| l[0] == f as Val);
        let mut checks = 0usize;
        for (g, ls) in &self.by_global[t] {
            let Some(ms) = self.by_global[u].get(g) else {
                continue;
            };
            for l in ls.iter().filter(|l| at(l, &from_a)) {
                for m in ms.iter().filter(|m| at(m, &from_b)) {
                    checks += 1;
                    if checks > PAIR_CHECKS {
                        return false;
                    }
                    let ab = both_orders(prog, (t, a, l), (u, b, m), g);
                    let ba = both_orders(prog, (u, b, m), (t, a, l), g)
                        .map(|s| s.into_iter().map(|(g2, y, x)| (g2, x, y)).collect());
                    match (ab, ba) {
                        (Some(x), Some(y)) if x == y => {}
                        _ => return false,
                    }
                }
            }
        }
        true
    }
}

/// Every outcome of `first` then `second` from `g` (their threads' locals
/// `l`, `m`), as (globals, first's local, second's local); `None` on a
/// run-time error.
fn both_orders(
    prog: &Program,
    (t, a, l): (usize, u32, &Vec<Val>),
    (u, b, m): (usize, u32, &Vec<Val>),
    g: &[Val],
) -> Option<FxHashSet<Outcome>> {
    let mut out = FxHashSet::default();
    for (g1, l1) in fire_one(prog, t, a, g, l).ok()? {
        for (g2, m1) in fire_one(prog, u, b, &g1, m).ok()? {
            out.insert((g2, l1.clone(), m1));
        }
    }
    Some(out)
}
