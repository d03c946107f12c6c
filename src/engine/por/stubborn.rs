//! Strong stubborn sets of transitions (Valmari; the guard-based
//! formulation of Laarman, Pater, van de Pol and Hansen, "Guard-based
//! partial-order reduction", STTT 2016), for models without a cooperative
//! scheduler and with few threads. Finer than closing over whole threads
//! (`closure` in `mod.rs`): a thread's transition that does not commute
//! with the set is added alone, and when it is disabled only what can
//! enable it is added, not everything the thread may do afterwards.
//!
//! A set T of transitions (a thread's transition at any location) is
//! closed when:
//!
//! * for every enabled t in T, every transition of another thread that
//!   may still fire (reachable in its control graph from its location) and
//!   does not commute with t (one writes a global the other reads or
//!   writes) is in T, and so are the other transitions at t's location
//!   (they take the thread away);
//! * for every disabled t in T, a necessary enabling set is in T: either
//!   the transitions that enter t's location, when the thread is elsewhere,
//!   or the writers of the globals t's guard is false by (`false_reason`),
//!   with the thread's own transitions at its location when that reason
//!   reads its locals; of the two, the one adding fewer enabled transitions
//!   is taken;
//! * a rendezvous transition in T brings in, as in the thread closure,
//!   every transition the threads that may use its channel may still fire,
//!   and counts as enabled (its partners are then all in T).
//!
//! Every path from the state that avoids T then commutes with T's enabled
//! transitions and cannot enable a disabled one, so the threads with an
//! enabled transition (or a rendezvous) in T are a persistent set, with
//! the same guarantees as the thread closure (deadlocks; with visibility
//! and the proviso, every error state). A transition that reads another
//! thread's store (`whole_state`) commutes with nothing; disabled at its
//! thread's location it gives up the seed, elsewhere the transitions
//! entering its location are its enabling set.

use super::{Reducer, ThreadAt, false_reason};
use crate::program::Program;
use crate::program::access::{Access, Slots, reachable_transitions};

/// The static tables: transitions numbered across threads, their
/// dependence, who writes each global, and the control graphs.
pub(super) struct Stubborn {
    /// The first transition number of each thread (and the total, last).
    offset: Vec<u32>,
    /// The thread of each transition number.
    owner: Vec<u32>,
    /// Per transition number: the other threads' transitions it does not
    /// commute with.
    dep: Vec<Slots>,
    /// Per global slot: the transitions that may write it.
    writers: Vec<Slots>,
    /// Per channel: the transitions on it.
    on_channel: Vec<Slots>,
    /// The transitions that read another thread's store.
    whole_state: Slots,
    /// `into[template][location]`: the transitions entering it.
    into: Vec<Vec<Vec<u32>>>,
    /// `reach[template][location]`: the transitions reachable from it.
    reach: Vec<Vec<Vec<u32>>>,
}

/// Beyond this many transitions over all threads the dependence table is
/// not built and the thread closure is used.
const MAX_TRANSITIONS: usize = 4096;

fn commute(a: &Access, b: &Access) -> bool {
    !(a.whole_state
        || b.whole_state
        || a.channel.is_some() && a.channel == b.channel
        || a.writes.intersects(&b.reads)
        || a.writes.intersects(&b.writes)
        || a.reads.intersects(&b.writes))
}

impl Stubborn {
    pub(super) fn new(prog: &Program, acc: &[Vec<Access>]) -> Option<Stubborn> {
        if prog.scheduler.is_some() || prog.threads.len() > super::PRECISE_UP_TO {
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
        let mut on_channel: Vec<Slots> = vec![Slots::default(); prog.channels.len()];
        let mut whole_state = Slots::default();
        for g in 0..owner.len() {
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
                on_channel[c as usize].insert(g as u32);
            }
        }
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
            on_channel,
            whole_state,
            into,
            reach,
        })
    }
}

/// One state's view: which transitions are enabled and which may still
/// fire.
pub(super) struct AtState {
    enabled: Slots,
    reachable: Slots,
    /// How many threads can move.
    movers: usize,
    /// Per transition number, once asked for: its necessary enabling sets
    /// (`Stubborn::enabling_sets`).
    nes: Vec<Option<Vec<Vec<u32>>>>,
}

impl Stubborn {
    pub(super) fn at_state(&self, prog: &Program, threads: &[ThreadAt]) -> AtState {
        let mut enabled = Slots::with_room(self.owner.len());
        let mut reachable = Slots::with_room(self.owner.len());
        for (u, th) in threads.iter().enumerate() {
            let tpl = prog.threads[u].template as usize;
            let base = self.offset[u];
            if th.succs.error.is_some() {
                for &ti in &prog.templates[tpl].outgoing[th.pc as usize] {
                    enabled.insert(base + ti);
                }
            }
            for s in &th.succs.steps {
                enabled.insert(base + s.trans);
            }
            for &ti in &self.reach[tpl][th.pc as usize] {
                reachable.insert(base + ti);
            }
        }
        let movers = threads
            .iter()
            .filter(|th| !th.succs.steps.is_empty() || th.succs.error.is_some())
            .count();
        AtState {
            enabled,
            reachable,
            movers,
            nes: vec![None; self.owner.len()],
        }
    }
}

impl Stubborn {
    /// Does the model have rendezvous or reads of another thread's store,
    /// which this closure treats coarsely?
    pub(super) fn coarse(&self) -> bool {
        !self.on_channel.is_empty() || self.whole_state.iter().next().is_some()
    }

