//! Exception sets of symmetric programs as orbits of products (Malkis,
//! Podelski and Rybalchenko, Section 4.3, Prop. 3 and Prop. 8, read up to
//! permutations of interchangeable threads).
//!
//! When the threads of a class are interchangeable and the exception
//! entries are `one`/`others` entries over whole classes, E(g) is closed
//! under permuting the threads of each class, and so is its maximized
//! antichain. One member of each orbit is kept, per class as a few
//! *groups*: a set of local stores and how many threads of the class take
//! it (the `one` group of 1, the `others` group of count-1). Containment
//! of a product in a member of an orbit is then a transportation problem
//! per class (which thread goes to which group), decided by Hall's
//! condition over the few groups; Prop. 8's α_c(P \ E(g)) follows from it
//! group by group, and the maximality of the antichain (no consensus left,
//! Prop. 3) is checked on pairs of orbits over every arrangement. When that
//! check cannot conclude, `maximize` answers `None` and the caller keeps the
//! per-thread representation.

use super::BitSet;

/// Per class: its groups (set of local stores, number of threads), every
/// count at least 1.
pub(crate) type Groups = Vec<(BitSet, u32)>;

/// A product of a symmetric program up to permutations inside classes:
/// per class its groups. The orbit is every product that hands each
/// thread of a class one group's set, each group to as many threads as its
/// count.
pub(crate) type Orbit = Vec<Groups>;

/// Groups per class at most in an orbit of E: Hall's condition enumerates
/// subsets of a product's groups (an orbit's groups plus one).
pub(crate) const MAX_GROUPS: usize = 8;

/// Arrangements of two orbits enumerated at most per class by `maximize`.
const MAX_ARRANGEMENTS: usize = 1 << 14;

/// Sorts each class's groups and merges equal sets, dropping empty counts:
/// two members of the same orbit get the same canonical form.
pub(crate) fn canonical(mut o: Orbit) -> Orbit {
    for groups in o.iter_mut() {
        groups.retain(|(_, m)| *m > 0);
        groups.sort_by(|a, b| a.0.words().cmp(b.0.words()));
        let mut merged: Groups = Vec::with_capacity(groups.len());
        for (s, m) in groups.drain(..) {
            match merged.last_mut() {
                Some((t, c)) if *t == s => *c += m,
                _ => merged.push((s, m)),
            }
        }
        *groups = merged;
    }
    o
}

/// Is some group's set empty (the orbit's products are empty)?
pub(crate) fn is_empty(o: &Orbit) -> bool {
    o.iter().flatten().any(|(s, _)| s.is_empty())
}

/// How many distinct products the orbit of a canonical `o` holds (the
/// multinomial per class), saturated at `u64::MAX`: the number of products
/// the per-thread representation keeps for it.
pub(crate) fn size(o: &Orbit) -> u64 {
    let mut total: u128 = 1;
    for groups in o {
        let mut left: u128 = groups.iter().map(|(_, m)| *m as u128).sum();
        for (_, m) in groups {
            total = total.saturating_mul(binomial(left, *m as u128));
            left -= *m as u128;
        }
    }
    total.min(u64::MAX as u128) as u64
}

fn binomial(n: u128, k: u128) -> u128 {
    let k = k.min(n - k);
    let mut r: u128 = 1;
    for i in 0..k {
        r = r.saturating_mul(n - i) / (i + 1);
        if r == u128::MAX {
            break;
        }
    }
    r
}

/// Can the threads of one class, given by `a`'s groups, be handed out to
/// `b`'s groups (each group of `b` to exactly as many threads as its
/// count) so that each thread's set lies inside its group's? Hall's
/// condition on `a`'s side; the totals must be equal.
fn fits_class(a: &[(&BitSet, u32)], b: &[(&BitSet, u32)]) -> bool {
    let total_a: u64 = a.iter().map(|x| x.1 as u64).sum();
    let total_b: u64 = b.iter().map(|x| x.1 as u64).sum();
    if total_a != total_b {
        return false;
    }
    let live: Vec<&(&BitSet, u32)> = a.iter().filter(|x| x.1 > 0).collect();
    // Per group of a: the groups of b it fits into, as a mask.
    let fits: Vec<u32> = live
        .iter()
        .map(|(s, _)| {
            b.iter()
                .enumerate()
                .filter(|(_, (t, c))| *c > 0 && s.is_subset(t))
                .fold(0u32, |m, (j, _)| m | 1 << j)
        })
        .collect();
    for subset in 1u32..(1 << live.len()) {
        let (mut need, mut nbrs) = (0u64, 0u32);
        for (k, x) in live.iter().enumerate() {
            if subset >> k & 1 == 1 {
                need += x.1 as u64;
                nbrs |= fits[k];
            }
        }
        let room: u64 = (0..b.len())
            .filter(|j| nbrs >> j & 1 == 1)
            .map(|j| b[j].1 as u64)
            .sum();
        if need > room {
            return false;
        }
    }
    true
}

