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

use super::explore::{Explorer, MEMO_LIMIT, execute};
use super::{Action, CExpr, Ctx, EvalError, SyncOp, Val};
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

/// A send as paired: (transition, channel, value, failed).
type Offered = (u32, u32, Option<i64>, bool);

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
        if self.offers_entries < MEMO_LIMIT {
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
        let prog = self.prog;
        let th = &prog.threads[thread];
        let tpl = &prog.templates[th.template as usize];
        let gs = self.globals.get(g);
        let ls = self.locals[th.template as usize].get(l);
        let mut out = Offers::default();
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
                    out.failed.push(ti);
                    out.error.get_or_insert(format!("{}: {m}", tr.path));
                }
            }
        }
        out
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
        // Most states have few threads, often none, where a sync
        // transition leaves: the others offer nothing (no guard to
        // evaluate, none to fail), so they are not looked up.
        if !(0..locals.len()).any(|t| self.syncs(t, locals[t])) {
            return (Vec::new(), None, Vec::new());
        }
        let offers: Vec<Arc<Offers>> = (0..locals.len())
            .map(|t| {
                if self.syncs(t, locals[t]) {
                    self.offers(t, g, locals[t])
                } else {
                    self.no_offers.clone()
                }
            })
            .collect();
        // Most states where sync transitions leave have no send that meets
        // a receive of another thread: nothing to pair, nothing failed.
        let meets = |t1: usize, c: u32| {
            offers
                .iter()
                .enumerate()
                .any(|(t2, o)| t2 != t1 && o.recvs.iter().any(|r| r.1 == c))
        };
        if offers.iter().all(|o| o.failed.is_empty())
            && !offers
                .iter()
                .enumerate()
                .any(|(t1, o)| o.sends.iter().any(|s| meets(t1, s.1)))
        {
            return (Vec::new(), None, Vec::new());
        }
        let mut error = offers.iter().find_map(|o| o.error.clone());
        let divine = self.prog.error_state.is_some();
        let mut failed: Vec<SyncFailure> = Vec::new();
        if !divine {
            failed.extend(
                offers
                    .iter()
                    .enumerate()
                    .flat_map(|(t, o)| o.failed.iter().map(move |&tr| (t, tr, None))),
            );
        }
        // Per thread: its sends and its receives, each marked failed or not.
        let channel =
            |t: usize, tr: u32| match &self.prog.template_of(t).transitions[tr as usize].sync {
                Some(SyncOp::Send { channel, .. }) => (*channel, true),
                Some(SyncOp::Recv { channel, .. }) => (*channel, false),
                None => (u32::MAX, false),
            };
        let mut sends: Vec<Vec<Offered>> = Vec::new();
        let mut recvs: Vec<Vec<(u32, u32, bool)>> = Vec::new();
        let mut bad_channel: Vec<u32> = Vec::new();
        for (t, o) in offers.iter().enumerate() {
            let mut s: Vec<_> = o
                .sends
                .iter()
                .map(|&(tr, c, v)| (tr, c, v, false))
                .collect();
            let mut r: Vec<_> = o.recvs.iter().map(|&(tr, c)| (tr, c, false)).collect();
            if divine {
                for &tr in &o.failed {
                    match channel(t, tr) {
                        (c, true) => s.push((tr, c, None, true)),
                        (c, false) => {
                            r.push((tr, c, true));
                            bad_channel.push(c);
                        }
                    }
                }
            }
            sends.push(s);
            recvs.push(r);
        }
        let mut out = Vec::new();
        for (t1, ss) in sends.iter().enumerate() {
            for &(tr1, c, value, send_failed) in ss {
                for (t2, rs) in recvs.iter().enumerate() {
                    for &(tr2, c2, _) in rs {
                        if c != c2 || t1 == t2 {
                            continue;
                        }
                        if send_failed || bad_channel.contains(&c) {
                            failed.push((t1, tr1, Some((t2, tr2))));
                            continue;
                        }
                        let send = (t1, locals[t1], tr1, value);
                        match self.fire(g, send, (t2, locals[t2], tr2)) {
                            Ok(steps) => out.extend(steps),
                            Err(m) => {
                                failed.push((t1, tr1, Some((t2, tr2))));
                                error.get_or_insert(m);
                            }
                        }
                    }
                }
            }
        }
        (out, error, failed)
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
        let gs: Vec<Val> = self.globals.get(g).to_vec();
        let results = self.rendezvous(&gs, (t1, l1, tr1, value), (t2, l2, tr2))?;
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
        let mut recv_actions: Vec<Action> = Vec::new();
        if let (
            Some(SyncOp::Recv {
                target: Some(a), ..
            }),
            Some(v),
        ) = (&recv.sync, value)
        {
            let mut a = a.clone();
            a.rhs = Some(CExpr::Const(v));
            recv_actions.push(a);
        }
        recv_actions.extend(recv.actions.iter().cloned());
        let mut out = Vec::new();
        for (mut g2, mut ls1) in after_send {
            ls1[0] = send.to as Val;
            let mut ls2 = self.locals[tp2].get(l2).to_vec();
            let mut done = Vec::new();
            execute(&recv_actions, th2.tid, tp2, &mut g2, &mut ls2, &mut done)
                .map_err(|e| fail(recv, e))?;
            for (g3, mut ls2) in done {
                ls2[0] = recv.to as Val;
                out.push((g3, ls1.clone(), ls2));
            }
        }
        Ok(out)
    }
}
