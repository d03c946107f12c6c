//! Which closed set a state is expanded by (`Reducer::choose`, for the
//! search's decision with its cycle proviso), and a set with one
//! successor (`Reducer::one_step_set`, for the states `standard` passes
//! through): the sets grown from each thread with a move, by the thread
//! closure (`mod.rs`) and by the transition closure of `stubborn/` where
//! it applies.

use super::{Buffers, Groups, Reducer, ThreadAt};
use crate::program::Program;

impl Reducer {
    /// A set of threads to expand at a state instead of all of them, or
    /// `None` for all: a closed set whose enabled transitions are all
    /// invisible, which leaves out a thread that could move, and which
    /// `passes` (the search's cycle proviso). A set with one thread that
    /// moves is taken as soon as it passes; otherwise the one with the
    /// fewest successors that passes.
    pub(crate) fn choose(
        &self,
        prog: &Program,
        threads: &[ThreadAt],
        bufs: &mut Buffers,
        mut passes: impl FnMut(&[bool]) -> bool,
    ) -> Option<Vec<bool>> {
        // Built when the thread closure runs (a `Vec` per thread).
        let mut groups: Option<Groups> = None;
        self.prepare(prog, threads, bufs);
        let moves = |t: usize| threads[t].moves();
        let movers = (0..threads.len()).filter(|&t| moves(t) > 0).count();
        let in_set = |set: &[bool]| {
            (0..threads.len())
                .filter(|&t| set[t] && moves(t) > 0)
                .count()
        };
        let mut found: Vec<(usize, Vec<bool>)> = Vec::new();
        for seed in (0..threads.len()).filter(|&t| moves(t) > 0) {
            for set in self.seed_sets(prog, threads, bufs, (&mut groups, usize::MAX), seed) {
                match in_set(&set) {
                    k if k == movers => {}
                    1 => {
                        if passes(&set) {
                            return Some(set);
                        }
                    }
                    _ => {
                        let cost = (0..threads.len()).filter(|&t| set[t]).map(moves).sum();
                        found.push((cost, set));
                    }
                }
            }
        }
        found.sort_by_key(|(cost, _)| *cost);
        found.dedup_by(|a, b| a.1 == b.1);
        found
            .into_iter()
            .map(|(_, set)| set)
            .find(|set| passes(set))
    }

    /// A closed set with invisible enabled transitions, grown from a
    /// thread with one move, that `accepts` (for `standard/pass/`: one
    /// whose enabled transitions make one successor and that needs no
    /// proviso), or `None`. Only a thread with one move can seed a set
    /// with one successor, and such a set leaves out every other thread
    /// that moves (but the seed's rendezvous partner), which must then not
    /// need the proviso: only those seeds' closures are computed.
    pub(crate) fn one_step_set(
        &self,
        prog: &Program,
        threads: &[ThreadAt],
        bufs: &mut Buffers,
        mut accepts: impl FnMut(&[bool]) -> bool,
    ) -> Option<Vec<bool>> {
        let mut groups: Option<Groups> = None;
        // The set holds no other thread that moves (but a rendezvous
        // partner), so those must not need the proviso.
        let hopeless = |seed: usize| {
            (0..threads.len()).any(|u| {
                let partner = threads[seed].pairs > 0 && threads[u].pairs > 0;
                u != seed
                    && !partner
                    && threads[u].moves() > 0
                    && self.ahead[u][threads[u].pc as usize]
            })
        };
        let seeds: Vec<usize> = (0..threads.len())
            .filter(|&t| threads[t].moves() == 1 && !hopeless(t))
            .collect();
        if seeds.is_empty() {
            return None;
        }
        self.prepare(prog, threads, bufs);
        for seed in seeds {
            // A closure past the seed and its partner is given up: it has
            // two successors at least.
            let most = 1 + (threads[seed].pairs > 0) as usize;
            for set in self.seed_sets(prog, threads, bufs, (&mut groups, most), seed) {
                if accepts(&set) {
                    return Some(set);
                }
            }
        }
        None
    }

    /// The state's view for the transition closure (`stubborn/`).
    fn prepare(&self, prog: &Program, threads: &[ThreadAt], bufs: &mut Buffers) {
        if let Some(st) = &self.stubborn {
            st.at_state(prog, threads, &mut bufs.at);
        }
    }

    /// The closed sets grown from `seed`: by the transition closure, and
    /// by the thread closure where it may find a smaller one. (After
    /// `prepare`; `groups`, built when the thread closure first runs.) A
    /// closure that holds more than `most` threads that move gives up: it
    /// is then every thread.
    fn seed_sets(
        &self,
        prog: &Program,
        threads: &[ThreadAt],
        bufs: &mut Buffers,
        (groups, most): (&mut Option<Groups>, usize),
        seed: usize,
    ) -> impl Iterator<Item = Vec<bool>> {
        let moving = |set: &[bool]| {
            (0..threads.len())
                .filter(|&t| set[t] && threads[t].moves() > 0)
                .count()
        };
        bufs.closing.most = most;
        let by_transitions = self.stubborn.as_ref().and_then(|st| {
            let bufs = (&mut bufs.at, &mut bufs.closing);
            self.stubborn(st, prog, threads, bufs, seed)
        });
        // The thread closure is also tried where it may find a smaller
        // set: with reads of other threads' stores, which the transition
        // closure treats coarsely (a set with one thread that moves is as
        // small as sets get), and where the transition closure found none.
        let by_threads = match (&by_transitions, &self.stubborn) {
            (Some(set), Some(st)) if !st.coarse() || moving(set) == 1 => None,
            _ => {
                let groups = groups.get_or_insert_with(|| Groups::of(prog, threads));
                self.closure(prog, threads, (groups, most), seed)
            }
        };
        [by_transitions, by_threads].into_iter().flatten()
    }
}
