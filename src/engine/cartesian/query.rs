//! What the fixpoint holds, asked from outside: the invariant as the paper
//! prints it (Malkis, Podelski and Rybalchenko, Prop. 9: per global store
//! one product, then E), and, for the tests, membership of a concrete state
//! in γ_cart(X) ∪ E and the Cartesian part as values.

use super::Cartesian;
use crate::engine::exceptions::{BitSet, Product};
use crate::engine::render_guard::RenderGuard;
use crate::engine::result::{AbstractProduct, InvariantForm, RefinedExceptions, Store, runs};
use crate::program::Explorer;
use rustc_hash::FxHashMap;
#[cfg(test)]
use {crate::program::Val, rustc_hash::FxHashSet};

/// A product as values: (global store, per-thread sets of local stores).
#[cfg(test)]
pub(crate) type ProductValues = (Vec<Val>, Vec<Vec<Vec<Val>>>);

impl Cartesian<'_> {
    /// Is the concrete state in γ_cart(X) ∪ E?
    #[cfg(test)]
    pub(crate) fn contains(&self, g: u32, ls: &[u32]) -> bool {
        let in_x = self
            .x
            .get(&g)
            .is_some_and(|p| p.iter().zip(ls).all(|(c, &l)| c.contains(l)));
        in_x || self.exceptions.contains(g, ls)
    }

    /// Is the concrete state, given by values, in γ_cart(X) ∪ E?
    #[cfg(test)]
    pub(crate) fn contains_values(&self, g: &[Val], ls: &[Vec<Val>]) -> bool {
        self.ids_of(g, ls)
            .is_some_and(|(g, ids)| self.contains(g, &ids))
    }

    /// Is the concrete state, given by values, in E?
    #[cfg(test)]
    pub(crate) fn exceptions_contain_values(&self, g: &[Val], ls: &[Vec<Val>]) -> bool {
        self.ids_of(g, ls)
            .is_some_and(|(g, ids)| self.exceptions.contains(g, &ids))
    }

    /// The interned ids of a state given by values; `None` if some store
    /// never occurred (then the state is in neither X nor E).
    #[cfg(test)]
    fn ids_of(&self, g: &[Val], ls: &[Vec<Val>]) -> Option<(u32, Vec<u32>)> {
        let g = self.exp.globals.lookup(g)?;
        let ids: Option<Vec<u32>> = ls
            .iter()
            .enumerate()
            .map(|(t, l)| self.exp.locals[self.exp.template_id(t)].lookup(l))
            .collect();
        Some((g, ids?))
    }

    /// Thread t's states (g, l) in the Cartesian part, as values.
    #[cfg(test)]
    pub(crate) fn thread_states(&self, t: usize) -> FxHashSet<(Vec<Val>, Vec<Val>)> {
        self.x
            .iter()
            .flat_map(|(g, p)| {
                p[t].iter().map(move |l| {
                    (
                        self.exp.globals.get(*g).to_vec(),
                        self.exp.local(t, l).to_vec(),
                    )
                })
            })
            .collect()
    }

    /// The products of the Cartesian part as values: (globals, per-thread
    /// sets of local stores).
    #[cfg(test)]
    pub(crate) fn products(&self) -> Vec<ProductValues> {
        self.x
            .iter()
            .map(|(g, p)| {
                let comps = p
                    .iter()
                    .enumerate()
                    .map(|(t, c)| c.iter().map(|l| self.exp.local(t, l).to_vec()).collect())
                    .collect();
                (self.exp.globals.get(*g).to_vec(), comps)
            })
            .collect()
    }

    fn product(&self, g: u32, p: &Product) -> AbstractProduct {
        abstract_product(&self.exp, g, p)
    }

    /// E, ordered by the global store's values (as the invariant prints
    /// it), for `refine` when the model's own set proves every property.
    pub(crate) fn exception_set(&self) -> RefinedExceptions {
        let mut eg: Vec<u32> = self.exceptions.by_global.keys().copied().collect();
        eg.sort_by(|a, b| self.exp.globals.get(*a).cmp(self.exp.globals.get(*b)));
        refined_exceptions(
            &self.exp,
            eg.iter()
                .flat_map(|&g| self.exceptions.products(g).iter().map(move |p| (g, p))),
        )
    }

    /// The fixpoint as the paper prints it: per global store, a product;
    /// then E; both ordered by global store.
    pub(crate) fn invariant_form(&self, guard: &RenderGuard) -> InvariantForm {
        let mut gs: Vec<u32> = self.x.keys().copied().collect();
        gs.sort_by(|a, b| self.exp.globals.get(*a).cmp(self.exp.globals.get(*b)));
        let products = gs
            .iter()
            .take_while(|_| guard.go_on())
            .map(|&g| self.product(g, &self.x[&g]))
            .collect();
        // E's products share their components, as refine's do.
        let exceptions = self
            .exception_set()
            .products()
            .take_while(|_| guard.go_on())
            .collect();
        InvariantForm::Cartesian {
            products,
            exceptions,
        }
    }
}

