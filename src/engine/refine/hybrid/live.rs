//! D(g)'s products that are not emptied, as `Hybrid::add` compares a new
//! product p with them: is p within one of them, and which of them are
//! within p. While they are few each query scans them all, a 64-bit
//! signature ruling out most subset tests. Past `INDEX_FROM` products, an
//! index by state takes over: a product of at most `POINTS_AT_MOST` states
//! is listed under each of them, so a product containing p is listed
//! under p's first state (or is one of the few larger ones, scanned), and
//! a product within a small p is small, listed (once more) under its own
//! first state, which is one of p's. A 4-thread ticket
//! lock with 56,916 products at 20 stores spent 90% of its 40 s scanning
//! (15 s with the index); indexed by one component's local store instead,
//! the lists were still a quarter of the products, and the run slower.
//!
//! Either way the answers are the same, in the same order (a product
//! containing p is the first such in index order), so the fixpoint is too.

use super::Tagged;
use crate::engine::exceptions::{BitSet, product_is_empty};
use rustc_hash::FxHashMap;

/// From this many products at one store on, the index is kept (in the
/// unit tests at once, so that every refine test runs it).
const INDEX_FROM: usize = if cfg!(test) { 2 } else { 256 };

/// Products with more states than this are not listed by state (in the
/// unit tests few, so that the large ones' path runs too).
const POINTS_AT_MOST: usize = if cfg!(test) { 4 } else { 256 };

/// A product of D(g), as a new product is compared with it.
#[derive(Clone, Copy, Debug)]
struct Live {
    /// Its index in D(g).
    index: u32,
    /// `signature` of its product: rules out a subset test when a bit is
    /// on where the other's is off.
    sig: u64,
}

/// D(g)'s non-emptied products.
#[derive(Default)]
pub(in crate::engine::refine) struct LiveSet {
    /// While there are few: the products, in index order.
    scan: Vec<Live>,
    /// Past `INDEX_FROM`: the index (and `scan` is empty).
    index: Option<Index>,
    /// Never index (the tests compare the two ways).
    #[cfg(test)]
    scan_only: bool,
}

/// The products by state. An emptied product's entries stay behind
/// (`alive` says so) until they are half of all; then the index is built
/// again from the live products.
#[derive(Default)]
struct Index {
    /// Per state (hashed: a collision only adds a candidate, which the
    /// subset test refuses), the products of at most `POINTS_AT_MOST`
    /// states that hold it, in index order.
    at: Chains,
    /// The same products under their first state only: a product within
    /// p is met once, and not among the many that overlap p.
    first_at: Chains,
    /// The products with more states, in index order.
    large: Vec<Live>,
    /// By index in D(g): each product's signature, whether it is live, and
    /// how many entries it has in `at`, `first_at` and `large`. The live
    /// ones, in index order, are what a large p is compared with.
    sigs: Vec<u64>,
    alive: Vec<bool>,
    entries_of: Vec<u32>,
    /// Entries in `at`, `first_at` and `large`, and those of products no
    /// longer live.
    entries: usize,
    dead: usize,
}

/// Lists of product indices by key, in index order.
#[derive(Default)]
struct Chains(FxHashMap<u64, Vec<u32>>);

impl Chains {
    fn push(&mut self, key: u64, index: u32) {
        self.0.entry(key).or_default().push(index);
    }

    /// The list under `key`, in index order.
    fn get(&self, key: u64) -> impl Iterator<Item = u32> + '_ {
        self.0.get(&key).into_iter().flatten().copied()
    }
}

/// `p ⊆ q`, component by component, looking first at the components in
/// `first`: products made by different threads' steps mostly differ
/// there, so a failing test ends at once rather than after half of the
/// components (lock(200, 9) spent half its time in these tests).
pub(super) fn subset_looking_first<'b>(
    p: impl Fn(usize) -> &'b BitSet,
    q: &[BitSet],
    first: [usize; 2],
) -> bool {
    first.iter().all(|&u| p(u).is_subset(&q[u])) && (0..q.len()).all(|u| p(u).is_subset(&q[u]))
}

/// A product's components folded to 64 bits each, rotated apart and OR-ed:
/// `p ⊆ q` implies `sig(p) & !sig(q) == 0`, which rules out most subset
/// tests between D's products at once.
pub(super) fn signature<'b>(comp: impl Fn(usize) -> &'b BitSet, n: usize) -> u64 {
    (0..n).fold(0, |s, u| {
        s | comp(u)
            .fold64()
            .rotate_left((u as u32).wrapping_mul(17) % 64)
    })
}

