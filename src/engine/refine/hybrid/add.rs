//! Adding a post to the fixpoint (Malkis, Podelski and Rybalchenko §4.3,
//! with the precise stores of refinement): joined into X(g) outside P,
//! kept in D(g) as a product unless one there contains it, emptying the
//! products it contains. `live` finds the products to compare with
//! (`live.rs`); the tests look first at the components the two products
//! were made by (`Tagged::moved`).

use super::live::{signature, subset_looking_first};
use super::{Hybrid, Pending, Tagged, Work, merge};
use crate::engine::exceptions::{BitSet, Product};

impl Hybrid {
    /// Adds `{g} × source[t := ls]`, derived from `q.src`: joined into X(g)
    /// outside P, kept in D(g) unless a product there contains it. The
    /// product is built only when it is kept.
    pub(super) fn add(
        &mut self,
        g: u32,
        source: &Product,
        t: usize,
        ls: &BitSet,
        taint: &[u32],
        q: &mut Pending,
    ) {
        let comp = |u: usize| if u == t { ls } else { &source[u] };
        if (0..source.len()).any(|u| comp(u).is_empty()) {
            return;
        }
        q.targets.push(g);
        if !q.precise.contains(&g) {
            let changed = match self.cart.get_mut(&g) {
                Some(x) => x
                    .iter_mut()
                    .enumerate()
                    .fold(false, |c, (u, a)| a.union_with(comp(u)) | c),
                None => {
                    self.cart
                        .insert(g, (0..source.len()).map(|u| comp(u).clone()).collect());
                    true
                }
            };
            // X(g) is the join of the contributions that changed it: only
            // those are what it derives from.
            if changed {
                self.trail.cart_from.entry(g).or_default().insert(q.src);
                if q.cart_queued.insert(g) {
                    q.work.push_back(Work::Cart(g));
                }
            }
            return;
        }
        let list = self.disj.entry(g).or_default();
        let live = self.live.entry(g).or_default();
        let unposted = &mut self.unposted;
        let sig = signature(comp, source.len());
        // A product is dropped only for one at least as exact: the exact
        // products must keep every exact state, or the search for a real
        // error's trace (which walks exact products only) could miss it.
        let exact = taint.is_empty();
        let within = |e: &Tagged| {
            (e.taint.is_empty() || !exact)
                && subset_looking_first(comp, &e.product, [t, e.moved as usize])
        };
        if let Some(o) = live.first_containing(list, comp, source.len(), sig, within) {
            // The next round posts `q.src` again if this product goes.
            let e = &mut list[o as usize];
            if e.from != q.src && !e.covers.contains(&q.src) {
                e.covers.push(q.src);
            }
            return;
        }
        let p: Product = (0..source.len()).map(|u| comp(u).clone()).collect();
        let (p, joined, keys) = merge::join_partners(unposted, g, p, list, taint);
        let sig = match joined.is_empty() {
            true => sig,
            false => signature(|u| &p[u], p.len()),
        };
        let id = self.trail.next_id;
        self.trail.next_id += 1;
        // Products the new one contains stay in the list (their indices may
        // be queued) but are emptied: they add nothing.
        let contained = |e: &Tagged| {
            (exact || !e.taint.is_empty())
                && subset_looking_first(|u| &e.product[u], &p, [e.moved as usize, t])
        };
        live.remove_contained(
            list,
            |u| &p[u],
            p.len(),
            sig,
            contained,
            |i, e| {
                unposted.remove(g, i);
                for c in e.product.iter_mut() {
                    *c = c.cleared();
                }
                e.emptied_by = Some(id);
            },
        );
        list.push(Tagged {
            product: p,
            taint: taint.to_vec(),
            id,
            from: q.src,
            targets: Vec::new(),
            covers: Vec::new(),
            emptied_by: None,
            joined,
            moved: t as u32,
        });
        let i = list.len() - 1;
        unposted.insert(g, i as u32, keys);
        live.push(list, i as u32, sig);
        q.work.push_back(Work::Disj(g, i));
    }
}
