//! The counter representation of `--symmetry` (issue 17). When the
//! instances of a template are interchangeable, a state is the global
//! store, the local stores of the threads outside every block, and per
//! block a *count per local store*: the multiset of the block's local
//! stores, not n sorted ids. This is the counter abstraction of Pnueli, Xu
//! and Zuck ("Liveness with (0, 1, ∞)-counter abstraction", CAV 2002)
//! without the cut-off at ∞, i.e. exact: two states with the same counts
//! are permutations of each other's threads within blocks, so they lie in
//! one orbit of the symmetry group, and a canonical orbit representative
//! is all a search keeps (Ip and Dill, "Better verification through
//! symmetry", §4; Emerson and Sistla, "Symmetry and model checking", whose
//! orbit quotient preserves reachability and every symmetric property).
//! The counts are the sorted representation's multiset, written in the
//! other basis: the reduced states, transitions, depths and verdicts are
//! the same, and each state stands for the multinomial of its counts.
//!
//! Each block's local-store domain is enumerated up front, inside the
//! ranges inferred by `program::ranges` (as cartesian-exc does), so that a
//! local store's interned id is its counter's index. A successor of one
//! local store `d` of a block (computed once, for all the threads at `d`)
//! rewrites three fields of the packed state (the global store, `c_d - 1`,
//! `c_d' + 1`), O(1) where the sorted form re-packs all n fields. The
//! unpacked state is `[g, solo locals.., counters..]`; a *position* of it
//! names what moves: a solo thread, or one counter. The dispatch between
//! the counter and the sorted (or plain) forms that the search calls is
//! here too: initial states as stored, the mover of a position, a
//! predicate on an unpacked state.

use super::Search;
use super::worker::Shared;
use crate::engine::store::Packer;
use crate::engine::symmetry::{Symmetry, binomial};
use crate::engine::trace::StepIds;
use crate::program::{Explorer, Program, Succs, ranges::Ranges};
use crate::property::CountedLayout;
use std::sync::atomic::Ordering;

/// Local stores a block's domain may have (it gets one counter each).
const MAX_DOMAIN: usize = 1 << 12;

/// Which representation `--symmetry` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Repr {
    /// Counters where they pay (fewer packed bits than the sorted ids).
    Auto,
    /// Always the sorted ids (the internal switch the tests compare with).
    Sorted,
    /// Counters whenever the domains can be enumerated (tests).
    #[cfg_attr(not(test), allow(dead_code))]
    Counters,
}

#[cfg(test)]
thread_local! {
    /// Tests force a representation on their thread.
    pub(crate) static FORCE_FOR_TESTS: std::cell::Cell<Option<Repr>> =
        const { std::cell::Cell::new(None) };
}

#[cfg(test)]
thread_local! {
    /// Tests cut each block's domain to its first stores, so that a
    /// successor leaves it (which the inferred ranges never let happen).
    pub(crate) static DOMAIN_CUT_FOR_TESTS: std::cell::Cell<Option<usize>> =
        const { std::cell::Cell::new(None) };
}

/// One symmetric block: its threads, template and counters.
#[derive(Clone, Debug)]
struct Block {
    first: usize,
    count: usize,
    /// Local stores in the domain (ids 0..domain of the template).
    domain: u32,
    /// Position of the counter of local store 0.
    base: usize,
}

/// What moves from a position of the unpacked state.
#[derive(Clone, Copy, Debug)]
pub(super) enum Mover {
    /// The global store (position 0): nothing moves from it.
    Global,
    /// A thread outside every block.
    Solo(usize),
    /// The threads of block k at local store d.
    Counter(usize, u32),
}

/// The counter layout of a program's states.
pub(crate) struct Counters {
    /// Threads outside every block, at positions 1.. in order.
    solo: Vec<usize>,
    blocks: Vec<Block>,
    movers: Vec<Mover>,
    /// What the property checkers need of this layout.
    pub(super) layout: CountedLayout,
}

