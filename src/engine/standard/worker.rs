//! The worker side of `standard`'s level-synchronous search: what every
//! worker reads during a level (`Shared`), its scratch buffers, and the
//! expansion of one state: successors by every thread whose successors are
//! memoised (the others fired here for the coordinator to intern,
//! `deferred.rs`), its rendezvous planned, properties and deadlocks
//! checked, successors batched into the sharded visited set.

use super::super::store::{self, Level, StateStore};
use super::super::symmetry::Symmetry;
use super::super::{Budget, POLL_EVERY};
use super::counter::Counters;
use super::found::{Batch, Candidate, Finding, Planned, Prefired};
use super::pass::Passed;
use super::reduce::Decisions;
use crate::program::explore::Fired;
use crate::program::rendezvous::{Offers, SyncPlan};
use crate::program::{Explorer, Succs};
use crate::property::ConcreteChecker;
use crossbeam_utils::CachePadded;
use rayon::prelude::*;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// The fewest states in a part of a level handed to one worker: smaller
/// parts cost more than they share out. (plc.4's levels hold 480 states on
/// average, each costly to expand: with 1024 they all ran on one thread.)
pub(super) const PART: usize = 128;

/// A worker's scratch buffers and property tables, kept from state to
/// state and level to level.
pub(super) struct Scratch {
    pub(super) state: Vec<u32>,
    pub(super) next: Vec<u32>,
    pub(super) packed: Vec<u64>,
    /// Successors waiting to be inserted.
    pub(super) batch: store::Batch,
    pub(super) checkers: Vec<ConcreteChecker>,
    /// The `deadlock` predicate, when deadlocks are counted.
    pub(super) deadlock: Option<ConcreteChecker>,
    /// Units of work (`must_stop`) since this worker last polled the budget.
    pub(super) since_poll: u32,
    /// Each thread's rendezvous offers, and a state's plan of them.
    pub(super) offers: Vec<Offers>,
    pub(super) plan: SyncPlan,
}

/// What every worker reads during a level.
pub(super) struct Shared<'a, 'p> {
    pub(super) exp: &'a Explorer<'p>,
    pub(super) sym: Option<&'a Symmetry>,
    pub(super) ctr: Option<&'a Counters>,
    pub(super) escaped: &'a AtomicBool,
    pub(super) visited: &'a StateStore,
    pub(super) level: &'a Level,
    pub(super) props: &'a [usize],
    /// Properties already violated in an earlier level.
    pub(super) done: &'a [bool],
    /// `--continue`: check the violated properties too, to count.
    pub(super) keep_going: bool,
    /// Per program property: may its predicate fail to evaluate
    /// (`access::may_fail`)? Such a property is still evaluated once
    /// violated, for its failures: they are model errors.
    pub(super) fallible: &'a [bool],
    /// One scratch per worker thread, each on cache lines of its own.
    pub(super) scratch: &'a [CachePadded<Mutex<Scratch>>],
    /// Buffers to fire successors into (`Search::spare_fired`).
    pub(super) spare_fired: &'a Mutex<Vec<Fired>>,
    pub(super) budget: &'a Budget,
    pub(super) stop: &'a AtomicBool,
    /// `--por`: the threads each state of the level is expanded by.
    pub(super) decisions: Option<&'a Decisions>,
    /// `--por`: the successors passed through, where any is (`pass/`).
    pub(super) passed: Option<&'a Passed>,
    /// The program's error state, packed: the successor of every
    /// transition that fails at run time (`program/error_state.rs`).
    pub(super) error_key: Option<&'a [u64]>,
}

impl Shared<'_, '_> {
    /// Counts one state handled by worker `w`, as one unit per thread (a
    /// state costs about a successor lookup per thread); every
    /// `POLL_EVERY` units, polls the budget. True when the search must
    /// stop (a budget ran out here or elsewhere, or the visited set
    /// refused a state). Counted per state, lock(200, 9)'s states (0.5 ms
    /// each) went 2.4 s between polls, and its runs overran `--timeout`.
    pub(super) fn must_stop(&self, w: &mut Scratch) -> bool {
        w.since_poll += self.exp.prog.threads.len().max(1) as u32;
        if w.since_poll < POLL_EVERY {
            return false;
        }
        w.since_poll = 0;
        if self.stop.load(Ordering::Relaxed) {
            return true;
        }
        let v = self.visited;
        let out = v.is_full() || self.budget.exceeded_now(v.len(), v.capacity()).is_some();
        if out {
            self.stop.store(true, Ordering::Relaxed);
        }
        out
    }

