//! The visited set of `standard`: states packed to the bit in one arena,
//! found through a hash table of arena indices (no per-state allocation).
//! A state is `[g, l_1, .., l_n]` (interned store ids); each position gets
//! ceil(log2(bound)) bits, where the bound is the number of stores its
//! domains allow (the product of the variables' domain sizes, times the
//! locations for a local store), capped at 32 bits.

use crate::program::{Layout, Program};
use hashbrown::HashTable;
use std::hash::Hasher;

pub struct StateStore {
    /// Bits per position; position 0 is the global store.
    widths: Vec<u32>,
    words: usize,
    arena: Vec<u64>,
    table: HashTable<u32>,
    len: usize,
}

fn store_bits(layout: &Layout, locations: usize) -> u32 {
    let mut log2 = (locations.max(1) as f64).log2();
    for v in &layout.vars {
        log2 += (v.domain.size() as f64).log2() * v.len.unwrap_or(1) as f64;
    }
    (log2.ceil() as u32).clamp(1, 32)
}

impl StateStore {
    pub fn new(prog: &Program) -> StateStore {
        let mut widths = vec![store_bits(&prog.globals, 1)];
        for t in 0..prog.threads.len() {
            let tpl = prog.template_of(t);
            widths.push(store_bits(&tpl.locals, tpl.locations.len()));
        }
        let bits: u32 = widths.iter().sum();
        StateStore {
            widths,
            words: bits.div_ceil(64) as usize,
            arena: Vec::new(),
            table: HashTable::new(),
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of the packed state (the arena's share).
    pub fn packed_bytes(&self) -> usize {
        self.words * 8
    }

    /// Memory held per state by the arena and the table.
    pub fn bytes_per_state(&self) -> f64 {
        if self.len == 0 {
            return 0.0;
        }
        let table = self.table.capacity() * (std::mem::size_of::<u32>() + 1);
        (self.arena.capacity() * 8 + table) as f64 / self.len as f64
    }

    fn pack(&self, state: &[u32], out: &mut Vec<u64>) {
        out.clear();
        out.resize(self.words, 0);
        let mut bit = 0usize;
        for (&v, &w) in state.iter().zip(&self.widths) {
            debug_assert!(w == 32 || v >> w == 0, "store id exceeds its domain bound");
            let (word, off) = (bit / 64, bit % 64);
            out[word] |= (v as u64) << off;
            if off + w as usize > 64 {
                out[word + 1] |= (v as u64) >> (64 - off);
            }
            bit += w as usize;
        }
    }

    /// The state at arena index `i`, unpacked.
    pub fn get(&self, i: usize) -> Vec<u32> {
        let words = &self.arena[i * self.words..(i + 1) * self.words];
        let mut out = Vec::with_capacity(self.widths.len());
        let mut bit = 0usize;
        for &w in &self.widths {
            let (word, off) = (bit / 64, bit % 64);
            let mut v = words[word] >> off;
            if off + w as usize > 64 {
                v |= words[word + 1] << (64 - off);
            }
            let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            out.push((v & mask) as u32);
            bit += w as usize;
        }
        out
    }

    fn hash(words: &[u64]) -> u64 {
        let mut h = rustc_hash::FxHasher::default();
        for w in words {
            h.write_u64(*w);
        }
        h.finish()
    }

    /// Inserts a state; returns its index and whether it is new.
    pub fn insert(&mut self, state: &[u32], scratch: &mut Vec<u64>) -> (usize, bool) {
        self.pack(state, scratch);
        let hash = Self::hash(scratch);
        let (arena, words) = (&self.arena, self.words);
        let slice = |i: u32| &arena[i as usize * words..(i as usize + 1) * words];
        if let Some(&i) = self.table.find(hash, |&i| slice(i) == scratch.as_slice()) {
            return (i as usize, false);
        }
        let i = self.len as u32;
        self.arena.extend_from_slice(scratch);
        let (arena, words) = (&self.arena, self.words);
        self.table.insert_unique(hash, i, |&j| {
            Self::hash(&arena[j as usize * words..(j as usize + 1) * words])
        });
        self.len += 1;
        (i as usize, true)
    }
}
