//! The cartesian-exc fixpoint over classes of interchangeable threads
//! (Malkis, Podelski and Rybalchenko, Sections 4 and 5, Prop. 8 and 9;
//! `classes.rs` says when it applies). Per global store g, one set of
//! local stores Y_k(g) per class k stands for the product
//! Y_1(g)^|1| × … × Y_m(g)^|m| of the per-thread fixpoint, and E is kept as
//! orbits (`exceptions::orbits`). A step of a thread of class k from
//! (g, l) to (g', l') posts the product whose class k has a group {l'} of
//! one thread beside Y_k of the others; a step from a member of E does the
//! same inside the orbit's groups. α_c(P \ E(g')) is computed on the groups
//! (Prop. 8 on orbits), and its projections, united over the groups of a
//! class, join Y_k(g'): the per-thread fixpoint joins every permutation of
//! P, whose thread-k components are exactly those unions. Nothing here
//! grows with the number of threads but the property decision.

use super::classes::{Classes, OrbitSet};
use super::{Cartesian, FULL, MAX_GLOBALS, checked_successors, count_post};
use crate::engine::error::CheckError;
use crate::engine::exceptions::Admitted;
use crate::engine::exceptions::BitSet;
use crate::engine::exceptions::orbits::{self, Orbit};
use crate::engine::result::Limit;
use crate::engine::{Budget, CheckOptions};
use crate::program::ranges::Ranges;
use crate::program::{Explorer, Program};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

/// The class fixpoint and what it was computed with.
pub(crate) struct Symmetric<'p> {
    pub(crate) exp: Explorer<'p>,
    pub(crate) classes: Classes,
    /// Per thread: the number of local stores of its template.
    pub(crate) universe: Vec<usize>,
    pub(crate) exceptions: OrbitSet,
    /// Y(g): per class one set of local stores, all non-empty.
    pub(crate) y: FxHashMap<u32, Vec<BitSet>>,
    /// First run-time model error: (representative thread, g, l, message).
    pub(crate) model_error: Option<(usize, u32, u32, String)>,
    pub(crate) posts: u64,
    cap: u64,
    pub(crate) rounds: u64,
    pub(crate) stopped: Option<String>,
    pub(crate) limit: Option<Limit>,
}

/// What the rounds of one global store g have posted so far, per class k
/// (as `Posted` of the per-thread path).
struct Posted {
    /// Y(g) as the last round saw it.
    base: Vec<BitSet>,
    /// The stores g' ≠ g without exceptions that k's steps reach.
    plain: Vec<FxHashSet<u32>>,
    /// The steps' targets (g', l') where E(g') is not empty.
    excepted: Vec<FxHashSet<(u32, u32)>>,
}

impl Posted {
    fn new(like: &[BitSet]) -> Posted {
        Posted {
            base: like.iter().map(BitSet::cleared).collect(),
            plain: vec![FxHashSet::default(); like.len()],
            excepted: vec![FxHashSet::default(); like.len()],
        }
    }
}

/// A queue of global stores, each at most once.
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

