//! The global stores an exception set is instantiated at (Malkis, Podelski
//! and Rybalchenko, Section 4.3: E(g) per global store g). An entry holds at
//! the stores where its `when` does; the inferred ranges bound the stores
//! there are, but enumerating all of them and evaluating every entry at
//! each is the whole cost of loading a set whose entries each pin one store
//! (`refine --save-exceptions` writes `x == 1 && t[0] == 2 && ...` naming
//! every global) and refuses it outright where hidden scheduler state puts
//! the stores past the bound. So each entry's `when` narrows the ranges to a
//! box first, through the comparisons of a global with a constant that it
//! conjoins; the entry is instantiated at the stores of its box only, and
//! its `when` is still evaluated there (the box only over-approximates it).

use crate::program::interner::Interner;
use crate::program::ops::{BinOp, UnOp};
use crate::program::ranges::Interval;
use crate::program::{CExpr, Program, Val};
use rustc_hash::FxHashMap;

/// How many times `limit` the entries' boxes may hold in all (counting a
/// store once per box) before they are given up for every store.
const OVERLAP: usize = 8;

/// The global stores to instantiate an exception set at, and per store the
/// entries to instantiate there.
pub(crate) struct Admitted {
    /// The stores, interned, in mixed-radix order of the ranges, as when
    /// every store was enumerated: E's products come out in the same order.
    /// (Their ids are not the same: only these stores are interned before
    /// the search, so where a fixpoint holds several alarms, the one
    /// reported, at the lowest id, may be another.)
    pub(crate) gs: Vec<u32>,
    /// Entries whose `when` narrows nothing: instantiated at every store.
    everywhere: Vec<usize>,
    /// Per store, the entries whose box holds it (ascending).
    narrowed: FxHashMap<u32, Vec<usize>>,
}

impl Admitted {
    /// The stores of the entries' boxes within the ranges `globals`,
    /// interned in `interner`; `None` when more than `limit` distinct
    /// stores are needed (every store of the ranges, if an entry narrows
    /// nothing).
    pub(crate) fn new(
        prog: &Program,
        globals: &[Interval],
        interner: &mut Interner,
        limit: usize,
    ) -> Option<Admitted> {
        let mut everywhere = Vec::new();
        let mut boxes: Vec<(usize, Vec<Interval>)> = Vec::new();
        for (e, entry) in prog.exceptions.iter().enumerate() {
            let mut b = globals.to_vec();
            if let Some(when) = &entry.when {
                narrow(when, &mut b);
            }
            if b.iter().any(|(lo, hi)| lo > hi) {
                continue; // the entry holds nowhere in the ranges
            }
            if b == globals {
                everywhere.push(e);
            } else {
                boxes.push((e, b));
            }
        }
        // The boxes are enumerated one by one, a store held by several
        // counted once; past `OVERLAP` times the limit in all, that costs
        // more than trying every entry at every store, which is done then.
        let boxed: f64 = boxes.iter().map(|(_, b)| stores_in(b)).sum();
        if boxed > (OVERLAP * limit) as f64 {
            everywhere.extend(boxes.drain(..).map(|(e, _)| e));
            everywhere.sort_unstable();
        }
        if !everywhere.is_empty() && stores_in(globals) > limit as f64 {
            return None;
        }
        let mut narrowed: FxHashMap<Vec<Val>, Vec<usize>> = FxHashMap::default();
        for (e, b) in &boxes {
            for store in enumerate(b, limit)? {
                narrowed.entry(store).or_default().push(*e);
            }
            if narrowed.len() > limit {
                return None;
            }
        }
        let gs: Vec<u32> = if everywhere.is_empty() {
            let mut stores: Vec<&Vec<Val>> = narrowed.keys().collect();
            stores.sort_unstable();
            stores.into_iter().map(|s| interner.intern(s)).collect()
        } else {
            let all = enumerate(globals, limit)?;
            all.iter().map(|s| interner.intern(s)).collect()
        };
        let narrowed = narrowed
            .into_iter()
            .map(|(store, entries)| (interner.intern(&store), entries))
            .collect();
        Some(Admitted {
            gs,
            everywhere,
            narrowed,
        })
    }

