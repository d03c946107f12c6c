//! The built-in predicate `deadlock` decided directly on a concrete state,
//! for `standard`'s hot loop. The predicate itself (model/load/deadlock.rs)
//! is an ordinary expression so that every engine can decide it; on a
//! model where every step is a rendezvous (BEEM's cyclic_scheduler, no
//! thread ever moves alone) `standard` evaluates it at every state, and
//! its per-channel counts over every thread (three per channel) were 90% of
//! the run. Here each thread's guards are evaluated once, and the channels
//! are tallied in one pass.
//!
//! The value is the predicate's: no thread has a transition that needs no
//! partner with a true guard, some thread rests at a location that is not
//! final, and on no channel do a sender and a receiver of two different
//! threads both have true guards. A guard that fails to evaluate is not
//! true, here as in the predicate (`UnOp::Holds`); with the program's
//! error state it is (DiVinE takes the transition, into that state).

use super::explore::Explorer;
use super::{Ctx, SyncOp};

/// Per channel: how many threads offer a send, a receive, either; and
/// the last thread (plus one) counted in each, so that a thread with two
/// transitions on one channel counts once.
#[derive(Clone, Copy, Default)]
struct Tally {
    senders: u32,
    receivers: u32,
    either: u32,
    last_send: u32,
    last_recv: u32,
    last_either: u32,
}

impl Tally {
    fn offer(&mut self, stamp: u32, send: bool) {
        if send && self.last_send != stamp {
            self.last_send = stamp;
            self.senders += 1;
        }
        if !send && self.last_recv != stamp {
            self.last_recv = stamp;
            self.receivers += 1;
        }
        if self.last_either != stamp {
            self.last_either = stamp;
            self.either += 1;
        }
    }

    /// The predicate's "a rendezvous on c is possible".
    fn possible(&self) -> bool {
        self.senders >= 1 && self.receivers >= 1 && self.either >= 2
    }
}

impl Explorer<'_> {
    /// Is `(g, locals)` a deadlock? `None` in a cooperative model (whose
    /// predicate also reads the scheduler): then ask the predicate.
    pub(crate) fn deadlocked(&self, g: u32, locals: &[u32]) -> Option<bool> {
        let prog = self.prog;
        if prog.scheduler.is_some() {
            return None;
        }
        let gs = self.globals.get(g);
        let divine = prog.error_state.is_some();
        let mut tally = vec![Tally::default(); prog.channels.len()];
        let mut enabled = false;
        let mut resting = false;
        for (t, &l) in locals.iter().enumerate() {
            let th = &prog.threads[t];
            let tpl = &prog.templates[th.template as usize];
            let ls = self.local(t, l);
            let pc = *ls.first()? as usize;
            resting |= !*tpl.final_locations.get(pc)?;
            let ctx = Ctx::thread(th, gs, ls);
            let stamp = t as u32 + 1;
            for &ti in tpl.outgoing.get(pc)? {
                let tr = &tpl.transitions[ti as usize];
                let on = match &tr.guard {
                    None => true,
                    Some(e) => super::guard_is_true(e.eval(&ctx), divine),
                };
                match (&tr.sync, on) {
                    (_, false) => {}
                    (None, true) => enabled = true,
                    (Some(SyncOp::Send { channel, .. }), true) => {
                        tally[*channel as usize].offer(stamp, true)
                    }
                    (Some(SyncOp::Recv { channel, .. }), true) => {
                        tally[*channel as usize].offer(stamp, false)
                    }
                }
            }
        }
        let rendezvous = tally.iter().any(Tally::possible);
        Some(!enabled && resting && !rendezvous)
    }
}
