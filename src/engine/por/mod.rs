//! Partial-order reduction: persistent sets of threads, computed as strong
//! stubborn sets (Valmari; Godefroid's persistent sets, the selective search
//! of seed 001, Cimatti, Narasamdya and Roveri, §4) from the static
//! dependence relation of `program/access.rs`.
//!
//! A set S of threads is closed when, for every thread T in S and every
//! transition t leaving T's current location:
//!
//! * t enabled: every thread U whose future (the transitions reachable from
//!   U's location) writes a global t reads, or touches a global t writes,
//!   is in S (t commutes with everything outside S, which cannot disable it);
//! * t disabled: every thread whose future writes a global t's guard reads
//!   is in S (a necessary enabling set: nothing outside S can enable t);
//! * t a rendezvous: every thread with the channel in its future is in S.
//!
//! Transitions of T at other locations need T to move first, and T is in
//! S; locals belong to their thread. So the enabled transitions of S form a
//! persistent set: every path from the state that avoids S commutes with
//! S's transitions and cannot enable a transition of S. Such a set preserves
//! every reachable deadlock and, with the cycle proviso of the search
//! (`standard/reduce.rs`), the firing of every transition: assertion and
//! run-time errors included.
//!
//! Properties: a set may be used instead of the full expansion only if none
//! of its enabled transitions is *visible*, that is, can change an atom of a
//! checked property (a global it reads, a thread-local slot it reads, or a
//! location test `@L`); this is the ample-set condition C2 (Clarke, Grumberg
//! and Peled, ch. 10), which with C3 (the proviso) preserves the reachability
//! of every error state. The `deadlock` predicate needs no visibility: every
//! deadlock of the full graph is a deadlock of the reduced one.
//!
//! The cycle proviso is needed to reach error states and run-time errors,
//! not deadlocks: it is asked only of a set that leaves out a thread which
//! may still take a visible step or fail (`Reducer::needs_proviso`).
//!
//! The closed sets grown from each thread with a move, by this closure and
//! by the finer closure over single transitions of `stubborn/` where it
//! applies, are offered to the search's cycle proviso: a set with one
//! thread that moves as soon as it is found, the others fewest successors
//! first. The first that passes is taken; when none does, the state is
//! fully expanded.

mod choose;
mod reason;
mod stubborn;

use super::atoms::Atoms;
use crate::program::access::{Accesses, Future, Slots, reachable_transitions};
use crate::program::ranges::Ranges;
use crate::program::{Ctx, Program, Release, Scheduler, Succs, Template, Val};
use reason::falsified_by;
use rustc_hash::FxHashMap;

/// The static part of the reduction: dependence and visibility.
pub(crate) struct Reducer {
    acc: Accesses,
    /// `visible[template][transition]` for threads whose locals no property
    /// reads.
    visible: Vec<Vec<bool>>,
    /// The same for the threads whose locals or locations a property reads.
    visible_of: FxHashMap<u32, Vec<bool>>,
    /// Transition-level sets (`stubborn/`), when the model allows them.
    stubborn: Option<stubborn::Stubborn>,
    /// `ahead[thread][location]`: can the thread, there, still reach a
    /// transition that is visible or may fail at run time
    /// (`needs_proviso`)?
    ahead: Vec<Vec<bool>>,
    /// Is any `ahead` true (may the proviso be needed at all)?
    uses_proviso: bool,
}

/// Per location of `tpl`: can a thread there still reach a transition
/// that is `marked`? (Every location, `everywhere`.)
fn marked_ahead(tpl: &Template, everywhere: bool, marked: impl Fn(usize) -> bool) -> Vec<bool> {
    (0..tpl.locations.len())
        .map(|loc| {
            everywhere
                || reachable_transitions(tpl, loc)
                    .iter()
                    .any(|&t| marked(t as usize))
        })
        .collect()
}

/// What `Reducer::choose` keeps from state to state: the state's view
/// and the set being closed (`stubborn/`).
#[derive(Default)]
pub(crate) struct Buffers {
    at: stubborn::AtState,
    closing: stubborn::Closing,
}

