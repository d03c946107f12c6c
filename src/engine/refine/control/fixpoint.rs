//! The abstract fixpoint of `--refine control`: Flanagan and Qadeer's
//! thread-modular rules (§2.2) where each thread also sees the others'
//! locations up to a partition — the control abstraction of Gupta, Popeea
//! and Rybalchenko (§5; their client algorithm is thread-modular too).
//!
//! The class of every thread's location is kept as a *control vector* K
//! beside the global store, as if it were a shared variable: a fact of
//! thread t is (g, K, l) with K[t] = class(l) (and, at the few locations
//! data refinement has exploded, l itself). A step of t from (g, K, l)
//! to (g', l') gives t the fact (g', K[t := class(l')], l') and guarantees
//! the edge (g, K) → (g', K'); another thread u at (g, K, l_u) takes it to
//! (g', K', l_u). Matching the whole vector makes u apply only moves that t
//! made while the classes of u and of every third thread were as u sees
//! them. With one class per template this is plain thread-modular; with a
//! class per location every thread sees the others' locations exactly.
//!
//! γ = { (g, l_1..l_n) | (g, K, l_t) ∈ R_t for every t, K[t] = class(l_t) }
//! contains the initial states and is closed under every thread's step, so
//! it is an inductive invariant for any partition.
//!
//! Each fact remembers its first derivation, from which `path` rebuilds the
//! abstract counterexample: the thread's own steps with the other threads'
//! guaranteed steps spliced in, which is the shape of the paper's paths
//! (§2: "1, 2, 3, 4, 5, 13, 6, 7, 17, 8").

use super::partition::Partition;
use crate::engine::trace::StateIds;
use crate::engine::{Budget, POLL_EVERY};
use crate::program::Explorer;
use crate::program::explore::Interner;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

/// How a fact was first derived.
#[derive(Clone, Copy, Debug)]
enum Origin {
    /// From the initial state with this index (in `initial`).
    Init(u32),
    /// The thread's own step from (g, k, l) by a transition.
    Step { g: u32, k: u32, l: u32, trans: u32 },
    /// Another thread's guaranteed step from (g, k).
    Env { g: u32, k: u32, by: u32 },
}

/// The step of the thread that first guaranteed an edge.
#[derive(Clone, Copy, Debug)]
struct Producer {
    l: u32,
    l2: u32,
    trans: u32,
}

/// One step of an abstract counterexample: `thread` moves from (g, l) to
/// (g2, l2) by `trans`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PathStep {
    pub(crate) thread: usize,
    pub(crate) g: u32,
    pub(crate) l: u32,
    pub(crate) g2: u32,
    pub(crate) l2: u32,
    pub(crate) trans: u32,
}

/// A (global store, control vector) pair: the extended shared state.
type Shared = (u32, u32);

/// The facts of γ at one shared state: per thread, its local stores.
pub(crate) type Product<'a> = (Shared, Vec<&'a [u32]>);

/// A run-time model error met by a thread's step from a fact.
#[derive(Clone, Debug)]
pub(crate) struct ModelError {
    pub(crate) thread: usize,
    pub(crate) g: u32,
    pub(crate) k: u32,
    pub(crate) l: u32,
    pub(crate) message: String,
}

/// Model errors kept per fixpoint (each names a path to analyse).
const MAX_MODEL_ERRORS: usize = 16;

/// (R, G) over global stores and control vectors.
pub(crate) struct ControlFixpoint {
    /// The initial states, by index.
    pub(crate) initial: Vec<StateIds>,
    /// Control vectors, interned: per thread, what `view` gives.
    pub(crate) vectors: Interner,
    /// R per thread: (g, k, l) → first derivation.
    reach: Vec<FxHashMap<(u32, u32, u32), Origin>>,
    /// R per thread by (g, k).
    by_gk: Vec<FxHashMap<Shared, Vec<u32>>>,
    /// G: (thread, g, k, g2, k2) → the step that first guaranteed it.
    edges: FxHashMap<(u32, u32, u32, u32, u32), Producer>,
    /// G by source: (thread, g2, k2) per (g, k).
    edges_from: FxHashMap<Shared, Vec<(u32, u32, u32)>>,
    worklist: VecDeque<(u32, u32, u32, u32)>,
    size: usize,
    /// `--max-states`: the most facts kept (see `add`).
    cap: usize,
    pub(crate) model_errors: Vec<ModelError>,
    pub(crate) rule_applications: u64,
    /// Set when a budget stopped the computation (the result is partial).
    pub(crate) stopped: Option<String>,
}

