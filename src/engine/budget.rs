//! The budgets of a run (`--max-states`, `--max-memory`, `--timeout`),
//! polled by the engines as they search, and by the explorer inside a step
//! that runs many transitions (`program::StepBudget`).

use super::CheckOptions;
use super::progress;
use super::result::{self, Limit};
use crate::program::{StepBudget, StepPoll};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Budget checks, cheap enough to call once per new state. `Sync`: the
/// workers of a parallel search poll it too (`poll`), every `POLL_EVERY`
/// states each, so a budget also stops the search inside a BFS level.
///
/// Once a budget has run out it stays out: every later check says so, so a
/// search stops at its next check whoever saw the budget run out (a
/// worker, the explorer inside a long step). A clone shares the budget.
#[derive(Clone)]
pub(crate) struct Budget(Arc<Inner>);

struct Inner {
    max_states: Option<usize>,
    max_memory_bytes: Option<u64>,
    deadline: Option<Instant>,
    timeout: Option<Duration>,
    /// When `exceeded_now` last read the resident memory (a file read).
    last_memory_read: Mutex<Option<Instant>>,
    /// What it read, in KiB (0 before the first read).
    last_memory_kib: AtomicU64,
    /// The budget that ran out, once one has: what the next step raises.
    hit: Mutex<Option<(Limit, String)>>,
    /// `hit` is set: read on every check, without the lock.
    out: AtomicBool,
    /// The progress line (on a terminal), which shows these budgets.
    progress: Mutex<progress::Progress>,
    /// What earlier rounds of a run counted against the state budget
    /// (refine's posts), so that it bounds the whole run.
    spent: AtomicUsize,
}

/// The workers of a search poll the budget once per this many states each:
/// a clock read per 4096 states costs nothing measurable, and even slow
/// states (tens of µs) give a check every few tens of ms.
pub(crate) const POLL_EVERY: u32 = 4096;

/// What rebuilding a trace may take past the run's time and memory
/// budgets (`Budget::for_rebuilding`).
pub(crate) const REBUILD_SLACK: (Duration, u64) = (Duration::from_secs(5), 32 * 1024 * 1024);

/// `exceeded_now` reads the resident memory at most this often.
const MEMORY_READ_INTERVAL: Duration = Duration::from_millis(20);

impl Budget {
    pub(crate) fn new(opts: &CheckOptions) -> Budget {
        let max_memory_bytes = opts.memory_budget_bytes();
        // A timeout too large to add to the clock is no deadline.
        let started = opts.started.unwrap_or_else(Instant::now);
        let deadline = opts.timeout.and_then(|t| started.checked_add(t));
        let limits = progress::Limits {
            timeout: opts.timeout.filter(|_| deadline.is_some()),
            count: opts.max_states.map(|m| m as u64),
            memory_kib: max_memory_bytes.map(|b| b / 1024),
        };
        Budget(Arc::new(Inner {
            max_states: opts.max_states,
            max_memory_bytes,
            deadline,
            timeout: opts.timeout,
            last_memory_read: Mutex::new(None),
            last_memory_kib: AtomicU64::new(0),
            hit: Mutex::new(None),
            out: AtomicBool::new(false),
            progress: Mutex::new(progress::Progress::new(limits, opts.progress)),
            spent: AtomicUsize::new(0),
        }))
    }

    /// The budget of what runs after a search has stopped to assemble its
    /// result (standard's traces): the run's own limits, fresh (a search
    /// stopped by its budget still rebuilds the traces of what it found),
    /// and `REBUILD_SLACK` more, within what the binary's watchdog allows
    /// that phase (64 MiB, 10 s), so that a rebuild that cannot finish
    /// gives up by itself rather than lose the result to the watchdog.
    pub(crate) fn for_rebuilding(opts: &CheckOptions) -> Budget {
        let (time, memory) = REBUILD_SLACK;
        let started = opts.started.unwrap_or_else(Instant::now);
        #[cfg(test)]
        if REBUILD_OUT_FOR_TESTS.with(|c| c.get()) {
            let out = Budget::new(&CheckOptions::default());
            out.ran_out(
                Limit::Time(Duration::ZERO),
                "time budget of 0 s exhausted".into(),
            );
            return out;
        }
        Budget::new(&CheckOptions {
            timeout: opts.timeout.map(|t| t.saturating_add(time)),
            max_memory_bytes: opts.memory_budget_bytes().map(|m| m.saturating_add(memory)),
            started: Some(started),
            progress: false,
            ..CheckOptions::default()
        })
    }

    /// Shows how far the run is on the progress line (rate-limited there;
    /// `count` is what the engine's state budget counts).
    pub(crate) fn progress(
        &self,
        count: usize,
        unit: &'static str,
        queue: usize,
        depth: Option<usize>,
    ) {
        if let Ok(mut p) = self.0.progress.try_lock() {
            p.update(&progress::Snapshot {
                count: count as u64,
                unit,
                queue,
                depth,
            });
        }
    }