impl Counters {
    /// The counter layout for the blocks of `sym`, with every domain
    /// interned into the (fresh) explorer first; `None` when the sorted
    /// representation is to be used: a domain too large to enumerate, or
    /// (under `Auto`) counters that would take more packed bits than the
    /// sorted ids do.
    pub(crate) fn prepare(
        prog: &Program,
        sym: &Symmetry,
        exp: &mut Explorer,
        repr: Repr,
    ) -> Option<Counters> {
        if repr == Repr::Sorted {
            return None;
        }
        let ranges = Ranges::infer(prog);
        let mut domains = Vec::new();
        let (mut counter_bits, mut sorted_bits) = (0u64, 0u64);
        for b in &sym.blocks {
            let template = prog.threads[b.start].template as usize;
            // A fresh explorer: the domain's ids are 0.. in this order.
            if exp.locals[template].len() != 0 {
                return None;
            }
            let mut stores = Vec::new();
            for boxes in ranges.local_boxes(template) {
                stores.extend(crate::engine::exceptions::enumerate(
                    boxes,
                    MAX_DOMAIN - stores.len(),
                )?);
            }
            #[cfg(test)]
            if let Some(cut) = DOMAIN_CUT_FOR_TESTS.with(|c| c.get()) {
                stores.truncate(cut);
            }
            let n = b.len() as u64;
            counter_bits += stores.len() as u64 * u64::from(counter_width(b.len()));
            let tpl = &prog.templates[template];
            sorted_bits += n * u64::from(Packer::store_bits(&tpl.locals, tpl.locations.len()));
            domains.push((template, stores));
        }
        if repr == Repr::Auto && counter_bits > sorted_bits {
            return None;
        }
        let in_block: Vec<bool> = (0..prog.threads.len())
            .map(|t| sym.blocks.iter().any(|b| b.contains(&t)))
            .collect();
        let solo: Vec<usize> = (0..prog.threads.len()).filter(|&t| !in_block[t]).collect();
        let mut movers = vec![Mover::Global];
        movers.extend(solo.iter().map(|&t| Mover::Solo(t)));
        let mut blocks = Vec::new();
        for (k, (b, (template, stores))) in sym.blocks.iter().zip(domains).enumerate() {
            for s in &stores {
                exp.locals[template].intern(s);
            }
            let domain = stores.len() as u32;
            blocks.push(Block {
                first: b.start,
                count: b.len(),
                domain,
                base: movers.len(),
            });
            movers.extend((0..domain).map(|d| Mover::Counter(k, d)));
        }
        let layout = CountedLayout {
            solo: solo.clone(),
            blocks: blocks.iter().map(|b| (b.first, b.count, b.base)).collect(),
        };
        Some(Counters {
            solo,
            blocks,
            movers,
            layout,
        })
    }

    /// The packer of counter states: the global store and solo locals as
    /// the sorted form packs them, each counter in ceil(log2(n + 1)) bits.
    pub(crate) fn packer(&self, prog: &Program) -> Packer {
        let mut widths = vec![Packer::store_bits(&prog.globals, 1)];
        for &t in &self.solo {
            let tpl = prog.template_of(t);
            widths.push(Packer::store_bits(&tpl.locals, tpl.locations.len()));
        }
        for b in &self.blocks {
            widths.extend((0..b.domain).map(|_| counter_width(b.count)));
        }
        Packer::for_widths(widths)
    }

    /// The thread whose memo class moves from `pos`, and its local store
    /// (any thread of a block: they share one).
    pub(super) fn thread_at(&self, state: &[u32], pos: usize) -> (usize, u32) {
        match self.movers[pos] {
            Mover::Solo(t) => (t, state[pos]),
            Mover::Counter(k, d) => (self.blocks[k].first, d),
            Mover::Global => (0, state[0]),
        }
    }

