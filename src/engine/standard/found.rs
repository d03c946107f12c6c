//! What the workers of one BFS level report (`Batch`: the least violating
//! state per property, the least model error, deferred successors, counts)
//! and what a whole search found (`Found`); the least candidate is kept so
//! that the result does not depend on the number of jobs.

use super::super::store::Level;
use crate::program::explore::Fired;
use crate::program::rendezvous::Pair;
use std::cmp::Ordering;
use std::ops::Range;

/// A state of the current level that a worker singled out: its index in
/// the level and what it found there (`Finding`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Candidate {
    pub(super) index: u32,
    pub(super) finding: Finding,
}

/// What is wrong in a state, in the order used to pick one per level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Finding {
    /// Evaluating property k failed (a run-time error in the predicate).
    PropertyError(u32),
    /// Thread t cannot move: one of its transitions fails at run time.
    Stuck(u32),
    /// A rendezvous fails at run time.
    SyncError,
}

/// What the workers report from a part of a level.
pub(super) struct Batch {
    pub(super) transitions: u64,
    /// States of the part where `deadlock` holds (when counted).
    pub(super) deadlocks: u64,
    /// Per property: the least violating state seen.
    pub(super) violations: Vec<Option<u32>>,
    /// Per property: the violating states seen.
    pub(super) errors: Vec<u64>,
    pub(super) model_error: Option<Candidate>,
    /// (index in the level, thread) whose successors were not memoised.
    pub(super) deferred: Vec<(u32, u32)>,
    /// Successors not memoised that a worker fired, for the coordinator
    /// to intern (their stores in `fired`).
    pub(super) prefired: Vec<Prefired>,
    /// One buffer per part that fired any: a merge moves the buffers, never
    /// their stores (copying them at every merge made wide stores slow).
    pub(super) fired: Vec<Fired>,
    /// States whose rendezvous the coordinator fires (planned by the
    /// workers: `Explorer::plan_syncs`).
    pub(super) syncs: Vec<Planned>,
    /// Their pairs, one state's after another.
    pub(super) pairs: Vec<Pair>,
}

/// The successors of one thread of a state of the level, fired on a
/// worker (`Explorer::fire_flat`), not interned yet.
pub(super) struct Prefired {
    pub(super) index: u32,
    pub(super) thread: u32,
    /// Their transitions and stores, in the batch's `fired[part]`.
    pub(super) part: u32,
    pub(super) trans: Range<usize>,
    pub(super) values: Range<usize>,
    /// The first run-time model error, and the failed transitions.
    pub(super) error: Option<(u32, String)>,
    pub(super) failures: u32,
}

/// A state of the level with rendezvous to fire, or that fail.
pub(super) struct Planned {
    pub(super) index: u32,
    /// Its pairs, in the batch's `pairs`.
    pub(super) pairs: Range<usize>,
    /// Rendezvous that failed before firing (a failed offer).
    pub(super) failed: u32,
    /// The first run-time model error met.
    pub(super) error: Option<String>,
}

impl Batch {
    pub(super) fn new(props: usize) -> Batch {
        Batch {
            transitions: 0,
            deadlocks: 0,
            violations: vec![None; props],
            errors: vec![0; props],
            model_error: None,
            deferred: Vec::new(),
            prefired: Vec::new(),
            fired: Vec::new(),
            syncs: Vec::new(),
            pairs: Vec::new(),
        }
    }

    /// Property k is violated in state i of the level: kept if least.
    pub(super) fn note_violation(&mut self, k: usize, i: Option<u32>, level: &Level) {
        self.violations[k] = least(self.violations[k], i, |x| level.packed(x as usize));
    }

    /// A model error: kept if least (by state, then kind).
    pub(super) fn note_error(&mut self, c: Option<Candidate>, level: &Level) {
        self.model_error = least(self.model_error, c, |c| {
            (level.packed(c.index as usize), c.finding)
        });
    }

    /// Joins two batches of the same level, keeping the least candidates.
    pub(super) fn merge(mut self, other: Batch, level: &Level) -> Batch {
        self.transitions += other.transitions;
        self.deadlocks += other.deadlocks;
        for (e, o) in self.errors.iter_mut().zip(&other.errors) {
            *e += o;
        }
        for (k, v) in other.violations.into_iter().enumerate() {
            self.note_violation(k, v, level);
        }
        self.note_error(other.model_error, level);
        self.deferred.extend(other.deferred);
        let parts = self.fired.len() as u32;
        self.prefired
            .extend(other.prefired.into_iter().map(|mut p| {
                p.part += parts;
                p
            }));
        self.fired.extend(other.fired);
        let shift = self.pairs.len();
        self.syncs.extend(other.syncs.into_iter().map(|mut p| {
            p.pairs = p.pairs.start + shift..p.pairs.end + shift;
            p
        }));
        self.pairs.extend(other.pairs);
        self
    }
}

/// The lesser of two optional candidates under `key` (ties: the first).
fn least<T: Copy, K: Ord>(a: Option<T>, b: Option<T>, key: impl Fn(T) -> K) -> Option<T> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if key(y).cmp(&key(x)) == Ordering::Less {
            y
        } else {
            x
        }),
        (x, None) => x,
        (None, y) => y,
    }
}

/// A state the search singled out: its packed words and its BFS depth
/// (what the trace is rebuilt from).
#[derive(Clone, Debug)]
pub(super) struct At {
    pub(super) key: Vec<u64>,
    pub(super) depth: usize,
}

/// What one breadth-first search found.
pub(super) struct Found {
    /// First violating state per checked property.
    pub(super) violations: Vec<Option<At>>,
    /// Violating states per checked property (all of them with
    /// `--continue`; otherwise those of the first violating level).
    pub(super) errors: Vec<u64>,
    pub(super) model_error: Option<(At, String)>,
    pub(super) transitions: u64,
    /// Deadlocked states among those explored (`None`: not counted, as no
    /// checked property mentions `deadlock`).
    pub(super) deadlocks: Option<u64>,
    pub(super) depth: usize,
    pub(super) budget_hit: Option<String>,
    /// All properties violated: the search stopped there, as SPIN does.
    pub(super) stopped_early: bool,
    /// `--max-depth` cut off deeper states: the states within the bound.
    pub(super) cut: Option<usize>,
}

impl Found {
    /// Adds what a part of a level found to the totals.
    pub(super) fn note_batch(&mut self, b: &Batch, counting: bool) {
        self.transitions += b.transitions;
        for (e, o) in self.errors.iter_mut().zip(&b.errors) {
            *e += o;
        }
        if counting {
            *self.deadlocks.get_or_insert(0) += b.deadlocks;
        }
    }
}
