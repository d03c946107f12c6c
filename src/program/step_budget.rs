//! Budgets inside one step of many transitions (a cooperative macro-step,
//! `cooperative.rs`; a `--blocks` block, `blocks.rs`). Such a step can run
//! through millions of stores (a chain of `any` before a `yield`), so it
//! cannot wait for the engine's next budget check between steps: it polls
//! the engine's budget (`StepBudget`, which the program layer knows only
//! as this trait) every `STEP_POLL` stores it reaches, and once the budget
//! is out it stops short: `Succs::cut`, no ends.
//!
//! Memory needs one more look. The step keeps its stores in tables that
//! grow by doubling, each growth allocated at once, which can pass the
//! budget between two reads of the resident memory by more than the
//! watchdog's margin. So a poll also hands the budget what the tables will
//! allocate if they grow before the next poll (`growth`), and the step
//! stops when that would pass the memory budget, before it allocates.

use super::Val;
use super::explore::{Explorer, Step, Succs};
use super::memo::MEMO_SHARE;
use rustc_hash::FxHashSet;
use std::sync::Arc;

/// What a step of many transitions polls as it goes (the engines' budget).
pub(crate) trait StepBudget: Send + Sync {
    /// Has a budget run out, or would `growth` more bytes allocated at
    /// once pass the memory budget? Sets `poll.ran_out_here` when this
    /// call is what ran the budget out.
    fn exhausted(&self, poll: &mut StepPoll, growth: u64) -> bool;
    /// The poll that ran the budget out was in the step `inside` names:
    /// said in the budget's message.
    fn cut(&self, inside: String);
    /// The memory budget in bytes, if any: the explorer's memo takes a
    /// share of it (`memo.rs`, `MEMO_SHARE`).
    fn memory_bytes(&self) -> Option<u64>;
    /// Has the resident memory, when last read, reached half the memory
    /// budget? Until then the memo may pass its share.
    fn memory_pressed(&self) -> bool;
}

/// How many stores a step reaches between two polls: a poll reads the
/// clock, and the budget reads the memory every 20 ms at most.
const STEP_POLL: u64 = 64;

/// What one step keeps between its polls.
#[derive(Default)]
pub(crate) struct StepPoll {
    /// Stores the step has reached: every successor fired counts.
    reached: u64,
    /// `reached` at which to poll next.
    next: u64,
    /// Set by the poll that ran the budget out (rather than found it out).
    pub(crate) ran_out_here: bool,
}

/// The stores a step has reached, each with the transition it started
/// with (each is continued once).
pub(super) type Seen = FxHashSet<(Vec<Val>, Vec<Val>, u32)>;

/// The ends a step has found, by the transition it started with.
pub(super) type Ends = FxHashSet<(u32, u32, u32)>;

/// Bytes a hash table allocates when it next grows (hashbrown: twice the
/// buckets, one control byte each beside the entry), if `more` entries
/// would reach its `capacity`; else 0.
pub(super) fn table_growth(len: usize, capacity: usize, entry: usize, more: usize) -> u64 {
    if len + more < capacity {
        return 0;
    }
    // A table holds 7/8 of its buckets (a small one, all but one).
    let buckets = (capacity * 8 / 7).max(capacity + 1).next_power_of_two();
    (2 * buckets * (entry + 1)) as u64
}

/// As `table_growth`, for a vector (twice its capacity).
pub(super) fn vec_growth(len: usize, capacity: usize, entry: usize, more: usize) -> u64 {
    if len + more < capacity {
        return 0;
    }
    (capacity.max(4) * 2 * entry) as u64
}

impl StepPoll {
    /// Counts `fired` more stores reached. When a poll is due, the stores
    /// the tables may take until the next one: these and fewer than
    /// `STEP_POLL` more. (A step of fewer than `STEP_POLL` stores never
    /// polls.)
    fn due(&mut self, fired: usize) -> Option<usize> {
        self.reached += fired as u64;
        if self.reached < self.next.max(STEP_POLL) {
            return None;
        }
        self.next = self.reached + STEP_POLL;
        Some(fired + STEP_POLL as usize)
    }
}

