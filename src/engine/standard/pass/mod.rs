//! `--por`: the states the search passes through without storing them.
//!
//! A state whose reduced expansion is one step is *passed through*: the
//! search follows that step and stores the state it leads to (and so on,
//! along a chain of such states), not the state itself. One step means:
//! the state has one successor at all, or the persistent set the reducer
//! chooses for it among the sets that need no cycle proviso
//! (`Reducer::needs_proviso`) has one. And nothing is to be reported
//! there: no checked property holds or fails to evaluate, no transition
//! and no rendezvous fails, and no step was cut short by a budget. This is
//! path compression of the reduced state graph, of the kind of SPIN's
//! statement merging and DiVinE's τ-reduction (which merge invisible local
//! steps; here the step may be any thread's, once the persistent set has
//! made it the only one to take).
//!
//! Why every verdict stays (the proof in `reduce.rs`, one case more). A
//! passed state x is checked as a stored one is (its properties and its
//! failures are looked at; it is no deadlock: it has a step), and it is
//! expanded, every time it is met, by the same persistent set, one that
//! needs no proviso: so the reduced graph is one that proof covers, x's
//! set among those it allows without the proviso. The proviso of a stored
//! state takes a passed successor for a later state (it is not stored),
//! and that is enough: the proof asks for the proviso only along a run of
//! reduced states each of which leaves out a thread that may still do
//! what is looked for, and x's set leaves out no such thread (or x's one
//! step is where every path from x begins), so a path from x to an error
//! state shrinks at x, and a deadlock reachable from x stays reachable
//! from its successor. A cycle of passed states, each one step on to the
//! next, is followed round once, every state on it checked, and then left:
//! nothing else is reachable from it in the reduced graph, and none of it
//! is stored.
//!
//! Whether a state is passed depends on the state alone (not on where or
//! when it is met), so the counts are the same for any number of jobs and
//! from run to run, and the walk back of a trace (`rebuild.rs`) follows
//! the same chains. Depth then counts stored states, not steps, so
//! `--max-depth` turns passing off (`run.rs`).
//!
//! After a level's sets are decided (`reduce.rs`), the successors the
//! level will be expanded to that are not stored yet are looked at in
//! rounds: the coordinator computes each one's successors by every thread
//! (interning new stores, as `decide` does), the workers decide in
//! parallel which are passed and to what, and the states those lead to
//! are looked at in the next round, until none is left. Each then leads to
//! the stored state at the end of its chain, which the level's expansion
//! inserts instead (`Shared::push`). What a level's rounds met is dropped
//! once the level is expanded: a passed state met again later is passed
//! through again.

mod chains;
mod walk_back;

use super::super::Budget;
use super::super::por::{Buffers, Reducer};
use super::reduce::{Decisions, POLL_CHOICES};
use super::worker::PART;
use super::{CHUNK, SMALL, Search};
use crate::engine::store::Level;
use crate::program::rendezvous::SyncStep;
use crate::program::{Explorer, Succs};
use crate::property;
use chains::{CYCLE, Keys, OPEN, STORED, ends};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the search keeps for passing states through: what the rounds and
/// the walk back of a trace need, and what was passed.
pub(super) struct Passing {
    /// The properties checked (a state where one holds is stored).
    pub(super) props: Vec<usize>,
    /// States passed through, summed over the levels.
    pub(super) count: u64,
    /// The most states passed through on one chain.
    pub(super) longest: usize,
    /// States the rounds looked at, summed over the levels.
    met: u64,
    /// The rounds stopped for the rest of the search: they looked at
    /// `GIVE_UP_AFTER` states or more and passed fewer than one in
    /// `GIVE_UP_BELOW` (a state looked at costs about as much as deciding
    /// a stored state's set, and a pass saves about one stored state:
    /// at.3's search took 1.7 times as long for 0.8% fewer states).
    pub(super) off: bool,
    /// The walk back's buffers (`Search::pass_step`).
    scratch: Option<PassScratch>,
    /// The levels whose rounds ran: the first `levels` of the search (they
    /// stop for good once `off`); the walk back follows chains from
    /// those only.
    pub(super) levels: usize,
    /// The walk back's memo: a state, packed, and the state its chain
    /// ends at (itself where it is not passed; `None`: a cycle of passed
    /// states).
    ends: FxHashMap<Box<[u64]>, Option<Box<[u64]>>>,
    /// The initial states, packed, once the walk back needs them (`off`:
    /// a state passed through earlier may be stored later, and a chain
    /// then ends only where the rounds' did, at a state not passed or an
    /// initial one).
    initial: Option<rustc_hash::FxHashSet<Box<[u64]>>>,
}