/// A state's hash is the sum of one term per component (so that the
/// states of a product differ from its first by the terms of the
/// components that hold more than one local store).
fn term(u: usize, x: u32) -> u64 {
    let k = ((u as u64) << 32 | u64::from(x)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    k ^ (k >> 29)
}

/// The hash of a product's first state (each component's first local
/// store), and the components with more than one; `None` if one is empty.
fn first_state<'b>(comp: impl Fn(usize) -> &'b BitSet, n: usize) -> Option<(u64, Vec<usize>)> {
    let mut hash = 0u64;
    let mut several = Vec::new();
    for u in 0..n {
        let mut xs = comp(u).iter();
        let x = xs.next()?;
        hash = hash.wrapping_add(term(u, x));
        if xs.next().is_some() {
            several.push(u);
        }
    }
    Some((hash, several))
}

/// The hashes of the states of a product of `n` components (given by
/// component), the first state first; `None` when it has more than
/// `POINTS_AT_MOST` (or none).
fn points<'b>(comp: impl Fn(usize) -> &'b BitSet, n: usize) -> Option<Vec<u64>> {
    let (first, several) = first_state(&comp, n)?;
    let count = several
        .iter()
        .try_fold(1usize, |k, &u| k.checked_mul(comp(u).len()))
        .filter(|&k| k <= POINTS_AT_MOST)?;
    let mut out = Vec::with_capacity(count);
    out.push(first);
    // Each component with several local stores multiplies the states so
    // far by its other stores.
    for &u in &several {
        let mut xs = comp(u).iter();
        let x0 = term(u, xs.next()?);
        let so_far = out.len();
        for x in xs {
            let shift = term(u, x).wrapping_sub(x0);
            for k in 0..so_far {
                out.push(out[k].wrapping_add(shift));
            }
        }
    }
    Some(out)
}

impl LiveSet {
    /// The non-emptied products of `list` (after a carry renumbered it).
    pub(in crate::engine::refine) fn of(list: &[Tagged]) -> LiveSet {
        let mut live = LiveSet::default();
        for (i, t) in list.iter().enumerate() {
            if !product_is_empty(&t.product) {
                let sig = signature(|u| &t.product[u], t.product.len());
                live.push(list, i as u32, sig);
            }
        }
        live
    }

    /// Product `index` of `list`, just added, with signature `sig`.
    pub(super) fn push(&mut self, list: &[Tagged], index: u32, sig: u64) {
        if let Some(ix) = &mut self.index {
            ix.insert(&list[index as usize].product, Live { index, sig });
            return;
        }
        self.scan.push(Live { index, sig });
        #[cfg(test)]
        if self.scan_only {
            return;
        }
        if self.scan.len() >= INDEX_FROM {
            let mut ix = Index::default();
            for o in self.scan.drain(..) {
                ix.insert(&list[o.index as usize].product, o);
            }
            self.index = Some(ix);
        }
    }

    /// The first product of `list` (in index order) that `within` accepts,
    /// among those that may contain `p` (given by component; `n`
    /// components, signature `sig`): `within` tests the containment.
    pub(super) fn first_containing<'b>(
        &self,
        list: &[Tagged],
        p: impl Fn(usize) -> &'b BitSet,
        n: usize,
        sig: u64,
        within: impl Fn(&Tagged) -> bool,
    ) -> Option<u32> {
        let test = |o: &Live| sig & !o.sig == 0 && within(&list[o.index as usize]);
        let Some(ix) = &self.index else {
            return self.scan.iter().find(|o| test(o)).map(|o| o.index);
        };
        // A small product containing p holds p's first state.
        let (first, _) = first_state(&p, n)?;
        let small = ix
            .at
            .get(first)
            .map(|i| ix.live(i))
            .find(|o| ix.alive[o.index as usize] && test(o));
        let large = ix
            .large
            .iter()
            .take_while(|o| small.is_none_or(|s| o.index < s.index))
            .find(|o| ix.alive[o.index as usize] && test(o));
        large.copied().or(small).map(|o| o.index)
    }

    /// Removes, and hands to `empty` in index order, every product of
    /// `list` that `contained` accepts among those that may be within `p`
    /// (given by component; `n` components, signature `sig`).
    pub(super) fn remove_contained<'b>(
        &mut self,
        list: &mut [Tagged],
        p: impl Fn(usize) -> &'b BitSet,
        n: usize,
        sig: u64,
        contained: impl Fn(&Tagged) -> bool,
        mut empty: impl FnMut(u32, &mut Tagged),
    ) {
        let test = |o: &Live, e: &Tagged| o.sig & !sig == 0 && contained(e);
        let Some(ix) = &mut self.index else {
            self.scan.retain(|o| {
                let e = &mut list[o.index as usize];
                let within = test(o, e);
                if within {
                    empty(o.index, e);
                }
                !within
            });
            return;
        };
        let mut found = Vec::new();
        match points(&p, n) {
            // A product within a small p is small, and its first state is
            // one of p's.
            Some(states) => {
                for h in states {
                    for i in ix.first_at.get(h) {
                        if ix.alive[i as usize] && test(&ix.live(i), &list[i as usize]) {
                            found.push(i);
                        }
                    }
                }
            }
            None => found.extend(
                ix.live_ones()
                    .filter(|o| test(o, &list[o.index as usize]))
                    .map(|o| o.index),
            ),
        }
        found.sort_unstable();
        for &i in &found {
            ix.kill(i);
            empty(i, &mut list[i as usize]);
        }
        if !found.is_empty() && ix.dead * 2 > ix.entries {
            let mut fresh = Index::default();
            for o in ix.live_ones() {
                fresh.insert(&list[o.index as usize].product, o);
            }
            *ix = fresh;
        }
    }
}

