//! Rendezvous in the cartesian-exc fixpoint (Malkis, Podelski and
//! Rybalchenko, §4 and §5, with joint steps; `engine::rendezvous`): the
//! post of {g} × base by a sender s and a receiver r moving together is
//! base with components s and r replaced by their targets, exact for the
//! product; α_c(P \ E(g')) of it is computed as for a single thread's post
//! and joined into X(g').

use super::origin::{Move, Who};
use super::{Cartesian, OUTSIDE_RANGES, Worklist, count_post, join};
use crate::engine::exceptions::{BitSet, Product};
use crate::engine::rendezvous::{Offered, joint_product};

impl Cartesian<'_> {
    /// Joins α_c(post(P) \ E) into X for every rendezvous of P = {g} ×
    /// base. With `before` = (the base a previous round posted, which
    /// components grew since), a pair whose two local stores were posted
    /// then is skipped unless a third component grew: its contribution
    /// depends on those only. Without, base is a product of E (post(E)).
    pub(super) fn post_joint(
        &mut self,
        g: u32,
        base: &Product,
        before: Option<(&Product, &[bool])>,
        queue: &mut Worklist,
    ) {
        let mut offered = Offered::of_product(&mut self.exp, g, base);
        let old = |t: usize, l: u32| before.is_some_and(|(b, _)| b[t].contains(l));
        let third_grew = |s: usize, r: usize| {
            before.is_none_or(|(_, grown)| (0..grown.len()).any(|j| j != s && j != r && grown[j]))
        };
        let joints = offered.joint_steps(&mut self.exp, |(s, ls), (r, lr)| {
            !(old(s, ls) && old(r, lr)) || third_grew(s, r)
        });
        if let (Some((t, l, msg)), None) = (offered.errors.first(), &self.model_error) {
            self.model_error = Some((*t, g, *l, msg.clone()));
        }
        for j in joints {
            let s = j.step;
            if s.l_send as usize >= self.universe[s.sender]
                || s.l_recv as usize >= self.universe[s.receiver]
            {
                self.stopped = Some(OUTSIDE_RANGES.into());
                return;
            }
            if !count_post(&mut self.posts, self.cap, &mut self.stopped) {
                return;
            }
            let p: Vec<BitSet> = joint_product(base, &s);
            let sub = self.exceptions.subtraction(&p, s.g);
            if let Some(rm) = sub.subtract(&p, None) {
                // A post of E's product when there is no previous round.
                let mv = Move {
                    g,
                    from_e: before.is_none(),
                    who: Who::pair(&j),
                };
                join(
                    (&mut self.x, &mut self.parents, &mut *queue),
                    s.g,
                    &p,
                    None,
                    &rm,
                    mv,
                );
            }
        }
    }
}
