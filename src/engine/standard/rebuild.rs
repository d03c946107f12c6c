//! `standard`'s counterexamples: the shortest trace to a state, rebuilt from
//! the visited set's parent links, or, under `--symmetry` (where parent
//! links join canonical states), by replaying successors from the initial
//! state until each step's canonical form matches the chain (TLC's
//! technique).

use super::Search;
use crate::engine::result::Trace;
use crate::engine::store::{ROOT, StateId};
use crate::engine::trace::{StateIds, StepIds};

impl Search<'_> {
    fn ids(&self, id: StateId) -> StateIds {
        let s = self.visited.get(id);
        (s[0], s[1..].to_vec())
    }

    /// State ids from an initial state to `id`, by parent links.
    fn chain(&self, id: StateId) -> Vec<StateId> {
        let mut chain = vec![id];
        let mut at = id;
        loop {
            let p = self.visited.parent(at).state;
            if p == ROOT {
                break;
            }
            chain.push(p);
            at = p;
        }
        chain.reverse();
        chain
    }

    /// The shortest trace to state `id`, replayed from its parent links.
    pub(super) fn trace(&mut self, id: StateId) -> Trace {
        if self.sym.is_some() {
            return self.trace_by_replay(id);
        }
        let chain = self.chain(id);
        let steps: Vec<StepIds> = chain[1..]
            .iter()
            .map(|&s| {
                let p = self.visited.parent(s);
                StepIds {
                    thread: p.thread as usize,
                    trans: p.trans as u32,
                    partner: self.visited.partner(s).map(|(u, tr)| (u as usize, tr)),
                    state: self.ids(s),
                }
            })
            .collect();
        Trace::build(&self.exp, &self.ids(chain[0]), &steps)
    }

    /// With symmetry, parent links join canonical states, whose threads are
    /// permuted from one step to the next. A concrete trace is rebuilt by
    /// replaying from the (canonical, hence real) initial state: at each
    /// step, some thread's step leads to a state whose canonical form is the
    /// next one on the chain (TLC's technique).
    fn trace_by_replay(&mut self, id: StateId) -> Trace {
        let chain = self.chain(id);
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
