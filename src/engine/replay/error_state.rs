//! A step into the program's error state (`program/error_state.rs`,
//! DiVinE's semantics of a run-time error): the named transition fails at
//! run time, and the step records the error state's stores.

use super::{Replayer, Side, StateIds};
use crate::engine::trace::StepIds;
use crate::program::Val;

impl Replayer<'_> {
    /// The error state, if the step leads there: its stores are the
    /// recorded ones and the named transition (or rendezvous) fails here.
    /// `None` when it is an ordinary step.
    pub(super) fn error_state_step(
        &mut self,
        state: &StateIds,
        mover: &Side,
        partner: Option<&Side>,
        want_g: &[Val],
    ) -> Result<Option<StateIds>, String> {
        let Some((eg, els)) = self.exp.prog.error_stores() else {
            return Ok(None);
        };
        let recorded = want_g == eg
            && mover.locals == els[mover.thread]
            && partner.is_none_or(|p| p.locals == els[p.thread]);
        if !recorded {
            return Ok(None);
        }
        let named = self.labelled(state, mover)?;
        let (g, ls) = (state.0, &state.1);
        let t = mover.thread;
        let mut failing = None;
        if partner.is_none() {
            let succs = self.exp.successors(t, g, ls[t]);
            failing = succs
                .error
                .as_ref()
                .map(|(tr, _)| *tr)
                .filter(|tr| named.contains(tr))
                .map(|tr| (tr, None));
        }
        if failing.is_none() && !self.exp.prog.channels.is_empty() {
            let with = match partner {
                Some(p) => Some((p.thread, self.labelled(state, p)?)),
                None => None,
            };
            let (_, _, failed) = self.exp.sync_steps_failing(g, ls);
            failing = failed.into_iter().find_map(|(u, tr, p)| {
                let ok = u == t
                    && named.contains(&tr)
                    && match (&with, p) {
                        (None, None) => true,
                        (Some((pt, pn)), Some((v, tr2))) => *pt == v && pn.contains(&tr2),
                        _ => false,
                    };
                ok.then_some((tr, p))
            });
        }
        let Some((trans, partner)) = failing else {
            return Ok(None);
        };
        let Some(ids) = self.exp.error_state() else {
            return Ok(None);
        };
        let next: StateIds = (ids[0], ids[1..].to_vec());
        self.steps.push(StepIds {
            thread: t,
            trans,
            partner,
            state: next.clone(),
        });
        Ok(Some(next))
    }
}
