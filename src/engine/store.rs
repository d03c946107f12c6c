//! The visited set of `standard`, shared by the workers of a parallel
//! search: states packed to the bit, split over shards by hash, each shard
//! one arena of packed states with a hash table of arena indices and the
//! states' BFS parent links (no per-state allocation).
//!
//! A state is `[g, l_1, .., l_n]` (interned store ids); each position gets
//! ceil(log2(bound)) bits, where the bound is the number of stores its
//! domains allow (the product of the variables' domain sizes, times the
//! locations for a local store), capped at 32 bits.
//!
//! A shard is behind its own lock; with 64 shards two workers rarely meet.
//! States are appended to their shard in the order they are found, so the
//! states of one BFS level are a suffix of every shard when the level
//! starts: `take_level` hands them out.

use super::CheckError;
use crate::program::{Layout, Program};
use hashbrown::HashTable;
use rustc_hash::FxHashMap;
use std::hash::Hasher;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// States are spread over 2^SHARD_BITS shards.
const SHARD_BITS: u32 = 6;
const SHARDS: usize = 1 << SHARD_BITS;
/// The shard is taken from hash bits that hashbrown uses for neither the
/// bucket (low bits) nor the tag (top 7 bits).
const SHARD_SHIFT: u32 = 40;

/// A state's id: its index in its shard, then the shard in the low bits.
pub(crate) type StateId = u32;

/// How a state was first reached: from `state`, by a step of `thread`
/// with `trans`. `state` is `ROOT` for an initial state. 8 bytes: the
/// search refuses programs with more than 2^16 threads or transitions per
/// template (`fits_parent`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Parent {
    pub(crate) state: StateId,
    pub(crate) thread: u16,
    pub(crate) trans: u16,
}

/// Can every step of the program be recorded in a `Parent`?
pub(crate) fn fits_parent(prog: &Program) -> Result<(), CheckError> {
    let most = u16::MAX as usize + 1;
    if prog.threads.len() > most {
        return Err(CheckError::Unsupported(format!(
            "standard handles at most {most} threads; the model has {}",
            prog.threads.len()
        )));
    }
    match prog.templates.iter().find(|t| t.transitions.len() > most) {
        Some(t) => Err(CheckError::Unsupported(format!(
            "standard handles at most {most} transitions per template; `{}` has {}",
            t.name,
            t.transitions.len()
        ))),
        None => Ok(()),
    }
}

/// No parent: an initial state.
pub(crate) const ROOT: StateId = u32::MAX;

/// Bit-packing of states into fixed-width words.
pub(crate) struct Packer {
    /// Bits per position; position 0 is the global store.
    widths: Vec<u32>,
    words: usize,
}

fn store_bits(layout: &Layout, locations: usize) -> u32 {
    let mut log2 = (locations.max(1) as f64).log2();
    for v in &layout.vars {
        log2 += (v.domain.size() as f64).log2() * v.len.unwrap_or(1) as f64;
    }
    (log2.ceil() as u32).clamp(1, 32)
}

impl Packer {
    pub(crate) fn new(prog: &Program) -> Packer {
        let mut widths = vec![store_bits(&prog.globals, 1)];
        for t in 0..prog.threads.len() {
            let tpl = prog.template_of(t);
            widths.push(store_bits(&tpl.locals, tpl.locations.len()));
        }
        let bits: u32 = widths.iter().sum();
        Packer {
            widths,
            words: bits.div_ceil(64) as usize,
        }
    }

