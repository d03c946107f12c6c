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
//!
//! Rounds are incremental (`carry.rs`): every element of the fixpoint (X(g)
//! or a product of D) records what it was derived from, so that the next
//! round keeps what does not depend on the stores it makes precise and
//! posts again only the kept elements whose contributions went with the
//! rest. A round may also stop at its first alarms (`Extent::UntilAlarm`):
//! what it computed lies below the fixpoint, and the next round resumes it.
//!
//! A post is added to X or D by `add.rs`, which compares a new product
//! with D(g)'s (`live.rs` finds which).

mod add;
mod joint;
mod live;
mod merge;

pub(super) use live::LiveSet;

use super::super::Budget;
use super::carry;
use crate::engine::exceptions::{BitSet, Product, product_is_empty};
use crate::program::Explorer;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

/// An element of the fixpoint, as a node of the derivation graph that
/// `carry` walks: the initial states, X(g), or a product of D by its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Node {
    Init,
    Cart(u32),
    Prod(u32),
}

/// A product of D with its provenance.
#[derive(Clone, Debug)]
pub(crate) struct Tagged {
    pub(crate) product: Product,
    /// Stores outside P it was derived from, sorted; empty: exact.
    pub(crate) taint: Vec<u32>,
    /// Its node: unique over the rounds of one run.
    pub(crate) id: u32,
    /// What it is the post of.
    pub(crate) from: Node,
    /// The stores its post reached, sorted (empty until it is posted).
    pub(crate) targets: Vec<u32>,
    /// The elements whose posts it contained when they were added to D(g)
    /// (their contributions are in it, not in products of their own).
    pub(crate) covers: Vec<Node>,
    /// The product whose addition emptied this one: its states are there.
    pub(crate) emptied_by: Option<u32>,
    /// The products joined into this one (`merge.rs`): their states are
    /// in it besides the post of `from`, so it derives from them too.
    pub(crate) joined: Vec<u32>,
    /// The component the post that made it changed (its thread; the
    /// sender of a rendezvous): where it most likely differs from the
    /// products beside it, so the subset tests look there first.
    pub(crate) moved: u32,
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
    /// D: the precise part, at stores in P. A product contained in a later
    /// one stays in its list, emptied (its index may be queued, and it is a
    /// node of the derivation graph).
    pub(crate) disj: FxHashMap<u32, Vec<Tagged>>,
    /// Model errors met, the untainted ones first once sorted by the caller.
    pub(crate) model_errors: Vec<ModelError>,
    /// Successor products computed in this round.
    pub(crate) posts: u64,
    /// Set when a budget stopped the computation (the result is partial).
    pub(crate) stopped: Option<String>,
    /// Per store of X, the step (posts of this round and the ones before)
    /// at which X(g) first held an error state. Stores that hold one only
    /// because a glued state flowed in from another store get theirs later:
    /// refining the earliest first keeps P small.
    pub(crate) first_alarm: FxHashMap<u32, u64>,
    /// What the next round needs to start from this one.
    pub(super) trail: Trail,
    /// Per store of D, its non-emptied products: what a new product is
    /// compared with. Emptied ones stay in `disj` only.
    pub(super) live: FxHashMap<u32, LiveSet>,
    /// The products of D not posted yet, which a new one may join.
    pub(super) unposted: merge::Unposted,
    /// X(g)'s successors, cached per store (semi-naive re-posts).
    pub(super) posted: FxHashMap<u32, Posted>,
    /// What the round kept from the one before (for the statistics).
    pub(crate) carried: Carried,
    /// Stopped at an alarm before the fixpoint (`Extent::UntilAlarm`): the
    /// result is below the fixpoint, `pending` is what is left to post.
    pub(crate) partial: bool,
    pub(super) pending: VecDeque<Work>,
    /// The elements a lazy round found holding an error state: kept into
    /// the next round, they are alarms there from its first post.
    pub(super) alarms: Vec<Node>,
}

/// How far a round goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Extent {
    /// To the least fixpoint.
    Complete,
    /// Until an error state (or a model error) appears, and as many posts
    /// again: a round that ends in a refinement need not be complete, its
    /// alarms are alarms of the fixpoint too, and the first ones appear
    /// after a small fraction of the fixpoint's posts.
    UntilAlarm,
}

/// Posts a lazy round goes on after its first alarm at least.
const ALARM_GRACE: u64 = 64;

/// The derivation records of a fixpoint (`carry` reads them).
#[derive(Default)]
pub(super) struct Trail {
    /// Per store of X, the elements whose posts added something to X(g):
    /// its value is the join of their contributions.
    pub(super) cart_from: FxHashMap<u32, FxHashSet<Node>>,
    /// Per store of X, the stores the posts of X(g) reached.
    pub(super) cart_targets: FxHashMap<u32, FxHashSet<u32>>,
    /// The next product id.
    pub(super) next_id: u32,
    /// Posts of the rounds before this one: `first_alarm`'s clock goes on.
    pub(super) clock: u64,
}

