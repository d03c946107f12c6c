//! Symmetry reduction for `standard` (Ip and Dill, "Better verification
//! through symmetry"): instances of a template are interchangeable when its
//! code never reads `tid`, the model is not cooperative (its scheduler's
//! `waiting` cells are indexed by thread, and a permutation of the local
//! stores alone would move a thread away from its cell), and no property
//! tells them apart: names one of
//! them, counts over some of them only, or reads `tid` in a count other
//! than to compare it with the template's whole range of tids (counts over
//! a template are otherwise symmetric). A state is then canonicalised by
//! sorting the local-store ids of each such template's instances, the
//! `representative()` hook of stateright, or kept as counters where that
//! packs smaller (`standard/counter.rs`). Each reduced state stands for as
//! many states as there are distinct arrangements of its multiset of local
//! stores.

use super::CheckError;
use crate::program::cexpr::binop;
use crate::program::fire::uses_tid;
use crate::program::ops::BinOp;
use crate::program::{CExpr, Program};

/// The interchangeable thread blocks of a program: `first..first+count`
/// indices into the thread list (a template's instances are contiguous).
#[derive(Clone, Debug)]
pub(crate) struct Symmetry {
    pub(crate) blocks: Vec<std::ops::Range<usize>>,
    /// Per thread: the block it belongs to, if any.
    block_of: Vec<Option<usize>>,
}

impl Symmetry {
    /// Finds the symmetric templates; an error explains why none is.
    pub(crate) fn detect(prog: &Program) -> Result<Symmetry, CheckError> {
        let named = told_apart(prog);
        let mut blocks = Vec::new();
        let mut reasons = Vec::new();
        let mut first = 0;
        for tpl in &prog.templates {
            let range = first..first + tpl.count as usize;
            first += tpl.count as usize;
            if tpl.count < 2 {
                continue;
            }
            if uses_tid(tpl) {
                reasons.push(format!(
                    "`{}` reads `tid`, so its instances behave differently",
                    tpl.name
                ));
            } else if prog.scheduler.is_some() {
                reasons.push(format!(
                    "the model is cooperative: the scheduler keeps a `waiting` cell per thread, so `{}`'s instances are told apart by where they wait",
                    tpl.name
                ));
            } else if let Some(t) = range.clone().find(|&t| named[t].is_some()) {
                reasons.push(match named[t] {
                    Some(Apart::Named) => format!(
                        "a property names the instance `{}`; use count/exists/forall over `{}` instead",
                        prog.threads[t].name, tpl.name
                    ),
                    _ => format!(
                        "a property counts over `{}` by `tid` or over part of its instances, so it tells them apart",
                        tpl.name
                    ),
                });
            } else {
                blocks.push(range);
            }
        }
        if blocks.is_empty() {
            let why = if reasons.is_empty() {
                "no thread template has two or more instances".to_string()
            } else {
                reasons.join("; ")
            };
            return Err(CheckError::Unsupported(format!(
                "--symmetry: the model has no interchangeable threads: {why}"
            )));
        }
        Ok(Symmetry::new(blocks, prog.threads.len()))
    }

    pub(crate) fn new(blocks: Vec<std::ops::Range<usize>>, threads: usize) -> Symmetry {
        let mut block_of = vec![None; threads];
        for (k, b) in blocks.iter().enumerate() {
            for t in b.clone() {
                block_of[t] = Some(k);
            }
        }
        Symmetry { blocks, block_of }
    }

    /// In a canonical state, does thread `t` stand in the same block as
    /// thread `t - 1` with the same local store? Then its moves lead to the
    /// same canonical states as that thread's: a search expands each
    /// distinct local store of a block once, not each thread (with n
    /// threads at a few local stores, the difference between O(n) and
    /// O(distinct) expansions per state).
    #[inline]
    pub(crate) fn repeats(&self, state: &[u32], t: usize) -> bool {
        t > 0
            && self.block_of[t].is_some()
            && self.block_of[t] == self.block_of[t - 1]
            && state[1 + t] == state[t]
    }

    /// Restores a canonical state after thread `t`'s local store changed:
    /// moves it to its sorted place in its block (one shift, where
    /// `canonicalise` would sort the whole block).
    pub(crate) fn reposition(&self, state: &mut [u32], t: usize) {
        let Some(k) = self.block_of[t] else {
            return;
        };
        let b = &self.blocks[k];
        let (lo, hi) = (1 + b.start, 1 + b.end);
        let mut i = 1 + t;
        while i > lo && state[i - 1] > state[i] {
            state.swap(i - 1, i);
            i -= 1;
        }
        while i + 1 < hi && state[i + 1] < state[i] {
            state.swap(i + 1, i);
            i += 1;
        }
    }

