//! The static tables of the transition closure: transitions numbered
//! across threads, their dependence (`commute`), who writes each global,
//! the rendezvous' partners, the sides that may fail, and the control
//! graphs.

use super::super::reason::all_reads;
use crate::program::access::{Access, Slots, may_fail, reachable_transitions};
use crate::program::{Program, SyncOp};

/// The static tables: transitions numbered across threads, their
/// dependence, who writes each global, and the control graphs.
pub(in crate::engine::por) struct Stubborn {
    /// The first transition number of each thread (and the total, last).
    pub(super) offset: Vec<u32>,
    /// The thread of each transition number.
    pub(super) owner: Vec<u32>,
    /// Per transition number: the other threads' transitions it does not
    /// commute with.
    pub(super) dep: Vec<Slots>,
    /// Per global slot: the transitions that may write it.
    pub(super) writers: Vec<Slots>,
    /// Per side of a rendezvous: the other threads' sides it may pair
    /// with (the opposite direction on its channel); empty for the others.
    pub(super) partners: Vec<Slots>,
    /// The sides of rendezvous, and those that send.
    pub(super) sides: Slots,
    pub(super) sends: Slots,
    /// Per side whose guard or sent value may fail to evaluate (an index,
    /// a division, an overflow): the globals those read, and whether they
    /// read the thread's own store. Such a side fails, a model error of
    /// its thread alone, with or without a partner.
    pub(super) fragile: Vec<Option<(Slots, bool)>>,
    /// The sides that leave their thread's store and the globals as they
    /// are, and cannot fail: no effect, no received value, no failing
    /// guard or sent value, a self-loop at some location: per side, that
    /// location when it is quiet (`quiet_at`).
    quiet_to: Vec<Option<u16>>,
    /// The transitions that read another thread's store.
    pub(super) whole_state: Slots,
    /// `into[template][location]`: the transitions entering it.
    pub(super) into: Vec<Vec<Vec<u32>>>,
    /// `reach[template][location]`: the transitions reachable from it.
    pub(super) reach: Vec<Vec<Vec<u32>>>,
}

/// Beyond this many transitions over all threads the dependence table is
/// not built and the thread closure is used.
const MAX_TRANSITIONS: usize = 4096;

/// Do two transitions of different threads commute on the globals? Two
/// sides of rendezvous on one channel are not compared here: the
/// rendezvous they make conflict only through a thread they share, which
/// the closure handles (`Item::Pair`).
fn commute(a: &Access, b: &Access) -> bool {
    !(a.whole_state
        || b.whole_state
        || a.writes.intersects(&b.reads)
        || a.writes.intersects(&b.writes)
        || a.reads.intersects(&b.writes))
}

impl Stubborn {
    pub(in crate::engine::por) fn new(prog: &Program, acc: &[Vec<Access>]) -> Option<Stubborn> {
        if prog.scheduler.is_some() || prog.threads.len() > super::super::PRECISE_UP_TO {
            return None;
        }
        let mut offset = vec![0u32];
        let mut owner = Vec::new();
        for (t, th) in prog.threads.iter().enumerate() {
            let k = prog.templates[th.template as usize].transitions.len();
            owner.extend(std::iter::repeat_n(t as u32, k));
            offset.push(offset[t] + k as u32);
        }
        if owner.len() > MAX_TRANSITIONS {
            return None;
        }
        let access = |g: usize| {
            let t = owner[g] as usize;
            &acc[prog.threads[t].template as usize][g - offset[t] as usize]
        };
        let dep = (0..owner.len())
            .map(|g| {
                let mut row = Slots::default();
                for h in (0..owner.len()).filter(|&h| owner[h] != owner[g]) {
                    if !commute(access(g), access(h)) {
                        row.insert(h as u32);
                    }
                }
                row
            })
            .collect();
        let mut writers: Vec<Slots> = Vec::new();
        let mut on_channel: Vec<Vec<u32>> = vec![Vec::new(); prog.channels.len()];
        let mut sides = Slots::default();
        let mut sends = Slots::default();
        let mut whole_state = Slots::default();
        for (g, &t) in owner.iter().enumerate() {
            let a = access(g);
            if a.whole_state {
                whole_state.insert(g as u32);
            }
            for s in a.writes.iter() {
                if writers.len() <= s as usize {
                    writers.resize(s as usize + 1, Slots::default());
                }
                writers[s as usize].insert(g as u32);
            }
            if let Some(c) = a.channel {
                on_channel[c as usize].push(g as u32);
                sides.insert(g as u32);
                let tr = &prog.template_of(t as usize).transitions[g - offset[t as usize] as usize];
                if matches!(tr.sync, Some(SyncOp::Send { .. })) {
                    sends.insert(g as u32);
                }
            }
        }
        let fragile: Vec<Option<(Slots, bool)>> = (0..owner.len())
            .map(|g| {
                let t = owner[g] as usize;
                let tr = &prog.template_of(t).transitions[g - offset[t] as usize];
                let value = match &tr.sync {
                    Some(SyncOp::Send { value, .. }) => value.as_ref(),
                    _ => None,
                };
                let exprs = tr.guard.iter().chain(value);
                if tr.sync.is_none() || !exprs.clone().any(may_fail) {
                    return None;
                }
                let (mut reads, mut locals) = (Slots::default(), false);
                for e in exprs {
                    all_reads(e, &mut reads, &mut locals);
                }
                Some((reads, locals))
            })
            .collect();
        let mut quiet_to = vec![None; owner.len()];
        for g in sides.iter() {
            let t = owner[g as usize] as usize;
            let tr = &prog.template_of(t).transitions[(g - offset[t]) as usize];
            let a = access(g as usize);
            if a.writes.is_empty()
                && a.local_writes.is_empty()
                && !a.whole_state
                && fragile[g as usize].is_none()
                && tr.from.contains(&tr.to)
            {
                quiet_to[g as usize] = Some(tr.to);
            }
        }
        let partners = (0..owner.len() as u32)
            .map(|g| {
                let mut row = Slots::default();
                if let Some(c) = access(g as usize).channel {
                    for &h in &on_channel[c as usize] {
                        if owner[h as usize] != owner[g as usize]
                            && sends.contains(h) != sends.contains(g)
                        {
                            row.insert(h);
                        }
                    }
                }
                row
            })
            .collect();
        let into = prog
            .templates
            .iter()
            .map(|tpl| {
                let mut into = vec![Vec::new(); tpl.locations.len()];
                for tr in &tpl.transitions {
                    into[tr.to as usize].push(tr.index);
                }
                into
            })
            .collect();
        let reach = prog
            .templates
            .iter()
            .map(|tpl| {
                (0..tpl.locations.len())
                    .map(|start| reachable_transitions(tpl, start))
                    .collect()
            })
            .collect();
        Some(Stubborn {
            offset,
            owner,
            dep,
            writers,
            partners,
            sides,
            sends,
            fragile,
            quiet_to,
            whole_state,
            into,
            reach,
        })
    }

    /// Is side `g` quiet where its thread is, at `pc`: taken there, it
    /// changes nothing (a self-loop at `pc` with no effect; a transition
    /// from several locations moves the thread from the others)?
    pub(super) fn quiet_at(&self, g: u32, pc: u16) -> bool {
        self.quiet_to[g as usize] == Some(pc)
    }
}
