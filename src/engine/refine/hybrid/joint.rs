//! Rendezvous in refine's fixpoint (`engine::rendezvous`; the Cartesian
//! post of Malkis, Podelski and Rybalchenko §4, extended to joint steps):
//! the post of a product by a sender s and a receiver r moving together
//! replaces both components with their targets. That is exact for the product, as a
//! single thread's post is, so a product derived from an untainted one by
//! joint steps is untainted too: every state in it is reachable.

use super::{Hybrid, MAX_MODEL_ERRORS, ModelError, OUTSIDE_RANGES, Pending};
use crate::engine::exceptions::{BitSet, Product};
use crate::engine::rendezvous::Offered;
use crate::program::Explorer;
use std::collections::BTreeMap;

impl Hybrid {
    /// Adds the products of the rendezvous of `{g} × source`, one per
    /// (sender, receiver, target store, sender's target) with the
    /// receiver's targets as one component (exact: each of them comes with
    /// that sender's target), and records the model errors met.
    pub(super) fn post_joint(
        &mut self,
        exp: &mut Explorer,
        universe: &[usize],
        g: u32,
        source: &Product,
        taint: &[u32],
        q: &mut Pending,
    ) -> Result<(), &'static str> {
        if source.iter().any(BitSet::is_empty) {
            return Ok(());
        }
        let mut offered = Offered::of_product(exp, g, source);
        let joints = offered.joint_steps(exp, |_, _| true);
        for (t, l, _) in &offered.errors {
            self.note_model_error(*t, g, *l, taint);
        }
        let mut groups: BTreeMap<(usize, usize, u32, u32), BitSet> = BTreeMap::new();
        for j in &joints {
            let s = j.step;
            if s.l_send as usize >= universe[s.sender] || s.l_recv as usize >= universe[s.receiver]
            {
                return Err(OUTSIDE_RANGES);
            }
            groups
                .entry((s.sender, s.receiver, s.g, s.l_send))
                .or_insert_with(|| BitSet::empty(universe[s.receiver]))
                .insert(s.l_recv);
        }
        for ((sender, receiver, g2, l_send), recvs) in groups {
            if self.posts >= q.cap {
                return Err(super::FULL);
            }
            self.posts += 1;
            let mut p = source.clone();
            p[sender] = BitSet::single(universe[sender], l_send);
            p[receiver] = recvs;
            self.add(g2, &p, sender, &p[sender], taint, q);
        }
        Ok(())
    }

    /// Records a model error at thread t's `(g, l)`, unless one as exact
    /// is recorded there already, up to `MAX_MODEL_ERRORS`.
    pub(super) fn note_model_error(&mut self, t: usize, g: u32, l: u32, taint: &[u32]) {
        if self.model_errors.len() < MAX_MODEL_ERRORS
            && !self
                .model_errors
                .iter()
                .any(|e| (e.thread, e.g, e.l) == (t, g, l) && e.taint.len() <= taint.len())
        {
            self.model_errors.push(ModelError {
                thread: t,
                g,
                l,
                taint: taint.to_vec(),
            });
        }
    }
}
