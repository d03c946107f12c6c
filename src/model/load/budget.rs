//! The time and memory budgets while a model loads (`LoadOptions`): the
//! loader checks them between declarations, templates, transitions and
//! properties, so a model that cannot be loaded within the budget ends with
//! a diagnostic that says which budget ran out in which phase, never with
//! an abort. The limits sit in a thread-local for the duration of one load
//! rather than in every loader function's arguments.

use super::super::diag::Diagnostic;
use crate::engine::result::Limit;
use crate::phase::{self, Phase};
use std::cell::Cell;
use std::time::{Duration, Instant};

/// The budgets of one load.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LoadLimits {
    /// When the time budget ends, and the budget itself (for the message).
    pub(crate) deadline: Option<(Instant, Duration)>,
    /// The resident-memory budget, in bytes.
    pub(crate) max_memory_bytes: Option<u64>,
}

/// How often a check reads the resident memory (a file read).
const MEMORY_READ_INTERVAL: Duration = Duration::from_millis(20);

thread_local! {
    static LIMITS: Cell<Option<LoadLimits>> = const { Cell::new(None) };
    static LAST_MEMORY_READ: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Runs `load` with `limits` in force on this thread.
pub(crate) fn with_limits<T>(limits: LoadLimits, load: impl FnOnce() -> T) -> T {
    let before = LIMITS.with(|l| l.replace(Some(limits)));
    let out = load();
    LIMITS.with(|l| l.set(before));
    out
}

/// Enters `phase`, then checks the budgets.
pub(crate) fn enter(file: &str, p: Phase) -> Result<(), Box<Diagnostic>> {
    phase::enter(p);
    check(file)
}

/// `Err` with a diagnostic naming the budget and the phase once a budget
/// in force has run out. The resident memory is read at most every
/// `MEMORY_READ_INTERVAL`.
pub(crate) fn check(file: &str) -> Result<(), Box<Diagnostic>> {
    checked(file, false)
}

/// As `check`, reading the resident memory now: for a caller that has
/// just grown it by a known large amount (a MiB of a file read), which at
/// a disk's or a pipe's speed can be many MiB within one interval.
pub(crate) fn check_now(file: &str) -> Result<(), Box<Diagnostic>> {
    checked(file, true)
}

fn checked(file: &str, read_memory_now: bool) -> Result<(), Box<Diagnostic>> {
    let Some(limits) = LIMITS.with(Cell::get) else {
        return Ok(());
    };
    let now = Instant::now();
    let during = phase::current();
    if let Some((deadline, budget)) = limits.deadline
        && now >= deadline
    {
        return Err(exhausted(
            file,
            Limit::Time(budget),
            format!(
                "time budget of {} s exhausted while {}",
                crate::engine::result::format_seconds(budget.as_secs_f64()),
                during.describe()
            ),
            during,
        ));
    }
    if let Some(max) = limits.max_memory_bytes {
        let due = LAST_MEMORY_READ.with(|t| {
            let due = read_memory_now
                || t.get()
                    .is_none_or(|last| now.duration_since(last) >= MEMORY_READ_INTERVAL);
            if due {
                t.set(Some(now));
            }
            due
        });
        if due
            && let Some(kib) = crate::sys::current_memory_kib()
            && kib.saturating_mul(1024) > max
        {
            return Err(exhausted(
                file,
                Limit::Memory(max),
                format!(
                    "memory budget of {} MiB exhausted while {} ({:.0} MiB resident)",
                    crate::engine::result::format_mib(max),
                    during.describe(),
                    kib as f64 / 1024.0
                ),
                during,
            ));
        }
    }
    Ok(())
}

fn exhausted(file: &str, limit: Limit, message: String, during: Phase) -> Box<Diagnostic> {
    let mut d = Diagnostic::new(file, "", message);
    d.exhausted = Some((limit, during));
    Box::new(d)
}
