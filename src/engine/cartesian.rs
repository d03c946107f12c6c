//! `cartesian-exc`: Cartesian abstraction with exception sets (Malkis,
//! Podelski and Rybalchenko, "Precise thread-modular verification",
//! Sections 3 to 5). Computes
//!
//!   lfp λX. α_cart ∘ α_E (init ∪ post(γ_E ∘ γ_cart X))
//!
//! over (2^(Glob×Loc))^n, represented per global store g as one product
//! X(g) = X_1(g) × … × X_n(g) of bitsets over local stores (equation (1) of
//! Prop. 9). γ_cart is never enumerated: a thread step from a product gives
//! a product (the other components unchanged), and α_c(P \ E(g)) is computed
//! from E's maximized antichain by Prop. 8 (see `exceptions::Relevant`).
//! post(γ_E ∘ γ_cart X) = post(γ_cart X) ∪ post(E); E is constant, so post(E)
//! is computed once. A worklist of global stores re-processes only the g
//! whose product grew, and only what grew (see `Cartesian::round`).
//! Rendezvous post two components at once (`joint.rs`); `join.rs` unites
//! posts into X, `origin.rs` keeps each element's first derivation for
//! witnesses, `report.rs` is what the shared tail of the abstract modes
//! reads, and `query.rs` prints the invariant as the paper does.

pub(crate) mod classes;
mod entry;
mod join;
mod joint;
pub(crate) mod origin;
mod query;
mod report;
pub(crate) mod symmetric;
mod symmetric_report;

#[cfg(test)]
pub(crate) use entry::run_classes;
#[cfg(test)]
pub(crate) use entry::{Path, run_with};
pub(crate) use entry::{run, run_with_exceptions};
#[cfg(test)]
pub(crate) use query::ProductValues;
pub(crate) use query::{abstract_product, refined_exceptions};

use super::error::CheckError;
use super::exceptions::{Admitted, BitSet, ExceptionSet, Product, Subtraction, enumerate};
use super::result::Limit;
use super::{Budget, CheckOptions};
use crate::program::ranges::Ranges;
use crate::program::{Explorer, Program, Val};
use join::{join, join_local, join_others};
use origin::{Move, Parents, Who};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use std::collections::hash_map::Entry;

/// Local stores enumerated per template at most (bitset width).
const MAX_LOCALS: usize = 1 << 20;
/// Global stores enumerated at most to instantiate exception entries.
const MAX_GLOBALS: usize = 1 << 20;
/// Why a run stops if a step leaves the inferred ranges (it cannot, if
/// `Ranges::infer` is right): the run then answers `unknown`, never `safe`.
/// A post refused: the state budget is spent (`count_post`).
const FULL: &str = "the state budget is spent";

/// Counts one post; false (and the run stopped, `FULL`) when the state
/// budget allows no more, so the run stops exactly at it. Over fields, so
/// that it can be called while others are borrowed.
fn count_post(posts: &mut u64, cap: u64, stopped: &mut Option<String>) -> bool {
    if *posts >= cap {
        *stopped = Some(FULL.into());
        return false;
    }
    *posts += 1;
    true
}

const OUTSIDE_RANGES: &str = "internal error: a step of the abstraction left the value ranges weft inferred; please report this model";

/// Thread `t`'s successors at (g, l), for both paths (per thread and per
/// class): the first model error met is kept, and a successor outside the
/// inferred ranges stops the fixpoint (`None`, with `stopped` set).
fn checked_successors(
    exp: &mut Explorer,
    universe: usize,
    model_error: &mut Option<(usize, u32, u32, String)>,
    stopped: &mut Option<String>,
    (t, g, l): (usize, u32, u32),
) -> Option<std::sync::Arc<crate::program::Succs>> {
    let succs = exp.successors(t, g, l);
    if let (Some((_, msg)), None) = (&succs.error, &*model_error) {
        *model_error = Some((t, g, l, msg.clone()));
    }
    if succs.steps.iter().any(|s| s.l as usize >= universe) {
        *stopped = Some(OUTSIDE_RANGES.into());
        return None;
    }
    Some(succs)
}

/// Where E comes from. `States` and `Empty` serve the differential tests
/// today and are the seam a refinement loop starts from.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) enum Exceptions<'a> {
    /// The model's `exceptions` entries (or `--exceptions FILE`).
    Model,
    /// Explicit states as values (tests: E = the reachable set).
    States(&'a [(Vec<Val>, Vec<Vec<Val>>)]),
    /// No exceptions, whatever the model says.
    Empty,
}

