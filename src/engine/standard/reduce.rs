//! `--por`: which threads each state of a BFS level is expanded by, decided
//! before the level is expanded (`engine/por.rs` chooses the persistent
//! set; this module applies the cycle proviso and hands the decision to
//! the workers).
//!
//! The proviso (C3 for a breadth-first search): a state is fully expanded
//! when one of its reduced successors is already stored, that is, lies at a
//! depth no greater than its own. Every cycle of the reduced graph has an
//! edge u → v with depth(v) ≤ depth(u) (depths rise by at most one along an
//! edge, so they cannot rise all the way round), and the source of that edge
//! is fully expanded: either the edge was one of its reduced successors, and
//! the proviso fired, or the state was fully expanded already. So every
//! cycle holds a fully expanded state, no transition is ignored for ever,
//! and the reduction preserves the reachability of error states and
//! deadlocks (Clarke, Grumberg and Peled, ch. 10; Bošnački, Leue and Lluch
//! Lafuente on provisos for breadth-first search).
//!
//! The decision is made on the coordinating thread, while the store holds
//! exactly the levels up to the current one: it does not depend on the
//! order in which the workers later insert the next level, so counts and
//! verdicts are the same for every number of jobs. It also computes (and
//! memoises) every thread's successors, so the workers rarely defer one.

use super::super::Budget;
use super::super::por::{Reducer, ThreadAt};
use super::Search;
use crate::engine::store::Level;
use crate::program::Succs;
use std::sync::Arc;

/// The threads each state of a level is expanded by.
pub(super) struct Decisions {
    threads: usize,
    /// One bit per (state, thread).
    bits: Vec<u64>,
    /// States expanded by fewer threads than could move.
    pub(super) reduced: u64,
}

impl Decisions {
    #[inline]
    pub(super) fn expands(&self, state: usize, thread: usize) -> bool {
        let i = state * self.threads + thread;
        self.bits[i / 64] & (1 << (i % 64)) != 0
    }

    fn set(&mut self, state: usize, thread: usize) {
        let i = state * self.threads + thread;
        self.bits[i / 64] |= 1 << (i % 64);
    }
}

impl Search<'_> {
    /// Decides the threads every state of `level` is expanded by. `None`
    /// when a budget stopped it.
    pub(super) fn decide(
        &mut self,
        reducer: &Reducer,
        level: &Level,
        budget: &Budget,
    ) -> Option<Decisions> {
        let prog = self.exp.prog;
        let n = prog.threads.len();
        let mut d = Decisions {
            threads: n,
            bits: vec![0; (level.len() * n).div_ceil(64)],
            reduced: 0,
        };
        let mut state = Vec::new();
        let mut next = Vec::new();
        let mut packed = Vec::new();
        let mut succs: Vec<Arc<Succs>> = Vec::with_capacity(n);
        for i in 0..level.len() {
            if self.poll_due(i, budget) {
                return None;
            }
            self.visited.packer.unpack(level.packed(i), &mut state);
            let g = state[0];
            succs.clear();
            for t in 0..n {
                succs.push(self.exp.successors(t, g, state[1 + t]));
            }
            let chosen = if succs.iter().any(|s| s.error.is_some()) {
                None // a model error here: the full expansion reports it
            } else {
                let gs = self.exp.globals.get(g);
                let threads: Vec<ThreadAt> = (0..n)
                    .map(|t| {
                        let l = self.exp.local(t, state[1 + t]);
                        ThreadAt {
                            pc: l[0] as u16,
                            succs: &succs[t],
                            g: gs,
                            l,
                        }
                    })
                    .collect();
                reducer.choose(prog, &threads)
            };
            let chosen = chosen
                .filter(|set| !self.reaches_stored(set, &succs, &state, &mut next, &mut packed));
            match chosen {
                Some(set) => {
                    d.reduced += 1;
                    for t in (0..n).filter(|&t| set[t]) {
                        d.set(i, t);
                    }
                }
                None => (0..n).for_each(|t| d.set(i, t)),
            }
        }
        Some(d)
    }

    /// The proviso: does a successor by the threads of `set` (one thread's
    /// step, or a rendezvous of two) lie in the store already?
    fn reaches_stored(
        &mut self,
        set: &[bool],
        succs: &[Arc<Succs>],
        state: &[u32],
        next: &mut Vec<u32>,
        packed: &mut Vec<u64>,
    ) -> bool {
        for (t, s) in succs.iter().enumerate().filter(|(t, _)| set[*t]) {
            for step in &s.steps {
                next.clear();
                next.extend_from_slice(state);
                next[0] = step.g;
                next[1 + t] = step.l;
                if self.is_stored(next, packed) {
                    return true;
                }
            }
        }
        if self.exp.prog.channels.is_empty() {
            return false;
        }
        let (steps, _) = self.exp.sync_steps(state[0], &state[1..]);
        for st in steps {
            if !(set[st.sender] && set[st.receiver]) {
                continue;
            }
            next.clear();
            next.extend_from_slice(state);
            next[0] = st.g;
            next[1 + st.sender] = st.l_send;
            next[1 + st.receiver] = st.l_recv;
            if self.is_stored(next, packed) {
                return true;
            }
        }
        false
    }

    fn is_stored(&self, state: &[u32], packed: &mut Vec<u64>) -> bool {
        self.visited.packer.pack(state, packed);
        self.visited.find(packed).is_some()
    }
}