    /// The necessary enabling sets of the disabled transition `g` at this
    /// state (none when it has none): the transitions entering its
    /// location, when its thread is elsewhere; the writers of the globals
    /// its guard is false by, with its thread's transitions here when the
    /// reason reads a local.
    fn enabling_sets(
        &self,
        prog: &Program,
        threads: &[ThreadAt],
        reachable: &Slots,
        g: u32,
    ) -> Vec<Vec<u32>> {
        let u = self.owner[g as usize] as usize;
        let ti = g - self.offset[u];
        let tpl_id = prog.threads[u].template as usize;
        let tpl = &prog.templates[tpl_id];
        let tr = &tpl.transitions[ti as usize];
        let pc = threads[u].pc;
        let mut options = Vec::new();
        if !tr.from.contains(&pc) {
            let entering = tr
                .from
                .iter()
                .flat_map(|&f| &self.into[tpl_id][f as usize])
                .map(|&tj| self.offset[u] + tj)
                .filter(|&h| reachable.contains(h))
                .collect();
            options.push(entering);
        }
        let ctx = threads[u].ctx(prog, u);
        // A guard that reads other threads' stores may be opened by any of
        // them: only the entering transitions will do.
        if let Some(guard) = &tr.guard
            && !self.whole_state.contains(g)
            && matches!(guard.eval(&ctx), Ok(0))
        {
            let (by, locals) = false_reason(guard, &ctx);
            let mut nes: Vec<u32> = Vec::new();
            for s in by.iter() {
                if let Some(w) = self.writers.get(s as usize) {
                    nes.extend(w.iter_and(reachable));
                }
            }
            if locals {
                nes.extend(
                    tpl.outgoing[pc as usize]
                        .iter()
                        .map(|&tj| self.offset[u] + tj),
                );
            }
            options.push(nes);
        }
        options
    }
}

impl Reducer {
    /// A closed set of transitions holding the transitions at `seed`'s
    /// location, as the threads to expand; `None` when it holds an enabled
    /// visible transition, or a disabled one with no enabling set.
    pub(super) fn stubborn(
        &self,
        st: &Stubborn,
        prog: &Program,
        threads: &[ThreadAt],
        at: &mut AtState,
        seed: usize,
    ) -> Option<Vec<bool>> {
        let mut in_t = Slots::with_room(st.owner.len());
        let mut work: Vec<u32> = Vec::new();
        let push = |g: u32, in_t: &mut Slots, work: &mut Vec<u32>| {
            if !in_t.contains(g) {
                in_t.insert(g);
                work.push(g);
            }
        };
        let here = |u: usize| &prog.template_of(u).outgoing[threads[u].pc as usize];
        // The threads that move and have an enabled transition in T: once
        // they are all of them, T reduces nothing (the caller skips it).
        let mut held = vec![false; threads.len()];
        let mut holds = 0;
        for &ti in here(seed) {
            push(st.offset[seed] + ti, &mut in_t, &mut work);
        }
        while let Some(g) = work.pop() {
            let u = st.owner[g as usize] as usize;
            let ti = g - st.offset[u];
            let tpl_id = prog.threads[u].template as usize;
            let tr = &prog.templates[tpl_id].transitions[ti as usize];
            let a = &self.acc.transitions[tpl_id][ti as usize];
            let located = tr.from.contains(&threads[u].pc);
            let enabled = at.enabled.contains(g);
            if located && (enabled || a.channel.is_some()) && self.is_visible(prog, u, ti) {
                return None;
            }
            if located && enabled && !held[u] {
                held[u] = true;
                holds += 1;
                if holds == at.movers {
                    return Some(vec![true; threads.len()]);
                }
            }
            if enabled || a.channel.is_some() {
                if located {
                    for &tj in here(u) {
                        push(st.offset[u] + tj, &mut in_t, &mut work);
                    }
                }
                for h in st.dep[g as usize].iter_and(&at.reachable) {
                    push(h, &mut in_t, &mut work);
                }
            }
            if let Some(c) = a.channel {
                let users = st.on_channel[c as usize].iter_and(&at.reachable);
                let mut partners: Vec<usize> =
                    users.map(|h| st.owner[h as usize] as usize).collect();
                partners.push(u);
                partners.sort_unstable();
                partners.dedup();
                for v in partners {
                    let base = st.offset[v];
                    for &tj in &st.reach[prog.threads[v].template as usize][threads[v].pc as usize]
                    {
                        push(base + tj, &mut in_t, &mut work);
                    }
                }
                continue;
            }
            if enabled {
                continue;
            }
            // A necessary enabling set: the cheaper of the two kinds.
            let options = at.nes[g as usize]
                .get_or_insert_with(|| st.enabling_sets(prog, threads, &at.reachable, g));
            let cost = |o: &Vec<u32>| -> usize {
                o.iter()
                    .filter(|&&h| !in_t.contains(h))
                    .map(|&h| if at.enabled.contains(h) { 1 << 16 } else { 1 })
                    .sum()
            };
            // A located transition that is neither enabled nor false by its
            // guard (no guard, or one that does not evaluate): give up.
            let nes = options.iter().min_by_key(|o| cost(o))?;
            for &h in nes {
                push(h, &mut in_t, &mut work);
            }
        }
        let set = (0..threads.len())
            .map(|u| {
                here(u).iter().any(|&ti| {
                    let g = st.offset[u] + ti;
                    let a = &self.acc.transitions[prog.threads[u].template as usize][ti as usize];
                    in_t.contains(g) && (at.enabled.contains(g) || a.channel.is_some())
                })
            })
            .collect();
        Some(set)
    }
}
