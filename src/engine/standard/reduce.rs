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
//! on provisos for breadth-first search).
//!
//! The proviso is asked only of a set that leaves out a thread which may
//! still reach a visible transition or one that may fail at run time
//! (`Reducer::needs_proviso`; on a deadlock check nothing is visible, and
//! under a cooperative scheduler, whose turns can get stuck, every set asks
//! it). Why that is enough: let an error state, a deadlock or a run-time
//! error be reachable from a state s of the reduced search by a path w. If
//! w has a transition of s's set, the first one commutes to the front and
//! the rest of w, one step shorter, leads from a reduced successor to the
//! same state. Otherwise w avoids the set. A deadlock cannot end it (the
//! set's enabled transitions stay enabled along w). A thread of the set
//! has every transition at its location in the set, but for quiet ones
//! (rendezvous sides that leave its store as it is, and cannot fail: a
//! memory cell's reads, por/stubborn), so its store does not change on w;
//! so an error state at the end of w (s is not one) is entered by a
//! visible step of a thread left out, and a transition x failing there is
//! of a thread left out too: were x's thread in the set, x would be in the
//! set, and the set holds what may change x (for an enabled x, the writers
//! of everything it reads; for a disabled one, of what its guard is false
//! by, and of what is evaluated before the operand that decides it), so x
//! would fail at s already, where the search reports it. Either way the
//! set left out a thread which may still do it, and passed the proviso;
//! the search follows an invisible transition of the set to a successor
//! from which w still leads to such a state, and, as above, such a chain
//! of reduced states cannot run round a cycle, so it ends where w shrinks.
//! Where no thread may fail and nothing is visible (`Ranges::fallible`
//! proves the first for BEEM's mutual exclusion protocols, among others),
//! no proviso is asked at all: phils.3 729 states, 498 with it, 118 without
//! (docs/performance.md, "Deadlocks need no proviso").
//!
//! A successor the search passes through (`pass/`: its reduced expansion
//! is one step, by a set that needs no proviso) is not stored, so the
//! proviso takes it for a later state; why that is enough is in
//! `pass/mod.rs`.
//!
//! The first version fully expanded u whenever v was stored; a fully
//! expanded v already breaks the cycle, and BEEM's deadlock-free runs
//! store fewer states for knowing it (docs/performance.md, "Partial-order
//! reduction").
//!
//! The decision is made while the store holds exactly the levels up to the
//! current one. The proviso is sound for any order of a level; the one
//! used is that of the states' packed words, not the store's (`take_level`:
//! shard by shard, in insertion order, which races between workers), so
//! that a level holds the same states and gets the same decisions for any
//! number of jobs, and the reduced counts are the same every run.
//!
//! It runs in three passes. The coordinator computes (and memoises, so the
//! workers rarely defer one) every thread's successors and the rendezvous
//! of every state. The workers then choose each state's set as the serial
//! search would, with the proviso decided where it can be: a successor
//! that is new, later, or in an earlier level is known; one earlier in the
//! level refuses the set only if that state is reduced, not known yet, so
//! such a set is kept aside with the states it depends on, and the choice
//! goes on as if it had been refused. Last, the coordinator walks the
//! level in order and takes, for each state, the first set kept aside
//! whose states turned out fully expanded, or else the set chosen: the
//! decisions of the serial search, with the closures (most of the time,
//! `Reducer::choose`) computed in parallel. The three passes run chunk by
//! chunk of the level (`CHUNK` states), which bounds what is held (a
//! successor list per thread per state). In the test build every choice
//! is checked against the serial rule (`check_serially`).

use super::super::Budget;
use super::super::por::{Buffers, Reducer, ThreadAt};
use super::{CHUNK, SMALL, Search};
use crate::engine::store::Level;
use crate::program::Succs;
use crate::program::rendezvous::SyncStep;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A state and its successors: each thread's steps, and the rendezvous.
struct Successors<'a> {
    succs: &'a [Arc<Succs>],
    sync: &'a [SyncStep],
    state: &'a [u32],
}

/// The level's states ranked in the order they are decided (their packed
/// words: `place`), and for a chunk of them from rank `first`, each
/// state's successors by every thread (`succs`, `n` per state) and its
/// rendezvous.
struct Ranked<'a> {
    place: &'a FxHashMap<&'a [u64], u32>,
    first: usize,
    succs: Vec<Arc<Succs>>,
    sync: Vec<Vec<SyncStep>>,
}

/// The budget, polled by the workers every `POLL_CHOICES` choices between
/// them (a count per worker left short parts unpolled: a level of a
/// 40-thread model ran seconds past `--timeout`, found in review).
struct Polls<'a> {
    budget: &'a Budget,
    count: AtomicUsize,
}

pub(super) const POLL_CHOICES: usize = 64;

/// What a worker chose for one state: the set that passes the proviso
/// (`None`: full expansion), and before it, the sets that pass unless one
/// of the states (ranks, earlier in the level) they lead to is reduced.
#[derive(Default)]
struct Choice {
    set: Option<Vec<bool>>,
    unless: Vec<(Vec<bool>, Vec<u32>)>,
}

