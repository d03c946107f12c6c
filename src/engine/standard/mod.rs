//! `standard`: exact reachability over all interleavings (the papers' rules
//! BASIC INIT and BASIC STEP), by breadth-first search so that the first
//! error found has a shortest trace. The visited set keeps each state once,
//! with its BFS depth as a tag and no parent link: the trace is rebuilt
//! backwards level by level (`rebuild.rs`, as stateright rebuilds paths).
//!
//! The search is level-synchronous and runs on `--jobs` worker threads
//! (rayon): the states of one BFS level are expanded in parallel
//! (`worker.rs`) into the sharded visited set (`store/`). Workers only read
//! the explorer: a successor that is not memoised yet is fired by the
//! worker into its part's flat buffer (from a pool, reused from chunk to
//! chunk) and interned by the coordinating thread (the only one that
//! interns new stores), chunk by chunk of the level; a
//! state's rendezvous are planned by the worker and fired by the
//! coordinator; both are then inserted in parallel too. Properties are
//! checked on every state of a level; of the violations found in one
//! level, the least state (by its packed words) is reported, so the
//! verdict, the state count and the trace length are the same for every
//! number of jobs.
//!
//! Budgets stop the search inside a level too: every worker polls the
//! budget every `POLL_EVERY` states it expands, the coordinator more often
//! while it computes deferred successors and rendezvous, and the visited
//! set refuses any state beyond `--max-states`, so the count stops exactly
//! there. What the expanded part of the level found is reported.

mod counter;
mod deferred;
mod found;
mod pass;
mod rebuild;
mod reduce;
mod run;
mod worker;

use super::Budget;
use super::CheckError;
#[cfg(test)]
use super::CheckOptions;
use super::por::Reducer;
use super::store::{self, Level, StateStore};
use super::symmetry::Symmetry;
#[cfg(test)]
use crate::program::Val;
use crate::program::explore::Fired;
use crate::program::{Explorer, Program};
use crate::property::{self, ConcreteChecker};
use counter::Counters;
pub(crate) use counter::Repr;
#[cfg(test)]
pub(crate) use counter::{DOMAIN_CUT_FOR_TESTS, FORCE_FOR_TESTS};
use crossbeam_utils::CachePadded;
use found::{At, Batch, Candidate, Finding, Found};
#[cfg(test)]
pub(crate) use pass::GIVE_UP_AT_FOR_TESTS;
use reduce::Decisions;
pub(crate) use run::run;
use rustc_hash::FxHashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use worker::{Scratch, Shared};

/// States of a level handed to the workers between two budget checks.
const CHUNK: usize = 1 << 14;
/// Fewer states than this are expanded on the coordinating thread.
const SMALL: usize = 2 * worker::PART;
/// The coordinator polls the budget every this many deferred successor
/// computations or rendezvous states: each computes and interns new
/// stores (µs to tens of µs; a one-thread model such as BEEM's
/// peg_solitaire defers every state), so 4096 of them could take 0.1 s.
const COORDINATOR_POLL: usize = 256;

struct Search<'p> {
    exp: Explorer<'p>,
    /// Symmetry reduction: states are stored canonicalised.
    sym: Option<Symmetry>,
    /// The counter representation of the symmetric blocks, when used: a
    /// state is then `[g, solo locals.., counters..]` (`counter.rs`).
    ctr: Option<Arc<Counters>>,
    /// A counter state's successor left its block's domain: the search
    /// is abandoned and run again in the sorted form.
    escaped: AtomicBool,
    /// Every state found, with its depth tag.
    visited: StateStore,
    pool: rayon::ThreadPool,
    /// One scratch per worker thread.
    scratch: Vec<CachePadded<Mutex<Scratch>>>,
    /// Buffers of fired successors the coordinator has interned, kept
    /// for the workers to fire into again: fresh ones were paged in anew
    /// at every chunk (a second of system time in a 2 s run with wide
    /// global stores).
    spare_fired: Mutex<Vec<Fired>>,
    /// `--max-depth`: the last BFS level expanded.
    max_depth: Option<usize>,
    /// `--continue`: search on after every property is violated, counting
    /// the error states.
    keep_going: bool,
    /// Per program property: may it fail to evaluate (`Shared::fallible`)?
    fallible: Vec<bool>,
    /// Set when a budget ran out (seen by a worker or the coordinator):
    /// every worker stops at its next poll.
    stop: AtomicBool,
    /// `--por`: the persistent sets (`reduce.rs`, `engine/por/`).
    reducer: Option<Reducer>,
    /// `--por`: states expanded by fewer threads than could move.
    reduced_states: u64,
    /// `--por`: those states, packed, for the cycle proviso (`reduce.rs`).
    reduced_keys: FxHashSet<Box<[u64]>>,
    /// `--por`: the states passed through without being stored
    /// (`pass/`); `None` where none are (`--max-depth`).
    passing: Option<pass::Passing>,
    /// The program's error state, packed (`program/error_state.rs`): the
    /// successor of every transition that fails at run time.
    error_key: Option<Vec<u64>>,
    /// Once the search has stopped: the budget its traces are rebuilt
    /// within (`Budget::for_rebuilding`, `rebuild.rs`).
    rebuild: Option<Budget>,
}

