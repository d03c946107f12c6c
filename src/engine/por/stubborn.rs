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
//! * a rendezvous is one transition of the system, the pair (s, r) of a
//!   send and a receive of two threads on one channel (LTSmin's view of
//!   DVE's synchronisations): enabled when both sides are at their
//!   location with a true guard. A side enters T with every rendezvous it
//!   may make. An enabled one brings in both threads' transitions at their
//!   locations (their other rendezvous included: they would take a thread
//!   away) and what does not commute with s or r; a disabled one, a
//!   necessary enabling set of a disabled side. Two rendezvous on one
//!   channel with four different threads commute unless their effects
//!   conflict.
//!
//! Every path from the state that avoids T then commutes with T's enabled
//! transitions and cannot enable a disabled one, so the threads with an
//! enabled transition in T (both threads of a rendezvous) are a persistent
//! set, with the same guarantees as the thread closure (deadlocks; with
//! visibility and the proviso, every error state); the expansion takes a
//! rendezvous when it takes both its threads, which are then both in T
//! with everything at their locations. A transition that reads another
//! thread's store (`whole_state`) commutes with nothing; disabled at its
//! thread's location it gives up the seed, elsewhere the transitions
//! entering its location are its enabling set.

use super::{Reducer, ThreadAt, false_reason};
use crate::program::access::{Access, Slots, may_fail, reachable_transitions};
use crate::program::{Program, SyncOp};

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
    /// Per side of a rendezvous: the other threads' sides it may pair
    /// with (the opposite direction on its channel); empty for the others.
    partners: Vec<Slots>,
    /// The sides of rendezvous, and those that send.
    sides: Slots,
    sends: Slots,
    /// Per side whose guard or sent value may fail to evaluate (an index,
    /// a division, an overflow): the globals those read, and whether they
    /// read the thread's own store. Such a side fails, a model error of
    /// its thread alone, with or without a partner.
    fragile: Vec<Option<(Slots, bool)>>,
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
        let fragile = (0..owner.len())
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
                    super::all_reads(e, &mut reads, &mut locals);
                }
                Some((reads, locals))
            })
            .collect();
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
            whole_state,
            into,
            reach,
        })
    }
}

/// One state's view: which transitions are enabled and which may still
/// fire. Kept from state to state (`Buffers`), as the sets being closed
/// are: allocating them anew was a third of `--por`'s time on peterson.3.
#[derive(Default)]
pub(super) struct AtState {
    enabled: Slots,
    /// The sides of rendezvous at their thread's location whose guard
    /// holds, or fails to evaluate (the side fails: a model error of its
    /// thread, reported at this state; counting it as offered only makes
    /// the set larger).
    offered: Slots,
    reachable: Slots,
    /// How many threads can move, alone or in a rendezvous.
    movers: usize,
    /// Per transition number, once asked for: its necessary enabling sets
    /// (`Stubborn::enabling_sets`), in `arena`.
    nes: Vec<Option<Nes>>,
    /// The transitions of every enabling set asked for at this state.
    arena: Vec<u32>,
}

/// A transition's necessary enabling sets at one state: up to two options
/// (entering its location; opening its guard), each a range of
/// `AtState::arena`, so that a state's sets allocate nothing.
#[derive(Clone, Copy, Default)]
struct Nes {
    options: [(u32, u32); 2],
    len: usize,
}

impl Nes {
    /// Adds the option of `arena[start..]`.
    fn close(&mut self, start: usize, arena: &[u32]) {
        self.options[self.len] = (start as u32, arena.len() as u32);
        self.len += 1;
    }

    fn options(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.options[..self.len]
            .iter()
            .map(|&(a, b)| (a as usize, b as usize))
    }
}

impl Stubborn {
    /// Fills `at` with the view of the state whose threads are `threads`.
    pub(super) fn at_state(&self, prog: &Program, threads: &[ThreadAt], at: &mut AtState) {
        let n = self.owner.len();
        let AtState {
            enabled,
            offered,
            reachable,
            movers,
            nes,
            arena,
        } = at;
        enabled.clear_with_room(n);
        offered.clear_with_room(n);
        reachable.clear_with_room(n);
        nes.clear();
        nes.resize(n, None);
        arena.clear();
        for (u, th) in threads.iter().enumerate() {
            let tpl = prog.template_of(u);
            let base = self.offset[u];
            if th.succs.error.is_some() {
                for &ti in &tpl.outgoing[th.pc as usize] {
                    enabled.insert(base + ti);
                }
            }
            for s in &th.succs.steps {
                enabled.insert(base + s.trans);
            }
            let ctx = th.ctx(prog, u);
            for &ti in &tpl.outgoing[th.pc as usize] {
                let tr = &tpl.transitions[ti as usize];
                if tr.sync.is_some()
                    && tr
                        .guard
                        .as_ref()
                        .is_none_or(|e| !matches!(e.eval(&ctx), Ok(0)))
                {
                    offered.insert(base + ti);
                }
            }
            for &ti in &self.reach[prog.threads[u].template as usize][th.pc as usize] {
                reachable.insert(base + ti);
            }
        }
        *movers = threads.iter().filter(|th| th.moves() > 0).count();
    }
}

