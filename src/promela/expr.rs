//! Promela text of compiled expressions (fully parenthesised), and of the
//! conditions under which evaluating one raises no weft model error (an
//! index in bounds, a nonzero divisor, a shift count in 0..=62), which the
//! export turns into `assert`s.

use super::{Error, Exporter, Who};
use crate::model::expr::{BinOp, UnOp};
use crate::program::CExpr;

/// Text safe inside a `/* */` comment, on one line.
pub(super) fn comment(s: &str) -> String {
    s.replace("*/", "* /")
        .replace("/*", "/ *")
        .replace(['\n', '\r'], " ")
}

pub(super) fn num(v: i64) -> String {
    if v < 0 {
        format!("({v})")
    } else {
        v.to_string()
    }
}

pub(super) fn conj(parts: &[String]) -> String {
    match parts {
        [] => "true".into(),
        [one] => one.clone(),
        _ => format!("({})", parts.join(" && ")),
    }
}

impl Exporter<'_> {
    /// `pc` is in the set `mask`.
    pub(super) fn at(pc: &str, mask: &[bool]) -> String {
        let on: Vec<usize> = (0..mask.len()).filter(|&i| mask[i]).collect();
        if on.is_empty() {
            return "false".into();
        }
        if on.len() == mask.len() {
            return "true".into();
        }
        let contiguous = on.windows(2).all(|w| w[1] == w[0] + 1);
        if on.len() == 1 {
            format!("({pc} == {})", on[0])
        } else if contiguous && on.len() > 2 {
            format!("({pc} >= {} && {pc} <= {})", on[0], on[on.len() - 1])
        } else {
            let parts: Vec<String> = on.iter().map(|i| format!("{pc} == {i}")).collect();
            format!("({})", parts.join(" || "))
        }
    }

    /// The Promela text of an expression (fully parenthesised).
    pub(super) fn expr(&self, e: &CExpr, who: Who) -> Result<String, Error> {
        Ok(match e {
            CExpr::Const(v) => num(*v),
            CExpr::Global(s) => self.global_slot(*s),
            CExpr::Local(s) => self.local_slot(who, *s)?,
            CExpr::GlobalCell(base, _, _, i) => self.global_cell(*base, &self.expr(i, who)?),
            CExpr::LocalCell(base, _, _, i) => self.local_cell(who, *base, &self.expr(i, who)?)?,
            CExpr::Tid => match who {
                Who::Proc(_) => self.p_tid.clone(),
                Who::Thread(th) => self.prog.threads[th].tid.to_string(),
                Who::Global => return Err(Error::Internal("`tid` outside any thread")),
            },
            CExpr::At(masks) => {
                let t = self
                    .template_of(who)
                    .ok_or(Error::Internal("`@L` outside any thread"))?;
                Self::at(&self.pc(who)?, &masks[t])
            }
            CExpr::Un(op, a) => {
                let a = self.expr(a, who)?;
                match op {
                    UnOp::Not => format!("(!{a})"),
                    UnOp::Neg => format!("(-{a})"),
                    UnOp::BitNot => format!("(~{a})"),
                    UnOp::ToInt => a,
                    // Promela has no failing expressions to read as false.
                    UnOp::Holds => format!("({a} != 0)"),
                }
            }
            CExpr::Bin(op, a, b) => {
                let (a, b) = (self.expr(a, who)?, self.expr(b, who)?);
                match op {
                    BinOp::Implies => format!("((!{a}) || {b})"),
                    _ => format!("({a} {} {b})", op.symbol()),
                }
            }
            CExpr::InstLocal(th, s) => self.local_slot(Who::Thread(*th as usize), *s)?,
            CExpr::InstLocalCell(th, base, _, _, i) => {
                self.local_cell(Who::Thread(*th as usize), *base, &self.expr(i, who)?)?
            }
            CExpr::InstAt(th, mask) => Self::at(&self.pc(Who::Thread(*th as usize))?, mask),
            CExpr::Count(threads, body) => {
                if threads.is_empty() {
                    return Ok("0".into());
                }
                let terms = threads
                    .iter()
                    .map(|&t| {
                        Ok(format!(
                            "({} -> 1 : 0)",
                            self.expr(body, Who::Thread(t as usize))?
                        ))
                    })
                    .collect::<Result<Vec<_>, Error>>()?;
                format!("({})", terms.join(" + "))
            }
            CExpr::Term(_) => return Err(Error::Internal("a precomputed term in a model")),
        })
    }

    /// `0 <= i < len`, unless the range of `i` proves it.
    pub(super) fn bound(&self, i: &CExpr, len: u32, who: Who) -> Result<Vec<String>, Error> {
        let (lo, hi) = self.range(i, who);
        if lo >= 0 && hi < len as i128 {
            return Ok(Vec::new());
        }
        let t = self.expr(i, who)?;
        let mut out = Vec::new();
        if lo < 0 {
            out.push(format!("({t} >= 0)"));
        }
        if hi >= len as i128 {
            out.push(format!("({t} < {len})"));
        }
        Ok(out)
    }

    /// The top-level conjuncts of `e`, as text.
    fn conjuncts(&self, e: &CExpr, who: Who, out: &mut Vec<String>) -> Result<(), Error> {
        match e {
            CExpr::Bin(BinOp::And, a, b) => {
                self.conjuncts(a, who, out)?;
                self.conjuncts(b, who, out)
            }
            _ => {
                out.push(self.expr(e, who)?);
                Ok(())
            }
        }
    }

    /// The conditions under which evaluating `e` raises no model error, as
    /// conjuncts (empty: never fails). Each conjunct only reads what weft's
    /// evaluation reads before it, so it is itself safe to evaluate.
    pub(super) fn def(&self, e: &CExpr, who: Who) -> Result<Vec<String>, Error> {
        Ok(match e {
            CExpr::Const(_)
            | CExpr::Global(_)
            | CExpr::Local(_)
            | CExpr::Tid
            | CExpr::At(_)
            | CExpr::InstLocal(..)
            | CExpr::InstAt(..)
            | CExpr::Term(_) => Vec::new(),
            CExpr::GlobalCell(_, len, _, i)
            | CExpr::LocalCell(_, len, _, i)
            | CExpr::InstLocalCell(_, _, len, _, i) => {
                let mut d = self.def(i, who)?;
                d.extend(self.bound(i, *len, who)?);
                d
            }
            CExpr::Un(_, a) => self.def(a, who)?,
            CExpr::Count(threads, body) => {
                let mut d = Vec::new();
                for &t in threads.iter() {
                    d.extend(self.def(body, Who::Thread(t as usize))?);
                }
                d
            }
            CExpr::Bin(op, a, b) => {
                let mut d = self.def(a, who)?;
                let mut db = self.def(b, who)?;
                if matches!(op, BinOp::And | BinOp::Implies) && !db.is_empty() {
                    // `i < 3 && a[i] == 0`: what `a` guarantees need not be checked.
                    let mut known = Vec::new();
                    self.conjuncts(a, who, &mut known)?;
                    db.retain(|c| !known.contains(c));
                }
                match op {
                    BinOp::And | BinOp::Implies if !db.is_empty() => {
                        d.push(format!("((!{}) || {})", self.expr(a, who)?, conj(&db)));
                    }
                    BinOp::Or if !db.is_empty() => {
                        d.push(format!("({} || {})", self.expr(a, who)?, conj(&db)));
                    }
                    BinOp::And | BinOp::Implies | BinOp::Or => {}
                    BinOp::Div | BinOp::Rem => {
                        d.extend(db);
                        let (lo, hi) = self.range(b, who);
                        if lo <= 0 && 0 <= hi {
                            d.push(format!("({} != 0)", self.expr(b, who)?));
                        }
                    }
                    BinOp::Shl | BinOp::Shr => {
                        d.extend(db);
                        let (lo, hi) = self.range(b, who);
                        if lo < 0 || hi > 62 {
                            let t = self.expr(b, who)?;
                            d.push(format!("({t} >= 0 && {t} <= 62)"));
                        }
                    }
                    _ => d.extend(db),
                }
                d
            }
        })
    }
}