impl ControlFixpoint {
    /// The least fixpoint for `part`, or a partial one when `budget` runs out.
    pub(crate) fn compute(exp: &mut Explorer, part: &Partition, budget: &Budget) -> Self {
        let n = exp.prog.threads.len();
        let mut fx = ControlFixpoint {
            initial: exp.initial_states(),
            vectors: Interner::default(),
            reach: vec![FxHashMap::default(); n],
            by_gk: vec![FxHashMap::default(); n],
            edges: FxHashMap::default(),
            edges_from: FxHashMap::default(),
            worklist: VecDeque::new(),
            size: 0,
            cap: budget.max_states().unwrap_or(usize::MAX),
            model_errors: Vec::new(),
            rule_applications: 0,
            stopped: None,
        };
        for i in 0..fx.initial.len() {
            let (g, ls) = fx.initial[i].clone();
            let vector: Vec<i32> = (0..n).flat_map(|t| view(exp, part, t, ls[t])).collect();
            let k = fx.vectors.intern(&vector);
            for (t, &l) in ls.iter().enumerate() {
                fx.add(t, g, k, l, Origin::Init(i as u32));
            }
        }
        let mut popped = 0u32;
        while let Some((t, g, k, l)) = fx.worklist.pop_front() {
            budget.progress(fx.size, "thread states", fx.worklist.len(), None);
            // As thread-modular: the clock every `POLL_EVERY` facts
            // processed, the state budget (exact, see `add`) on every one.
            popped = popped.wrapping_add(1);
            let why = if popped.is_multiple_of(POLL_EVERY) {
                budget.exceeded_now(fx.size, usize::MAX)
            } else {
                budget.exceeded(fx.size)
            };
            if let Some(why) = why {
                fx.stopped = Some(format!("{why} ({} thread states)", fx.size));
                break;
            }
            fx.process(exp, part, t as usize, g, k, l);
        }
        // A step the budget cut short (`Succs::cut`) left facts out, even
        // in the last one: not a fixpoint.
        if fx.stopped.is_none()
            && let Some(why) = budget.hit_reason()
        {
            fx.stopped = Some(format!("{why} ({} thread states)", fx.size));
        }
        fx
    }

    fn add(&mut self, t: usize, g: u32, k: u32, l: u32, origin: Origin) {
        self.rule_applications += 1;
        // `--max-states`: no fact beyond it, so the size stops exactly there.
        if self.size >= self.cap {
            return;
        }
        if let std::collections::hash_map::Entry::Vacant(v) = self.reach[t].entry((g, k, l)) {
            v.insert(origin);
            self.size += 1;
            self.by_gk[t].entry((g, k)).or_default().push(l);
            self.worklist.push_back((t as u32, g, k, l));
        }
    }

    fn process(&mut self, exp: &mut Explorer, part: &Partition, t: usize, g: u32, k: u32, l: u32) {
        // (AG STEP), and the guarantee each step gives.
        let succs = exp.successors(t, g, l);
        if let Some((_, message)) = &succs.error
            && self.model_errors.len() < MAX_MODEL_ERRORS
        {
            self.model_errors.push(ModelError {
                thread: t,
                g,
                k,
                l,
                message: message.clone(),
            });
        }
        for s in &succs.steps {
            let mut vector = self.vectors.get(k).to_vec();
            vector[2 * t..2 * t + 2].copy_from_slice(&view(exp, part, t, s.l));
            let k2 = self.vectors.intern(&vector);
            let origin = Origin::Step {
                g,
                k,
                l,
                trans: s.trans,
            };
            self.add(t, s.g, k2, s.l, origin);
            let producer = Producer {
                l,
                l2: s.l,
                trans: s.trans,
            };
            self.add_edge(t, (g, k), (s.g, k2), producer);
        }
        // (AG ENV): the others' guaranteed steps from (g, k). Taken out
        // while facts are added (adding facts adds no edges).
        if let Some(edges) = self.edges_from.remove(&(g, k)) {
            for &(by, g2, k2) in &edges {
                if by as usize != t && (g2, k2) != (g, k) {
                    self.add(t, g2, k2, l, Origin::Env { g, k, by });
                }
            }
            self.edges_from.insert((g, k), edges);
        }
    }

