//! Interval arithmetic against the concrete operators.

use super::*;

#[test]
fn interval_arithmetic_contains_every_result() {
    let samples: Vec<Interval> = vec![(0, 0), (0, 3), (-2, 2), (1, 9), (-5, -1), (3, 3), (0, 255)];
    let ops = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::And,
        BinOp::Or,
        BinOp::Implies,
        BinOp::BitAnd,
        BinOp::BitOr,
        BinOp::BitXor,
    ];
    for op in ops {
        for &x in &samples {
            for &y in &samples {
                let Some((lo, hi)) = binop(op, x, y) else {
                    continue;
                };
                for u in x.0..=x.1 {
                    for v in y.0..=y.1 {
                        if let Ok(r) = super::super::cexpr::binop(op, u, v) {
                            assert!(
                                lo <= r && r <= hi,
                                "{op:?} {x:?} {y:?}: {u} {v} gives {r}, outside [{lo}, {hi}]"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Products of 32-bit values reach 2^62; a bitwise or over them once
/// overflowed its mask (a panic where overflow is checked).
#[test]
fn bitwise_masks_of_the_largest_intervals_hold_every_result() {
    let big = (0, 1i64 << 62);
    for op in [BinOp::BitOr, BinOp::BitXor] {
        assert_eq!(binop(op, big, (0, 1)), Some((0, i64::MAX)));
        assert_eq!(binop(op, (0, 0), (0, 0)), Some((0, 0)));
        assert_eq!(binop(op, (0, 4), (0, 1)), Some((0, 7)));
    }
}
