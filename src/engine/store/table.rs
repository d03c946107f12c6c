//! One shard of the visited set: an open-addressing table of packed states
//! in buckets of a cache line (8 states of 8 bytes), probed linearly bucket
//! by bucket from a key's home bucket (`hash * n >> 64`, Lemire's
//! multiply-shift). Entries are the packed states themselves: no arena, no
//! index, no control bytes, no per-entry heap.
//!
//! Why this layout:
//! - A key goes into the first bucket from its home that has room, and
//!   entries are never removed, so a lookup stops at the first bucket with
//!   an empty entry: at 90% load that is one bucket, rarely two, and no
//!   hash is recomputed (keys are compared whole).
//! - The home grows with the hash, so growing is a near-sequential pass:
//!   the old buckets are read in order and their entries land in the same
//!   order of new buckets, a cache line at a time, with no random writes.
//!   A table grows by half when it is 90% full, so it is 60% to 90% full;
//!   the shards of a store start at sizes spread over one growth step, so
//!   they grow at different times and the store as a whole stays near the
//!   average, about 11 bytes per 8-byte state (a table that doubles swings
//!   between 8.9 and 17.8). Growing by a quarter kept the store tighter
//!   but moved every state five times; cuckoo hashing with a random rehash
//!   was twice as slow on lock(10, 3).
//!
//! An entry is `words` u64s; the top `tag_bits` of its last word hold the
//! state's BFS depth tag (`1 + depth mod period`, never 0), so an entry
//! whose last word is 0 is empty, and keys (tag bits clear) are compared
//! and hashed with the tag masked off.

/// The table grows when its load would pass this.
const MAX_LOAD: f64 = 0.9;
/// ... by this factor.
const GROWTH: f64 = 1.5;
/// ... or by this factor more, when a run of full buckets reached the end
/// of the grown table.
const RETRY_GROWTH: f64 = 1.25;
/// Buckets past the last home, so that a run of full buckets at the end of
/// the table has room to spill; the table grows early if it would spill
/// further.
const SPILL: usize = 4;

/// Entries per bucket: a cache line of 8-byte states.
fn bucket_entries(words: usize) -> usize {
    if words == 1 { 8 } else { 4 }
}

/// 64-bit finaliser of MurmurHash3: every input bit affects every output
/// bit, so both the shard (low bits) and the home (high bits, through
/// `reduce`) are well spread.
#[inline]
pub(crate) fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The hash of a key (tag bits clear).
#[inline]
pub(crate) fn hash(key: &[u64]) -> u64 {
    let mut h = 0u64;
    for &w in key {
        h = mix(h ^ w);
    }
    h
}

/// Zeroed words whose first one starts a cache line, so that a bucket of
/// 64 bytes is one line (one miss, one prefetch) and not two.
pub(crate) struct Lines {
    buf: Vec<u64>,
    off: usize,
    len: usize,
}

impl Lines {
    /// `n` zeroed words. A large table is marked for transparent huge
    /// pages: it is read at random, and with 4 KiB pages nearly every
    /// lookup would also miss the TLB (the kernel's default is to give
    /// huge pages only to ranges that ask, `madvise`).
    fn zeroed(n: usize) -> Lines {
        let buf = vec![0u64; n + 8];
        let off = (buf.as_ptr() as usize).next_multiple_of(64) - buf.as_ptr() as usize;
        #[cfg(target_os = "linux")]
        if n * 8 >= 4 << 20 {
            const HUGE: usize = 2 << 20;
            let start = buf.as_ptr() as usize;
            let aligned = start.next_multiple_of(HUGE);
            let end = (start + n * 8) / HUGE * HUGE;
            if end > aligned {
                // SAFETY: the range lies inside `buf`'s allocation, and
                // MADV_HUGEPAGE only changes how the kernel backs it (the
                // contents, zeros, stay). A failure is harmless.
                unsafe {
                    libc::madvise(
                        aligned as *mut libc::c_void,
                        end - aligned,
                        libc::MADV_HUGEPAGE,
                    );
                }
            }
        }
        Lines {
            buf,
            off: off / 8,
            len: n,
        }
    }

    fn bytes(&self) -> usize {
        self.buf.capacity() * 8
    }
}

impl std::ops::Deref for Lines {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        &self.buf[self.off..self.off + self.len]
    }
}

impl std::ops::DerefMut for Lines {
    fn deref_mut(&mut self) -> &mut [u64] {
        &mut self.buf[self.off..self.off + self.len]
    }
}

/// Maps a hash onto `0..n`, preserving order, without a division.
#[inline]
fn reduce(h: u64, n: usize) -> usize {
    ((h as u128 * n as u128) >> 64) as usize
}

pub(crate) struct Table {
    words: usize,
    per_bucket: usize,
    /// Mask of the tag bits in an entry's last word.
    tag_mask: u64,
    /// Home buckets are `0..homes`; the table has `SPILL` buckets more.
    homes: usize,
    /// `homes` before rounding up: the growth steps multiply this, not
    /// `homes`, so that shards started a fraction of a step apart stay
    /// apart (rounded at every step, 64 shards started at 16 to 24 homes
    /// fell into 9 to 13 sizes that grew together, 7 or so at once: a
    /// second's pause and the store's load swinging as one table's).
    aim: f64,
    slots: Lines,
    len: usize,
}