    /// The budget that ran out, if one has (the first one reported).
    pub(crate) fn hit(&self) -> Option<Limit> {
        lock(&self.0.hit).as_ref().map(|(l, _)| *l)
    }

    /// Why the budget that ran out stopped the run, if one has.
    pub(crate) fn hit_reason(&self) -> Option<String> {
        lock(&self.0.hit).as_ref().map(|(_, why)| why.clone())
    }

    /// The state budget (`--max-states`), for engines that enforce it
    /// exactly where they add a state.
    pub(crate) fn max_states(&self) -> Option<usize> {
        self.0.max_states
    }

    /// What earlier rounds counted against the state budget.
    pub(crate) fn spent(&self) -> usize {
        self.0.spent.load(Ordering::Relaxed)
    }

    /// A round that counted `count` is over: later rounds count from it.
    pub(crate) fn spend(&self, count: usize) {
        self.0.spent.fetch_add(count, Ordering::Relaxed);
    }

    /// Records `limit` as the one that ran out (the first one, when workers
    /// race) and returns why it stopped the run.
    fn ran_out(&self, limit: Limit, message: String) -> Option<String> {
        // The search stops here; what follows (the trace, the statistics,
        // freeing) is not the search overrunning its budget.
        crate::phase::enter(crate::Phase::Finishing);
        let mut hit = lock(&self.0.hit);
        let why = hit.get_or_insert((limit, message)).1.clone();
        self.0.out.store(true, Ordering::Release);
        Some(why)
    }

    /// This budget, for the explorer's steps of many transitions to poll.
    pub(crate) fn for_steps(&self) -> Arc<dyn StepBudget> {
        Arc::new(self.clone())
    }

    /// Has a budget run out (and stays out)?
    pub(crate) fn is_out(&self) -> bool {
        self.0.out.load(Ordering::Acquire)
    }

    /// The state budget of an engine that refused to add a state beyond
    /// it: ran out, whatever the count says.
    pub(crate) fn states_ran_out(&self) -> Option<String> {
        let m = self.0.max_states?;
        self.ran_out(
            Limit::States(m),
            format!("state budget of {m} states exhausted"),
        )
    }

    /// `Some(reason)` once a budget is exhausted. Time and memory are
    /// sampled every 4096 states.
    pub(crate) fn exceeded(&self, states: usize) -> Option<String> {
        self.check(states, states.is_multiple_of(4096))
    }

    /// As `exceeded`, for callers that check now and then rather than per
    /// state (every `POLL_EVERY` states, or per round): reads the clock now
    /// and the memory every 20 ms (whichever thread is due). `capacity` is
    /// the most states the caller's store can hold.
    pub(crate) fn exceeded_now(&self, states: usize, capacity: usize) -> Option<String> {
        if states >= capacity {
            return self.ran_out(
                Limit::Store(capacity),
                format!("the state store is full ({capacity} states)"),
            );
        }
        let now = Instant::now();
        let due = match self.0.last_memory_read.try_lock() {
            Ok(mut last) if last.is_none_or(|t| now.duration_since(t) >= MEMORY_READ_INTERVAL) => {
                *last = Some(now);
                true
            }
            // Not due, or another worker is reading it right now.
            _ => false,
        };
        if due {
            return self.check(states, true);
        }
        self.check(states, false).or_else(|| self.out_of_time())
    }

    /// `exceeded_now` for the time and memory budgets alone, for callers
    /// that count no states (or enforce the state budget themselves).
    pub(crate) fn time_or_memory_exceeded(&self) -> Option<String> {
        self.exceeded_now(0, usize::MAX)
    }

    fn out_of_time(&self) -> Option<String> {
        match (self.0.deadline, self.0.timeout) {
            (Some(d), Some(t)) if Instant::now() >= d => self.ran_out(
                Limit::Time(t),
                format!(
                    "time budget of {} s exhausted",
                    result::format_seconds(t.as_secs_f64())
                ),
            ),
            _ => None,
        }
    }

    fn memory_ran_out(&self, max: u64) -> Option<String> {
        self.ran_out(
            Limit::Memory(max),
            format!("memory budget of {} MiB exhausted", result::format_mib(max)),
        )
    }

    fn check(&self, states: usize, sample: bool) -> Option<String> {
        if self.is_out() {
            return self.hit_reason();
        }
        if let Some(m) = self.0.max_states
            && states >= m
        {
            return self.ran_out(
                Limit::States(m),
                format!("state budget of {m} states exhausted"),
            );
        }
        if sample {
            if let Some(why) = self.out_of_time() {
                return Some(why);
            }
            let read = crate::sys::current_memory_kib();
            if let Some(cur) = read {
                self.0.last_memory_kib.store(cur, Ordering::Relaxed);
            }
            if let (Some(m), Some(cur)) = (self.0.max_memory_bytes, read)
                && cur.saturating_mul(1024) >= m
            {
                return self.memory_ran_out(m);
            }
        }
        None
    }
}

