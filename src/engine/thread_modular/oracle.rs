//! The previous `thread-modular` fixpoint (Flanagan and Qadeer,
//! "Thread-modular model checking", Section 2.2), kept as the test oracle
//! of the compact one (`super::fixpoint`): hash maps of facts with their
//! derivations, one R and one G per thread. Computes the least relations
//!
//! * R ⊆ Tid × Glob × Loc  (`reach`): thread t can be at local l with global g;
//! * G ⊆ Tid × Glob × Glob (`guarantee`): a step of thread t can change g to g';
//!
//! closed under (AG INIT), (AG ENV) and (AG STEP), with a worklist: each new
//! R fact is stepped once and exposed once to the existing guarantees, and
//! each new guarantee edge is applied once to the existing R facts. No global
//! re-iteration. An error is reported when some error state (g, l_1..l_n)
//! has R(t, g, l_t) for every t (decided per g by `property::Decider`).
//!
//! Rendezvous (`engine::rendezvous`) extend (AG STEP) to pairs: a new R fact
//! is paired once with the partner facts that exist at its global store
//! (a partner fact added later pairs with it when it is processed); the
//! joint step gives both threads their new facts and a guarantee edge of the
//! pair, which (AG ENV) applies to every other thread.

use crate::engine::abstract_report::{AbstractFixpoint, Decide, Found};
use crate::engine::render_guard::RenderGuard;
use crate::engine::rendezvous::Offered;
use crate::engine::result::{
    Derivation, Derived, GuaranteeEdge, Invariant, InvariantForm, Limit, ReachFact, Stats,
    ThreadSummary, Witness, WitnessThread,
};
use crate::engine::{Budget, CheckOptions, Mode, POLL_EVERY};
use crate::program::Val;
use crate::program::{EvalError, Explorer, Program};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

/// How an R fact was first derived: the derivation path of a witness.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Origin {
    /// (AG INIT)
    Init,
    /// (AG STEP) from local `l` at global `g` by transition `trans`.
    Step { g: u32, l: u32, trans: u32 },
    /// (AG ENV) from global `g` by a step that thread `by` guaranteed.
    Env { g: u32, by: u32 },
    /// (AG STEP) of a rendezvous: from local `l` at global `g` by
    /// transition `trans`, together with thread `partner`.
    Sync {
        g: u32,
        l: u32,
        trans: u32,
        partner: u32,
    },
    /// (AG ENV) from global `g` by a rendezvous of threads `by` and `with`.
    EnvPair { g: u32, by: u32, with: u32 },
}

/// The fixpoint (R, G) with the exploration context it was computed in.
pub(crate) struct Oracle<'p> {
    pub(crate) exp: Explorer<'p>,
    /// R per thread: (g, l) -> first derivation.
    pub(crate) reach: Vec<FxHashMap<(u32, u32), Origin>>,
    /// R per thread indexed by global store: g -> locals.
    pub(crate) reach_by_g: Vec<FxHashMap<u32, Vec<u32>>>,
    /// G per thread.
    pub(crate) guarantee: Vec<FxHashSet<(u32, u32)>>,
    /// All guarantee edges by source: g -> [(thread, g')].
    guar_from: FxHashMap<u32, Vec<(u32, u32)>>,
    /// G of rendezvous: (thread, thread, g, g'), the threads in order.
    pub(crate) pair_guarantee: FxHashSet<(u32, u32, u32, u32)>,
    /// The pairs' edges that change g, by source: g -> [(thread, thread, g')].
    pair_from: FxHashMap<u32, Vec<(u32, u32, u32)>>,
    worklist: VecDeque<(u32, u32, u32)>,
    /// |R|, kept as facts are added (the budget reads it per fact).
    reach_count: usize,
    /// `--max-states`: R never holds more facts; a fact beyond it is
    /// refused (the computation then stops), so |R| stops exactly there.
    cap: usize,
    /// First run-time model error met by a thread step: (thread, g, l, message).
    pub(crate) model_error: Option<(usize, u32, u32, String)>,
    pub(crate) rule_applications: u64,
    /// Set when a budget stopped the computation (R and G are partial).
    pub(crate) stopped: Option<String>,
    /// The budget that stopped it.
    limit: Option<Limit>,
}