/// The fixpoint and the context it was computed in.
pub(crate) struct Cartesian<'p> {
    pub(crate) exp: Explorer<'p>,
    /// Per thread: the number of local stores of its template.
    pub(crate) universe: Vec<usize>,
    pub(crate) exceptions: ExceptionSet,
    /// X(g) per global store: one component per thread, all non-empty.
    pub(crate) x: FxHashMap<u32, Product>,
    /// The first derivation of each element of X, for witnesses.
    parents: Parents,
    /// First run-time model error of a step of the abstraction.
    pub(crate) model_error: Option<(usize, u32, u32, String)>,
    /// Abstract post products computed.
    pub(crate) posts: u64,
    /// `--max-states`: the most posts made (`count_post`).
    cap: u64,
    /// Times a global store was (re-)processed.
    pub(crate) rounds: u64,
    /// Set when a budget stopped the computation (the result is partial).
    pub(crate) stopped: Option<String>,
    /// The budget that stopped it (none for an internal error).
    pub(crate) limit: Option<Limit>,
}

impl<'p> Cartesian<'p> {
    /// Prepares the explorer: every local store of every template is
    /// interned up front, so local ids are dense and bitsets have fixed width.
    pub(crate) fn explorer(
        prog: &'p Program,
        ranges: &Ranges,
    ) -> Result<(Explorer<'p>, Vec<usize>), CheckError> {
        let mut exp = Explorer::new(prog);
        let mut per_template = Vec::new();
        for (ti, tpl) in prog.templates.iter().enumerate() {
            // The local stores inside the inferred ranges, location by
            // location.
            let too_many = || {
                CheckError::Unsupported(format!(
                    "cartesian-exc enumerates every local store of a template, and `{}` has more than {MAX_LOCALS}; use thread-modular or standard",
                    tpl.name
                ))
            };
            let mut count = 0;
            for domains in ranges.local_boxes(ti) {
                let stores = enumerate(domains, MAX_LOCALS - count).ok_or_else(too_many)?;
                for s in &stores {
                    exp.locals[ti].intern(s);
                }
                count += stores.len();
            }
            per_template.push(count);
        }
        let universe = prog
            .threads
            .iter()
            .map(|t| per_template[t.template as usize])
            .collect();
        Ok((exp, universe))
    }

