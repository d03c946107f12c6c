//! cartesian-exc's fixpoint as the shared tail of the abstract modes sees
//! it (`abstract_report`): γ_E(γ_cart X) = γ_cart(X) ∪ E by global store
//! (Malkis, Podelski and Rybalchenko, Def. 5), witnesses, statistics and
//! the invariant.

use super::Cartesian;
use crate::engine::Mode;
use crate::engine::abstract_report::{self, AbstractFixpoint, Decide, Found};
use crate::engine::exceptions::{BitSet, Product};
use crate::engine::render_guard::RenderGuard;
use crate::engine::result::{Invariant, Limit, Stats, Witness, WitnessThread};
use crate::program::{EvalError, Explorer};

impl<'p> AbstractFixpoint<'p> for Cartesian<'p> {
    const MODE: Mode = Mode::CartesianExc;

    fn explorer(&self) -> &Explorer<'p> {
        &self.exp
    }

    /// γ_E(γ_cart X) = γ_cart(X) ∪ E: the Cartesian part's products and E's,
    /// by global store.
    fn find_error(&self, decide: &mut Decide) -> Result<Found, EvalError> {
        let mut products: Vec<(u32, &Product, &'static str)> = self
            .x
            .iter()
            .map(|(g, p)| (*g, p, "the Cartesian part"))
            .collect();
        for (g, ps) in &self.exceptions.by_global {
            products.extend(ps.iter().map(|p| (*g, p, "the exception set")));
        }
        products.sort_by_key(|(g, _, _)| *g);
        for (g, prod, part) in products {
            let cands: Vec<Vec<u32>> = prod.iter().map(|b| b.iter().collect()).collect();
            let refs: Vec<&[u32]> = cands.iter().map(Vec::as_slice).collect();
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

    /// The error state with each thread's derivation in the fixpoint.
    fn witness(&self, g: u32, choice: &[u32]) -> Witness {
        let mut w = abstract_report::plain_witness(&self.exp, g, choice);
        for (t, (wt, &l)) in w.threads.iter_mut().zip(choice).enumerate() {
            wt.derivation = self.derivation(t, g, l);
        }
        w
    }

    fn alarm_reason(&self, part: &str) -> String {
        alarm_reason(part)
    }

    fn unfinished_reason(&self, why: &str) -> String {
        unfinished_reason(why)
    }

    fn proved_reason(&self) -> String {
        proved_reason(self.exceptions.size())
    }

    fn model_error(&self) -> Option<(&str, Witness)> {
        let prog = self.exp.prog;
        self.model_error.as_ref().map(|(t, g, l, msg)| {
            let w = Witness {
                globals: prog.globals.render(self.exp.globals.get(*g)),
                threads: vec![WitnessThread {
                    thread: prog.threads[*t].name.clone(),
                    local: prog.template_of(*t).render_local(self.exp.local(*t, *l)),
                    derivation: self.derivation(*t, *g, *l),
                }],
            };
            (msg.as_str(), w)
        })
    }

    fn stats(&self) -> Stats {
        let mut stats = Stats::default();
        // `states` counts thread states (g, l) in the Cartesian part.
        stats.push(
            "states",
            self.x
                .values()
                .map(|p| p.iter().map(BitSet::len).sum::<usize>())
                .sum::<usize>() as u64,
        );
        stats.push("exception_products", self.exceptions.size() as u64);
        stats.push("transitions", self.posts);
        stats.push("rounds", self.rounds);
        if !self.exceptions.unmaximized.is_empty() {
            stats.push(
                "note",
                format!(
                    "the exception set is not a maximized antichain at {} (bound reached); exact cover checks used there, which can be slow",
                    crate::words::count(self.exceptions.unmaximized.len(), "global store")
                ),
            );
        }
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

/// cartesian-exc's wording, the same on classes (`symmetric_report.rs`)
/// and per thread.
pub(super) fn alarm_reason(part: &str) -> String {
    format!("alarm: an error state is in {part} of the over-approximation (possibly spurious)")
}

pub(super) fn unfinished_reason(why: &str) -> String {
    format!("{why} before the fixpoint was reached; no error in the part computed")
}

pub(super) fn proved_reason(exception_products: impl std::fmt::Display) -> String {
    format!(
        "proved: no error state in the Cartesian invariant with {}",
        crate::words::count(exception_products, "exception product")
    )
}
