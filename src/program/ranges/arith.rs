//! Interval arithmetic for the range analysis: an interval holding every
//! result of an operator over operands in the given intervals (`None` when
//! the analysis does not bound it).

use super::Interval;
use crate::program::ops::BinOp;

/// `[0, 1]` unless the comparison is decided: `(1, 1)` when always true,
/// `(0, 0)` when always false.
pub(super) fn truth(always: bool, never: bool) -> Interval {
    match (always, never) {
        (true, _) => (1, 1),
        (_, true) => (0, 0),
        _ => (0, 1),
    }
}

pub(super) fn binop(op: BinOp, (a, b): Interval, (c, d): Interval) -> Option<Interval> {
    let nonzero = |lo: i64, hi: i64| lo > 0 || hi < 0;
    let zero = |lo: i64, hi: i64| lo == 0 && hi == 0;
    Some(match op {
        BinOp::Add => (a.checked_add(c)?, b.checked_add(d)?),
        BinOp::Sub => (a.checked_sub(d)?, b.checked_sub(c)?),
        BinOp::Mul => {
            let p = [
                a.checked_mul(c)?,
                a.checked_mul(d)?,
                b.checked_mul(c)?,
                b.checked_mul(d)?,
            ];
            (*p.iter().min()?, *p.iter().max()?)
        }
        // Truncating division by a positive constant is monotone.
        BinOp::Div if c == d && c > 0 => (a / c, b / c),
        BinOp::Div => return None,
        // Remainder by a positive constant m, with the dividend's sign.
        BinOp::Rem if c == d && c > 0 => {
            let m = c;
            if a >= 0 && a / m == b / m {
                // One block of m values: the remainder is a shift.
                (a % m, b % m)
            } else if b <= 0 && a / m == b / m {
                (a % m, b % m)
            } else if a >= 0 {
                (0, (m - 1).min(b))
            } else if b <= 0 {
                ((-(m - 1)).max(a), 0)
            } else {
                (-(m - 1), m - 1)
            }
        }
        BinOp::Rem => return None,
        BinOp::Eq => truth(a == b && c == d && a == c, b < c || d < a),
        BinOp::Ne => truth(b < c || d < a, a == b && c == d && a == c),
        BinOp::Lt => truth(b < c, a >= d),
        BinOp::Le => truth(b <= c, a > d),
        BinOp::Gt => truth(a > d, b <= c),
        BinOp::Ge => truth(a >= d, b < c),
        BinOp::And => truth(nonzero(a, b) && nonzero(c, d), zero(a, b) || zero(c, d)),
        BinOp::Or => truth(nonzero(a, b) || nonzero(c, d), zero(a, b) && zero(c, d)),
        BinOp::Implies => truth(zero(a, b) || nonzero(c, d), nonzero(a, b) && zero(c, d)),
        BinOp::BitAnd if a >= 0 && c >= 0 => (0, b.min(d)),
        BinOp::BitOr | BinOp::BitXor if a >= 0 && c >= 0 => {
            let hi = b.max(d);
            // All bits up to the highest set bit of either operand (`hi`
            // is not negative, so the mask is at most i64::MAX; a shift
            // of 64, for `hi == 0`, leaves no bit).
            let mask = u64::MAX.checked_shr(hi.leading_zeros()).unwrap_or(0);
            (0, mask as i64)
        }
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr => return None,
    })
}