/// A worker's buffers while it chooses.
#[derive(Default)]
struct ChooseScratch {
    bufs: Buffers,
    state: Vec<u32>,
    next: Vec<u32>,
    packed: Vec<u64>,
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
        let place: FxHashMap<&[u64], u32> = keys
            .iter()
            .enumerate()
            .map(|(rank, (key, _))| (key.as_slice(), rank as u32))
            .collect();
        let polls = Polls {
            budget,
            count: AtomicUsize::new(0),
        };
        // Whether each state is reduced, settled in order.
        let mut reduced = vec![false; keys.len()];
        // Chunk by chunk of the level, which bounds the successors held
        // (one per thread per state) and the choices.
        for first in (0..keys.len()).step_by(CHUNK) {
            let ranks = first..(first + CHUNK).min(keys.len());
            // First pass: what only the coordinator may do (intern stores).
            let mut ranked = Ranked {
                place: &place,
                first,
                succs: Vec::with_capacity(ranks.len() * n),
                sync: Vec::with_capacity(ranks.len()),
            };
            for rank in ranks.clone() {
                if self.poll_due(rank, budget) {
                    return None;
                }
                self.visited.packer.unpack(&keys[rank].0, &mut state);
                let g = state[0];
                let at = ranked.succs.len();
                for t in 0..n {
                    let s = self.exp.successors(t, g, state[1 + t]);
                    ranked.succs.push(s);
                }
                let failing = ranked.succs[at..].iter().any(|s| s.error.is_some());
                ranked.sync.push(match prog.channels.is_empty() || failing {
                    true => Vec::new(),
                    false => self.exp.sync_steps(g, &state[1..]).0,
                });
            }
            // Second pass, on the workers: the closures.
            let this = &*self;
            let choose = |w: &mut ChooseScratch, rank: usize| {
                this.choose_at(reducer, (&keys[rank].0, rank), &ranked, &polls, w, None)
            };
            let choices: Vec<Choice> = if ranks.len() < SMALL {
                let mut w = ChooseScratch::default();
                ranks.clone().map(|rank| choose(&mut w, rank)).collect()
            } else {
                self.pool.install(|| {
                    ranks
                        .clone()
                        .into_par_iter()
                        .map_init(ChooseScratch::default, choose)
                        .collect()
                })
            };
            if self.stop_reason(budget).is_some() {
                return None;
            }
            // Third pass, in order: the sets kept aside are settled.
            let mut chosen = Vec::with_capacity(ranks.len());
            for (rank, c) in ranks.clone().zip(choices) {
                let set = c
                    .unless
                    .into_iter()
                    .find(|(_, deps)| deps.iter().all(|&j| !reduced[j as usize]))
                    .map(|(set, _)| set)
                    .or(c.set);
                reduced[rank] = set.is_some();
                chosen.push(set);
            }
            #[cfg(test)]
            self.check_serially(reducer, (&keys, &ranked, &polls), &reduced, &chosen);
            for (rank, set) in ranks.zip(chosen) {
                let (key, i) = (&keys[rank].0, keys[rank].1 as usize);
                match set {
                    Some(set) => {
                        d.reduced += 1;
                        if reducer.uses_proviso() {
                            self.reduced_keys.insert(key.as_slice().into());
                        }
                        for t in (0..n).filter(|&t| set[t]) {
                            d.set(i, t);
                        }
                    }
                    None => (0..n).for_each(|t| d.set(i, t)),
                }
            }
        }
        Some(d)
    }

    /// Tests only: each set chosen for the chunk is the one the serial
    /// decision takes (each candidate's proviso decided on the spot, the
    /// states earlier in the level settled), given the same decisions
    /// before it; by induction, the decisions are the serial ones.
    #[cfg(test)]
    fn check_serially(
        &self,
        reducer: &Reducer,
        (keys, ranked, polls): (&[(Vec<u64>, u32)], &Ranked, &Polls),
        reduced: &[bool],
        chosen: &[Option<Vec<bool>>],
    ) {
        let mut w = ChooseScratch::default();
        for (k, set) in chosen.iter().enumerate() {
            let rank = ranked.first + k;
            let key = (keys[rank].0.as_slice(), rank);
            let serial = self.choose_at(reducer, key, ranked, polls, &mut w, Some(reduced));
            assert_eq!(
                &serial.set, set,
                "the decision at rank {rank} is not the serial one"
            );
        }
    }

    /// Chooses the set of the state `key` at `rank` in the level, on a
    /// worker (read-only): as the serial search would, keeping aside the
    /// sets whose proviso depends on states earlier in the level; or, with
    /// those states `settled`, exactly as the serial search does.
    fn choose_at(
        &self,
        reducer: &Reducer,
        (key, rank): (&[u64], usize),
        ranked: &Ranked,
        polls: &Polls,
        w: &mut ChooseScratch,
        settled: Option<&[bool]>,
    ) -> Choice {
        let prog = self.exp.prog;
        let n = prog.threads.len();
        // A choice may take milliseconds with many threads: the budget is
        // polled every few, across the workers.
        // (Not when checking a choice already made.)
        if settled.is_none()
            && polls.count.fetch_add(1, Ordering::Relaxed) % POLL_CHOICES == POLL_CHOICES - 1
        {
            let v = &self.visited;
            if polls.budget.exceeded_now(v.len(), v.capacity()).is_some() {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
        let at = (rank - ranked.first) * n;
        let succs = &ranked.succs[at..at + n];
        // A model error here: the full expansion reports it.
        if self.stop.load(Ordering::Relaxed) || succs.iter().any(|s| s.error.is_some()) {
            return Choice::default();
        }
        let ChooseScratch {
            bufs,
            state,
            next,
            packed,
            ..
        } = w;
        self.visited.packer.unpack(key, state);
        let sync = &ranked.sync[rank - ranked.first];
        let threads = self.threads_at(state, succs, sync);
        let mut unless = Vec::new();
        let mut deps = Vec::new();
        let passes = |set: &[bool]| {
            if !reducer.needs_proviso(&threads, set) {
                return true;
            }
            let succ = Successors { succs, sync, state };
            deps.clear();
            let here = (rank, ranked.place);
            if self.may_close_cycle(set, &succ, here, (next, packed), &mut deps) {
                return false;
            }
            if let Some(reduced) = settled {
                return deps.iter().all(|&j| !reduced[j as usize]);
            }
            if deps.is_empty() {
                return true;
            }
            unless.push((set.to_vec(), std::mem::take(&mut deps)));
            false
        };
        let set = reducer.choose(prog, &threads, bufs, passes);
        Choice { set, unless }
    }

    /// The threads of `state` as the reducer reads them, with their
    /// successors `succs` and the rendezvous `sync` they take part in.
    pub(super) fn threads_at<'a>(
        &'a self,
        state: &[u32],
        succs: &'a [Arc<Succs>],
        sync: &[SyncStep],
    ) -> Vec<ThreadAt<'a>> {
        let gs = self.exp.globals.get(state[0]);
        let mut pairs = vec![0u32; succs.len()];
        for st in sync {
            pairs[st.sender] += 1;
            pairs[st.receiver] += 1;
        }
        (0..succs.len())
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
            .collect()
    }

    /// The proviso: may a successor by the threads of `set` (one thread's
    /// step, or a rendezvous of two) close a cycle of reduced states? True
    /// when one surely may (`is_earlier_reduced`); the ranks of the states
    /// earlier in the level through which one may, if reduced, are added
    /// to `deps`.
    fn may_close_cycle(
        &self,
        set: &[bool],
        from: &Successors,
        here: (usize, &FxHashMap<&[u64], u32>),
        (next, packed): (&mut Vec<u32>, &mut Vec<u64>),
        deps: &mut Vec<u32>,
    ) -> bool {
        let mut closes = |next: &[u32]| match self.is_earlier_reduced(next, here, packed) {
            Earlier::No => false,
            Earlier::Reduced => true,
            Earlier::InLevel(j) => {
                deps.push(j);
                false
            }
        };
        for (t, s) in from.succs.iter().enumerate().filter(|(t, _)| set[*t]) {
            for step in &s.steps {
                next.clear();
                next.extend_from_slice(from.state);
                next[0] = step.g;
                next[1 + t] = step.l;
                if closes(next) {
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
            if closes(next) {
                return true;
            }
        }
        false
    }

    /// Is `state` stored before the state at `here` (in an earlier level,
    /// or earlier in this one: `place` ranks the level's states in the
    /// order they are decided), or is it that state itself, and was it not
    /// fully expanded? Earlier in this level, that is not known yet.
    fn is_earlier_reduced(
        &self,
        state: &[u32],
        (i, place): (usize, &FxHashMap<&[u64], u32>),
        packed: &mut Vec<u64>,
    ) -> Earlier {
        self.visited.packer.pack(state, packed);
        if self.visited.find(packed).is_none() {
            return Earlier::No; // in the next level, or passed through (`pass/`): later
        }
        match place.get(packed.as_slice()) {
            Some(&j) if j as usize > i => Earlier::No,
            Some(&j) if j as usize == i => Earlier::Reduced,
            Some(&j) => Earlier::InLevel(j),
            None if self.reduced_keys.contains(packed.as_slice()) => Earlier::Reduced,
            None => Earlier::No,
        }
    }
}

/// Where a successor stands for the proviso (`is_earlier_reduced`).
enum Earlier {
    /// Later, or earlier and fully expanded: it closes no cycle.
    No,
    /// Earlier (or the state itself) and reduced: it may close one.
    Reduced,
    /// Earlier in the level, at this rank: it may close one if reduced.
    InLevel(u32),
}
