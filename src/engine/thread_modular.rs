//! `thread-modular`: Flanagan and Qadeer, "Thread-modular model checking",
//! Section 2.2. Computes the least relations
//!
//! * R ⊆ Tid × Glob × Loc  (`reach`): thread t can be at local l with global g;
//! * G ⊆ Tid × Glob × Glob (`guarantee`): a step of thread t can change g to g';
//!
//! closed under (AG INIT), (AG ENV) and (AG STEP), with a worklist: each new
//! R fact is stepped once and exposed once to the existing guarantees, and
//! each new guarantee edge is applied once to the existing R facts. No global
//! re-iteration. An error is reported when some error state (g, l_1..l_n)
//! has R(t, g, l_t) for every t (decided per g by `property::Decider`).

use super::{Budget, CheckOptions, abstract_model_error_outcome, selected_properties};
use crate::program::{Explorer, Mode, Program, Val, Verdict};
use crate::report::{Outcome, RunReport, Stats, Witness};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::time::Instant;

/// How an R fact was first derived: the derivation path of a witness.
#[derive(Clone, Copy, Debug)]
pub enum Origin {
    /// (AG INIT)
    Init,
    /// (AG STEP) from local `l` at global `g` by transition `trans`.
    Step { g: u32, l: u32, trans: u32 },
    /// (AG ENV) from global `g` by a step that thread `by` guaranteed.
    Env { g: u32, by: u32 },
}

/// The fixpoint (R, G) with the exploration context it was computed in.
pub struct ThreadModular<'p> {
    pub exp: Explorer<'p>,
    /// R per thread: (g, l) -> first derivation.
    pub reach: Vec<FxHashMap<(u32, u32), Origin>>,
    /// R per thread indexed by global store: g -> locals.
    pub reach_by_g: Vec<FxHashMap<u32, Vec<u32>>>,
    /// G per thread.
    pub guarantee: Vec<FxHashSet<(u32, u32)>>,
    /// All guarantee edges by source: g -> [(thread, g')].
    guar_from: FxHashMap<u32, Vec<(u32, u32)>>,
    worklist: VecDeque<(u32, u32, u32)>,
    /// |R|, kept as facts are added (the budget reads it per fact).
    reach_count: usize,
    /// First run-time model error met by a thread step: (thread, g, l, message).
    pub model_error: Option<(usize, u32, u32, String)>,
    pub rule_applications: u64,
    /// Set when a budget stopped the computation (R and G are partial).
    pub stopped: Option<String>,
}

