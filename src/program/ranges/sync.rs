//! Rendezvous in the range analysis: a receive `c?x` assigns x a value
//! that some send `c!e` of the channel offers, evaluated over the sender's
//! intervals at its (reached) source locations after its guard's
//! narrowing. A `c!` without a value leaves x as it was, so with such a
//! send on the channel the assignment is a weak update. A channel whose
//! sends never fire has receives that never fire either.

use super::{EMPTY, Env, Interval, join, tids};
use crate::program::{Program, SyncOp};

/// What the receives on one channel can get.
#[derive(Clone, Copy, Debug)]
pub(super) struct Received {
    /// The values sent; `None` when no send can fire (unbounded values are
    /// the full range of i64, which the target's domain then bounds).
    pub(super) value: Option<Interval>,
    /// Some send that can fire carries no value.
    pub(super) valueless: bool,
}

impl Env {
    /// Per channel, what its sends can offer from states inside `self`.
    pub(super) fn sent(&self, prog: &Program) -> Vec<Received> {
        let mut out = vec![
            Received {
                value: None,
                valueless: false
            };
            prog.channels.len()
        ];
        for (ti, tpl) in prog.templates.iter().enumerate() {
            for tr in &tpl.transitions {
                let Some(SyncOp::Send { channel, value }) = &tr.sync else {
                    continue;
                };
                let Some(mut here) = self.scope(prog, ti, tr, tids(prog, ti)) else {
                    continue; // the sender never is at its source
                };
                if let Some(g) = &tr.guard
                    && (here.eval(g) == Some((0, 0)) || !here.refine(g))
                {
                    continue; // never enabled inside the ranges
                }
                let rec = &mut out[*channel as usize];
                match value {
                    None => {
                        rec.valueless = true;
                        rec.value.get_or_insert(EMPTY);
                    }
                    Some(e) => {
                        let v = here.eval(e).unwrap_or((i64::MIN, i64::MAX));
                        rec.value = Some(join(rec.value.unwrap_or(EMPTY), v));
                    }
                }
            }
        }
        out
    }
}