    fn add_edge(&mut self, by: usize, (g, k): (u32, u32), (g2, k2): (u32, u32), p: Producer) {
        let key = (by as u32, g, k, g2, k2);
        if self.edges.contains_key(&key) {
            return;
        }
        self.edges.insert(key, p);
        self.edges_from
            .entry((g, k))
            .or_default()
            .push((by as u32, g2, k2));
        if (g, k) == (g2, k2) {
            return; // nobody's view changes
        }
        for t in (0..self.reach.len()).filter(|&t| t != by) {
            if let Some(ls) = self.by_gk[t].remove(&(g, k)) {
                for &l in &ls {
                    self.add(
                        t,
                        g2,
                        k2,
                        l,
                        Origin::Env {
                            g,
                            k,
                            by: by as u32,
                        },
                    );
                }
                self.by_gk[t].insert((g, k), ls);
            }
        }
    }

    /// |R|, all threads together.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// |G|.
    pub(crate) fn guarantee_size(&self) -> usize {
        self.edges.len()
    }

    /// The products of γ: per (g, K) where every thread has a fact, the
    /// candidate local stores of each thread, ordered by (g, K).
    pub(crate) fn products(&self) -> Vec<Product<'_>> {
        let mut keys: Vec<Shared> = self.by_gk[0]
            .keys()
            .copied()
            .filter(|gk| self.by_gk.iter().all(|r| r.contains_key(gk)))
            .collect();
        keys.sort_unstable();
        keys.into_iter()
            .map(|gk| (gk, self.by_gk.iter().map(|r| r[&gk].as_slice()).collect()))
            .collect()
    }

    /// Is (g, l_1..l_n) in γ?
    #[cfg(test)]
    pub(crate) fn covers(&self, exp: &Explorer, part: &Partition, (g, ls): &StateIds) -> bool {
        let vector: Vec<i32> = (0..ls.len())
            .flat_map(|t| view(exp, part, t, ls[t]))
            .collect();
        let Some(k) = self.vectors.lookup(&vector) else {
            return false;
        };
        ls.iter()
            .enumerate()
            .all(|(t, &l)| self.reach[t].contains_key(&(*g, k, l)))
    }

    /// R projected to (global store, local store) values, per thread.
    #[cfg(test)]
    pub(crate) fn reach_values(
        &self,
        exp: &Explorer,
        t: usize,
    ) -> FxHashSet<(Vec<crate::program::Val>, Vec<crate::program::Val>)> {
        self.reach[t]
            .keys()
            .map(|&(g, _, l)| (exp.globals.get(g).to_vec(), exp.local(t, l).to_vec()))
            .collect()
    }

    /// The abstract counterexample that first derived (t, g, k, l): the
    /// initial state it starts from and the steps, oldest first.
    pub(crate) fn path(&self, t: usize, g: u32, k: u32, l: u32) -> (usize, Vec<PathStep>) {
        let mut steps = Vec::new();
        let (mut g, mut k, mut l) = (g, k, l);
        let mut seen = FxHashSet::default();
        // Origins point to facts derived earlier, so this ends; the set
        // only guards against a bug looping forever.
        while seen.insert((g, k, l)) {
            match self.reach[t].get(&(g, k, l)) {
                None | Some(Origin::Init(_)) => break,
                Some(&Origin::Step {
                    g: g0,
                    k: k0,
                    l: l0,
                    trans,
                }) => {
                    steps.push(PathStep {
                        thread: t,
                        g: g0,
                        l: l0,
                        g2: g,
                        l2: l,
                        trans,
                    });
                    (g, k, l) = (g0, k0, l0);
                }
                Some(&Origin::Env { g: g0, k: k0, by }) => {
                    if let Some(p) = self.edges.get(&(by, g0, k0, g, k)) {
                        steps.push(PathStep {
                            thread: by as usize,
                            g: g0,
                            l: p.l,
                            g2: g,
                            l2: p.l2,
                            trans: p.trans,
                        });
                    }
                    (g, k) = (g0, k0);
                }
            }
        }
        let init = match self.reach[t].get(&(g, k, l)) {
            Some(&Origin::Init(i)) => i as usize,
            _ => 0,
        };
        steps.reverse();
        (init, steps)
    }
}

/// What the others see of thread `t` at local store `l`: the class of its
/// location and, at an exploded location, the local store itself.
fn view(exp: &Explorer, part: &Partition, t: usize, l: u32) -> [i32; 2] {
    let (tpl, location) = (exp.template_id(t), exp.local(t, l)[0] as u16);
    let data = match part.exploded(tpl, location) {
        true => l as i32 + 1,
        false => 0,
    };
    [part.class(tpl, location) as i32, data]
}
