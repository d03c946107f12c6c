//! Adding a post to the fixpoint (Malkis, Podelski and Rybalchenko §4.3,
//! with the precise stores of refinement): joined into X(g) outside P,
//! kept in D(g) as a product unless one there contains it, emptying the
//! products it contains. `live` holds D(g)'s non-emptied products with a
//! 64-bit signature that rules out most subset tests while products are
//! few; the tests look first at the components the two products were made
//! by (`Tagged::moved`).

use super::{Hybrid, Pending, Tagged, Work, merge};
use crate::engine::exceptions::{BitSet, Product};

impl Tagged {
    /// Its entry in `Hybrid::live`, as product `index` of its list.
    pub(in crate::engine::refine) fn live(&self, index: u32) -> Live {
        Live {
            index,
            sig: signature(|u| &self.product[u], self.product.len()),
        }
    }
}

/// A non-emptied product of D(g), as a new product is compared with it.
#[derive(Clone, Copy, Debug)]
pub(in crate::engine::refine) struct Live {
    /// Its index in D(g).
    pub(in crate::engine::refine) index: u32,
    /// `signature` of its product: rules out a subset test when a bit is
    /// on where the other's is off (few products: the bits fill up with
    /// many components).
    pub(in crate::engine::refine) sig: u64,
}

/// `p ⊆ q`, component by component, looking first at the components in
/// `first`: products made by different threads' steps mostly differ
/// there, so a failing test ends at once rather than after half of the
/// components (lock(200, 9) spent half its time in these tests).
fn subset_looking_first<'b>(
    p: impl Fn(usize) -> &'b BitSet,
    q: &[BitSet],
    first: [usize; 2],
) -> bool {
    first.iter().all(|&u| p(u).is_subset(&q[u])) && (0..q.len()).all(|u| p(u).is_subset(&q[u]))
}

/// A product's components folded to 64 bits each, rotated apart and OR-ed:
/// `p ⊆ q` implies `sig(p) & !sig(q) == 0`, which rules out most subset
/// tests between D's products at once.
fn signature<'b>(comp: impl Fn(usize) -> &'b BitSet, n: usize) -> u64 {
    (0..n).fold(0, |s, u| {
        s | comp(u)
            .fold64()
            .rotate_left((u as u32).wrapping_mul(17) % 64)
    })
}

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
        if let Some(o) = live
            .iter()
            .find(|o| sig & !o.sig == 0 && within(&list[o.index as usize]))
        {
            // The next round posts `q.src` again if this product goes.
            let e = &mut list[o.index as usize];
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
        live.retain(|o| {
            let e = &mut list[o.index as usize];
            let contained = o.sig & !sig == 0
                && (exact || !e.taint.is_empty())
                && subset_looking_first(|u| &e.product[u], &p, [e.moved as usize, t]);
            if contained {
                unposted.remove(g, o.index);
                for c in e.product.iter_mut() {
                    *c = c.cleared();
                }
                e.emptied_by = Some(id);
            }
            !contained
        });
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
        live.push(Live {
            index: i as u32,
            sig,
        });
        q.work.push_back(Work::Disj(g, i));
    }
}
