//! `standard`: exact reachability over all interleavings (the papers' rules
//! BASIC INIT and BASIC STEP), by breadth-first search so that the first
//! error found has a shortest trace. The visited set keeps each state once;
//! a parent link per state rebuilds the trace (as TLC and stateright do).

use super::progress::Progress;
use super::store::StateStore;
use super::symmetry::Symmetry;
use super::{Budget, CheckOptions, model_error_outcome, selected_properties};
use crate::program::{Explorer, Program, Val, Verdict};
use crate::property;
use crate::report::{Outcome, RunReport, Stats};
use crate::trace::{StateIds, StepIds, Trace};
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::time::Instant;

/// No parent: an initial state.
const ROOT: u32 = u32::MAX;

struct Search<'p> {
    exp: Explorer<'p>,
    /// Symmetry reduction: states are stored canonicalised.
    sym: Option<Symmetry>,
    /// States in BFS order; a state is `[g, l_1, .., l_n]`.
    visited: StateStore,
    /// Packing buffer for inserts.
    scratch: Vec<u64>,
    /// For states reached by a rendezvous: the receiver and its transition
    /// (the parent link holds the sender).
    partner: FxHashMap<u32, (u32, u32)>,
    /// Per state: parent index, moving thread, transition.
    parent: Vec<(u32, u32, u32)>,
}

impl Search<'_> {
    fn ids(&self, i: usize) -> StateIds {
        let s = self.visited.get(i);
        (s[0], s[1..].to_vec())
    }

    /// State indices from an initial state to `i`, by parent links.
    fn chain(&self, i: usize) -> Vec<usize> {
        let mut chain = vec![i];
        let mut at = i;
        while self.parent[at].0 != ROOT {
            at = self.parent[at].0 as usize;
            chain.push(at);
        }
        chain.reverse();
        chain
    }

    /// The shortest trace to state `i`, replayed from its parent links.
    fn trace(&mut self, i: usize) -> Trace {
        if self.sym.is_some() {
            return self.trace_by_replay(i);
        }
        let chain = self.chain(i);
        let steps: Vec<StepIds> = chain[1..]
            .iter()
            .map(|&s| StepIds {
                thread: self.parent[s].1 as usize,
                trans: self.parent[s].2,
                partner: self
                    .partner
                    .get(&(s as u32))
                    .map(|&(u, tr)| (u as usize, tr)),
                state: self.ids(s),
            })
            .collect();
        Trace::build(&self.exp, &self.ids(chain[0]), &steps)
    }

    /// With symmetry, parent links join canonical states, whose threads are
    /// permuted from one step to the next. A concrete trace is rebuilt by
    /// replaying from the (canonical, hence real) initial state: at each
    /// step, some thread's step leads to a state whose canonical form is the
    /// next one on the chain (TLC's technique).
    fn trace_by_replay(&mut self, i: usize) -> Trace {
        let chain = self.chain(i);
        let mut cur: Vec<u32> = self.visited.get(chain[0]);
        let initial = (cur[0], cur[1..].to_vec());
        let mut steps = Vec::new();
        for &next in &chain[1..] {
            let target = self.visited.get(next);
            let mut found = None;
            'threads: for t in 0..cur.len() - 1 {
                let succs = self.exp.successors(t, cur[0], cur[1 + t]);
                for st in &succs.steps {
                    let mut cand = cur.clone();
                    cand[0] = st.g;
                    cand[1 + t] = st.l;
                    let concrete = cand.clone();
                    if let Some(sym) = &self.sym {
                        sym.canonicalise(&mut cand);
                    }
                    if *cand == *target {
                        found = Some((t, st.trans, concrete));
                        break 'threads;
                    }
                }
            }
            // The chain was built from these very successors, so a step exists.
            let Some((t, trans, concrete)) = found else {
                break;
            };
            steps.push(StepIds {
                thread: t,
                trans,
                partner: None,
                state: (concrete[0], concrete[1..].to_vec()),
            });
            cur = concrete;
        }
        Trace::build(&self.exp, &initial, &steps)
    }
}