/// A thread of the state being reduced: its stores and successors.
pub(crate) struct ThreadAt<'a> {
    pub(crate) pc: u16,
    pub(crate) succs: &'a Succs,
    /// The rendezvous it takes part in.
    pub(crate) pairs: u32,
    pub(crate) g: &'a [Val],
    pub(crate) l: &'a [Val],
}

impl ThreadAt<'_> {
    /// Its successors: its own steps, a failing one, its rendezvous.
    fn moves(&self) -> usize {
        self.succs.steps.len() + self.succs.error.is_some() as usize + self.pairs as usize
    }

    /// What this thread's expressions are evaluated against.
    fn ctx<'c>(&'c self, prog: &Program, thread: usize) -> Ctx<'c> {
        Ctx {
            g: self.g,
            tid: prog.threads[thread].tid,
            template: prog.threads[thread].template as usize,
            l: self.l,
            state: None,
            terms: &[],
        }
    }
}

impl Reducer {
    pub(crate) fn new(prog: &Program, props: &[usize]) -> Reducer {
        let acc = Accesses::new(prog);
        let atoms = Atoms::of(prog, props);
        let visible: Vec<Vec<bool>> = acc
            .transitions
            .iter()
            .map(|trs| {
                trs.iter()
                    .map(|a| {
                        atoms.everything || a.whole_state || a.writes.intersects(&atoms.globals)
                    })
                    .collect()
            })
            .collect();
        // A step is visible if any transition of its macro-step is.
        let block_visible = |row: Vec<bool>, tpl: usize| -> Vec<bool> {
            acc.blocks[tpl]
                .iter()
                .map(|block| block.iter().any(|&t| row[t as usize]))
                .collect()
        };
        let visible: Vec<Vec<bool>> = visible
            .into_iter()
            .enumerate()
            .map(|(tpl, row)| block_visible(row, tpl))
            .collect();
        let mut visible_of = FxHashMap::default();
        let watched = atoms.locals.keys().chain(atoms.masks.keys());
        for &t in watched {
            if visible_of.contains_key(&t) {
                continue;
            }
            let tpl_id = prog.threads[t as usize].template as usize;
            let tpl = &prog.templates[tpl_id];
            let slots = atoms.locals.get(&t);
            let masks = atoms.masks.get(&t).map(Vec::as_slice).unwrap_or(&[]);
            let row = tpl
                .transitions
                .iter()
                .zip(&acc.transitions[tpl_id])
                .zip(&visible[tpl_id])
                .map(|((tr, a), &global)| {
                    global
                        || slots.is_some_and(|s| a.local_writes.intersects(s))
                        || masks.iter().any(|m| {
                            tr.from
                                .iter()
                                .any(|&f| m.get(f as usize) != m.get(tr.to as usize))
                        })
                })
                .collect();
            visible_of.insert(t, block_visible(row, tpl_id));
        }
        let stubborn = stubborn::Stubborn::new(prog, &acc.transitions);
        // What a reduced cycle could put off for ever: a visible step (an
        // error state) or a run-time error.
        // Under a cooperative scheduler a thread also fails where its turn
        // gets stuck, which no single transition shows (`cooperative.rs`,
        // found in review): the proviso everywhere.
        let everywhere = prog.scheduler.is_some();
        let fallible = Ranges::fallible(prog);
        // Per template, then per thread (its own row where a property reads
        // its locals or locations).
        let of_template: Vec<Vec<bool>> = (0..prog.templates.len())
            .map(|tpl| {
                marked_ahead(&prog.templates[tpl], everywhere, |t| {
                    visible[tpl][t] || fallible[tpl][t]
                })
            })
            .collect();
        let ahead: Vec<Vec<bool>> = (0..prog.threads.len())
            .map(|t| {
                let tpl = prog.threads[t].template as usize;
                match visible_of.get(&(t as u32)) {
                    Some(row) => marked_ahead(&prog.templates[tpl], everywhere, |k| {
                        row[k] || fallible[tpl][k]
                    }),
                    None => of_template[tpl].clone(),
                }
            })
            .collect();
        let uses_proviso = ahead.iter().flatten().any(|&a| a);
        Reducer {
            acc,
            visible,
            visible_of,
            stubborn,
            ahead,
            uses_proviso,
        }
    }

