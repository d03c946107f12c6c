//! Which transitions may fail at run time (an index out of bounds, a value
//! out of its variable's domain, a division by zero, an overflow) from a
//! reachable state: each transition is stepped as `assign` steps it, over
//! the inferred intervals, and every expression it evaluates is asked
//! whether some value inside them makes it fail.
//!
//! Why: partial-order reduction needs no cycle proviso to preserve
//! deadlocks (Valmari; Godefroid's thesis, Theorem 4.3), but a run-time
//! error is reached like an error state, which a reduced cycle could put
//! off for ever (the ignoring problem). Where no transition may fail there
//! is no such error to put off (`engine/por`, `Reducer::proviso`).
//!
//! The answer errs towards "may fail": an expression the intervals cannot
//! bound, a shift, a division by anything but a positive constant, and
//! every whole-state form but a plain read count as failing.

use super::sync::Received;
use super::{EMPTY, Env, Interval, Scope, tids};
use crate::program::ops::{BinOp, UnOp};
use crate::program::{Action, CExpr, Program, SyncOp, Target, Transition};

impl Env {
    /// Per template and transition: may it fail from a state inside `self`?
    pub(super) fn fallible(&self, prog: &Program, declared: &Env) -> Vec<Vec<bool>> {
        let sent = self.sent(prog);
        prog.templates
            .iter()
            .enumerate()
            .map(|(ti, tpl)| {
                tpl.transitions
                    .iter()
                    .map(|tr| {
                        let received = match &tr.sync {
                            Some(SyncOp::Recv { channel, .. }) => Some(&sent[*channel as usize]),
                            _ => None,
                        };
                        self.may_fail(prog, ti, tr, declared, received)
                    })
                    .collect()
            })
            .collect()
    }

    /// May `tr` fail from a state inside `self`? Stepped as `assign` steps
    /// it: the guard, then the sent value, the received one, the actions
    /// in order (each target's index before its value, as `assign_then`).
    fn may_fail(
        &self,
        prog: &Program,
        ti: usize,
        tr: &Transition,
        declared: &Env,
        received: Option<&Received>,
    ) -> bool {
        let Some(mut here) = self.scope(prog, ti, tr, tids(prog, ti)) else {
            return false; // its thread is never at its source
        };
        if let Some(g) = &tr.guard {
            if here.fails(g) {
                return true;
            }
            if here.eval(g) == Some((0, 0)) || !here.refine(g) {
                return false; // never enabled inside the ranges
            }
        }
        if let Some(SyncOp::Send { value: Some(e), .. }) = &tr.sync
            && here.fails(e)
        {
            return true;
        }
        // What `write` also records; not used here.
        let mut out = Env {
            globals: vec![EMPTY; self.globals.len()],
            locals: self.locals.iter().map(|l| vec![None; l.len()]).collect(),
        };
        if let Some(rec) = received {
            let Some(value) = rec.value else {
                return false; // no send on the channel can fire
            };
            // The sender's effects run first (as in `assign`).
            here.globals.clone_from(&self.globals);
            if let Some(SyncOp::Recv {
                target: Some(a), ..
            }) = &tr.sync
            {
                if here.target_fails(a) || out_of_domain(a, Some(value)) {
                    return true;
                }
                here.write(a, Some(value), rec.valueless, declared, &mut out);
            }
        }
        for a in &tr.actions {
            if here.target_fails(a) {
                return true;
            }
            let value = match &a.rhs {
                None => None, // `any`: a value of the domain
                Some(e) if here.fails(e) => return true,
                Some(e) => match here.eval(e) {
                    Some(v) => Some(v),
                    None => return true,
                },
            };
            if out_of_domain(a, value) {
                return true;
            }
            here.write(a, value, false, declared, &mut out);
        }
        false
    }
}

/// May a value in `value` (none: `any`, or an empty interval: nothing
/// assigned) lie outside the target's domain?
fn out_of_domain(a: &Action, value: Option<Interval>) -> bool {
    match value {
        Some((lo, hi)) => lo <= hi && (lo < a.domain.min || hi > a.domain.max),
        None => false,
    }
}

impl Scope<'_> {
    /// May evaluating `e` fail at some state inside the scope? (With the
    /// evaluator's short cut: the right side of `&&` is evaluated only
    /// where the left holds, so it is asked under the left's narrowing.)
    pub(super) fn fails(&self, e: &CExpr) -> bool {
        match e {
            CExpr::Const(_)
            | CExpr::Global(_)
            | CExpr::Local(_)
            | CExpr::Tid
            | CExpr::At(_)
            | CExpr::InstLocal(..)
            | CExpr::InstAt(..) => false,
            CExpr::GlobalCell(_, len, _, i)
            | CExpr::LocalCell(_, len, _, i)
            | CExpr::InstLocalCell(_, _, len, _, i) => self.index_fails(i, *len),
            CExpr::Un(UnOp::Holds, _) => false,
            CExpr::Un(op, x) => self.fails(x) || (*op == UnOp::Neg && self.eval(e).is_none()),
            CExpr::Bin(op, a, b) => {
                if self.fails(a) {
                    return true;
                }
                let right_fails = match op {
                    BinOp::And => {
                        let mut left_holds = self.clone();
                        left_holds.refine(a) && left_holds.fails(b)
                    }
                    _ => self.fails(b),
                };
                right_fails
                    || match op {
                        BinOp::Add | BinOp::Sub | BinOp::Mul => self.eval(e).is_none(),
                        BinOp::Div | BinOp::Rem => match self.eval(b) {
                            Some((lo, hi)) => (lo <= 0 && 0 <= hi) || self.eval(e).is_none(),
                            None => true,
                        },
                        BinOp::Shl | BinOp::Shr => true,
                        _ => false, // comparisons, logic and bitwise operators
                    }
            }
            CExpr::Count(..) | CExpr::Term(_) => true,
        }
    }

    /// May the index `i` of an array of `len` cells fail or leave it?
    fn index_fails(&self, i: &CExpr, len: u32) -> bool {
        self.fails(i) || !matches!(self.eval(i), Some((lo, hi)) if lo >= 0 && hi < len as i64)
    }

    /// May the index of `a`'s target fail or leave its array?
    fn target_fails(&self, a: &Action) -> bool {
        match &a.target {
            Target::Global(_) | Target::Local(_) => false,
            Target::GlobalCell(_, len, i) | Target::LocalCell(_, len, i) => {
                self.index_fails(i, *len)
            }
        }
    }
}
