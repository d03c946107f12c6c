//! Compact, readable descriptions of sets of global stores, in the style of
//! the papers' predicates (`m ∈ 2..3 ∧ x ∈ {0, 1}`): the set is partitioned
//! into products of per-slot value sets by repeatedly merging products that
//! agree everywhere but in one slot.

use crate::program::{Layout, Val};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

type Cube = Vec<BTreeSet<Val>>;

/// Products of per-slot value sets whose union is exactly `stores`.
pub(crate) fn cover(stores: &[Vec<Val>]) -> Vec<Cube> {
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
pub(crate) fn describe(layout: &Layout, stores: &[Vec<Val>]) -> String {
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

/// Renders a set of edges between global stores (a guarantee G) one line
/// per effect: edges that write the same values to the same slots are
/// grouped, and the stores they leave from are described as by `describe`:
/// `m := 1  when  m = 0 ∧ x = 1`; edges that change nothing are
/// `(no change)  when  …`.
pub(crate) fn describe_edges(layout: &Layout, edges: &[(Vec<Val>, Vec<Val>)]) -> Vec<String> {
    let names = slot_names(layout);
    let is_bool: Vec<bool> = layout
        .vars
        .iter()
        .flat_map(|v| std::iter::repeat_n(v.domain.is_bool, v.len.unwrap_or(1) as usize))
        .collect();
    // (slot, new value) of each changed slot -> the stores left from.
    let mut groups: std::collections::BTreeMap<Vec<(usize, Val)>, Vec<Vec<Val>>> =
        Default::default();
    for (from, to) in edges {
        let effect: Vec<(usize, Val)> = from
            .iter()
            .zip(to)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(k, (_, &b))| (k, b))
            .collect();
        groups.entry(effect).or_default().push(from.clone());
    }
    groups
        .into_iter()
        .map(|(effect, froms)| {
            let what = if effect.is_empty() {
                "(no change)".to_string()
            } else {
                effect
                    .iter()
                    .map(|&(k, v)| {
                        let v = if is_bool[k] {
                            (v != 0).to_string()
                        } else {
                            v.to_string()
                        };
                        format!("{} := {v}", names[k])
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            format!("{what}  when  {}", describe(layout, &froms))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Domain;

    #[test]
    fn edges_are_grouped_by_what_they_write() {
        let int = |max| Domain {
            min: 0,
            max,
            is_bool: false,
        };
        let mut layout = Layout::default();
        layout.push("m".into(), int(3), None);
        layout.push("x".into(), int(1), None);
        // Simple(3)'s guarantee of thread 1 (thread-modular paper, 1.1).
        let edges: Vec<(Vec<Val>, Vec<Val>)> = vec![
            (vec![0, 1], vec![1, 1]),
            (vec![1, 1], vec![0, 1]),
            (vec![1, 1], vec![1, 1]),
            (vec![1, 1], vec![1, 0]),
            (vec![1, 0], vec![1, 1]),
        ];
        let lines = describe_edges(&layout, &edges);
        assert_eq!(
            lines,
            [
                "(no change)  when  m = 1 ∧ x = 1",
                "m := 0  when  m = 1 ∧ x = 1",
                "m := 1  when  m = 0 ∧ x = 1",
                "x := 0  when  m = 1 ∧ x = 1",
                "x := 1  when  m = 1 ∧ x = 0",
            ]
        );
        // Two stores writing the same value share a line.
        let two = describe_edges(
            &layout,
            &[(vec![2, 1], vec![0, 1]), (vec![3, 1], vec![0, 1])],
        );
        assert_eq!(two, ["m := 0  when  m ∈ {2, 3} ∧ x = 1"]);
    }

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