    /// Must the search's cycle proviso pass before `set` (the threads to
    /// expand) is taken? The proviso keeps a reduced cycle from putting off
    /// for ever what the search looks for (the ignoring problem): an error
    /// state, which a visible transition leads to, or a run-time error.
    /// Deadlocks need none: persistent sets alone preserve every deadlock
    /// (Godefroid's thesis, Theorem 4.3; Valmari): on a path to a deadlock
    /// the first transition of the set commutes to the front, and a path
    /// with none leaves the set's enabled transitions enabled at its end,
    /// which is then no deadlock. And what a path that avoids the set puts
    /// off is done by a thread the set leaves out: a thread in the set has
    /// all its transitions at its location in the set (but quiet
    /// rendezvous sides, which leave its store as it is: `stubborn/`), so
    /// its store does not change on such a path. So the proviso is needed only by a set that leaves
    /// out a thread which may still reach a visible transition or one that
    /// the range analysis cannot prove infallible (`Ranges::fallible`); on
    /// a deadlock check nothing is visible. The proof is in
    /// standard/reduce.rs.
    pub(crate) fn needs_proviso(&self, threads: &[ThreadAt], set: &[bool]) -> bool {
        (0..threads.len()).any(|t| !set[t] && self.ahead[t][threads[t].pc as usize])
    }

    /// May the proviso be needed at all (`needs_proviso`)?
    pub(crate) fn uses_proviso(&self) -> bool {
        self.uses_proviso
    }

    fn is_visible(&self, prog: &Program, thread: usize, trans: u32) -> bool {
        match self.visible_of.get(&(thread as u32)) {
            Some(row) => row[trans as usize],
            None => self.visible[prog.threads[thread].template as usize][trans as usize],
        }
    }

    /// The least closed set holding `seed`, or `None` when it holds an
    /// enabled visible transition; every thread once more than `most`
    /// threads that can move are in it (the caller then takes a set of
    /// another seed, or none).
    fn closure(
        &self,
        prog: &Program,
        threads: &[ThreadAt],
        (groups, most): (&Groups, usize),
        seed: usize,
    ) -> Option<Vec<bool>> {
        let mut set = vec![false; threads.len()];
        let mut added = vec![false; groups.members.len()];
        let mut work = vec![seed];
        set[seed] = true;
        let moves = |t: usize| threads[t].moves() > 0;
        let movers = (0..threads.len()).filter(|&t| moves(t)).count();
        let mut held = 1;
        let ctx = |t: usize| threads[t].ctx(prog, t);
        // What each thread outside the set can still do without it
        // (recomputed as the set grows), where groups are single threads.
        let mut relative: Option<(usize, Vec<Future>)> = None;
        while let Some(t) = work.pop() {
            if groups.singletons {
                let size = set.iter().filter(|x| **x).count();
                if relative.as_ref().is_none_or(|(n, _)| *n != size) {
                    let fs = match &prog.scheduler {
                        Some(s) => self.futures_without(prog, s, threads, &set),
                        None => self.futures_guarded(prog, threads, &set),
                    };
                    relative = Some((size, fs));
                }
            }
            let tpl_id = prog.threads[t].template as usize;
            let tpl = &prog.templates[tpl_id];
            let here = threads[t].succs;
            for &ti in &tpl.outgoing[threads[t].pc as usize] {
                let a = &self.acc.transitions[tpl_id][ti as usize];
                // A disabled transition's necessary enabling set: the
                // writers of the globals its guard is false by.
                let mut enabling: Option<Slots> = None;
                // Only a thread's first failing transition is recorded: with
                // a failure, every transition here counts as enabled.
                let enabled = here.error.is_some() || here.steps.iter().any(|s| s.trans == ti);
                if (enabled || a.channel.is_some()) && self.is_visible(prog, t, ti) {
                    return None;
                }
                for (k, &(g_tpl, g_pc)) in groups.keys.iter().enumerate() {
                    if added[k] {
                        continue;
                    }
                    let f = match &relative {
                        Some((_, fs)) => &fs[groups.members[k][0] as usize],
                        None => &self.acc.future[g_tpl as usize][g_pc as usize],
                    };
                    let conflict = a.whole_state
                        || f.whole_state
                        || a.channel.is_some_and(|c| f.channels.contains(c))
                        || if enabled || a.channel.is_some() {
                            a.writes.intersects(&f.reads)
                                || a.writes.intersects(&f.writes)
                                || a.reads.intersects(&f.writes)
                        } else {
                            enabling
                                .get_or_insert_with(|| {
                                    let guard = tpl.transitions[ti as usize].guard.as_ref();
                                    let mut by =
                                        guard.map(|e| falsified_by(e, &ctx(t))).unwrap_or_default();
                                    by.union_with(&a.implicit_guard);
                                    by
                                })
                                .intersects(&f.writes)
                        };
                    if conflict {
                        added[k] = true;
                        for &u in &groups.members[k] {
                            if !set[u as usize] {
                                set[u as usize] = true;
                                work.push(u as usize);
                                held += moves(u as usize) as usize;
                            }
                        }
                        if held == movers {
                            return Some(set); // every thread that moves
                        }
                        if held > most {
                            return Some(vec![true; threads.len()]); // given up
                        }
                    }
                }
            }
        }
        Some(set)
    }
}