    /// The thread named for a move from `pos`: a solo thread itself, in a
    /// block the first thread at that local store when the block's threads
    /// are sorted by local store (`materialise`'s arrangement).
    pub(super) fn named_thread(&self, state: &[u32], pos: usize) -> usize {
        match self.movers[pos] {
            Mover::Counter(k, d) => {
                let b = &self.blocks[k];
                let before: u32 = state[b.base..b.base + d as usize].iter().sum();
                b.first + before as usize
            }
            _ => self.thread_at(state, pos).0,
        }
    }

    /// A concrete state `[g, l_1..l_n]` in counter form; false when a
    /// block's local store lies outside its domain.
    pub(crate) fn count(&self, concrete: &[u32], out: &mut Vec<u32>) -> bool {
        out.clear();
        out.push(concrete[0]);
        out.extend(self.solo.iter().map(|&t| concrete[1 + t]));
        out.resize(self.movers.len(), 0);
        for b in &self.blocks {
            for t in b.first..b.first + b.count {
                let l = concrete[1 + t];
                if l >= b.domain {
                    return false;
                }
                out[b.base + l as usize] += 1;
            }
        }
        true
    }

    /// The concrete state a counter state stands for with each block's
    /// threads sorted by local store (the sorted form's canonical state).
    pub(crate) fn materialise(&self, state: &[u32], threads: usize) -> Vec<u32> {
        let mut out = vec![0; 1 + threads];
        out[0] = state[0];
        for (j, &t) in self.solo.iter().enumerate() {
            out[1 + t] = state[1 + j];
        }
        for b in &self.blocks {
            let mut t = b.first;
            for d in 0..b.domain {
                for _ in 0..state[b.base + d as usize] {
                    out[1 + t] = d;
                    t += 1;
                }
            }
        }
        out
    }

    /// How many concrete states a counter state stands for: per block the
    /// multinomial n!/∏ c_d!, as a product of binomials. `None` past u128.
    pub(crate) fn orbit_size(&self, state: &[u32]) -> Option<u128> {
        let mut total: u128 = 1;
        for b in &self.blocks {
            let mut placed: u128 = 0;
            for &c in &state[b.base..b.base + b.domain as usize] {
                let c = u128::from(c);
                total = total.checked_mul(binomial(placed + c, c)?)?;
                placed += c;
            }
        }
        Some(total)
    }

    /// In how many threads' local stores two counter states differ: the
    /// solo threads position by position, a block as multisets (the
    /// threads of `a` at d beyond those of `b` at d). As
    /// `Symmetry::threads_apart` on the sorted forms.
    pub(crate) fn threads_apart(&self, a: &[u32], b: &[u32]) -> usize {
        let solo = (1..1 + self.solo.len()).filter(|&p| a[p] != b[p]).count();
        let blocks: u32 = self
            .blocks
            .iter()
            .flat_map(|k| k.base..k.base + k.domain as usize)
            .map(|p| a[p].saturating_sub(b[p]))
            .sum();
        solo + blocks as usize
    }

    /// The state after one step (g', l') from position `pos`; `None` when
    /// it leaves the block's domain.
    pub(super) fn apply(&self, state: &[u32], pos: usize, g: u32, l: u32) -> Option<Vec<u32>> {
        let mut next = state.to_vec();
        next[0] = g;
        match self.movers[pos] {
            Mover::Counter(k, d) => {
                let b = &self.blocks[k];
                if l >= b.domain {
                    return None;
                }
                next[b.base + d as usize] -= 1;
                next[b.base + l as usize] += 1;
            }
            _ => next[pos] = l,
        }
        Some(next)
    }
}

/// Bits of a counter of a block of n threads: it holds 0..=n.
fn counter_width(n: usize) -> u32 {
    (usize::BITS - n.leading_zeros()).max(1)
}

