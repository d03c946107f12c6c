//! The abstract fixpoints as data: thread-modular's R and G per thread,
//! cartesian-exc's products (per thread or over classes of interchangeable
//! threads) and E, and the exception set `refine` ends with. `--show
//! invariant` renders them (`crate::report`); `refine` hands E back.

use super::Store;
use crate::program::Layout;
use std::sync::Arc;

/// The abstract fixpoint an abstract mode computed (the inductive invariant
/// when the verdict is safe).
#[derive(Clone, Debug)]
pub struct Invariant {
    /// Its shape, by mode.
    pub form: InvariantForm,
    /// The global variables' layout, to describe sets of global stores.
    pub(crate) globals: Layout,
    /// Computed with `--blocks`: R holds thread states at Out locations
    /// only, and G the effect of whole blocks.
    pub blocks: bool,
}

/// The shapes of abstract fixpoints.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum InvariantForm {
    /// Flanagan–Qadeer: per thread, its reachable (global, local) pairs R
    /// and its guarantee G.
    ThreadModular(Vec<ThreadSummary>),
    /// Malkis–Podelski–Rybalchenko: per global store a product of local
    /// store sets (the Cartesian part), then the exception set E.
    Cartesian {
        /// The Cartesian part, one product per global store.
        products: Vec<AbstractProduct>,
        /// The exception set E, as products.
        exceptions: Vec<AbstractProduct>,
    },
    /// cartesian-exc on classes of interchangeable threads: per global
    /// store one product with one component per class (every thread of the
    /// class takes it), then E as orbits (docs/output.md).
    CartesianClasses {
        /// The classes, in thread order.
        classes: Vec<ThreadClass>,
        /// The Cartesian part, one product per global store (one group
        /// per class, of all its threads).
        products: Vec<ClassProduct>,
        /// The exception set E, one member per orbit.
        exceptions: Vec<ClassProduct>,
    },
    /// `refine --refine control` (Gupta, Popeea and Rybalchenko): the
    /// partition of each template's locations, and γ as products, one per
    /// global store and vector of the threads' classes.
    Control {
        /// Per template: its name and its classes as location names.
        classes: Vec<(String, Vec<Vec<String>>)>,
        /// Locations whose local stores the other threads see (data
        /// refinement), as `template@location`.
        data_locations: Vec<String>,
        /// γ: the union of these products.
        products: Vec<AbstractProduct>,
    },
    /// Not rendered, and why: rendering it would have passed the run's
    /// memory or time budget (the verdicts stand).
    NotShown(String),
}

/// The exception set E a `refine` run ended with: products of local stores
/// per global store, by thread. `cartesian-exc` given these products as its
/// exception set computes the same invariant in one pass.
///
/// Held compactly: each component (one thread's set of local stores)
/// once, shared by the products that name it, and by the products
/// `products` hands out (lock(1000, 9)'s 1000 products of 1000 threads
/// took 4 GB as lists).
#[derive(Clone, Debug)]
pub struct RefinedExceptions {
    threads: Vec<String>,
    /// The distinct components.
    components: Vec<Arc<[Store]>>,
    /// The products: the global store, and per thread its component, as
    /// runs of (component, threads): the threads of a family mostly take
    /// the same set (simple-bool(2000)'s 8000 products of 2000 threads
    /// took 64 MB as one id per thread, and a run stopped by its memory
    /// budget made them after it stopped).
    products: Vec<(Store, Vec<(u32, u32)>)>,
}

impl RefinedExceptions {
    /// `components` name their local stores by index into `locals`; each
    /// product names its components as `runs` makes them.
    pub(crate) fn new(
        threads: Vec<String>,
        locals: Vec<Store>,
        components: Vec<Vec<u32>>,
        products: Vec<(Store, Vec<(u32, u32)>)>,
    ) -> RefinedExceptions {
        let components = components
            .iter()
            .map(|c| c.iter().map(|&l| locals[l as usize].clone()).collect())
            .collect();
        RefinedExceptions {
            threads,
            components,
            products,
        }
    }

    /// The thread instances' names, in the products' thread order.
    pub fn threads(&self) -> &[String] {
        &self.threads
    }

    /// How many products E has.
    pub fn len(&self) -> usize {
        self.products.len()
    }

    /// Whether E is empty.
    pub fn is_empty(&self) -> bool {
        self.products.is_empty()
    }

    /// The products, their components shared with the set's.
    pub fn products(&self) -> impl Iterator<Item = AbstractProduct> + '_ {
        self.products.iter().map(|(global, runs)| AbstractProduct {
            global: global.clone(),
            threads: per_thread(runs)
                .map(|c| self.components[c as usize].clone())
                .collect(),
        })
    }

    /// The products as their global store and one component id per thread
    /// (`component` reads a component): for renderings that share the work
    /// of a component among the products that name it.
    pub(crate) fn product_parts(
        &self,
    ) -> impl Iterator<Item = (&Store, impl Iterator<Item = u32> + '_)> {
        self.products.iter().map(|(g, runs)| (g, per_thread(runs)))
    }

    /// How many distinct components the products name.
    pub(crate) fn component_count(&self) -> usize {
        self.components.len()
    }

    /// Component `c`'s local stores.
    pub(crate) fn component(&self, c: u32) -> impl Iterator<Item = &Store> {
        self.components[c as usize].iter()
    }
}

/// `ids` as runs of equal ids: (id, length).
pub(crate) fn runs(ids: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &id in ids {
        match out.last_mut() {
            Some((last, n)) if *last == id => *n += 1,
            _ => out.push((id, 1)),
        }
    }
    out
}

/// The runs back as one id per thread.
fn per_thread(runs: &[(u32, u32)]) -> impl Iterator<Item = u32> + '_ {
    runs.iter()
        .flat_map(|&(id, n)| std::iter::repeat_n(id, n as usize))
}

/// One thread's R and G.
#[derive(Clone, Debug)]
pub struct ThreadSummary {
    /// The instance name.
    pub thread: String,
    /// R: the (global, local) pairs, ordered by global store.
    pub reach: Vec<ReachFact>,
    /// G: the global transitions the thread may make.
    pub guarantee: Vec<GuaranteeEdge>,
}

/// One element of R.
#[derive(Clone, Debug)]
pub struct ReachFact {
    /// The global store.
    pub global: Store,
    /// The thread's local store.
    pub local: Store,
}

/// One element of G: a change of the global store.
#[derive(Clone, Debug)]
pub struct GuaranteeEdge {
    /// The global store before.
    pub from: Store,
    /// The global store after.
    pub to: Store,
}

/// A global store and, per thread, a set of local stores: the set of
/// states that combine them in every way.
#[derive(Clone, Debug, PartialEq)]
pub struct AbstractProduct {
    /// The global store.
    pub global: Store,
    /// Per thread (by index), its local stores: a set that several
    /// products name is held once (refine's E names a few sets in
    /// thousands of products of hundreds of threads).
    pub threads: Vec<Arc<[Store]>>,
}

/// A class of interchangeable threads (cartesian-exc).
#[derive(Clone, Debug)]
pub struct ThreadClass {
    /// The template's name (or the thread's, for a class of one).
    pub name: String,
    /// Its threads' names, in order.
    pub threads: Vec<String>,
}

/// A product over classes: per class, groups of threads that take the
/// same set of local stores; the set of states it stands for combines them
/// in every way and every arrangement of the threads over the groups.
#[derive(Clone, Debug)]
pub struct ClassProduct {
    /// The global store.
    pub global: Store,
    /// Per class: its groups as (number of threads, local stores).
    pub classes: Vec<Vec<(u64, Vec<Store>)>>,
}