/// Where a key is, or where it would go.
enum Probe {
    Found(usize),
    /// The first empty entry of the first bucket with room.
    Vacant(usize),
    /// Every bucket up to the end of the table is full.
    Spilled,
}

impl Table {
    /// An empty table whose size is `phase` (in `0..1`) of the way through
    /// a growth step: the shards of a store are given phases spread evenly,
    /// so that they grow at different times and the store's total load
    /// stays near its average rather than swinging with every step.
    pub(crate) fn new(words: usize, tag_bits: u32, phase: f64) -> Table {
        let per_bucket = bucket_entries(words);
        let aim = 16.0 * GROWTH.powf(phase);
        let homes = aim.ceil() as usize;
        Table {
            aim,
            words,
            per_bucket,
            tag_mask: !0u64 << (64 - tag_bits),
            homes,
            slots: Lines::zeroed((homes + SPILL) * per_bucket * words),
            len: 0,
        }
    }

    /// Bytes held by the table.
    pub(crate) fn bytes(&self) -> usize {
        self.slots.bytes()
    }

    /// Entries the table has room for (empty ones included).
    pub(crate) fn slots(&self) -> usize {
        (self.homes + SPILL) * self.per_bucket
    }

    #[inline]
    fn is_empty(&self, e: usize) -> bool {
        self.slots[(e + 1) * self.words - 1] == 0
    }

    /// Does the non-empty entry `e` hold `key` (whatever its tag)?
    #[inline]
    fn holds(&self, e: usize, key: &[u64]) -> bool {
        let w = self.words;
        let ent = &self.slots[e * w..(e + 1) * w];
        // Word by word: states are a word or two, where `memcmp` costs
        // more than the comparison.
        (0..w - 1).all(|i| ent[i] == key[i]) && ent[w - 1] & !self.tag_mask == key[w - 1]
    }

    /// Finds `key` (hash `h`), or where it would go.
    #[inline]
    fn probe(&self, key: &[u64], h: u64) -> Probe {
        if self.words == 1 {
            return self.probe_word(key[0], h);
        }
        let mut b = reduce(h, self.homes);
        while b < self.homes + SPILL {
            let first = b * self.per_bucket;
            for e in first..first + self.per_bucket {
                if self.is_empty(e) {
                    // Buckets fill from the left and never lose an entry:
                    // had the key been stored, it would be before here.
                    return Probe::Vacant(e);
                }
                if self.holds(e, key) {
                    return Probe::Found(e);
                }
            }
            b += 1;
        }
        Probe::Spilled
    }

    /// `probe` for one-word states: a bucket is a cache line of 8 words,
    /// compared all at once into two bit masks (matches and empties), so
    /// that a bucket costs one branch rather than one per entry: the
    /// entries' branches were mispredicted half the time.
    #[inline]
    fn probe_word(&self, key: u64, h: u64) -> Probe {
        let keep = !self.tag_mask;
        let mut b = reduce(h, self.homes);
        while b < self.homes + SPILL {
            let first = b * 8;
            let line: &[u64; 8] = self.slots[first..first + 8]
                .try_into()
                .expect("a bucket is 8 words");
            let (mut hit, mut empty) = (0u32, 0u32);
            for (i, &w) in line.iter().enumerate() {
                hit |= ((w != 0 && w & keep == key) as u32) << i;
                empty |= ((w == 0) as u32) << i;
            }
            if hit != 0 {
                return Probe::Found(first + hit.trailing_zeros() as usize);
            }
            if empty != 0 {
                // Buckets fill from the left and never lose an entry: had
                // the key been stored, it would be before here.
                return Probe::Vacant(first + empty.trailing_zeros() as usize);
            }
            b += 1;
        }
        Probe::Spilled
    }

