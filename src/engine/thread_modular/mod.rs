//! `thread-modular`: Flanagan and Qadeer, "Thread-modular model checking",
//! Section 2.2. Computes the least relations
//!
//! * R ⊆ Tid × Glob × Loc  (`rows`): thread t can be at local l with global g;
//! * G ⊆ Tid × Glob × Glob (`guarantee`): a step of thread t can change g to g';
//!
//! closed under (AG INIT), (AG ENV) and (AG STEP), with a worklist
//! (`fixpoint.rs`). An error is reported when some error state
//! (g, l_1..l_n) has R(t, g, l_t) for every t (decided per g by
//! `property::Decider`). Rendezvous (`engine::rendezvous`) extend (AG STEP)
//! to pairs: the joint step gives both threads their new facts and a
//! guarantee edge of the pair, which (AG ENV) applies to every other thread.
//!
//! Compact: global and local stores are the explorer's dense ids; R is, per
//! component, a bitset of local stores per global store (`rows.rs`); the
//! facts in derivation order are the worklist and keep one packed first
//! derivation each (`facts.rs`, 20 bytes); the guarantee edges are indexed
//! by source, so (AG ENV) is a loop over a row's bits per edge.
//!
//! What can be shared between threads: R and G are per thread in the
//! paper, but threads whose successor functions coincide — instances of a
//! template whose code never reads `tid` (the explorer's memo classes, the
//! condition `Symmetry::detect` uses) — have equal R and equal G: the rules
//! are symmetric under exchanging them and both start from the template's
//! initial stores, so the least fixpoint is symmetric. Such a class is one
//! component with one R and one G; its own G applies to its R when it has
//! two threads or more (thread i moved by thread j ≠ i), never with one.
//! What cannot: threads that read `tid` (Simple(n)'s `m := tid`), whose R
//! differ; and, here, threads of a program with channels (a rendezvous
//! pairs two distinct threads, kept per thread) or of a run with
//! `--max-states` (the cap counts thread states one by one: a shared fact
//! is k of them). Properties play no part: they are decided per thread
//! over the component's R.

#[cfg(test)]
mod audit;
mod facts;
mod fixpoint;
#[cfg(test)]
pub(crate) mod oracle;
mod rows;

use super::abstract_report::{self, AbstractFixpoint, Decide, Found};
use super::error::CheckError;
use super::result::{
    Derivation, Derived, GuaranteeEdge, Invariant, InvariantForm, Limit, ReachFact, RunReport,
    Stats, ThreadSummary, Witness, WitnessThread,
};
use super::{Budget, CheckOptions, Mode, POLL_EVERY};
use crate::engine::render_guard::RenderGuard;
use crate::program::Val;
use crate::program::blocks::Boundaries;
use crate::program::{EvalError, Explorer, Program};
use facts::{Facts, Origin};
use rows::Rows;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;
use std::time::Instant;

/// The components: single threads, or classes of interchangeable threads.
pub(crate) struct Units {
    /// Per thread, its component.
    pub(crate) unit_of: Vec<usize>,
    /// Per component, its threads (ascending; the first steps for all).
    pub(crate) members: Vec<Vec<usize>>,
}

impl Units {
    /// One component per memo class when `share`, else per thread.
    fn new(exp: &Explorer, share: bool) -> Units {
        let n = exp.prog.threads.len();
        let mut unit_of = Vec::with_capacity(n);
        let mut members: Vec<Vec<usize>> = Vec::new();
        let mut of_class: FxHashMap<usize, usize> = FxHashMap::default();
        for t in 0..n {
            let u = if share {
                *of_class.entry(exp.memo_class(t)).or_insert(members.len())
            } else {
                members.len()
            };
            if u == members.len() {
                members.push(Vec::new());
            }
            members[u].push(t);
            unit_of.push(u);
        }
        Units { unit_of, members }
    }
}