impl Stubborn {
    /// Does the model read another thread's store, which this closure
    /// treats coarsely?
    pub(super) fn coarse(&self) -> bool {
        self.whole_state.iter().next().is_some()
    }

    /// The necessary enabling sets of the disabled transition `g` at this
    /// state (none when it has none): the transitions entering its
    /// location, when its thread is elsewhere; the writers of the globals
    /// its guard is false by, with its thread's transitions here when the
    /// reason reads a local. Their transitions are appended to `arena`.
    fn enabling_sets(
        &self,
        prog: &Program,
        threads: &[ThreadAt],
        reachable: &Slots,
        g: u32,
        arena: &mut Vec<u32>,
    ) -> Nes {
        let u = self.owner[g as usize] as usize;
        let ti = g - self.offset[u];
        let tpl_id = prog.threads[u].template as usize;
        let tpl = &prog.templates[tpl_id];
        let tr = &tpl.transitions[ti as usize];
        let pc = threads[u].pc;
        let mut options = Nes::default();
        if !tr.from.contains(&pc) {
            let start = arena.len();
            arena.extend(
                tr.from
                    .iter()
                    .flat_map(|&f| &self.into[tpl_id][f as usize])
                    .map(|&tj| self.offset[u] + tj)
                    .filter(|&h| reachable.contains(h)),
            );
            options.close(start, arena);
        }
        let ctx = threads[u].ctx(prog, u);
        // A guard that reads other threads' stores may be opened by any of
        // them: only the entering transitions will do.
        if let Some(guard) = &tr.guard
            && !self.whole_state.contains(g)
            && matches!(guard.eval(&ctx), Ok(0))
        {
            let (by, locals) = false_reason(guard, &ctx);
            let start = arena.len();
            for s in by.iter() {
                if let Some(w) = self.writers.get(s as usize) {
                    arena.extend(w.iter_and(reachable));
                }
            }
            if locals {
                arena.extend(
                    tpl.outgoing[pc as usize]
                        .iter()
                        .map(|&tj| self.offset[u] + tj),
                );
            }
            options.close(start, arena);
        }
        options
    }
}

/// A member of the set being closed: a transition that needs no partner,
/// or a rendezvous (the sending side, then the receiving one), which is
/// one transition of the system: enabled when both sides are offered.
#[derive(Clone, Copy)]
enum Item {
    One(u32),
    Pair(u32, u32),
    /// A side failing to evaluate its guard or value (`Stubborn::fragile`).
    Fails(u32),
}

/// The set being closed, and the threads it holds an enabled member of.
/// Rendezvous enter only with all those of one of their sides (`add`), so
/// a rendezvous is new exactly when neither side was added before.
#[derive(Default)]
pub(super) struct Closing {
    ones: Slots,
    sides: Slots,
    /// The enabled transitions whose dependence was added.
    deps: Slots,
    /// The disabled transitions whose enabling set was added.
    enabling: Slots,
    work: Vec<Item>,
    held: Vec<bool>,
    holds: usize,
}

impl Closing {
    /// Empties it for a closure over `transitions` transitions and
    /// `threads` threads.
    fn reset(&mut self, transitions: usize, threads: usize) {
        for set in [
            &mut self.ones,
            &mut self.sides,
            &mut self.deps,
            &mut self.enabling,
        ] {
            set.clear_with_room(transitions);
        }
        self.work.clear();
        self.held.clear();
        self.held.resize(threads, false);
        self.holds = 0;
    }

    /// Adds transition `g`: itself, or, a side of a rendezvous, every
    /// rendezvous it may make with a side that may still fire, and its
    /// failure if it may fail (a side with no partner never fires, but it
    /// may still fail).
    fn add(&mut self, st: &Stubborn, at: &AtState, g: u32) {
        if !st.sides.contains(g) {
            if !self.ones.contains(g) {
                self.ones.insert(g);
                self.work.push(Item::One(g));
            }
            return;
        }
        if self.sides.contains(g) {
            return;
        }
        self.sides.insert(g);
        if st.fragile[g as usize].is_some() {
            self.work.push(Item::Fails(g));
        }
        for h in st.partners[g as usize].iter_and(&at.reachable) {
            if !self.sides.contains(h) {
                self.work.push(match st.sends.contains(g) {
                    true => Item::Pair(g, h),
                    false => Item::Pair(h, g),
                });
            }
        }
    }

    /// Thread `u` has an enabled member: true once every thread that can
    /// move has one (the set reduces nothing).
    fn hold(&mut self, u: usize, at: &AtState) -> bool {
        self.held[u] = true;
        self.holds += 1;
        self.holds == at.movers
    }
}