/// The products `{g} × p` as `RefinedExceptions`, in the order given, each
/// local store and each component rendered once.
pub(crate) fn refined_exceptions<'a>(
    exp: &Explorer,
    products: impl Iterator<Item = (u32, &'a Product)>,
) -> RefinedExceptions {
    let mut out = ExceptionsBuilder::new(exp);
    for (g, p) in products {
        let ids = p
            .iter()
            .enumerate()
            .map(|(t, c)| out.component(t, c))
            .collect();
        out.push(g, ids);
    }
    out.finish()
}

/// Builds `RefinedExceptions` product by product, rendering each global
/// store, local store and component once however many products name it.
pub(crate) struct ExceptionsBuilder<'e, 'p> {
    exp: &'e Explorer<'p>,
    locals: Vec<Store>,
    local_ids: FxHashMap<(usize, u32), u32>,
    components: Vec<Vec<u32>>,
    /// Per template: its components' ids.
    component_ids: Vec<FxHashMap<BitSet, u32>>,
    globals: FxHashMap<u32, Store>,
    /// Per product its global store and its components as runs.
    products: Vec<(Store, Vec<(u32, u32)>)>,
}

impl<'e, 'p> ExceptionsBuilder<'e, 'p> {
    pub(crate) fn new(exp: &'e Explorer<'p>) -> Self {
        ExceptionsBuilder {
            exp,
            locals: Vec::new(),
            local_ids: FxHashMap::default(),
            components: Vec::new(),
            component_ids: vec![FxHashMap::default(); exp.prog.templates.len()],
            globals: FxHashMap::default(),
            products: Vec::new(),
        }
    }

    /// The id of thread `t`'s component `c` (a set of its local stores).
    pub(crate) fn component(&mut self, t: usize, c: &BitSet) -> u32 {
        let exp = self.exp;
        let template = exp.template_id(t);
        if let Some(&id) = self.component_ids[template].get(c) {
            return id;
        }
        let members = c
            .iter()
            .map(|l| {
                *self.local_ids.entry((template, l)).or_insert_with(|| {
                    self.locals
                        .push(exp.prog.template_of(t).render_local(exp.local(t, l)));
                    self.locals.len() as u32 - 1
                })
            })
            .collect();
        self.components.push(members);
        let id = self.components.len() as u32 - 1;
        self.component_ids[template].insert(c.clone(), id);
        id
    }

    /// Adds the product `{g} × components` (one component id per thread).
    pub(crate) fn push(&mut self, g: u32, components: Vec<u32>) {
        let exp = self.exp;
        let global = self
            .globals
            .entry(g)
            .or_insert_with(|| exp.prog.globals.render(exp.globals.get(g)))
            .clone();
        self.products.push((global, runs(&components)));
    }

    pub(crate) fn finish(self) -> RefinedExceptions {
        let threads = self
            .exp
            .prog
            .threads
            .iter()
            .map(|t| t.name.clone())
            .collect();
        RefinedExceptions::new(threads, self.locals, self.components, self.products)
    }
}

/// `{g} × p` as data.
pub(crate) fn abstract_product(exp: &Explorer, g: u32, p: &Product) -> AbstractProduct {
    let prog = exp.prog;
    AbstractProduct {
        global: prog.globals.render(exp.globals.get(g)),
        threads: p
            .iter()
            .enumerate()
            .map(|(t, c)| {
                c.iter()
                    .map(|l| prog.template_of(t).render_local(exp.local(t, l)))
                    .collect()
            })
            .collect(),
    }
}
