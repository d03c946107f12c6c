//! `--por`'s states passed through (`pass/`), for the walk back of a
//! trace (`rebuild.rs`): which state a move into a state passed through
//! leads to, and the steps on the way, decided as the search decided them.

use super::super::Search;
use super::super::rebuild::Move;
use super::{OneStep, PassScratch, any_property, one_step, successor};
use crate::program::Succs;
use rustc_hash::FxHashSet;
use std::sync::Arc;

impl Search<'_> {
    /// The walk back: the stored state that the state `st` (not stored;
    /// `key` packed) leads to through the states passed through from it,
    /// if it is passed through and its chain ends at a stored state.
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
            if !path.is_empty() && self.visited.find(&key).is_some() {
                break Some(key);
            }
            // A cycle, or the rebuild's budget out (then the trace is dropped).
            if !seen.insert(key.clone()) || (path.len() % 64 == 63 && self.rebuild_out()) {
                break None;
            }
            path.push(key);
            let Some(m) = self.pass_step(&cur) else {
                break None;
            };
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

    /// The walk back: the move `m` and the steps of the states passed
    /// through after it, to the stored state they lead to (`passed_end`
    /// found one).
    pub(in crate::engine::standard) fn passed_path(&mut self, m: Move) -> Vec<Move> {
        let mut path = vec![m];
        let bound = self.passing.as_ref().map_or(0, |p| p.ends.len());
        while path.len() <= bound {
            let st = &path[path.len() - 1].3;
            if self.visited.find(&self.stored_key(st)).is_some() {
                break;
            }
            let st = st.clone();
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
        let failing = succs.iter().any(|s| s.error.is_some() || s.cut);
        let (sync, failed) = match prog.channels.is_empty() || failing {
            true => (Vec::new(), false),
            false => {
                let (steps, error) = self.exp.sync_steps(st[0], &st[1..]);
                (steps, error.is_some())
            }
        };
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
