//! Interned stores and the per-thread successor function shared by all
//! engines: `(thread, g, l) -> [(g', l', transition)]`, memoised. The
//! rendezvous, which move two threads, are in `rendezvous.rs`.

use super::blocks::Boundaries;
use super::fire::{fire_all_counting, uses_tid};
pub(crate) use super::interner::Interner;
use super::memo::Memo;
use super::rendezvous::Offers;
use super::step_budget::StepBudget;
use super::taken::Taken;
use super::{Ctx, Program, Val};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// One step of one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Step {
    pub(crate) g: u32,
    pub(crate) l: u32,
    /// Transition index within the thread's template.
    pub(crate) trans: u32,
}

/// A thread's successors from one `(g, l)`, plus the first run-time model
/// error met while computing them (that transition then has no successor).
#[derive(Debug, Default)]
pub(crate) struct Succs {
    pub(crate) steps: Vec<Step>,
    pub(crate) error: Option<(u32, String)>,
    /// How many transitions failed (each leads to the program's error
    /// state, if it has one: `error_state.rs`).
    pub(crate) failures: u32,
    /// A budget ran out in the middle of a step of many transitions (a
    /// cooperative macro-step, a block), which stopped short: `steps` is
    /// empty, though the step has ends. The run ends `unknown` at its next
    /// budget check (a budget stays out), so only what is drawn from this
    /// before then needs care: a cut thread counts as moving, never as
    /// stuck. (The ends found before the cut are dropped: they are some of
    /// the step's, and an engine would spend more memory on them.)
    pub(crate) cut: bool,
}

impl Succs {
    /// Does the thread move: a step, or (`divine`: with the program's
    /// error state) a transition that fails and so goes to the error state.
    /// A cut step may have moves not yet found: it moves, so that no
    /// deadlock is claimed for it.
    pub(crate) fn moves(&self, divine: bool) -> bool {
        !self.steps.is_empty() || (divine && self.failures > 0) || self.cut
    }
}

/// Mutable exploration context over a program: store interners and the
/// successor memo. Engines own one each.
pub(crate) struct Explorer<'p> {
    pub(crate) prog: &'p Program,
    pub(crate) globals: Interner,
    /// Local stores, one interner per template.
    pub(crate) locals: Vec<Interner>,
    /// Threads whose successors coincide share a memo class: instances of a
    /// template whose code never reads `tid`.
    class_of: Vec<usize>,
    pub(super) memo: Memo,
    /// The template of each memo class.
    class_template: Vec<usize>,
    /// The rendezvous a thread offers from `(g, l)`, per memo class, and
    /// their number (bounded by `MEMO_LIMIT` too).
    pub(super) offers_memo: Vec<FxHashMap<(u32, u32), Arc<Offers>>>,
    pub(super) offers_entries: usize,
    /// Per template and location: does a sync transition leave it? A
    /// thread elsewhere offers no rendezvous, and its memo is not asked.
    pub(super) sync_at: Vec<Vec<bool>>,
    /// `--blocks`: a step runs a thread through a whole reducible block
    /// (`blocks.rs`).
    blocks: Option<Arc<Boundaries>>,
    /// `--show coverage`: the transitions taken so far (`taken.rs`).
    pub(super) taken: Option<Taken>,
    /// What a step of many transitions polls (`step_budget.rs`); none,
    /// and such a step always runs to its end.
    pub(super) step_budget: Option<Arc<dyn StepBudget>>,
}

