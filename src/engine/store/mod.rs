//! The visited set of `standard`, shared by the workers of a parallel
//! search: states packed to the bit (`packer.rs`), split over shards by
//! hash, each shard an open-addressing table of the packed states themselves
//! (`table.rs`). There is no parent link: each entry carries its BFS depth
//! modulo a period in the spare top bits of its last word, and a
//! counterexample is rebuilt by searching the level before for a
//! predecessor (`standard/rebuild.rs`), as stateright rebuilds its paths.
//! An 8-byte state costs about 11 bytes, where a parent link alone would
//! cost 8 more.
//!
//! A shard is behind its own lock; with 64 shards two workers rarely meet,
//! and a shard that grows pauses only the workers that need that shard.
//! Workers insert in batches (`Batch`): keys grouped by shard, each
//! shard locked once per batch, each key's bucket (and the line after
//! it) prefetched a few keys ahead, so that the table's cache misses
//! overlap. Each shard's lock and table header, and each worker's scratch,
//! sit on cache lines of their own (`CachePadded`), so that two workers
//! inserting into neighbouring shards do not write the same line. The new
//! states of a level are also appended to their shard's `fresh` list:
//! `take_level` hands them out as the next BFS level.

mod packer;
mod table;

use crossbeam_utils::CachePadded;
pub(crate) use packer::Packer;
#[cfg(test)]
pub(crate) use packer::TAG_BITS_FOR_TESTS;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use table::{Table, hash};

/// States are spread over 2^SHARD_BITS shards.
const SHARD_BITS: u32 = 6;
const SHARDS: usize = 1 << SHARD_BITS;
const _: () = assert!(SHARDS <= 256, "Level::block_part holds a part as u8");
/// Keys a worker gathers before inserting them.
const BATCH: usize = 4096;
/// How many keys ahead a batch prefetches.
const AHEAD: usize = 8;

struct Shard {
    table: Table,
    /// The states stored since the last `take_level`.
    fresh: Vec<u64>,
}

pub(crate) struct StateStore {
    pub(crate) packer: Packer,
    /// Each shard on cache lines of its own: two workers inserting into
    /// neighbouring shards would otherwise write the same line.
    shards: Vec<CachePadded<Mutex<Shard>>>,
    /// States stored, plus the room reserved by workers inserting now.
    len: AtomicUsize,
    /// The room reserved now (see `reserve`).
    reserved: AtomicUsize,
    /// The most states kept (`--max-states`): a new state beyond it is
    /// refused and `full` set, so the count stops exactly there.
    limit: usize,
    /// A new state was refused: the search is incomplete and must stop.
    full: AtomicBool,
    /// The depth of the states being stored now.
    depth: AtomicUsize,
    /// The deepest level stored.
    deepest: AtomicUsize,
    /// The tag of `depth`.
    tag: AtomicU64,
}

/// The states of one BFS level, packed: the shards' `fresh` lists, moved
/// out whole and read as one array in shard order. Not copied into one
/// array: a level of tens of millions of states took up to 2 s to copy
/// (most of it faulting in the new pages), a pause no budget poll could
/// interrupt, and the copy held the level twice at the peak.
pub(crate) struct Level {
    parts: Vec<Vec<u64>>,
    /// Index of each part's first state; one more at the end: the length.
    starts: Vec<usize>,
    /// For each block of `1 << shift` indices, the part holding its first
    /// index: `packed` (once per transition) starts there and steps past
    /// at most a few parts, where a binary search over `starts` cost 8%
    /// of lock(10, 3)'s time.
    block_part: Vec<u8>,
    shift: u32,
    words: usize,
}

