//! Compact, readable descriptions of sets of global stores, in the style of
//! the papers' predicates (`m ∈ 2..3 ∧ x ∈ {0, 1}`): the set is partitioned
//! into products of per-slot value sets by repeatedly merging products that
//! agree everywhere but in one slot.

use crate::program::{Layout, Val};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

type Cube = Vec<BTreeSet<Val>>;

/// Products of per-slot value sets whose union is exactly `stores`.
pub fn cover(stores: &[Vec<Val>]) -> Vec<Cube> {
    let mut cubes: Vec<Cube> = stores
        .iter()
        .map(|s| s.iter().map(|&v| BTreeSet::from([v])).collect())
        .collect();
    let slots = stores.first().map_or(0, Vec::len);
    loop {
        let before = cubes.len();
        for k in 0..slots {
            // Cubes equal outside slot k merge into one (union at k).
            let mut groups: FxHashMap<Vec<BTreeSet<Val>>, BTreeSet<Val>> = FxHashMap::default();
            let mut order = Vec::new();
            for mut c in cubes.drain(..) {
                let at_k = std::mem::take(&mut c[k]);
                match groups.get_mut(&c) {
                    Some(set) => set.extend(at_k),
                    None => {
                        order.push(c.clone());
                        groups.insert(c, at_k);
                    }
                }
            }
            for mut c in order {
                c[k] = groups.remove(&c).unwrap_or_default();
                cubes.push(c);
            }
        }
        if cubes.len() == before {
            return cubes;
        }
    }
}

/// Slot names: `x`, `a[0]`, `a[1]`, … (from `first_slot` on).
fn slot_names(layout: &Layout) -> Vec<String> {
    let mut names = Vec::new();
    for v in &layout.vars {
        match v.len {
            None => names.push(v.name.clone()),
            Some(n) => names.extend((0..n).map(|i| format!("{}[{i}]", v.name))),
        }
    }
    names
}

fn values(set: &BTreeSet<Val>, is_bool: bool) -> String {
    let show = |v: Val| {
        if is_bool {
            (v != 0).to_string()
        } else {
            v.to_string()
        }
    };
    let (lo, hi) = (*set.first().unwrap_or(&0), *set.last().unwrap_or(&0));
    if set.len() == 1 {
        format!("= {}", show(lo))
    } else if !is_bool && set.len() >= 3 && (hi - lo + 1) as usize == set.len() {
        format!("∈ {lo}..{hi}")
    } else {
        format!(
            "∈ {{{}}}",
            set.iter().map(|&v| show(v)).collect::<Vec<_>>().join(", ")
        )
    }
}

/// Renders a set of global stores as a disjunction of conjunctions; slots
/// that take every value of their domain are left out.
pub fn describe(layout: &Layout, stores: &[Vec<Val>]) -> String {
    let names = slot_names(layout);
    let domains: Vec<_> = layout
        .vars
        .iter()
        .flat_map(|v| std::iter::repeat_n(v.domain, v.len.unwrap_or(1) as usize))
        .collect();
    let cubes = cover(stores);
    let parts: Vec<String> = cubes
        .iter()
        .map(|c| {
            let atoms: Vec<String> = c
                .iter()
                .enumerate()
                .filter(|(k, set)| set.len() as u64 != domains[*k].size())
                .map(|(k, set)| format!("{} {}", names[k], values(set, domains[k].is_bool)))
                .collect();
            if atoms.is_empty() {
                "true".to_string()
            } else {
                atoms.join(" ∧ ")
            }
        })
        .collect();
    parts.join("  ∨  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cover_is_exact_and_merges_products() {
        let stores: Vec<Vec<Val>> =
            vec![vec![2, 0], vec![2, 1], vec![3, 0], vec![3, 1], vec![0, 1]];
        let cubes = cover(&stores);
        assert_eq!(cubes.len(), 2);
        let mut union: Vec<Vec<Val>> = cubes
            .iter()
            .flat_map(|c| {
                c[0].iter()
                    .flat_map(move |&a| c[1].iter().map(move |&b| vec![a, b]))
            })
            .collect();
        union.sort();
        let mut want = stores.clone();
        want.sort();
        assert_eq!(union, want);
    }
}