impl<'p> ThreadModular<'p> {
    /// Computes the least (R, G).
    pub fn compute(prog: &'p Program) -> ThreadModular<'p> {
        Self::compute_within(prog, &Budget::new(&CheckOptions::default()))
    }

    /// Computes (R, G), stopping early (see `stopped`) when a budget runs out.
    pub fn compute_within(prog: &'p Program, budget: &Budget) -> ThreadModular<'p> {
        let n = prog.threads.len();
        let mut tm = ThreadModular {
            // Each (t, g, l) is stepped once: memoising successors only costs memory.
            exp: Explorer::new(prog).without_memo(),
            reach: vec![FxHashMap::default(); n],
            reach_by_g: vec![FxHashMap::default(); n],
            guarantee: vec![FxHashSet::default(); n],
            guar_from: FxHashMap::default(),
            worklist: VecDeque::new(),
            reach_count: 0,
            model_error: None,
            rule_applications: 0,
            stopped: None,
        };
        // (AG INIT): every thread's projection of the initial states.
        for t in 0..n {
            for (g, l) in tm.exp.initial_thread_states(t) {
                tm.add_reach(t, g, l, Origin::Init);
            }
        }
        while let Some((t, g, l)) = tm.worklist.pop_front() {
            if let Some(why) = budget.exceeded(tm.reach_count) {
                tm.stopped = Some(why);
                break;
            }
            tm.process(t as usize, g, l);
        }
        tm
    }

    fn add_reach(&mut self, t: usize, g: u32, l: u32, origin: Origin) {
        self.rule_applications += 1;
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
    pub fn reach_values(&self, t: usize) -> FxHashSet<(Vec<Val>, Vec<Val>)> {
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

    /// G for thread t, as values (global store before, after).
    pub fn guarantee_values(&self, t: usize) -> FxHashSet<(Vec<Val>, Vec<Val>)> {
        self.guarantee[t]
            .iter()
            .map(|&(a, b)| {
                (
                    self.exp.globals.get(a).to_vec(),
                    self.exp.globals.get(b).to_vec(),
                )
            })
            .collect()
    }

    pub fn reach_size(&self) -> usize {
        self.reach_count
    }

    pub fn guarantee_size(&self) -> usize {
        self.guarantee.iter().map(|g| g.len()).sum()
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

    /// The derivation of R(t, g, l), from (AG INIT) forward, as text lines.
    pub fn derivation(&self, t: usize, g: u32, l: u32) -> Vec<String> {
        let prog = self.exp.prog;
        let tpl = prog.template_of(t);
        let mut lines = Vec::new();
        let (mut g, mut l) = (g, l);
        // Origins always point to facts derived earlier, so this ends.
        for _ in 0..=self.reach[t].len() {
            let here = format!(
                "[{}] {}",
                prog.show_global(self.exp.globals.get(g)),
                tpl.show_local(self.exp.local(t, l))
            );
            match self.reach[t].get(&(g, l)) {
                Some(Origin::Init) | None => {
                    lines.push(format!("init {here}"));
                    break;
                }
                Some(Origin::Step {
                    g: g0,
                    l: l0,
                    trans,
                }) => {
                    lines.push(format!(
                        "step \"{}\" -> {here}",
                        tpl.transitions[*trans as usize].label
                    ));
                    (g, l) = (*g0, *l0);
                }
                Some(Origin::Env { g: g0, by }) => {
                    lines.push(format!(
                        "env step of {} -> {here}",
                        prog.threads[*by as usize].name
                    ));
                    g = *g0;
                }
            }
        }
        lines.reverse();
        lines
    }

    /// R and G per thread as JSON (`invariant.threads[i].reach/guarantee`)
    /// and as text grouped by global store.
    pub fn invariant(&self) -> (Value, String) {
        let prog = self.exp.prog;
        let obj = |vars: Vec<(String, Value)>| Value::Object(vars.into_iter().collect());
        let mut threads = Vec::new();
        let mut text = String::from(
            "  invariant (per thread: R as local stores and the global stores they occur with; then G as the writes it allows and the global stores they leave from):\n",
        );
        for t in 0..prog.threads.len() {
            let tpl = prog.template_of(t);
            let mut gs: Vec<u32> = self.reach_by_g[t].keys().copied().collect();
            gs.sort_unstable();
            let mut reach = Vec::new();
            // Global stores grouped by the set of local stores seen with them.
            let mut groups: Vec<(Vec<u32>, Vec<Vec<Val>>)> = Vec::new();
            for g in &gs {
                let gv = self.exp.globals.get(*g);
                let mut ls = self.reach_by_g[t][g].clone();
                ls.sort_unstable();
                for &l in &ls {
                    reach.push(json!({"global": obj(prog.globals.render(gv)), "local": obj(tpl.render_local(self.exp.local(t, l)))}));
                }
                match groups.iter_mut().find(|(k, _)| *k == ls) {
                    Some((_, stores)) => stores.push(gv.to_vec()),
                    None => groups.push((ls, vec![gv.to_vec()])),
                }
            }
            text.push_str(&format!("    {}: R\n", prog.threads[t].name));
            for (ls, stores) in &groups {
                let shown: Vec<String> = ls
                    .iter()
                    .map(|&l| tpl.show_local(self.exp.local(t, l)))
                    .collect();
                text.push_str(&format!(
                    "      {{{}}}  with  {}\n",
                    shown.join(", "),
                    super::compact::describe(&prog.globals, stores)
                ));
            }
            let mut edges: Vec<(u32, u32)> = self.guarantee[t].iter().copied().collect();
            edges.sort_unstable();
            text.push_str(&format!("    {}: G\n", prog.threads[t].name));
            let stores: Vec<(Vec<Val>, Vec<Val>)> = edges
                .iter()
                .map(|(a, b)| {
                    let (ga, gb) = (self.exp.globals.get(*a), self.exp.globals.get(*b));
                    (ga.to_vec(), gb.to_vec())
                })
                .collect();
            for line in super::compact::describe_edges(&prog.globals, &stores) {
                text.push_str(&format!("      {line}\n"));
            }
            let guarantee: Vec<Value> = stores
                .iter()
                .map(|(ga, gb)| {
                    json!({"from": obj(prog.globals.render(ga)), "to": obj(prog.globals.render(gb))})
                })
                .collect();
            threads.push(
                json!({"thread": prog.threads[t].name, "reach": reach, "guarantee": guarantee}),
            );
        }
        (json!({"threads": threads}), text)
    }
}

pub fn run(prog: &Program, opts: &CheckOptions) -> Result<RunReport, String> {
    let start = Instant::now();
    let props = selected_properties(prog, &opts.properties);
    let deciders = super::deciders(prog, &props, Mode::ThreadModular)?;
    let tm = ThreadModular::compute_within(prog, &Budget::new(opts));
    let gs = tm.common_globals();
    let mut outcomes = Vec::new();
    for (k, &p) in props.iter().enumerate() {
        let name = prog.properties[p].name.clone();
        let mut found = None;
        for &g in &gs {
            let cands: Vec<&[u32]> = (0..prog.threads.len())
                .map(|t| tm.reach_by_g[t][&g].as_slice())
                .collect();
            match deciders[k].witness(&tm.exp, g, &cands) {
                Ok(Some(choice)) => {
                    found = Some((g, choice));
                    break;
                }
                Ok(None) => {}
                Err(e) => return Err(format!("evaluating property `{name}`: {}", e.0)),
            }
        }
        outcomes.push(match found {
            None if tm.stopped.is_some() => Outcome {
                property: name,
                verdict: Verdict::Unknown,
                reason: format!("{} before the fixpoint was reached; no error in the part computed ({} thread states)", tm.stopped.as_deref().unwrap_or(""), tm.reach_size()),
                trace: None,
                witness: None,
            },
            None => Outcome { property: name, verdict: Verdict::Safe, reason: "proved: no error state is in the thread-modular invariant".into(), trace: None, witness: None },
            Some((g, choice)) => Outcome {
                property: name,
                verdict: Verdict::Unknown,
                reason: "alarm: the thread-modular over-approximation contains an error state (possibly spurious)".into(),
                trace: None,
                witness: Some(witness(&tm, g, &choice)),
            },
        });
    }
    let error = tm.model_error.as_ref().map(|(t, g, l, msg)| {
        let mut w = witness(&tm, *g, &[]);
        w.threads.push((
            prog.threads[*t].name.clone(),
            prog.template_of(*t).show_local(tm.exp.local(*t, *l)),
            tm.derivation(*t, *g, *l),
        ));
        (msg.as_str(), w)
    });
    outcomes.push(abstract_model_error_outcome(tm.stopped.is_some(), error));
    let mut stats = Stats::default();
    // `states` is |R| (thread states), `transitions` counts rule applications.
    stats.push("states", tm.reach_size() as u64);
    stats.push("guarantee", tm.guarantee_size() as u64);
    stats.push("transitions", tm.rule_applications);
    stats.finish(start.elapsed());
    let invariant = opts.show_invariant.then(|| tm.invariant());
    Ok(RunReport {
        model: prog.name.clone(),
        mode: Mode::ThreadModular,
        outcomes,
        stats,
        invariant,
    })
}

fn witness(tm: &ThreadModular, g: u32, choice: &[u32]) -> Witness {
    let prog = tm.exp.prog;
    Witness {
        globals: prog.globals.render(tm.exp.globals.get(g)),
        threads: choice
            .iter()
            .enumerate()
            .map(|(t, &l)| {
                (
                    prog.threads[t].name.clone(),
                    prog.template_of(t).show_local(tm.exp.local(t, l)),
                    tm.derivation(t, g, l),
                )
            })
            .collect(),
    }
}
