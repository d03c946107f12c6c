//! The class fixpoint (`symmetric.rs`) as the shared tail of the abstract
//! modes reads it: γ_E(γ_cart X) = γ_cart(X) ∪ E by global store (Malkis,
//! Podelski and Rybalchenko, Def. 5). The error predicates are symmetric
//! in the threads of a class (`classes.rs`), so deciding them on one
//! member of each orbit decides the orbit; that member hands the threads
//! of a class to the groups in thread order, so a witness names real
//! threads. Statistics count as the per-thread path does (thread states,
//! products of E), so the two paths print the same numbers but for posts
//! and rounds.

use super::symmetric::Symmetric;
use crate::engine::abstract_report::{self, AbstractFixpoint, Decide, Found};
use crate::engine::cartesian::query::ExceptionsBuilder;
use crate::engine::exceptions::BitSet;
use crate::engine::exceptions::orbits::{self, Orbit};
use crate::engine::render_guard::RenderGuard;
use crate::engine::result::{
    ClassProduct, Invariant, InvariantForm, Limit, RefinedExceptions, Stats, ThreadClass, Witness,
    WitnessThread,
};
use crate::engine::{Budget, Mode};
use crate::program::{EvalError, Explorer};

/// Thread cells (products × threads) that E read back per thread may
/// take at most (`Symmetric::exception_set`): 256 MiB of component ids.
const MAX_EXPANDED_CELLS: u64 = 1 << 26;

impl<'p> Symmetric<'p> {
    /// E per thread, as the per-thread path holds it: every member of
    /// every orbit, ordered by global store. That is the maximized
    /// antichain the per-thread path computes (Prop. 3: the maximal
    /// products of a union closed under permuting a class's threads are
    /// closed under it too; `orbits_agree_with_the_per_thread_antichain`).
    /// `None` when it would take more than `MAX_EXPANDED_CELLS`, or the
    /// time or memory `budget` runs out while it is made.
    pub(crate) fn exception_set(&self, budget: &Budget) -> Option<RefinedExceptions> {
        let threads = self.exp.prog.threads.len() as u64;
        if self.exceptions.size().saturating_mul(threads) > MAX_EXPANDED_CELLS {
            return None;
        }
        let mut gs: Vec<u32> = self.exceptions.by_global.keys().copied().collect();
        gs.sort_by(|a, b| self.exp.globals.get(*a).cmp(self.exp.globals.get(*b)));
        let mut out = ExceptionsBuilder::new(&self.exp);
        let mut pushed = 0u64;
        for g in gs {
            for o in self.exceptions.orbits(g) {
                // Per class: its groups' component ids and arrangements.
                let classes: Vec<(Vec<u32>, Vec<Vec<u32>>)> = o
                    .iter()
                    .enumerate()
                    .map(|(k, groups)| {
                        let t = self.classes.rep(k);
                        let ids = groups.iter().map(|(s, _)| out.component(t, s)).collect();
                        (ids, orbits::arrangements(groups))
                    })
                    .collect();
                // Every choice of one arrangement per class (an odometer).
                let mut pick = vec![0; classes.len()];
                'members: loop {
                    let member = classes
                        .iter()
                        .zip(&pick)
                        .flat_map(|((ids, arrangements), &i)| {
                            arrangements[i].iter().map(|&group| ids[group as usize])
                        })
                        .collect();
                    out.push(g, member);
                    pushed += 1;
                    if pushed.is_multiple_of(1024) && budget.time_or_memory_exceeded().is_some() {
                        return None;
                    }
                    let mut k = classes.len();
                    loop {
                        if k == 0 {
                            break 'members;
                        }
                        k -= 1;
                        pick[k] += 1;
                        if pick[k] < classes[k].1.len() {
                            break;
                        }
                        pick[k] = 0;
                    }
                }
            }
        }
        Some(out.finish())
    }

    /// Y(g) as an orbit: one group per class, of all its threads.
    fn as_orbit(&self, y: &[BitSet]) -> Orbit {
        y.iter()
            .enumerate()
            .map(|(k, s)| vec![(s.clone(), self.classes.size(k))])
            .collect()
    }

    /// `{g} × o` as data.
    fn class_product(&self, g: u32, o: &Orbit) -> ClassProduct {
        let prog = self.exp.prog;
        ClassProduct {
            global: prog.globals.render(self.exp.globals.get(g)),
            classes: o
                .iter()
                .enumerate()
                .map(|(k, groups)| {
                    let t = self.classes.rep(k);
                    groups
                        .iter()
                        .map(|(s, m)| {
                            let locals = s
                                .iter()
                                .map(|l| prog.template_of(t).render_local(self.exp.local(t, l)))
                                .collect();
                            (*m as u64, locals)
                        })
                        .collect()
                })
                .collect(),
        }
    }

    fn invariant_form(&self, guard: &RenderGuard) -> InvariantForm {
        let prog = self.exp.prog;
        let order = |gs: &mut Vec<u32>| {
            gs.sort_by(|a, b| self.exp.globals.get(*a).cmp(self.exp.globals.get(*b)))
        };
        let mut gs: Vec<u32> = self.y.keys().copied().collect();
        order(&mut gs);
        let products = gs
            .iter()
            .take_while(|_| guard.go_on())
            .map(|&g| self.class_product(g, &self.as_orbit(&self.y[&g])))
            .collect();
        let mut eg: Vec<u32> = self.exceptions.by_global.keys().copied().collect();
        order(&mut eg);
        let exceptions = eg
            .iter()
            .flat_map(|&g| {
                self.exceptions
                    .orbits(g)
                    .iter()
                    .map(move |o| self.class_product(g, o))
            })
            .take_while(|_| guard.go_on())
            .collect();
        let classes = self
            .classes
            .ranges
            .iter()
            .map(|r| {
                let t = r.start;
                let tpl = prog.template_of(t);
                ThreadClass {
                    name: if r.len() == tpl.count as usize {
                        tpl.name.clone()
                    } else {
                        prog.threads[t].name.clone()
                    },
                    threads: r.clone().map(|t| prog.threads[t].name.clone()).collect(),
                }
            })
            .collect();
        InvariantForm::CartesianClasses {
            classes,
            products,
            exceptions,
        }
    }
}

