//! Reducible blocks as steps (Popeea, Rybalchenko and Wilhelm, §II and
//! Fig. 2): with the boundaries `engine/lipton` infers, a step of a thread
//! runs it from a location outside every block (an *Out* location) through
//! the block's *In* locations to the next Out location, the thread alone,
//! as the paper's LStep (S2, S3) composed into the summary of (S4). Only
//! states where every thread is at an Out location are states of the
//! search, as IR's are.
//!
//! A step is named by the transition it starts with; `block_path` finds
//! the transitions in between again for a trace. A run-time model error
//! inside a block is the step's error, and the store it happens in is a
//! state of the search too: a thread past its commit may then be unable
//! to complete its block, which Lipton's argument needs. A block that cannot reach an Out
//! location (blocked, or looping for ever among In locations: the
//! inference breaks every cycle of In locations, so only data can do this)
//! gives no successor.

use super::explore::{Explorer, Succs};
use super::fire::{fire_all, fire_all_counting};
use super::step_budget::{Ends, Seen, StepPoll};
use super::{Program, Val};
use rustc_hash::FxHashMap;

/// Where blocks end: `out[template][location]`.
#[derive(Clone, Debug)]
pub(crate) struct Boundaries {
    pub(crate) out: Vec<Vec<bool>>,
}

impl Explorer<'_> {
    /// The block steps of `thread` from the Out state `(g, l)`.
    pub(super) fn compute_block(&mut self, thread: usize, g: u32, l: u32, b: &Boundaries) -> Succs {
        let prog = self.prog;
        let template = prog.threads[thread].template as usize;
        let out_at = &b.out[template];
        let mut out = Succs::default();
        let mut seen = Seen::default();
        let mut ends = Ends::default();
        let gs = self.globals.get(g).to_vec();
        let ls = self.local(thread, l).to_vec();
        let mut work = vec![(gs, ls, None::<u32>)];
        let mut fired = Vec::new();
        let mut poll = StepPoll::default();
        while let Some((gs, ls, first)) = work.pop() {
            fired.clear();
            let taken = self.taken.as_ref();
            let error = fire_all_counting(prog, thread, (&gs, &ls), &mut fired, &mut 0, taken);
            if let Some((ti, msg)) = error {
                out.error.get_or_insert((first.unwrap_or(ti), msg));
                if let Some(first) = first {
                    // A transition fails inside the block: the block may not
                    // complete from here, which the reduction needs of a
                    // thread past its commit, so this store is a state of
                    // the search too (as if its location were Out).
                    self.end_step(template, (&gs, &ls), first, &mut ends, &mut out);
                }
            }
            let (steps, tables) = ((&mut poll, fired.len()), (&seen, &ends));
            if self.step_exhausted((thread, template), steps, tables, &mut out) {
                break;
            }
            for (g2, l2, ti) in fired.drain(..) {
                let first = first.unwrap_or(ti);
                if out_at[l2[0] as usize] {
                    self.end_step(template, (&g2, &l2), first, &mut ends, &mut out);
                } else if seen.insert((g2.clone(), l2.clone(), first)) {
                    work.push((g2, l2, Some(first)));
                }
            }
        }
        out
    }
}

/// One transition inside a block, with the stores after it.
pub(crate) struct Inner {
    pub(crate) trans: u32,
    pub(crate) g: Vec<Val>,
    pub(crate) l: Vec<Val>,
}

/// The transitions of one block step of `thread` from `(gs, ls)` to
/// `(g2, l2)` that starts with `first` (a shortest such run, the thread
/// alone), for a trace; `None` if there is none.
pub(crate) fn block_path(
    prog: &Program,
    b: &Boundaries,
    thread: usize,
    from: (&[Val], &[Val]),
    to: (&[Val], &[Val]),
    first: u32,
) -> Option<Vec<Inner>> {
    let out_at = &b.out[prog.threads[thread].template as usize];
    type Node = (Vec<Val>, Vec<Val>);
    let mut parent: FxHashMap<Node, (Node, u32)> = FxHashMap::default();
    let start: Node = (from.0.to_vec(), from.1.to_vec());
    let mut level = vec![start.clone()];
    let mut fired = Vec::new();
    let mut depth = 0;
    while !level.is_empty() {
        let mut next = Vec::new();
        for node in level {
            fired.clear();
            fire_all(prog, thread, &node.0, &node.1, &mut fired);
            for (g2, l2, ti) in fired.drain(..) {
                if depth == 0 && ti != first {
                    continue;
                }
                let child = (g2, l2);
                if child == start || parent.contains_key(&child) {
                    continue;
                }
                parent.insert(child.clone(), (node.clone(), ti));
                if child.0 == to.0 && child.1 == to.1 {
                    return Some(unwind(&parent, &start, child));
                }
                if !out_at[child.1[0] as usize] {
                    next.push(child);
                }
            }
        }
        level = next;
        depth += 1;
    }
    None
}

type Parents = FxHashMap<(Vec<Val>, Vec<Val>), ((Vec<Val>, Vec<Val>), u32)>;

fn unwind(parent: &Parents, start: &(Vec<Val>, Vec<Val>), end: (Vec<Val>, Vec<Val>)) -> Vec<Inner> {
    let mut steps = Vec::new();
    let mut at = end;
    while &at != start {
        let (prev, ti) = parent[&at].clone();
        steps.push(Inner {
            trans: ti,
            g: at.0,
            l: at.1,
        });
        at = prev;
    }
    steps.reverse();
    steps
}

/// The transitions from the Out state `(gs, ls)` of `thread` into its
/// block up to the first store where a transition fails with a run-time
/// error (none if it fails at once), for the trace of a model error met
/// inside a block; `None` if no run of the block fails.
pub(crate) fn path_to_error(
    prog: &Program,
    b: &Boundaries,
    thread: usize,
    gs: &[Val],
    ls: &[Val],
) -> Option<Vec<Inner>> {
    let out_at = &b.out[prog.threads[thread].template as usize];
    type Node = (Vec<Val>, Vec<Val>);
    let start: Node = (gs.to_vec(), ls.to_vec());
    let mut parent: FxHashMap<Node, (Node, u32)> = FxHashMap::default();
    let mut level = vec![start.clone()];
    let mut fired = Vec::new();
    while !level.is_empty() {
        let mut next = Vec::new();
        for node in level {
            fired.clear();
            if fire_all(prog, thread, &node.0, &node.1, &mut fired).is_some() {
                return Some(unwind(&parent, &start, node));
            }
            for (g2, l2, ti) in fired.drain(..) {
                let child = (g2, l2);
                if out_at[child.1[0] as usize] || child == start || parent.contains_key(&child) {
                    continue;
                }
                parent.insert(child.clone(), (node.clone(), ti));
                next.push(child);
            }
        }
        level = next;
    }
    None
}
