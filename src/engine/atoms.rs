//! The atoms of the checked properties: the global slots, thread-local
//! slots and location sets (`@L`) they read. A transition that can change
//! an atom is *visible* (Clarke, Grumberg and Peled, ch. 10, ample-set C2):
//! partial-order reduction (`por/`) never leaves it for later, and
//! Lipton reduction (`lipton/movers.rs`) never moves it.

use crate::program::access::{Slots, expr_reads};
use crate::program::{CExpr, Program};
use rustc_hash::FxHashMap;

/// What the checked properties read: their atoms.
#[derive(Default)]
pub(crate) struct Atoms {
    pub(crate) globals: Slots,
    /// Per thread: the local slots read (slot 0 is the pc).
    pub(crate) locals: FxHashMap<u32, Slots>,
    /// Per thread: the location sets tested (`@L`, `p[1]@L`).
    pub(crate) masks: FxHashMap<u32, Vec<Box<[bool]>>>,
    /// A property reads something no slot names: every transition is visible.
    pub(crate) everything: bool,
}

impl Atoms {
    pub(crate) fn of(prog: &Program, props: &[usize]) -> Atoms {
        let mut a = Atoms::default();
        for &p in props {
            let prop = &prog.properties[p];
            // Deadlocks are preserved without visibility.
            if !prop.only_in_deadlocks {
                a.collect(prog, &prop.error, None);
            }
        }
        a
    }

    /// Collects the atoms of `e`, evaluated with `current` the thread a
    /// `count` body is evaluated for.
    pub(crate) fn collect(&mut self, prog: &Program, e: &CExpr, current: Option<u32>) {
        match e {
            CExpr::Const(_) | CExpr::Tid | CExpr::Term(_) => {}
            CExpr::Global(_) | CExpr::GlobalCell(..) => {
                let mut whole = false;
                expr_reads(e, &mut self.globals, &mut whole);
                self.everything |= whole;
                // The index's locals and locations are atoms too: in
                // `exists(t0: a[k] == 1)` a step writing t0's `k` changes
                // the property (found by fuzzing: `--por` and `--blocks`
                // put such a step off and missed the error).
                if let CExpr::GlobalCell(.., i) = e {
                    self.collect(prog, i, current);
                }
            }
            CExpr::Local(s) => match current {
                Some(t) => self.locals.entry(t).or_default().insert(*s),
                None => self.everything = true,
            },
            CExpr::LocalCell(base, len, _, i) => {
                match current {
                    Some(t) => self.locals.entry(t).or_default().insert_range(*base, *len),
                    None => self.everything = true,
                }
                self.collect(prog, i, current);
            }
            CExpr::At(masks) => match current {
                Some(t) => {
                    let tpl = prog.threads[t as usize].template as usize;
                    self.masks.entry(t).or_default().push(masks[tpl].clone());
                }
                None => self.everything = true,
            },
            CExpr::Un(_, a) => self.collect(prog, a, current),
            CExpr::Bin(_, a, b) => {
                self.collect(prog, a, current);
                self.collect(prog, b, current);
            }
            CExpr::InstLocal(t, s) => self.locals.entry(*t).or_default().insert(*s),
            CExpr::InstLocalCell(t, base, len, _, i) => {
                self.locals.entry(*t).or_default().insert_range(*base, *len);
                self.collect(prog, i, current);
            }
            CExpr::InstAt(t, mask) => self.masks.entry(*t).or_default().push(mask.clone()),
            CExpr::Count(threads, body) => {
                for &t in threads.iter() {
                    self.collect(prog, body, Some(t));
                }
            }
        }
    }
}