impl Passing {
    pub(super) fn new(props: &[usize]) -> Passing {
        Passing {
            props: props.to_vec(),
            count: 0,
            longest: 0,
            met: 0,
            off: false,
            levels: 0,
            scratch: None,
            ends: FxHashMap::default(),
            initial: None,
        }
    }
}

/// The rounds give up once they have looked at this many states (summed
/// over the levels) and passed fewer than one in `GIVE_UP_BELOW` of them.
const GIVE_UP_AFTER: u64 = 100_000;
const GIVE_UP_BELOW: u64 = 20;

#[cfg(test)]
thread_local! {
    /// Tests only: give the rounds up after this many levels, as the rule
    /// of `GIVE_UP_AFTER` would on a large model.
    pub(crate) static GIVE_UP_AT_FOR_TESTS: std::cell::Cell<Option<usize>> =
        const { std::cell::Cell::new(None) };
}

/// A worker looking for the successors of a level polls the budget once
/// per this many states.
const POLL_STATES: usize = 4096;

/// The states one level's rounds met, and where each leads.
pub(super) struct Passed {
    keys: Keys,
    /// Per state met: the state it leads to (itself, where it is not
    /// passed), or `CYCLE`.
    end: Vec<u32>,
    /// Was any passed through? (If not, no successor need be looked up.)
    any: bool,
}

impl Passed {
    /// The state to store for the successor `key`: itself, the end of its
    /// chain, or none (a cycle of passed states).
    pub(super) fn lead<'a>(&'a self, key: &'a [u64]) -> Option<&'a [u64]> {
        let Some(id) = self.keys.find(key) else {
            return Some(key);
        };
        match self.end[id as usize] {
            CYCLE => None,
            e if e == id => Some(key),
            e => Some(self.keys.get(e)),
        }
    }

    /// Was any state passed through?
    pub(super) fn any(&self) -> bool {
        self.any
    }
}

/// The one step of a state passed through: a thread's step (the thread,
/// and the step's index among its successors) or a rendezvous (its index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OneStep {
    Thread(usize, usize),
    Sync(usize),
}

/// What a worker found of a level's new successors: the states, packed,
/// and the (state, thread) whose successors the memo lacked.
type Part = (Vec<u64>, Vec<(usize, usize)>);

/// A worker's buffers while it decides which states are passed.
#[derive(Default)]
struct PassScratch {
    bufs: Buffers,
    state: Vec<u32>,
    next: Vec<u32>,
    packed: Vec<u64>,
}

/// Does a checked property hold at the state `(g, locals)`, or fail to
/// evaluate there? (As `Shared::expand` checks them, but for every
/// property, violated or not: whether a state is passed must not depend
/// on when it is met. Evaluated directly, as `property::holds` does: the
/// workers' prepared checkers are for the stored states.) `quiet`: no
/// thread moves on its own there.
fn any_property(exp: &Explorer, props: &[usize], state: &[u32], quiet: bool) -> bool {
    let (g, locals) = (state[0], &state[1..]);
    props.iter().any(|&p| {
        let prop = &exp.prog.properties[p];
        if prop.only_in_deadlocks && !quiet {
            return false;
        }
        let direct = prop
            .is_deadlock
            .then(|| exp.deadlocked(g, locals))
            .flatten();
        let value = match direct {
            Some(d) => Ok(d),
            None => property::holds(&prop.error, exp, g, locals),
        };
        value != Ok(false)
    })
}

