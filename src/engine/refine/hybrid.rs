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
//! precise next. Rendezvous post two components at once (`joint.rs`).

mod joint;

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

/// The successors looked up for one source, per thread: which local stores
/// were looked up, and the local stores reached per target global store.
struct Posted {
    seen: Vec<BitSet>,
    targets: Vec<Vec<(u32, BitSet)>>,
}

impl Posted {
    fn new(universe: &[usize]) -> Posted {
        Posted {
            seen: universe.iter().map(|&u| BitSet::empty(u)).collect(),
            targets: vec![Vec::new(); universe.len()],
        }
    }
}

/// What is waiting to be posted.
enum Work {
    /// X(g) grew: post all of it again.
    Cart(u32),
    /// D(g)[i] is new.
    Disj(u32, usize),
}

/// The state of one fixpoint computation besides its result.
struct Pending<'a> {
    precise: &'a FxHashSet<u32>,
    work: VecDeque<Work>,
    cart_queued: FxHashSet<u32>,
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
        let mut q = Pending {
            precise,
            work: VecDeque::new(),
            cart_queued: FxHashSet::default(),
        };
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
            if n > 0 {
                h.add(g, &init_base, 0, &init_base[0], &[], &mut q);
            }
        }
        // X(g)'s successors are cached per store: a re-post looks up only
        // the local stores new in X(g) (semi-naive), then rebuilds the
        // products from the current components.
        let mut posted: FxHashMap<u32, Posted> = FxHashMap::default();
        while let Some(item) = q.work.pop_front() {
            if let Some(why) = budget.exceeded_now(h.posts as usize, usize::MAX) {
                h.stopped = Some(why);
                return h;
            }
            let is_cart = matches!(item, Work::Cart(_));
            let (g, source, taint, mut cache) = match item {
                Work::Cart(g) => {
                    q.cart_queued.remove(&g);
                    if !h.first_alarm.contains_key(&g) && has_error(exp, g, &h.cart[&g]) {
                        h.first_alarm.insert(g, h.posts);
                    }
                    let cache = posted.remove(&g).unwrap_or_else(|| Posted::new(universe));
                    (g, h.cart[&g].clone(), vec![g], cache)
                }
                Work::Disj(g, i) => {
                    let t = &h.disj[&g][i];
                    (g, t.product.clone(), t.taint.clone(), Posted::new(universe))
                }
            };
            let result = h.post(exp, universe, g, &source, &taint, &mut cache, &mut q);
            if is_cart {
                posted.insert(g, cache);
            }
            if let Err(why) = result {
                h.stopped = Some(why.into());
                return h;
            }
        }
        h
    }

    /// Adds the successor products of `{g} × source`, one per (thread,
    /// target store), and records model errors. `cache` holds the
    /// successors of the local stores looked up before (for X(g), which
    /// only grows).
    #[allow(clippy::too_many_arguments)]
    fn post(
        &mut self,
        exp: &mut Explorer,
        universe: &[usize],
        g: u32,
        source: &Product,
        taint: &[u32],
        cache: &mut Posted,
        q: &mut Pending,
    ) -> Result<(), &'static str> {
        for t in 0..source.len() {
            // Other components empty: the product is empty.
            if (0..source.len()).any(|u| u != t && source[u].is_empty()) {
                continue;
            }
            for l in source[t].iter() {
                if !cache.seen[t].insert(l) {
                    continue;
                }
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
                    match cache.targets[t].binary_search_by_key(&s.g, |(g2, _)| *g2) {
                        Ok(i) => {
                            cache.targets[t][i].1.insert(s.l);
                        }
                        Err(i) => {
                            cache.targets[t].insert(i, (s.g, BitSet::single(universe[t], s.l)))
                        }
                    }
                }
            }
            for (g2, ls) in &cache.targets[t] {
                self.posts += 1;
                self.add(*g2, source, t, ls, taint, q);
            }
        }
        if !exp.prog.channels.is_empty() {
            self.post_joint(exp, universe, g, source, taint, q)?;
        }
        Ok(())
    }

    /// Adds `{g} × source[t := ls]`: joined into X(g) outside P, kept in
    /// D(g) unless a product there contains it. The product is built only
    /// when it is kept.
    fn add(
        &mut self,
        g: u32,
        source: &Product,
        t: usize,
        ls: &BitSet,
        taint: &[u32],
        q: &mut Pending,
    ) {
        let comp = |u: usize| if u == t { ls } else { &source[u] };
        if (0..source.len()).any(|u| comp(u).is_empty()) {
            return;
        }
        if !q.precise.contains(&g) {
            let changed = match self.cart.get_mut(&g) {
                Some(x) => x
                    .iter_mut()
                    .enumerate()
                    .fold(false, |c, (u, a)| a.union_with(comp(u)) | c),
                None => {
                    self.cart
                        .insert(g, (0..source.len()).map(|u| comp(u).clone()).collect());
                    true
                }
            };
            if changed && q.cart_queued.insert(g) {
                q.work.push_back(Work::Cart(g));
            }
            return;
        }
        let list = self.disj.entry(g).or_default();
        // A product is dropped only for one at least as exact: the exact
        // products must keep every exact state, or the search for a real
        // error's trace (which walks exact products only) could miss it.
        let exact = taint.is_empty();
        let within = |e: &Product| (0..e.len()).all(|u| comp(u).is_subset(&e[u]));
        if list
            .iter()
            .any(|e| (e.taint.is_empty() || !exact) && within(&e.product))
        {
            return;
        }
        let p: Product = (0..source.len()).map(|u| comp(u).clone()).collect();
        // Products the new one contains stay in the list (their indices may
        // be queued) but are emptied: they add nothing.
        for e in list.iter_mut() {
            if (exact || !e.taint.is_empty())
                && !product_is_empty(&e.product)
                && product_subset(&e.product, &p)
            {
                for c in e.product.iter_mut() {
                    *c = c.cleared();
                }
            }
        }
        list.push(Tagged {
            product: p,
            taint: taint.to_vec(),
        });
        q.work.push_back(Work::Disj(g, list.len() - 1));
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