impl Reducer {
    /// What each thread outside `set` may do on a run that avoids `set`'s
    /// threads: a transition at its location may fire if it is enabled, or
    /// if such a run may write a global its guard is false by (the least
    /// fixpoint over those writes), and then anything after it. A thread
    /// blocked by guards only the set's threads can open does nothing
    /// (Valmari's stubborn sets need not hold what cannot move).
    fn futures_guarded(&self, prog: &Program, threads: &[ThreadAt], set: &[bool]) -> Vec<Future> {
        let n = threads.len();
        let mut futures = vec![Future::default(); n];
        let outgoing = |u: usize| {
            let tpl = prog.template_of(u);
            &tpl.outgoing[threads[u].pc as usize]
        };
        let mut fired: Vec<Vec<bool>> = (0..n).map(|u| vec![false; outgoing(u).len()]).collect();
        let mut blocked_by: Vec<Vec<Option<Slots>>> =
            (0..n).map(|u| vec![None; outgoing(u).len()]).collect();
        let mut writes = Slots::default();
        loop {
            let mut changed = false;
            for u in (0..n).filter(|&u| !set[u]) {
                let tpl_id = prog.threads[u].template as usize;
                let tpl = &prog.templates[tpl_id];
                let here = threads[u].succs;
                for (k, &ti) in outgoing(u).iter().enumerate() {
                    if fired[u][k] {
                        continue;
                    }
                    let a = &self.acc.single[tpl_id][ti as usize];
                    let tr = &tpl.transitions[ti as usize];
                    let can = here.error.is_some()
                        || here.steps.iter().any(|s| s.trans == ti)
                        || a.channel.is_some()
                        || a.whole_state
                        || blocked_by[u][k]
                            .get_or_insert_with(|| {
                                let ctx = threads[u].ctx(prog, u);
                                tr.guard
                                    .as_ref()
                                    .map(|e| falsified_by(e, &ctx))
                                    .unwrap_or_default()
                            })
                            .intersects(&writes);
                    if !can {
                        continue;
                    }
                    fired[u][k] = true;
                    changed = true;
                    let f = &mut futures[u];
                    let after = &self.acc.future[tpl_id][tr.to as usize];
                    for (r, w, c, whole) in [
                        (&a.reads, &a.writes, a.channel, a.whole_state),
                        (&after.reads, &after.writes, None, after.whole_state),
                    ] {
                        f.reads.union_with(r);
                        f.writes.union_with(w);
                        writes.union_with(w);
                        if let Some(c) = c {
                            f.channels.insert(c);
                        }
                        f.whole_state |= whole;
                    }
                    f.channels.union_with(&after.channels);
                }
            }
            if !changed {
                return futures;
            }
        }
    }