/// What a round kept from the previous one.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Carried {
    /// Stores of X kept.
    pub(crate) cart: usize,
    /// Products of D kept (emptied ones included).
    pub(crate) products: usize,
    /// Kept elements posted again because a store they reach lost states.
    pub(crate) reposted: usize,
}

/// Does `{g} × product` hold an error state of an open property?
pub(crate) type HasError<'a> = dyn FnMut(&Explorer, u32, &Product) -> bool + 'a;

/// Model errors kept per fixpoint (each names stores to refine; more
/// would only slow the search for the first exact one).
pub(super) const MAX_MODEL_ERRORS: usize = 64;

/// A post refused: the state budget is spent (`Pending::cap`).
pub(super) const FULL: &str = "the state budget is spent";

/// A post stopped: the time or memory budget ran out (`Hybrid::stopped`
/// says which).
const OUT_OF_BUDGET: &str = "a budget ran out";

pub(crate) const OUTSIDE_RANGES: &str = "internal error: a step of the abstraction left the value ranges weft inferred; please report this model";

/// The successors looked up for one source, per thread: which local stores
/// were looked up, and the local stores reached per target global store.
pub(super) struct Posted {
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

    /// Forgets every lookup, keeping the allocations (one `Posted` serves
    /// every product of D in turn).
    fn clear(&mut self) {
        for (seen, targets) in self.seen.iter_mut().zip(&mut self.targets) {
            seen.clear();
            targets.clear();
        }
    }
}

/// What is waiting to be posted.
pub(super) enum Work {
    /// X(g) grew: post all of it again.
    Cart(u32),
    /// D(g)[i] is new.
    Disj(u32, usize),
}

/// The state of one fixpoint computation besides its result.
pub(super) struct Pending<'a> {
    precise: &'a FxHashSet<u32>,
    /// Read within a post too: one post of a product of thousands of
    /// threads adds thousands of products (simple-bool(2000): hundreds of
    /// MiB between two work items).
    budget: &'a Budget,
    /// `--max-states`: the posts this round may make (what the rounds
    /// before spent is taken off), checked at every post so that the run
    /// stops exactly at the budget.
    cap: u64,
    work: VecDeque<Work>,
    cart_queued: FxHashSet<u32>,
    /// The element being posted: what the products added derive from.
    src: Node,
    /// The stores its posts reached so far.
    targets: Vec<u32>,
}

impl Hybrid {
    fn empty() -> Hybrid {
        Hybrid {
            cart: FxHashMap::default(),
            disj: FxHashMap::default(),
            model_errors: Vec::new(),
            posts: 0,
            stopped: None,
            first_alarm: FxHashMap::default(),
            trail: Trail::default(),
            live: FxHashMap::default(),
            unposted: merge::Unposted::default(),
            posted: FxHashMap::default(),
            carried: Carried::default(),
            partial: false,
            pending: VecDeque::new(),
            alarms: Vec::new(),
        }
    }

