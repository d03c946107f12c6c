//! Rendezvous (DVE's synchronous channels): a `c!e` of one thread and a
//! `c?x` of another fire together as one step. Split in two so that the
//! abstract modes can pair thread states they never see side by side:
//!
//! * `offers`: what one thread at `(g, l)` offers, its enabled sync
//!   transitions (memoised like the successors);
//! * `fire`: the joint step of one sender and one receiver from `g`.
//!
//! `sync_steps` pairs the offers of one whole state, for the concrete
//! searches (`standard`, refine's trace search). The abstract modes pair
//! thread states drawn from their own abstract state (`engine::rendezvous`).

use super::explore::{Explorer, memory_pressed};
use super::fire::{assign_then, execute};
use super::memo::{MEMO_LIMIT, MEMO_SLOT, heap_block};
use super::{Ctx, EvalError, SyncOp, Val};
use std::sync::Arc;

/// The sync transitions a thread at `(g, l)` can fire, with their guards
/// true: sends with the value offered, receives; and the first run-time
/// model error met evaluating a guard or a sent value (that transition
/// then offers nothing).
#[derive(Debug, Default)]
pub(crate) struct Offers {
    /// (transition, channel, value; `None` for `c!`).
    pub(crate) sends: Vec<(u32, u32, Option<i64>)>,
    /// (transition, channel).
    pub(crate) recvs: Vec<(u32, u32)>,
    pub(crate) error: Option<String>,
    /// Every sync transition whose guard or value failed.
    pub(crate) failed: Vec<u32>,
}

impl Offers {
    pub(crate) fn is_empty(&self) -> bool {
        self.sends.is_empty() && self.recvs.is_empty()
    }

    /// No offer and no failure, keeping the buffers' memory.
    fn clear(&mut self) {
        self.sends.clear();
        self.recvs.clear();
        self.failed.clear();
        self.error = None;
    }
}

/// One rendezvous: a sender's and a receiver's transitions fired together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SyncStep {
    pub(crate) sender: usize,
    pub(crate) send_trans: u32,
    pub(crate) receiver: usize,
    pub(crate) recv_trans: u32,
    /// The stores after the step.
    pub(crate) g: u32,
    pub(crate) l_send: u32,
    pub(crate) l_recv: u32,
}

/// A send and a receive of two threads that meet on a channel, to fire.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pair {
    pub(crate) sender: usize,
    pub(crate) send_trans: u32,
    /// The value sent (`None` for `c!`).
    pub(crate) value: Option<i64>,
    pub(crate) receiver: usize,
    pub(crate) recv_trans: u32,
}

/// What a state's rendezvous come to before any fires (`plan_syncs`).
#[derive(Debug, Default)]
pub(crate) struct SyncPlan {
    pub(crate) pairs: Vec<Pair>,
    /// The rendezvous that fail before firing (a failed offer).
    pub(crate) failed: Vec<SyncFailure>,
    /// The first run-time model error met.
    pub(crate) error: Option<String>,
}

/// What the memo entry of `o` takes, estimated as a successor memo
/// entry's (`memo.rs`, `entry_bytes`).
fn offers_entry_bytes(o: &Offers) -> u64 {
    let vectors = [
        size_of::<(u32, u32, Option<i64>)>() * o.sends.capacity(),
        size_of::<(u32, u32)>() * o.recvs.capacity(),
        size_of::<u32>() * o.failed.capacity(),
        o.error.as_ref().map_or(0, String::capacity),
    ];
    MEMO_SLOT
        + heap_block(16 + size_of::<Offers>())
        + vectors.into_iter().map(heap_block).sum::<u64>()
}

/// A rendezvous that fails at run time: the thread and its sync transition,
/// and the receiver and its transition when the pair's effects failed.
pub(crate) type SyncFailure = (usize, u32, Option<(usize, u32)>);

/// Stores after a rendezvous: (globals, sender's local, receiver's local).
type RendezvousResult = (Vec<Val>, Vec<Val>, Vec<Val>);