impl<'p> AbstractFixpoint<'p> for Symmetric<'p> {
    const MODE: Mode = Mode::CartesianExc;

    fn explorer(&self) -> &Explorer<'p> {
        &self.exp
    }

    /// As the per-thread path: by global store, the Cartesian part before
    /// E, each product decided on one member of its orbit.
    fn find_error(&self, decide: &mut Decide) -> Result<Found, EvalError> {
        let mut products: Vec<(u32, Orbit, &'static str)> = self
            .y
            .iter()
            .map(|(g, y)| (*g, self.as_orbit(y), "the Cartesian part"))
            .collect();
        for (g, os) in &self.exceptions.by_global {
            products.extend(os.iter().map(|o| (*g, o.clone(), "the exception set")));
        }
        products.sort_by_key(|(g, _, _)| *g);
        for (g, o, part) in products {
            // One candidate list per group, shared by its threads.
            let lists: Vec<Vec<u32>> = o
                .iter()
                .flatten()
                .map(|(s, _)| s.iter().collect())
                .collect();
            let mut refs: Vec<&[u32]> = Vec::with_capacity(self.universe.len());
            for (list, (_, m)) in lists.iter().zip(o.iter().flatten()) {
                refs.extend(std::iter::repeat_n(list.as_slice(), *m as usize));
            }
            if let Some(choice) = decide(g, &refs)? {
                return Ok(Some((g, choice, part)));
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

    /// The error state, threads in order (no derivations are kept on
    /// classes).
    fn witness(&self, g: u32, choice: &[u32]) -> Witness {
        abstract_report::plain_witness(&self.exp, g, choice)
    }

    fn alarm_reason(&self, part: &str) -> String {
        super::report::alarm_reason(part)
    }

    fn unfinished_reason(&self, why: &str) -> String {
        super::report::unfinished_reason(why)
    }

    fn proved_reason(&self) -> String {
        super::report::proved_reason(self.exceptions.size())
    }

    fn model_error(&self) -> Option<(&str, Witness)> {
        let prog = self.exp.prog;
        self.model_error.as_ref().map(|(t, g, l, msg)| {
            let w = Witness {
                globals: prog.globals.render(self.exp.globals.get(*g)),
                threads: vec![WitnessThread {
                    thread: prog.threads[*t].name.clone(),
                    local: prog.template_of(*t).render_local(self.exp.local(*t, *l)),
                    derivation: Vec::new(),
                }],
            };
            (msg.as_str(), w)
        })
    }

    fn stats(&self) -> Stats {
        let mut stats = Stats::default();
        // Thread states (g, l) in the Cartesian part, as the per-thread
        // path counts them: each class's set once per thread.
        let states: u64 = self
            .y
            .values()
            .map(|y| {
                y.iter()
                    .enumerate()
                    .map(|(k, s)| s.len() as u64 * self.classes.size(k) as u64)
                    .sum::<u64>()
            })
            .sum();
        stats.push("states", states);
        stats.push("exception_products", self.exceptions.size());
        stats.push("transitions", self.posts);
        stats.push("rounds", self.rounds);
        stats.push("thread_classes", self.classes.len() as u64);
        stats
    }

    fn invariant(&self, guard: &RenderGuard) -> Invariant {
        Invariant {
            form: self.invariant_form(guard),
            globals: self.exp.prog.globals.clone(),
            blocks: false,
        }
    }
}