/// The one step a state is passed through by, or `None` where it is
/// stored (see the module header). `threads`: the state's threads with
/// their successors; `sync`: its rendezvous, `sync_failed` when one
/// fails; `holds`: does a checked property hold or fail there?
fn one_step(
    reducer: &Reducer,
    prog: &crate::program::Program,
    threads: &[crate::engine::por::ThreadAt],
    (sync, sync_failed): (&[SyncStep], bool),
    bufs: &mut Buffers,
    holds: impl FnOnce(bool) -> bool,
) -> Option<OneStep> {
    if sync_failed
        || threads
            .iter()
            .any(|t| t.succs.error.is_some() || t.succs.cut)
    {
        return None;
    }
    let steps: usize = threads.iter().map(|t| t.succs.steps.len()).sum();
    if steps + sync.len() == 0 || holds(steps == 0) {
        return None;
    }
    // The step of `set` (every thread: `None`), if it has only one.
    let only = |set: Option<&[bool]>| {
        let inside = |t: usize| set.is_none_or(|s| s[t]);
        let mut found = None;
        let mut count = 0;
        for (t, th) in threads.iter().enumerate().filter(|(t, _)| inside(*t)) {
            count += th.succs.steps.len();
            if !th.succs.steps.is_empty() {
                found = Some(OneStep::Thread(t, 0));
            }
        }
        for (k, st) in sync.iter().enumerate() {
            if inside(st.sender) && inside(st.receiver) {
                count += 1;
                found = Some(OneStep::Sync(k));
            }
        }
        (count == 1).then_some(found).flatten()
    };
    if steps + sync.len() == 1 {
        return only(None);
    }
    let set = reducer.one_step_set(prog, threads, bufs, |set| {
        only(Some(set)).is_some() && !reducer.needs_proviso(threads, set)
    })?;
    only(Some(&set))
}

