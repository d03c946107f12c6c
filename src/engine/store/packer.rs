//! Bit-packing of states `[g, l_1, .., l_n]` (interned store ids) into
//! fixed-width words: each position gets ceil(log2(bound)) bits, where the
//! bound is the number of stores its domains allow (the product of the
//! variables' domain sizes, times the locations for a local store), capped
//! at 32 bits. The top bits of the last word are left for the visited
//! set's depth tag: at least `MIN_TAG_BITS`, and all the spare bits up to
//! `MAX_TAG_BITS`, so that the tag's period (the depth at which two BFS
//! levels share a tag) is as long as the words allow.

use crate::program::{Layout, Program};

/// The fewest bits the depth tag gets (a period of 255 levels).
const MIN_TAG_BITS: u32 = 8;
/// The most (a period of about 16 million levels).
const MAX_TAG_BITS: u32 = 24;

#[cfg(test)]
thread_local! {
    /// Tests shorten the tag on their thread to make BFS levels share tags
    /// (and so exercise the traces' rebuilding past the tag's period).
    pub(crate) static TAG_BITS_FOR_TESTS: std::cell::Cell<u32> =
        const { std::cell::Cell::new(MAX_TAG_BITS) };
}

pub(crate) struct Packer {
    /// Bits per position; position 0 is the global store.
    widths: Vec<u32>,
    /// First bit of each position.
    offsets: Vec<u32>,
    pub(crate) words: usize,
    /// Bits of the depth tag, at the top of the last word.
    pub(crate) tag_bits: u32,
}

impl Packer {
    /// Bits of a store's id: ceil(log2) of the stores its domains allow.
    pub(crate) fn store_bits(layout: &Layout, locations: usize) -> u32 {
        store_bits(layout, locations)
    }

    /// A packer for positions of these widths, with the tag as long as
    /// the words allow (shortened by tests, as `new`'s).
    pub(crate) fn for_widths(widths: Vec<u32>) -> Packer {
        #[cfg(test)]
        let max_tag = TAG_BITS_FOR_TESTS.with(|b| b.get());
        #[cfg(not(test))]
        let max_tag = MAX_TAG_BITS;
        Packer::with_widths(widths, max_tag)
    }
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
        Packer::for_widths(widths)
    }

    /// A packer for positions of these widths, the tag given at most
    /// `max_tag` bits (tests shorten it to reach the tag's wrap-around).
    pub(crate) fn with_widths(widths: Vec<u32>, max_tag: u32) -> Packer {
        let mut offsets = Vec::with_capacity(widths.len());
        let mut bits = 0u32;
        for &w in &widths {
            offsets.push(bits);
            bits += w;
        }
        let words = (bits + MIN_TAG_BITS).div_ceil(64) as usize;
        let spare = 64 * words as u32 - bits;
        Packer {
            widths,
            offsets,
            words,
            tag_bits: spare.min(max_tag),
        }
    }

    /// Packs a whole state, streaming the fields through a 64-bit
    /// accumulator (a state of a hundred threads is packed at every
    /// successor under `--symmetry`: field-by-field writes cost three times
    /// as much).
    pub(crate) fn pack(&self, state: &[u32], out: &mut Vec<u64>) {
        out.clear();
        out.resize(self.words, 0);
        let (mut acc, mut used, mut word) = (0u64, 0u32, 0usize);
        for (&v, &w) in state.iter().zip(&self.widths) {
            debug_assert!(w == 32 || v >> w == 0, "store id exceeds its domain bound");
            let v = v as u64;
            acc |= v << used;
            used += w;
            if used >= 64 {
                out[word] = acc;
                word += 1;
                used -= 64;
                // The bits of `v` that did not fit.
                acc = if used == 0 { 0 } else { v >> (w - used) };
            }
        }
        if used > 0 {
            out[word] = acc;
        }
    }

    /// Writes position `pos` of packed words (its bits must be clear, or
    /// hold an old value: they are overwritten).
    #[inline]
    pub(crate) fn put(&self, words: &mut [u64], pos: usize, v: u32) {
        let (w, bit) = (self.widths[pos], self.offsets[pos] as usize);
        debug_assert!(w == 32 || v >> w == 0, "store id exceeds its domain bound");
        let (word, off) = (bit / 64, bit % 64);
        let mask = (1u64 << w) - 1;
        words[word] = (words[word] & !(mask << off)) | ((v as u64) << off);
        if off + w as usize > 64 {
            let hi = 64 - off;
            words[word + 1] = (words[word + 1] & !(mask >> hi)) | ((v as u64) >> hi);
        }
    }

    /// Unpacks a whole state, streaming the words (see `pack`).
    pub(crate) fn unpack(&self, words: &[u64], out: &mut Vec<u32>) {
        out.clear();
        out.reserve(self.widths.len());
        let (mut acc, mut left, mut next) = (0u64, 0u32, 0usize);
        for &w in &self.widths {
            let mask = (1u64 << w) - 1;
            let v = if left >= w {
                let v = acc & mask;
                acc = if w == 64 { 0 } else { acc >> w };
                left -= w;
                v
            } else {
                // The low `left` bits come from `acc`, the rest from the
                // next word.
                let fresh = words[next];
                next += 1;
                let v = (acc | (fresh << left)) & mask;
                let taken = w - left;
                acc = fresh >> taken;
                left = 64 - taken;
                v
            };
            out.push(v as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_across_word_boundaries() {
        let p = Packer::with_widths(vec![30, 30, 10, 32, 3], 24);
        assert_eq!(p.words, 2);
        // 105 bits of state leave 23 for the tag.
        assert_eq!(p.tag_bits, 23);
        let state = [(1 << 30) - 1, 12345, 1023, u32::MAX, 5];
        let mut w = Vec::new();
        p.pack(&state, &mut w);
        let mut back = Vec::new();
        p.unpack(&w, &mut back);
        assert_eq!(back, state);
        p.put(&mut w, 1, 7);
        p.put(&mut w, 3, 0);
        p.unpack(&w, &mut back);
        assert_eq!(back, [(1 << 30) - 1, 7, 1023, 0, 5]);
        // The tag's bits stay clear.
        assert_eq!(w[1] >> (64 - p.tag_bits), 0);
    }
}