    /// Cooperative models: what each thread outside `set` may do on a run
    /// that avoids `set`'s threads. A thread past a `wait e` goes on only if
    /// a thread outside the set may notify e on such a run, a thread waiting
    /// now likewise: the least fixpoint over the notified events (seed
    /// 001's dependence, §4, made relative to the set). Threads in the set
    /// get nothing.
    fn futures_without(
        &self,
        prog: &Program,
        s: &Scheduler,
        threads: &[ThreadAt],
        set: &[bool],
    ) -> Vec<Future> {
        let mut notified: Vec<u32> = Vec::new();
        loop {
            let mut now: Vec<u32> = Vec::new();
            let futures: Vec<Future> = (0..threads.len())
                .map(|u| {
                    let mut f = Future::default();
                    let waits = threads[u].g[s.waiting as usize + u] as u32;
                    if set[u] || (waits != 0 && !notified.contains(&waits)) {
                        return f;
                    }
                    let tpl_id = prog.threads[u].template as usize;
                    let tpl = &prog.templates[tpl_id];
                    let mut seen = vec![false; tpl.locations.len()];
                    let mut stack = vec![threads[u].pc as usize];
                    seen[threads[u].pc as usize] = true;
                    while let Some(loc) = stack.pop() {
                        for &ti in &tpl.outgoing[loc] {
                            let tr = &tpl.transitions[ti as usize];
                            let a = &self.acc.single[tpl_id][ti as usize];
                            f.reads.union_with(&a.reads);
                            f.writes.union_with(&a.writes);
                            f.whole_state |= a.whole_state;
                            now.extend(tr.coop.notify.iter().copied());
                            let goes_on = match tr.coop.release {
                                Some(Release::Wait(e)) => notified.contains(&e),
                                _ => true,
                            };
                            if goes_on && !seen[tr.to as usize] {
                                seen[tr.to as usize] = true;
                                stack.push(tr.to as usize);
                            }
                        }
                    }
                    f
                })
                .collect();
            now.sort_unstable();
            now.dedup();
            if now.iter().all(|e| notified.contains(e)) {
                return futures;
            }
            notified.extend(now);
            notified.sort_unstable();
            notified.dedup();
        }
    }
}

/// Up to this many threads, each thread's future is computed relative to
/// the set (`futures_guarded`); beyond, threads share their location's
/// static future, decided once per group.
const PRECISE_UP_TO: usize = 64;

/// The threads of a state grouped by (template, location): threads of one
/// group have the same static future, so a conflict is decided once per
/// group. Or each thread alone, its future relative to the set.
struct Groups {
    keys: Vec<(u32, u16)>,
    members: Vec<Vec<u32>>,
    singletons: bool,
}

impl Groups {
    /// In a cooperative model, and in a model of few threads, each thread
    /// is a group of its own: its future depends on the events it waits
    /// for, or on the guards it is blocked by.
    fn of(prog: &Program, threads: &[ThreadAt]) -> Groups {
        if prog.scheduler.is_some() || threads.len() <= PRECISE_UP_TO {
            return Groups {
                singletons: true,
                keys: (0..threads.len())
                    .map(|t| (prog.threads[t].template, threads[t].pc))
                    .collect(),
                members: (0..threads.len() as u32).map(|t| vec![t]).collect(),
            };
        }
        let mut index: FxHashMap<(u32, u16), usize> = FxHashMap::default();
        let mut g = Groups {
            keys: Vec::new(),
            members: Vec::new(),
            singletons: false,
        };
        for (t, th) in threads.iter().enumerate() {
            let key = (prog.threads[t].template, th.pc);
            let k = *index.entry(key).or_insert_with(|| {
                g.keys.push(key);
                g.members.push(Vec::new());
                g.keys.len() - 1
            });
            g.members[k].push(t as u32);
        }
        g
    }
}
