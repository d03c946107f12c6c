//! `standard`: exact reachability over all interleavings (the papers' rules
//! BASIC INIT and BASIC STEP), by breadth-first search so that the first
//! error found has a shortest trace. The visited set keeps each state once;
//! a parent link per state rebuilds the trace (as TLC and stateright do).

use super::{Budget, CheckOptions, model_error_outcome, selected_properties};
use crate::program::{Explorer, Program, Verdict};
use crate::property;
use crate::report::{Outcome, RunReport, Stats};
use crate::trace::{StateIds, Trace};
use indexmap::IndexSet;
use rustc_hash::FxBuildHasher;
use std::time::Instant;

/// No parent: an initial state.
const ROOT: u32 = u32::MAX;

struct Search<'p> {
    exp: Explorer<'p>,
    /// States in BFS order; a state is `[g, l_1, .., l_n]`.
    visited: IndexSet<Box<[u32]>, FxBuildHasher>,
    /// Per state: parent index, moving thread, transition.
    parent: Vec<(u32, u32, u32)>,
}

impl Search<'_> {
    fn ids(&self, i: usize) -> StateIds {
        let s = &self.visited[i];
        (s[0], s[1..].to_vec())
    }

    /// The shortest trace to state `i`, replayed from its parent links.
    fn trace(&self, i: usize) -> Trace {
        let mut chain = vec![i];
        while self.parent[*chain.last().unwrap_or(&i)].0 != ROOT {
            let last = *chain.last().unwrap_or(&i);
            chain.push(self.parent[last].0 as usize);
        }
        chain.reverse();
        let steps: Vec<(usize, u32, StateIds)> = chain[1..]
            .iter()
            .map(|&s| (self.parent[s].1 as usize, self.parent[s].2, self.ids(s)))
            .collect();
        Trace::build(&self.exp, &self.ids(chain[0]), &steps)
    }
}

pub fn run(prog: &Program, opts: &CheckOptions) -> RunReport {
    let start = Instant::now();
    let props = selected_properties(prog, &opts.properties);
    let mut s = Search {
        exp: Explorer::new(prog),
        visited: IndexSet::with_hasher(FxBuildHasher),
        parent: Vec::new(),
    };
    for (g, ls) in s.exp.initial_states() {
        let mut st = vec![g];
        st.extend(ls);
        if s.visited.insert(st.into_boxed_slice()) {
            s.parent.push((ROOT, 0, 0));
        }
    }
    let n = prog.threads.len();
    // First violating state per selected property.
    let mut found: Vec<Option<usize>> = vec![None; props.len()];
    let mut model_error: Option<(usize, String)> = None;
    let mut transitions: u64 = 0;
    let mut depth = 0;
    let mut level_end = s.visited.len();
    let mut budget_hit: Option<String> = None;
    let mut stopped_early = false;
    let budget = Budget::new(opts);
    let mut i = 0;
    'search: while i < s.visited.len() {
        if i == level_end {
            depth += 1;
            level_end = s.visited.len();
        }
        let state = s.visited[i].clone();
        let (g, locals) = (state[0], &state[1..]);
        for (k, &p) in props.iter().enumerate() {
            if found[k].is_none() {
                match property::holds(&prog.properties[p].error, &s.exp, g, locals) {
                    Ok(true) => found[k] = Some(i),
                    Ok(false) => {}
                    Err(e) => {
                        if model_error.is_none() {
                            model_error = Some((i, format!("evaluating property `{}`: {}", prog.properties[p].name, e.0)));
                        }
                    }
                }
            }
        }
        if found.iter().all(Option::is_some) {
            // Every property has its counterexample: stop, as SPIN does.
            stopped_early = true;
            break;
        }
        for t in 0..n {
            let succs = s.exp.successors(t, g, locals[t]);
            if let (Some((_, msg)), None) = (&succs.error, &model_error) {
                model_error = Some((i, format!("{} cannot move: {msg}", prog.threads[t].name)));
            }
            for step in &succs.steps {
                transitions += 1;
                let mut next = state.clone();
                next[0] = step.g;
                next[1 + t] = step.l;
                if s.visited.insert(next) {
                    s.parent.push((i as u32, t as u32, step.trans));
                    if let Some(why) = budget.exceeded(s.visited.len()) {
                        budget_hit = Some(why);
                        break 'search;
                    }
                }
            }
        }
        i += 1;
    }
    let explored = s.visited.len();
    let mut outcomes: Vec<Outcome> = props
        .iter()
        .zip(&found)
        .map(|(&p, f)| {
            let name = prog.properties[p].name.clone();
            match f {
                Some(idx) => {
                    let trace = s.trace(*idx);
                    Outcome {
                        property: name,
                        verdict: Verdict::Unsafe,
                        reason: format!("an error state is reachable in {} steps", trace.steps.len()),
                        trace: Some(trace),
                        witness: None,
                    }
                }
                None => match &budget_hit {
                    Some(why) => Outcome {
                        property: name,
                        verdict: Verdict::Unknown,
                        reason: format!("{why}; no error among the {explored} states explored (to depth {depth})"),
                        trace: None,
                        witness: None,
                    },
                    None => Outcome {
                        property: name,
                        verdict: Verdict::Safe,
                        reason: format!("no error state among all {explored} reachable states"),
                        trace: None,
                        witness: None,
                    },
                },
            }
        })
        .collect();
    outcomes.push(match model_error {
        Some((idx, msg)) => {
            let mut trace = s.trace(idx);
            trace.failure = Some(msg.clone());
            model_error_outcome(Verdict::Unsafe, format!("a run-time error is reachable: {msg}"), Some(trace), None)
        }
        None if budget_hit.is_some() => model_error_outcome(Verdict::Unknown, "no run-time error among the states explored before the budget ran out".into(), None, None),
        None if stopped_early => model_error_outcome(Verdict::Unknown, "not fully checked: the search stopped at the first property violations".into(), None, None),
        None => model_error_outcome(Verdict::Safe, "no run-time error (division by zero, index or range violation) is reachable".into(), None, None),
    });
    let mut stats = Stats::default();
    stats.push("states", explored as u64);
    stats.push("transitions", transitions);
    stats.push("depth", depth as u64);
    stats.finish(start.elapsed());
    RunReport { model: prog.name.clone(), mode: crate::program::Mode::Standard, outcomes, stats, invariant: None }
}