    /// Asks the CPU to fetch the home bucket of a key hashed `h` and the
    /// cache line after the bucket's first (for states of one or two words
    /// the next bucket, where the key goes, or is, when its home is full:
    /// lock(10, 3) reads 50 M buckets for 23.6 M inserts): the batch
    /// inserts of `StateStore` issue it a few keys ahead.
    #[inline]
    pub(crate) fn prefetch(&self, h: u64) {
        let i = reduce(h, self.homes) * self.per_bucket * self.words;
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `i` is inside `slots`, and a prefetch neither reads nor
        // writes memory (it cannot fault).
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch(self.slots.as_ptr().add(i) as *const i8, _MM_HINT_T0);
            // The next line is inside the table too: it has `SPILL`
            // buckets past the last home (or the home bucket is longer).
            _mm_prefetch(self.slots.as_ptr().add(i + 8) as *const i8, _MM_HINT_T0);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    /// The entry holding `key` (hash `h`), if the table holds it.
    pub(crate) fn find(&self, key: &[u64], h: u64) -> Option<usize> {
        match self.probe(key, h) {
            Probe::Found(e) => Some(e),
            _ => None,
        }
    }

    /// The tag of entry `e`.
    pub(crate) fn tag(&self, e: usize) -> u64 {
        (self.slots[(e + 1) * self.words - 1] & self.tag_mask) >> self.tag_mask.trailing_zeros()
    }

    /// Inserts `key` (hash `h`) with `tag` unless it is there: true when
    /// it was new. `room` is asked before a new key is stored (the state
    /// budget); a key it refuses is not stored and false is returned.
    #[inline]
    pub(crate) fn insert(
        &mut self,
        key: &[u64],
        h: u64,
        tag: u64,
        room: impl FnOnce() -> bool,
    ) -> bool {
        let mut at = match self.probe(key, h) {
            Probe::Found(_) => return false,
            Probe::Vacant(e) => Some(e),
            Probe::Spilled => None,
        };
        if !room() {
            return false;
        }
        let full = (self.len + 1) as f64 > MAX_LOAD * (self.homes * self.per_bucket) as f64;
        if full {
            self.grow();
            at = self.vacancy(h);
        }
        // No room from the key's home to the end of the table (a grown
        // table is sized for the old entries, so this can follow a growth
        // too): grow until there is.
        let e = loop {
            match at {
                Some(e) => break e,
                None => {
                    self.grow();
                    at = self.vacancy(h);
                }
            }
        };
        let w = self.words;
        let ent = &mut self.slots[e * w..(e + 1) * w];
        ent.copy_from_slice(key);
        ent[w - 1] |= tag << self.tag_mask.trailing_zeros();
        self.len += 1;
        true
    }

    /// The first empty entry from the home bucket of hash `h` on.
    #[inline]
    fn vacancy(&self, h: u64) -> Option<usize> {
        let first = reduce(h, self.homes) * self.per_bucket;
        (first..self.slots()).find(|&e| self.is_empty(e))
    }

    /// The hash of entry `e`'s key.
    fn entry_hash(&self, e: usize) -> u64 {
        let w = self.words;
        let mut h = 0u64;
        for i in 0..w {
            let mut x = self.slots[e * w + i];
            if i == w - 1 {
                x &= !self.tag_mask;
            }
            h = mix(h ^ x);
        }
        h
    }

    /// Moves the entries into a table `GROWTH` times larger, reading the old
    /// buckets in order (see the module header).
    fn grow(&mut self) {
        let mut aim = self.aim * GROWTH;
        let mut homes = (aim.ceil() as usize).max(self.homes + 1);
        let (w, per) = (self.words, self.per_bucket);
        'retry: loop {
            let mut new = Table {
                words: w,
                per_bucket: per,
                tag_mask: self.tag_mask,
                homes,
                aim,
                slots: Lines::zeroed((homes + SPILL) * per * w),
                len: self.len,
            };
            // How full each new bucket is: a bucket fills from the left,
            // so its next entry goes at `fill`, found without reading the
            // new table (scanning it entry by entry was most of the cost).
            let mut fill = vec![0u8; homes + SPILL];
            for (e, old) in self.slots.chunks_exact(w).enumerate() {
                if old[w - 1] == 0 {
                    continue;
                }
                let mut b = reduce(self.entry_hash(e), homes);
                while b < fill.len() && fill[b] as usize == per {
                    b += 1;
                }
                if b == fill.len() {
                    // A run of full buckets reached the end: larger still.
                    aim *= RETRY_GROWTH;
                    homes = (aim.ceil() as usize).max(homes + 1);
                    continue 'retry;
                }
                let to = b * per + fill[b] as usize;
                fill[b] += 1;
                new.slots[to * w..(to + 1) * w].copy_from_slice(old);
            }
            *self = new;
            return;
        }
    }

    /// Appends the key of each entry whose tag `which` maps to `Some(k)`
    /// to `out[k]` (tag bits cleared): one sequential pass, the trace
    /// rebuilding's inner loop.
    pub(crate) fn keys_tagged(&self, which: impl Fn(u64) -> Option<usize>, out: &mut [Vec<u64>]) {
        let (w, shift) = (self.words, self.tag_mask.trailing_zeros());
        let keep = !self.tag_mask;
        for ent in self.slots.chunks_exact(w) {
            let last = ent[w - 1];
            if last == 0 {
                continue;
            }
            if let Some(k) = which((last & self.tag_mask) >> shift) {
                out[k].extend_from_slice(&ent[..w - 1]);
                out[k].push(last & keep);
            }
        }
    }

    /// Every entry `(index, key, tag)`, in table order; the key is written
    /// with its tag bits cleared.
    pub(crate) fn for_each(&self, mut f: impl FnMut(usize, &[u64], u64)) {
        let w = self.words;
        let mut key = vec![0u64; w];
        for e in 0..self.slots() {
            if self.is_empty(e) {
                continue;
            }
            key.copy_from_slice(&self.slots[e * w..(e + 1) * w]);
            key[w - 1] &= !self.tag_mask;
            f(e, &key, self.tag(e));
        }
    }
}
