//! Value bounds of expressions: an interval containing every value an
//! expression can take (in reachable or unreachable states alike), from the
//! declared domains, so that the export leaves out the asserts the bounds
//! prove, and flags values that may leave SPIN's 32-bit `int`.
//!
//! This is not `program::ranges`'s interval arithmetic, on purpose: that one
//! is partial (`None` on `i64` overflow or an operator it cannot bound) and
//! sharper (division and remainder by a constant, decided comparisons),
//! while the export needs a bound for every expression and its text must
//! not change with the analysis's precision (with `ranges::binop` the
//! export of models/bakery.json loses two asserts). Here bounds are total,
//! in `i128` saturated at ±2^100, and comparisons are always `0..=1`.

use super::{Exporter, Who};
use crate::model::expr::{BinOp, UnOp};
use crate::program::CExpr;

/// A closed interval of values.
type Range = (i128, i128);

/// Clamps to ±2^100: far beyond any value weft computes, and no overflow in
/// the arithmetic on bounds that follows.
fn sat(v: i128) -> i128 {
    v.clamp(-(1i128 << 100), 1i128 << 100)
}

/// Smallest k with |v| < 2^k.
fn bits(v: i128) -> u32 {
    128 - v.unsigned_abs().leading_zeros()
}

impl Exporter<'_> {
    fn local_domain(&self, who: Who, slot: u32) -> Range {
        let Some(t) = self.template_of(who) else {
            return (i32::MIN as i128, i32::MAX as i128);
        };
        if slot == 0 {
            return (0, self.prog.templates[t].locations.len() as i128 - 1);
        }
        let (vi, _) = self.tpls[t].slot[slot as usize];
        let d = self.prog.templates[t].locals.vars[vi].domain;
        (d.min as i128, d.max as i128)
    }

    fn global_domain(&self, slot: u32) -> Range {
        let d = self.prog.globals.vars[self.gslot[slot as usize].0].domain;
        (d.min as i128, d.max as i128)
    }

    /// An interval containing every value `e` can take (in reachable or
    /// unreachable states alike); flags values outside 32 bits.
    pub(super) fn range(&self, e: &CExpr, who: Who) -> Range {
        let r = self.range_raw(e, who);
        if r.0 < i32::MIN as i128 || r.1 > i32::MAX as i128 {
            self.wide.set(true);
        }
        r
    }

    fn range_raw(&self, e: &CExpr, who: Who) -> Range {
        match e {
            CExpr::Const(v) => (*v as i128, *v as i128),
            CExpr::Global(s) => self.global_domain(*s),
            CExpr::GlobalCell(base, _, _, i) => {
                self.range(i, who);
                self.global_domain(*base)
            }
            CExpr::Local(s) => self.local_domain(who, *s),
            CExpr::LocalCell(base, _, _, i) => {
                self.range(i, who);
                self.local_domain(who, *base)
            }
            CExpr::InstLocal(th, s) => self.local_domain(Who::Thread(*th as usize), *s),
            CExpr::InstLocalCell(th, base, _, _, i) => {
                self.range(i, who);
                self.local_domain(Who::Thread(*th as usize), *base)
            }
            CExpr::Tid => match who {
                Who::Proc(t) => {
                    let f = self.tpls[t].first as i128;
                    (f + 1, f + self.prog.templates[t].count as i128)
                }
                Who::Thread(th) => {
                    let tid = self.prog.threads[th].tid as i128;
                    (tid, tid)
                }
                Who::Global => (1, self.prog.threads.len() as i128),
            },
            CExpr::At(_) | CExpr::InstAt(..) => (0, 1),
            CExpr::Count(threads, body) => {
                for &t in threads.iter() {
                    self.range(body, Who::Thread(t as usize));
                }
                (0, threads.len() as i128)
            }
            CExpr::Term(_) => (i64::MIN as i128, i64::MAX as i128),
            CExpr::Un(op, a) => {
                let (lo, hi) = self.range(a, who);
                match op {
                    UnOp::Not | UnOp::Holds => (0, 1),
                    UnOp::Neg => (-hi, -lo),
                    UnOp::BitNot => (-hi - 1, -lo - 1),
                    UnOp::ToInt => (lo, hi),
                }
            }
            CExpr::Bin(op, a, b) => {
                let (xl, xh) = self.range(a, who);
                let (yl, yh) = self.range(b, who);
                let mx = xl.abs().max(xh.abs());
                let my = yl.abs().max(yh.abs());
                let signed = |m: i128| {
                    let k = bits(m);
                    (-(1i128 << k), (1i128 << k) - 1)
                };
                match op {
                    BinOp::Add => (sat(xl + yl), sat(xh + yh)),
                    BinOp::Sub => (sat(xl - yh), sat(xh - yl)),
                    BinOp::Mul => {
                        let c = [
                            xl.saturating_mul(yl),
                            xl.saturating_mul(yh),
                            xh.saturating_mul(yl),
                            xh.saturating_mul(yh),
                        ]
                        .map(sat);
                        (
                            c.into_iter().min().unwrap_or(0),
                            c.into_iter().max().unwrap_or(0),
                        )
                    }
                    BinOp::Div => {
                        if xl >= 0 && yl >= 0 {
                            (0, xh)
                        } else {
                            (-mx, mx)
                        }
                    }
                    BinOp::Rem => {
                        let m = mx.min((my - 1).max(0));
                        if xl >= 0 { (0, m) } else { (-m, m) }
                    }
                    BinOp::BitAnd => match (xl >= 0, yl >= 0) {
                        (true, true) => (0, xh.min(yh)),
                        (true, false) => (0, xh),
                        (false, true) => (0, yh),
                        (false, false) => signed(mx.max(my)),
                    },
                    BinOp::BitOr | BinOp::BitXor => {
                        if xl >= 0 && yl >= 0 {
                            (0, (1i128 << bits(xh.max(yh))) - 1)
                        } else {
                            signed(mx.max(my))
                        }
                    }
                    BinOp::Shl => {
                        let k = yh.clamp(0, 62) as u32;
                        (
                            sat(xl.min(0).saturating_mul(1 << k)),
                            sat(xh.max(0).saturating_mul(1 << k)),
                        )
                    }
                    BinOp::Shr => (xl.min(0), xh.max(0)),
                    BinOp::Eq
                    | BinOp::Ne
                    | BinOp::Lt
                    | BinOp::Le
                    | BinOp::Gt
                    | BinOp::Ge
                    | BinOp::And
                    | BinOp::Or
                    | BinOp::Implies => (0, 1),
                }
            }
        }
    }
}
