//! Incremental rounds: what of one round's fixpoint the next round, with
//! more precise stores, starts from.
//!
//! Making stores precise only shrinks the least fixpoint F(P), so nothing
//! of F(P) may be kept blindly: X(g) is a join, and a product derived from
//! it holds the states glued at g. What may be kept is what was *derived*
//! without the stores that became precise, newly = P' \ P.
//!
//! Every element (X(g), or a product of D) records what it was derived
//! from (`Trail::cart_from`, `Tagged::from`): a product is the post of one
//! element, X(g) the join of the contributions that changed it. An element
//! not reachable in that graph from any X(g), g ∈ newly, was derived by a
//! chain of posts through elements that are all still there under P': D's
//! products at stores of P ⊆ P', and X(h) at stores h ∉ newly, which are
//! still Cartesian and, by induction along the chain, still hold at least
//! the value the chain used. So every kept element is below F(P'), and the
//! Kleene iteration started from them ends at F(P') itself, not above it.
//!
//! The taint of a product is not enough for this: it names the Cartesian
//! stores its own posts went through, not those that fed them. A product
//! derived from X(h) with taint {h} depends on every store that flowed
//! into X(h), and must go when one of those becomes precise; kept, it
//! would leave glued states in a fixpoint above F(P') (still an invariant,
//! but one that may keep the alarm refinement was meant to remove; the
//! tests in src/tests/incremental.rs catch that mutation).
//!
//! The iteration must also post again what the kept elements contributed
//! where it went with the dropped ones (`to_post_again`): into an X(g)
//! that goes, or into a product of D that goes (a contribution contained
//! in an existing product is recorded there, `Tagged::covers`, and so are
//! the products a new one empties, `Tagged::emptied_by`).
//!
//! A lazy round (`Extent::UntilAlarm`) stops below F(P) with work pending:
//! its elements were derived all the same, so the argument above keeps
//! those not derived from newly below F(P'), and the pending work of the
//! kept ones is carried with them. A round a budget stopped is not carried
//! (it returns without recording its pending work, and the loop ends with
//! it anyway).
//!
//! The chains of `emptied_by` must survive the carry: a product emptied by
//! one that goes now, itself emptied by one that stays, has its states in
//! the one that stays, and points past the one that goes to it (and what
//! the one that goes covered is covered by the one that stays). Left
//! pointing at a product no longer in D, it would be out of reach of
//! `to_post_again` when the one that stays goes in a later round, and its
//! source would not be posted again (a proptest found that: rounds 2 to 5
//! resumed, round 5 missed 374 states of its fixpoint;
//! `emptied_chains_survive_the_carry_found_by_proptest` and
//! `a_round_resumed_from_a_stopped_one_found_by_proptest_resumes_soundly`
//! in src/tests/incremental.rs).
//!
//! A rendezvous' joint post is the post of one element, as a single
//! thread's is (it goes through the same `add`, which records where it
//! went), so nothing here is particular to channels; models with channels
//! resume too (the case that once made them start from scratch was this
//! chain, `a_rendezvous_model_found_by_proptest_resumes_soundly`).
//!
//! Model errors are recorded once per looked-up step, and X(g)'s lookups
//! are cached, so a kept X(g) would not report them again: a round that met
//! any is not carried (the next one starts from scratch).

use super::hybrid::{Carried, Hybrid, LiveSet, Node, Tagged, Trail, Work};
use crate::engine::exceptions::product_is_empty;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