impl<'p> Oracle<'p> {
    /// Computes the least (R, G).
    pub(crate) fn compute(prog: &'p Program) -> Oracle<'p> {
        Self::compute_within(prog, &Budget::new(&CheckOptions::default()))
    }

    /// Computes (R, G), stopping early (see `stopped`) when a budget runs out.
    pub(crate) fn compute_within(prog: &'p Program, budget: &Budget) -> Oracle<'p> {
        let n = prog.threads.len();
        let mut tm = Oracle {
            // Each (t, g, l) is stepped once: memoising successors only costs memory.
            exp: Explorer::new(prog).without_memo(),
            reach: vec![FxHashMap::default(); n],
            reach_by_g: vec![FxHashMap::default(); n],
            guarantee: vec![FxHashSet::default(); n],
            guar_from: FxHashMap::default(),
            pair_guarantee: FxHashSet::default(),
            pair_from: FxHashMap::default(),
            worklist: VecDeque::new(),
            reach_count: 0,
            cap: budget.max_states().unwrap_or(usize::MAX),
            model_error: None,
            rule_applications: 0,
            stopped: None,
            limit: None,
        };
        // (AG INIT): every thread's projection of the initial states.
        for t in 0..n {
            for (g, l) in tm.exp.initial_thread_states(t) {
                tm.add_reach(t, g, l, Origin::Init);
            }
        }
        let mut popped = 0u32;
        while let Some((t, g, l)) = tm.worklist.pop_front() {
            budget.progress(tm.reach_count, "thread states", tm.worklist.len(), None);
            // The clock and memory every `POLL_EVERY` facts processed (a
            // fact can add none, so |R| alone would not pace it); the state
            // budget on every fact.
            popped = popped.wrapping_add(1);
            let why = if popped.is_multiple_of(POLL_EVERY) {
                budget.exceeded_now(tm.reach_count, usize::MAX)
            } else {
                budget.exceeded(tm.reach_count)
            };
            if let Some(why) = why {
                tm.stopped = Some(format!("{why} ({} thread states)", tm.reach_count));
                tm.limit = budget.hit();
                break;
            }
            tm.process(t as usize, g, l);
        }
        tm
    }

    fn add_reach(&mut self, t: usize, g: u32, l: u32, origin: Origin) {
        self.rule_applications += 1;
        if self.reach_count >= self.cap {
            return;
        }
        if let std::collections::hash_map::Entry::Vacant(v) = self.reach[t].entry((g, l)) {
            v.insert(origin);
            self.reach_count += 1;
            self.reach_by_g[t].entry(g).or_default().push(l);
            self.worklist.push_back((t as u32, g, l));
        }
    }

    fn process(&mut self, t: usize, g: u32, l: u32) {
        // (AG STEP): the thread's own steps, and the guarantees they give.
        let succs = self.exp.successors(t, g, l);
        if let (Some((_, msg)), None) = (&succs.error, &self.model_error) {
            self.model_error = Some((t, g, l, msg.clone()));
        }
        for s in &succs.steps {
            self.add_reach(
                t,
                s.g,
                s.l,
                Origin::Step {
                    g,
                    l,
                    trans: s.trans,
                },
            );
            self.add_guarantee(t, g, s.g);
        }
        if !self.exp.prog.channels.is_empty() {
            self.rendezvous(t, g, l);
        }
        // (AG ENV): steps of other threads from this global store. The
        // edges are taken out while facts are added (adding R facts never
        // adds guarantee edges), to avoid copying them.
        if let Some(edges) = self.guar_from.remove(&g) {
            for &(e, g2) in &edges {
                if e as usize != t && g2 != g {
                    self.add_reach(t, g2, l, Origin::Env { g, by: e });
                }
            }
            self.guar_from.insert(g, edges);
        }
        if let Some(edges) = self.pair_from.remove(&g) {
            for &(a, b, g2) in &edges {
                if a as usize != t && b as usize != t {
                    self.add_reach(t, g2, l, Origin::EnvPair { g, by: a, with: b });
                }
            }
            self.pair_from.insert(g, edges);
        }
    }

    /// (AG STEP) for rendezvous: the joint steps of thread t at l with the
    /// other threads' R facts at g, in either role.
    fn rendezvous(&mut self, t: usize, g: u32, l: u32) {
        let mut offered = Offered::new(g);
        if offered.add(&mut self.exp, t, l) {
            for u in (0..self.reach.len()).filter(|&u| u != t) {
                let ls = self.reach_by_g[u].get(&g).cloned().unwrap_or_default();
                for lu in ls {
                    offered.add(&mut self.exp, u, lu);
                }
            }
        }
        let joints = offered.joint_steps(&mut self.exp, |s, r| s.0 == t || r.0 == t);
        if let (Some((u, lu, msg)), None) = (offered.errors.first(), &self.model_error) {
            self.model_error = Some((*u, g, *lu, msg.clone()));
        }
        for j in joints {
            let s = j.step;
            let (a, b) = (s.sender as u32, s.receiver as u32);
            let from_send = Origin::Sync {
                g,
                l: j.from_send,
                trans: s.send_trans,
                partner: b,
            };
            self.add_reach(s.sender, s.g, s.l_send, from_send);
            let from_recv = Origin::Sync {
                g,
                l: j.from_recv,
                trans: s.recv_trans,
                partner: a,
            };
            self.add_reach(s.receiver, s.g, s.l_recv, from_recv);
            self.add_pair_guarantee(a.min(b), a.max(b), g, s.g);
        }
    }

    /// A guarantee edge of the rendezvous of threads a < b: (AG ENV) for
    /// the R facts of every other thread that already exist at g.
    fn add_pair_guarantee(&mut self, a: u32, b: u32, g: u32, g2: u32) {
        if !self.pair_guarantee.insert((a, b, g, g2)) || g == g2 {
            return;
        }
        self.pair_from.entry(g).or_default().push((a, b, g2));
        for t in 0..self.reach.len() {
            if t == a as usize || t == b as usize {
                continue;
            }
            if let Some(ls) = self.reach_by_g[t].remove(&g) {
                for &l in &ls {
                    self.add_reach(t, g2, l, Origin::EnvPair { g, by: a, with: b });
                }
                self.reach_by_g[t].insert(g, ls);
            }
        }
    }

    /// G for thread t with the rendezvous edges it takes part in.
    fn guarantee_of(&self, t: usize) -> FxHashSet<(u32, u32)> {
        let mut edges = self.guarantee[t].clone();
        edges.extend(
            self.pair_guarantee
                .iter()
                .filter(|(a, b, _, _)| *a as usize == t || *b as usize == t)
                .map(|&(_, _, g, g2)| (g, g2)),
        );
        edges
    }

    fn add_guarantee(&mut self, e: usize, g: u32, g2: u32) {
        if !self.guarantee[e].insert((g, g2)) {
            return;
        }
        self.guar_from.entry(g).or_default().push((e as u32, g2));
        if g == g2 {
            return; // a stuttering edge changes nobody's view
        }
        // (AG ENV) for the R facts that already exist at g.
        for t in 0..self.reach.len() {
            if t == e {
                continue;
            }
            // Taken out while facts at g2 ≠ g are added, to avoid a copy.
            if let Some(ls) = self.reach_by_g[t].remove(&g) {
                for &l in &ls {
                    self.add_reach(t, g2, l, Origin::Env { g, by: e as u32 });
                }
                self.reach_by_g[t].insert(g, ls);
            }
        }
    }

    /// R for thread t, as values (global store, local store).
    pub(crate) fn reach_values(&self, t: usize) -> FxHashSet<(Vec<Val>, Vec<Val>)> {
        self.reach[t]
            .keys()
            .map(|&(g, l)| {
                (
                    self.exp.globals.get(g).to_vec(),
                    self.exp.local(t, l).to_vec(),
                )
            })
            .collect()
    }

    /// G for thread t (with the rendezvous it takes part in), as values
    /// (global store before, after).
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

    pub(crate) fn reach_size(&self) -> usize {
        self.reach_count
    }

    pub(crate) fn guarantee_size(&self) -> usize {
        self.guarantee.iter().map(|g| g.len()).sum::<usize>() + self.pair_guarantee.len()
    }

    /// Global stores at which every thread has some local store.
    fn common_globals(&self) -> Vec<u32> {
        let mut gs: Vec<u32> = self.reach_by_g[0]
            .keys()
            .copied()
            .filter(|g| self.reach_by_g.iter().all(|r| r.contains_key(g)))
            .collect();
        gs.sort_unstable();
        gs
    }

    /// The derivation of R(t, g, l), from (AG INIT) forward.
    pub(crate) fn derivation(&self, t: usize, g: u32, l: u32) -> Vec<Derivation> {
        let prog = self.exp.prog;
        let tpl = prog.template_of(t);
        let mut facts = Vec::new();
        let (mut g, mut l) = (g, l);
        // Origins always point to facts derived earlier, so this ends.
        for _ in 0..=self.reach[t].len() {
            let fact = |by| Derivation {
                by,
                global: prog.globals.render(self.exp.globals.get(g)),
                local: tpl.render_local(self.exp.local(t, l)),
            };
            match self.reach[t].get(&(g, l)) {
                Some(Origin::Init) | None => {
                    facts.push(fact(Derived::Init));
                    break;
                }
                Some(Origin::Step {
                    g: g0,
                    l: l0,
                    trans,
                }) => {
                    facts.push(fact(Derived::Step(
                        tpl.transitions[*trans as usize].label.clone(),
                    )));
                    (g, l) = (*g0, *l0);
                }
                Some(Origin::Env { g: g0, by }) => {
                    facts.push(fact(Derived::Env(prog.threads[*by as usize].name.clone())));
                    g = *g0;
                }
                Some(Origin::Sync {
                    g: g0,
                    l: l0,
                    trans,
                    partner,
                }) => {
                    let label = &tpl.transitions[*trans as usize].label;
                    let with = &prog.threads[*partner as usize].name;
                    facts.push(fact(Derived::Step(format!("{label} with {with}"))));
                    (g, l) = (*g0, *l0);
                }
                Some(Origin::EnvPair { g: g0, by, with }) => {
                    let (a, b) = (
                        &prog.threads[*by as usize].name,
                        &prog.threads[*with as usize].name,
                    );
                    facts.push(fact(Derived::Env(format!("{a} and {b}"))));
                    g = *g0;
                }
            }
        }
        facts.reverse();
        facts
    }

    /// R and G per thread, R ordered by global store then local store
    /// (by id), G by edge.
    pub(crate) fn summaries(&self, guard: &RenderGuard) -> Vec<ThreadSummary> {
        let prog = self.exp.prog;
        (0..prog.threads.len())
            .map(|t| {
                let tpl = prog.template_of(t);
                let mut gs: Vec<u32> = self.reach_by_g[t].keys().copied().collect();
                gs.sort_unstable();
                let mut reach = Vec::new();
                for g in &gs {
                    let global = prog.globals.render(self.exp.globals.get(*g));
                    let mut ls = self.reach_by_g[t][g].clone();
                    ls.sort_unstable();
                    for &l in ls.iter().take_while(|_| guard.go_on()) {
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

impl<'p> AbstractFixpoint<'p> for Oracle<'p> {
    const MODE: Mode = Mode::ThreadModular;

    fn explorer(&self) -> &Explorer<'p> {
        &self.exp
    }

    /// The products are the global stores every thread reaches, with each
    /// thread's local stores there.
    fn find_error(&self, decide: &mut Decide) -> Result<Found, EvalError> {
        for g in self.common_globals() {
            let cands: Vec<&[u32]> = (0..self.exp.prog.threads.len())
                .map(|t| self.reach_by_g[t][&g].as_slice())
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
        Witness {
            globals: prog.globals.render(self.exp.globals.get(g)),
            threads: choice
                .iter()
                .enumerate()
                .map(|(t, &l)| WitnessThread {
                    thread: prog.threads[t].name.clone(),
                    local: prog.template_of(t).render_local(self.exp.local(t, l)),
                    derivation: self.derivation(t, g, l),
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
                derivation: self.derivation(*t, *g, *l),
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
            blocks: false,
        }
    }
}