/// The fixpoint (R, G) with the exploration context it was computed in.
pub(crate) struct ThreadModular<'p> {
    pub(crate) exp: Explorer<'p>,
    units: Units,
    /// R per component.
    rows: Vec<Rows>,
    /// R's facts in derivation order, with derivations; the worklist.
    facts: Facts,
    /// G per component.
    pub(crate) guarantee: Vec<FxHashSet<(u32, u32)>>,
    /// The guarantee edges that change g, by source: g -> [(component, g')].
    guar_from: FxHashMap<u32, Vec<(u32, u32)>>,
    /// G of rendezvous: (thread, thread, g, g'), the threads in order.
    pub(crate) pair_guarantee: FxHashSet<(u32, u32, u32, u32)>,
    /// The pairs' edges that change g, by source: g -> [(thread, thread, g')].
    pair_from: FxHashMap<u32, Vec<(u32, u32, u32)>>,
    /// |R| in thread states (a component's fact counts once per thread).
    reach_count: usize,
    /// `--max-states`: R never holds more facts; a fact beyond it is
    /// refused (the computation then stops), so |R| stops exactly there.
    cap: usize,
    /// First run-time model error met by a thread step: (thread, g, l, message).
    pub(crate) model_error: Option<(usize, u32, u32, String)>,
    pub(crate) rule_applications: u64,
    /// A derivation that did not fit its packing (the run stops).
    overflow: Option<&'static str>,
    /// Set when a budget stopped the computation (R and G are partial).
    pub(crate) stopped: Option<String>,
    /// The budget that stopped it.
    limit: Option<Limit>,
}

impl<'p> ThreadModular<'p> {
    /// Computes the least (R, G).
    #[cfg(test)]
    pub(crate) fn compute(prog: &'p Program) -> ThreadModular<'p> {
        Self::compute_within(prog, &Budget::new(&CheckOptions::default()), None)
    }

    /// Computes (R, G), stopping early (see `stopped`) when a budget runs
    /// out; with `blocks`, a step is a whole reducible block (`--blocks`:
    /// R holds Out locations only, G whole blocks, the IR and IStep of
    /// Popeea, Rybalchenko and Wilhelm's RULESAFETY).
    pub(crate) fn compute_within(
        prog: &'p Program,
        budget: &Budget,
        blocks: Option<Arc<Boundaries>>,
    ) -> ThreadModular<'p> {
        // A shared fact is k thread states: with a cap on them, per thread.
        let share = budget.max_states().is_none();
        Self::compute_blocks(prog, budget, share, blocks)
    }

