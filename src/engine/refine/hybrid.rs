//! The abstract fixpoint `refine` iterates: Cartesian abstraction
//! (Malkis, Podelski and Rybalchenko, "Precise thread-modular verification",
//! §4) at every global store except the *precise* ones, where the states are
//! kept exactly as a union of products (the exception set E of §5, here
//! computed rather than written by hand).
//!
//! At a global store g ∉ P the abstract state is one product X(g) = Π C_t;
//! at g ∈ P it is a list of products D(g) (subsumed products dropped). The
//! post of a product by thread t moving from l to (g', l') is the product
//! with component t replaced by {l'}: transitions read the globals and the
//! moving thread's locals only, so this is exact. The least fixpoint of
//! init ∪ post, joined componentwise at stores outside P and kept as a
//! union at stores in P, contains every reachable state, so a `safe` read
//! off it is sound for any P; with P = every store it is the reachable set.
//!
//! Each product of D carries its *taint*: the stores outside P whose
//! Cartesian products it was derived from. An untainted product was derived
//! from initial states by exact posts only, so every state in it is
//! reachable: an error there is real. A tainted one names the stores to make
//! precise next.

use super::super::Budget;
use crate::engine::exceptions::{BitSet, Product, product_is_empty, product_subset};
use crate::program::Explorer;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

/// A product of D with its provenance.
#[derive(Clone, Debug)]
pub(crate) struct Tagged {
    pub(crate) product: Product,
    /// Stores outside P it was derived from, sorted; empty: exact.
    pub(crate) taint: Vec<u32>,
}

/// A run-time model error met by a step of the abstraction.
#[derive(Clone, Debug)]
pub(crate) struct ModelError {
    pub(crate) thread: usize,
    pub(crate) g: u32,
    pub(crate) l: u32,
    /// As for products: empty when the failing state is reachable.
    pub(crate) taint: Vec<u32>,
}

/// The fixpoint for one set of precise stores.
pub(crate) struct Hybrid {
    /// X: the Cartesian part, at stores outside P.
    pub(crate) cart: FxHashMap<u32, Product>,
    /// D: the precise part, at stores in P.
    pub(crate) disj: FxHashMap<u32, Vec<Tagged>>,
    /// Model errors met, the untainted ones first once sorted by the caller.
    pub(crate) model_errors: Vec<ModelError>,
    /// Successor products computed.
    pub(crate) posts: u64,
    /// Set when a budget stopped the computation (the result is partial).
    pub(crate) stopped: Option<String>,
    /// Per store of X, the step (posts so far) at which X(g) first held an
    /// error state. Stores that hold one only because a glued state flowed
    /// in from another store get theirs later: refining the earliest first
    /// keeps P small.
    pub(crate) first_alarm: FxHashMap<u32, u64>,
}

/// Does `{g} × product` hold an error state of an open property?
pub(crate) type HasError<'a> = dyn FnMut(&Explorer, u32, &Product) -> bool + 'a;

/// Model errors kept per fixpoint (each names stores to refine; more
/// would only slow the search for the first exact one).
const MAX_MODEL_ERRORS: usize = 64;

pub(crate) const OUTSIDE_RANGES: &str = "internal error: a step of the abstraction left the value ranges weft inferred; please report this model";

/// What is waiting to be posted.
enum Work {
    /// X(g) grew: post all of it again.
    Cart(u32),
    /// D(g)[i] is new.
    Disj(u32, usize),
}

impl Hybrid {
    /// The least fixpoint with the stores in `precise` kept exactly.
    pub(crate) fn compute(
        exp: &mut Explorer,
        universe: &[usize],
        precise: &FxHashSet<u32>,
        budget: &Budget,
        has_error: &mut HasError,
    ) -> Hybrid {
        let prog = exp.prog;
        let n = prog.threads.len();
        let mut h = Hybrid {
            cart: FxHashMap::default(),
            disj: FxHashMap::default(),
            model_errors: Vec::new(),
            posts: 0,
            stopped: None,
            first_alarm: FxHashMap::default(),
        };
        let mut work: VecDeque<Work> = VecDeque::new();
        let mut cart_queued: FxHashSet<u32> = FxHashSet::default();
        let init_base: Product = (0..n)
            .map(|t| {
                let mut b = BitSet::empty(universe[t]);
                for l in &prog.template_of(t).init {
                    b.insert(exp.intern_local(t, l));
                }
                b
            })
            .collect();
        let init_g: Vec<u32> = prog
            .init_globals
            .iter()
            .map(|g| exp.globals.intern(g))
            .collect();
        for g in init_g {
            h.add(
                g,
                init_base.clone(),
                Vec::new(),
                precise,
                &mut work,
                &mut cart_queued,
            );
        }
        let mut out: Vec<(u32, Product)> = Vec::new();
        while let Some(item) = work.pop_front() {
            if let Some(why) = budget.exceeded_now(h.posts as usize, usize::MAX) {
                h.stopped = Some(why);
                return h;
            }
            let (g, source, taint) = match item {
                Work::Cart(g) => {
                    cart_queued.remove(&g);
                    if !h.first_alarm.contains_key(&g) && has_error(exp, g, &h.cart[&g]) {
                        h.first_alarm.insert(g, h.posts);
                    }
                    (g, h.cart[&g].clone(), vec![g])
                }
                Work::Disj(g, i) => {
                    let t = &h.disj[&g][i];
                    (g, t.product.clone(), t.taint.clone())
                }
            };
            out.clear();
            if let Err(why) = h.post(exp, universe, g, &source, &taint, &mut out) {
                h.stopped = Some(why.into());
                return h;
            }
            for (g2, p) in out.drain(..) {
                h.add(g2, p, taint.clone(), precise, &mut work, &mut cart_queued);
            }
        }
        h
    }