impl<'p> Search<'p> {
    fn new(
        prog: &'p Program,
        sym: Option<Symmetry>,
        repr: Repr,
        props: &[usize],
        jobs: Option<usize>,
        max_states: Option<usize>,
    ) -> Result<Search<'p>, CheckError> {
        let mut exp = Explorer::new(prog);
        let ctr = sym
            .as_ref()
            .and_then(|sym| Counters::prepare(prog, sym, &mut exp, repr))
            .map(Arc::new);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.unwrap_or(0).min(1024))
            .build()
            .map_err(|e| CheckError::Internal(format!("cannot start the worker threads: {e}")))?;
        let checker = |e| {
            let c = ConcreteChecker::new(prog, e);
            match &ctr {
                Some(ctr) => c.with_counters(&ctr.layout),
                None => c,
            }
        };
        let checkers: Vec<ConcreteChecker> = props
            .iter()
            .map(|&p| checker(&prog.properties[p].error))
            .collect();
        // Deadlocks are counted (as DiVinE does) when a property asks for them.
        let deadlock = props
            .iter()
            .any(|&p| prog.properties[p].only_in_deadlocks)
            .then(|| checker(&prog.deadlock));
        let scratch = (0..pool.current_num_threads())
            .map(|_| {
                CachePadded::new(Mutex::new(Scratch {
                    state: Vec::new(),
                    next: Vec::new(),
                    packed: Vec::new(),
                    batch: store::Batch::default(),
                    checkers: checkers.clone(),
                    deadlock: deadlock.clone(),
                    since_poll: 0,
                    offers: Vec::new(),
                    plan: Default::default(),
                }))
            })
            .collect();
        let mut visited = match &ctr {
            Some(ctr) => StateStore::with_packer(ctr.packer(prog)),
            None => StateStore::new(prog),
        };
        visited.set_limit(max_states);
        let mut s = Search {
            exp,
            sym,
            ctr,
            escaped: AtomicBool::new(false),
            visited,
            pool,
            scratch,
            spare_fired: Mutex::new(Vec::new()),
            max_depth: None,
            keep_going: false,
            fallible: prog
                .properties
                .iter()
                .map(|p| p.may_fail_to_evaluate())
                .collect(),
            stop: AtomicBool::new(false),
            reducer: None,
            reduced_states: 0,
            reduced_keys: FxHashSet::default(),
            passing: None,
            error_key: None,
            rebuild: None,
        };
        if let Some(st) = s.exp.error_state() {
            let mut key = Vec::new();
            s.visited.packer.pack(&st, &mut key);
            s.error_key = Some(key);
        }
        let mut packed = Vec::new();
        for st in s.initial_stored() {
            s.visited.packer.pack(&st, &mut packed);
            s.visited.insert(&packed);
        }
        Ok(s)
    }

    /// What the workers read while they expand `level`.
    fn shared<'a>(
        &'a self,
        level: &'a Level,
        props: &'a [usize],
        done: &'a [bool],
        budget: &'a Budget,
        (decisions, passed): (Option<&'a Decisions>, Option<&'a pass::Passed>),
    ) -> Shared<'a, 'p> {
        Shared {
            exp: &self.exp,
            sym: self.sym.as_ref(),
            ctr: self.ctr.as_deref(),
            escaped: &self.escaped,
            visited: &self.visited,
            level,
            props,
            done,
            keep_going: self.keep_going,
            fallible: &self.fallible,
            scratch: &self.scratch,
            spare_fired: &self.spare_fired,
            budget,
            stop: &self.stop,
            decisions,
            passed: passed.filter(|p| p.any()),
            error_key: self.error_key.as_deref(),
        }
    }

    /// Expands states `range` of the level on the worker threads.
    fn expand_parallel(&self, shared: &Shared, range: std::ops::Range<usize>) -> Batch {
        self.on_workers(range.len(), || {
            shared.run_parts(range.len(), |i, w, b| shared.expand(range.start + i, w, b))
        })
    }

    /// Runs `f` on the worker pool, or right here for a few states, where
    /// waking the workers would cost more than the work.
    fn on_workers(&self, states: usize, f: impl FnOnce() -> Batch + Send) -> Batch {
        if states < SMALL {
            f()
        } else {
            self.pool.install(f)
        }
    }

    /// On the coordinator, at the `k`-th item of a loop: every
    /// `COORDINATOR_POLL` items, polls the budget. True when the search
    /// must stop.
    fn poll_due(&self, k: usize, budget: &Budget) -> bool {
        if !k.is_multiple_of(COORDINATOR_POLL) || k == 0 {
            return false;
        }
        self.stop_reason(budget).is_some()
    }

    /// Why the search must stop now, if it must: a budget ran out (polled
    /// now, or seen by a worker), or the visited set refused a state.
    fn stop_reason(&self, budget: &Budget) -> Option<String> {
        let v = &self.visited;
        let why = budget
            .exceeded_now(v.len(), v.capacity())
            .or_else(|| {
                self.stop
                    .load(Ordering::Relaxed)
                    .then(|| budget.hit_reason())?
            })
            .or_else(|| v.is_full().then(|| budget.states_ran_out())?);
        if why.is_some() {
            self.stop.store(true, Ordering::Relaxed);
        }
        why
    }

    /// The message for a model error found in state `i` of the level.
    fn describe(&mut self, level: &Level, c: Candidate, props: &[usize]) -> String {
        let prog = self.exp.prog;
        let mut state = Vec::new();
        self.visited
            .packer
            .unpack(level.packed(c.index as usize), &mut state);
        // A counter state is described on its sorted arrangement, where
        // the thread stuck at a position is `named_thread`'s.
        let mut stuck = None;
        if let Some(ctr) = &self.ctr {
            if let Finding::Stuck(pos) = c.finding {
                stuck = Some(ctr.named_thread(&state, pos as usize));
            }
            state = ctr.materialise(&state, prog.threads.len());
        }
        let (g, locals) = (state[0], &state[1..]);
        match c.finding {
            Finding::PropertyError(k) => {
                let p = &prog.properties[props[k as usize]];
                let msg = property::holds(&p.error, &self.exp, g, locals)
                    .err()
                    .map_or_else(String::new, |e| *e.0);
                format!("evaluating property `{}`: {msg}", p.name)
            }
            Finding::Stuck(t) => {
                let t = stuck.unwrap_or(t as usize);
                let msg = self
                    .exp
                    .successors(t, g, locals[t])
                    .error
                    .as_ref()
                    .map_or_else(String::new, |(_, m)| m.clone());
                let name = &prog.threads[t].name;
                match prog.error_state {
                    Some(_) => format!("{name} fails and goes to the error state: {msg}"),
                    None => format!("{name} cannot move: {msg}"),
                }
            }
            Finding::SyncError => {
                let (_, msg, failed) = self.exp.sync_steps_failing(g, locals);
                let msg = msg.unwrap_or_default();
                match prog.error_state {
                    Some(_) if !failed.is_empty() => {
                        format!("a rendezvous fails and goes to the error state: {msg}")
                    }
                    _ => format!("a rendezvous cannot happen: {msg}"),
                }
            }
        }
    }

    /// Under `--por`, the threads each state of `level` is expanded by,
    /// and the successors passed through (`pass/`), both decided before
    /// the next level enters the store; `None` when a budget stopped it.
    fn reduce_level(
        &mut self,
        level: &Level,
        budget: &Budget,
    ) -> Option<(Option<Decisions>, Option<pass::Passed>)> {
        let Some(r) = self.reducer.take() else {
            return Some((None, None));
        };
        let reduced = self.decide(&r, level, budget).and_then(|d| {
            self.reduced_states += d.reduced;
            let passed = match self.passing.as_ref().is_some_and(|p| !p.off) {
                true => Some(self.pass_through(&r, level, &d, budget)?),
                false => None,
            };
            Some((Some(d), passed))
        });
        self.reducer = Some(r);
        reduced
    }

    /// Breadth-first search (BASIC STEP), level by level, checking the given
    /// properties on every state, so the first violation found is shortest.
    fn bfs(&mut self, props: &[usize], budget: &Budget) -> Found {
        let mut f = Found {
            violations: vec![None; props.len()],
            errors: vec![0; props.len()],
            model_error: None,
            transitions: 0,
            deadlocks: None,
            depth: 0,
            budget_hit: None,
            stopped_early: false,
            cut: None,
        };
        let counting = self.scratch.first().is_some_and(|w| {
            w.lock()
                .unwrap_or_else(|e| e.into_inner())
                .deadlock
                .is_some()
        });
        let mut done = vec![false; props.len()];
        let mut level = self.visited.take_level();
        let mut depth = 0;
        // States expanded before the current level (for the queue shown).
        let mut before = self.visited.len() - level.len();
        while !level.is_empty() {
            f.depth = depth;
            // The proviso reads the store before the next level enters it.
            let Some((decisions, passed)) = self.reduce_level(&level, budget) else {
                f.budget_hit = self.stop_reason(budget);
                break;
            };
            self.visited.set_depth(depth + 1);
            self.exp.refresh_dense();
            let mut batch = Batch::new(props.len());
            let mut start = 0;
            // Why a budget stopped the search inside this level, if one did.
            let mut why = None;
            while start < level.len() {
                let end = (start + CHUNK).min(level.len());
                let reduced = (decisions.as_ref(), passed.as_ref());
                let shared = self.shared(&level, props, &done, budget, reduced);
                let part = self.expand_parallel(&shared, start..end);
                batch = batch.merge(part, &level);
                // What the workers could not finish, chunk by chunk: the
                // stores they fired wait here, so a chunk bounds them.
                if !self.stop.load(Ordering::Relaxed) {
                    batch = self.expand_deferred(&level, props, &done, batch, budget, reduced);
                }
                start = end;
                let states = self.visited.len();
                // The frontier: the rest of this level and the next one.
                let queue = states.saturating_sub(before + end);
                budget.progress(states, "states", queue, Some(depth));
                why = self.stop_reason(budget);
                if why.is_some() {
                    break;
                }
            }
            // What the expanded part of the level found is found, when a
            // budget stopped it too: real states of this level, at the
            // shortest depth.
            f.note_batch(&batch, counting);
            for (k, v) in batch.violations.iter().enumerate() {
                if let (Some(i), false) = (v, done[k]) {
                    f.violations[k] = Some(At {
                        key: level.packed(*i as usize).to_vec(),
                        depth,
                    });
                    done[k] = true;
                }
            }
            if let (Some(c), None) = (batch.model_error, &f.model_error) {
                let msg = self.describe(&level, c, props);
                let at = At {
                    key: level.packed(c.index as usize).to_vec(),
                    depth,
                };
                f.model_error = Some((at, msg));
            }
            if let Some(why) = why {
                f.budget_hit = Some(why);
                break;
            }
            if !self.keep_going && !props.is_empty() && done.iter().all(|d| *d) {
                f.stopped_early = true;
                break;
            }
            if let Some(why) = self.stop_reason(budget) {
                f.budget_hit = Some(why);
                break;
            }
            before += level.len();
            // (The next level is moved out of the store, not copied: no
            // allocation here for the memory budget to check first.)
            level = self.visited.take_level();
            // Level `depth` was checked and expanded (its model errors are
            // found while expanding); deeper states are stored, unchecked.
            if self.max_depth == Some(depth) {
                if !level.is_empty() {
                    f.cut = Some(self.visited.len() - level.len());
                }
                break;
            }
            depth += 1;
        }
        f
    }
}

/// A state as values: (globals, per-thread local stores).
#[cfg(test)]
pub(crate) type StateValues = (Vec<Val>, Vec<Vec<Val>>);

/// Every reachable state, as values. For differential tests against the
/// abstract engines.
#[cfg(test)]
pub(crate) fn reachable(prog: &Program) -> Result<Vec<StateValues>, CheckError> {
    let mut s = Search::new(prog, None, Repr::Sorted, &[], Some(1), None)?;
    let f = s.bfs(&[], &Budget::new(&CheckOptions::default()));
    if let Some(why) = f.budget_hit {
        return Err(CheckError::Internal(why));
    }
    let mut states = Vec::new();
    let mut st = Vec::new();
    s.visited.for_each(|_, key, _| {
        s.visited.packer.unpack(key, &mut st);
        let ls = (0..prog.threads.len())
            .map(|t| s.exp.local(t, st[1 + t]).to_vec())
            .collect();
        states.push((s.exp.globals.get(st[0]).to_vec(), ls));
    });
    Ok(states)
}