/// What one breadth-first search found.
struct Found {
    /// First violating state per checked property.
    violations: Vec<Option<usize>>,
    model_error: Option<(usize, String)>,
    transitions: u64,
    depth: usize,
    budget_hit: Option<String>,
    /// All properties violated: the search stopped there, as SPIN does.
    stopped_early: bool,
}

impl<'p> Search<'p> {
    fn new(prog: &'p Program, sym: Option<Symmetry>) -> Search<'p> {
        let mut s = Search {
            exp: Explorer::new(prog),
            sym,
            visited: StateStore::new(prog),
            scratch: Vec::new(),
            partner: FxHashMap::default(),
            parent: Vec::new(),
        };
        for (g, ls) in s.exp.initial_states() {
            let mut st = vec![g];
            st.extend(ls);
            if let Some(sym) = &s.sym {
                sym.canonicalise(&mut st);
            }
            if s.visited.insert(&st, &mut s.scratch).1 {
                s.parent.push((ROOT, 0, 0));
            }
        }
        s
    }

    /// Breadth-first search (BASIC STEP), checking the given properties on
    /// every state in BFS order, so the first violation found is shortest.
    fn bfs(&mut self, props: &[usize], budget: &Budget) -> Found {
        let prog = self.exp.prog;
        let n = prog.threads.len();
        let mut f = Found {
            violations: vec![None; props.len()],
            model_error: None,
            transitions: 0,
            depth: 0,
            budget_hit: None,
            stopped_early: false,
        };
        let mut level_end = self.visited.len();
        let mut progress = Progress::new();
        let mut i = 0;
        'search: while i < self.visited.len() {
            if i == level_end {
                f.depth += 1;
                level_end = self.visited.len();
            }
            if i.is_multiple_of(4096) {
                progress.update(self.visited.len(), f.depth);
            }
            let state = self.visited.get(i);
            let (g, locals) = (state[0], &state[1..]);
            for (k, &p) in props.iter().enumerate() {
                if f.violations[k].is_some() {
                    continue;
                }
                match property::holds(&prog.properties[p].error, &self.exp, g, locals) {
                    Ok(true) => f.violations[k] = Some(i),
                    Ok(false) => {}
                    Err(e) => {
                        if f.model_error.is_none() {
                            f.model_error = Some((
                                i,
                                format!(
                                    "evaluating property `{}`: {}",
                                    prog.properties[p].name, e.0
                                ),
                            ));
                        }
                    }
                }
            }
            if !props.is_empty() && f.violations.iter().all(Option::is_some) {
                f.stopped_early = true;
                break;
            }
            for t in 0..n {
                let succs = self.exp.successors(t, g, locals[t]);
                if let (Some((_, msg)), None) = (&succs.error, &f.model_error) {
                    f.model_error =
                        Some((i, format!("{} cannot move: {msg}", prog.threads[t].name)));
                }
                for step in &succs.steps {
                    f.transitions += 1;
                    let mut next = state.clone();
                    next[0] = step.g;
                    next[1 + t] = step.l;
                    if let Some(sym) = &self.sym {
                        sym.canonicalise(&mut next);
                    }
                    if self.visited.insert(&next, &mut self.scratch).1 {
                        self.parent.push((i as u32, t as u32, step.trans));
                        if let Some(why) = budget.exceeded(self.visited.len()) {
                            f.budget_hit = Some(why);
                            break 'search;
                        }
                    }
                }
            }
            if !prog.channels.is_empty() {
                // Rendezvous: two threads move together (DVE's `sync c!`/`c?`).
                let (steps, error) = self.exp.sync_steps(g, locals);
                if let (Some(msg), None) = (error, &f.model_error) {
                    f.model_error = Some((i, format!("a rendezvous cannot happen: {msg}")));
                }
                for st in steps {
                    f.transitions += 1;
                    let mut next = state.clone();
                    next[0] = st.g;
                    next[1 + st.sender] = st.l_send;
                    next[1 + st.receiver] = st.l_recv;
                    let (idx, new) = self.visited.insert(&next, &mut self.scratch);
                    if new {
                        self.parent
                            .push((i as u32, st.sender as u32, st.send_trans));
                        self.partner
                            .insert(idx as u32, (st.receiver as u32, st.recv_trans));
                        if let Some(why) = budget.exceeded(self.visited.len()) {
                            f.budget_hit = Some(why);
                            break 'search;
                        }
                    }
                }
            }
            i += 1;
        }
        f
    }
}