impl Explorer<'_> {
    /// What `thread` offers from `(g, l)`.
    pub(crate) fn offers(&mut self, thread: usize, g: u32, l: u32) -> Arc<Offers> {
        let class = self.memo_class(thread);
        if let Some(o) = self.offers_memo[class].get(&(g, l)) {
            return o.clone();
        }
        let o = Arc::new(self.compute_offers(thread, g, l));
        let bytes = offers_entry_bytes(&o);
        let budget = &self.step_budget;
        if self.offers_entries < MEMO_LIMIT && self.memo.charge(bytes, || memory_pressed(budget)) {
            self.offers_memo[class].insert((g, l), o.clone());
            self.offers_entries += 1;
        }
        o
    }

    /// Does a sync transition leave the location of `thread` at local `l`?
    fn syncs(&self, thread: usize, l: u32) -> bool {
        let template = self.template_id(thread);
        self.sync_at[template][self.locals[template].get(l)[0] as usize]
    }

    fn compute_offers(&self, thread: usize, g: u32, l: u32) -> Offers {
        let mut out = Offers::default();
        self.compute_offers_into(thread, g, l, &mut out);
        out
    }

    /// As `compute_offers`, into `out` (cleared first): a buffer kept from
    /// state to state makes no allocation.
    fn compute_offers_into(&self, thread: usize, g: u32, l: u32, out: &mut Offers) {
        out.clear();
        let prog = self.prog;
        let th = &prog.threads[thread];
        let tpl = &prog.templates[th.template as usize];
        let gs = self.globals.get(g);
        let ls = self.locals[th.template as usize].get(l);
        for &ti in &tpl.outgoing[ls[0] as usize] {
            let tr = &tpl.transitions[ti as usize];
            let Some(op) = &tr.sync else { continue };
            let ctx = Ctx::thread(th, gs, ls);
            let on = match &tr.guard {
                None => Ok(true),
                Some(e) => e.eval(&ctx).map(|v| v != 0),
            };
            let value = match (on, op) {
                (Ok(false), _) => continue,
                (
                    Ok(true),
                    SyncOp::Send {
                        channel,
                        value: Some(e),
                    },
                ) => e.eval(&ctx).map(|v| (*channel, Some(v))),
                (
                    Ok(true),
                    SyncOp::Send {
                        channel,
                        value: None,
                    },
                ) => Ok((*channel, None)),
                (Ok(true), SyncOp::Recv { channel, .. }) => {
                    out.recvs.push((ti, *channel));
                    continue;
                }
                (Err(e), _) => Err(e),
            };
            match value {
                Ok((c, v)) => out.sends.push((ti, c, v)),
                Err(EvalError(m)) => {
                    // A side that fails to offer is taken (`--show
                    // coverage`): its model error is reachable.
                    if let Some(taken) = &self.taken {
                        taken.mark(th.template as usize, ti);
                    }
                    out.failed.push(ti);
                    out.error.get_or_insert(format!("{}: {m}", tr.path));
                }
            }
        }
    }

    /// Every rendezvous enabled in the state `(g, locals)`: a `c!e` of one
    /// thread and a `c?x` of another, both at their source and with true
    /// guards. The value is evaluated in the sender's state; then the
    /// sender's effects run, then the receive and the receiver's effects.
    /// Also returns the first run-time model error met.
    pub(crate) fn sync_steps(&mut self, g: u32, locals: &[u32]) -> (Vec<SyncStep>, Option<String>) {
        let (steps, error, _) = self.sync_steps_failing(g, locals);
        (steps, error)
    }

    /// As `sync_steps`, with every rendezvous that fails at run time (the
    /// sending thread and transition, and the receiver's when the pair
    /// fails; a failing offer alone has no partner).
    ///
    /// With the program's error state (`error_state.rs`), the pairs are
    /// DiVinE's (`dve_explicit_system_t::compute_enabled_stage1/2`): a send
    /// or receive whose guard (or sent value) fails still pairs with every
    /// partner on its channel, and the pair fails if its send failed or
    /// any receive on the channel failed; a failing offer with no partner
    /// is no step at all.
    pub(crate) fn sync_steps_failing(
        &mut self,
        g: u32,
        locals: &[u32],
    ) -> (Vec<SyncStep>, Option<String>, Vec<SyncFailure>) {
        let mut plan = SyncPlan::default();
        self.plan_syncs(g, locals, &mut Vec::new(), &mut plan);
        let mut out = Vec::new();
        for pair in &plan.pairs {
            match self.fire_pair(g, locals, pair) {
                Ok(steps) => out.extend(steps),
                Err(m) => {
                    plan.failed.push((
                        pair.sender,
                        pair.send_trans,
                        Some((pair.receiver, pair.recv_trans)),
                    ));
                    plan.error.get_or_insert(m);
                }
            }
        }
        (out, plan.error, plan.failed)
    }

    /// What `sync_steps_failing` would fire in the state `(g, locals)`,
    /// read-only (the workers of `standard` plan, the coordinator fires
    /// and interns): the pairs that meet, the rendezvous that fail before
    /// firing, and the first run-time model error met. `offers` is a
    /// buffer, one entry per thread, kept from state to state.
    pub(crate) fn plan_syncs(
        &self,
        g: u32,
        locals: &[u32],
        offers: &mut Vec<Offers>,
        plan: &mut SyncPlan,
    ) {
        plan.pairs.clear();
        plan.failed.clear();
        plan.error = None;
        // Most states have few threads, often none, where a sync
        // transition leaves: the others offer nothing (no guard to
        // evaluate, none to fail), so they are not looked at.
        if !(0..locals.len()).any(|t| self.syncs(t, locals[t])) {
            return;
        }
        offers.resize_with(locals.len(), Offers::default);
        for (t, o) in offers.iter_mut().enumerate() {
            if self.syncs(t, locals[t]) {
                self.compute_offers_into(t, g, locals[t], o);
            } else {
                o.clear();
            }
        }
        let offers = &offers[..locals.len()];
        plan.error = offers.iter().find_map(|o| o.error.clone());
        let divine = self.prog.error_state.is_some();
        if !divine {
            plan.failed.extend(
                offers
                    .iter()
                    .enumerate()
                    .flat_map(|(t, o)| o.failed.iter().map(move |&tr| (t, tr, None))),
            );
        }
        // Under DiVinE's rule a failed offer is paired too: a failed send
        // fails its pairs, a failed receive every pair on its channel.
        let failed_offers = |t: usize, sends: bool| self.failed_sides(t, &offers[t], sends);
        let bad_channel = |c: u32| {
            divine
                && offers
                    .iter()
                    .enumerate()
                    .any(|(t, _)| failed_offers(t, false).any(|(_, c2)| c2 == c))
        };
        for (t1, o1) in offers.iter().enumerate() {
            let sends = o1.sends.iter().map(|&(tr, c, v)| (tr, c, v, false));
            let failed_sends = failed_offers(t1, true).map(|(tr, c)| (tr, c, None, true));
            for (send_trans, c, value, send_failed) in sends.chain(failed_sends) {
                for (t2, o2) in offers.iter().enumerate() {
                    if t2 == t1 {
                        continue;
                    }
                    let recvs = o2.recvs.iter().map(|&(tr, c2)| (tr, c2));
                    for (recv_trans, c2) in recvs.chain(failed_offers(t2, false)) {
                        if c != c2 {
                            continue;
                        }
                        if send_failed || bad_channel(c) {
                            // The pair goes to DiVinE's error state: both
                            // sides are taken.
                            if let Some(taken) = &self.taken {
                                taken.mark(self.template_id(t1), send_trans);
                                taken.mark(self.template_id(t2), recv_trans);
                            }
                            plan.failed.push((t1, send_trans, Some((t2, recv_trans))));
                            continue;
                        }
                        plan.pairs.push(Pair {
                            sender: t1,
                            send_trans,
                            value,
                            receiver: t2,
                            recv_trans,
                        });
                    }
                }
            }
        }
    }

    /// Under DiVinE's rule (the program has an error state), the sends
    /// (or the receives) among the failed offers `o` of thread `t`, with
    /// their channels; otherwise none.
    fn failed_sides<'a>(
        &'a self,
        t: usize,
        o: &'a Offers,
        sends: bool,
    ) -> impl Iterator<Item = (u32, u32)> + 'a {
        let divine = self.prog.error_state.is_some();
        let tpl = self.prog.template_of(t);
        o.failed
            .iter()
            .filter(move |_| divine)
            .filter_map(move |&tr| match &tpl.transitions[tr as usize].sync {
                Some(SyncOp::Send { channel, .. }) if sends => Some((tr, *channel)),
                Some(SyncOp::Recv { channel, .. }) if !sends => Some((tr, *channel)),
                _ => None,
            })
    }

    /// Fires one planned pair from the state `(g, locals)`.
    pub(crate) fn fire_pair(
        &mut self,
        g: u32,
        locals: &[u32],
        p: &Pair,
    ) -> Result<Vec<SyncStep>, String> {
        let send = (p.sender, locals[p.sender], p.send_trans, p.value);
        self.fire(g, send, (p.receiver, locals[p.receiver], p.recv_trans))
    }

    /// Fires one sender (thread, local, send transition, value) with one
    /// receiver (thread, local, receive transition) from `g`: every
    /// resulting step, or the run-time model error of the pair.
    pub(crate) fn fire(
        &mut self,
        g: u32,
        (t1, l1, tr1, value): (usize, u32, u32, Option<i64>),
        (t2, l2, tr2): (usize, u32, u32),
    ) -> Result<Vec<SyncStep>, String> {
        let results = self.rendezvous(self.globals.get(g), (t1, l1, tr1, value), (t2, l2, tr2));
        if let Some(taken) = &self.taken
            && results.as_ref().map_or(true, |r| !r.is_empty())
        {
            let template = |t: usize| self.prog.threads[t].template as usize;
            taken.mark(template(t1), tr1);
            taken.mark(template(t2), tr2);
        }
        let results = results?;
        Ok(results
            .into_iter()
            .map(|(g2, ls, lr)| SyncStep {
                sender: t1,
                send_trans: tr1,
                receiver: t2,
                recv_trans: tr2,
                g: self.globals.intern(&g2),
                l_send: self.intern_local(t1, &ls),
                l_recv: self.intern_local(t2, &lr),
            })
            .collect())
    }

    /// Fires one sender/receiver pair; every resulting (g, l_send, l_recv).
    fn rendezvous(
        &self,
        gs: &[Val],
        (t1, l1, tr1, value): (usize, u32, u32, Option<i64>),
        (t2, l2, tr2): (usize, u32, u32),
    ) -> Result<Vec<RendezvousResult>, String> {
        let prog = self.prog;
        let (th1, th2) = (&prog.threads[t1], &prog.threads[t2]);
        let (tp1, tp2) = (th1.template as usize, th2.template as usize);
        let send = &prog.templates[tp1].transitions[tr1 as usize];
        let recv = &prog.templates[tp2].transitions[tr2 as usize];
        let fail = |tr: &super::Transition, e: EvalError| format!("{}: {}", tr.path, e.0);
        let mut after_send = Vec::new();
        let (mut g1, mut ls1) = (gs.to_vec(), self.locals[tp1].get(l1).to_vec());
        execute(
            &send.actions,
            th1.tid,
            tp1,
            &mut g1,
            &mut ls1,
            &mut after_send,
        )
        .map_err(|e| fail(send, e))?;
        // The receive is an assignment of the offered value, then the effects.
        let assign = match (&recv.sync, value) {
            (
                Some(SyncOp::Recv {
                    target: Some(a), ..
                }),
                Some(v),
            ) => Some((a, v)),
            _ => None,
        };
        let mut out = Vec::new();
        for (mut g2, mut ls1) in after_send {
            ls1[0] = send.to as Val;
            let mut ls2 = self.locals[tp2].get(l2).to_vec();
            let mut done = Vec::new();
            let received = match assign {
                Some((a, v)) => assign_then(
                    (a, Some(v)),
                    &recv.actions,
                    (th2.tid, tp2),
                    (&mut g2, &mut ls2),
                    &mut done,
                ),
                None => execute(&recv.actions, th2.tid, tp2, &mut g2, &mut ls2, &mut done),
            };
            received.map_err(|e| fail(recv, e))?;
            for (g3, mut ls2) in done {
                ls2[0] = recv.to as Val;
                out.push((g3, ls1.clone(), ls2));
            }
        }
        Ok(out)
    }
}