/// A lock whose holder never panics while holding it; poisoned or not, the
/// data is consistent.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
thread_local! {
    /// Tests: the time budget runs out at this poll of a step of many
    /// transitions on this thread (1: the first), as if the clock said so,
    /// so that a test decides where a step is cut.
    pub(crate) static STEP_OUT_AT_FOR_TESTS: std::cell::Cell<Option<u32>> =
        const { std::cell::Cell::new(None) };
}

#[cfg(test)]
thread_local! {
    /// Tests: the budget of rebuilding traces is out from the start.
    pub(crate) static REBUILD_OUT_FOR_TESTS: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
}

/// A step of many transitions (a cooperative macro-step, a block) stops
/// short once the time or memory budget is out; the state budget counts
/// the engine's states, which such a step does not add to. It also stops
/// before its tables grow past the memory budget: a growth is allocated
/// at once, and could pass the budget between two reads of the resident
/// memory by more than the watchdog's margin (`program/step_budget.rs`).
impl StepBudget for Budget {
    fn exhausted(&self, poll: &mut StepPoll, growth: u64) -> bool {
        let was_out = self.is_out();
        #[cfg(test)]
        if let Some(at) = STEP_OUT_AT_FOR_TESTS.with(|c| c.get()) {
            if at > 1 {
                STEP_OUT_AT_FOR_TESTS.with(|c| c.set(Some(at - 1)));
            } else {
                STEP_OUT_AT_FOR_TESTS.with(|c| c.set(None));
                let why = "time budget of 0 s exhausted".to_string();
                poll.ran_out_here = !was_out;
                return self.ran_out(Limit::Time(Duration::ZERO), why).is_some();
            }
        }
        if self.time_or_memory_exceeded().is_some() {
            poll.ran_out_here = !was_out;
            return true;
        }
        let now = self
            .0
            .last_memory_kib
            .load(Ordering::Relaxed)
            .saturating_mul(1024);
        let Some(max) = self.0.max_memory_bytes else {
            return false;
        };
        if now == 0 || now.saturating_add(growth) < max {
            return false;
        }
        poll.ran_out_here = true;
        let why = format!(
            "memory budget of {} MiB would be passed by the next growth of a step's tables ({} MiB at once, at {} MiB resident)",
            result::format_mib(max),
            result::format_mib(growth),
            result::format_mib(now)
        );
        self.ran_out(Limit::Memory(max), why).is_some()
    }

    fn cut(&self, inside: String) {
        if let Some((_, why)) = lock(&self.0.hit).as_mut() {
            *why = format!("{why} {inside}");
        }
    }

    fn memory_bytes(&self) -> Option<u64> {
        self.0.max_memory_bytes
    }

    fn memory_pressed(&self) -> bool {
        let now = self.0.last_memory_kib.load(Ordering::Relaxed);
        let max = self.0.max_memory_bytes;
        max.is_some_and(|max| now.saturating_mul(1024) >= max / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out_of_time() -> Budget {
        Budget::new(&CheckOptions {
            timeout: Some(Duration::ZERO),
            ..CheckOptions::default()
        })
    }

    /// The memory is pressed (the memo keeps to its share) once the
    /// resident memory, as last read, is half the memory budget or more,
    /// and not before it is read; without `--max-memory`, the budget is
    /// 80% of physical memory.
    #[test]
    fn the_memory_is_pressed_from_half_the_budget() {
        let kib = crate::sys::current_memory_kib().expect("Linux: /proc/self/status");
        let read_at = |max: Option<u64>| {
            let budget = Budget::new(&CheckOptions {
                max_memory_bytes: max,
                ..CheckOptions::default()
            });
            assert!(!budget.memory_pressed(), "not read yet");
            budget.exceeded(0); // reads the memory
            budget.memory_pressed()
        };
        assert!(!read_at(Some(kib * 1024 * 4)));
        assert!(read_at(Some(kib * 1024 * 3 / 2)));
        assert!(read_at(Some(kib * 1024 / 2)), "out, and pressed");
        let physical = CheckOptions::default().memory_budget_bytes();
        assert_eq!(read_at(None), physical.is_some_and(|m| kib * 1024 >= m / 2));
    }

    /// A step's poll says it ran the budget out only when it did, so that
    /// the message names the step only then; and once out, the budget
    /// stays out for every check.
    #[test]
    fn a_step_names_itself_only_when_its_poll_ran_the_budget_out() {
        let budget = out_of_time();
        let mut poll = StepPoll::default();
        assert!(budget.exhausted(&mut poll, 0));
        assert!(poll.ran_out_here);
        budget.cut("in a macro-step of T after 64 stores".into());
        assert_eq!(
            budget.hit_reason().as_deref(),
            Some("time budget of 0 s exhausted in a macro-step of T after 64 stores")
        );

        let budget = out_of_time();
        assert!(budget.exceeded(0).is_some(), "the engine's own check");
        let mut poll = StepPoll::default();
        assert!(budget.exhausted(&mut poll, 0));
        assert!(!poll.ran_out_here);
        assert!(budget.exceeded(1).is_some() && budget.exceeded_now(2, 10).is_some());
    }
}