    /// One round with the stores in `precise` kept exactly, started from
    /// what of the previous round `prev` (whose P is a subset) does not
    /// depend on the stores that became precise (`carry.rs`). With
    /// `Extent::Complete` the result is the least fixpoint, the same as
    /// from `None`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn round(
        prev: Option<Hybrid>,
        exp: &mut Explorer,
        universe: &[usize],
        precise: &FxHashSet<u32>,
        budget: &Budget,
        has_error: &mut HasError,
        extent: Extent,
    ) -> Hybrid {
        let (mut h, work) = match prev.and_then(|p| carry::carry(p, precise)) {
            Some(carried) => carried,
            None => (Hybrid::empty(), VecDeque::new()),
        };
        h.run(exp, universe, budget, has_error, precise, work, extent);
        // A step the budget cut short (`Succs::cut`) left posts out, even
        // in the last one: the round is not a fixpoint.
        if h.stopped.is_none()
            && let Some(why) = budget.hit_reason()
        {
            h.stopped = Some(format!(
                "{why} ({} posts)",
                budget.spent() + h.posts as usize
            ));
        }
        h
    }

    /// Adds the initial states, then posts until nothing changes (or, with
    /// `Extent::UntilAlarm`, until it stops at an alarm).
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        exp: &mut Explorer,
        universe: &[usize],
        budget: &Budget,
        has_error: &mut HasError,
        precise: &FxHashSet<u32>,
        work: VecDeque<Work>,
        extent: Extent,
    ) {
        let prog = exp.prog;
        let n = prog.threads.len();
        let cart_queued = work
            .iter()
            .filter_map(|w| match w {
                Work::Cart(g) => Some(*g),
                Work::Disj(..) => None,
            })
            .collect();
        let mut q = Pending {
            precise,
            budget,
            cap: budget
                .max_states()
                .map_or(u64::MAX, |m| m.saturating_sub(budget.spent()) as u64),
            work,
            cart_queued,
            src: Node::Init,
            targets: Vec::new(),
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
        // Again in every round: a no-op where the initial stores kept
        // their states, needed where they lost them.
        for g in init_g {
            if n > 0 {
                self.add(g, &init_base, 0, &init_base[0], &[], &mut q);
            }
        }
        q.targets.clear();
        let lazy = extent == Extent::UntilAlarm;
        // Posts of this round when its first alarm was met.
        let mut alarm_at: Option<u64> = (lazy && !self.alarms.is_empty()).then_some(0);
        let mut scratch = Posted::new(universe);
        while let Some(item) = q.work.pop_front() {
            budget.progress(self.posts as usize, "posts", q.work.len(), None);
            let spent = budget.spent() + self.posts as usize;
            if let Some(why) = budget.exceeded_now(spent, usize::MAX) {
                self.stopped = Some(format!("{why} ({spent} posts)"));
                return;
            }
            if lazy && !self.model_errors.is_empty() {
                alarm_at.get_or_insert(self.posts);
            }
            // Go on after the first alarm as long again as it took to meet
            // it: the alarms met meanwhile are refined in the same round.
            if let Some(at) = alarm_at
                && self.posts >= 2 * at + ALARM_GRACE
            {
                q.work.push_front(item);
                self.partial = true;
                break;
            }
            let result = match item {
                Work::Cart(g) => {
                    q.cart_queued.remove(&g);
                    if !self.first_alarm.contains_key(&g) && has_error(exp, g, &self.cart[&g]) {
                        self.first_alarm.insert(g, self.trail.clock + self.posts);
                        self.alarms.push(Node::Cart(g));
                        if lazy {
                            alarm_at.get_or_insert(self.posts);
                        }
                    }
                    // X(g)'s successors are cached per store: a re-post
                    // looks up only the local stores new in X(g)
                    // (semi-naive), then rebuilds the products from the
                    // current components.
                    let mut cache = self
                        .posted
                        .remove(&g)
                        .unwrap_or_else(|| Posted::new(universe));
                    let source = self.cart[&g].clone();
                    q.src = Node::Cart(g);
                    let r = self.post(exp, universe, g, &source, &[g], &mut cache, &mut q);
                    self.posted.insert(g, cache);
                    self.trail
                        .cart_targets
                        .entry(g)
                        .or_default()
                        .extend(q.targets.drain(..));
                    r
                }
                Work::Disj(g, i) => {
                    let t = &self.disj[&g][i];
                    // Emptied since it was queued: its states are in the
                    // product that emptied it, posted in its turn.
                    if product_is_empty(&t.product) {
                        continue;
                    }
                    let (source, taint) = (t.product.clone(), t.taint.clone());
                    q.src = Node::Prod(t.id);
                    self.unposted.remove(g, i as u32);
                    if lazy && has_error(exp, g, &source) {
                        alarm_at.get_or_insert(self.posts);
                        self.alarms.push(q.src);
                        // Exact: a real error, whatever else is pending.
                        if taint.is_empty() {
                            q.work.push_front(Work::Disj(g, i));
                            self.partial = true;
                            break;
                        }
                    }
                    scratch.clear();
                    let r = self.post(exp, universe, g, &source, &taint, &mut scratch, &mut q);
                    let mut targets = std::mem::take(&mut q.targets);
                    targets.sort_unstable();
                    targets.dedup();
                    if let Some(t) = self.disj.get_mut(&g).and_then(|l| l.get_mut(i)) {
                        t.targets = targets;
                    }
                    r
                }
            };
            if let Err(why) = result {
                let spent = budget.spent() + self.posts as usize;
                self.stopped = match why {
                    FULL => budget
                        .states_ran_out()
                        .map(|w| format!("{w} ({spent} posts)")),
                    OUT_OF_BUDGET => self.stopped.take(),
                    _ => Some(why.into()),
                };
                return;
            }
        }
        self.pending = q.work;
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
        let empty: Vec<usize> = (0..source.len())
            .filter(|&u| source[u].is_empty())
            .collect();
        for t in 0..source.len() {
            // Another component empty: the product is empty.
            if empty.iter().any(|&u| u != t) {
                continue;
            }
            // Time and memory only: the state budget is `cap`, checked at
            // each post so that a run stops exactly there. Every
            // 64 threads: a clock read per thread cost simple-bool(400) 10%.
            if t % 64 == 63
                && let Some(why) = q.budget.time_or_memory_exceeded()
            {
                let spent = q.budget.spent() + self.posts as usize;
                self.stopped = Some(format!("{why} ({spent} posts)"));
                return Err(OUT_OF_BUDGET);
            }
            for l in source[t].iter() {
                if !cache.seen[t].insert(l) {
                    continue;
                }
                let succs = exp.successors(t, g, l);
                if succs.error.is_some() {
                    self.note_model_error(t, g, l, taint);
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
                if self.posts >= q.cap {
                    return Err(FULL);
                }
                self.posts += 1;
                self.add(*g2, source, t, ls, taint, q);
            }
        }
        if !exp.prog.channels.is_empty() {
            self.post_joint(exp, universe, g, source, taint, q)?;
        }
        Ok(())
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
