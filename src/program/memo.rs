//! The explorer's successor memo: `(memo class, g, l) -> successors`, a
//! cache shared by every engine (a state's threads are stepped from the
//! same `(g, l)` again and again where the global stores are few: lock
//! schemas, szymanski, fischer).
//!
//! A cache must not crowd out what the run needs. Where nearly every state
//! has a global store of its own (plc.4), the memo fills with entries that
//! save little: its 4 million entries took 550 MB beside the 330 MB its
//! search needs, and with `--max-memory 500` it stopped `unknown` after
//! 44% of its states. So the memo takes at most `MEMO_LIMIT` entries, and
//! past its share of the memory budget (`MEMO_SHARE`) it takes no more
//! once the resident memory has reached half the budget; successors not in
//! it are computed again each time. (Not before: a memo read again and
//! again, as fischer.3's, costs its search little memory, since successors
//! that are not kept are held for a chunk of a level anyway, and a memo
//! stopped at its share for good made fischer.3 within 240 MiB 30% slower
//! for nothing.)
//!
//! (Sweeping out the entries not read since the last sweep when full, so
//! that the memo follows the search, was tried and lost: fischer.3 within
//! 160 MiB took 17.5 s against 14.2 s with the memo stopped at its share
//! for good, and 10.4 s with no bound; plc.4 gained nothing.)

use super::dense_memo::DenseMemo;
use super::explore::{Step, Succs};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// Memo entries kept at most (and as many rendezvous offers).
pub(super) const MEMO_LIMIT: usize = 4_000_000;

/// Once the memory is pressed, the memo takes at most this fraction (1/n)
/// of the memory budget.
pub(super) const MEMO_SHARE: u64 = 4;

/// What a memo entry takes besides its blocks on the heap (`heap_block`):
/// the table's slot (a key and a pointer, 16 bytes, and a control byte)
/// at the table's average load (between 7/16 and 7/8 full).
pub(super) const MEMO_SLOT: u64 = 24;

/// What glibc's allocator takes for a block of `bytes` on x86-64: 8 bytes
/// of header, rounded up to 16, at least 32; nothing for no block.
pub(super) fn heap_block(bytes: usize) -> u64 {
    match bytes {
        0 => 0,
        _ => ((bytes + 8).div_ceil(16).max(2) * 16) as u64,
    }
}

/// What the memo entry of `succs` takes, estimated: its slot, the `Arc`'s
/// block (two counts and the `Succs`), its steps' and its error's blocks.
/// plc.4's 4 million entries are estimated at 540 MB; they took 550 MB.
fn entry_bytes(succs: &Succs) -> u64 {
    let error = succs.error.as_ref().map_or(0, |e| e.1.capacity());
    MEMO_SLOT
        + heap_block(16 + size_of::<Succs>())
        + heap_block(size_of::<Step>() * succs.steps.capacity())
        + heap_block(error)
}

pub(crate) struct Memo {
    /// Per memo class.
    maps: Vec<FxHashMap<(u32, u32), Arc<Succs>>>,
    /// The maps again as an array, while the stores are few.
    dense: DenseMemo,
    /// Entries in `maps`, and the most there may be (0: no memo).
    entries: usize,
    limit: usize,
    /// What the entries take, estimated (`entry_bytes`), with what the
    /// rendezvous offers' memo takes (`charge`), and the most they may.
    bytes: u64,
    byte_limit: u64,
}

impl Memo {
    pub(super) fn new(classes: usize) -> Memo {
        Memo {
            maps: (0..classes).map(|_| FxHashMap::default()).collect(),
            dense: DenseMemo::default(),
            entries: 0,
            limit: MEMO_LIMIT,
            bytes: 0,
            byte_limit: u64::MAX,
        }
    }

    /// No memo: every lookup misses, nothing is kept.
    pub(super) fn turn_off(&mut self) {
        self.limit = 0;
    }

    /// At most `bytes` (estimated) kept; `None`: no bound but `MEMO_LIMIT`.
    pub(super) fn set_byte_limit(&mut self, bytes: Option<u64>) {
        self.byte_limit = bytes.unwrap_or(u64::MAX);
    }

    /// Forgets every entry (the offers' memo is cleared beside it).
    pub(super) fn clear(&mut self) {
        self.maps.iter_mut().for_each(FxHashMap::clear);
        self.dense = DenseMemo::default();
        self.entries = 0;
        self.bytes = 0;
    }

    /// The entry of `(class, g, l)`, read by the explorer's owner.
    pub(super) fn get(&self, class: usize, g: u32, l: u32) -> Option<&Arc<Succs>> {
        self.maps[class].get(&(g, l))
    }

    /// The entry of `(class, g, l)`, read by a worker of a parallel
    /// search: the array first.
    #[inline]
    pub(super) fn get_shared(&self, class: usize, g: u32, l: u32) -> Option<&Succs> {
        if let Some(found) = self.dense.get(class, g, l) {
            return found;
        }
        self.maps[class].get(&(g, l)).map(|s| &**s)
    }

    /// Keeps `succs` as the entry of `(class, g, l)` if there is room
    /// for it: past its share of the budget, only while the memory is not
    /// `pressed`.
    pub(super) fn keep(
        &mut self,
        (class, g, l): (usize, u32, u32),
        succs: &Arc<Succs>,
        pressed: impl FnOnce() -> bool,
    ) {
        let bytes = entry_bytes(succs);
        let past_share = self.bytes.saturating_add(bytes) > self.byte_limit;
        if self.entries >= self.limit || past_share && pressed() {
            return;
        }
        self.maps[class].insert((g, l), succs.clone());
        self.dense.add(class, g, l, succs);
        self.entries += 1;
        self.bytes += bytes;
    }

    /// Counts `bytes` more of the offers' memo (`rendezvous.rs`), which
    /// shares the bound in bytes, if there is room for them (as `keep`).
    pub(super) fn charge(&mut self, bytes: u64, pressed: impl FnOnce() -> bool) -> bool {
        let room = self.bytes.saturating_add(bytes) <= self.byte_limit || !pressed();
        if room {
            self.bytes += bytes;
        }
        room
    }

    /// Entries kept, and what they take (estimated).
    #[cfg(test)]
    pub(crate) fn size(&self) -> (usize, u64) {
        (self.entries, self.bytes)
    }

    /// Brings the array up to date with `globals` global and `locals[c]`
    /// local store ids per class (cheap when nothing fell outside it).
    pub(super) fn refresh_dense(&mut self, globals: usize, locals: &[usize]) {
        let memo = self
            .maps
            .iter()
            .enumerate()
            .flat_map(|(c, m)| m.iter().map(move |(&(g, l), s)| (c, g, l, s)));
        self.dense.refresh(globals, locals, memo);
    }
}