    pub(crate) fn compute(
        prog: &'p Program,
        source: Exceptions,
        opts: &CheckOptions,
    ) -> Result<Cartesian<'p>, CheckError> {
        crate::phase::enter(crate::Phase::Ranges);
        let ranges = Ranges::infer(prog);
        let (mut exp, universe) = Cartesian::explorer(prog, &ranges)?;
        if opts.show_coverage {
            exp.track_taken();
        }
        let budget = Budget::new(opts);
        exp.set_step_budget(Some(budget.for_steps()));
        let mut stopped = None;
        crate::phase::enter(crate::Phase::Exceptions);
        let exceptions = match source {
            Exceptions::States(states) => {
                // E ∩ the inferred ranges, as for the model's entries: E's
                // states are taken as reachable, and only states inside the
                // ranges have their successors inside them too.
                let ids: Vec<(u32, Vec<u32>)> = states
                    .iter()
                    .filter(|(g, ls)| ranges.contain(g, ls, prog))
                    .map(|(g, ls)| {
                        (
                            exp.globals.intern(g),
                            ls.iter()
                                .enumerate()
                                .map(|(t, l)| exp.intern_local(t, l))
                                .collect(),
                        )
                    })
                    .collect();
                ExceptionSet::from_states(&ids, &universe)
            }
            Exceptions::Empty => ExceptionSet::default(),
            Exceptions::Model if prog.exceptions.is_empty() => ExceptionSet::default(),
            Exceptions::Model => {
                let at = Admitted::new(prog, &ranges.globals, &mut exp.globals, MAX_GLOBALS)
                    .ok_or(CheckError::ExceptionsTooWide { max: MAX_GLOBALS })?;
                let mut stop = |products| budget.exceeded_now(products, usize::MAX);
                let (set, why) = ExceptionSet::from_entries(&exp, &at, &universe, &mut stop)
                    .map_err(|e| CheckError::Evaluation {
                        what: super::error::EXCEPTION_SET.into(),
                        message: *e.0,
                    })?;
                match why {
                    // A partial E decides nothing: it is dropped.
                    Some(why) => {
                        stopped = Some(format!(
                            "{why} while instantiating the exception entries ({} over {} so far)",
                            crate::words::count(set.size(), "product"),
                            crate::words::count(set.by_global.len(), "global store")
                        ));
                        ExceptionSet::default()
                    }
                    None => set,
                }
            }
        };
        crate::phase::enter(crate::Phase::Searching);
        let mut c = Cartesian {
            exp,
            universe,
            exceptions,
            x: FxHashMap::default(),
            parents: Parents::default(),
            model_error: None,
            posts: 0,
            cap: budget.max_states().map_or(u64::MAX, |m| m as u64),
            rounds: 0,
            stopped,
            limit: None,
        };
        if c.stopped.is_none() {
            c.run(&budget);
        }
        if c.stopped.as_deref() == Some(FULL) {
            c.stopped = budget
                .states_ran_out()
                .map(|w| format!("{w} ({} posts)", c.posts));
        }
        // A step the budget cut short (`Succs::cut`) left posts out, even
        // in the last one: the fixpoint is not complete.
        if c.stopped.is_none() {
            c.stopped = budget
                .hit_reason()
                .map(|w| format!("{w} ({} posts)", c.posts));
        }
        c.limit = budget.hit();
        Ok(c)
    }

    fn run(&mut self, budget: &Budget) {
        let prog = self.exp.prog;
        let n = prog.threads.len();
        let mut queue = Worklist::default();
        // init: per initial global store, the product of initial local sets.
        let init_g: Vec<u32> = prog
            .init_globals
            .iter()
            .map(|g| self.exp.globals.intern(g))
            .collect();
        let init_base: Product = (0..n)
            .map(|t| {
                let mut b = BitSet::empty(self.universe[t]);
                for l in &prog.template_of(t).init {
                    b.insert(self.exp.intern_local(t, l));
                }
                b
            })
            .collect();
        for g in init_g {
            let sub = self.exceptions.subtraction(&init_base, g);
            if let Some(rm) = sub.subtract(&init_base, None) {
                let into = (&mut self.x, &mut self.parents, &mut queue);
                join(into, g, &init_base, None, &rm, Move::init(g));
            }
        }
        // post(E), once.
        let mut eg: Vec<u32> = self.exceptions.by_global.keys().copied().collect();
        eg.sort_unstable();
        for g in eg {
            let products = self.exceptions.products(g).to_vec();
            for c in &products {
                if let Some(why) = budget.exceeded_now(self.posts as usize, usize::MAX) {
                    self.stopped = Some(format!("{why} while computing the successors of E"));
                    return;
                }
                self.post_product(g, c, &mut queue);
                if self.stopped.is_some() {
                    return;
                }
            }
        }
        // The fixpoint over X, semi-naively: a round of g posts the steps of
        // the local stores new in X(g) and, for the old ones, only what the
        // growth of the other components changes.
        let mut posted: FxHashMap<u32, Posted> = FxHashMap::default();
        while let Some(g) = queue.pop() {
            budget.progress(self.posts as usize, "posts", queue.queue.len(), None);
            if let Some(why) = budget.exceeded_now(self.posts as usize, usize::MAX) {
                self.stopped = Some(format!("{why} ({} posts)", self.posts));
                return;
            }
            self.rounds += 1;
            let base = self.x[&g].clone();
            let mut done = posted.remove(&g).unwrap_or_else(|| Posted::new(&base));
            self.round(g, &base, &mut done, &mut queue);
            if self.stopped.is_some() {
                return;
            }
            done.base = base;
            posted.insert(g, done);
        }
    }

    /// One round of g with X(g) = base, after rounds that posted
    /// `done.base`. The contribution of thread i's step l -> (g', l') is
    /// α_c(base[i := {l'}] \ E(g')): it depends on the components j ≠ i
    /// and l' only, so an old l needs posting again only when another
    /// component grew, and then, where E(g') is empty, only those
    /// components need copying into X(g').
    fn round(&mut self, g: u32, base: &Product, done: &mut Posted, queue: &mut Worklist) {
        let n = base.len();
        let grown: Vec<bool> = (0..n)
            .map(|j| base[j].len() != done.base[j].len())
            .collect();
        let mut subtractions: FxHashMap<u32, Subtraction> = FxHashMap::default();
        for i in 0..n {
            if (0..n).any(|j| j != i && grown[j]) {
                let by = Move {
                    g,
                    from_e: false,
                    who: Who::Other { by: i as u32 },
                };
                for &g2 in &done.plain[i] {
                    if !count_post(&mut self.posts, self.cap, &mut self.stopped) {
                        return;
                    }
                    join_others((&mut self.x, &mut self.parents, queue), g2, base, i, by);
                }
                for (&(g2, l2), &(l, trans)) in &done.excepted[i] {
                    if !count_post(&mut self.posts, self.cap, &mut self.stopped) {
                        return;
                    }
                    let sub = subtractions
                        .entry(g2)
                        .or_insert_with(|| self.exceptions.subtraction(base, g2));
                    if let Some(rm) = sub.subtract(base, Some((i, l2))) {
                        let mv = Move {
                            g,
                            from_e: false,
                            who: Who::One {
                                t: i as u32,
                                l,
                                trans,
                            },
                        };
                        let into = (&mut self.x, &mut self.parents, &mut *queue);
                        join(into, g2, base, Some((i, l2)), &rm, mv);
                    }
                }
            }
            for l in base[i].iter().filter(|&l| !done.base[i].contains(l)) {
                let Some(succs) = checked_successors(
                    &mut self.exp,
                    self.universe[i],
                    &mut self.model_error,
                    &mut self.stopped,
                    (i, g, l),
                ) else {
                    return;
                };
                for s in &succs.steps {
                    let mv = Move {
                        g,
                        from_e: false,
                        who: Who::One {
                            t: i as u32,
                            l,
                            trans: s.trans,
                        },
                    };
                    let into = (&mut self.x, &mut self.parents, &mut *queue);
                    if self.exceptions.by_global.contains_key(&s.g) {
                        match done.excepted[i].entry((s.g, s.l)) {
                            Entry::Occupied(_) => continue, // posted from this base already
                            Entry::Vacant(v) => v.insert((l, s.trans)),
                        };
                        if !count_post(&mut self.posts, self.cap, &mut self.stopped) {
                            return;
                        }
                        let sub = subtractions
                            .entry(s.g)
                            .or_insert_with(|| self.exceptions.subtraction(base, s.g));
                        if let Some(rm) = sub.subtract(base, Some((i, s.l))) {
                            join(into, s.g, base, Some((i, s.l)), &rm, mv);
                        }
                    } else if s.g == g || !done.plain[i].insert(s.g) {
                        // The other components of base are in X(s.g) already.
                        if !count_post(&mut self.posts, self.cap, &mut self.stopped) {
                            return;
                        }
                        join_local(into, s.g, i, s.l, mv);
                    } else {
                        if !count_post(&mut self.posts, self.cap, &mut self.stopped) {
                            return;
                        }
                        join(into, s.g, base, Some((i, s.l)), &Vec::new(), mv);
                    }
                }
            }
        }
        if !self.exp.prog.channels.is_empty() {
            self.post_joint(g, base, Some((&done.base, &grown)), queue);
        }
    }

    /// Joins α_c(post_i(P) \ E) into X for every thread i, where P = {g} × base.
    fn post_product(&mut self, g: u32, base: &Product, queue: &mut Worklist) {
        let n = base.len();
        let mut subtractions: FxHashMap<u32, Subtraction> = FxHashMap::default();
        for i in 0..n {
            let mut seen: FxHashSet<(u32, u32)> = FxHashSet::default();
            for l in base[i].iter() {
                let Some(succs) = checked_successors(
                    &mut self.exp,
                    self.universe[i],
                    &mut self.model_error,
                    &mut self.stopped,
                    (i, g, l),
                ) else {
                    return;
                };
                for s in &succs.steps {
                    if !seen.insert((s.g, s.l)) {
                        continue;
                    }
                    if !count_post(&mut self.posts, self.cap, &mut self.stopped) {
                        return;
                    }
                    let sub = subtractions
                        .entry(s.g)
                        .or_insert_with(|| self.exceptions.subtraction(base, s.g));
                    if let Some(rm) = sub.subtract(base, Some((i, s.l))) {
                        let mv = Move {
                            g,
                            from_e: true,
                            who: Who::One {
                                t: i as u32,
                                l,
                                trans: s.trans,
                            },
                        };
                        let into = (&mut self.x, &mut self.parents, &mut *queue);
                        join(into, s.g, base, Some((i, s.l)), &rm, mv);
                    }
                }
            }
        }
        if !self.exp.prog.channels.is_empty() {
            self.post_joint(g, base, None, queue);
        }
    }
}