    /// In how many threads' local stores two canonical states differ: per
    /// block as multisets (both sorted: the elements of one not matched in
    /// the other), and position by position outside the blocks.
    pub(crate) fn threads_apart(&self, a: &[u32], b: &[u32]) -> usize {
        let mut apart = 0;
        for block in &self.blocks {
            let (xs, ys) = (
                &a[1 + block.start..1 + block.end],
                &b[1 + block.start..1 + block.end],
            );
            let (mut i, mut j) = (0, 0);
            while i < xs.len() && j < ys.len() {
                match xs[i].cmp(&ys[j]) {
                    std::cmp::Ordering::Equal => (i, j) = (i + 1, j + 1),
                    std::cmp::Ordering::Less => (apart, i) = (apart + 1, i + 1),
                    std::cmp::Ordering::Greater => j += 1,
                }
            }
            apart += xs.len() - i;
        }
        apart
            + (0..self.block_of.len())
                .filter(|&t| self.block_of[t].is_none() && a[1 + t] != b[1 + t])
                .count()
    }

    /// Sorts each block of a state `[g, l_1, .., l_n]` in place.
    pub(crate) fn canonicalise(&self, state: &mut [u32]) {
        for b in &self.blocks {
            state[1 + b.start..1 + b.end].sort_unstable();
        }
    }

    /// How many concrete states the canonical state stands for: per block,
    /// the multinomial count!/∏(multiplicity!). `None` past u128.
    pub(crate) fn orbit_size(&self, state: &[u32]) -> Option<u128> {
        let mut total: u128 = 1;
        for b in &self.blocks {
            let ls = &state[1 + b.start..1 + b.end];
            // Multinomial as a product of binomials, exact at every step.
            let mut placed: u128 = 0;
            let mut i = 0;
            while i < ls.len() {
                let mut j = i;
                while j < ls.len() && ls[j] == ls[i] {
                    j += 1;
                }
                let k = (j - i) as u128;
                total = total.checked_mul(binomial(placed + k, k)?)?;
                placed += k;
                i = j;
            }
        }
        Some(total)
    }
}

/// Why a property tells a thread apart from its template's other
/// instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Apart {
    /// It names the instance.
    Named,
    /// A count's body reads `tid`, or the count ranges over some of the
    /// template's instances and not others.
    Counted,
}

/// Per thread: whether (and why) a property can tell it from the other
/// instances of its template. Swapping two such threads could change the
/// predicate's value, so their template is not reduced: a count whose body
/// reads `tid` (`count(p: tid == 1 && @cs)`) counts different threads in
/// two states of one orbit. A body that only compares `tid` with constants
/// the same way for all of a template's tids (the `deadlock` predicate's
/// `tid >= first && tid <= last`) does not tell them apart.
fn told_apart(prog: &Program) -> Vec<Option<Apart>> {
    let mut apart = vec![None; prog.threads.len()];
    // Per template, the least and greatest tid of its instances.
    let mut tids = vec![(i64::MAX, i64::MIN); prog.templates.len()];
    for th in &prog.threads {
        let r = &mut tids[th.template as usize];
        *r = (r.0.min(th.tid), r.1.max(th.tid));
    }
    for e in prog.properties.iter().map(|p| &p.error) {
        e.visit(&mut |e| match e {
            CExpr::InstAt(t, _) | CExpr::InstLocal(t, _) | CExpr::InstLocalCell(t, ..) => {
                apart[*t as usize] = Some(Apart::Named);
            }
            CExpr::Count(threads, body) => {
                // Members per template (a count lists each thread once).
                let mut per = vec![0u64; prog.templates.len()];
                for &t in threads.iter() {
                    per[prog.threads[t as usize].template as usize] += 1;
                }
                let uniform: Vec<bool> = (0..prog.templates.len())
                    .map(|k| per[k] == 0 || tid_uniform(body, tids[k]))
                    .collect();
                for &t in threads.iter() {
                    let tpl = prog.threads[t as usize].template as usize;
                    let whole = per[tpl] == u64::from(prog.templates[tpl].count);
                    if !uniform[tpl] || !whole {
                        let a = &mut apart[t as usize];
                        *a = a.or(Some(Apart::Counted));
                    }
                }
            }
            _ => {}
        });
    }
    apart
}

