//! `--por`'s states passed through (`pass/`): the states a level's
//! rounds meet, numbered as met, and where each one's chain of passed
//! states leads.

use hashbrown::HashTable;
use std::hash::BuildHasher;

/// Packed states of one width, numbered in the order met: a set with no
/// allocation per state.
pub(super) struct Keys {
    words: usize,
    flat: Vec<u64>,
    table: HashTable<u32>,
}

fn hash(key: &[u64]) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(key)
}

impl Keys {
    pub(super) fn new(words: usize) -> Keys {
        Keys {
            words,
            flat: Vec::new(),
            table: HashTable::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.flat.len() / self.words.max(1)
    }

    pub(super) fn get(&self, id: u32) -> &[u64] {
        let at = id as usize * self.words;
        &self.flat[at..at + self.words]
    }

    pub(super) fn find(&self, key: &[u64]) -> Option<u32> {
        let (flat, w) = (&self.flat, self.words);
        let at = |id: u32| &flat[id as usize * w..(id as usize + 1) * w];
        self.table.find(hash(key), |&id| at(id) == key).copied()
    }

    /// The number of `key`, and whether it is new.
    pub(super) fn intern(&mut self, key: &[u64]) -> (u32, bool) {
        if let Some(id) = self.find(key) {
            return (id, false);
        }
        let id = self.len() as u32;
        self.flat.extend_from_slice(key);
        let (flat, w) = (&self.flat, self.words);
        let at = |id: u32| &flat[id as usize * w..(id as usize + 1) * w];
        self.table.insert_unique(hash(key), id, |&id| hash(at(id)));
        (id, true)
    }
}

/// `next` of a state not passed through: it is stored (or was already).
pub(super) const STORED: u32 = u32::MAX;
/// `next` of a state not looked at yet.
pub(super) const OPEN: u32 = u32::MAX - 1;
/// `end` of a state on a cycle of passed states, or leading into one.
pub(super) const CYCLE: u32 = u32::MAX;
/// `end` while it is worked out.
pub(super) const UNSET: u32 = u32::MAX - 1;
pub(super) const ON_PATH: u32 = u32::MAX - 2;

/// Where each state met leads (`Passed::end`), from the one step of each
/// (`next`), and the most states passed through on one chain.
pub(super) fn ends(next: &[u32]) -> (Vec<u32>, usize) {
    let mut end = vec![UNSET; next.len()];
    // Per state: how many passed states its chain holds, itself included.
    let mut length = vec![0usize; next.len()];
    let mut path = Vec::new();
    let mut longest = 0;
    for start in 0..next.len() {
        let mut cur = start;
        let (to, mut len) = loop {
            match end[cur] {
                UNSET => {}
                ON_PATH => break (CYCLE, 0),
                e => break (e, length[cur]),
            }
            if next[cur] == STORED {
                end[cur] = cur as u32;
                break (cur as u32, 0);
            }
            end[cur] = ON_PATH;
            path.push(cur);
            cur = next[cur] as usize;
        };
        for &p in path.iter().rev() {
            len += 1;
            end[p] = to;
            length[p] = len;
        }
        // (A chain into a cycle leads to no stored state.)
        if to != CYCLE {
            longest = longest.max(len);
        }
        path.clear();
    }
    (end, longest)
}

#[cfg(test)]
mod tests {
    use super::super::Passed;
    use super::*;

    #[test]
    fn ends_follow_chains_to_stored_states_and_mark_cycles() {
        // 0 -> 1 -> 2 (stored); 3 -> 4 -> 3 (a cycle); 5 -> 3 (into it); 6 stored.
        let next = [1, 2, STORED, 4, 3, 3, STORED];
        let (end, longest) = ends(&next);
        assert_eq!(end, vec![2, 2, 2, CYCLE, CYCLE, CYCLE, 6]);
        assert_eq!(longest, 2);
    }

    #[test]
    fn keys_number_states_in_the_order_met() {
        let mut keys = Keys::new(2);
        assert_eq!(keys.intern(&[1, 2]), (0, true));
        assert_eq!(keys.intern(&[3, 4]), (1, true));
        assert_eq!(keys.intern(&[1, 2]), (0, false));
        assert_eq!(keys.get(1), &[3, 4]);
        assert_eq!(keys.find(&[5, 6]), None);
        let passed = Passed {
            keys,
            end: vec![1, CYCLE],
            any: true,
        };
        assert_eq!(passed.lead(&[1, 2]), Some(&[3, 4][..]));
        assert_eq!(passed.lead(&[3, 4]), None);
        assert_eq!(passed.lead(&[7, 7]), Some(&[7, 7][..]));
    }
}
