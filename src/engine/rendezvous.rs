//! Rendezvous in the abstract modes. Flanagan and Qadeer's rules (§2) and
//! the Cartesian post of Malkis, Podelski and Rybalchenko (§3, §4) step one
//! thread at a time; a rendezvous moves two. Its joint step reads the
//! globals and the two threads' locals only, so the abstract modes pair
//! thread states they hold at the same global store:
//!
//! * thread-modular: R(s, g, l_s) and R(r, g, l_r) give R(s, g', l_s'),
//!   R(r, g', l_r') and a guarantee edge g → g' of the pair, which every
//!   third thread sees (AG ENV) and neither s nor r does;
//! * Cartesian products: the post of {g} × Π C_t by the pair replaces both
//!   components with {l_s'} and {l_r'}, exact for the product like a single
//!   thread's post, then E is subtracted and the result joined as usual.
//!
//! This module collects what thread states offer (`Offered`) and fires the
//! matching sends and receives; the engines decide which thread states to
//! pair and what to do with the steps.

use super::exceptions::BitSet;
use crate::program::Explorer;
use crate::program::rendezvous::SyncStep;
use rustc_hash::FxHashMap;

/// A thread state and one of its enabled sync transitions.
#[derive(Clone, Copy, Debug)]
struct Side {
    thread: usize,
    l: u32,
    trans: u32,
    /// The value offered, for a send.
    value: Option<i64>,
}

/// A joint step from two thread states of an abstract state: the sender's
/// and the receiver's local stores before it, and the step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Joint {
    pub(crate) from_send: u32,
    pub(crate) from_recv: u32,
    pub(crate) step: SyncStep,
}

/// A run-time model error met offering or firing: (thread, local store,
/// message), at the global store of the `Offered`.
pub(crate) type SyncError = (usize, u32, String);

/// The offers of some thread states at one global store, by channel.
pub(crate) struct Offered {
    g: u32,
    sends: FxHashMap<u32, Vec<Side>>,
    recvs: FxHashMap<u32, Vec<Side>>,
    /// Offer and firing errors met so far.
    pub(crate) errors: Vec<SyncError>,
}

impl Offered {
    pub(crate) fn new(g: u32) -> Offered {
        Offered {
            g,
            sends: FxHashMap::default(),
            recvs: FxHashMap::default(),
            errors: Vec::new(),
        }
    }

    /// The offers of every thread state of the product `{g} × Π comps`.
    pub(crate) fn of_product(exp: &mut Explorer, g: u32, comps: &[BitSet]) -> Offered {
        let mut o = Offered::new(g);
        for (t, c) in comps.iter().enumerate() {
            for l in c.iter() {
                o.add(exp, t, l);
            }
        }
        o
    }

    /// Adds what thread `t` at local store `l` offers; true if anything.
    pub(crate) fn add(&mut self, exp: &mut Explorer, t: usize, l: u32) -> bool {
        let offers = exp.offers(t, self.g, l);
        if let Some(msg) = &offers.error {
            self.errors.push((t, l, msg.clone()));
        }
        for &(trans, channel, value) in &offers.sends {
            self.sends.entry(channel).or_default().push(Side {
                thread: t,
                l,
                trans,
                value,
            });
        }
        for &(trans, channel) in &offers.recvs {
            self.recvs.entry(channel).or_default().push(Side {
                thread: t,
                l,
                trans,
                value: None,
            });
        }
        !offers.is_empty()
    }

    /// Fires every send with every receive on its channel by another
    /// thread, for the pairs ((sender, l_s), (receiver, l_r)) that `keep`
    /// accepts. A pair whose step fails is recorded in `errors` under the
    /// sender.
    pub(crate) fn joint_steps(
        &mut self,
        exp: &mut Explorer,
        mut keep: impl FnMut((usize, u32), (usize, u32)) -> bool,
    ) -> Vec<Joint> {
        let mut channels: Vec<u32> = self.sends.keys().copied().collect();
        channels.sort_unstable();
        let mut out = Vec::new();
        for c in channels {
            let Some(recvs) = self.recvs.get(&c) else {
                continue;
            };
            for s in &self.sends[&c] {
                for r in recvs {
                    if s.thread == r.thread || !keep((s.thread, s.l), (r.thread, r.l)) {
                        continue;
                    }
                    let send = (s.thread, s.l, s.trans, s.value);
                    match exp.fire(self.g, send, (r.thread, r.l, r.trans)) {
                        Ok(steps) => out.extend(steps.into_iter().map(|step| Joint {
                            from_send: s.l,
                            from_recv: r.l,
                            step,
                        })),
                        Err(msg) => self.errors.push((s.thread, s.l, msg)),
                    }
                }
            }
        }
        out
    }
}

/// `{g} × base` with the sender's and the receiver's components replaced
/// by the joint step's targets: the post of the product by the step.
pub(crate) fn joint_product(base: &[BitSet], step: &SyncStep) -> Vec<BitSet> {
    let mut p = base.to_vec();
    p[step.sender] = base[step.sender].singleton_like(step.l_send);
    p[step.receiver] = base[step.receiver].singleton_like(step.l_recv);
    p
}