/// A class's groups as borrowed pairs, with group `minus` (if any) counted
/// one thread less.
fn view(groups: &Groups, minus: Option<usize>) -> Vec<(&BitSet, u32)> {
    groups
        .iter()
        .enumerate()
        .map(|(k, (s, m))| (s, if Some(k) == minus { m - 1 } else { *m }))
        .collect()
}

/// Is the product `p` (groups per class) inside some member of the orbit
/// `o`, with one thread of class `skip.0` taken out of group `skip.1` of p
/// and of group `skip.2` of o?
fn fits(p: &Orbit, o: &Orbit, skip: Option<(usize, usize, usize)>) -> bool {
    p.iter().zip(o).enumerate().all(|(k, (pg, og))| {
        let (pm, om) = match skip {
            Some((c, a, b)) if c == k => (Some(a), Some(b)),
            _ => (None, None),
        };
        fits_class(&view(pg, pm), &view(og, om))
    })
}

/// α_c(P \ E(g)) by Prop. 8 for a product P given as groups per class and
/// E(g) a maximized antichain given as orbits: a local store r of group a
/// of class k is removed iff some member C of E(g) has r at the position
/// of one of a's threads and holds the rest of P. Returns per class and
/// group the stores removed, or `None` when P ⊆ E(g).
pub(crate) fn subtract(p: &Orbit, orbits: &[Orbit]) -> Option<Vec<Vec<BitSet>>> {
    if orbits.iter().any(|o| fits(p, o, None)) {
        return None;
    }
    let mut removed: Vec<Vec<BitSet>> = p
        .iter()
        .map(|groups| groups.iter().map(|(s, _)| s.cleared()).collect())
        .collect();
    for o in orbits {
        for (k, (pg, og)) in p.iter().zip(o).enumerate() {
            for (a, (_, m)) in pg.iter().enumerate() {
                if *m == 0 {
                    continue;
                }
                for (b, (t, c)) in og.iter().enumerate() {
                    if *c > 0 && !t.is_subset(&removed[k][a]) && fits(p, o, Some((k, a, b))) {
                        removed[k][a].union_with(t);
                    }
                }
            }
        }
    }
    Some(removed)
}

/// What one arrangement of two products (members of two orbits) looks
/// like: in how many positions their sets are disjoint (capped at 2), and
/// whether the first is inside the second and the second inside the first.
type Summary = (u8, bool, bool);

/// The summaries of every arrangement of one class's groups `a` against
/// `b` (a transport matrix: threads of each group of `a` spread over the
/// groups of `b`); `None` past `MAX_ARRANGEMENTS`.
fn class_summaries(a: &Groups, b: &Groups) -> Option<Vec<Summary>> {
    let mut out: Vec<Summary> = Vec::new();
    let mut cols: Vec<u32> = b.iter().map(|x| x.1).collect();
    let mut leaves = 0usize;
    #[allow(clippy::too_many_arguments)]
    fn go(
        a: &Groups,
        b: &Groups,
        i: usize,
        j: usize,
        row_left: u32,
        cols: &mut [u32],
        acc: Summary,
        out: &mut Vec<Summary>,
        leaves: &mut usize,
    ) -> bool {
        if i == a.len() {
            *leaves += 1;
            if *leaves > MAX_ARRANGEMENTS {
                return false;
            }
            if !out.contains(&acc) {
                out.push(acc);
            }
            return true;
        }
        if j == b.len() {
            // The row must be spent.
            return row_left != 0
                || go(
                    a,
                    b,
                    i + 1,
                    0,
                    a.get(i + 1).map_or(0, |x| x.1),
                    cols,
                    acc,
                    out,
                    leaves,
                );
        }
        let hi = row_left.min(cols[j]);
        let lo = if j + 1 == b.len() { row_left } else { 0 };
        if lo > hi {
            return true;
        }
        let (s, t) = (&a[i].0, &b[j].0);
        for x in lo..=hi {
            let next = if x == 0 {
                acc
            } else {
                let d = if s.intersects(t) { 0 } else { x.min(2) as u8 };
                (
                    (acc.0 + d).min(2),
                    acc.1 && s.is_subset(t),
                    acc.2 && t.is_subset(s),
                )
            };
            cols[j] -= x;
            let ok = go(a, b, i, j + 1, row_left - x, cols, next, out, leaves);
            cols[j] += x;
            if !ok {
                return false;
            }
        }
        true
    }
    let first = a.first().map_or(0, |x| x.1);
    go(
        a,
        b,
        0,
        0,
        first,
        &mut cols,
        (0, true, true),
        &mut out,
        &mut leaves,
    )
    .then_some(out)
}