    /// Expands state `i` of the level by every thread whose successors are
    /// memoised and checks the properties on it.
    pub(super) fn expand(&self, i: usize, w: &mut Scratch, b: &mut Batch) {
        self.visited
            .packer
            .unpack(self.level.packed(i), &mut w.state);
        let quiet = match self.ctr {
            Some(ctr) => self.expand_counted(ctr, i, w, b),
            None => self.expand_threads(i, w, b),
        };
        let prog = self.exp.prog;
        // (Symmetry, and so counters, refuse channels.)
        if self.ctr.is_none() && !prog.channels.is_empty() {
            self.plan_rendezvous(i, w, b);
        }
        // `deadlock` decided directly, once, where it may hold (`None`:
        // not asked yet; `Some(None)`: the predicate must be evaluated).
        let mut deadlocked: Option<Option<bool>> = None;
        let mut direct = |state: &[u32]| {
            *deadlocked.get_or_insert_with(|| match self.ctr {
                None => self.exp.deadlocked(state[0], &state[1..]),
                Some(_) => None,
            })
        };
        for (k, &p) in self.props.iter().enumerate() {
            let prop = &prog.properties[p];
            // Violated in an earlier level: only its evaluation failures
            // are still looked for, else `model-errors` would be `safe`
            // over states where the property was never evaluated.
            let settled = self.done[k] && !self.keep_going;
            // A deadlock needs a state where no thread moves on its own.
            if (settled && !self.fallible[p]) || (prop.only_in_deadlocks && !quiet) {
                continue;
            }
            let value = match prop.is_deadlock.then(|| direct(&w.state)).flatten() {
                Some(d) => Ok(d),
                None => self.check(&mut w.checkers[k], &prop.error, &w.state),
            };
            match value {
                Ok(true) if !settled => {
                    b.errors[k] += 1;
                    b.note_violation(k, Some(i as u32), self.level);
                }
                Ok(_) => {}
                Err(_) => self.note(b, i, Finding::PropertyError(k as u32)),
            }
        }
        if quiet
            && let Some(d) = &mut w.deadlock
            && let Ok(true) =
                direct(&w.state).map_or_else(|| self.check(d, &prog.deadlock, &w.state), Ok)
        {
            b.deadlocks += 1;
        }
    }

    /// Inserts the successors of state `i` (unpacked in `w.state`) by every
    /// thread whose successors are memoised and defers the others. True
    /// when no thread can move on its own (a rendezvous may still happen;
    /// a step that fails moves nowhere, `deadlock` then deciding whether
    /// its guard was true, unless the program has an error state, where
    /// the failing step goes).
    pub(super) fn expand_threads(&self, i: usize, w: &mut Scratch, b: &mut Batch) -> bool {
        let (g, locals) = (w.state[0], &w.state[1..]);
        let divine = self.error_key.is_some();
        let mut quiet = true;
        for t in 0..locals.len() {
            if self.sym.is_some_and(|s| s.repeats(&w.state, t)) {
                continue;
            }
            let (class, l) = (self.exp.memo_class(t), w.state[1 + t]);
            let succs = self.exp.memoised(class, g, l);
            if self.decisions.is_some_and(|d| !d.expands(i, t)) {
                // Left out by the persistent set: it still counts for quiet.
                quiet = quiet
                    && match succs {
                        Some(s) => !s.moves(divine),
                        None => !self.exp.may_move(t, g, l),
                    };
                continue;
            }
            match succs {
                Some(succs) => {
                    quiet &= !succs.moves(divine);
                    self.emit(i, t, succs, w, b);
                }
                // Fired here, interned by the coordinator: firing there
                // was most of its time where nearly every state has a
                // global store of its own (schedule_world, plc).
                None if self.exp.fires_read_only() => {
                    if b.fired.is_empty() {
                        let mut spare = self.spare_fired.lock().unwrap_or_else(|e| e.into_inner());
                        b.fired.push(spare.pop().unwrap_or_default());
                    }
                    let part = b.fired.len() - 1;
                    let f = &mut b.fired[part];
                    let (trans, values) = (f.trans.len(), f.values.len());
                    let (error, failures) = self.exp.fire_flat(t, g, l, f);
                    quiet = quiet && f.trans.len() == trans && !(divine && failures > 0);
                    b.prefired.push(Prefired {
                        index: i as u32,
                        thread: t as u32,
                        part: part as u32,
                        trans: trans..f.trans.len(),
                        values: values..f.values.len(),
                        error,
                        failures,
                    });
                }
                None => {
                    // Once another thread is known to move, the guards
                    // need not be evaluated here (the coordinator will).
                    quiet = quiet && !self.exp.may_move(t, g, l);
                    b.deferred.push((i as u32, t as u32));
                }
            }
        }
        quiet
    }