/// Every reachable state, as values: (globals, per-thread local stores).
/// For differential tests against the abstract engines.
pub fn reachable(prog: &Program) -> Vec<(Vec<Val>, Vec<Vec<Val>>)> {
    let mut s = Search::new(prog, None);
    s.bfs(&[], &Budget::new(&CheckOptions::default()));
    (0..s.visited.len())
        .map(|i| {
            let st = s.visited.get(i);
            let ls = (0..prog.threads.len())
                .map(|t| s.exp.local(t, st[1 + t]).to_vec())
                .collect();
            (s.exp.globals.get(st[0]).to_vec(), ls)
        })
        .collect()
}

pub fn run(prog: &Program, opts: &CheckOptions) -> Result<RunReport, String> {
    let start = Instant::now();
    let props = selected_properties(prog, &opts.properties);
    let sym = if opts.symmetry {
        Some(Symmetry::detect(prog)?)
    } else {
        None
    };
    let mut s = Search::new(prog, sym);
    let f = s.bfs(&props, &Budget::new(opts));
    let explored = s.visited.len();
    let depth = f.depth;
    let mut outcomes: Vec<Outcome> = props
        .iter()
        .zip(&f.violations)
        .map(|(&p, v)| {
            let property = prog.properties[p].name.clone();
            let (verdict, reason, trace) = match (v, &f.budget_hit) {
                (Some(idx), _) => {
                    let trace = s.trace(*idx);
                    (
                        Verdict::Unsafe,
                        format!("an error state is reachable in {} steps", trace.steps.len()),
                        Some(trace),
                    )
                }
                (None, Some(why)) => (
                    Verdict::Unknown,
                    format!(
                        "{why}; no error among the {explored} states explored (to depth {depth})"
                    ),
                    None,
                ),
                (None, None) => (
                    Verdict::Safe,
                    format!("no error state among all {explored} reachable states"),
                    None,
                ),
            };
            Outcome {
                property,
                verdict,
                reason,
                trace,
                witness: None,
            }
        })
        .collect();
    outcomes.push(match f.model_error {
        Some((idx, msg)) => {
            let mut trace = s.trace(idx);
            trace.failure = Some(msg.clone());
            model_error_outcome(
                Verdict::Unsafe,
                format!("a run-time error is reachable: {msg}"),
                Some(trace),
                None,
            )
        }
        None if f.budget_hit.is_some() => model_error_outcome(
            Verdict::Unknown,
            "no run-time error among the states explored before the budget ran out".into(),
            None,
            None,
        ),
        None if f.stopped_early => model_error_outcome(
            Verdict::Unknown,
            "not fully checked: the search stopped at the first property violations".into(),
            None,
            None,
        ),
        None => model_error_outcome(
            Verdict::Safe,
            "no run-time error (division by zero, index or range violation) is reachable".into(),
            None,
            None,
        ),
    });
    let mut stats = Stats::default();
    stats.push("states", explored as u64);
    stats.push("transitions", f.transitions);
    stats.push("depth", depth as u64);
    stats.push("packed_state_bytes", s.visited.packed_bytes() as u64);
    stats.push(
        "bytes_per_state",
        (s.visited.bytes_per_state() * 10.0).round() / 10.0,
    );
    if let Some(sym) = &s.sym {
        // The unreduced count, computed from the orbits (not enumerated).
        let full: Option<u128> = (0..explored).try_fold(0u128, |acc, i| {
            acc.checked_add(sym.orbit_size(&s.visited.get(i))?)
        });
        stats.push(
            "full_states",
            match full {
                Some(f) if f <= u64::MAX as u128 => Value::from(f as u64),
                Some(f) => Value::from(f.to_string()),
                None => Value::from("more than 2^128"),
            },
        );
    }
    stats.finish(start.elapsed());
    Ok(RunReport {
        model: prog.name.clone(),
        mode: crate::program::Mode::Standard,
        outcomes,
        stats,
        invariant: None,
    })
}
