//! Joins into the cartesian-exc fixpoint X: a post's product (or one
//! local store of it) united component-wise into X(g), re-queueing g when
//! it grew, and each element new in X recorded with the post that gave it
//! (`origin.rs`).

use super::Worklist;
use super::origin::{Move, Parents};
use crate::engine::exceptions::{BitSet, Product, Removals};
use rustc_hash::FxHashMap;

/// What a join writes: X, the parents of its elements, and the worklist.
pub(super) type Into<'a> = (
    &'a mut FxHashMap<u32, Product>,
    &'a mut Parents,
    &'a mut Worklist,
);

/// X(g)_i ⊔= {l}, where X(g) exists; re-queues g when it grew.
pub(super) fn join_local((x, parents, queue): Into, g: u32, i: usize, l: u32, mv: Move) {
    if let Some(target) = x.get_mut(&g)
        && target[i].insert(l)
    {
        parents.added(i, l);
        parents.flush(g, mv);
        queue.push(g);
    }
}

/// X(g)_j ⊔= base_j for every j ≠ i, where X(g) exists; re-queues g when
/// it grew.
pub(super) fn join_others((x, parents, queue): Into, g: u32, base: &Product, i: usize, mv: Move) {
    let Some(target) = x.get_mut(&g) else { return };
    let mut grew = false;
    for (j, (t, b)) in target.iter_mut().zip(base).enumerate() {
        if j != i {
            grew |= t.union_with_new(b, |l| parents.added(j, l));
        }
    }
    parents.flush(g, mv);
    if grew {
        queue.push(g);
    }
}

/// X(g) ⊔= (base with component i := {l}) minus the removals; re-queues g
/// when it grew. Nothing is joined when a component would become empty.
/// `mv` is the post that gave it, for the new elements' parents.
pub(super) fn join(
    (x, parents, queue): Into,
    g: u32,
    base: &Product,
    replace: Option<(usize, u32)>,
    removals: &Removals,
    mv: Move,
) {
    let mut changed_comps: Vec<(usize, BitSet)> = Vec::new();
    if let Some((i, l)) = replace {
        changed_comps.push((i, base[i].singleton_like(l)));
    }
    for (k, set) in removals {
        let pos = match changed_comps.iter().position(|(j, _)| j == k) {
            Some(p) => p,
            None => {
                changed_comps.push((*k, base[*k].clone()));
                changed_comps.len() - 1
            }
        };
        changed_comps[pos].1.difference_with(set);
    }
    if changed_comps.iter().any(|(_, c)| c.is_empty()) {
        return;
    }
    let n = base.len();
    let target = x
        .entry(g)
        .or_insert_with(|| base.iter().map(|b| b.cleared()).collect());
    let mut grew = false;
    for j in 0..n {
        let add = match changed_comps.iter().find(|(k, _)| *k == j) {
            Some((_, c)) => c,
            None => &base[j],
        };
        grew |= target[j].union_with_new(add, |l| parents.added(j, l));
    }
    parents.flush(g, mv);
    if grew {
        queue.push(g);
    }
}
