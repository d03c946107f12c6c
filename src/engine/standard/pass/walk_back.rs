//! `--por`'s states passed through (`pass/`), for the walk back of a
//! trace (`rebuild.rs`): which state a move into a state passed through
//! leads to, and the steps on the way, decided as the search decided them.

use super::super::Search;
use super::super::rebuild::Move;
use super::{OneStep, PassScratch, any_property, one_step, rendezvous_unless_failing, successor};
use crate::program::Succs;
use rustc_hash::FxHashSet;
use std::sync::Arc;

impl Search<'_> {
    /// The walk back, at a level whose rounds ran: the state the search's
    /// chain from the state `st` (`key` packed) ended at: `st` itself
    /// where it is not passed through, else the first state on from it
    /// that is not, or that the rounds found stored (an initial state,
    /// or, while the rounds ran, any stored one: no state passed through
    /// was stored then); `None` for a cycle of passed states.
    pub(in crate::engine::standard) fn passed_end(
        &mut self,
        key: Vec<u64>,
        st: &[u32],
    ) -> Option<Vec<u64>> {
        let mut key = key;
        let mut cur = st.to_vec();
        let mut path: Vec<Vec<u64>> = Vec::new();
        let mut seen = FxHashSet::default();
        let end = loop {
            if let Some(end) = self
                .passing
                .as_ref()
                .and_then(|p| p.ends.get(key.as_slice()))
            {
                break end.as_deref().map(<[u64]>::to_vec);
            }
            if self.chain_stops_at(&key) {
                break Some(key);
            }
            // A cycle, or the rebuild's budget out (then the trace is dropped).
            if !seen.insert(key.clone()) || (path.len() % 64 == 63 && self.rebuild_out()) {
                break None;
            }
            let Some(m) = self.pass_step(&cur) else {
                path.push(key.clone());
                break Some(key);
            };
            path.push(key);
            cur = m.3;
            key = self.stored_key(&cur);
        };
        if let Some(p) = &mut self.passing {
            for k in path {
                p.ends.insert(k.into(), end.as_deref().map(Into::into));
            }
        }
        end
    }

    /// Did the rounds end a chain at the state `key` because it was stored
    /// (`passed_end`)?
    fn chain_stops_at(&mut self, key: &[u64]) -> bool {
        if self.visited.find(key).is_none() {
            return false;
        }
        if self.passing.as_ref().is_some_and(|p| !p.off) {
            return true;
        }
        if self.passing.as_ref().is_some_and(|p| p.initial.is_none()) {
            let initial = self
                .initial_stored()
                .iter()
                .map(|st| self.stored_key(st).into())
                .collect();
            if let Some(p) = &mut self.passing {
                p.initial = Some(initial);
            }
        }
        let initial = self.passing.as_ref().and_then(|p| p.initial.as_ref());
        initial.is_some_and(|i| i.contains(key))
    }

    /// The walk back: the move `m` and the steps of the states passed
    /// through after it, to the state their chain ends at (`passed_end`
    /// found it).
    pub(in crate::engine::standard) fn passed_path(&mut self, m: Move) -> Vec<Move> {
        let mut path = vec![m];
        let bound = self.passing.as_ref().map_or(0, |p| p.ends.len());
        while path.len() <= bound {
            let st = path[path.len() - 1].3.clone();
            if self.chain_stops_at(&self.stored_key(&st)) {
                break;
            }
            match self.pass_step(&st) {
                Some(next) => path.push(next),
                None => break,
            }
        }
        path
    }

    /// The walk back's view of a state (unpacked): the one step it is
    /// passed through by, as a move, or `None` where it is stored.
    pub(in crate::engine::standard) fn pass_step(&mut self, st: &[u32]) -> Option<Move> {
        let prog = self.exp.prog;
        let n = prog.threads.len();
        let succs: Vec<Arc<Succs>> = (0..n)
            .map(|t| self.exp.successors_unkept(t, st[0], st[1 + t]))
            .collect();
        let (sync, failed) = rendezvous_unless_failing(&mut self.exp, st, &succs);
        let mut passing = self.passing.take()?;
        let scratch = passing.scratch.get_or_insert_with(PassScratch::default);
        let step = match &self.reducer {
            Some(reducer) => {
                let threads = self.threads_at(st, &succs, &sync);
                let holds = |quiet| any_property(&self.exp, &passing.props, st, quiet);
                one_step(
                    reducer,
                    prog,
                    &threads,
                    (&sync, failed),
                    &mut scratch.bufs,
                    holds,
                )
            }
            None => None,
        };
        self.passing = Some(passing);
        let next = successor(st, &succs, &sync, step?);
        Some(match step? {
            OneStep::Thread(t, k) => (t, succs[t].steps[k].trans, None, next),
            OneStep::Sync(k) => {
                let sy = &sync[k];
                let partner = Some((sy.receiver, sy.recv_trans));
                (sy.sender, sy.send_trans, partner, next)
            }
        })
    }
}
