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

use super::Val;
use super::explore::{Explorer, Succs};
use super::fire::{fire_all, fire_all_counting};
use super::interner::Interner;
use super::step_budget::{Ends, Seen, StepPoll, vec_growth};

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
    exp: &Explorer,
    b: &Boundaries,
    thread: usize,
    from: (&[Val], &[Val]),
    to: (&[Val], &[Val]),
    first: u32,
) -> Option<Vec<Inner>> {
    let prog = exp.prog;
    let out_at = &b.out[prog.threads[thread].template as usize];
    let mut reached = Reached::new(from);
    let mut fired = Vec::new();
    let mut poll = StepPoll::default();
    // The stores are numbered in the order reached: a breadth-first queue.
    for node in 0.. {
        let (g, l) = reached.stores(node)?;
        // Only the start is expanded at an Out location: a block ends there.
        if node > 0 && out_at[l[0] as usize] {
            continue;
        }
        fired.clear();
        fire_all(prog, thread, &g, &l, &mut fired);
        if exp.path_exhausted(&mut poll, fired.len(), |more| reached.growth(more)) {
            return None;
        }
        for (g2, l2, ti) in fired.drain(..) {
            if node == 0 && ti != first {
                continue;
            }
            let Some(child) = reached.add((&g2, &l2), node, ti) else {
                continue;
            };
            if g2 == to.0 && l2 == to.1 {
                return Some(reached.path(child));
            }
        }
    }
    None
}

/// The transitions from the Out state `(gs, ls)` of `thread` into its
/// block up to the first store where a transition fails with a run-time
/// error (none if it fails at once), for the trace of a model error met
/// inside a block; `None` if no run of the block fails.
pub(crate) fn path_to_error(
    exp: &Explorer,
    b: &Boundaries,
    thread: usize,
    gs: &[Val],
    ls: &[Val],
) -> Option<Vec<Inner>> {
    let prog = exp.prog;
    let out_at = &b.out[prog.threads[thread].template as usize];
    let mut reached = Reached::new((gs, ls));
    let mut fired = Vec::new();
    let mut poll = StepPoll::default();
    for node in 0.. {
        let (g, l) = reached.stores(node)?;
        fired.clear();
        if fire_all(prog, thread, &g, &l, &mut fired).is_some() {
            return Some(reached.path(node));
        }
        if exp.path_exhausted(&mut poll, fired.len(), |more| reached.growth(more)) {
            return None;
        }
        for (g2, l2, ti) in fired.drain(..) {
            if !out_at[l2[0] as usize] {
                reached.add((&g2, &l2), node, ti);
            }
        }
    }
    None
}

/// The stores a path search inside one block has reached, each once, and
/// numbered in the order reached (0: where it starts), so that the
/// numbers are its breadth-first queue. A block can run through millions
/// of stores, and the search runs after the search of states, beside all
/// it keeps: interned, a store takes its values and a dozen bytes, where
/// a map from each store to its parent, both boxed, took ten times that.
struct Reached {
    /// Each store's global then local values.
    stores: Interner,
    /// How store `n` was first reached: the store before it and the
    /// transition (the start's is never read).
    parent: Vec<(u32, u32)>,
    /// The length of a global store.
    globals: usize,
    /// A global and a local store, joined for `stores`.
    joined: Vec<Val>,
}

impl Reached {
    fn new((g, l): (&[Val], &[Val])) -> Reached {
        let mut reached = Reached {
            stores: Interner::default(),
            parent: Vec::new(),
            globals: g.len(),
            joined: Vec::new(),
        };
        reached.add((g, l), 0, 0);
        reached
    }

    /// Adds the store `(g, l)`, reached from store `from` by `trans`: its
    /// number, `None` if it was reached before.
    fn add(&mut self, (g, l): (&[Val], &[Val]), from: u32, trans: u32) -> Option<u32> {
        self.joined.clear();
        self.joined.extend_from_slice(g);
        self.joined.extend_from_slice(l);
        let known = self.stores.len();
        let n = self.stores.intern(&self.joined);
        (n as usize == known).then(|| {
            self.parent.push((from, trans));
            n
        })
    }

    /// Store `n`'s global and local values, if it has been reached.
    fn stores(&self, n: u32) -> Option<(Vec<Val>, Vec<Val>)> {
        if n as usize >= self.stores.len() {
            return None;
        }
        let (g, l) = self.stores.get(n).split_at(self.globals);
        Some((g.to_vec(), l.to_vec()))
    }

    /// Bytes the tables allocate at once if `more` stores are added.
    fn growth(&self, more: usize) -> u64 {
        let (len, capacity) = (self.parent.len(), self.parent.capacity());
        self.stores.growth(more) + vec_growth(len, capacity, size_of::<(u32, u32)>(), more)
    }

    /// The transitions from the start to store `end`, each with the
    /// stores after it.
    fn path(&self, mut end: u32) -> Vec<Inner> {
        let mut steps = Vec::new();
        while end != 0 {
            let (from, trans) = self.parent[end as usize];
            let (g, l) = self.stores.get(end).split_at(self.globals);
            steps.push(Inner {
                trans,
                g: g.to_vec(),
                l: l.to_vec(),
            });
            end = from;
        }
        steps.reverse();
        steps
    }
}