    /// The successor products of `{g} × source`, one per (thread, target
    /// store); records model errors.
    fn post(
        &mut self,
        exp: &mut Explorer,
        universe: &[usize],
        g: u32,
        source: &Product,
        taint: &[u32],
        out: &mut Vec<(u32, Product)>,
    ) -> Result<(), &'static str> {
        for t in 0..source.len() {
            // Other components empty: the product is empty.
            if (0..source.len()).any(|u| u != t && source[u].is_empty()) {
                continue;
            }
            let mut targets: FxHashMap<u32, BitSet> = FxHashMap::default();
            for l in source[t].iter() {
                let succs = exp.successors(t, g, l);
                if succs.error.is_some()
                    && self.model_errors.len() < MAX_MODEL_ERRORS
                    && !self
                        .model_errors
                        .iter()
                        .any(|e| (e.thread, e.g, e.l) == (t, g, l) && e.taint.len() <= taint.len())
                {
                    self.model_errors.push(ModelError {
                        thread: t,
                        g,
                        l,
                        taint: taint.to_vec(),
                    });
                }
                for s in &succs.steps {
                    if s.l as usize >= universe[t] {
                        return Err(OUTSIDE_RANGES);
                    }
                    targets
                        .entry(s.g)
                        .or_insert_with(|| BitSet::empty(universe[t]))
                        .insert(s.l);
                }
            }
            let mut targets: Vec<(u32, BitSet)> = targets.into_iter().collect();
            targets.sort_by_key(|(g2, _)| *g2);
            for (g2, ls) in targets {
                self.posts += 1;
                let mut p = source.clone();
                p[t] = ls;
                out.push((g2, p));
            }
        }
        Ok(())
    }

    /// Adds a product at `g`: joined into X(g) outside P, kept in D(g)
    /// unless a product there contains it.
    fn add(
        &mut self,
        g: u32,
        p: Product,
        taint: Vec<u32>,
        precise: &FxHashSet<u32>,
        work: &mut VecDeque<Work>,
        cart_queued: &mut FxHashSet<u32>,
    ) {
        if product_is_empty(&p) {
            return;
        }
        if !precise.contains(&g) {
            let changed = match self.cart.get_mut(&g) {
                Some(x) => x
                    .iter_mut()
                    .zip(&p)
                    .fold(false, |c, (a, b)| a.union_with(b) | c),
                None => {
                    self.cart.insert(g, p);
                    true
                }
            };
            if changed && cart_queued.insert(g) {
                work.push_back(Work::Cart(g));
            }
            return;
        }
        let list = self.disj.entry(g).or_default();
        // A product is dropped only for one at least as exact: the exact
        // products must keep every exact state, or the search for a real
        // error's trace (which walks exact products only) could miss it.
        let exact = taint.is_empty();
        if list
            .iter()
            .any(|e| (e.taint.is_empty() || !exact) && product_subset(&p, &e.product))
        {
            return;
        }
        // Products the new one contains stay in the list (their indices may
        // be queued) but are emptied: they add nothing.
        for e in list.iter_mut() {
            if (exact || !e.taint.is_empty()) && product_subset(&e.product, &p) {
                for c in e.product.iter_mut() {
                    *c = c.cleared();
                }
            }
        }
        list.push(Tagged { product: p, taint });
        work.push_back(Work::Disj(g, list.len() - 1));
    }

    /// The products of D at `g`, without the emptied ones.
    pub(crate) fn precise_products(&self, g: u32) -> impl Iterator<Item = &Tagged> {
        self.disj
            .get(&g)
            .into_iter()
            .flatten()
            .filter(|t| !product_is_empty(&t.product))
    }

    /// Number of products in D.
    pub(crate) fn precise_size(&self) -> usize {
        self.disj
            .keys()
            .map(|g| self.precise_products(*g).count())
            .sum()
    }

    /// Thread states (g, l) in X.
    pub(crate) fn cartesian_size(&self) -> usize {
        self.cart
            .values()
            .map(|p| p.iter().map(BitSet::len).sum::<usize>())
            .sum()
    }
}
