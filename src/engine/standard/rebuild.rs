//! `standard`'s counterexamples: the shortest trace to a state at depth d,
//! rebuilt from the visited set without parent links. Each stored state
//! carries its depth modulo a period (its tag), so a predecessor at depth
//! d - 1 is found by searching the states tagged d - 1 for one with a step
//! to the target, then again from there, back to an initial state; any
//! such chain of d steps is a shortest trace. Under `--symmetry` the chain
//! joins canonical states, and a concrete trace is then replayed from the
//! initial state, at each step some thread's step leading to a state whose
//! canonical form is the next on the chain (TLC's technique). Under
//! `--por` a step between two levels may pass through states that are not
//! stored (`pass/`): a move into one is followed, as the search followed
//! it, to the stored state its chain leads to, and its steps join the
//! trace (real, as every `--por` trace is, but not always a shortest one).
//!
//! The tag is exact while the search is shallower than its period (2^8 - 1
//! levels at least, 2^24 - 1 for most models, whose packed states leave
//! spare bits). In a deeper search, a state tagged d - 1 may lie deeper or
//! shallower by a multiple of the period; `Exact` then numbers the levels
//! of the states up to the target's depth by a forward breadth-first
//! search over the stored states, marking each with its depth as it is
//! reached, and the walk back takes those depths instead. Without `--por`
//! they are the search's own; under it the forward search takes every
//! move, also those the reduced search left out, and may reach a state
//! sooner than the search did (its tag then says another level: a
//! generated model's trace came out empty so, found in review), so the
//! walk back goes by the forward search's levels alone, a shortest trace
//! over the stored states, and every state it numbers has a predecessor
//! one level up.

use super::Search;
use super::found::At;
use crate::engine::result::{Limit, Trace};
use crate::engine::trace::{StateIds, StepIds};
use rayon::prelude::*;

/// The level of each stored state up to a depth, as a forward search over
/// the stored states numbers it (one u32 per entry of each shard,
/// `UNNUMBERED` for the others), when tags alone cannot tell the levels
/// apart. Built only then: 4 bytes per entry for the time of the
/// rebuilding.
struct Exact {
    depths: Vec<Vec<u32>>,
}

const UNNUMBERED: u32 = u32::MAX;

impl Exact {
    fn depth(&self, (s, e): (usize, usize)) -> u32 {
        self.depths[s][e]
    }

    /// Numbers an entry `depth` unless it is numbered already; was it not?
    fn number(&mut self, (s, e): (usize, usize), depth: usize) -> bool {
        let new = self.depths[s][e] == UNNUMBERED;
        if new {
            self.depths[s][e] = depth as u32;
        }
        new
    }

    /// Is an entry at `depth`?
    fn allows(&self, pos: (usize, usize), depth: usize) -> bool {
        self.depth(pos) as usize == depth
    }
}

/// Levels read from the visited set ahead of need: the walk back takes
/// one level per step, and reading several in one pass over the tables
/// saves most of the passes (each reads the whole visited set).
#[derive(Default)]
struct Levels {
    /// The keys at depth `next`, `next - 1`, ...
    ahead: Vec<Vec<u64>>,
    next: usize,
}

/// Levels read per pass.
const LEVELS_PER_PASS: usize = 8;

/// The rebuild polls its budget once per this many states whose moves it
/// computes (each can be a long step).
const REBUILD_POLL: usize = 64;

impl Levels {
    /// The keys of the states at `depth` (tagged so; the walk asks for
    /// depths in decreasing order).
    fn take(&mut self, visited: &crate::engine::store::StateStore, depth: usize) -> Vec<u64> {
        if self.ahead.is_empty() || depth != self.next {
            let count = LEVELS_PER_PASS.min(depth + 1).min(visited.period());
            self.ahead = visited.keys_tagged(depth, count);
            self.ahead.reverse();
            self.next = depth;
        }
        self.next = self.next.wrapping_sub(1);
        self.ahead.pop().unwrap_or_default()
    }
}

/// A step from a candidate predecessor to the target: the moving thread,
/// its transition, the receiver of a rendezvous, and the state after
/// (concrete: not canonicalised).
pub(super) type Move = (usize, u32, Option<(usize, u32)>, Vec<u32>);