impl Search<'_> {
    /// The rounds of one level (see the module header): which of the
    /// successors that `level`, expanded as `decisions` say, leads to are
    /// passed through, and where each leads. `None` when a budget stopped
    /// it.
    pub(super) fn pass_through(
        &mut self,
        reducer: &Reducer,
        level: &Level,
        decisions: &Decisions,
        budget: &Budget,
    ) -> Option<Passed> {
        let prog = self.exp.prog;
        let n = prog.threads.len();
        let mut keys = Keys::new(self.visited.packer.words);
        let mut next: Vec<u32> = Vec::new();
        let mut open: Vec<u32> = Vec::new();
        let mut state = Vec::new();
        // The level's successors not stored yet, as its expansion will
        // reach them (a chunk of the level at a time: the successors
        // found hold duplicates until they are interned).
        let words = self.visited.packer.words;
        for first in (0..level.len()).step_by(CHUNK) {
            let states = first..(first + CHUNK).min(level.len());
            for key in self
                .new_successors(level, states, decisions, budget)?
                .chunks_exact(words)
            {
                let (id, new) = keys.intern(key);
                if new {
                    next.push(OPEN);
                    open.push(id);
                }
            }
        }
        let props = self
            .passing
            .as_ref()
            .map(|p| p.props.clone())
            .unwrap_or_default();
        // The rounds.
        while !open.is_empty() {
            let mut more = Vec::new();
            for chunk in open.chunks(CHUNK) {
                let mut succs: Vec<Arc<Succs>> = Vec::with_capacity(chunk.len() * n);
                let mut syncs: Vec<(Vec<SyncStep>, bool)> = Vec::with_capacity(chunk.len());
                for (k, &id) in chunk.iter().enumerate() {
                    if self.poll_due(k, budget) {
                        return None;
                    }
                    self.visited.packer.unpack(keys.get(id), &mut state);
                    let at = succs.len();
                    for t in 0..n {
                        succs.push(self.exp.successors(t, state[0], state[1 + t]));
                    }
                    syncs.push(rendezvous_unless_failing(
                        &mut self.exp,
                        &state,
                        &succs[at..],
                    ));
                }
                let this = &*self;
                // A decision may take milliseconds with many threads: the
                // budget is polled every few, across the workers.
                let polls = AtomicUsize::new(0);
                let decide = |w: &mut PassScratch, k: usize| -> Option<Vec<u64>> {
                    let due = polls
                        .fetch_add(1, Ordering::Relaxed)
                        .is_multiple_of(POLL_CHOICES);
                    if (due && this.stopped(budget)) || this.stop.load(Ordering::Relaxed) {
                        return None;
                    }
                    let keys = &keys;
                    this.visited.packer.unpack(keys.get(chunk[k]), &mut w.state);
                    let s = &succs[k * n..(k + 1) * n];
                    let (sync, failed) = (&syncs[k].0, syncs[k].1);
                    let threads = this.threads_at(&w.state, s, sync);
                    let PassScratch {
                        bufs,
                        state,
                        next,
                        packed,
                    } = w;
                    let holds = |quiet| any_property(&this.exp, &props, state, quiet);
                    let step = one_step(reducer, prog, &threads, (sync, failed), bufs, holds)?;
                    *next = successor(state, s, sync, step);
                    this.visited.packer.pack(next, packed);
                    Some(packed.clone())
                };
                let init = PassScratch::default;
                let decided: Vec<Option<Vec<u64>>> = if chunk.len() < SMALL {
                    let mut w = init();
                    (0..chunk.len()).map(|k| decide(&mut w, k)).collect()
                } else {
                    self.pool.install(|| {
                        (0..chunk.len())
                            .into_par_iter()
                            .map_init(init, decide)
                            .collect()
                    })
                };
                if self.stop_reason(budget).is_some() {
                    return None;
                }
                for (&id, to) in chunk.iter().zip(decided) {
                    next[id as usize] = match to {
                        None => STORED,
                        Some(key) => {
                            let (j, new) = keys.intern(&key);
                            if new {
                                let stored = self.visited.find(&key).is_some();
                                next.push(if stored { STORED } else { OPEN });
                                if !stored {
                                    more.push(j);
                                }
                            }
                            j
                        }
                    };
                }
            }
            open = more;
        }
        let (end, longest) = ends(&next);
        let count = next.iter().filter(|&&x| x != STORED).count();
        if let Some(p) = &mut self.passing {
            p.count += count as u64;
            p.longest = p.longest.max(longest);
            p.met += keys.len() as u64;
            p.levels += 1;
            p.off = p.met >= GIVE_UP_AFTER && p.count * GIVE_UP_BELOW < p.met;
            #[cfg(test)]
            if GIVE_UP_AT_FOR_TESTS.with(|g| g.get()) == Some(p.levels) {
                p.off = true;
            }
        }
        Some(Passed {
            keys,
            end,
            any: count > 0,
        })
    }

    /// The successors that the states `states` of `level`, expanded as
    /// `decisions` say, lead to and that are not stored yet, packed one
    /// after another (some more than once): on the workers where the memo has them (`decide` has
    /// just computed them), on the coordinator where it has not, and the
    /// rendezvous there (firing a pair may intern stores). `None` when a
    /// budget stopped it.
    fn new_successors(
        &mut self,
        level: &Level,
        states: std::ops::Range<usize>,
        decisions: &Decisions,
        budget: &Budget,
    ) -> Option<Vec<u64>> {
        let prog = self.exp.prog;
        let n = prog.threads.len();
        self.exp.refresh_dense();
        let this = &*self;
        let packer = &this.visited.packer;
        let (first, len) = (states.start, states.len());
        let parts = (len / PART).clamp(1, 16 * this.scratch.len().max(1));
        let part = |p: usize| {
            let (mut out, mut missed) = (Vec::new(), Vec::new());
            let (mut state, mut packed) = (Vec::new(), Vec::new());
            let mine = first + len * p / parts..first + len * (p + 1) / parts;
            for (k, i) in mine.enumerate() {
                if k % POLL_STATES == POLL_STATES - 1 && this.stopped(budget) {
                    break;
                }
                packer.unpack(level.packed(i), &mut state);
                for t in (0..n).filter(|&t| decisions.expands(i, t)) {
                    let class = this.exp.memo_class(t);
                    let Some(succs) = this.exp.memoised(class, state[0], state[1 + t]) else {
                        missed.push((i, t));
                        continue;
                    };
                    for step in &succs.steps {
                        packed.clear();
                        packed.extend_from_slice(level.packed(i));
                        packer.put(&mut packed, 0, step.g);
                        packer.put(&mut packed, 1 + t, step.l);
                        if this.visited.find(&packed).is_none() {
                            out.extend_from_slice(&packed);
                        }
                    }
                }
            }
            (out, missed)
        };
        let found: Vec<Part> = match parts {
            1 => vec![part(0)],
            _ => self
                .pool
                .install(|| (0..parts).into_par_iter().map(part).collect()),
        };
        if self.stop_reason(budget).is_some() {
            return None;
        }
        let (mut state, mut succ, mut packed) = (Vec::new(), Vec::new(), Vec::new());
        let mut out = Vec::new();
        let mut meet = |search: &Self, succ: &[u32], out: &mut Vec<u64>| {
            search.visited.packer.pack(succ, &mut packed);
            if search.visited.find(&packed).is_none() {
                out.extend_from_slice(&packed);
            }
        };
        let mut k = 0;
        for (keys, missed) in found {
            out.extend_from_slice(&keys);
            for (i, t) in missed {
                k += 1;
                if self.poll_due(k, budget) {
                    return None;
                }
                self.visited.packer.unpack(level.packed(i), &mut state);
                for step in &self.exp.successors(t, state[0], state[1 + t]).steps {
                    succ.clone_from(&state);
                    succ[0] = step.g;
                    succ[1 + t] = step.l;
                    meet(self, &succ, &mut out);
                }
            }
        }
        if !prog.channels.is_empty() {
            for i in states {
                if self.poll_due(i, budget) {
                    return None;
                }
                self.visited.packer.unpack(level.packed(i), &mut state);
                for st in self.exp.sync_steps(state[0], &state[1..]).0 {
                    if decisions.expands(i, st.sender) && decisions.expands(i, st.receiver) {
                        meet(self, &sync_successor(&state, &st), &mut out);
                    }
                }
            }
        }
        Some(out)
    }

    /// On a worker: has the search been stopped, or has a budget run out
    /// (then it is stopped)?
    fn stopped(&self, budget: &Budget) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            return true;
        }
        let v = &self.visited;
        let out = budget.exceeded_now(v.len(), v.capacity()).is_some();
        if out {
            self.stop.store(true, Ordering::Relaxed);
        }
        out
    }
}