impl Shared<'_, '_> {
    /// Does a predicate hold in an unpacked state (counter or sorted)?
    pub(super) fn check(
        &self,
        c: &mut crate::property::ConcreteChecker,
        error: &crate::program::CExpr,
        state: &[u32],
    ) -> Result<bool, crate::program::EvalError> {
        match self.ctr {
            Some(ctr) => c.holds_counted(error, self.exp, state, || {
                ctr.materialise(state, self.exp.prog.threads.len())
            }),
            None => c.holds(error, self.exp, state[0], &state[1..]),
        }
    }

    /// As `expand_threads`, on a counter state: each solo thread, and each
    /// local store of a block that some thread is at, once.
    pub(super) fn expand_counted(
        &self,
        ctr: &Counters,
        i: usize,
        w: &mut super::worker::Scratch,
        b: &mut super::Batch,
    ) -> bool {
        let g = w.state[0];
        let divine = self.error_key.is_some();
        let mut quiet = true;
        for pos in 1..w.state.len() {
            if matches!(ctr.movers[pos], Mover::Counter(..)) && w.state[pos] == 0 {
                continue;
            }
            let (t, l) = ctr.thread_at(&w.state, pos);
            match self.exp.memoised(self.exp.memo_class(t), g, l) {
                Some(succs) => {
                    quiet &= !succs.moves(divine);
                    self.emit_counted(ctr, i, pos, succs, w, b);
                }
                None => {
                    quiet &= !self.exp.may_move(t, g, l);
                    b.deferred.push((i as u32, pos as u32));
                }
            }
        }
        quiet
    }

    /// As `emit`, on a counter state: each successor rewrites the global
    /// store and one solo field, or two counters, in the packed words.
    pub(super) fn emit_counted(
        &self,
        ctr: &Counters,
        i: usize,
        pos: usize,
        succs: &Succs,
        w: &mut super::worker::Scratch,
        b: &mut super::Batch,
    ) {
        if succs.error.is_some() {
            self.note(b, i, super::found::Finding::Stuck(pos as u32));
        }
        let packer = &self.visited.packer;
        for step in &succs.steps {
            b.transitions += 1;
            w.packed.clear();
            w.packed.extend_from_slice(self.level.packed(i));
            packer.put(&mut w.packed, 0, step.g);
            match ctr.movers[pos] {
                Mover::Counter(k, d) => {
                    let blk = &ctr.blocks[k];
                    if step.l >= blk.domain {
                        // Outside the inferred ranges (which hold every
                        // reachable store): the run falls back to the
                        // sorted form rather than lose the state.
                        self.escaped.store(true, Ordering::Relaxed);
                        self.stop.store(true, Ordering::Relaxed);
                        return;
                    }
                    if step.l != d {
                        let (from, to) = (blk.base + d as usize, blk.base + step.l as usize);
                        packer.put(&mut w.packed, from, w.state[from] - 1);
                        packer.put(&mut w.packed, to, w.state[to] + 1);
                    }
                }
                _ => packer.put(&mut w.packed, pos, step.l),
            }
            self.visited.push(&mut w.batch, &w.packed);
        }
    }
}