    pub(crate) fn pack(&self, state: &[u32], out: &mut Vec<u64>) {
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

    pub(crate) fn unpack(&self, words: &[u64], out: &mut Vec<u32>) {
        out.clear();
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
    }
}

#[derive(Default)]
struct Shard {
    arena: Vec<u64>,
    table: HashTable<u32>,
    parent: Vec<Parent>,
    /// For states reached by a rendezvous: the receiver and its transition
    /// (the parent link holds the sender).
    partner: FxHashMap<u32, (u32, u32)>,
    /// Index of the first state of the level being found.
    level_start: usize,
}

impl Shard {
    fn len(&self) -> usize {
        self.parent.len()
    }
}

pub(crate) struct StateStore {
    pub(crate) packer: Packer,
    shards: Vec<Mutex<Shard>>,
    len: AtomicUsize,
    /// The most states kept (`--max-states`, or the capacity): a new state
    /// beyond it is refused and `full` set, so the count stops exactly there.
    limit: usize,
    /// A new state was refused: the search is incomplete and must stop.
    full: AtomicBool,
}

fn hash(words: &[u64]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    for w in words {
        h.write_u64(*w);
    }
    h.finish()
}

/// Word-by-word equality: states are a word or two, where a call to
/// `memcmp` costs more than the comparison.
#[inline]
fn same(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

fn id(shard: usize, index: usize) -> StateId {
    ((index as u32) << SHARD_BITS) | shard as u32
}

fn split(id: StateId) -> (usize, usize) {
    ((id as usize) & (SHARDS - 1), (id >> SHARD_BITS) as usize)
}

/// The states of one BFS level: ids and packed states, in one flat array.
pub(crate) struct Level {
    pub(crate) ids: Vec<StateId>,
    pub(crate) packed: Vec<u64>,
    words: usize,
}

impl Level {
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
    pub(crate) fn packed(&self, i: usize) -> &[u64] {
        &self.packed[i * self.words..(i + 1) * self.words]
    }
}

impl StateStore {
    pub(crate) fn new(prog: &Program) -> StateStore {
        StateStore {
            packer: Packer::new(prog),
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            len: AtomicUsize::new(0),
            limit: usize::MAX,
            full: AtomicBool::new(false),
        }
    }

    /// Keeps at most `limit` states (never more than the capacity).
    pub(crate) fn set_limit(&mut self, limit: Option<usize>) {
        self.limit = limit.unwrap_or(usize::MAX).min(self.capacity());
    }

    /// Was a new state refused for want of room?
    pub(crate) fn is_full(&self) -> bool {
        self.full.load(Ordering::Relaxed)
    }

    /// States kept (while a refused insert backs out, briefly one more per
    /// worker: a poll then sees the budget reached, as it is).
    pub(crate) fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    /// The most states one store can hold: ids are 32 bits.
    pub(crate) fn capacity(&self) -> usize {
        (u32::MAX as usize >> SHARD_BITS) * SHARDS
    }

    /// Bytes of the packed state (the arena's share).
    pub(crate) fn packed_bytes(&self) -> usize {
        self.packer.words * 8
    }

    fn shard(&self, s: usize) -> std::sync::MutexGuard<'_, Shard> {
        // A worker that panicked mid-insert leaves a shard whose table and
        // arena still agree (the arena is pushed before the table), so a
        // poisoned lock is safe to take over.
        self.shards[s].lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Memory held per state by the arenas, tables and parent links.
    pub(crate) fn bytes_per_state(&self) -> f64 {
        let len = self.len();
        if len == 0 {
            return 0.0;
        }
        let bytes: usize = (0..SHARDS)
            .map(|s| {
                let sh = self.shard(s);
                sh.arena.capacity() * 8
                    + sh.table.capacity() * (std::mem::size_of::<u32>() + 1)
                    + sh.parent.capacity() * std::mem::size_of::<Parent>()
            })
            .sum();
        bytes as f64 / len as f64
    }

    /// Inserts a packed state first reached by `parent` (and, for a
    /// rendezvous, `partner`); returns its id when it is new.
    pub(crate) fn insert(
        &self,
        packed: &[u64],
        parent: Parent,
        partner: Option<(u32, u32)>,
    ) -> Option<StateId> {
        let h = hash(packed);
        let s = (h >> SHARD_SHIFT) as usize & (SHARDS - 1);
        let words = self.packer.words;
        let mut guard = self.shard(s);
        let sh = &mut *guard;
        let arena = &sh.arena;
        let slice = |i: u32| &arena[i as usize * words..(i as usize + 1) * words];
        if sh.table.find(h, |&i| same(slice(i), packed)).is_some() {
            return None;
        }
        // Counted before it is stored, so that racing workers never keep
        // more than `limit` states between them.
        if self.len.fetch_add(1, Ordering::Relaxed) >= self.limit {
            self.len.fetch_sub(1, Ordering::Relaxed);
            self.full.store(true, Ordering::Relaxed);
            return None;
        }
        let i = sh.len() as u32;
        sh.arena.extend_from_slice(packed);
        sh.parent.push(parent);
        if let Some(p) = partner {
            sh.partner.insert(i, p);
        }
        let arena = &sh.arena;
        sh.table.insert_unique(h, i, |&j| {
            hash(&arena[j as usize * words..(j as usize + 1) * words])
        });
        Some(id(s, i as usize))
    }

    /// The states found since the last call (the next BFS level).
    pub(crate) fn take_level(&self) -> Level {
        let words = self.packer.words;
        let mut level = Level {
            ids: Vec::new(),
            packed: Vec::new(),
            words,
        };
        for s in 0..SHARDS {
            let mut sh = self.shard(s);
            let (start, end) = (sh.level_start, sh.len());
            level.ids.extend((start..end).map(|i| id(s, i)));
            level
                .packed
                .extend_from_slice(&sh.arena[start * words..end * words]);
            sh.level_start = end;
        }
        level
    }

    /// The state `id`, unpacked.
    pub(crate) fn get(&self, id: StateId) -> Vec<u32> {
        let (s, i) = split(id);
        let words = self.packer.words;
        let sh = self.shard(s);
        let mut out = Vec::new();
        self.packer
            .unpack(&sh.arena[i * words..(i + 1) * words], &mut out);
        out
    }

    pub(crate) fn parent(&self, id: StateId) -> Parent {
        let (s, i) = split(id);
        self.shard(s).parent[i]
    }

    pub(crate) fn partner(&self, id: StateId) -> Option<(u32, u32)> {
        let (s, i) = split(id);
        self.shard(s).partner.get(&(i as u32)).copied()
    }

    /// Every state id, shard by shard.
    pub(crate) fn ids(&self) -> Vec<StateId> {
        (0..SHARDS)
            .flat_map(|s| {
                let len = self.shard(s).len();
                (0..len).map(move |i| id(s, i))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_shards() {
        for (s, i) in [(0, 0), (63, 0), (5, 12345), (17, (1 << 26) - 1)] {
            assert_eq!(split(id(s, i)), (s, i));
        }
    }
}
