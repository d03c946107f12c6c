//! The budgets while an abstract mode renders its fixpoint for `--show
//! invariant`, after its search. The fixpoint is held compactly (interned
//! stores, bit sets); rendered, each fact is a store of named values, and
//! a fixpoint of a few hundred thousand facts takes hundreds of MiB. The
//! renderings stop when the memory passes the run's budget or the time
//! passes its timeout by `TIME_GRACE`, and the invariant is then not shown
//! (`InvariantForm::NotShown`, with why); the verdicts stand.

use super::CheckOptions;
use super::result::{Invariant, InvariantForm};
use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

/// How long past `--timeout` a rendering may go on (a search stopped by
/// the timeout has already used it up; the watchdog allows ten seconds).
const TIME_GRACE: Duration = Duration::from_secs(5);

/// A rendering looks at the clock and the memory once per this many facts.
const CHECK_EVERY: u32 = 256;

/// Whether a rendering may go on; single-threaded, as the renderings are.
pub(crate) struct RenderGuard {
    max_memory_bytes: Option<u64>,
    deadline: Option<Instant>,
    /// Facts since the last look.
    count: Cell<u32>,
    /// Why the rendering stopped, once it has.
    stopped: RefCell<Option<String>>,
}

impl RenderGuard {
    pub(crate) fn new(opts: &CheckOptions) -> RenderGuard {
        let started = opts.started.unwrap_or_else(Instant::now);
        RenderGuard {
            max_memory_bytes: opts.memory_budget_bytes(),
            deadline: opts
                .timeout
                .and_then(|t| started.checked_add(t.saturating_add(TIME_GRACE))),
            count: Cell::new(0),
            stopped: RefCell::new(None),
        }
    }

    /// Whether to render one more fact: false once a budget has run out
    /// (the caller stops and `finish` drops what it made).
    pub(crate) fn go_on(&self) -> bool {
        if self.stopped.borrow().is_some() {
            return false;
        }
        let n = self.count.get() + 1;
        if n < CHECK_EVERY {
            self.count.set(n);
            return true;
        }
        self.count.set(0);
        let why = if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some("rendering it passed the time budget".to_string())
        } else {
            self.max_memory_bytes
                .zip(crate::sys::current_memory_kib())
                .filter(|&(max, kib)| kib.saturating_mul(1024) > max)
                .map(|(max, _)| {
                    format!(
                        "rendering it passed the memory budget of {:.0} MiB",
                        max as f64 / 1048576.0
                    )
                })
        };
        let go_on = why.is_none();
        *self.stopped.borrow_mut() = why;
        go_on
    }

    /// `inv`, or in its place why it is not shown, with what to do next
    /// (`has_exceptions`: refine's E, which `--save-exceptions` writes
    /// compactly).
    pub(crate) fn finish(&self, inv: Invariant, has_exceptions: bool) -> Invariant {
        let Some(why) = self.stopped.borrow().clone() else {
            return inv;
        };
        let save = if has_exceptions {
            "; or keep E alone with --save-exceptions FILE, which writes it compactly"
        } else {
            ""
        };
        Invariant {
            form: InvariantForm::NotShown(format!(
                "{why} (the verdicts stand); to see it, rerun with a larger --max-memory or --timeout{save}"
            )),
            ..inv
        }
    }
}