    /// As `compute_within`, with sharing between interchangeable threads
    /// on or off (tests compare the two).
    #[cfg(test)]
    pub(crate) fn compute_with(
        prog: &'p Program,
        budget: &Budget,
        share: bool,
    ) -> ThreadModular<'p> {
        Self::compute_blocks(prog, budget, share, None)
    }

    fn compute_blocks(
        prog: &'p Program,
        budget: &Budget,
        share: bool,
        blocks: Option<Arc<Boundaries>>,
    ) -> ThreadModular<'p> {
        // Rendezvous pair two distinct threads: kept per thread.
        let share = share && prog.channels.is_empty();
        // Each (component, g, l) is stepped once: memoising successors
        // only costs memory.
        let mut exp = Explorer::new(prog).without_memo().with_blocks(blocks);
        exp.set_step_budget(Some(budget.for_steps()));
        // Each fact is fired once, so tracking costs a bit per fact:
        // always on, and reported when `--show coverage` asks.
        exp.track_taken();
        let units = Units::new(&exp, share);
        let k = units.members.len();
        let mut tm = ThreadModular {
            exp,
            units,
            rows: (0..k).map(|_| Rows::default()).collect(),
            facts: Facts::default(),
            guarantee: vec![FxHashSet::default(); k],
            guar_from: FxHashMap::default(),
            pair_guarantee: FxHashSet::default(),
            pair_from: FxHashMap::default(),
            reach_count: 0,
            cap: budget.max_states().unwrap_or(usize::MAX),
            model_error: None,
            rule_applications: 0,
            overflow: None,
            stopped: None,
            limit: None,
        };
        // (AG INIT): every component's projection of the initial states.
        for u in 0..k {
            let t = tm.units.members[u][0];
            for (g, l) in tm.exp.initial_thread_states(t) {
                tm.add_reach(u, g, l, Origin::Init);
            }
        }
        let mut next = 0usize;
        while next < tm.facts.len() {
            // The clock, memory and progress line every `POLL_EVERY` facts
            // processed (a fact can add none, so |R| alone would not pace
            // it); the state budget on every fact.
            let why = if (next as u32).is_multiple_of(POLL_EVERY) {
                let queue = tm.facts.len() - next;
                budget.progress(tm.reach_count, "thread states", queue, None);
                budget.exceeded_now(tm.reach_count, usize::MAX)
            } else {
                budget.exceeded(tm.reach_count)
            };
            if let Some(why) = why {
                tm.stopped = Some(format!("{why} ({} thread states)", tm.reach_count));
                tm.limit = budget.hit();
                break;
            }
            if let Some(why) = tm.overflow {
                tm.stopped = Some(format!("internal error: {why}"));
                break;
            }
            tm.process(next as u32);
            next += 1;
        }
        // A step the budget cut short (`Succs::cut`) left facts out, even
        // when that was the last fact: the fixpoint is not complete.
        if tm.stopped.is_none()
            && let Some(why) = budget.hit_reason()
        {
            tm.stopped = Some(format!("{why} ({} thread states)", tm.reach_count));
            tm.limit = budget.hit();
        }
        tm
    }

    /// R for thread t, as values (global store, local store).
    pub(crate) fn reach_values(&self, t: usize) -> FxHashSet<(Vec<Val>, Vec<Val>)> {
        let rows = &self.rows[self.units.unit_of[t]];
        let mut out = FxHashSet::default();
        for g in rows.globals() {
            for l in rows.locals(g) {
                out.insert((
                    self.exp.globals.get(g).to_vec(),
                    self.exp.local(t, l).to_vec(),
                ));
            }
        }
        out
    }

    /// G for thread t (with the rendezvous it takes part in), as values
    /// (global store before, after).
    #[cfg(test)]
    pub(crate) fn guarantee_values(&self, t: usize) -> FxHashSet<(Vec<Val>, Vec<Val>)> {
        self.guarantee_of(t)
            .iter()
            .map(|&(a, b)| {
                (
                    self.exp.globals.get(a).to_vec(),
                    self.exp.globals.get(b).to_vec(),
                )
            })
            .collect()
    }

    /// G for thread t with the rendezvous edges it takes part in.
    fn guarantee_of(&self, t: usize) -> FxHashSet<(u32, u32)> {
        let mut edges = self.guarantee[self.units.unit_of[t]].clone();
        edges.extend(
            self.pair_guarantee
                .iter()
                .filter(|(a, b, _, _)| *a as usize == t || *b as usize == t)
                .map(|&(_, _, g, g2)| (g, g2)),
        );
        edges
    }

    /// |R| in thread states.
    pub(crate) fn reach_size(&self) -> usize {
        self.reach_count
    }

    /// |G| in thread edges (a component's edge counts once per thread).
    pub(crate) fn guarantee_size(&self) -> usize {
        let per_thread: usize = (self.guarantee.iter().enumerate())
            .map(|(u, g)| g.len() * self.units.members[u].len())
            .sum();
        per_thread + self.pair_guarantee.len()
    }

    /// The components, as tests see them.
    #[cfg(test)]
    pub(crate) fn units(&self) -> &Units {
        &self.units
    }

    /// Global stores at which every component has some local store.
    fn common_globals(&self) -> Vec<u32> {
        let Some(first) = self.rows.first() else {
            return Vec::new();
        };
        let mut gs = first.globals();
        gs.retain(|&g| self.rows.iter().all(|r| r.has(g)));
        gs
    }

    /// The name of a thread of component `by` that moved thread t: the
    /// first of them, or the next one when t is in `by` itself.
    fn mover(&self, t: usize, by: u32) -> &str {
        let ms = &self.units.members[by as usize];
        let e = ms.iter().copied().find(|&e| e != t).unwrap_or(ms[0]);
        &self.exp.prog.threads[e].name
    }

    /// The derivations of R(t, g, l) for each (t, g, l), from (AG INIT)
    /// forward: one backward pass over the facts for all of them.
    pub(crate) fn derivations(&self, wanted: &[(usize, u32, u32)]) -> Vec<Vec<Derivation>> {
        let keys: Vec<(u32, u32, u32)> = wanted
            .iter()
            .map(|&(t, g, l)| (self.units.unit_of[t] as u32, g, l))
            .collect();
        let chains = self.facts.chains(&keys);
        let prog = self.exp.prog;
        wanted
            .iter()
            .zip(chains)
            .map(|(&(t, g, l), chain)| {
                let tpl = prog.template_of(t);
                let fact = |by, g: u32, l: u32| Derivation {
                    by,
                    global: prog.globals.render(self.exp.globals.get(g)),
                    local: tpl.render_local(self.exp.local(t, l)),
                };
                if chain.is_empty() {
                    // Not in R (a partial fixpoint): the fact alone.
                    return vec![fact(Derived::Init, g, l)];
                }
                let mut out: Vec<Derivation> = chain
                    .iter()
                    .map(|&i| {
                        let f = &self.facts.all[i as usize];
                        let by = match self.facts.origin(f) {
                            Origin::Init => Derived::Init,
                            Origin::Step { trans, .. } => {
                                Derived::Step(tpl.transitions[trans as usize].label.clone())
                            }
                            Origin::Env { by, .. } | Origin::EnvAt { by, .. } => {
                                Derived::Env(self.mover(t, by).to_string())
                            }
                            Origin::Sync { trans, partner, .. } => {
                                let label = &tpl.transitions[trans as usize].label;
                                let with = &prog.threads[partner as usize].name;
                                Derived::Step(format!("{label} with {with}"))
                            }
                            Origin::EnvPair { by, with, .. } => {
                                let (a, b) = (
                                    &prog.threads[by as usize].name,
                                    &prog.threads[with as usize].name,
                                );
                                Derived::Env(format!("{a} and {b}"))
                            }
                        };
                        fact(by, f.g, f.l)
                    })
                    .collect();
                out.reverse();
                out
            })
            .collect()
    }

    /// The derivation of R(t, g, l), from (AG INIT) forward.
    #[cfg(test)]
    pub(crate) fn derivation(&self, t: usize, g: u32, l: u32) -> Vec<Derivation> {
        self.derivations(&[(t, g, l)]).remove(0)
    }

    /// R and G per thread, R ordered by global store then local store
    /// (by id), G by edge.
    pub(crate) fn summaries(&self, guard: &RenderGuard) -> Vec<ThreadSummary> {
        let prog = self.exp.prog;
        (0..prog.threads.len())
            .map(|t| {
                let tpl = prog.template_of(t);
                let rows = &self.rows[self.units.unit_of[t]];
                let mut reach = Vec::new();
                for g in rows.globals() {
                    let global = prog.globals.render(self.exp.globals.get(g));
                    for l in rows.locals(g).into_iter().take_while(|_| guard.go_on()) {
                        reach.push(ReachFact {
                            global: global.clone(),
                            local: tpl.render_local(self.exp.local(t, l)),
                        });
                    }
                }
                let mut edges: Vec<(u32, u32)> = self.guarantee_of(t).into_iter().collect();
                edges.sort_unstable();
                let guarantee = edges
                    .iter()
                    .take_while(|_| guard.go_on())
                    .map(|(a, b)| GuaranteeEdge {
                        from: prog.globals.render(self.exp.globals.get(*a)),
                        to: prog.globals.render(self.exp.globals.get(*b)),
                    })
                    .collect();
                ThreadSummary {
                    thread: prog.threads[t].name.clone(),
                    reach,
                    guarantee,
                }
            })
            .collect()
    }
}