/// Does `e` read `tid` only in comparisons with a constant that are true
/// for every tid in `lo..=hi` or for none? A conjunction that such a
/// comparison makes false for all of them is left out whatever else it
/// reads: the `deadlock` predicate's part for another template, `tid >= 4
/// && tid <= 4 && x >= tid`, is false for every tid of 1..=3 (found by
/// fuzzing: a `tid` in one template's guard kept every template from
/// being reduced).
fn tid_uniform(e: &CExpr, r: (i64, i64)) -> bool {
    let (lo, hi) = r;
    match e {
        CExpr::Tid => false,
        // `&&` evaluates its right side only where its left one is true:
        // a left side that is never true hides the right one, a right one
        // hides nothing of the left (which may still fail for some
        // instances and not others: a model error; found in review).
        CExpr::Bin(BinOp::And, a, b)
            if never_true(a, r) || (never_true(b, r) && tid_uniform(a, r)) =>
        {
            true
        }
        CExpr::Bin(op, a, b) if op.is_comparison() => match (&**a, &**b) {
            (CExpr::Tid, CExpr::Const(c)) => {
                binop(*op, lo, *c).ok() == binop(*op, hi, *c).ok()
                    && (!matches!(op, BinOp::Eq | BinOp::Ne) || *c < lo || *c > hi || lo == hi)
            }
            (CExpr::Const(c), CExpr::Tid) => {
                binop(*op, *c, lo).ok() == binop(*op, *c, hi).ok()
                    && (!matches!(op, BinOp::Eq | BinOp::Ne) || *c < lo || *c > hi || lo == hi)
            }
            _ => tid_uniform(a, r) && tid_uniform(b, r),
        },
        CExpr::Bin(_, a, b) => tid_uniform(a, r) && tid_uniform(b, r),
        CExpr::GlobalCell(.., i)
        | CExpr::LocalCell(.., i)
        | CExpr::InstLocalCell(.., i)
        | CExpr::Un(_, i)
        | CExpr::Count(_, i) => tid_uniform(i, r),
        _ => true,
    }
}

/// Is `e` false for every tid in `lo..=hi`, alike for all of them: an
/// order comparison of `tid` with a constant, false at both ends of the
/// range (so throughout it), an equality with a constant outside it, or a
/// conjunction with such a part (on its right, after a left part that
/// evaluates alike for all)?
fn never_true(e: &CExpr, (lo, hi): (i64, i64)) -> bool {
    let ordered = |op: &BinOp| matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
    match e {
        CExpr::Bin(BinOp::And, a, b) => {
            never_true(a, (lo, hi)) || (never_true(b, (lo, hi)) && tid_uniform(a, (lo, hi)))
        }
        CExpr::Bin(BinOp::Eq, a, b) => match (&**a, &**b) {
            (CExpr::Tid, CExpr::Const(c)) | (CExpr::Const(c), CExpr::Tid) => *c < lo || *c > hi,
            _ => false,
        },
        CExpr::Bin(op, a, b) if ordered(op) => match (&**a, &**b) {
            (CExpr::Tid, CExpr::Const(c)) => {
                binop(*op, lo, *c) == Ok(0) && binop(*op, hi, *c) == Ok(0)
            }
            (CExpr::Const(c), CExpr::Tid) => {
                binop(*op, *c, lo) == Ok(0) && binop(*op, *c, hi) == Ok(0)
            }
            _ => false,
        },
        _ => false,
    }
}

pub(crate) fn binomial(n: u128, k: u128) -> Option<u128> {
    let k = k.min(n - k);
    let mut r: u128 = 1;
    for i in 0..k {
        // r * (n - i) / (i + 1) stays integral at each step.
        r = r.checked_mul(n - i)? / (i + 1);
    }
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orbit_of_a_multiset_is_the_multinomial() {
        let s = Symmetry::new(std::iter::once(0..4).collect(), 4);
        // {a, a, b, c}: 4!/(2!1!1!) = 12.
        assert_eq!(s.orbit_size(&[0, 1, 1, 2, 3]), Some(12));
        assert_eq!(s.orbit_size(&[0, 5, 5, 5, 5]), Some(1));
        assert_eq!(binomial(100, 50), Some(100891344545564193334812497256));
    }
}