impl Reducer {
    /// A closed set of transitions holding the transitions at `seed`'s
    /// location, as the threads to expand; `None` when it holds an enabled
    /// visible transition, or a disabled one with no enabling set.
    ///
    /// A rendezvous (s, r) of threads u and v in the set: enabled, it
    /// brings in everything at u's and v's locations (they take u or v
    /// away, the other rendezvous of u and v included) and the other
    /// threads' transitions that do not commute with s or r; disabled, a
    /// necessary enabling set of whichever side is disabled (the cheaper
    /// one when both are).
    pub(super) fn stubborn(
        &self,
        st: &Stubborn,
        prog: &Program,
        threads: &[ThreadAt],
        (at, c): (&mut AtState, &mut Closing),
        seed: usize,
    ) -> Option<Vec<bool>> {
        c.reset(st.owner.len(), threads.len());
        let here = |u: usize| &prog.template_of(u).outgoing[threads[u].pc as usize];
        let everyone = || Some(vec![true; threads.len()]);
        for &ti in here(seed) {
            c.add(st, at, st.offset[seed] + ti);
        }
        while let Some(item) = c.work.pop() {
            if let Item::Fails(g) = item {
                // Not failing here, or the state's error is reported: it
                // may fail later once its thread is at its location (the
                // transitions entering it) and something it reads changes
                // (their writers, and its own thread's steps).
                let u = st.owner[g as usize] as usize;
                let tpl_id = prog.threads[u].template as usize;
                let tr = &prog.templates[tpl_id].transitions[(g - st.offset[u]) as usize];
                let Some((reads, locals)) = &st.fragile[g as usize] else {
                    continue;
                };
                if !tr.from.contains(&threads[u].pc) {
                    for &f in &tr.from {
                        for &tj in &st.into[tpl_id][f as usize] {
                            let h = st.offset[u] + tj;
                            if at.reachable.contains(h) {
                                c.add(st, at, h);
                            }
                        }
                    }
                    continue;
                }
                for s in reads.iter() {
                    if let Some(w) = st.writers.get(s as usize) {
                        for h in w.iter_and(&at.reachable) {
                            c.add(st, at, h);
                        }
                    }
                }
                if *locals {
                    for &tj in here(u) {
                        c.add(st, at, st.offset[u] + tj);
                    }
                }
                continue;
            }
            // The sides whose threads move when the item is enabled, or
            // the disabled transitions it waits for.
            let (sides, n, enabled) = match item {
                Item::One(g) => ([g, g], 1, at.enabled.contains(g)),
                Item::Pair(s, r) => ([s, r], 2, at.offered.contains(s) && at.offered.contains(r)),
                Item::Fails(_) => continue,
            };
            let sides = &sides[..n];
            if enabled {
                for &g in sides {
                    let u = st.owner[g as usize] as usize;
                    if self.is_visible(prog, u, g - st.offset[u]) {
                        return None;
                    }
                }
                // Each thread's location and each transition's dependence
                // once: a thread's many rendezvous share them.
                for &g in sides {
                    let u = st.owner[g as usize] as usize;
                    if !c.held[u] {
                        if c.hold(u, at) {
                            return everyone();
                        }
                        for &tj in here(u) {
                            c.add(st, at, st.offset[u] + tj);
                        }
                    }
                    if !c.deps.contains(g) {
                        c.deps.insert(g);
                        for h in st.dep[g as usize].iter_and(&at.reachable) {
                            c.add(st, at, h);
                        }
                    }
                }
                continue;
            }
            // A necessary enabling set of a disabled side (of a one, the
            // transition itself): the cheapest of all the options.
            // A side whose enabling set is in already (from another of its
            // rendezvous) keeps this rendezvous disabled too.
            let disabled = |g: &&u32| match item {
                Item::Pair(..) => !at.offered.contains(**g),
                _ => true,
            };
            if sides
                .iter()
                .filter(disabled)
                .any(|&g| c.enabling.contains(g))
            {
                continue;
            }
            // (cost, transition, which of its options)
            let mut best: Option<(usize, u32, usize)> = None;
            for &g in sides.iter().filter(disabled) {
                if at.nes[g as usize].is_none() {
                    let nes = st.enabling_sets(prog, threads, &at.reachable, g, &mut at.arena);
                    at.nes[g as usize] = Some(nes);
                }
                let options = at.nes[g as usize].unwrap_or_default();
                for (k, (a, b)) in options.options().enumerate() {
                    let cost = at.arena[a..b]
                        .iter()
                        .map(|&h| match st.sides.contains(h) {
                            false if c.ones.contains(h) => 0,
                            true if c.sides.contains(h) => 0,
                            false if at.enabled.contains(h) => 1 << 16,
                            true if at.offered.contains(h) => 1 << 16,
                            _ => 1,
                        })
                        .sum();
                    if best.as_ref().is_none_or(|(b, ..)| cost < *b) {
                        best = Some((cost, g, k));
                    }
                }
            }
            // A located transition that is neither enabled nor false by its
            // guard (no guard, or one that does not evaluate): give up.
            let (_, g, k) = best?;
            c.enabling.insert(g);
            let (a, b) = at.nes[g as usize]
                .and_then(|n| n.options().nth(k))
                .unwrap_or_default();
            for &h in &at.arena[a..b] {
                c.add(st, at, h);
            }
        }
        Some(c.held.clone())
    }
}
