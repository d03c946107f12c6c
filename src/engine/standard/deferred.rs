//! The coordinator's part of each chunk of a level of `standard`: the
//! successors the workers could not look up in the memo (new `(thread, g,
//! l)`), which they fired into flat buffers (`Explorer::fire_flat`) and
//! which only the coordinator may intern, and the rendezvous they planned
//! (`Explorer::plan_syncs`), fired here. (Firing on the workers into one
//! `Vec` per store was tried before and lost: the stores allocated on one
//! thread and freed on another cost glibc's allocator more than the
//! second core gained. A flat buffer per part of a level crosses threads
//! once.) What cannot be fired read-only (a cooperative macro-step, a
//! block) is still computed here whole.

use super::super::Budget;
use super::super::store::Level;
use super::Search;
use super::found::{Batch, Candidate, Finding};
use super::pass::Passed;
use super::reduce::Decisions;
use crate::program::Succs;
use std::sync::Arc;

impl Search<'_> {
    /// Interns (or computes) the successors the workers deferred and fires
    /// the rendezvous they planned, for one chunk of the level, on this
    /// thread; then inserts both on the workers. Polls the budget every
    /// `COORDINATOR_POLL` items; on a stop, returns what was done so far.
    pub(super) fn expand_deferred(
        &mut self,
        level: &Level,
        props: &[usize],
        done: &[bool],
        mut b: Batch,
        budget: &Budget,
        reduced: (Option<&Decisions>, Option<&Passed>),
    ) -> Batch {
        let decisions = reduced.0;
        let prog = self.exp.prog;
        let mut deferred = std::mem::take(&mut b.deferred);
        let prefired = std::mem::take(&mut b.prefired);
        let fired = std::mem::take(&mut b.fired);
        let mut state = Vec::new();
        // The state last unpacked: a state's items come together, and
        // unpacking it for each of its threads was quadratic in them (one
        // state of 16,000 threads took 1.4 s; found by a user audit).
        let mut unpacked = None;
        let mut succs: Vec<Arc<Succs>> = Vec::with_capacity(deferred.len() + prefired.len());
        for (k, &(i, t)) in deferred.iter().enumerate() {
            if self.poll_due(k, budget) {
                return b;
            }
            if unpacked.replace(i) != Some(i) {
                self.visited
                    .packer
                    .unpack(level.packed(i as usize), &mut state);
            }
            let (thread, l) = self.mover(&state, t as usize);
            succs.push(self.exp.successors(thread, state[0], l));
        }
        // `deferred` grows below: the count polled on starts from here.
        let computed = deferred.len();
        for (k, p) in prefired.into_iter().enumerate() {
            if self.poll_due(computed + k, budget) {
                return b;
            }
            let (i, t) = (p.index, p.thread as usize);
            if unpacked.replace(i) != Some(i) {
                self.visited
                    .packer
                    .unpack(level.packed(i as usize), &mut state);
            }
            let f = &fired[p.part as usize];
            let steps = (&f.values[p.values], &f.trans[p.trans]);
            let at = (state[0], state[1 + t]);
            succs.push(
                self.exp
                    .successors_fired(t, at, steps, (p.error, p.failures)),
            );
            deferred.push((i, t as u32));
        }
        let mut spare = self.spare_fired.lock().unwrap_or_else(|e| e.into_inner());
        spare.extend(fired.into_iter().map(|mut f| {
            f.clear();
            f
        }));
        drop(spare);
        // The rendezvous' successors, packed one after another.
        let mut paired = Vec::new();
        if !prog.channels.is_empty()
            && !self.rendezvous(level, &mut b, budget, decisions, &mut paired)
        {
            return b;
        }
        let words = self.visited.packer.words;
        let items = deferred.len() + paired.len() / words;
        let shared = self.shared(level, props, done, budget, reduced);
        let more = self.on_workers(items, || {
            shared.run_parts(items, |k, w, b| {
                let Some(&(i, t)) = deferred.get(k) else {
                    let k = k - deferred.len();
                    // Counted as inserted: not where a budget stopped.
                    b.transitions += 1;
                    shared.push(&mut w.batch, &paired[k * words..(k + 1) * words]);
                    return;
                };
                // Only the symmetric and counted emits read the state
                // unpacked (the plain one writes into the packed words).
                if shared.sym.is_some() || shared.ctr.is_some() {
                    shared
                        .visited
                        .packer
                        .unpack(level.packed(i as usize), &mut w.state);
                }
                shared.emit(i as usize, t as usize, &succs[k], w, b);
            })
        });
        b.merge(more, level)
    }

    /// Rendezvous: two threads move together (DVE's `sync c!`/`c?`). Their
    /// successors are packed into `paired`, for the workers to insert (on
    /// this thread, the inserts were a quarter of leader_election.5's run).
    /// False when a budget stopped it.
    fn rendezvous(
        &mut self,
        level: &Level,
        b: &mut Batch,
        budget: &Budget,
        decisions: Option<&Decisions>,
        paired: &mut Vec<u64>,
    ) -> bool {
        let planned = std::mem::take(&mut b.syncs);
        let pairs = std::mem::take(&mut b.pairs);
        let mut state = Vec::new();
        let mut next = Vec::new();
        let mut packed = Vec::new();
        for (k, p) in planned.into_iter().enumerate() {
            if self.poll_due(k, budget) {
                return false;
            }
            let i = p.index as usize;
            self.visited.packer.unpack(level.packed(i), &mut state);
            let (mut failed, mut error) = (u64::from(p.failed), p.error);
            for pair in &pairs[p.pairs] {
                let steps = match self.exp.fire_pair(state[0], &state[1..], pair) {
                    Ok(steps) => steps,
                    Err(m) => {
                        failed += 1;
                        error.get_or_insert(m);
                        continue;
                    }
                };
                if decisions
                    .is_some_and(|d| !(d.expands(i, pair.sender) && d.expands(i, pair.receiver)))
                {
                    continue;
                }
                for st in steps {
                    next.clone_from(&state);
                    next[0] = st.g;
                    next[1 + st.sender] = st.l_send;
                    next[1 + st.receiver] = st.l_recv;
                    if let Some(sym) = &self.sym {
                        sym.canonicalise(&mut next);
                    }
                    self.visited.packer.pack(&next, &mut packed);
                    paired.extend_from_slice(&packed);
                }
            }
            if error.is_some() {
                let c = Candidate {
                    index: i as u32,
                    finding: Finding::SyncError,
                };
                b.note_error(Some(c), level);
                if let Some(key) = self.error_key.as_ref().filter(|_| failed > 0) {
                    b.transitions += failed;
                    self.visited.insert(key);
                }
            }
        }
        true
    }
}