impl<'p> AbstractFixpoint<'p> for ThreadModular<'p> {
    const MODE: Mode = Mode::ThreadModular;

    fn explorer(&self) -> &Explorer<'p> {
        &self.exp
    }

    /// The products are the global stores every thread reaches, with each
    /// thread's local stores there (its component's).
    fn find_error(&self, decide: &mut Decide) -> Result<Found, EvalError> {
        // One buffer for every component's local stores at g, reused.
        let (mut flat, mut ends) = (Vec::new(), Vec::new());
        for g in self.common_globals() {
            flat.clear();
            ends.clear();
            for r in &self.rows {
                r.locals_into(g, &mut flat);
                ends.push(flat.len());
            }
            let cands: Vec<&[u32]> = (self.units.unit_of.iter())
                .map(|&u| &flat[if u == 0 { 0 } else { ends[u - 1] }..ends[u]])
                .collect();
            if let Some(choice) = decide(g, &cands)? {
                return Ok(Some((g, choice, "the thread-modular invariant")));
            }
        }
        Ok(None)
    }

    fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    fn limit(&self) -> Option<Limit> {
        self.limit
    }

    fn witness(&self, g: u32, choice: &[u32]) -> Witness {
        let prog = self.exp.prog;
        let wanted: Vec<(usize, u32, u32)> =
            choice.iter().enumerate().map(|(t, &l)| (t, g, l)).collect();
        let derivations = self.derivations(&wanted);
        Witness {
            globals: prog.globals.render(self.exp.globals.get(g)),
            threads: choice
                .iter()
                .zip(derivations)
                .enumerate()
                .map(|(t, (&l, derivation))| WitnessThread {
                    thread: prog.threads[t].name.clone(),
                    local: prog.template_of(t).render_local(self.exp.local(t, l)),
                    derivation,
                })
                .collect(),
        }
    }

    fn alarm_reason(&self, _part: &str) -> String {
        "alarm: the thread-modular over-approximation contains an error state (possibly spurious)"
            .into()
    }

    fn unfinished_reason(&self, why: &str) -> String {
        format!("{why} before the fixpoint was reached; no error in the part computed")
    }

    fn proved_reason(&self) -> String {
        "proved: no error state is in the thread-modular invariant".into()
    }

    fn model_error(&self) -> Option<(&str, Witness)> {
        let prog = self.exp.prog;
        self.model_error.as_ref().map(|(t, g, l, msg)| {
            let mut w = self.witness(*g, &[]);
            w.threads.push(WitnessThread {
                thread: prog.threads[*t].name.clone(),
                local: prog.template_of(*t).render_local(self.exp.local(*t, *l)),
                derivation: self.derivations(&[(*t, *g, *l)]).remove(0),
            });
            (msg.as_str(), w)
        })
    }

    fn stats(&self) -> Stats {
        let mut stats = Stats::default();
        // `states` is |R| (thread states), `transitions` counts rule applications.
        stats.push("states", self.reach_size() as u64);
        stats.push("guarantee", self.guarantee_size() as u64);
        stats.push("transitions", self.rule_applications);
        stats
    }

    fn invariant(&self, guard: &RenderGuard) -> Invariant {
        Invariant {
            form: InvariantForm::ThreadModular(self.summaries(guard)),
            globals: self.exp.prog.globals.clone(),
            blocks: self.exp.blocks().is_some(),
        }
    }
}

