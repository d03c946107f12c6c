//! Interning of stores (global or local value vectors) to dense `u32` ids.
//!
//! Every store lives once, in one flat vector of values; the hash table
//! holds only the ids. A run that meets millions of global stores (most of
//! BEEM's larger models: nearly every state has a global store of its own)
//! then makes no allocation per store, where a boxed copy for the list and
//! another for the map's key made the allocator most of the coordinator's
//! time and doubled the memory the stores take.

use super::Val;
use super::step_budget::{table_growth, vec_growth};
use hashbrown::HashTable;
use std::hash::BuildHasher;

#[derive(Default)]
pub(crate) struct Interner {
    /// Ids, hashed by their store's values.
    table: HashTable<u32>,
    /// Every store's values, one after another.
    values: Vec<Val>,
    /// Where store `id` ends in `values` (it starts where `id - 1` ends).
    ends: Vec<usize>,
}

fn hash(store: &[Val]) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(store)
}

/// Store `id` among `values` that end at `ends`.
fn slice<'a>(values: &'a [Val], ends: &[usize], id: u32) -> &'a [Val] {
    let id = id as usize;
    let start = if id == 0 { 0 } else { ends[id - 1] };
    &values[start..ends[id]]
}

impl Interner {
    pub(crate) fn intern(&mut self, store: &[Val]) -> u32 {
        let h = hash(store);
        let (values, ends) = (&self.values, &self.ends);
        if let Some(&id) = self.table.find(h, |&id| slice(values, ends, id) == store) {
            return id;
        }
        let id = self.ends.len() as u32;
        self.values.extend_from_slice(store);
        self.ends.push(self.values.len());
        let (values, ends) = (&self.values, &self.ends);
        self.table
            .insert_unique(h, id, |&id| hash(slice(values, ends, id)));
        id
    }

    #[cfg(test)]
    pub(crate) fn lookup(&self, store: &[Val]) -> Option<u32> {
        let (values, ends) = (&self.values, &self.ends);
        self.table
            .find(hash(store), |&id| slice(values, ends, id) == store)
            .copied()
    }

    pub(crate) fn get(&self, id: u32) -> &[Val] {
        slice(&self.values, &self.ends, id)
    }

    /// Stores interned.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Bytes this interner allocates at once if `more` stores are added
    /// (for a step's budget, `step_budget.rs`).
    pub(crate) fn growth(&self, more: usize) -> u64 {
        let (len, values) = (self.len(), self.values.len());
        let per_store = values.checked_div(len).unwrap_or(1);
        let table = self.table.capacity();
        table_growth(len, table, size_of::<u32>(), more)
            + vec_growth(
                values,
                self.values.capacity(),
                size_of::<Val>(),
                more * per_store,
            )
            + vec_growth(len, self.ends.capacity(), size_of::<usize>(), more)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_stores_get_one_id_and_every_store_reads_back() {
        let mut i = Interner::default();
        let stores: Vec<Vec<Val>> = (0..10_000)
            .map(|k| (0..(k % 5)).map(|v| (v * k) % 7).collect())
            .collect();
        let ids: Vec<u32> = stores.iter().map(|s| i.intern(s)).collect();
        for (s, &id) in stores.iter().zip(&ids) {
            assert_eq!(i.get(id), &s[..]);
            assert_eq!(i.intern(s), id);
            assert_eq!(i.lookup(s), Some(id));
        }
        let mut distinct = stores.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(i.len(), distinct.len());
        assert_eq!(i.lookup(&[99]), None);
    }
}
