//! Why a guard is false at a state: the globals that must change for it
//! to become true, the necessary enabling sets of both closures (Valmari's
//! NES; Laarman, Pater, van de Pol and Hansen, "Guard-based partial-order
//! reduction", an enabling set per false guard). A false conjunction needs
//! one false conjunct changed (the first is taken), a false disjunction
//! every disjunct; negation swaps the two. When the second operand
//! decides, the first one's reads count too: it is evaluated first, and a
//! change there may make the guard fail instead. Anything else (a
//! comparison, a failing evaluation) counts every global it reads, a whole
//! array for an index that is not a constant.
//!
//! Two refinements were built and measured on 2026-11-27 and dropped
//! (docs/performance.md, "Finer enabling sets"): the cells an index names
//! at the state instead of the whole array, and, for an atom over one
//! global, only the writers that store a value satisfying it (the guard-
//! based paper's "may enable"). Neither moved the geometric mean over
//! BEEM's deadlock-free runs by more than 1%, and the second made some
//! families worse (a cheaper enabling set steers the greedy choice
//! elsewhere).

use crate::program::access::{Slots, expr_reads};
use crate::program::ops::{BinOp, UnOp};
use crate::program::{CExpr, Ctx};

/// The globals a false guard is false by: changing none of them keeps it
/// false.
pub(super) fn falsified_by(e: &CExpr, ctx: &Ctx) -> Slots {
    false_reason(e, ctx).0
}

/// As `falsified_by`, and whether the reason also reads the thread's own
/// store (a local, its location): then the thread's own step may change it.
pub(super) fn false_reason(e: &CExpr, ctx: &Ctx) -> (Slots, bool) {
    let mut out = Slots::default();
    let mut locals = false;
    reasons(e, ctx, false, &mut out, &mut locals);
    (out, locals)
}

/// Adds the globals that keep `e` at its value, `value` (true or false).
fn reasons(e: &CExpr, ctx: &Ctx, value: bool, out: &mut Slots, locals: &mut bool) {
    let holds = |x: &CExpr| x.eval(ctx).map(|v| v != 0).ok();
    match e {
        CExpr::Un(UnOp::Not, a) => reasons(a, ctx, !value, out, locals),
        // `a && b` false, or `a || b` true: one operand decides it.
        CExpr::Bin(op @ (BinOp::And | BinOp::Or), a, b) if (*op == BinOp::Or) == value => {
            match (holds(a), holds(b)) {
                (Some(x), _) if x == value => reasons(a, ctx, value, out, locals),
                // `a` is evaluated first: a change to what it reads may make
                // the guard fail (an index out of bounds), a run-time error.
                (_, Some(y)) if y == value => {
                    all_reads(a, out, locals);
                    reasons(b, ctx, value, out, locals)
                }
                _ => all_reads(e, out, locals),
            }
        }
        // `a && b` true, or `a || b` false: both operands do.
        CExpr::Bin(BinOp::And | BinOp::Or, a, b) => {
            reasons(a, ctx, value, out, locals);
            reasons(b, ctx, value, out, locals);
        }
        _ => all_reads(e, out, locals),
    }
}

/// Every global `e` reads (whole arrays for an index that is not a
/// constant), and whether it reads the thread's own store.
pub(super) fn all_reads(e: &CExpr, out: &mut Slots, locals: &mut bool) {
    let mut whole = false;
    expr_reads(e, out, &mut whole);
    e.visit(&mut |x| {
        if matches!(
            x,
            CExpr::Local(_) | CExpr::LocalCell(..) | CExpr::At(_) | CExpr::Term(_)
        ) {
            *locals = true
        }
    });
}
