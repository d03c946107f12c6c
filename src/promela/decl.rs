//! Declarations and initial stores: the Promela type of a domain, one
//! declaration per variable (with its initial value when all stores agree),
//! and the `init` code that chooses the initial values `init: "any"` leaves
//! open.

use super::expr::num;
use crate::program::{Domain, Val};

/// Promela type of a scalar of this domain.
pub(super) fn ptype(d: &Domain) -> &'static str {
    if d.is_bool {
        "bool"
    } else if d.min >= 0 && d.max <= 1 {
        "bit"
    } else if d.min >= 0 && d.max <= 255 {
        "byte"
    } else if d.min >= i16::MIN as i64 && d.max <= i16::MAX as i64 {
        "short"
    } else {
        "int"
    }
}

pub(super) fn pc_type(locations: usize) -> &'static str {
    if locations <= 256 { "byte" } else { "short" }
}

/// Per slot, the distinct values of that slot over the stores (in order).
pub(super) fn slot_sets(stores: &[Box<[Val]>], slots: usize) -> Vec<Vec<Val>> {
    let mut sets: Vec<Vec<Val>> = vec![Vec::new(); slots];
    for s in stores {
        for (k, set) in sets.iter_mut().enumerate() {
            if !set.contains(&s[k]) {
                set.push(s[k]);
            }
        }
    }
    for set in &mut sets {
        set.sort_unstable();
    }
    sets
}

/// Whether the stores are exactly the product of the per-slot sets (as the
/// loader builds them), so each slot can be chosen independently.
pub(super) fn is_product(sets: &[Vec<Val>], stores: usize) -> bool {
    sets.iter()
        .try_fold(1usize, |acc, s| acc.checked_mul(s.len().max(1)))
        == Some(stores)
}

/// The declaration of one variable (scalar or array); initial values it
/// cannot express go to `init`.
pub(super) fn declare(
    name: &str,
    d: &Domain,
    len: Option<u32>,
    cells: &[(String, Vec<Val>)],
    product: bool,
    init: &mut Vec<String>,
) -> String {
    let ty = ptype(d);
    let decl = match len {
        Some(n) => format!("{ty} {name}[{n}]"),
        None => format!("{ty} {name}"),
    };
    if !product {
        // Whole stores are chosen in `init`.
        return format!("{decl};");
    }
    // A common fixed value goes in the declaration.
    let first = cells.first().map(|(_, s)| s.clone()).unwrap_or_default();
    if first.len() == 1 && cells.iter().all(|(_, s)| *s == first) {
        return format!("{decl} = {};", num(first[0] as i64));
    }
    for (target, set) in cells {
        match set.as_slice() {
            [0] => {}
            [v] => init.push(format!("{target} = {}", num(*v as i64))),
            vs => {
                let opts: Vec<String> = vs
                    .iter()
                    .map(|v| format!(":: {target} = {}", num(*v as i64)))
                    .collect();
                init.push(format!("if\t/* init: any */\n{}\nfi", opts.join("\n")));
            }
        }
    }
    format!("{decl};")
}

/// A nondeterministic choice of one whole store (when the initial stores
/// are not a product of per-slot choices).
pub(super) fn store_choice(stores: &[Box<[Val]>], targets: &[String]) -> String {
    let opts: Vec<String> = stores
        .iter()
        .map(|s| {
            let a: Vec<String> = targets
                .iter()
                .zip(s.iter())
                .map(|(t, v)| format!("{t} = {}", num(*v as i64)))
                .collect();
            format!(":: {}", a.join("; "))
        })
        .collect();
    format!("if\t/* initial stores */\n{}\nfi", opts.join("\n"))
}

pub(super) fn describe(d: &Domain, len: Option<u32>) -> String {
    match len {
        Some(n) => format!("array[{n}] of {}", d.describe()),
        None => d.describe(),
    }
}
