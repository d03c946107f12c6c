//! A dense view of the explorer's successor memo, for programs whose global
//! and local stores are few: one array indexed by (memo class, global store
//! id, local store id), so that a worker of `standard` finds a thread's
//! successors by one indexed load instead of a hash lookup. On lock(10, 3)
//! the search looks up ten threads per state, and the hash lookups were a
//! fifth of the time spent expanding.
//!
//! The hash memo stays the record; the array mirrors it for the ids it
//! covers (an entry added is written to both) and is rebuilt, larger, when
//! new stores fall outside it (`refresh`, between BFS levels, by the thread
//! that owns the explorer). Past `LIMIT` entries it is dropped and the hash
//! memo alone serves.

use super::explore::Succs;
use std::sync::Arc;

/// The most entries the array may have (8 bytes each).
const LIMIT: usize = 1 << 20;

#[derive(Default)]
pub(crate) struct DenseMemo {
    /// Global store ids covered: `0..globals`.
    globals: usize,
    /// Per memo class: its first entry and the local store ids covered.
    classes: Vec<(usize, usize)>,
    slots: Vec<Option<Arc<Succs>>>,
    /// Some memoised entry lies outside the array.
    stale: bool,
}

impl DenseMemo {
    fn index(&self, class: usize, g: u32, l: u32) -> Option<usize> {
        let &(first, locals) = self.classes.get(class)?;
        ((g as usize) < self.globals && (l as usize) < locals)
            .then(|| first + g as usize * locals + l as usize)
    }

    /// The memoised successors, if the array covers `(class, g, l)`:
    /// `Some(None)` when they are not memoised.
    #[inline]
    pub(crate) fn get(&self, class: usize, g: u32, l: u32) -> Option<Option<&Succs>> {
        let i = self.index(class, g, l)?;
        Some(self.slots[i].as_deref())
    }

    /// Mirrors an entry added to the hash memo.
    pub(crate) fn add(&mut self, class: usize, g: u32, l: u32, succs: &Arc<Succs>) {
        match self.index(class, g, l) {
            Some(i) => self.slots[i] = Some(succs.clone()),
            None => self.stale = true,
        }
    }

    /// Rebuilds the array to cover `globals` global and `locals[c]` local
    /// store ids (with room to grow), from the hash memo, when an entry
    /// fell outside it; drops it when it would pass `LIMIT`.
    pub(crate) fn refresh<'a>(
        &mut self,
        globals: usize,
        locals: &[usize],
        memo: impl Iterator<Item = (usize, u32, u32, &'a Arc<Succs>)>,
    ) {
        if !self.stale {
            return;
        }
        let grow = |n: usize| (n + n / 2).max(4);
        let g = grow(globals);
        let total: usize = locals.iter().map(|&l| g * grow(l)).sum();
        if total > LIMIT {
            *self = DenseMemo::default();
            return;
        }
        let mut first = 0;
        self.classes = locals
            .iter()
            .map(|&l| {
                let c = (first, grow(l));
                first += g * grow(l);
                c
            })
            .collect();
        self.globals = g;
        self.slots = vec![None; total];
        self.stale = false;
        for (class, gid, lid, succs) in memo {
            self.add(class, gid, lid, succs);
        }
    }
}