impl Index {
    fn live(&self, index: u32) -> Live {
        Live {
            index,
            sig: self.sigs[index as usize],
        }
    }

    /// The live products, in index order.
    fn live_ones(&self) -> impl Iterator<Item = Live> + '_ {
        (0..self.sigs.len() as u32)
            .filter(|&i| self.alive[i as usize])
            .map(|i| self.live(i))
    }

    /// Lists `o`'s product: under each of its states and its first (a
    /// small one), or among the large ones.
    fn insert(&mut self, product: &[BitSet], o: Live) {
        let entries = match points(|u| &product[u], product.len()) {
            Some(states) => {
                self.first_at.push(states[0], o.index);
                let n = states.len();
                for h in states {
                    self.at.push(h, o.index);
                }
                n + 1
            }
            None => {
                self.large.push(o);
                1
            }
        };
        self.entries += entries;
        let i = o.index as usize;
        if self.sigs.len() <= i {
            self.sigs.resize(i + 1, 0);
            self.alive.resize(i + 1, false);
            self.entries_of.resize(i + 1, 0);
        }
        self.sigs[i] = o.sig;
        self.alive[i] = true;
        self.entries_of[i] = entries as u32;
    }

    /// Product `index` is about to be emptied: its entries stay behind,
    /// dead, until the index is built again.
    fn kill(&mut self, index: u32) {
        self.alive[index as usize] = false;
        self.dead += self.entries_of[index as usize] as usize;
    }
}

#[cfg(test)]
mod tests {
    //! The index answers as the scan does, query by query, on random
    //! products added as `Hybrid::add` adds them.
    use super::*;
    use crate::engine::refine::hybrid::Node;
    use proptest::prelude::*;

    fn tagged(product: Vec<BitSet>, id: u32) -> Tagged {
        Tagged {
            product,
            taint: Vec::new(),
            id,
            from: Node::Init,
            targets: Vec::new(),
            covers: Vec::new(),
            emptied_by: None,
            joined: Vec::new(),
            moved: 0,
        }
    }

    /// A product of 3 components over 5 local stores each, from bit masks.
    fn product(masks: &[u8]) -> Vec<BitSet> {
        masks
            .iter()
            .map(|m| {
                let mut b = BitSet::empty(5);
                for x in 0..5 {
                    if m & (1 << x) != 0 {
                        b.insert(x);
                    }
                }
                b
            })
            .collect()
    }

    /// A component's local stores: mostly one (products of a few states,
    /// listed by state), sometimes several (the large ones).
    fn mask() -> impl Strategy<Value = u8> {
        prop_oneof![3 => (0u8..5).prop_map(|x| 1 << x), 1 => 1u8..32]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn the_index_answers_as_the_scan(
            adds in proptest::collection::vec(proptest::collection::vec(mask(), 3), 1..300)
        ) {
            let mut ways = [(LiveSet { scan_only: true, ..LiveSet::default() }, Vec::new()),
                (LiveSet::default(), Vec::new())];
            let mut pushed = 0;
            for (id, masks) in adds.iter().enumerate() {
                let p = product(masks);
                let sig = signature(|u| &p[u], 3);
                let mut answers = Vec::new();
                for (live, list) in &mut ways {
                    let within = |e: &Tagged| subset_looking_first(|u| &p[u], &e.product, [0, 0]);
                    let containing = live.first_containing(list, |u| &p[u], 3, sig, within);
                    let mut emptied = Vec::new();
                    if containing.is_none() {
                        let contained =
                            |e: &Tagged| subset_looking_first(|u| &e.product[u], &p, [0, 0]);
                        live.remove_contained(list, |u| &p[u], 3, sig, contained, |i, e| {
                            emptied.push(i);
                            for c in e.product.iter_mut() {
                                *c = c.cleared();
                            }
                        });
                        list.push(tagged(p.clone(), id as u32));
                        live.push(list, list.len() as u32 - 1, sig);
                        pushed += 1;
                    }
                    answers.push((containing, emptied));
                }
                prop_assert_eq!(&answers[0], &answers[1], "product {}: {:?}", id, masks);
            }
            // Both ways pushed the same products.
            prop_assert!(ways[1].0.index.is_some() || pushed < 2 * INDEX_FROM);
        }
    }
}