/// The part of `prev` that holds under `precise` (a superset of its P),
/// with the work that completes it; `None` when `prev` cannot be carried.
pub(super) fn carry(
    mut prev: Hybrid,
    precise: &FxHashSet<u32>,
) -> Option<(Hybrid, VecDeque<Work>)> {
    if prev.stopped.is_some() || !prev.model_errors.is_empty() {
        return None;
    }
    let dropped = derived_from_newly(&prev, precise);
    let keep = |n: Node| !dropped.contains(&n);
    let again = to_post_again(&prev, &keep);
    let mut carried = Carried::default();

    // X: the stores whose value did not use the newly precise ones.
    prev.cart.retain(|g, _| keep(Node::Cart(*g)));
    let kept_cart = |g: &u32| prev.cart.contains_key(g);
    prev.posted.retain(|g, _| kept_cart(g));
    prev.first_alarm.retain(|g, _| kept_cart(g));
    prev.trail.cart_from.retain(|g, _| kept_cart(g));
    prev.trail.cart_targets.retain(|g, _| kept_cart(g));
    carried.cart = prev.cart.len();

    // A product emptied by a dropped one: its states are in the first kept
    // product down the chain of `emptied_by`, if there is one (else
    // `to_post_again` posts its source again). A kept one points there
    // now, since the dropped ones leave D; and what a dropped one covered
    // (the kept elements whose posts it contained) is covered there now,
    // for the walk of `to_post_again` that starts there in a later round.
    let emptier: FxHashMap<u32, u32> = prev
        .disj
        .values()
        .flatten()
        .filter_map(|t| Some((t.id, t.emptied_by?)))
        .collect();
    let first_kept = |mut by: u32| {
        while !keep(Node::Prod(by))
            && let Some(&next) = emptier.get(&by)
        {
            by = next;
        }
        by
    };
    let mut covered_there: FxHashMap<u32, Vec<Node>> = FxHashMap::default();
    for t in prev.disj.values().flatten() {
        if let Some(by) = t.emptied_by.filter(|_| !keep(Node::Prod(t.id))) {
            let there = first_kept(by);
            if keep(Node::Prod(there)) {
                let kept = t.covers.iter().copied().filter(|c| keep(*c));
                covered_there.entry(there).or_default().extend(kept);
            }
        }
    }
    for t in prev.disj.values_mut().flatten() {
        if let Some(by) = t.emptied_by {
            t.emptied_by = Some(first_kept(by));
        }
        for c in covered_there.remove(&t.id).into_iter().flatten() {
            if c != t.from && !t.covers.contains(&c) {
                t.covers.push(c);
            }
        }
    }

    // D: the products derived without them, with their new indices.
    let mut moved: FxHashMap<u32, Vec<Option<usize>>> = FxHashMap::default();
    let mut at: FxHashMap<u32, (u32, usize)> = FxHashMap::default();
    for (g, list) in prev.disj.iter_mut() {
        let (mut index, mut next) = (Vec::with_capacity(list.len()), 0);
        list.retain(|t| {
            let k = keep(Node::Prod(t.id));
            index.push(k.then(|| {
                next += 1;
                next - 1
            }));
            k
        });
        for (i, t) in list.iter_mut().enumerate() {
            at.insert(t.id, (*g, i));
            t.covers.retain(|c| keep(*c));
        }
        moved.insert(*g, index);
        carried.products += list.len();
    }
    prev.disj.retain(|_, list| !list.is_empty());
    prev.live = prev
        .disj
        .iter()
        .map(|(g, list)| (*g, LiveSet::of(list)))
        .collect();

    // First what must be posted again, then what a lazy round left to
    // post, where it is kept.
    let mut carts: Vec<u32> = Vec::new();
    let mut prods: Vec<(u32, usize)> = Vec::new();
    for n in &again {
        match *n {
            Node::Cart(g) if prev.cart.contains_key(&g) => carts.push(g),
            Node::Prod(id) => prods.extend(
                at.get(&id)
                    .filter(|&&(g, i)| !product_is_empty(&prev.disj[&g][i].product))
                    .copied(),
            ),
            _ => {}
        }
    }
    carts.sort_unstable();
    prods.sort_unstable();
    carried.reposted = carts.len() + prods.len();
    let mut queued: FxHashSet<u32> = carts.iter().copied().collect();
    let mut work: VecDeque<Work> = carts.into_iter().map(Work::Cart).collect();
    work.extend(prods.into_iter().map(|(g, i)| Work::Disj(g, i)));
    for w in std::mem::take(&mut prev.pending) {
        match w {
            Work::Cart(g) if prev.cart.contains_key(&g) && queued.insert(g) => {
                work.push_back(Work::Cart(g));
            }
            Work::Disj(g, i) => {
                if let Some(j) = moved.get(&g).and_then(|m| m[i]) {
                    work.push_back(Work::Disj(g, j));
                }
            }
            Work::Cart(_) => {}
        }
    }

    prev.alarms.retain(|n| keep(*n));
    let trail = Trail {
        clock: prev.trail.clock + prev.posts,
        ..std::mem::take(&mut prev.trail)
    };
    let h = Hybrid {
        posts: 0,
        // The kept products were posted, or are queued to be: none is
        // joined again (its post would be made twice).
        unposted: Default::default(),
        trail,
        carried,
        partial: false,
        ..prev
    };
    Some((h, work))
}