/// The rendezvous of `state`, and whether one fails, where no thread's
/// step fails or was cut (`succs`): the state is stored then anyway. The
/// rounds and the walk back decide alike by it.
fn rendezvous_unless_failing(
    exp: &mut Explorer,
    state: &[u32],
    succs: &[Arc<Succs>],
) -> (Vec<SyncStep>, bool) {
    let failing = succs.iter().any(|s| s.error.is_some() || s.cut);
    if exp.prog.channels.is_empty() || failing {
        return (Vec::new(), false);
    }
    let (steps, error) = exp.sync_steps(state[0], &state[1..]);
    (steps, error.is_some())
}

/// The state after a rendezvous.
fn sync_successor(state: &[u32], st: &SyncStep) -> Vec<u32> {
    let mut next = state.to_vec();
    next[0] = st.g;
    next[1 + st.sender] = st.l_send;
    next[1 + st.receiver] = st.l_recv;
    next
}

/// The state after `step`.
fn successor(state: &[u32], succs: &[Arc<Succs>], sync: &[SyncStep], step: OneStep) -> Vec<u32> {
    match step {
        OneStep::Thread(t, k) => {
            let mut next = state.to_vec();
            next[0] = succs[t].steps[k].g;
            next[1 + t] = succs[t].steps[k].l;
            next
        }
        OneStep::Sync(k) => sync_successor(state, &sync[k]),
    }
}
