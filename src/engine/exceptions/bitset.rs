//! The sets of local stores that products are made of (Malkis, Podelski
//! and Rybalchenko §4: a component of a Cartesian product is a set of one
//! thread's local stores), as bitsets over the template's interned ids.

/// A set of local-store ids of one template, as a bitset.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct BitSet(Words);

/// Hashed as its words, whichever way they are held: the hash orders the
/// hash maps that the fixpoints iterate, and so how many products they
/// make on the way (BEEM's mcs.1: 587 products, 1,601 with the variant
/// hashed as well).
impl std::hash::Hash for BitSet {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.words().hash(state)
    }
}

/// A bitset's words: one inline where the template has at most 64 local
/// stores (most models), so that a product of n components is one
/// allocation, not n + 1 (lock(800, 9) refine spent a third of its time in
/// the allocator); more on the heap. A set's width never changes, and
/// sets of one template have one width, so `Eq` and `Hash` compare like
/// with like.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Words {
    One(u64),
    Many(Box<[u64]>),
}

impl Default for Words {
    fn default() -> Words {
        Words::Many(Box::default())
    }
}

impl BitSet {
    fn with_words(n: usize) -> BitSet {
        BitSet(match n {
            1 => Words::One(0),
            _ => Words::Many(vec![0; n].into()),
        })
    }
    /// The words, lowest first (what orbits sort sets by).
    pub(crate) fn words(&self) -> &[u64] {
        match &self.0 {
            Words::One(w) => std::slice::from_ref(w),
            Words::Many(ws) => ws,
        }
    }
    fn words_mut(&mut self) -> &mut [u64] {
        match &mut self.0 {
            Words::One(w) => std::slice::from_mut(w),
            Words::Many(ws) => ws,
        }
    }
    pub(crate) fn empty(universe: usize) -> BitSet {
        BitSet::with_words(universe.div_ceil(64))
    }
    pub(crate) fn full(universe: usize) -> BitSet {
        let mut b = BitSet::empty(universe);
        for i in 0..universe {
            b.insert(i as u32);
        }
        b
    }
    pub(crate) fn single(universe: usize, x: u32) -> BitSet {
        let mut b = BitSet::empty(universe);
        b.insert(x);
        b
    }
    /// An empty set of the same width.
    pub(crate) fn cleared(&self) -> BitSet {
        BitSet::with_words(self.words().len())
    }
    /// Removes every element, keeping the width and the allocation.
    pub(crate) fn clear(&mut self) {
        self.words_mut().fill(0);
    }
    /// `{x}`, of the same width as `self`.
    pub(crate) fn singleton_like(&self, x: u32) -> BitSet {
        let mut b = self.cleared();
        b.insert(x);
        b
    }
    pub(crate) fn insert(&mut self, x: u32) -> bool {
        let (w, m) = ((x / 64) as usize, 1u64 << (x % 64));
        let words = self.words_mut();
        let new = words[w] & m == 0;
        words[w] |= m;
        new
    }
    pub(crate) fn contains(&self, x: u32) -> bool {
        let w = (x / 64) as usize;
        let words = self.words();
        w < words.len() && words[w] & (1u64 << (x % 64)) != 0
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.words().iter().all(|w| *w == 0)
    }
    pub(crate) fn len(&self) -> usize {
        self.words().iter().map(|w| w.count_ones() as usize).sum()
    }
    pub(crate) fn is_subset(&self, other: &BitSet) -> bool {
        self.words()
            .iter()
            .zip(other.words().iter())
            .all(|(a, b)| a & !b == 0)
    }
    pub(crate) fn intersects(&self, other: &BitSet) -> bool {
        self.words()
            .iter()
            .zip(other.words().iter())
            .any(|(a, b)| a & b != 0)
    }
    /// `self |= other`; true when something was added.
    pub(crate) fn union_with(&mut self, other: &BitSet) -> bool {
        let mut changed = false;
        for (a, b) in self.words_mut().iter_mut().zip(other.words().iter()) {
            let n = *a | b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
    /// As `union_with`, calling `added` on each element new in `self`.
    pub(crate) fn union_with_new(&mut self, other: &BitSet, mut added: impl FnMut(u32)) -> bool {
        let mut changed = false;
        for (w, (a, b)) in self
            .words_mut()
            .iter_mut()
            .zip(other.words().iter())
            .enumerate()
        {
            let mut new = b & !*a;
            if new != 0 {
                changed = true;
                *a |= new;
                while new != 0 {
                    added(w as u32 * 64 + new.trailing_zeros());
                    new &= new - 1;
                }
            }
        }
        changed
    }
    pub(crate) fn intersect_with(&mut self, other: &BitSet) {
        for (a, b) in self.words_mut().iter_mut().zip(other.words().iter()) {
            *a &= b;
        }
    }
    pub(crate) fn difference_with(&mut self, other: &BitSet) {
        for (a, b) in self.words_mut().iter_mut().zip(other.words().iter()) {
            *a &= !b;
        }
    }
    /// The words OR-ed together: a set's bits folded onto 64, so that
    /// `a ⊆ b` implies `a.fold64() & !b.fold64() == 0` (a cheap filter
    /// before a subset test).
    pub(crate) fn fold64(&self) -> u64 {
        self.words().iter().fold(0, |acc, w| acc | w)
    }
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words().iter().enumerate().flat_map(|(w, &bits)| {
            let mut bits = bits;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let b = bits.trailing_zeros();
                bits &= bits - 1;
                Some(w as u32 * 64 + b)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;
    use std::hash::{BuildHasher, BuildHasherDefault};

    fn of(universe: usize, xs: &BTreeSet<u32>) -> BitSet {
        let mut b = BitSet::empty(universe);
        for &x in xs {
            b.insert(x);
        }
        b
    }

    /// Two sets of a universe, as element lists below it.
    fn two_sets() -> impl Strategy<Value = (usize, BTreeSet<u32>, BTreeSet<u32>)> {
        prop_oneof![
            Just(0usize),
            Just(1),
            Just(63),
            Just(64),
            Just(65),
            Just(200)
        ]
        .prop_flat_map(|n| {
            let set = proptest::collection::btree_set(0..n.max(1) as u32, 0..8)
                .prop_map(move |s| s.into_iter().filter(|&x| (x as usize) < n).collect());
            (Just(n), set.clone(), set)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

        /// Held inline (up to 64 elements) or on the heap, a bitset is the
        /// set it stands for under every operation.
        #[test]
        fn a_bitset_is_the_set_it_holds((n, a, b) in two_sets()) {
            let (x, y) = (of(n, &a), of(n, &b));
            prop_assert_eq!(x.iter().collect::<BTreeSet<_>>(), a.clone());
            prop_assert_eq!(x.len(), a.len());
            prop_assert_eq!(x.is_empty(), a.is_empty());
            prop_assert_eq!(x.is_subset(&y), a.is_subset(&b));
            prop_assert_eq!(x.intersects(&y), !a.is_disjoint(&b));
            prop_assert_eq!(x == y, a == b);
            for e in 0..n as u32 + 2 {
                prop_assert_eq!(x.contains(e), a.contains(&e));
            }
            let mut u = x.clone();
            let mut added = BTreeSet::new();
            prop_assert_eq!(u.union_with_new(&y, |e| { added.insert(e); }), !b.is_subset(&a));
            prop_assert_eq!(&added, &b.difference(&a).copied().collect());
            prop_assert_eq!(u.iter().collect::<BTreeSet<_>>(), a.union(&b).copied().collect());
            let mut i = x.clone();
            i.intersect_with(&y);
            prop_assert_eq!(i.iter().collect::<BTreeSet<_>>(), a.intersection(&b).copied().collect());
            let mut d = x.clone();
            d.difference_with(&y);
            prop_assert_eq!(d.iter().collect::<BTreeSet<_>>(), a.difference(&b).copied().collect());
            prop_assert!(x.cleared().is_empty() && x.cleared().words().len() == x.words().len());
            prop_assert!(!a.is_subset(&b) || x.fold64() & !y.fold64() == 0);
        }
    }

    /// A set hashes as its words, whichever way it holds them: the
    /// fixpoints' hash maps iterate in that order, so the number of
    /// products they make depends on it.
    #[test]
    fn a_bitset_hashes_as_its_words() {
        let hasher = BuildHasherDefault::<rustc_hash::FxHasher>::default();
        for n in [1, 64, 65, 200] {
            let b = BitSet::single(n, (n - 1) as u32);
            assert_eq!(
                hasher.hash_one(&b),
                hasher.hash_one(b.words()),
                "universe {n}"
            );
        }
    }
}