/// `blocks`: where steps end under `--blocks` (`lipton::for_options`).
pub(crate) fn run(
    prog: &Program,
    opts: &CheckOptions,
    blocks: Option<Arc<Boundaries>>,
) -> Result<RunReport, CheckError> {
    let start = Instant::now();
    let selected = abstract_report::prepare(prog, opts, Mode::ThreadModular)?;
    let tm = ThreadModular::compute_within(prog, &Budget::new(opts), blocks);
    let report = abstract_report::report(prog, &tm, selected, opts, start);
    crate::engine::dispose::dispose(tm);
    report
}

/// The report of a fixpoint with the default options (tests compare the
/// compact fixpoint's with the oracle's).
#[cfg(test)]
pub(crate) fn report_of<'p, F: AbstractFixpoint<'p>>(prog: &Program, fx: &F) -> RunReport {
    let opts = CheckOptions::default();
    let selected = abstract_report::prepare(prog, &opts, Mode::ThreadModular)
        .expect("the tests' properties are decidable");
    abstract_report::report(prog, fx, selected, &opts, Instant::now())
        .expect("the tests' properties evaluate")
}

/// Calls `decide` on every product of the fixpoint (tests).
#[cfg(test)]
pub(crate) fn products(tm: &ThreadModular, decide: &mut Decide) -> Result<Found, EvalError> {
    tm.find_error(decide)
}
