//! What the engines built, given back at the end of a run. A fixpoint of
//! millions of small allocations (products, successor lists, derivations)
//! takes seconds to free one by one: on anderson.4, cartesian-exc spent 6 s
//! of its 18 freeing after the report was made. A process that exits after
//! its check (the `weft` binary) need not: the system takes the memory back
//! at once. So the binary asks the engines to leave their state allocated;
//! a library user, who goes on after a check, gets it freed as usual.

use std::sync::atomic::{AtomicBool, Ordering};

static LEAVE_AT_EXIT: AtomicBool = AtomicBool::new(false);

/// For a process that exits after its checks: from now on the engines
/// leave what they built allocated at the end of a run instead of freeing
/// it (the system frees it when the process exits). Not for a process that
/// runs many checks: each one's memory would stay.
pub fn leave_engine_state_at_exit() {
    LEAVE_AT_EXIT.store(true, Ordering::Relaxed);
}

/// Frees `state`, or leaves it allocated after `leave_engine_state_at_exit`.
pub(crate) fn dispose<T>(state: T) {
    dispose_if(LEAVE_AT_EXIT.load(Ordering::Relaxed), state);
}

fn dispose_if<T>(leave: bool, state: T) {
    if leave {
        std::mem::forget(state);
    } else {
        drop(state);
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    /// Counts its drops.
    struct Counted<'a>(&'a Cell<u32>);

    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }

    #[test]
    fn state_is_freed_unless_left_for_the_exit() {
        let drops = Cell::new(0);
        super::dispose_if(false, Counted(&drops));
        assert_eq!(drops.get(), 1);
        super::dispose_if(true, Counted(&drops));
        assert_eq!(drops.get(), 1);
    }
}