impl<'p> Explorer<'p> {
    pub(crate) fn new(prog: &'p Program) -> Explorer<'p> {
        let mut class_of = Vec::new();
        let mut classes = 0;
        let mut template_class: Vec<Option<usize>> = vec![None; prog.templates.len()];
        let mut class_template = Vec::new();
        for th in &prog.threads {
            let t = th.template as usize;
            // A cooperative thread's steps read its own scheduler slot.
            let shared = !uses_tid(&prog.templates[t]) && prog.scheduler.is_none();
            let class = match template_class[t] {
                Some(c) if shared => c,
                _ => {
                    classes += 1;
                    class_template.push(t);
                    if shared {
                        template_class[t] = Some(classes - 1);
                    }
                    classes - 1
                }
            };
            class_of.push(class);
        }
        Explorer {
            prog,
            globals: Interner::default(),
            locals: prog.templates.iter().map(|_| Interner::default()).collect(),
            class_of,
            memo: Memo::new(classes),
            class_template,
            offers_memo: (0..classes).map(|_| FxHashMap::default()).collect(),
            offers_entries: 0,
            sync_at: prog
                .templates
                .iter()
                .map(|tpl| {
                    tpl.outgoing
                        .iter()
                        .map(|out| {
                            out.iter()
                                .any(|&ti| tpl.transitions[ti as usize].sync.is_some())
                        })
                        .collect()
                })
                .collect(),
            blocks: None,
            taken: None,
            step_budget: None,
        }
    }

    /// Records from now on which transitions are taken (`taken.rs`).
    pub(crate) fn track_taken(&mut self) {
        self.taken.get_or_insert_with(|| Taken::new(self.prog));
    }

    /// Records afresh which transitions are taken: what was marked is
    /// forgotten, and so are the memoised successors and rendezvous
    /// offers (a step read from the memo is not fired, so not marked).
    pub(crate) fn restart_taken(&mut self) {
        self.taken = Some(Taken::new(self.prog));
        self.memo.clear();
        self.offers_memo.iter_mut().for_each(FxHashMap::clear);
        self.offers_entries = 0;
    }

    /// The transitions taken since `track_taken`.
    pub(crate) fn taken(&self) -> Option<&Taken> {
        self.taken.as_ref()
    }

    /// The memo (with the rendezvous offers') takes at most `bytes`
    /// (estimated); `None`: no bound but `MEMO_LIMIT` entries.
    pub(super) fn set_memo_bytes(&mut self, bytes: Option<u64>) {
        self.memo.set_byte_limit(bytes);
    }

    /// The memo's entries and what they take (estimated).
    #[cfg(test)]
    pub(crate) fn memo_size(&self) -> (usize, u64) {
        self.memo.size()
    }

    /// Turns successor memoisation off, for engines that step each
    /// `(thread, g, l)` once anyway (thread-modular).
    pub(crate) fn without_memo(mut self) -> Self {
        self.memo.turn_off();
        self
    }

    /// Steps become whole reducible blocks, ending where `b` says (set
    /// before the first successor is computed).
    pub(crate) fn with_blocks(mut self, b: Option<Arc<Boundaries>>) -> Self {
        self.blocks = b;
        self
    }

    /// Ends a step of several transitions (a cooperative macro-step, a
    /// block) at the stores `(g, l)`, named by its `first` transition:
    /// interned and added to `out` unless `ends` has it already.
    pub(super) fn end_step(
        &mut self,
        template: usize,
        (g, l): (&[Val], &[Val]),
        first: u32,
        ends: &mut rustc_hash::FxHashSet<(u32, u32, u32)>,
        out: &mut Succs,
    ) {
        let step = Step {
            g: self.globals.intern(g),
            l: self.locals[template].intern(l),
            trans: first,
        };
        if ends.insert((step.g, step.l, step.trans)) {
            out.steps.push(step);
        }
    }

    /// As `with_blocks`, in place (before the first successor).
    pub(crate) fn set_blocks(&mut self, b: Option<Arc<Boundaries>>) {
        self.blocks = b;
    }

    /// The block boundaries steps end at, under `--blocks`.
    pub(crate) fn blocks(&self) -> Option<&Boundaries> {
        self.blocks.as_deref()
    }

    pub(crate) fn template_id(&self, thread: usize) -> usize {
        self.prog.threads[thread].template as usize
    }

    pub(crate) fn local(&self, thread: usize, l: u32) -> &[Val] {
        self.locals[self.template_id(thread)].get(l)
    }

    pub(crate) fn intern_local(&mut self, thread: usize, store: &[Val]) -> u32 {
        let t = self.template_id(thread);
        self.locals[t].intern(store)
    }

    /// The initial states: every initial global store with every combination
    /// of the threads' initial local stores.
    pub(crate) fn initial_states(&mut self) -> Vec<(u32, Vec<u32>)> {
        let prog = self.prog;
        let gs: Vec<u32> = prog
            .init_globals
            .iter()
            .map(|g| self.globals.intern(g))
            .collect();
        let mut combos: Vec<Vec<u32>> = vec![Vec::new()];
        for t in 0..prog.threads.len() {
            let ids: Vec<u32> = prog
                .template_of(t)
                .init
                .iter()
                .map(|l| self.intern_local(t, l))
                .collect();
            // One initial local store (the usual case): extended in place,
            // where copying every combination per thread was O(n^2) (most
            // of lock(100000, 1)'s time under --symmetry).
            if let [l] = ids[..] {
                combos.iter_mut().for_each(|c| c.push(l));
                continue;
            }
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    ids.iter().map(move |&l| {
                        let mut c = c.clone();
                        c.push(l);
                        c
                    })
                })
                .collect();
        }
        gs.iter()
            .flat_map(|&g| combos.iter().map(move |c| (g, c.clone())))
            .collect()
    }

    /// The initial thread states `(g, l)` of one thread (projections of the
    /// initial states).
    pub(crate) fn initial_thread_states(&mut self, thread: usize) -> Vec<(u32, u32)> {
        let prog = self.prog;
        let gs: Vec<u32> = prog
            .init_globals
            .iter()
            .map(|g| self.globals.intern(g))
            .collect();
        let ls: Vec<u32> = prog
            .template_of(thread)
            .init
            .iter()
            .map(|l| self.intern_local(thread, l))
            .collect();
        gs.iter()
            .flat_map(|&g| ls.iter().map(move |&l| (g, l)))
            .collect()
    }

    /// Successors of `thread` from global store `g` and local store `l`
    /// (the rule T(t, g, l, g', l') of the papers).
    pub(crate) fn successors(&mut self, thread: usize, g: u32, l: u32) -> Arc<Succs> {
        let class = self.class_of[thread];
        if let Some(s) = self.memo.get(class, g, l) {
            return s.clone();
        }
        let succs = self.compute(thread, g, l);
        self.memoise(class, g, l, succs)
    }

    /// Keeps `succs` in the memo (while it has room, and unless a budget
    /// cut it short) and returns it shared.
    fn memoise(&mut self, class: usize, g: u32, l: u32, succs: Succs) -> Arc<Succs> {
        let succs = Arc::new(succs);
        if !succs.cut {
            let budget = &self.step_budget;
            self.memo
                .keep((class, g, l), &succs, || memory_pressed(budget));
        }
        succs
    }

    /// Can a worker fire a thread's transitions without this explorer
    /// (`fire_flat`)? Not when a step runs several transitions (a
    /// cooperative macro-step, a block): those intern as they go.
    pub(crate) fn fires_read_only(&self) -> bool {
        self.prog.scheduler.is_none() && self.blocks.is_none()
    }

    /// What `successors` computes, before its stores are interned, read-only
    /// (for the workers of a parallel search, when `fires_read_only`): each
    /// step's global then local store appended to `fired.values`, its
    /// transition to `fired.trans`. Returns the first run-time model error
    /// and the number of failed transitions.
    pub(crate) fn fire_flat(
        &self,
        thread: usize,
        g: u32,
        l: u32,
        fired: &mut Fired,
    ) -> (Option<(u32, String)>, u32) {
        fired.scratch.clear();
        let mut failures = 0;
        let (gs, ls) = (self.globals.get(g), self.local(thread, l));
        let taken = self.taken.as_ref();
        let error = fire_all_counting(
            self.prog,
            thread,
            (gs, ls),
            &mut fired.scratch,
            &mut failures,
            taken,
        );
        for (g2, l2, trans) in fired.scratch.drain(..) {
            fired.values.extend_from_slice(&g2);
            fired.values.extend_from_slice(&l2);
            fired.trans.push(trans);
        }
        (error, failures)
    }

    /// The successors of `thread` from `(g, l)` from what `fire_flat` put in
    /// `values` and `trans`: their stores interned, memoised. When an
    /// earlier call memoised them already, that entry.
    pub(crate) fn successors_fired(
        &mut self,
        thread: usize,
        (g, l): (u32, u32),
        (values, trans): (&[Val], &[u32]),
        (error, failures): (Option<(u32, String)>, u32),
    ) -> Arc<Succs> {
        let class = self.class_of[thread];
        if let Some(s) = self.memo.get(class, g, l) {
            return s.clone();
        }
        let succs = self.intern_fired(thread, g, l, (values, trans), (error, failures));
        self.memoise(class, g, l, succs)
    }

    /// Interns the stores of fired steps (laid out as `fire_flat` does).
    fn intern_fired(
        &mut self,
        thread: usize,
        g: u32,
        l: u32,
        (values, trans): (&[Val], &[u32]),
        (error, failures): (Option<(u32, String)>, u32),
    ) -> Succs {
        let (glen, llen) = (self.globals.get(g).len(), self.local(thread, l).len());
        let template = self.template_id(thread);
        let mut out = Succs {
            steps: Vec::with_capacity(trans.len()),
            error,
            failures,
            cut: false,
        };
        for (stores, &trans) in values.chunks_exact(glen + llen).zip(trans) {
            let (g2, l2) = stores.split_at(glen);
            out.steps.push(Step {
                g: self.globals.intern(g2),
                l: self.locals[template].intern(l2),
                trans,
            });
        }
        out
    }

    /// Successors of `thread` from `(g, l)`, neither looked up in the memo
    /// nor kept in it: for an engine that steps each `(thread, g, l)` once
    /// (thread-modular).
    pub(crate) fn successors_once(&mut self, thread: usize, g: u32, l: u32) -> Succs {
        self.compute(thread, g, l)
    }

    /// `successors`, looked up in the memo but not kept in it: for a walk
    /// after the search that asks for most `(thread, g, l)` once (standard
    /// rebuilding a trace through a level of states it had not all
    /// expanded), where keeping them would only grow the memo past what
    /// the search itself used.
    pub(crate) fn successors_unkept(&mut self, thread: usize, g: u32, l: u32) -> Arc<Succs> {
        let class = self.class_of[thread];
        if let Some(s) = self.memo.get(class, g, l) {
            return s.clone();
        }
        Arc::new(self.compute(thread, g, l))
    }

    /// Brings the dense view of the memo up to date with the stores
    /// interned so far (cheap when nothing fell outside it).
    pub(crate) fn refresh_dense(&mut self) {
        let locals: Vec<usize> = self
            .class_template
            .iter()
            .map(|&t| self.locals[t].len())
            .collect();
        self.memo.refresh_dense(self.globals.len(), &locals);
    }

    /// Threads in one memo class have the same successors from the same
    /// `(g, l)`.
    pub(crate) fn memo_class(&self, thread: usize) -> usize {
        self.class_of[thread]
    }

    /// The successors of a memo class from `(g, l)` if they are memoised: a
    /// read-only lookup, shared by the workers of a parallel search.
    #[inline]
    pub(crate) fn memoised(&self, class: usize, g: u32, l: u32) -> Option<&Succs> {
        self.memo.get_shared(class, g, l)
    }

    /// Can `thread` move on its own from `(g, l)`: some transition that
    /// needs no partner has a true guard (one that fails to evaluate is not
    /// true, as `deadlock` reads it, except with the program's error state,
    /// where it is taken into that state). Read-only, for the workers of a
    /// parallel search deciding where `deadlock` may hold.
    pub(crate) fn may_move(&self, thread: usize, g: u32, l: u32) -> bool {
        let prog = self.prog;
        // A cooperative thread waiting for an event does not move.
        if let Some(s) = &prog.scheduler
            && self.globals.get(g)[s.waiting as usize + thread] != 0
        {
            return false;
        }
        let th = &prog.threads[thread];
        let tpl = &prog.templates[th.template as usize];
        let ls = self.local(thread, l);
        let ctx = Ctx::thread(th, self.globals.get(g), ls);
        let divine = prog.error_state.is_some();
        tpl.outgoing[ls[0] as usize].iter().any(|&ti| {
            let tr = &tpl.transitions[ti as usize];
            tr.sync.is_none()
                && tr
                    .guard
                    .as_ref()
                    .is_none_or(|e| super::guard_is_true(e.eval(&ctx), divine))
        })
    }

    fn compute(&mut self, thread: usize, g: u32, l: u32) -> Succs {
        if self.prog.scheduler.is_some() {
            return self.compute_macro(thread, g, l);
        }
        if let Some(b) = self.blocks.clone() {
            return self.compute_block(thread, g, l, &b);
        }
        let mut fired = Fired::default();
        let done = self.fire_flat(thread, g, l, &mut fired);
        self.intern_fired(thread, g, l, (&fired.values, &fired.trans), done)
    }
}

/// Has the resident memory reached half of `budget`'s memory budget (the
/// memo then keeps to its share of it)?
pub(super) fn memory_pressed(budget: &Option<Arc<dyn StepBudget>>) -> bool {
    budget.as_ref().is_some_and(|b| b.memory_pressed())
}

/// Steps fired but not interned (`Explorer::fire_flat`): each step's global
/// and local store, one after another, and its transition.
#[derive(Debug, Default)]
pub(crate) struct Fired {
    pub(crate) values: Vec<Val>,
    pub(crate) trans: Vec<u32>,
    /// `fire_all`'s output, kept from call to call.
    scratch: Vec<(Vec<Val>, Vec<Val>, u32)>,
}

impl Fired {
    /// Empties the buffer, keeping its memory for the next use.
    pub(crate) fn clear(&mut self) {
        self.values.clear();
        self.trans.clear();
    }
}