#[derive(Default)]
struct Worklist {
    queue: VecDeque<u32>,
    queued: FxHashSet<u32>,
}

impl Worklist {
    fn push(&mut self, g: u32) {
        if self.queued.insert(g) {
            self.queue.push_back(g);
        }
    }
    fn pop(&mut self) -> Option<u32> {
        let g = self.queue.pop_front()?;
        self.queued.remove(&g);
        Some(g)
    }
}

/// What the rounds of one global store g have posted so far.
struct Posted {
    /// X(g) as the last round saw it.
    base: Product,
    /// Per thread i: the stores g' ≠ g without exceptions that i's steps
    /// from `base` reach. Their contribution is base[i := {l'}] itself.
    plain: Vec<FxHashSet<u32>>,
    /// Per thread i: the steps' targets (g', l') where E(g') is not empty,
    /// each with the first (l, transition) that reached it.
    excepted: Vec<FxHashMap<(u32, u32), (u32, u32)>>,
}

impl Posted {
    /// Nothing posted yet: an empty base of the same widths.
    fn new(like: &Product) -> Posted {
        Posted {
            base: like.iter().map(BitSet::cleared).collect(),
            plain: vec![FxHashSet::default(); like.len()],
            excepted: vec![FxHashMap::default(); like.len()],
        }
    }
}