impl Explorer<'_> {
    /// A search for the transitions inside a step, for a trace
    /// (`blocks.rs`'s `block_path`), which has just fired `fired` stores:
    /// must it give up? Polled as a step polls; `growth` is what its
    /// tables would allocate for so many more stores.
    pub(super) fn path_exhausted(
        &self,
        poll: &mut StepPoll,
        fired: usize,
        growth: impl FnOnce(usize) -> u64,
    ) -> bool {
        let Some(budget) = &self.step_budget else {
            return false;
        };
        poll.due(fired)
            .is_some_and(|more| budget.exhausted(poll, growth(more)))
    }

    /// Steps of many transitions poll `budget` as they go, and stop short
    /// (`Succs::cut`) once it has run out; `None` lets them run to the end
    /// (a trace being rebuilt needs its steps whole). The memo stops
    /// growing at its share of the budget's memory.
    pub(crate) fn set_step_budget(&mut self, budget: Option<Arc<dyn StepBudget>>) {
        let memory = budget.as_ref().and_then(|b| b.memory_bytes());
        self.set_memo_bytes(memory.map(|m| m / MEMO_SHARE));
        self.step_budget = budget;
    }

    /// In a step of many transitions of `thread`, which has just fired
    /// `fired` stores (not yet kept in `seen` or `out`): must it stop
    /// short? Then `out` is marked cut and its ends dropped, and when this
    /// poll ran the budget out, the budget is told which step it was.
    pub(super) fn step_exhausted(
        &self,
        (thread, template): (usize, usize),
        (poll, fired): (&mut StepPoll, usize),
        (seen, ends): (&Seen, &Ends),
        out: &mut Succs,
    ) -> bool {
        let Some(budget) = &self.step_budget else {
            return false;
        };
        let Some(more) = poll.due(fired) else {
            return false;
        };
        let entry = size_of::<(Vec<Val>, Vec<Val>, u32)>();
        let (end, step) = (size_of::<(u32, u32, u32)>(), size_of::<Step>());
        let growth = table_growth(seen.len(), seen.capacity(), entry, more)
            + table_growth(ends.len(), ends.capacity(), end, more)
            + vec_growth(out.steps.len(), out.steps.capacity(), step, more)
            + self.globals.growth(more)
            + self.locals[template].growth(more);
        if !budget.exhausted(poll, growth) {
            return false;
        }
        out.cut = true;
        out.steps = Vec::new();
        if poll.ran_out_here {
            let name = &self.prog.threads[thread].name;
            let reached = poll.reached;
            budget.cut(match self.prog.scheduler {
                Some(_) => format!(
                    "in a macro-step of {name} after {reached} stores: a `yield` would split it"
                ),
                None => format!(
                    "in a block step of {name} after {reached} stores: without `--blocks` each transition is a step"
                ),
            });
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The growth predicted is what hashbrown allocates: its capacity
    /// before and after the insert that grows it, and nothing while there
    /// is room.
    #[test]
    fn a_table_grows_as_predicted() {
        let mut set: FxHashSet<u64> = FxHashSet::default();
        for i in 0..200_000u64 {
            let (len, cap) = (set.len(), set.capacity());
            let predicted = table_growth(len, cap, size_of::<u64>(), 1);
            set.insert(i);
            if set.capacity() != cap && cap > 0 {
                let buckets = (set.capacity() * 8 / 7)
                    .max(set.capacity() + 1)
                    .next_power_of_two();
                assert_eq!(predicted, (buckets * 9) as u64, "at {len} of {cap}");
            } else if len + 1 < cap {
                assert_eq!(predicted, 0, "at {len} of {cap}");
            }
        }
    }
}
