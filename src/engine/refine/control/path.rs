//! Is an abstract counterexample real? Gupta, Popeea and Rybalchenko, §5:
//! a path of the control abstraction is a sequence of thread steps; it is
//! spurious when some thread's step starts where that thread is not. The
//! paper finds these root causes as the SafeInd sequences
//! `true…true (pc_i = ℓ)…(pc_i = ℓ) false…false`: thread i arrives at ℓ,
//! and its next step in the path (or the error state) needs it at ℓ′ ≠ ℓ.
//!
//! Here the path is replayed on concrete states. Global stores always agree
//! (every view keeps them exactly), and each step is a real successor of
//! its thread's local store, so the only way a step can fail is that its
//! thread is elsewhere: a *mismatch*. A path without one is a real run. A
//! mismatch between two locations gives the paper's ℓ ≢ ℓ′; one between two
//! local stores at the same location (other values of the thread's own
//! variables) is data gluing, which no partition of locations separates.

use super::fixpoint::PathStep;
use super::partition::{Clause, Key, Mismatch};
use crate::engine::trace::{StateIds, StepIds};
use crate::program::Explorer;

/// A thread found elsewhere than a step (or the error state) needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Gap {
    pub(crate) thread: usize,
    /// Its local store in the replay.
    pub(crate) actual: u32,
    /// The local store the step or the error state needs.
    pub(crate) needed: u32,
}

/// A replayed path.
pub(crate) struct Replay {
    pub(crate) initial: StateIds,
    /// The steps as a trace, with the concrete state after each.
    pub(crate) steps: Vec<StepIds>,
    pub(crate) gaps: Vec<Gap>,
}

/// Replays `path` from `initial`; `end` are the local stores the error
/// state needs, per thread (`None`: any).
pub(crate) fn replay(initial: &StateIds, path: &[PathStep], end: &[Option<u32>]) -> Replay {
    let mut state = initial.clone();
    let (mut steps, mut gaps) = (Vec::new(), Vec::new());
    for s in path {
        if state.1[s.thread] != s.l {
            gaps.push(Gap {
                thread: s.thread,
                actual: state.1[s.thread],
                needed: s.l,
            });
        }
        state.0 = s.g2;
        state.1[s.thread] = s.l2;
        steps.push(StepIds {
            thread: s.thread,
            trans: s.trans,
            partner: None,
            state: state.clone(),
        });
    }
    for (t, needed) in end.iter().enumerate() {
        if let Some(needed) = *needed
            && state.1[t] != needed
        {
            gaps.push(Gap {
                thread: t,
                actual: state.1[t],
                needed,
            });
        }
    }
    Replay {
        initial: initial.clone(),
        steps,
        gaps,
    }
}

/// Ψ of a replayed path: its mismatches between different locations (the
/// gaps at one location are data and cannot be separated by a partition).
pub(crate) fn clause(exp: &Explorer, replay: &Replay) -> Clause {
    let mut clause: Clause = replay
        .gaps
        .iter()
        .filter_map(|gap| {
            let tpl = exp.template_id(gap.thread) as u32;
            let a = exp.local(gap.thread, gap.actual)[0] as u16;
            let b = exp.local(gap.thread, gap.needed)[0] as u16;
            (a != b).then(|| -> Mismatch { ((tpl, a.min(b)), (tpl, a.max(b))) })
        })
        .collect();
    clause.sort_unstable();
    clause.dedup();
    clause
}

/// The locations of a path's gaps (for a path whose gaps are all data).
pub(crate) fn data_locations(exp: &Explorer, replay: &Replay) -> Vec<Key> {
    let mut keys: Vec<Key> = replay
        .gaps
        .iter()
        .map(|gap| {
            let tpl = exp.template_id(gap.thread) as u32;
            (tpl, exp.local(gap.thread, gap.actual)[0] as u16)
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(thread: usize, l: u32, l2: u32) -> PathStep {
        PathStep {
            thread,
            g: 0,
            l,
            g2: 0,
            l2,
            trans: 0,
        }
    }

    #[test]
    fn a_consistent_path_has_no_gap_and_a_spliced_one_has() {
        let init: StateIds = (0, vec![10, 20]);
        let good = [step(0, 10, 11), step(1, 20, 21), step(0, 11, 12)];
        let r = replay(&init, &good, &[Some(12), Some(21)]);
        assert!(r.gaps.is_empty());
        assert_eq!(
            r.steps.last().map(|s| s.state.clone()),
            Some((0, vec![12, 21]))
        );
        // Thread 1's step from 22 while it is at 20; the error needs
        // thread 0 at 13 while it is at 11.
        let bad = [step(0, 10, 11), step(1, 22, 23)];
        let r = replay(&init, &bad, &[Some(13), None]);
        assert_eq!(
            r.gaps,
            vec![
                Gap {
                    thread: 1,
                    actual: 20,
                    needed: 22
                },
                Gap {
                    thread: 0,
                    actual: 11,
                    needed: 13
                }
            ]
        );
    }
}
