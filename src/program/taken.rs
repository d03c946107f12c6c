//! Which transitions a run took (`--show coverage`): SPIN's "unreached in
//! proctype" after a search, TLC's action coverage. The explorer marks a
//! transition when firing it, in some state an engine asked about, gave a
//! step or a run-time model error; a rendezvous marks both its sides.
//! Marking is atomic, as standard's workers fire read-only in parallel.

use super::Program;
use std::sync::atomic::{AtomicU64, Ordering};

/// One bit per transition of every template.
#[derive(Debug)]
pub(crate) struct Taken {
    /// Per template, the index of its first transition's bit.
    base: Vec<usize>,
    bits: Vec<AtomicU64>,
}

impl Taken {
    pub(crate) fn new(prog: &Program) -> Taken {
        let mut base = Vec::with_capacity(prog.templates.len());
        let mut total = 0;
        for tpl in &prog.templates {
            base.push(total);
            total += tpl.transitions.len();
        }
        Taken {
            base,
            bits: (0..total.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Marks transition `trans` of `template` as taken.
    pub(crate) fn mark(&self, template: usize, trans: u32) {
        let bit = self.base[template] + trans as usize;
        let (word, mask) = (&self.bits[bit / 64], 1u64 << (bit % 64));
        // Read first: once set, the line stays shared between the workers.
        if word.load(Ordering::Relaxed) & mask == 0 {
            word.fetch_or(mask, Ordering::Relaxed);
        }
    }

    pub(crate) fn is_taken(&self, template: usize, trans: u32) -> bool {
        let bit = self.base[template] + trans as usize;
        self.bits[bit / 64].load(Ordering::Relaxed) & (1u64 << (bit % 64)) != 0
    }
}