/// The summaries of every arrangement of two orbits' members.
fn summaries(p: &Orbit, q: &Orbit) -> Option<Vec<Summary>> {
    let mut acc: Vec<Summary> = vec![(0, true, true)];
    for (a, b) in p.iter().zip(q) {
        let per = class_summaries(a, b)?;
        let mut next = Vec::new();
        for x in &acc {
            for y in &per {
                let z = ((x.0 + y.0).min(2), x.1 && y.1, x.2 && y.2);
                if !next.contains(&z) {
                    next.push(z);
                }
            }
        }
        acc = next;
    }
    Some(acc)
}

/// Turns a list of canonical orbits (one global store's) into the orbits of
/// the maximized antichain of their union: equal orbits merged, orbits
/// inside another dropped (absorption), and then every two members of the
/// remaining orbits must be disjoint in at least two positions, so that no
/// consensus exists and the list is the set of maximal products (Prop. 3).
/// `None` when that last condition fails or cannot be checked: the caller
/// then uses the per-thread representation, which maximizes by consensus.
pub(crate) fn maximize(mut orbits: Vec<Orbit>) -> Option<Vec<Orbit>> {
    orbits.retain(|o| !is_empty(o));
    orbits.sort_by(|a, b| key(a).cmp(&key(b)));
    orbits.dedup();
    let n = orbits.len();
    let mut table: Vec<Vec<Vec<Summary>>> = Vec::with_capacity(n);
    for p in &orbits {
        let mut row = Vec::with_capacity(n);
        for q in &orbits {
            row.push(summaries(p, q)?);
        }
        table.push(row);
    }
    // Distinct orbits are never inside each other both ways, so removing
    // every orbit inside another keeps exactly the maximal ones.
    let inside: Vec<bool> = (0..n)
        .map(|i| (0..n).any(|j| j != i && table[i][j].iter().any(|s| s.1)))
        .collect();
    for i in (0..n).filter(|&i| !inside[i]) {
        for j in (0..n).filter(|&j| !inside[j]) {
            // Equal members (i = j, the same arrangement) are one product.
            let ok = table[i][j]
                .iter()
                .all(|s| s.0 >= 2 || (i == j && s.1 && s.2));
            if !ok {
                return None;
            }
        }
    }
    Some(
        orbits
            .into_iter()
            .zip(inside)
            .filter(|(_, dropped)| !dropped)
            .map(|(o, _)| o)
            .collect(),
    )
}

/// An orbit's sort key (canonical orbits compare as their words).
fn key(o: &Orbit) -> Vec<Vec<(&[u64], u32)>> {
    o.iter()
        .map(|g| g.iter().map(|(s, m)| (s.words(), *m)).collect())
        .collect()
}

/// Expands an orbit member to one set per thread: the threads of class k
/// (`sizes[k]` of them, in order) take the groups' sets in order.
#[cfg(test)]
pub(crate) fn representative(o: &Orbit) -> Vec<&BitSet> {
    o.iter()
        .flat_map(|groups| {
            groups
                .iter()
                .flat_map(|(s, m)| std::iter::repeat_n(s, *m as usize))
        })
        .collect()
}

/// Every arrangement of one class's groups over its threads, as the group
/// each thread takes, in thread order; lexicographic, each once. The
/// groups of a canonical orbit have distinct sets, so these are the
/// orbit's distinct members for the class: `size` of them, which callers
/// bound before asking.
pub(crate) fn arrangements(groups: &Groups) -> Vec<Vec<u32>> {
    let mut seq: Vec<u32> = groups
        .iter()
        .enumerate()
        .flat_map(|(i, (_, m))| std::iter::repeat_n(i as u32, *m as usize))
        .collect();
    let mut out = vec![seq.clone()];
    while next_permutation(&mut seq) {
        out.push(seq.clone());
    }
    out
}