impl Search<'_> {
    /// Every move of the state `st` (thread steps, then rendezvous; a
    /// counter state's moves lead to counter states).
    fn moves(&mut self, st: &[u32]) -> Vec<Move> {
        if let Some(ctr) = self.ctr.clone() {
            return self.moves_counted(&ctr, st);
        }
        let mut out = Vec::new();
        self.each_move(st, |_, m| {
            out.push(m);
            false
        });
        out
    }

    /// A move of the state `st` to the stored state `target` (packed, as
    /// stored), if one leads there, directly or (`follow`: from a level
    /// whose rounds ran) through states the search passed through
    /// (`pass/`): the moves on the way. The moves are
    /// made one at a time: a step can have millions (a long block), and
    /// only the one that leads to the target is kept.
    fn move_to(&mut self, st: &[u32], target: &[u64], follow: bool) -> Option<Vec<Move>> {
        if self.ctr.is_some() {
            let moves = self.moves(st);
            let m = moves.into_iter().find(|m| self.stored_key(&m.3) == target);
            return m.map(|m| vec![m]);
        }
        let mut found = None;
        self.each_move(st, |search, m| {
            let key = search.stored_key(&m.3);
            if key == target {
                found = Some(vec![m]);
                return true;
            }
            if follow
                && search.may_pass(&key)
                && search.passed_end(key, &m.3).as_deref() == Some(target)
            {
                found = Some(search.passed_path(m));
                return true;
            }
            false
        });
        found
    }

    /// Hands each move of `st` to `f` (with the search), until `f` says it
    /// has found what it looked for.
    fn each_move(&mut self, st: &[u32], mut f: impl FnMut(&mut Self, Move) -> bool) {
        // A transition that fails at run time leads to the error state, if
        // the program has one (`program/error_state.rs`).
        let error_state = self.error_key.as_ref().map(|key| {
            let mut e = Vec::new();
            self.visited.packer.unpack(key, &mut e);
            e
        });
        for t in 0..st.len() - 1 {
            let succs = self.exp.successors_unkept(t, st[0], st[1 + t]);
            for step in &succs.steps {
                let mut next = st.to_vec();
                next[0] = step.g;
                next[1 + t] = step.l;
                if f(self, (t, step.trans, None, next)) {
                    return;
                }
            }
            if let (Some((trans, _)), Some(e)) = (&succs.error, &error_state)
                && f(self, (t, *trans, None, e.clone()))
            {
                return;
            }
        }
        if !self.exp.prog.channels.is_empty() {
            let (steps, _, failed) = self.exp.sync_steps_failing(st[0], &st[1..]);
            for sy in steps {
                let mut next = st.to_vec();
                next[0] = sy.g;
                next[1 + sy.sender] = sy.l_send;
                next[1 + sy.receiver] = sy.l_recv;
                let partner = Some((sy.receiver, sy.recv_trans));
                if f(self, (sy.sender, sy.send_trans, partner, next)) {
                    return;
                }
            }
            if let Some(e) = &error_state {
                for (t, tr, p) in failed {
                    if f(self, (t, tr, p, e.clone())) {
                        return;
                    }
                }
            }
        }
    }

    /// May the search have passed through the state `key` (`pass/`): it
    /// is not stored, or it may have been stored after the rounds gave up?
    pub(super) fn may_pass(&self, key: &[u64]) -> bool {
        self.passing.as_ref().is_some_and(|p| p.off) || self.visited.find(key).is_none()
    }

    /// The packed form of a state as stored (canonical under symmetry).
    pub(super) fn stored_key(&self, st: &[u32]) -> Vec<u64> {
        let mut st = st.to_vec();
        if self.ctr.is_some() {
            // Moves of counter states are counter states already.
        } else if let Some(sym) = &self.sym {
            sym.canonicalise(&mut st);
        }
        let mut key = Vec::new();
        self.visited.packer.pack(&st, &mut key);
        key
    }

    /// A stored state at `depth` with a move to `target` (packed, as
    /// stored), and that move.
    fn predecessor(
        &mut self,
        target: &[u64],
        depth: usize,
        exact: Option<&Exact>,
        levels: &mut Levels,
    ) -> Option<(Vec<u64>, Vec<Move>)> {
        let words = self.visited.packer.words;
        let mut goal = Vec::new();
        self.visited.packer.unpack(target, &mut goal);
        // Most candidates are ruled out without computing their moves (in
        // parallel, on the search's workers).
        let most = self.most_apart(target);
        // Past the budget already (the search may stop above it): reading
        // a level would only take more.
        if self.rebuild_out() {
            return None;
        }
        let (candidates, near): (Vec<u64>, Vec<bool>) = self.pool.install(|| {
            let candidates = match exact {
                None => levels.take(&self.visited, depth),
                Some(x) => {
                    let mut c = Vec::new();
                    self.visited.for_each(|pos, key, _| {
                        if x.allows(pos, depth) {
                            c.extend_from_slice(key);
                        }
                    });
                    c
                }
            };
            // A byte per candidate, collected in place: a level can hold
            // millions of states, and the rebuild runs beside all the
            // search keeps.
            let near = candidates
                .par_chunks_exact(words)
                .map(|key| {
                    let mut st = Vec::new();
                    self.visited.packer.unpack(key, &mut st);
                    self.threads_apart(&st, &goal) <= most
                })
                .collect();
            (candidates, near)
        });
        let mut st = Vec::new();
        let follow = self.passing.as_ref().is_some_and(|p| depth < p.levels);
        let near = candidates.chunks_exact(words).zip(near).filter(|(_, n)| *n);
        for (k, (key, _)) in near.enumerate() {
            if k % REBUILD_POLL == 0 && self.rebuild_out() {
                return None;
            }
            self.visited.packer.unpack(key, &mut st);
            if let Some(m) = self.move_to(&st, target, follow) {
                return Some((key.to_vec(), m));
            }
        }
        None
    }

    /// In how many threads' local stores a predecessor of the state
    /// `target` (packed) may differ from it: a move changes one thread's
    /// local store (two in a rendezvous), and through states passed, a
    /// step for each of them too (at most the longest chain the search
    /// followed). The error state differs from its predecessors everywhere.
    fn most_apart(&self, target: &[u64]) -> usize {
        let steps = 1 + self.passing.as_ref().map_or(0, |p| p.longest);
        if self.error_key.as_deref() == Some(target) {
            usize::MAX
        } else if self.exp.prog.channels.is_empty() {
            steps
        } else {
            2 * steps
        }
    }

    /// In how many threads' local stores two stored states differ (under
    /// symmetry, as multisets per block of interchangeable threads).
    fn threads_apart(&self, a: &[u32], b: &[u32]) -> usize {
        if let Some(ctr) = &self.ctr {
            return ctr.threads_apart(a, b);
        }
        let Some(sym) = &self.sym else {
            return a[1..].iter().zip(&b[1..]).filter(|(x, y)| x != y).count();
        };
        sym.threads_apart(a, b)
    }

    /// Numbers the levels of the stored states up to `upto` by a forward
    /// breadth-first search (see the module header). A move is taken as
    /// `predecessor` takes it: into the stored state it leads to, and
    /// (`follow`) along the chain of the states passed through from it,
    /// where the end lies no further apart than `most_apart` allows. (A
    /// chain from a move the search left out can pass through states it
    /// never met, and be longer than any it followed: numbered so, a state
    /// would have no predecessor the walk back looks at.)
    fn exact_levels(&mut self, upto: usize) -> Exact {
        let mut x = Exact {
            depths: self
                .visited
                .slots()
                .into_iter()
                .map(|n| vec![UNNUMBERED; n])
                .collect(),
        };
        let mut level: Vec<Vec<u32>> = Vec::new();
        for st in self.initial_stored() {
            if let Some(pos) = self.visited.find(&self.stored_key(&st))
                && x.number(pos, 0)
            {
                level.push(st);
            }
        }
        let mut st = Vec::new();
        for depth in 0..upto {
            let follow = self.passing.as_ref().is_some_and(|p| depth < p.levels);
            let mut next = Vec::new();
            for (k, cur) in level.iter().enumerate() {
                if k % REBUILD_POLL == 0 && self.rebuild_out() {
                    return x;
                }
                for m in self.moves(cur) {
                    let key = self.stored_key(&m.3);
                    let end = match follow && self.may_pass(&key) {
                        true => self.passed_end(key.clone(), &m.3).filter(|e| {
                            self.visited.packer.unpack(e, &mut st);
                            *e != key && self.threads_apart(cur, &st) <= self.most_apart(e)
                        }),
                        false => None,
                    };
                    for key in std::iter::once(key).chain(end) {
                        if let Some(pos) = self.visited.find(&key)
                            && x.number(pos, depth + 1)
                        {
                            self.visited.packer.unpack(&key, &mut st);
                            next.push(st.clone());
                        }
                    }
                }
            }
            level = next;
        }
        x
    }

    /// Has the budget of the rebuild run out (`Budget::for_rebuilding`)?
    /// It stays out: the trace being rebuilt is then dropped.
    pub(super) fn rebuild_out(&self) -> bool {
        let budget = self.rebuild.as_ref();
        budget.is_some_and(|b| b.time_or_memory_exceeded().is_some())
    }

    /// The shortest trace to the state `at`, or the budget of the rebuild
    /// that ran out first (with its slack).
    pub(super) fn trace(&mut self, at: &At) -> Result<Trace, Limit> {
        let trace = self.trace_unchecked(at);
        self.rebuild_hit().map_or(Ok(trace), Err)
    }

    /// The budget of the rebuild that ran out, if one has.
    pub(super) fn rebuild_hit(&self) -> Option<Limit> {
        self.rebuild.as_ref().and_then(|b| b.hit())
    }

    /// `trace`, stopped short (and wrong) once the rebuild's budget is out.
    fn trace_unchecked(&mut self, at: &At) -> Trace {
        // Levels share tags once the search went a period deep.
        let period = self.visited.period();
        let exact = (self.visited.deepest() >= period).then(|| self.exact_levels(at.depth));
        // The target's level as numbered (none: the rebuild's budget ran
        // out, and the trace is dropped).
        let depth = exact.as_ref().map_or(at.depth, |x| {
            let pos = self.visited.find(&at.key);
            pos.map_or(at.depth, |p| (x.depth(p) as usize).min(at.depth))
        });
        // Backwards: (state as stored, the moves into the next one).
        let mut chain: Vec<(Vec<u64>, Option<Vec<Move>>)> = vec![(at.key.clone(), None)];
        let mut target = at.key.clone();
        let mut levels = Levels::default();
        for depth in (0..depth).rev() {
            // The target was reached from its level, so a predecessor
            // exists; if none is found (an internal fault), the trace
            // starts at the last state reached.
            let Some((key, m)) = self.predecessor(&target, depth, exact.as_ref(), &mut levels)
            else {
                break;
            };
            chain.last_mut().expect("the chain starts non-empty").1 = Some(m);
            chain.push((key.clone(), None));
            target = key;
        }
        chain.reverse();
        if let Some(ctr) = self.ctr.clone() {
            let keys: Vec<Vec<u64>> = chain.into_iter().map(|(k, _)| k).collect();
            return self.trace_counted(&ctr, &keys);
        }
        if self.sym.is_some() {
            let keys: Vec<Vec<u64>> = chain.into_iter().map(|(k, _)| k).collect();
            return self.trace_by_replay(&keys);
        }
        let mut st = Vec::new();
        self.visited.packer.unpack(&chain[0].0, &mut st);
        let initial: StateIds = (st[0], st[1..].to_vec());
        let steps: Vec<StepIds> = chain
            .into_iter()
            .filter_map(|(_, m)| m)
            .flatten()
            .map(|(thread, trans, partner, next)| StepIds {
                thread,
                trans,
                partner,
                state: (next[0], next[1..].to_vec()),
            })
            .collect();
        Trace::build(&self.exp, &initial, &steps)
    }

    /// With symmetry, the chain joins canonical states, whose threads are
    /// permuted from one step to the next: replays from the (canonical,
    /// hence real) initial state, at each step a move whose canonical form
    /// is the next state on the chain.
    fn trace_by_replay(&mut self, chain: &[Vec<u64>]) -> Trace {
        let mut cur = Vec::new();
        self.visited.packer.unpack(&chain[0], &mut cur);
        let initial = (cur[0], cur[1..].to_vec());
        let mut steps = Vec::new();
        for target in &chain[1..] {
            // The chain was built from these very moves, so one exists.
            let Some(moves) = self.move_to(&cur, target, false) else {
                break;
            };
            for (thread, trans, partner, next) in moves {
                steps.push(StepIds {
                    thread,
                    trans,
                    partner,
                    state: (next[0], next[1..].to_vec()),
                });
                cur = next;
            }
        }
        Trace::build(&self.exp, &initial, &steps)
    }
}
