//! Cooperative scheduling (seed 001, Cimatti, Narasamdya and Roveri, §2 and
//! §3): at most one thread runs at a time, and it runs until it waits for
//! an event, yields, or ends; the scheduler then picks any runnable thread
//! (SystemC's and FairThreads' nondeterministic choice).
//!
//! A step of a cooperative thread is therefore a whole macro-step: from a
//! scheduling point, the chosen thread fires transitions (each a step of
//! its own, with the usual guards and nondeterminism) until one of them
//! releases the processor (`wait`, `yield`, or a location no transition
//! leaves). Only the scheduling points are states of the search, as the
//! atomic blocks of ESST's §4 are; a macro-step is named in traces by the
//! transition it starts with.
//!
//! The scheduler state is exact and global, `waiting[i]` per thread (0:
//! runnable; e: waiting for event e), as the paper keeps the scheduler
//! state explicit beside the threads' abstract state. A thread waiting for
//! an event cannot start a macro-step; `notify e` makes every thread waiting
//! for e runnable at once (an immediate notification: one with no waiter is
//! lost). A running thread with no enabled transition, before it releases
//! the processor, is a model error: a cooperative thread blocks only in a
//! `wait`. Macro-steps that loop for ever without releasing the processor
//! give no successor (the run never reaches a scheduling point).

use super::access::Access;
use super::explore::{Explorer, Succs};
use super::fire::fire_all_counting;
use super::step_budget::{Ends, Seen, StepPoll};
use super::{Program, Release, Scheduler, Template, Val};

/// The transitions a macro-step starting with `first` may fire: those
/// reachable through transitions that do not release the processor.
pub(crate) fn block(tpl: &Template, first: u32) -> Vec<u32> {
    let mut seen = vec![false; tpl.transitions.len()];
    let mut work = vec![first];
    seen[first as usize] = true;
    let mut out = Vec::new();
    while let Some(t) = work.pop() {
        out.push(t);
        let tr = &tpl.transitions[t as usize];
        if tr.coop.release.is_some() {
            continue;
        }
        for &next in &tpl.outgoing[tr.to as usize] {
            if !seen[next as usize] {
                seen[next as usize] = true;
                work.push(next);
            }
        }
    }
    out
}

/// What the scheduler reads and writes for each transition (the
/// dependence of seed 001, §4: a notification and a wait for the same
/// event are dependent): a step reads its thread's `waiting` cell (to
/// start), `notify e` reads and writes the cells of the threads that can
/// wait for e, `wait e` writes its own thread's cell. Per template, "its
/// thread" is every instance.
pub(crate) fn add_scheduler_access(prog: &Program, s: &Scheduler, acc: &mut [Vec<Access>]) {
    let cells = |template: usize| {
        prog.threads
            .iter()
            .enumerate()
            .filter(move |(_, th)| th.template as usize == template)
            .map(move |(i, _)| s.waiting + i as u32)
    };
    let waiters = |e: u32| {
        prog.templates.iter().enumerate().filter_map(move |(i, t)| {
            t.transitions
                .iter()
                .any(|tr| tr.coop.release == Some(Release::Wait(e)))
                .then_some(i)
        })
    };
    for (ti, tpl) in prog.templates.iter().enumerate() {
        for (tr, a) in tpl.transitions.iter().zip(acc[ti].iter_mut()) {
            for c in cells(ti) {
                a.implicit_guard.insert(c);
                a.reads.insert(c);
                if matches!(tr.coop.release, Some(Release::Wait(_))) {
                    a.writes.insert(c);
                }
            }
            for &e in &tr.coop.notify {
                for w in waiters(e) {
                    for c in cells(w) {
                        a.reads.insert(c);
                        a.writes.insert(c);
                    }
                }
            }
        }
    }
}

/// Applies a fired transition's scheduler effects to the stores after its
/// `do`: notifications first, then the thread's own wait. True when the
/// thread releases the processor.
fn schedule(prog: &Program, thread: usize, trans: u32, g: &mut [Val], l: &[Val]) -> bool {
    let Some(s) = &prog.scheduler else {
        return true;
    };
    let tpl = prog.template_of(thread);
    let coop = &tpl.transitions[trans as usize].coop;
    let waiting = s.waiting as usize;
    for &e in &coop.notify {
        for w in &mut g[waiting..waiting + prog.threads.len()] {
            if *w == e as Val {
                *w = 0;
            }
        }
    }
    match coop.release {
        Some(Release::Wait(e)) => {
            g[waiting + thread] = e as Val;
            true
        }
        Some(Release::Yield) => true,
        None => tpl.outgoing[l[0] as usize].is_empty(),
    }
}

impl Explorer<'_> {
    /// The macro-steps of `thread` from the scheduling point `(g, l)`.
    pub(super) fn compute_macro(&mut self, thread: usize, g: u32, l: u32) -> Succs {
        let prog = self.prog;
        let Some(s) = &prog.scheduler else {
            return Succs::default();
        };
        let mut out = Succs::default();
        let gs = self.globals.get(g).to_vec();
        if gs[s.waiting as usize + thread] != 0 {
            return out; // waiting for an event
        }
        let ls = self.local(thread, l).to_vec();
        let template = prog.threads[thread].template as usize;
        // Stores in the middle of a macro-step, with the transition it
        // started with; each pair is continued once.
        let mut seen = Seen::default();
        // Ends by the transition they start with: each first transition
        // that can move is a step of its own (partial-order reduction reads
        // which transitions are enabled from the steps).
        let mut ends = Ends::default();
        let mut work = vec![(gs, ls, None::<u32>)];
        let mut fired = Vec::new();
        let mut poll = StepPoll::default();
        while let Some((gs, ls, first)) = work.pop() {
            fired.clear();
            let taken = self.taken.as_ref();
            let error = fire_all_counting(prog, thread, (&gs, &ls), &mut fired, &mut 0, taken);
            if let Some((ti, msg)) = error {
                out.error.get_or_insert((first.unwrap_or(ti), msg));
            }
            if first.is_some() && fired.is_empty() && out.error.is_none() {
                let tpl = prog.template_of(thread);
                let msg = format!(
                    "{} is running at `{}` and none of its transitions is enabled: a cooperative thread blocks only in a `wait`",
                    prog.threads[thread].name, tpl.locations[ls[0] as usize]
                );
                out.error = Some((first.unwrap_or(0), msg));
            }
            let (steps, tables) = ((&mut poll, fired.len()), (&seen, &ends));
            if self.step_exhausted((thread, template), steps, tables, &mut out) {
                break;
            }
            for (mut g2, l2, ti) in fired.drain(..) {
                let first = first.unwrap_or(ti);
                if schedule(prog, thread, ti, &mut g2, &l2) {
                    self.end_step(template, (&g2, &l2), first, &mut ends, &mut out);
                } else if seen.insert((g2.clone(), l2.clone(), first)) {
                    work.push((g2, l2, Some(first)));
                }
            }
        }
        out
    }
}