/// The next arrangement of `s` in lexicographic order (false, `s`
/// unchanged, at the last one).
fn next_permutation(s: &mut [u32]) -> bool {
    let Some(i) = s.windows(2).rposition(|w| w[0] < w[1]) else {
        return false;
    };
    // s[i + 1] > s[i], so some j > i has s[j] > s[i]: the last such one.
    let j = s.iter().rposition(|&x| x > s[i]).unwrap_or(i + 1);
    s.swap(i, j);
    s[i + 1..].reverse();
    true
}

/// Every arrangement of one class's groups over its threads.
#[cfg(test)]
fn class_members(g: &Groups) -> Vec<Vec<BitSet>> {
    let mut out: Vec<Vec<BitSet>> = Vec::new();
    for a in arrangements(g) {
        let member: Vec<BitSet> = a.iter().map(|&i| g[i as usize].0.clone()).collect();
        // Equal sets in two groups (not canonical) give one member.
        if !out.contains(&member) {
            out.push(member);
        }
    }
    out
}

/// Every member of an orbit (all arrangements, class by class).
#[cfg(test)]
pub(crate) fn members(o: &Orbit) -> Vec<super::Product> {
    let mut out: Vec<super::Product> = vec![vec![]];
    for groups in o {
        let per = class_members(groups);
        out = out
            .into_iter()
            .flat_map(|p| per.iter().map(move |q| [p.clone(), q.clone()].concat()))
            .collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Product, Relevant, maximize_products};
    use super::*;
    use proptest::prelude::*;

    const WIDTH: usize = 3;

    fn set(m: u8) -> BitSet {
        let mut b = BitSet::empty(WIDTH);
        (0..WIDTH as u32).filter(|x| m >> x & 1 == 1).for_each(|x| {
            b.insert(x);
        });
        b
    }

    /// An orbit of one class of `n` threads: a few groups.
    fn orbit(n: u32) -> impl Strategy<Value = Orbit> {
        proptest::collection::vec(1u8..8, 1..=2).prop_map(move |sets| {
            let mut groups: Groups = vec![(set(sets[0]), n - (sets.len() as u32 - 1))];
            if sets.len() == 2 {
                groups.push((set(sets[1]), 1));
            }
            canonical(vec![groups])
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Orbits of one class of 3 threads: `maximize` either refuses or
        /// gives the orbits of what per-thread consensus gives, and then
        /// Prop. 8 on orbits removes what it removes on every member.
        #[test]
        fn orbits_agree_with_the_per_thread_antichain(es in proptest::collection::vec(orbit(3), 1..3), p in orbit(3)) {
            let flat: Vec<Product> = es.iter().flat_map(members).collect();
            let mut per_thread = flat.clone();
            prop_assert!(maximize_products(&mut per_thread));
            let Some(max) = maximize(es.clone()) else { return Ok(()) };
            let mut ours: Vec<Product> = max.iter().flat_map(members).collect();
            ours.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
            per_thread.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
            prop_assert_eq!(&ours, &per_thread);
            // Prop. 8 on the representative member of p, per thread.
            let rep: Product = representative(&p).into_iter().cloned().collect();
            let rel = Relevant::new(&rep, &per_thread);
            let by_thread = rel.subtract(None);
            let by_orbit = subtract(&p, &max);
            prop_assert_eq!(by_thread.is_none(), by_orbit.is_none());
            if let (Some(rt), Some(ro)) = (by_thread, by_orbit) {
                let mut t = 0;
                for (a, (s, m)) in p[0].iter().enumerate() {
                    for _ in 0..*m {
                        let mut left = s.clone();
                        for (k, rm) in &rt { if *k == t { left.difference_with(rm); } }
                        let mut ours = s.clone();
                        ours.difference_with(&ro[0][a]);
                        prop_assert_eq!(left, ours, "thread {}", t);
                        t += 1;
                    }
                }
            }
        }

        /// The arrangements of a class's groups are its distinct members,
        /// as many as `size` counts, each group taken as often as its count.
        #[test]
        fn arrangements_are_the_distinct_members(counts in proptest::collection::vec(1u32..4, 1..4)) {
            let groups: Groups = counts.iter().enumerate().map(|(i, &m)| (set(1 << i), m)).collect();
            let all = arrangements(&groups);
            prop_assert_eq!(all.len() as u64, size(&vec![groups.clone()]));
            let distinct: std::collections::BTreeSet<&Vec<u32>> = all.iter().collect();
            prop_assert_eq!(distinct.len(), all.len());
            for a in &all {
                for (i, &m) in counts.iter().enumerate() {
                    prop_assert_eq!(a.iter().filter(|&&x| x == i as u32).count(), m as usize);
                }
            }
        }
    }
}
