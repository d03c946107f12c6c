//! Strong stubborn sets of transitions (Valmari; the guard-based
//! formulation of Laarman, Pater, van de Pol and Hansen, "Guard-based
//! partial-order reduction", STTT 2016), for models without a cooperative
//! scheduler and with few threads. Finer than closing over whole threads
//! (`closure` in `por/mod.rs`): a thread's transition that does not commute
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
//!   or the writers of the globals t's guard is false by (`reason.rs`),
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
//!   conflict;
//! * a *quiet* side (a self-loop at its thread's location with no effect,
//!   no received value and nothing that may fail: a memory cell's read,
//!   `q -> q { sync read!x; }` in BEEM's lamport_nonatomic) leaves its
//!   thread's store as it is, so two quiet sides of one thread commute:
//!   a thread held through quiet sides only brings in the transitions at
//!   its location that are not quiet, and its other quiet sides (with
//!   their partners) stay out until a member that changes its store (a
//!   write to the cell) is enabled in T; that member does not commute
//!   with them (`a_cells_enabled_write_brings_its_reads_back` in
//!   src/tests/por_quiet.rs is the case where leaving them out loses a
//!   deadlock).
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

mod at_state;
mod tables;

pub(super) use at_state::AtState;
pub(super) use tables::Stubborn;

use super::{Reducer, ThreadAt};
use crate::program::Program;
use crate::program::access::Slots;

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
    /// The disabled items whose enabling set is to be chosen once `work`
    /// is empty.
    later: Vec<Item>,
    held: Vec<bool>,
    holds: usize,
    /// The most threads that move the set may hold before it is given up
    /// for every thread (`usize::MAX`: no bound; `Reducer::one_step_set`
    /// looks only for sets with one successor). Set before each closure
    /// (`Reducer::seed_sets`).
    pub(super) most: usize,
    /// The threads held through quiet sides only, whose quiet sides at
    /// their location were left out (`Reducer::stubborn`).
    quietly: Vec<bool>,
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
        self.later.clear();
        self.held.clear();
        self.held.resize(threads, false);
        self.holds = 0;
        self.quietly.clear();
        self.quietly.resize(threads, false);
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
    /// move has one (the set reduces nothing), or more than `most` do (the
    /// caller wants no larger set: the closure is given up).
    fn hold(&mut self, u: usize, at: &AtState) -> bool {
        self.held[u] = true;
        self.holds += 1;
        self.holds == at.movers || self.holds > self.most
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
    ///
    /// The part of the closure that involves no choice (the enabled
    /// transitions, and what does not commute with them) is closed first,
    /// and a disabled transition's enabling set is chosen only once the
    /// work list holds nothing else: where that part already holds every
    /// thread that moves (no set, as where nothing reduces), no enabling
    /// set is computed at all, and where it does not, the choice sees
    /// more of the set (an option already in costs nothing). On fischer.4
    /// `--por` this took 10.2 s to 6.6 s, on lamport_nonatomic.4 14.5 s to
    /// 11.0 s (docs/performance.md, "Enabling sets chosen last").
    pub(super) fn stubborn(
        &self,
        st: &Stubborn,
        prog: &Program,
        threads: &[ThreadAt],
        (at, c): (&mut AtState, &mut Closing),
        seed: usize,
    ) -> Option<Vec<bool>> {
        let everyone = || Some(vec![true; threads.len()]);
        c.reset(st.owner.len(), threads.len());
        let here = |u: usize| &prog.template_of(u).outgoing[threads[u].pc as usize];
        for &ti in here(seed) {
            c.add(st, at, st.offset[seed] + ti);
        }
        loop {
            let (item, chosen_later) = match c.work.pop() {
                Some(item) => (item, false),
                None => match c.later.pop() {
                    Some(item) => (item, true),
                    None => break,
                },
            };
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
                // once: a thread's many rendezvous share them. A thread
                // held through a quiet side (a self-loop that changes
                // nothing, as a memory cell's read) does not move: its
                // other quiet sides commute with it and stay out, with
                // their partners, until an enabled member moves it.
                for &g in sides {
                    let u = st.owner[g as usize] as usize;
                    let pc = threads[u].pc;
                    let quiet = st.quiet_at(g, pc);
                    if !c.held[u] {
                        if c.hold(u, at) {
                            return everyone();
                        }
                        c.quietly[u] = quiet;
                        for &tj in here(u) {
                            let h = st.offset[u] + tj;
                            if !(quiet && st.quiet_at(h, pc)) {
                                c.add(st, at, h);
                            }
                        }
                    } else if c.quietly[u] && !quiet {
                        c.quietly[u] = false;
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
            if !chosen_later {
                c.later.push(item);
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
