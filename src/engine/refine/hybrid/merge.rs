//! Joining products of D: at a precise store g, two products that differ
//! in one component hold the same states as one,
//! {g} × A × B ∪ {g} × A' × B = {g} × (A ∪ A') × B,
//! so a new product is joined with a product of D(g) still waiting to be
//! posted that agrees with it everywhere but in one component (and has
//! the same taint, so that an exact product stays exact). D keeps its
//! states exactly; what changes is how many products carry them, and how
//! many posts: a product posts its components once, where the products
//! it joins would each post them again.
//!
//! Only products not posted yet are joined: joining a posted one would
//! post its states a second time. The candidates are indexed by store,
//! component and a hash of every other component (`Unposted`), so that a
//! new product finds its partner by n lookups rather than by comparing
//! itself with the whole list.
//!
//! On BEEM's mutual-exclusion instances (docs/refine.md) every verdict is
//! unchanged; the products kept fall 3 to 25 times (anderson.4: 29,641 to
//! 4,116), at.1 is proved in 2.7 s instead of 4.2, szymanski.1 in 0.7
//! instead of 1.3; at.2 (unsafe) takes 0.7 s instead of 0.55, its lazy
//! rounds meeting their alarms later, and lock(200, 9) 1.7 s instead of
//! 1.55 (hashing 200 components at every new product; at 2bf66a0). A generated model whose fixpoint
//! made 395,575 products on the way to 14 makes a few hundred.
//!
//! `carry.rs` records the joined products as what the new one derives
//! from (`Tagged::joined`), so that it goes when one of them goes. With
//! equal taints they come from the same X(g) (or all from the initial
//! states) as the new one, so they go together anyway; the record keeps
//! the carry's argument local rather than resting on that.

use super::Tagged;
use crate::engine::exceptions::{BitSet, Product};
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};

/// The products of D not posted yet, by (store, component u, hash of the
/// taint and of the components other than u); values are indices into
/// D(g). The taint is in the key: an exact product that a tainted one
/// contains stays in D (`Hybrid::add`), and without it every tainted
/// product equal to it elsewhere met it at every component (lock(200, 9)
/// spent 80% of its time comparing them).
#[derive(Default)]
pub(crate) struct Unposted {
    /// One candidate per key, the latest (a second one with the same key
    /// is a product equal to the first but in that component: rarely
    /// worth a list, which cost an allocation per component of every
    /// product: lock(200, 9) 1.9 s against 1.4 without joining).
    by_rest: FxHashMap<(u32, u32, u64), u32>,
    /// Each indexed product's keys, by (store, index): computed once, when
    /// the product is made (hashing every component of a 200-thread
    /// product again at its post cost lock(200, 9) a tenth of its time).
    keys: FxHashMap<(u32, u32), Vec<u64>>,
}

/// Per component u, a hash of the taint and the product's other
/// components: a sum of per-component terms (salted by position), less
/// u's own.
fn rest_hashes(p: &[BitSet], taint: &[u32]) -> Vec<u64> {
    let terms: Vec<u64> = p
        .iter()
        .enumerate()
        .map(|(u, c)| {
            let mut h = FxHasher::default();
            (u, c).hash(&mut h);
            h.finish()
        })
        .collect();
    let mut h = FxHasher::default();
    taint.hash(&mut h);
    let total = terms.iter().fold(h.finish(), |a, t| a.wrapping_add(*t));
    terms.iter().map(|t| total.wrapping_sub(*t)).collect()
}

impl Unposted {
    /// Product `i` of D(g), whose keys `join_partners` returned, is new: a
    /// candidate until it is posted.
    pub(super) fn insert(&mut self, g: u32, i: u32, keys: Vec<u64>) {
        for (u, rest) in keys.iter().enumerate() {
            self.by_rest.insert((g, u as u32, *rest), i);
        }
        self.keys.insert((g, i), keys);
    }

    /// Product `i` of D(g) is posted or emptied (nothing if it is not a
    /// candidate).
    pub(super) fn remove(&mut self, g: u32, i: u32) {
        let Some(keys) = self.keys.remove(&(g, i)) else {
            return;
        };
        for (u, rest) in keys.into_iter().enumerate() {
            let key = (g, u as u32, rest);
            if self.by_rest.get(&key) == Some(&i) {
                self.by_rest.remove(&key);
            }
        }
    }

    /// A product of D(g) not posted yet, with `taint`, equal to `p` (whose
    /// keys are `keys`) but in one component u, where it has something
    /// `p` lacks: (u, its index).
    fn partner(
        &self,
        g: u32,
        p: &[BitSet],
        keys: &[u64],
        list: &[Tagged],
        taint: &[u32],
    ) -> Option<(usize, usize)> {
        for (u, rest) in keys.iter().enumerate() {
            let Some(&j) = self.by_rest.get(&(g, u as u32, *rest)) else {
                continue;
            };
            let e = &list[j as usize];
            if e.taint == taint
                && !e.product[u].is_subset(&p[u])
                && (0..p.len()).all(|v| v == u || e.product[v] == p[v])
            {
                return Some((u, j as usize));
            }
        }
        None
    }
}

/// `p` with every partner found in D(g) joined in, the ids of those
/// partners (each has something `p` lacked, so this ends), and the keys
/// of the result (for `Unposted::insert`).
pub(super) fn join_partners(
    unposted: &Unposted,
    g: u32,
    mut p: Product,
    list: &[Tagged],
    taint: &[u32],
) -> (Product, Vec<u32>, Vec<u64>) {
    let mut joined = Vec::new();
    loop {
        let keys = rest_hashes(&p, taint);
        match unposted.partner(g, &p, &keys, list, taint) {
            Some((u, j)) => {
                p[u].union_with(&list[j].product[u]);
                joined.push(list[j].id);
            }
            None => return (p, joined, keys),
        }
    }
}