/// The kept elements some of whose contributions go with the dropped ones:
/// those that reached a store whose X goes (it becomes precise, or was
/// derived from one that does), and those whose post a dropped product of
/// D contained (`covers`), directly or through the products it emptied.
/// Elsewhere a kept element's contributions are still in place: in X(g)
/// kept, in its own products (kept with it), or in a kept product that
/// contained them.
fn to_post_again(prev: &Hybrid, keep: &impl Fn(Node) -> bool) -> FxHashSet<Node> {
    let lost_x: FxHashSet<u32> = prev
        .cart
        .keys()
        .filter(|g| !keep(Node::Cart(**g)))
        .copied()
        .collect();
    let mut again: FxHashSet<Node> = FxHashSet::default();
    for (g, targets) in &prev.trail.cart_targets {
        if keep(Node::Cart(*g)) && targets.iter().any(|t| lost_x.contains(t)) {
            again.insert(Node::Cart(*g));
        }
    }
    let mut emptied_into: FxHashMap<u32, Vec<&Tagged>> = FxHashMap::default();
    for t in prev.disj.values().flatten() {
        if let Some(by) = t.emptied_by {
            emptied_into.entry(by).or_default().push(t);
        }
        // An emptied product posts nothing: the one that emptied it
        // holds its states and reached at least its stores.
        if keep(Node::Prod(t.id))
            && !product_is_empty(&t.product)
            && t.targets.iter().any(|g| lost_x.contains(g))
        {
            again.insert(Node::Prod(t.id));
        }
    }
    for top in prev.disj.values().flatten() {
        if keep(Node::Prod(top.id)) || product_is_empty(&top.product) {
            continue;
        }
        let mut stack = vec![top];
        while let Some(t) = stack.pop() {
            again.extend(t.covers.iter().copied().filter(|c| keep(*c)));
            // The top's own source too: a product that goes because a
            // product joined into it goes (`merge.rs`) may come from a
            // kept element, whose post must then be made again.
            if keep(t.from) {
                again.insert(t.from);
            }
            stack.extend(emptied_into.get(&t.id).into_iter().flatten());
        }
    }
    again
}

/// The elements of `prev` derived (transitively) from X(g) for a store g
/// of `precise` that is Cartesian in `prev`.
fn derived_from_newly(prev: &Hybrid, precise: &FxHashSet<u32>) -> FxHashSet<Node> {
    let mut children: FxHashMap<Node, Vec<Node>> = FxHashMap::default();
    for list in prev.disj.values() {
        for t in list {
            children.entry(t.from).or_default().push(Node::Prod(t.id));
            // A product holds the states of those joined into it.
            for j in &t.joined {
                children
                    .entry(Node::Prod(*j))
                    .or_default()
                    .push(Node::Prod(t.id));
            }
        }
    }
    for (g, from) in &prev.trail.cart_from {
        for f in from {
            children.entry(*f).or_default().push(Node::Cart(*g));
        }
    }
    let mut stack: Vec<Node> = prev
        .cart
        .keys()
        .filter(|g| precise.contains(g))
        .map(|g| Node::Cart(*g))
        .collect();
    let mut dropped: FxHashSet<Node> = stack.iter().copied().collect();
    while let Some(n) = stack.pop() {
        for c in children.get(&n).into_iter().flatten() {
            if dropped.insert(*c) {
                stack.push(*c);
            }
        }
    }
    dropped
}