    /// Plans the rendezvous of state `i` (unpacked in `w.state`) for the
    /// coordinator, which fires them and interns the stores: pairing the
    /// offers here, in parallel, was most of the coordinator's time on
    /// BEEM's rendezvous-heavy models (lup.3, pgm_protocol.8).
    fn plan_rendezvous(&self, i: usize, w: &mut Scratch, b: &mut Batch) {
        let (g, locals) = (w.state[0], &w.state[1..]);
        self.exp.plan_syncs(g, locals, &mut w.offers, &mut w.plan);
        let plan = &mut w.plan;
        if plan.pairs.is_empty() && plan.failed.is_empty() && plan.error.is_none() {
            return;
        }
        let start = b.pairs.len();
        b.pairs.extend_from_slice(&plan.pairs);
        b.syncs.push(Planned {
            index: i as u32,
            pairs: start..b.pairs.len(),
            failed: plan.failed.len() as u32,
            error: plan.error.take(),
        });
    }

    /// Runs `f` on every index of `0..count` on the workers, each part of
    /// the range with its worker's scratch; merges what they report.
    pub(super) fn run_parts(
        &self,
        count: usize,
        f: impl Fn(usize, &mut Scratch, &mut Batch) + Sync,
    ) -> Batch {
        let props = self.props.len();
        let parts = (count / PART).clamp(1, 16 * self.scratch.len());
        let part = |p: usize| {
            let mut b = Batch::new(props);
            // A part runs to completion on one thread without waiting
            // on others, so its worker's scratch is free.
            let me = rayon::current_thread_index().unwrap_or(0) % self.scratch.len();
            let mut w = self.scratch[me].lock().unwrap_or_else(|e| e.into_inner());
            if self.stop.load(Ordering::Relaxed) {
                return b;
            }
            for i in count * p / parts..count * (p + 1) / parts {
                if self.must_stop(&mut w) {
                    break;
                }
                f(i, &mut w, &mut b);
            }
            self.visited.flush(&mut w.batch);
            b
        };
        // One part runs here: handing it to rayon would wake a worker and
        // wait for it (tens of µs, per level: most of lock(n, 1)'s time,
        // whose 3n levels hold one state each).
        if parts == 1 {
            return part(0);
        }
        (0..parts)
            .into_par_iter()
            .map(part)
            .reduce(|| Batch::new(props), |a, b| a.merge(b, self.level))
    }

    /// Inserts the successors of state i (unpacked in `w.state`) by thread
    /// t: each is the packed state with two fields rewritten (the global
    /// store and the thread's local store), or, under symmetry, the state
    /// canonicalised and packed again.
    pub(super) fn emit(&self, i: usize, t: usize, succs: &Succs, w: &mut Scratch, b: &mut Batch) {
        if let Some(ctr) = self.ctr {
            // `t` is a position of the counter state.
            return self.emit_counted(ctr, i, t, succs, w, b);
        }
        if succs.error.is_some() {
            self.note(b, i, Finding::Stuck(t as u32));
            if let Some(key) = self.error_key {
                b.transitions += u64::from(succs.failures);
                self.visited.push(&mut w.batch, key);
            }
        }
        let packer = &self.visited.packer;
        for step in &succs.steps {
            b.transitions += 1;
            if let Some(sym) = self.sym {
                w.next.clone_from(&w.state);
                w.next[0] = step.g;
                w.next[1 + t] = step.l;
                sym.reposition(&mut w.next, t);
                packer.pack(&w.next, &mut w.packed);
            } else {
                w.packed.clear();
                w.packed.extend_from_slice(self.level.packed(i));
                packer.put(&mut w.packed, 0, step.g);
                packer.put(&mut w.packed, 1 + t, step.l);
            }
            self.push(&mut w.batch, &w.packed);
        }
    }

    /// Inserts the successor `key`, or, if the search passes through it,
    /// the state its chain leads to (`pass/`; nothing for a cycle of
    /// passed states).
    pub(super) fn push(&self, batch: &mut store::Batch, key: &[u64]) {
        match self.passed {
            None => self.visited.push(batch, key),
            Some(p) => {
                if let Some(key) = p.lead(key) {
                    self.visited.push(batch, key);
                }
            }
        }
    }

    pub(super) fn note(&self, b: &mut Batch, i: usize, finding: Finding) {
        let c = Candidate {
            index: i as u32,
            finding,
        };
        b.note_error(Some(c), self.level);
    }
}