impl Level {
    fn new(parts: Vec<Vec<u64>>, words: usize) -> Level {
        let mut starts = Vec::with_capacity(parts.len() + 1);
        let mut len = 0;
        for p in &parts {
            starts.push(len);
            len += p.len() / words;
        }
        starts.push(len);
        // Blocks about a quarter of an average part.
        let per_block = (len / (4 * SHARDS)).max(1);
        let shift = usize::BITS - 1 - per_block.leading_zeros();
        let mut block_part = Vec::with_capacity((len >> shift) + 1);
        let mut p = 0;
        for first in (0..len).step_by(1 << shift) {
            while starts[p + 1] <= first {
                p += 1;
            }
            block_part.push(p as u8);
        }
        Level {
            parts,
            starts,
            block_part,
            shift,
            words,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.starts.last().copied().unwrap_or(0)
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub(crate) fn packed(&self, i: usize) -> &[u64] {
        // The part holding `i`: the last one starting at or before it,
        // never an empty one (it starts where the next one does).
        let mut p = self.block_part[i >> self.shift] as usize;
        while self.starts[p + 1] <= i {
            p += 1;
        }
        let at = (i - self.starts[p]) * self.words;
        &self.parts[p][at..at + self.words]
    }
}

/// A worker's keys waiting to be inserted, with their hashes.
#[derive(Default)]
pub(crate) struct Batch {
    keys: Vec<u64>,
    hashes: Vec<u64>,
    /// Indices of the keys, grouped by shard (a counting sort).
    order: Vec<u32>,
    starts: Vec<u32>,
}

impl Batch {
    pub(crate) fn is_full(&self) -> bool {
        self.hashes.len() >= BATCH
    }
}

#[inline]
fn shard_of(h: u64) -> usize {
    (h as usize) & (SHARDS - 1)
}

impl StateStore {
    pub(crate) fn new(prog: &crate::program::Program) -> StateStore {
        StateStore::with_packer(Packer::new(prog))
    }

    pub(crate) fn with_packer(packer: Packer) -> StateStore {
        let (words, tag_bits) = (packer.words, packer.tag_bits);
        StateStore {
            packer,
            shards: (0..SHARDS)
                .map(|s| {
                    CachePadded::new(Mutex::new(Shard {
                        table: Table::new(words, tag_bits, s as f64 / SHARDS as f64),
                        fresh: Vec::new(),
                    }))
                })
                .collect(),
            len: AtomicUsize::new(0),
            reserved: AtomicUsize::new(0),
            limit: usize::MAX,
            full: AtomicBool::new(false),
            depth: AtomicUsize::new(0),
            deepest: AtomicUsize::new(0),
            tag: AtomicU64::new(1),
        }
    }

    /// Keeps at most `limit` states.
    pub(crate) fn set_limit(&mut self, limit: Option<usize>) {
        self.limit = limit.unwrap_or(usize::MAX).min(self.capacity());
    }

    /// Was a new state refused for want of room?
    pub(crate) fn is_full(&self) -> bool {
        self.full.load(Ordering::Relaxed)
    }

    /// States kept.
    pub(crate) fn len(&self) -> usize {
        let reserved = self.reserved.load(Ordering::Relaxed);
        self.len.load(Ordering::Relaxed).saturating_sub(reserved)
    }

    /// The most states one store can hold: as many as memory allows.
    pub(crate) fn capacity(&self) -> usize {
        usize::MAX / 2
    }

    /// Bytes of the packed state.
    pub(crate) fn packed_bytes(&self) -> usize {
        self.packer.words * 8
    }

    /// How many BFS levels share a tag: depths d and d + period do.
    pub(crate) fn period(&self) -> usize {
        (1usize << self.packer.tag_bits) - 1
    }

    /// The tag of the states at `depth`.
    pub(crate) fn tag_of_depth(&self, depth: usize) -> u64 {
        1 + (depth % self.period()) as u64
    }

    /// The depth given to the states stored from now on.
    pub(crate) fn set_depth(&self, depth: usize) {
        self.depth.store(depth, Ordering::Relaxed);
        self.tag.store(self.tag_of_depth(depth), Ordering::Relaxed);
    }

    /// The deepest level any state was stored at.
    pub(crate) fn deepest(&self) -> usize {
        self.deepest.load(Ordering::Relaxed)
    }

    fn shard(&self, s: usize) -> std::sync::MutexGuard<'_, Shard> {
        // A worker that panicked mid-insert leaves a table whose entries
        // are all whole (an entry is written before the count changes),
        // so a poisoned lock is safe to take over.
        self.shards[s].lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Memory held per state by the tables (the visited set; the BFS
    /// queue, the current and the next level, comes on top).
    pub(crate) fn bytes_per_state(&self) -> f64 {
        let len = self.len();
        if len == 0 {
            return 0.0;
        }
        let bytes: usize = (0..SHARDS).map(|s| self.shard(s).table.bytes()).sum();
        bytes as f64 / len as f64
    }

    /// Reserves room for `n` new states within the limit, all or none.
    /// A worker reserves a whole group of keys before it inserts them and
    /// gives back what it did not use: one atomic operation per group
    /// rather than per key, whose locked instructions would stop the
    /// processor from overlapping the lookups' cache misses.
    fn reserve(&self, n: usize) -> bool {
        let ok = self
            .len
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |cur| {
                (cur + n <= self.limit).then_some(cur + n)
            })
            .is_ok();
        if ok {
            self.reserved.fetch_add(n, Ordering::Relaxed);
        }
        ok
    }

    /// Ends a reservation of `n` of which `used` became states.
    fn settle(&self, n: usize, used: usize) {
        self.len.fetch_sub(n - used, Ordering::Relaxed);
        self.reserved.fetch_sub(n, Ordering::Relaxed);
    }

    /// Room for one new state: waits while others hold reservations that
    /// may come back, so that the count stops exactly at the limit; at the
    /// limit, sets `full`.
    fn room_for_one(&self) -> bool {
        loop {
            if self.reserve(1) {
                self.settle(1, 1);
                return true;
            }
            if self.reserved.load(Ordering::Relaxed) == 0 {
                self.full.store(true, Ordering::Relaxed);
                return false;
            }
            std::hint::spin_loop();
        }
    }

    /// Inserts a packed state at the current depth; true when it is new.
    pub(crate) fn insert(&self, key: &[u64]) -> bool {
        let h = hash(key);
        let mut sh = self.shard(shard_of(h));
        let tag = self.tag.load(Ordering::Relaxed);
        let new = sh.table.insert(key, h, tag, || self.room_for_one());
        if new {
            sh.fresh.extend_from_slice(key);
            self.deepest
                .fetch_max(self.depth.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        new
    }

    /// Adds a key to a worker's batch, inserting the batch when it is full.
    #[inline]
    pub(crate) fn push(&self, b: &mut Batch, key: &[u64]) {
        b.keys.extend_from_slice(key);
        b.hashes.push(hash(key));
        if b.is_full() {
            self.flush(b);
        }
    }

    /// Inserts a worker's batched keys, shard by shard.
    pub(crate) fn flush(&self, b: &mut Batch) {
        if b.hashes.is_empty() {
            return;
        }
        let words = self.packer.words;
        b.starts.clear();
        b.starts.resize(SHARDS + 1, 0);
        for &h in &b.hashes {
            b.starts[shard_of(h) + 1] += 1;
        }
        for s in 0..SHARDS {
            b.starts[s + 1] += b.starts[s];
        }
        b.order.clear();
        b.order.resize(b.hashes.len(), 0);
        let mut next = b.starts.clone();
        for (i, &h) in b.hashes.iter().enumerate() {
            let s = shard_of(h);
            b.order[next[s] as usize] = i as u32;
            next[s] += 1;
        }
        let tag = self.tag.load(Ordering::Relaxed);
        let mut stored = false;
        for s in 0..SHARDS {
            let group = &b.order[b.starts[s] as usize..b.starts[s + 1] as usize];
            if group.is_empty() {
                continue;
            }
            let mut guard = self.shard(s);
            let sh = &mut *guard;
            // Near the limit, room is asked key by key.
            let reserved = self.reserve(group.len());
            let mut used = 0;
            // The group's first keys, before the loop prefetches ahead.
            for &i in group.iter().take(AHEAD) {
                sh.table.prefetch(b.hashes[i as usize]);
            }
            for (k, &i) in group.iter().enumerate() {
                if let Some(&ahead) = group.get(k + AHEAD) {
                    sh.table.prefetch(b.hashes[ahead as usize]);
                }
                let i = i as usize;
                let key = &b.keys[i * words..(i + 1) * words];
                let room = || reserved || self.room_for_one();
                if sh.table.insert(key, b.hashes[i], tag, room) {
                    sh.fresh.extend_from_slice(key);
                    used += 1;
                }
            }
            if reserved {
                self.settle(group.len(), used);
            }
            stored |= used > 0;
        }
        if stored {
            self.deepest
                .fetch_max(self.depth.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        b.keys.clear();
        b.hashes.clear();
    }

    /// The states found since the last call (the next BFS level), moved
    /// out of the shards without a copy.
    pub(crate) fn take_level(&self) -> Level {
        let parts = (0..SHARDS)
            .map(|s| std::mem::take(&mut self.shard(s).fresh))
            .collect();
        Level::new(parts, self.packer.words)
    }

    /// Where `key` is stored: (shard, entry), if it is.
    pub(crate) fn find(&self, key: &[u64]) -> Option<(usize, usize)> {
        let h = hash(key);
        let s = shard_of(h);
        self.shard(s).table.find(key, h).map(|e| (s, e))
    }

    /// The tag stored with entry `e` of shard `s`.
    #[cfg(test)]
    pub(crate) fn tag_at(&self, (s, e): (usize, usize)) -> u64 {
        self.shard(s).table.tag(e)
    }

    /// Entries per shard, empty ones included (for a bitset over them).
    pub(crate) fn slots(&self) -> Vec<usize> {
        (0..SHARDS).map(|s| self.shard(s).table.slots()).collect()
    }

    /// The keys of the states tagged like each of the depths `first -
    /// count + 1 ..= first` (fewer than a period), deepest first: one pass
    /// over the shards for several levels, scanned in parallel on the
    /// caller's rayon pool, in shard order.
    pub(crate) fn keys_tagged(&self, first: usize, count: usize) -> Vec<Vec<u64>> {
        use rayon::prelude::*;
        let period = self.period() as u64;
        let top = self.tag_of_depth(first);
        // Tags run 1..=period: depth first - k has tag top - k, wrapped.
        let which = |t: u64| {
            let k = ((top + period - t) % period) as usize;
            (k < count).then_some(k)
        };
        let parts: Vec<Vec<Vec<u64>>> = (0..SHARDS)
            .into_par_iter()
            .map(|s| {
                let mut out = vec![Vec::new(); count];
                self.shard(s).table.keys_tagged(which, &mut out);
                out
            })
            .collect();
        (0..count)
            .map(|k| parts.iter().flat_map(|p| p[k].iter().copied()).collect())
            .collect()
    }

    /// Every stored state `((shard, entry), key, tag)`, shard by shard.
    pub(crate) fn for_each(&self, mut f: impl FnMut((usize, usize), &[u64], u64)) {
        for s in 0..SHARDS {
            self.shard(s)
                .table
                .for_each(|e, key, tag| f((s, e), key, tag));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store of `bits`-bit states (one position), its tag shortened.
    fn store(bits: u32, max_tag: u32) -> StateStore {
        StateStore::with_packer(Packer::with_widths(vec![bits], max_tag))
    }

    #[test]
    fn every_state_is_kept_once_through_growth() {
        let s = store(32, 24);
        let mut b = Batch::default();
        let mut key = Vec::new();
        // 300,000 distinct states, each offered twice, in batches.
        for round in 0..2 {
            s.set_depth(round);
            for v in 0..300_000u32 {
                s.packer.pack(&[v.wrapping_mul(2_654_435_761)], &mut key);
                s.push(&mut b, &key);
            }
            s.flush(&mut b);
        }
        assert_eq!(s.len(), 300_000);
        assert_eq!(s.take_level().len(), 300_000);
        let mut seen = 0;
        s.for_each(|_, _, tag| {
            assert_eq!(tag, s.tag_of_depth(0));
            seen += 1;
        });
        assert_eq!(seen, 300_000);
        // 8-byte states within 12 bytes each (the shards' growth steps
        // are spread, so the store never swings as one table would).
        assert!(s.bytes_per_state() <= 12.0, "{}", s.bytes_per_state());
    }

    /// The shards' growth steps stay spread as they grow: every shard a
    /// different size, so no two grow at once (with the sizes rounded at
    /// every step, these 64 shards fell into 8 sizes, each 8 shards
    /// growing together: on lock(20, 3) a worker met 7 grows of 0.1 to
    /// 0.2 s in a row).
    #[test]
    fn the_shards_grow_at_different_times() {
        let s = store(32, 24);
        let mut b = Batch::default();
        let mut key = Vec::new();
        for v in 0..2_000_000u32 {
            s.packer.pack(&[v.wrapping_mul(2_654_435_761)], &mut key);
            s.push(&mut b, &key);
        }
        s.flush(&mut b);
        let mut sizes = s.slots();
        sizes.sort_unstable();
        sizes.dedup();
        assert_eq!(sizes.len(), SHARDS, "{sizes:?}");
    }

    /// A level is read across the shards' lists, most of them empty here
    /// (a few states) or not (many): every index gives one of the states
    /// stored, each once.
    #[test]
    fn a_level_reads_every_state_across_the_shards() {
        let s = store(32, 24);
        let mut key = Vec::new();
        for n in [1u32, 5, 40, 100_000] {
            let keys: std::collections::BTreeSet<Vec<u64>> = (0..n)
                .map(|v| {
                    s.packer
                        .pack(&[v.wrapping_mul(2_654_435_761) ^ n], &mut key);
                    assert!(s.insert(&key));
                    key.clone()
                })
                .collect();
            let level = s.take_level();
            assert_eq!(level.len(), n as usize);
            let read: std::collections::BTreeSet<Vec<u64>> =
                (0..level.len()).map(|i| level.packed(i).to_vec()).collect();
            assert_eq!(read, keys);
        }
    }

    #[test]
    fn the_limit_stops_the_count_exactly() {
        let mut s = store(20, 24);
        s.set_limit(Some(1000));
        let mut key = Vec::new();
        for v in 0..5000u32 {
            s.packer.pack(&[v], &mut key);
            s.insert(&key);
        }
        assert_eq!(s.len(), 1000);
        assert!(s.is_full());
    }

    #[test]
    fn tags_wrap_with_the_period() {
        let s = store(16, 2);
        assert_eq!(s.period(), 3);
        assert_eq!(s.tag_of_depth(0), 1);
        assert_eq!(s.tag_of_depth(3), 1);
        let mut key = Vec::new();
        for d in 0..7 {
            s.set_depth(d);
            s.packer.pack(&[d as u32], &mut key);
            assert!(s.insert(&key));
            let at = s.find(&key).expect("stored");
            assert_eq!(s.tag_at(at), s.tag_of_depth(d));
        }
        assert_eq!(s.deepest(), 6);
    }
}