    /// The entries to instantiate at store `g` (one of `gs`), ascending,
    /// into `out`.
    pub(crate) fn entries_at(&self, g: u32, out: &mut Vec<usize>) {
        out.clear();
        out.extend_from_slice(&self.everywhere);
        if let Some(entries) = self.narrowed.get(&g) {
            out.extend_from_slice(entries);
            out.sort_unstable();
        }
    }
}

/// How many stores a box holds.
fn stores_in(b: &[Interval]) -> f64 {
    b.iter().map(|(lo, hi)| (hi - lo + 1) as f64).product()
}

/// Every store of a box, in mixed-radix order (the first slot the most
/// significant, each from low to high); `None` if there are more than
/// `limit`.
pub(crate) fn enumerate(domains: &[Interval], limit: usize) -> Option<Vec<Vec<Val>>> {
    if stores_in(domains) > limit as f64 {
        return None;
    }
    let mut out: Vec<Vec<Val>> = vec![Vec::with_capacity(domains.len())];
    for &(lo, hi) in domains {
        out = out
            .into_iter()
            .flat_map(|s| {
                (lo..=hi).map(move |v| {
                    let mut s = s.clone();
                    s.push(v as Val);
                    s
                })
            })
            .collect();
    }
    Some(out)
}

/// Narrows `b` (per global slot) to a box holding every store where `when`
/// holds: through `&&`, the comparisons of a global (a scalar, or an array
/// cell at a constant index) with a constant, and a global read as a
/// boolean (`flag`, `!flag`). Anything else narrows nothing.
fn narrow(when: &CExpr, b: &mut [Interval]) {
    match when {
        CExpr::Bin(BinOp::And, x, y) => {
            narrow(x, b);
            narrow(y, b);
        }
        CExpr::Bin(op, x, y) => {
            let (slot, c, op) = match (slot_of(x), slot_of(y), x.as_ref(), y.as_ref()) {
                (Some(s), _, _, CExpr::Const(c)) => (s, *c, *op),
                (_, Some(s), CExpr::Const(c), _) => match mirrored(*op) {
                    Some(op) => (s, *c, op),
                    None => return,
                },
                _ => return,
            };
            let Some(iv) = b.get_mut(slot) else { return };
            match op {
                BinOp::Eq => *iv = (iv.0.max(c), iv.1.min(c)),
                BinOp::Lt => iv.1 = iv.1.min(c.saturating_sub(1)),
                BinOp::Le => iv.1 = iv.1.min(c),
                BinOp::Gt => iv.0 = iv.0.max(c.saturating_add(1)),
                BinOp::Ge => iv.0 = iv.0.max(c),
                BinOp::Ne if c == iv.0 => iv.0 = iv.0.saturating_add(1),
                BinOp::Ne if c == iv.1 => iv.1 = iv.1.saturating_sub(1),
                _ => {}
            }
        }
        CExpr::Un(UnOp::Not, x) => {
            if let Some(iv) = slot_of(x).and_then(|s| b.get_mut(s)) {
                *iv = (iv.0.max(0), iv.1.min(0));
            }
        }
        e => {
            // Non-zero: where the range starts or ends at 0, it loses it.
            if let Some(iv) = slot_of(e).and_then(|s| b.get_mut(s)) {
                if iv.0 == 0 {
                    iv.0 = 1;
                } else if iv.1 == 0 {
                    iv.1 = -1;
                }
            }
        }
    }
}

/// The global slot an expression reads: a scalar global, or a global
/// array's cell at a constant index within it.
fn slot_of(e: &CExpr) -> Option<usize> {
    match e {
        CExpr::Global(s) => Some(*s as usize),
        CExpr::GlobalCell(first, len, _, i) => match i.as_ref() {
            CExpr::Const(k) if (0..*len as i64).contains(k) => Some(*first as usize + *k as usize),
            _ => None,
        },
        _ => None,
    }
}

/// `c op x` as `x op' c`.
fn mirrored(op: BinOp) -> Option<BinOp> {
    Some(match op {
        BinOp::Eq | BinOp::Ne => op,
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
