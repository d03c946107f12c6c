//! One component's R (Flanagan and Qadeer §2.2: the facts R(t, g, l) of one
//! thread, or of a class of interchangeable threads) as rows: per global
//! store g, the set of local stores l with R(g, l).
//!
//! A row is one `u64` bitset of the local stores 0..64 (templates have few
//! local stores in the models this engine proves, so that is all of it:
//! a fact costs a bit, a row 8 or 16 bytes), plus a sorted list of the
//! local stores from 64 up when a template has more. The rows are an array
//! indexed by g while the component has a row at a quarter or more of the
//! global stores below its highest (every thread of Simple(n) has facts at
//! two thirds of them), and a hash map of the occupied rows otherwise, so
//! memory stays proportional to the rows either way.

use rustc_hash::FxHashMap;

/// Local stores below this id are bits of the row's word.
const WORD: u32 = 64;

/// The rows of one component.
#[derive(Default)]
pub(crate) struct Rows {
    low: Low,
    /// Local stores ≥ `WORD` at g, sorted.
    high: FxHashMap<u32, Vec<u32>>,
    /// Global stores with a non-empty row.
    rows: usize,
}

enum Low {
    /// Occupied rows only.
    Sparse(FxHashMap<u32, u64>),
    /// Indexed by g (a zero word is an empty row).
    Dense(Vec<u64>),
}

impl Default for Low {
    fn default() -> Self {
        Low::Sparse(FxHashMap::default())
    }
}

impl Rows {
    /// Adds (g, l); true if it is new.
    #[inline]
    pub(crate) fn insert(&mut self, g: u32, l: u32) -> bool {
        if l >= WORD {
            return self.insert_high(g, l);
        }
        let bit = 1u64 << l;
        let was = match &mut self.low {
            Low::Dense(words) => {
                let Some(w) = words.get_mut(g as usize) else {
                    self.grow(g);
                    return self.insert(g, l);
                };
                let was = *w;
                *w |= bit;
                was
            }
            Low::Sparse(map) => {
                let w = map.entry(g).or_insert(0);
                let was = *w;
                *w |= bit;
                was
            }
        };
        if was & bit != 0 {
            return false;
        }
        if was == 0 && self.high(g).is_empty() {
            self.rows += 1;
            self.densify_if_full();
        }
        true
    }

    fn insert_high(&mut self, g: u32, l: u32) -> bool {
        let empty = self.word(g) == 0;
        let ls = self.high.entry(g).or_default();
        match ls.binary_search(&l) {
            Ok(_) => false,
            Err(at) => {
                if empty && ls.is_empty() {
                    self.rows += 1;
                }
                ls.insert(at, l);
                true
            }
        }
    }

    /// A dense array reaching g, or back to a hash map when the array
    /// would be mostly empty.
    fn grow(&mut self, g: u32) {
        if let Low::Dense(words) = &mut self.low {
            let need = g as usize + 1;
            if need > self.rows.saturating_mul(8).max(1024) {
                let map = words
                    .iter()
                    .enumerate()
                    .filter(|(_, w)| **w != 0)
                    .map(|(g, w)| (g as u32, *w))
                    .collect();
                self.low = Low::Sparse(map);
            } else {
                words.resize(need.max(words.len() * 5 / 4), 0);
            }
        }
    }

    /// Turns the hash map into an array once a quarter of the global
    /// stores up to the highest occupied one have rows.
    fn densify_if_full(&mut self) {
        if let Low::Sparse(map) = &self.low {
            let span = map.keys().copied().max().map_or(0, |g| g as usize + 1);
            // Checked rarely: only when the row count doubles.
            if map.len() < 64 || !map.len().is_power_of_two() || map.len() * 4 < span {
                return;
            }
            let mut words = vec![0u64; span];
            for (&g, &w) in map {
                words[g as usize] = w;
            }
            self.low = Low::Dense(words);
        }
    }

    /// The local stores below `WORD` at g, as bits.
    #[inline]
    pub(crate) fn word(&self, g: u32) -> u64 {
        match &self.low {
            Low::Dense(words) => words.get(g as usize).copied().unwrap_or(0),
            Low::Sparse(map) => map.get(&g).copied().unwrap_or(0),
        }
    }

    /// The local stores from `WORD` up at g, sorted.
    #[inline]
    pub(crate) fn high(&self, g: u32) -> &[u32] {
        if self.high.is_empty() {
            return &[];
        }
        self.high.get(&g).map_or(&[], |v| v.as_slice())
    }

    #[cfg(test)]
    pub(crate) fn contains(&self, g: u32, l: u32) -> bool {
        if l < WORD {
            self.word(g) & (1u64 << l) != 0
        } else {
            self.high(g).binary_search(&l).is_ok()
        }
    }

    /// Has this component any local store at g?
    #[inline]
    pub(crate) fn has(&self, g: u32) -> bool {
        self.word(g) != 0 || !self.high(g).is_empty()
    }

    /// The local stores at g, ascending.
    pub(crate) fn locals(&self, g: u32) -> Vec<u32> {
        let mut out = Vec::new();
        self.locals_into(g, &mut out);
        out
    }

    /// Appends the local stores at g, ascending, to `out`.
    pub(crate) fn locals_into(&self, g: u32, out: &mut Vec<u32>) {
        out.extend(Bits(self.word(g)));
        out.extend_from_slice(self.high(g));
    }

    /// The global stores with a row, ascending.
    pub(crate) fn globals(&self) -> Vec<u32> {
        let mut gs: Vec<u32> = match &self.low {
            Low::Dense(words) => words
                .iter()
                .enumerate()
                .filter(|(_, w)| **w != 0)
                .map(|(g, _)| g as u32)
                .collect(),
            Low::Sparse(map) => map
                .iter()
                .filter(|(_, w)| **w != 0)
                .map(|(g, _)| *g)
                .collect(),
        };
        gs.extend(
            self.high
                .iter()
                .filter(|(_, v)| !v.is_empty())
                .map(|(g, _)| *g),
        );
        gs.sort_unstable();
        gs.dedup();
        gs
    }
}

/// The set bits of a word, ascending.
pub(crate) struct Bits(pub(crate) u64);

impl Iterator for Bits {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// Rows hold exactly the pairs inserted, through the changes of
        /// form (hash map, array and back) and for local stores past 64.
        #[test]
        fn rows_are_the_set_of_pairs_inserted(
            pairs in proptest::collection::vec((0..3000u32, prop_oneof![0..64u32, 0..200u32]), 0..1500),
            spread in any::<bool>(),
        ) {
            let mut rows = Rows::default();
            let mut set = BTreeSet::new();
            for (i, (g, l)) in pairs.into_iter().enumerate() {
                // Dense runs of global stores, now and then (with `spread`)
                // a far one: the array turns back into a map.
                let g = if spread && i % 300 == 299 { g * 1000 } else { g / 8 };
                prop_assert_eq!(rows.insert(g, l), set.insert((g, l)));
            }
            let gs: BTreeSet<u32> = set.iter().map(|p| p.0).collect();
            prop_assert_eq!(rows.globals(), gs.iter().copied().collect::<Vec<_>>());
            prop_assert_eq!(rows.rows, gs.len());
            for &g in &gs {
                let ls: Vec<u32> = set.range((g, 0)..=(g, u32::MAX)).map(|p| p.1).collect();
                prop_assert_eq!(rows.locals(g), ls);
                prop_assert!(rows.has(g));
            }
            for &(g, l) in &set {
                prop_assert!(rows.contains(g, l));
            }
        }
    }
}
