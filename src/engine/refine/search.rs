//! The concrete check of an alarm in the exact part of the fixpoint: a
//! breadth-first search over concrete states that stays inside the
//! untainted products of D. Every state there is reachable and the
//! derivation of the alarm's product is a chain of exact posts from an
//! initial state, so a path to the error lies inside; the search finds a
//! shortest one among those paths and returns it as a trace that `standard`
//! would accept. Its steps are single threads' and rendezvous (a joint step
//! of two threads, recorded with the receiver as the step's partner).

use super::hybrid::Hybrid;
use crate::engine::Budget;
use crate::engine::result::Trace;
use crate::engine::trace::{StateIds, StepIds};
use crate::program::{CExpr, Explorer};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// What to look for.
pub(crate) enum Goal<'a> {
    /// A state satisfying the error predicate.
    Error(&'a CExpr),
    /// A state where a step fails with a run-time model error.
    ModelError,
}

/// The search's answer.
pub(crate) enum Found {
    /// A trace to the goal.
    Trace(Box<Trace>),
    /// No path inside the exact part (a bug if the alarm was exact).
    Nothing,
    /// A reachable state where the error predicate cannot be evaluated
    /// (the message): not an error of the property, as `standard` decides
    /// it, but a model error; the alarm was its failing evaluation.
    Unevaluable(String),
    /// A budget ran out first.
    Stopped(String),
}

fn inside(h: &Hybrid, (g, ls): &StateIds) -> bool {
    h.precise_products(*g)
        .any(|t| t.taint.is_empty() && t.product.iter().zip(ls).all(|(c, &l)| c.contains(l)))
}

/// Searches the exact part of `h` for `goal`.
pub(crate) fn search(exp: &mut Explorer, h: &Hybrid, goal: Goal, budget: &Budget) -> Found {
    let n = exp.prog.threads.len();
    let mut parent: FxHashMap<StateIds, Option<Link>> = FxHashMap::default();
    let mut queue: VecDeque<StateIds> = VecDeque::new();
    let mut unevaluable = None;
    for s in exp.initial_states() {
        if inside(h, &s) && !parent.contains_key(&s) {
            parent.insert(s.clone(), None);
            queue.push_back(s);
        }
    }
    while let Some(state) = queue.pop_front() {
        if let Some(why) = budget.exceeded_now(parent.len(), usize::MAX) {
            return Found::Stopped(why);
        }
        if let Goal::Error(e) = goal {
            match crate::property::holds(e, exp, state.0, &state.1) {
                Ok(true) => return Found::Trace(Box::new(trace(exp, &parent, &state, None))),
                Ok(false) => {}
                // Kept looking: a real error of the property wins.
                Err(why) => {
                    unevaluable.get_or_insert(*why.0);
                }
            }
        }
        for t in 0..n {
            let succs = exp.successors(t, state.0, state.1[t]);
            if let (Goal::ModelError, Some((_, msg))) = (&goal, &succs.error) {
                return Found::Trace(Box::new(trace(exp, &parent, &state, Some(msg.clone()))));
            }
            for step in &succs.steps {
                let mut ls = state.1.clone();
                ls[t] = step.l;
                let next = (step.g, ls);
                if !parent.contains_key(&next) && inside(h, &next) {
                    parent.insert(next.clone(), Some((state.clone(), t, step.trans, None)));
                    queue.push_back(next);
                }
            }
        }
        if exp.prog.channels.is_empty() {
            continue;
        }
        let (steps, error) = exp.sync_steps(state.0, &state.1);
        if let (Goal::ModelError, Some(msg)) = (&goal, error) {
            let msg = format!("a rendezvous cannot happen: {msg}");
            return Found::Trace(Box::new(trace(exp, &parent, &state, Some(msg))));
        }
        for st in steps {
            let mut ls = state.1.clone();
            ls[st.sender] = st.l_send;
            ls[st.receiver] = st.l_recv;
            let next = (st.g, ls);
            if !parent.contains_key(&next) && inside(h, &next) {
                let partner = Some((st.receiver, st.recv_trans));
                let link = (state.clone(), st.sender, st.send_trans, partner);
                parent.insert(next.clone(), Some(link));
                queue.push_back(next);
            }
        }
    }
    match unevaluable {
        Some(why) => Found::Unevaluable(why),
        // A step the budget cut short (`Succs::cut`, once the memo is full
        // and steps are computed again) may hide the path: not a bug.
        None => budget.hit_reason().map_or(Found::Nothing, Found::Stopped),
    }
}

/// How a state was reached: the state before, the moving thread and its
/// transition, and a rendezvous' receiver and its transition.
type Link = (StateIds, usize, u32, Option<(usize, u32)>);

fn trace(
    exp: &Explorer,
    parent: &FxHashMap<StateIds, Option<Link>>,
    last: &StateIds,
    failure: Option<String>,
) -> Trace {
    let mut steps = Vec::new();
    let mut at = last.clone();
    while let Some(Some((prev, thread, trans, partner))) = parent.get(&at) {
        steps.push(StepIds {
            thread: *thread,
            trans: *trans,
            partner: *partner,
            state: at.clone(),
        });
        at = prev.clone();
    }
    steps.reverse();
    let mut t = Trace::build(exp, &at, &steps);
    t.failure = failure;
    t
}