impl<'p> Symmetric<'p> {
    /// The class fixpoint of `prog` with the model's exception entries, or
    /// `None` when the program is not symmetric enough for it
    /// (`Classes::detect`, `OrbitSet::from_entries`): then the per-thread
    /// path computes it.
    pub(crate) fn compute(
        prog: &'p Program,
        opts: &CheckOptions,
    ) -> Result<Option<Symmetric<'p>>, CheckError> {
        let Some(classes) = Classes::detect(prog) else {
            return Ok(None);
        };
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
        let exceptions =
            if prog.exceptions.is_empty() {
                OrbitSet::default()
            } else {
                let at = Admitted::new(prog, &ranges.globals, &mut exp.globals, MAX_GLOBALS)
                    .ok_or(CheckError::ExceptionsTooWide { max: MAX_GLOBALS })?;
                let mut stop = |orbits| budget.exceeded_now(orbits, usize::MAX);
                let built = OrbitSet::from_entries(&exp, &at, &classes, &universe, &mut stop)
                    .map_err(|e| CheckError::Evaluation {
                        what: "the exception set".into(),
                        message: *e.0,
                    })?;
                match built {
                    None => return Ok(None),
                    // A partial E decides nothing: it is dropped.
                    Some((set, Some(why))) => {
                        stopped = Some(format!(
                            "{why} while instantiating the exception entries ({} over {} so far)",
                            crate::words::count(set.size(), "product"),
                            crate::words::count(set.by_global.len(), "global store")
                        ));
                        OrbitSet::default()
                    }
                    Some((set, None)) => set,
                }
            };
        crate::phase::enter(crate::Phase::Searching);
        let mut s = Symmetric::new(exp, classes, universe, exceptions, stopped, &budget);
        s.compute_with(&budget);
        Ok(Some(s))
    }

    /// Sets up the computation; `run` computes it.
    fn new(
        exp: Explorer<'p>,
        classes: Classes,
        universe: Vec<usize>,
        exceptions: OrbitSet,
        stopped: Option<String>,
        budget: &Budget,
    ) -> Symmetric<'p> {
        Symmetric {
            exp,
            classes,
            universe,
            exceptions,
            y: FxHashMap::default(),
            model_error: None,
            posts: 0,
            cap: budget.max_states().map_or(u64::MAX, |m| m as u64),
            rounds: 0,
            stopped,
            limit: None,
        }
    }

    /// The fixpoint; sets `stopped` and `limit` when a budget ends it.
    fn compute_with(&mut self, budget: &Budget) {
        if self.stopped.is_none() {
            self.run(budget);
        }
        if self.stopped.as_deref() == Some(FULL) {
            self.stopped = budget
                .states_ran_out()
                .map(|w| format!("{w} ({} posts)", self.posts));
        }
        // A step the budget cut short (`Succs::cut`): not a fixpoint.
        if self.stopped.is_none() {
            self.stopped = budget
                .hit_reason()
                .map(|w| format!("{w} ({} posts)", self.posts));
        }
        self.limit = budget.hit();
    }

    fn run(&mut self, budget: &Budget) {
        let prog = self.exp.prog;
        let mut queue = Worklist::default();
        // init: per initial global store, each class's initial local
        // stores for all its threads.
        let init: Orbit = (0..self.classes.len())
            .map(|k| {
                let t = self.classes.rep(k);
                let mut b = BitSet::empty(self.universe[t]);
                for l in &prog.template_of(t).init {
                    b.insert(self.exp.intern_local(t, l));
                }
                vec![(b, self.classes.size(k))]
            })
            .collect();
        for g in &prog.init_globals {
            let g = self.exp.globals.intern(g);
            self.join(g, &init, &mut queue);
        }
        // post(E), once.
        let mut eg: Vec<u32> = self.exceptions.by_global.keys().copied().collect();
        eg.sort_unstable();
        for g in eg {
            for o in self.exceptions.orbits(g).to_vec() {
                if let Some(why) = budget.exceeded_now(self.posts as usize, usize::MAX) {
                    self.stopped = Some(format!("{why} while computing the successors of E"));
                    return;
                }
                self.post_orbit(g, &o, &mut queue);
                if self.stopped.is_some() {
                    return;
                }
            }
        }
        let mut posted: FxHashMap<u32, Posted> = FxHashMap::default();
        while let Some(g) = queue.pop() {
            budget.progress(self.posts as usize, "posts", queue.queue.len(), None);
            if let Some(why) = budget.exceeded_now(self.posts as usize, usize::MAX) {
                self.stopped = Some(format!("{why} ({} posts)", self.posts));
                return;
            }
            self.rounds += 1;
            let base = self.y[&g].clone();
            let mut done = posted.remove(&g).unwrap_or_else(|| Posted::new(&base));
            self.round(g, &base, &mut done, &mut queue);
            if self.stopped.is_some() {
                return;
            }
            done.base = base;
            posted.insert(g, done);
        }
    }

    /// One round of g with Y(g) = base, semi-naively as the per-thread
    /// `Cartesian::round`: the contribution of a step of class k from l to
    /// (g', l') is α_c(P \ E(g')) for P = base with one thread of k at l',
    /// which depends on l' and on base (on Y_k too when k has other
    /// threads). So an old l is posted again only when a component it
    /// depends on grew, and where E(g') is empty only base needs copying.
    fn round(&mut self, g: u32, base: &[BitSet], done: &mut Posted, queue: &mut Worklist) {
        let m = base.len();
        let grown: Vec<bool> = (0..m)
            .map(|j| base[j].len() != done.base[j].len())
            .collect();
        for k in 0..m {
            let many = self.classes.size(k) >= 2;
            // Classes whose sets a post of class k copies along.
            let copied = |j: usize| j != k || many;
            if (0..m).any(|j| grown[j] && copied(j)) {
                for &g2 in &done.plain[k] {
                    if !count_post(&mut self.posts, self.cap, &mut self.stopped) {
                        return;
                    }
                    if let Some(target) = self.y.get_mut(&g2) {
                        let mut grew = false;
                        for (j, (t, b)) in target.iter_mut().zip(base).enumerate() {
                            if copied(j) {
                                grew |= t.union_with(b);
                            }
                        }
                        if grew {
                            queue.push(g2);
                        }
                    }
                }
                for &(g2, l2) in &done.excepted[k] {
                    if !count_post(&mut self.posts, self.cap, &mut self.stopped) {
                        return;
                    }
                    let p = self.moved(base, k, l2);
                    self.join(g2, &p, queue);
                }
            }
            let t = self.classes.rep(k);
            for l in base[k].iter().filter(|&l| !done.base[k].contains(l)) {
                let Some(succs) = checked_successors(
                    &mut self.exp,
                    self.universe[t],
                    &mut self.model_error,
                    &mut self.stopped,
                    (t, g, l),
                ) else {
                    return;
                };
                for s in &succs.steps {
                    if self.exceptions.by_global.contains_key(&s.g) {
                        if !done.excepted[k].insert((s.g, s.l)) {
                            continue; // posted from this base already
                        }
                    } else if s.g == g || !done.plain[k].insert(s.g) {
                        // The copied components of base are in Y(s.g).
                        if !count_post(&mut self.posts, self.cap, &mut self.stopped) {
                            return;
                        }
                        if let Some(target) = self.y.get_mut(&s.g)
                            && target[k].insert(s.l)
                        {
                            queue.push(s.g);
                        }
                        continue;
                    }
                    if !count_post(&mut self.posts, self.cap, &mut self.stopped) {
                        return;
                    }
                    let p = self.moved(base, k, s.l);
                    self.join(s.g, &p, queue);
                }
            }
        }
    }

    /// base as an orbit with one thread of class k moved to l.
    fn moved(&self, base: &[BitSet], k: usize, l: u32) -> Orbit {
        base.iter()
            .enumerate()
            .map(|(j, s)| {
                let n = self.classes.size(j);
                if j != k {
                    vec![(s.clone(), n)]
                } else if n >= 2 {
                    vec![(s.clone(), n - 1), (s.singleton_like(l), 1)]
                } else {
                    vec![(s.singleton_like(l), 1)]
                }
            })
            .collect()
    }

    /// Posts every thread step from the products of the orbit `o` at g
    /// (Y(g) itself is the orbit of one group per class): one thread of
    /// group a of class k moves from l ∈ a's set to (g', l'); the result
    /// is `o` with that thread in a group {l'} of its own.
    fn post_orbit(&mut self, g: u32, o: &Orbit, queue: &mut Worklist) {
        let mut seen: FxHashSet<(usize, usize, u32, u32)> = FxHashSet::default();
        for (k, groups) in o.iter().enumerate() {
            let t = self.classes.rep(k);
            for (a, (set, _)) in groups.iter().enumerate() {
                for l in set.iter() {
                    let Some(succs) = checked_successors(
                        &mut self.exp,
                        self.universe[t],
                        &mut self.model_error,
                        &mut self.stopped,
                        (t, g, l),
                    ) else {
                        return;
                    };
                    for s in &succs.steps {
                        if !seen.insert((k, a, s.g, s.l)) {
                            continue;
                        }
                        if !count_post(&mut self.posts, self.cap, &mut self.stopped) {
                            return;
                        }
                        let mut p = o.clone();
                        p[k][a].1 -= 1;
                        p[k].push((set.singleton_like(s.l), 1));
                        p[k].retain(|(_, m)| *m > 0);
                        self.join(s.g, &p, queue);
                    }
                }
            }
        }
    }

    /// Y(g) ⊔= α_c(P \ E(g)) projected on the classes (the union over a
    /// class's groups); re-queues g when it grew.
    fn join(&mut self, g: u32, p: &Orbit, queue: &mut Worklist) {
        let removed = match self.exceptions.by_global.get(&g) {
            Some(e) => match orbits::subtract(p, e) {
                Some(r) => Some(r),
                None => return, // P ⊆ E(g)
            },
            None => None,
        };
        let mut adds: Vec<BitSet> = Vec::with_capacity(p.len());
        for (k, groups) in p.iter().enumerate() {
            let mut add = groups[0].0.cleared();
            for (a, (s, _)) in groups.iter().enumerate() {
                let mut s = s.clone();
                if let Some(r) = &removed {
                    s.difference_with(&r[k][a]);
                }
                // Some component of α_c(P \ E) empty: P \ E is empty.
                if s.is_empty() {
                    return;
                }
                add.union_with(&s);
            }
            adds.push(add);
        }
        let target = self
            .y
            .entry(g)
            .or_insert_with(|| adds.iter().map(BitSet::cleared).collect());
        let mut grew = false;
        for (t, a) in target.iter_mut().zip(&adds) {
            grew |= t.union_with(a);
        }
        if grew {
            queue.push(g);
        }
    }
}