impl Search<'_> {
    /// The initial states as stored: canonical under symmetry, in counter
    /// form with counters (an initial store outside a block's domain,
    /// which the inferred ranges rule out, makes the run fall back).
    pub(super) fn initial_stored(&mut self) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        for (g, ls) in self.exp.initial_states() {
            let mut st = vec![g];
            st.extend(ls);
            if let Some(ctr) = &self.ctr {
                let mut counted = Vec::new();
                if !ctr.count(&st, &mut counted) {
                    self.escaped.store(true, Ordering::Relaxed);
                    continue;
                }
                st = counted;
            } else if let Some(sym) = &self.sym {
                sym.canonicalise(&mut st);
            }
            out.push(st);
        }
        out
    }

    /// The thread that moves from a position of an unpacked state (a
    /// thread index without counters) and its local store.
    pub(super) fn mover(&self, state: &[u32], pos: usize) -> (usize, u32) {
        match &self.ctr {
            Some(ctr) => ctr.thread_at(state, pos),
            None => (pos, state[1 + pos]),
        }
    }

    /// Every move of a counter state, as rebuilding needs them: the named
    /// thread, its transition, and the counter state after.
    pub(super) fn moves_counted(
        &mut self,
        ctr: &Counters,
        st: &[u32],
    ) -> Vec<super::rebuild::Move> {
        let mut out = Vec::new();
        for pos in 1..st.len() {
            if matches!(ctr.movers[pos], Mover::Counter(..)) && st[pos] == 0 {
                continue;
            }
            let (t, l) = ctr.thread_at(st, pos);
            let named = ctr.named_thread(st, pos);
            for step in &self.exp.successors(t, st[0], l).steps {
                if let Some(next) = ctr.apply(st, pos, step.g, step.l) {
                    out.push((named, step.trans, None, next));
                }
            }
        }
        out
    }

    /// A chain of counter states (packed) replayed into concrete steps from
    /// a concrete initial state: at each step the move whose result is the
    /// next state on the chain, made by the lowest-numbered thread of the
    /// block at that local store (so a thread keeps its name throughout).
    pub(super) fn trace_counted(
        &mut self,
        ctr: &Counters,
        chain: &[Vec<u64>],
    ) -> crate::engine::result::Trace {
        let threads = self.exp.prog.threads.len();
        let mut cur = Vec::new();
        self.visited.packer.unpack(&chain[0], &mut cur);
        // The concrete initial state with these counts (the chain starts at
        // one: each initial state's counter form was stored).
        let mut scratch = Vec::new();
        let conc0 = self
            .exp
            .initial_states()
            .into_iter()
            .map(|(g, ls)| {
                let mut st = vec![g];
                st.extend(ls);
                st
            })
            .find(|st| ctr.count(st, &mut scratch) && scratch == cur)
            .unwrap_or_else(|| ctr.materialise(&cur, threads));
        // Per block and local store, the threads there (lowest first).
        let mut at: Vec<Vec<std::collections::BTreeSet<usize>>> = ctr
            .blocks
            .iter()
            .map(|b| vec![Default::default(); b.domain as usize])
            .collect();
        for (k, b) in ctr.blocks.iter().enumerate() {
            for t in b.first..b.first + b.count {
                at[k][conc0[1 + t] as usize].insert(t);
            }
        }
        let mut conc = conc0.clone();
        let mut steps = Vec::new();
        let mut key = Vec::new();
        'chain: for target in &chain[1..] {
            for pos in 1..cur.len() {
                if matches!(ctr.movers[pos], Mover::Counter(..)) && cur[pos] == 0 {
                    continue;
                }
                let (rep, l) = ctr.thread_at(&cur, pos);
                for step in &self.exp.successors(rep, cur[0], l).steps {
                    let Some(next) = ctr.apply(&cur, pos, step.g, step.l) else {
                        continue;
                    };
                    self.visited.packer.pack(&next, &mut key);
                    if key != *target {
                        continue;
                    }
                    let thread = match ctr.movers[pos] {
                        Mover::Counter(k, d) => {
                            let set = &mut at[k][d as usize];
                            let Some(t) = set.pop_first() else {
                                break 'chain;
                            };
                            at[k][step.l as usize].insert(t);
                            t
                        }
                        _ => rep,
                    };
                    conc[0] = step.g;
                    conc[1 + thread] = step.l;
                    steps.push(StepIds {
                        thread,
                        trans: step.trans,
                        partner: None,
                        state: (conc[0], conc[1..].to_vec()),
                    });
                    cur = next;
                    continue 'chain;
                }
            }
            // The chain was built from these very moves; not reached.
            break;
        }
        crate::engine::result::Trace::build(&self.exp, &(conc0[0], conc0[1..].to_vec()), &steps)
    }
}
