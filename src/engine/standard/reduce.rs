//! `--por`: which threads each state of a BFS level is expanded by, decided
//! before the level is expanded (`engine/por/` chooses the persistent
//! set; this module applies the cycle proviso and hands the decision to
//! the workers).
//!
//! The proviso (C3 for a breadth-first search). Order the states as the
//! search decides them: by depth, then by place in their level. A state u
//! may be reduced only if each of its reduced successors v comes after it
//! (v is new, so in the next level, or later in u's level), or comes before
//! it and was itself fully expanded; otherwise the next candidate set is
//! tried, and u is fully expanded when none passes. Every cycle of the
//! reduced graph has an edge u → v with v not after u (the order cannot
//! rise all the way round); at that edge v was fully expanded, or u was
//! (else the proviso would have refused the set). So every cycle holds a
//! fully expanded state, no transition is ignored for ever, and the
//! reduction preserves the reachability of error states and deadlocks
//! (Clarke, Grumberg and Peled, ch. 10; Bošnački, Leue and Lluch Lafuente
//! on provisos for breadth-first search). The first version fully expanded
//! u whenever v was stored; a fully expanded v already breaks the cycle,
//! and BEEM's deadlock-free runs store fewer states for knowing it
//! (docs/performance.md, "Partial-order reduction").
//!
//! The decision is made on the coordinating thread, while the store holds
//! exactly the levels up to the current one. The proviso is sound for any
//! order of a level; the one used is that of the states' packed words,
//! not the store's (`take_level`: shard by shard, in insertion order,
//! which races between workers), so that a level holds the same states
//! and gets the same decisions for any number of jobs, and the reduced
//! counts are the same every run. The decision also computes (and
//! memoises) every thread's successors, so the workers rarely defer one.

use super::super::Budget;
use super::super::por::{Reducer, ThreadAt};
use super::Search;
use crate::engine::store::Level;
use crate::program::Succs;
use crate::program::rendezvous::SyncStep;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// A state and its successors: each thread's steps, and the rendezvous.
struct Successors<'a> {
    succs: &'a [Arc<Succs>],
    sync: &'a [SyncStep],
    state: &'a [u32],
}

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
        let mut packed = Vec::new();
        let mut succs: Vec<Arc<Succs>> = Vec::with_capacity(n);
        // The level's states in the order they are decided in, that of
        // their packed words: the store's order races between workers,
        // and the decisions would with it.
        let mut keys: Vec<(Vec<u64>, u32)> = (0..level.len())
            .map(|i| {
                self.visited.packer.unpack(level.packed(i), &mut state);
                self.visited.packer.pack(&state, &mut packed);
                (packed.clone(), i as u32)
            })
            .collect();
        keys.sort_unstable();
        let order: Vec<usize> = keys.iter().map(|&(_, i)| i as usize).collect();
        // Each state's place in that order, for the proviso.
        let place: FxHashMap<Vec<u64>, u32> = keys
            .into_iter()
            .enumerate()
            .map(|(rank, (key, _))| (key, rank as u32))
            .collect();
        for (rank, &i) in order.iter().enumerate() {
            if self.poll_due(rank, budget) {
                return None;
            }
            self.visited.packer.unpack(level.packed(i), &mut state);
            let g = state[0];
            succs.clear();
            for t in 0..n {
                succs.push(self.exp.successors(t, g, state[1 + t]));
            }
            // A model error here: the full expansion reports it.
            let chosen = if succs.iter().any(|s| s.error.is_some()) {
                None
            } else {
                let sync = match prog.channels.is_empty() {
                    true => Vec::new(),
                    false => self.exp.sync_steps(g, &state[1..]).0,
                };
                let gs = self.exp.globals.get(g);
                let mut pairs = vec![0u32; n];
                for st in &sync {
                    pairs[st.sender] += 1;
                    pairs[st.receiver] += 1;
                }
                let threads: Vec<ThreadAt> = (0..n)
                    .map(|t| {
                        let l = self.exp.local(t, state[1 + t]);
                        ThreadAt {
                            pc: l[0] as u16,
                            succs: &succs[t],
                            pairs: pairs[t],
                            g: gs,
                            l,
                        }
                    })
                    .collect();
                let mut scratch = (Vec::new(), Vec::new());
                let passes = |set: &[bool]| {
                    let succ = Successors {
                        succs: &succs,
                        sync: &sync,
                        state: &state,
                    };
                    !self.may_close_cycle(set, &succ, (rank, &place), &mut scratch)
                };
                reducer.choose(prog, &threads, passes)
            };
            match chosen {
                Some(set) => {
                    d.reduced += 1;
                    self.visited.packer.pack(&state, &mut packed);
                    self.reduced_keys.insert(packed.as_slice().into());
                    for t in (0..n).filter(|&t| set[t]) {
                        d.set(i, t);
                    }
                }
                None => (0..n).for_each(|t| d.set(i, t)),
            }
        }
        Some(d)
    }

    /// The proviso: may a successor by the threads of `set` (one thread's
    /// step, or a rendezvous of two) close a cycle of reduced states? See
    /// `is_earlier_reduced`.
    fn may_close_cycle(
        &self,
        set: &[bool],
        from: &Successors,
        here: (usize, &FxHashMap<Vec<u64>, u32>),
        (next, packed): &mut (Vec<u32>, Vec<u64>),
    ) -> bool {
        for (t, s) in from.succs.iter().enumerate().filter(|(t, _)| set[*t]) {
            for step in &s.steps {
                next.clear();
                next.extend_from_slice(from.state);
                next[0] = step.g;
                next[1 + t] = step.l;
                if self.is_earlier_reduced(next, here, packed) {
                    return true;
                }
            }
        }
        for st in from.sync {
            if !(set[st.sender] && set[st.receiver]) {
                continue;
            }
            next.clear();
            next.extend_from_slice(from.state);
            next[0] = st.g;
            next[1 + st.sender] = st.l_send;
            next[1 + st.receiver] = st.l_recv;
            if self.is_earlier_reduced(next, here, packed) {
                return true;
            }
        }
        false
    }

    /// Is `state` stored before the state at `here` (in an earlier level,
    /// or earlier in this one: `place` ranks the level's states in the
    /// order they are decided), or is it that state itself, and was it not
    /// fully expanded?
    fn is_earlier_reduced(
        &self,
        state: &[u32],
        (i, place): (usize, &FxHashMap<Vec<u64>, u32>),
        packed: &mut Vec<u64>,
    ) -> bool {
        self.visited.packer.pack(state, packed);
        if self.visited.find(packed).is_none() {
            return false; // in the next level: later
        }
        match place.get(packed.as_slice()) {
            Some(&j) if j as usize > i => false,
            Some(&j) if j as usize == i => true,
            _ => self.reduced_keys.contains(packed.as_slice()),
        }
    }
}
