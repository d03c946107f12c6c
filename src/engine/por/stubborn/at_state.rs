//! One state's view for the transition closure (`AtState`: what is
//! enabled, offered and reachable) and the necessary enabling sets of its
//! disabled transitions (`Nes`, from `reason.rs`).

use super::super::ThreadAt;
use super::super::reason::false_reason;
use super::Stubborn;
use crate::program::Program;
use crate::program::access::Slots;

/// One state's view: which transitions are enabled and which may still
/// fire. Kept from state to state (`Buffers`), as the sets being closed
/// are: allocating them anew was a third of `--por`'s time on peterson.3.
#[derive(Default)]
pub(in crate::engine::por) struct AtState {
    pub(super) enabled: Slots,
    /// The sides of rendezvous at their thread's location whose guard
    /// holds, or fails to evaluate (the side fails: a model error of its
    /// thread, reported at this state; counting it as offered only makes
    /// the set larger).
    pub(super) offered: Slots,
    pub(super) reachable: Slots,
    /// How many threads can move, alone or in a rendezvous.
    pub(super) movers: usize,
    /// Per transition number, once asked for: its necessary enabling sets
    /// (`Stubborn::enabling_sets`), in `arena`.
    pub(super) nes: Vec<Option<Nes>>,
    /// The transitions of every enabling set asked for at this state.
    pub(super) arena: Vec<u32>,
}

/// A transition's necessary enabling sets at one state: up to two options
/// (entering its location; opening its guard), each a range of
/// `AtState::arena`, so that a state's sets allocate nothing.
#[derive(Clone, Copy, Default)]
pub(super) struct Nes {
    options: [(u32, u32); 2],
    len: usize,
}

impl Nes {
    /// Adds the option of `arena[start..]`.
    fn close(&mut self, start: usize, arena: &[u32]) {
        self.options[self.len] = (start as u32, arena.len() as u32);
        self.len += 1;
    }

    pub(super) fn options(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.options[..self.len]
            .iter()
            .map(|&(a, b)| (a as usize, b as usize))
    }
}

impl Stubborn {
    /// Fills `at` with the view of the state whose threads are `threads`.
    pub(in crate::engine::por) fn at_state(
        &self,
        prog: &Program,
        threads: &[ThreadAt],
        at: &mut AtState,
    ) {
        let n = self.owner.len();
        let AtState {
            enabled,
            offered,
            reachable,
            movers,
            nes,
            arena,
        } = at;
        enabled.clear_with_room(n);
        offered.clear_with_room(n);
        reachable.clear_with_room(n);
        nes.clear();
        nes.resize(n, None);
        arena.clear();
        for (u, th) in threads.iter().enumerate() {
            let tpl = prog.template_of(u);
            let base = self.offset[u];
            if th.succs.error.is_some() {
                for &ti in &tpl.outgoing[th.pc as usize] {
                    enabled.insert(base + ti);
                }
            }
            for s in &th.succs.steps {
                enabled.insert(base + s.trans);
            }
            let ctx = th.ctx(prog, u);
            for &ti in &tpl.outgoing[th.pc as usize] {
                let tr = &tpl.transitions[ti as usize];
                if tr.sync.is_some()
                    && tr
                        .guard
                        .as_ref()
                        .is_none_or(|e| !matches!(e.eval(&ctx), Ok(0)))
                {
                    offered.insert(base + ti);
                }
            }
            for &ti in &self.reach[prog.threads[u].template as usize][th.pc as usize] {
                reachable.insert(base + ti);
            }
        }
        *movers = threads.iter().filter(|th| th.moves() > 0).count();
    }
}

impl Stubborn {
    /// Does the model read another thread's store, which this closure
    /// treats coarsely?
    pub(in crate::engine::por) fn coarse(&self) -> bool {
        self.whole_state.iter().next().is_some()
    }

    /// The necessary enabling sets of the disabled transition `g` at this
    /// state (none when it has none): the transitions entering its
    /// location, when its thread is elsewhere; the writers of the globals
    /// its guard is false by, with its thread's transitions here when the
    /// reason reads a local. Their transitions are appended to `arena`.
    pub(super) fn enabling_sets(
        &self,
        prog: &Program,
        threads: &[ThreadAt],
        reachable: &Slots,
        g: u32,
        arena: &mut Vec<u32>,
    ) -> Nes {
        let u = self.owner[g as usize] as usize;
        let ti = g - self.offset[u];
        let tpl_id = prog.threads[u].template as usize;
        let tpl = &prog.templates[tpl_id];
        let tr = &tpl.transitions[ti as usize];
        let pc = threads[u].pc;
        let mut options = Nes::default();
        if !tr.from.contains(&pc) {
            let start = arena.len();
            arena.extend(
                tr.from
                    .iter()
                    .flat_map(|&f| &self.into[tpl_id][f as usize])
                    .map(|&tj| self.offset[u] + tj)
                    .filter(|&h| reachable.contains(h)),
            );
            options.close(start, arena);
        }
        let ctx = threads[u].ctx(prog, u);
        // A guard that reads other threads' stores may be opened by any of
        // them: only the entering transitions will do.
        if let Some(guard) = &tr.guard
            && !self.whole_state.contains(g)
            && matches!(guard.eval(&ctx), Ok(0))
        {
            let (by, locals) = false_reason(guard, &ctx);
            let start = arena.len();
            for s in by.iter() {
                if let Some(w) = self.writers.get(s as usize) {
                    arena.extend(w.iter_and(reachable));
                }
            }
            if locals {
                arena.extend(
                    tpl.outgoing[pc as usize]
                        .iter()
                        .map(|&tj| self.offset[u] + tj),
                );
            }
            options.close(start, arena);
        }
        options
    }
}
