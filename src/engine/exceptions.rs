//! Exception sets as unions of Cartesian products (Malkis, Podelski and
//! Rybalchenko, Section 4.3): per global store g, a maximized antichain M(g)
//! of products of per-thread local-store sets, and the operation at the
//! heart of Props. 8 and 9: α_c(P \ E(g)) for a product P, computed from the
//! restrictions E_{j,r} without enumerating P.

mod admitted;
mod bitset;
pub(crate) mod orbits;

pub(crate) use admitted::{Admitted, enumerate};
pub(crate) use bitset::BitSet;

use crate::program::{CExpr, Ctx, EvalError, ExceptionShape, Explorer, Val};
use rustc_hash::{FxHashMap, FxHashSet};
use std::borrow::Cow;

/// A Cartesian product of per-thread local-store sets.
pub(crate) type Product = Vec<BitSet>;

/// Is the product empty (some component empty)? (Lemma 5's side condition.)
pub(crate) fn product_is_empty(p: &[BitSet]) -> bool {
    p.iter().any(BitSet::is_empty)
}

/// P ⊆ Q for non-empty products (Lemma 5).
pub(crate) fn product_subset(p: &[BitSet], q: &[BitSet]) -> bool {
    p.iter().zip(q).all(|(a, b)| a.is_subset(b))
}

/// Where maximization stops: product slots per global store. A maximized
/// antichain can be exponentially larger than the union it represents
/// (prime implicants), so past this bound the list is kept as it is (same
/// union, not maximized) and `Subtraction` uses exact cover checks for that
/// global store instead of Prop. 8: slower, never less precise.
const MAX_PRODUCTS: usize = 2_000;

/// The exception set E: per global store, a union of products; a maximized
/// antichain except at the global stores in `unmaximized`.
#[derive(Clone, Debug, Default)]
pub(crate) struct ExceptionSet {
    pub(crate) by_global: FxHashMap<u32, Vec<Product>>,
    /// Global stores whose maximization was cut short by `MAX_PRODUCTS`.
    pub(crate) unmaximized: FxHashSet<u32>,
}

impl ExceptionSet {
    pub(crate) fn products(&self, g: u32) -> &[Product] {
        self.by_global.get(&g).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Number of products over all global stores.
    pub(crate) fn size(&self) -> usize {
        self.by_global.values().map(Vec::len).sum()
    }

    /// Builds E from the model's exception entries, each at the global
    /// stores `at` admits it at (interned in `exp`);
    /// `universe[t]` is the number of local stores of thread t's template.
    /// `stop` is asked, with the number of products so far, before each
    /// entry at each global store; when it answers `Some(reason)` the instantiation ends
    /// there and the reason is returned beside the partial set.
    pub(crate) fn from_entries<'p>(
        exp: &Explorer<'p>,
        at: &Admitted,
        universe: &[usize],
        stop: &mut dyn FnMut(usize) -> Option<String>,
    ) -> Result<(ExceptionSet, Option<String>), EvalError> {
        let prog = exp.prog;
        let n = prog.threads.len();
        let mut set = ExceptionSet::default();
        let mut products_so_far = 0;
        // Per global store, each distinct (thread, predicate) is evaluated
        // over the local stores once: generated exception sets repeat the
        // same predicates across many entries. Equal predicates get one id
        // here, looked up below by address (hashing whole expressions per
        // global store would cost as much as evaluating them).
        let mut by_shape: FxHashMap<(usize, &'p CExpr), usize> = FxHashMap::default();
        let mut id_at: FxHashMap<(usize, *const CExpr), usize> = FxHashMap::default();
        for entry in &prog.exceptions {
            let pairs: Vec<(usize, &'p CExpr)> = match &entry.shape {
                ExceptionShape::Product(per) => per
                    .iter()
                    .enumerate()
                    .filter_map(|(t, e)| e.as_ref().map(|e| (t, e)))
                    .collect(),
                ExceptionShape::OneOthers { one, others, over } => over
                    .iter()
                    .flat_map(|&t| [(t as usize, one), (t as usize, others)])
                    .collect(),
            };
            for (t, e) in pairs {
                let fresh = by_shape.len();
                let id = *by_shape.entry((t, e)).or_insert(fresh);
                id_at.insert((t, e as *const CExpr), id);
            }
        }
        let mut sats: Vec<Option<BitSet>> = vec![None; by_shape.len()];
        let mut entries = Vec::new();
        for &g in &at.gs {
            sats.iter_mut().for_each(|s| *s = None);
            let gs = exp.globals.get(g);
            at.entries_at(g, &mut entries);
            for entry in entries.iter().map(|&e| &prog.exceptions[e]) {
                if let Some(why) = stop(products_so_far) {
                    return Ok((set, Some(why)));
                }
                if let Some(w) = &entry.when
                    && w.eval(&Ctx::global(gs, None))? == 0
                {
                    continue;
                }
                let mut sat = |t: usize, pred: &'p CExpr| -> Result<BitSet, EvalError> {
                    let id = id_at[&(t, pred as *const CExpr)];
                    if let Some(b) = &sats[id] {
                        return Ok(b.clone());
                    }
                    let mut b = BitSet::empty(universe[t]);
                    for l in 0..universe[t] as u32 {
                        if local_pred(exp, pred, gs, t, l)? {
                            b.insert(l);
                        }
                    }
                    sats[id] = Some(b.clone());
                    Ok(b)
                };
                let mut products = Vec::new();
                match &entry.shape {
                    ExceptionShape::Product(per) => {
                        let mut p = Vec::with_capacity(n);
                        for (t, pred) in per.iter().enumerate() {
                            let c = match pred {
                                Some(e) => sat(t, e)?,
                                None => BitSet::full(universe[t]),
                            };
                            // A product with an empty component is empty:
                            // the other threads' predicates need no
                            // evaluating at this g.
                            if c.is_empty() {
                                break;
                            }
                            p.push(c);
                        }
                        if p.len() == n {
                            products.push(p);
                        }
                    }
                    ExceptionShape::OneOthers { one, others, over } => {
                        let mut ones = Vec::with_capacity(n);
                        let mut rest = Vec::with_capacity(n);
                        let mut member = vec![false; n];
                        for &t in over {
                            member[t as usize] = true;
                        }
                        for t in 0..n {
                            if member[t] {
                                ones.push(sat(t, one)?);
                                rest.push(sat(t, others)?);
                            } else {
                                let f = BitSet::full(universe[t]);
                                ones.push(f.clone());
                                rest.push(f);
                            }
                        }
                        // C(i) = others^(i-1) × one × others^(n-i) over `over`.
                        for &i in over {
                            let mut p = rest.clone();
                            p[i as usize] = ones[i as usize].clone();
                            products.push(p);
                        }
                    }
                }
                products_so_far += products.len();
                set.by_global.entry(g).or_default().extend(products);
            }
        }
        let why = set.maximize_within(&mut || stop(products_so_far));
        Ok((set, why))
    }

    /// E from explicit states `(g, l_1..l_n)` (tests: E = the reachable set).
    pub(crate) fn from_states(states: &[(u32, Vec<u32>)], universe: &[usize]) -> ExceptionSet {
        let mut set = ExceptionSet::default();
        for (g, ls) in states {
            let p: Product = ls
                .iter()
                .enumerate()
                .map(|(t, &l)| BitSet::single(universe[t], l))
                .collect();
            set.by_global.entry(*g).or_default().push(p);
        }
        set.maximize();
        set
    }

    /// Turns every per-g list into a maximized antichain: all maximal
    /// products inside the union (Prop. 3), by iterated consensus (the
    /// multi-valued analogue of computing prime implicants) and absorption.
    pub(crate) fn maximize(&mut self) {
        let _never = self.maximize_within(&mut || None);
    }

    /// As `maximize`, until `stop` gives a reason (asked between the
    /// pairings of one product with the earlier ones, which cost up to
    /// products × threads each): then the lists not maximized yet are left
    /// as they are, marked so, and the reason returned.
    pub(crate) fn maximize_within(
        &mut self,
        stop: &mut dyn FnMut() -> Option<String>,
    ) -> Option<String> {
        let mut why = None;
        for (g, products) in self.by_global.iter_mut() {
            let complete = match why {
                Some(_) => false,
                None => match maximize_products_within(products, stop) {
                    Ok(complete) => complete,
                    Err(reason) => {
                        why = Some(reason);
                        false
                    }
                },
            };
            if !complete {
                self.unmaximized.insert(*g);
            }
        }
        self.by_global.retain(|_, v| !v.is_empty());
        why
    }

    /// How α_c(P \ E(g)) is computed for the products P of one `base`.
    pub(crate) fn subtraction<'e>(&'e self, base: &[BitSet], g: u32) -> Subtraction<'e> {
        let products = self.products(g);
        if self.unmaximized.contains(&g) {
            Subtraction::Cover(products)
        } else {
            Subtraction::Antichain(Relevant::new(base, products))
        }
    }

    /// Is the concrete state `(g, ls)` in E?
    #[cfg(test)]
    pub(crate) fn contains(&self, g: u32, ls: &[u32]) -> bool {
        self.products(g)
            .iter()
            .any(|p| p.iter().zip(ls).all(|(c, &l)| c.contains(l)))
    }
}

/// Evaluates a per-thread local predicate at global store `gs`.
pub(crate) fn local_pred(
    exp: &Explorer,
    pred: &crate::program::CExpr,
    gs: &[Val],
    t: usize,
    l: u32,
) -> Result<bool, EvalError> {
    let prog = exp.prog;
    let ctx = Ctx {
        g: gs,
        tid: prog.threads[t].tid,
        template: prog.threads[t].template as usize,
        l: exp.local(t, l),
        state: None,
        terms: &[],
    };
    Ok(pred.eval(&ctx)? != 0)
}

/// Closes a list of products under consensus with eager absorption
/// (Quine's method, multi-valued): the list stays an antichain throughout,
/// each new product is paired with every earlier live one, and at the end
/// every consensus of two live products lies inside a live product, so the
/// live products are exactly the maximal products of the union. Returns
/// false when the size bound stopped it early.
#[cfg(test)]
fn maximize_products(products: &mut Vec<Product>) -> bool {
    maximize_products_within(products, &mut || None).unwrap_or(false)
}

/// As `maximize_products`, asking `stop` before each product is paired:
/// `Err(reason)` when it gives one (the list then holds the products as
/// far as they were absorbed, still covering the same union).
fn maximize_products_within(
    products: &mut Vec<Product>,
    stop: &mut dyn FnMut() -> Option<String>,
) -> Result<bool, String> {
    let mut live: Vec<Option<Product>> = Vec::new();
    let mut given = std::mem::take(products).into_iter();
    while let Some(p) = given.next() {
        // Each insertion compares with every live product.
        if let Some(why) = stop() {
            products.extend(live.into_iter().flatten().chain([p]).chain(given));
            return Err(why);
        }
        insert_absorbing(&mut live, p);
    }
    let n = live.iter().flatten().next().map_or(0, Vec::len);
    let mut complete = true;
    let mut b = 0;
    while b < live.len() {
        if let Some(why) = stop() {
            products.extend(live.into_iter().flatten());
            return Err(why);
        }
        for a in 0..b {
            let (Some(p), Some(q)) = (&live[a], &live[b]) else {
                continue;
            };
            let disjoint: Vec<usize> = (0..n)
                .filter(|&k| !p[k].intersects(&q[k]))
                .take(2)
                .collect();
            let vars: Vec<usize> = match disjoint.len() {
                0 => (0..n)
                    .filter(|&k| !p[k].is_subset(&q[k]) && !q[k].is_subset(&p[k]))
                    .collect(),
                1 => vec![disjoint[0]],
                _ => continue,
            };
            let consensus: Vec<Product> = vars
                .into_iter()
                .map(|k| {
                    // Union at k, intersection elsewhere.
                    (0..n)
                        .map(|j| {
                            let mut s = p[j].clone();
                            if j == k {
                                s.union_with(&q[j]);
                            } else {
                                s.intersect_with(&q[j]);
                            }
                            s
                        })
                        .collect()
                })
                .collect();
            for c in consensus {
                insert_absorbing(&mut live, c);
            }
            if live.len() > MAX_PRODUCTS {
                complete = false;
                break;
            }
        }
        if !complete {
            break;
        }
        b += 1;
    }
    products.extend(live.into_iter().flatten());
    Ok(complete)
}

/// Adds `c` unless it is empty or inside a live product; removes the live
/// products inside it.
fn insert_absorbing(live: &mut Vec<Option<Product>>, c: Product) {
    if product_is_empty(&c) || live.iter().flatten().any(|x| product_subset(&c, x)) {
        return;
    }
    for slot in live.iter_mut() {
        if slot.as_ref().is_some_and(|x| product_subset(x, &c)) {
            *slot = None;
        }
    }
    live.push(Some(c));
}

/// For a product `base` with component `i` replaced (the shape of every
/// successor product), the relevant exception products of one target g:
/// those C with at most two components k where base_k ⊄ C_k. Computed once
/// per (base, g) and reused for every replaced component.
pub(crate) struct Relevant<'e> {
    /// (C, the components where base ⊄ C: at most two).
    items: Vec<(&'e Product, [usize; 2], u8)>,
}

impl<'e> Relevant<'e> {
    pub(crate) fn new(base: &[BitSet], products: &'e [Product]) -> Relevant<'e> {
        let mut items = Vec::new();
        'c: for c in products {
            let mut bad = [usize::MAX; 2];
            let mut nbad = 0u8;
            for (k, (b, ck)) in base.iter().zip(c.iter()).enumerate() {
                if !b.is_subset(ck) {
                    if nbad == 2 {
                        continue 'c;
                    }
                    bad[nbad as usize] = k;
                    nbad += 1;
                }
            }
            items.push((c, bad, nbad));
        }
        Relevant { items }
    }

    /// α_c(P \ E(g)) for P = base, or base with component i := {single},
    /// by Prop. 8: r survives at j iff r ∈ P_j and no C has r ∈ C_j and
    /// P_k ⊆ C_k for all k ≠ j. Returns the components to remove (`None`:
    /// P ⊆ E, nothing survives), as (component, set) pairs.
    pub(crate) fn subtract(
        &self,
        replace: Option<(usize, u32)>,
    ) -> Option<Vec<(usize, &'e BitSet)>> {
        let mut removals = Vec::new();
        for (c, bad, nbad) in &self.items {
            // K(C, P): the components where P_k ⊄ C_k. C matters only when
            // |K| <= 1; with K = {k} it removes C_k from P_k.
            let skip = replace.map(|(i, _)| i);
            let mut others = bad[..*nbad as usize].iter().filter(|&&b| Some(b) != skip);
            let first = others.next().copied();
            if others.next().is_some() {
                continue;
            }
            let in_ci = replace.is_none_or(|(i, single)| c[i].contains(single));
            match (first, in_ci) {
                (None, true) => return None,
                (Some(k), true) => removals.push((k, &c[k])),
                // K = {i}: removes nothing from {single}.
                _ => {}
            }
        }
        Some(removals)
    }
}

/// Removals from a product's components: (component, local stores to drop).
pub(crate) type Removals<'e> = Vec<(usize, Cow<'e, BitSet>)>;

/// α_c(P \ E(g)) for one base product and one target g, by Prop. 8 when
/// E(g) is a maximized antichain, else by exact cover checks.
pub(crate) enum Subtraction<'e> {
    Antichain(Relevant<'e>),
    /// E(g) as a union of products that is not maximized.
    Cover(&'e [Product]),
}

impl<'e> Subtraction<'e> {
    /// As `Relevant::subtract`: the removals from P = base (with component
    /// i := {single}), or `None` when P ⊆ E(g).
    pub(crate) fn subtract(
        &self,
        base: &[BitSet],
        replace: Option<(usize, u32)>,
    ) -> Option<Removals<'e>> {
        match self {
            Subtraction::Antichain(rel) => rel
                .subtract(replace)
                .map(|rm| rm.into_iter().map(|(k, s)| (k, Cow::Borrowed(s))).collect()),
            Subtraction::Cover(union) => subtract_by_cover(base, replace, union),
        }
    }
}

/// α_c(P \ U) exactly, for any union U of products: r survives at
/// component j iff the slice P[j := {r}] is not covered by U.
fn subtract_by_cover<'e>(
    base: &[BitSet],
    replace: Option<(usize, u32)>,
    union: &[Product],
) -> Option<Removals<'e>> {
    let mut p: Product = base.to_vec();
    if let Some((i, single)) = replace {
        p[i] = base[i].singleton_like(single);
    }
    if product_covered(&p, union) {
        return None;
    }
    let mut removals = Vec::new();
    for j in 0..p.len() {
        let mut removed = p[j].cleared();
        let mut slice = p.clone();
        for r in p[j].iter() {
            slice[j] = p[j].singleton_like(r);
            if product_covered(&slice, union) {
                removed.insert(r);
            }
        }
        if !removed.is_empty() {
            removals.push((j, Cow::Owned(removed)));
        }
    }
    Some(removals)
}

/// Is the product `q` inside the union of `union`'s products? Splits q
/// around the first product C that meets it: q \ C is a disjoint union of
/// at most n products (q ∩ C on the components before k, q_k \ C_k at k),
/// none of which meets C or any product before it, so each is checked
/// against the products after C only.
pub(crate) fn product_covered(q: &[BitSet], union: &[Product]) -> bool {
    if product_is_empty(q) {
        return true;
    }
    for (idx, c) in union.iter().enumerate() {
        if !q.iter().zip(c).all(|(a, b)| a.intersects(b)) {
            continue;
        }
        if product_subset(q, c) {
            return true;
        }
        let rest = &union[idx + 1..];
        let mut prefix = q.to_vec();
        for k in 0..q.len() {
            let mut piece = prefix.clone();
            piece[k].difference_with(&c[k]);
            if !piece[k].is_empty() && !product_covered(&piece, rest) {
                return false;
            }
            prefix[k].intersect_with(&c[k]);
        }
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const WIDTH: usize = 3;

    fn product(masks: &[u8]) -> Product {
        masks
            .iter()
            .map(|m| {
                let mut b = BitSet::empty(WIDTH);
                (0..WIDTH as u32).filter(|x| m >> x & 1 == 1).for_each(|x| {
                    b.insert(x);
                });
                b
            })
            .collect()
    }

    /// Every tuple of a product, by enumeration.
    fn tuples(p: &[BitSet]) -> Vec<Vec<u32>> {
        p.iter().fold(vec![vec![]], |acc, c| {
            acc.into_iter()
                .flat_map(|t| c.iter().map(move |x| [t.clone(), vec![x]].concat()))
                .collect()
        })
    }

    fn in_union(t: &[u32], union: &[Product]) -> bool {
        union
            .iter()
            .any(|c| c.iter().zip(t).all(|(s, &x)| s.contains(x)))
    }

    fn products(
        n: usize,
        k: impl Into<proptest::collection::SizeRange>,
    ) -> impl Strategy<Value = Vec<Product>> {
        proptest::collection::vec(proptest::collection::vec(0u8..8, n), k)
            .prop_map(|ps| ps.iter().map(|m| product(m)).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// The cover check agrees with enumerating the product's tuples.
        #[test]
        fn cover_check_agrees_with_enumeration(q in products(3, 1), union in products(3, 0..8)) {
            let expected = tuples(&q[0]).iter().all(|t| in_union(t, &union));
            prop_assert_eq!(product_covered(&q[0], &union), expected);
        }

        /// Maximizing keeps the union, and then Prop. 8 and the cover check
        /// compute the same α_c(P \ E) for every slice replacement.
        #[test]
        fn antichain_and_cover_subtractions_agree(base in products(3, 1), union in products(3, 0..6)) {
            let base = &base[0];
            prop_assume!(!product_is_empty(base));
            let mut maximized = union.clone();
            prop_assert!(maximize_products(&mut maximized));
            for t in tuples(&vec![BitSet::full(WIDTH); 3]) {
                prop_assert_eq!(in_union(&t, &maximized), in_union(&t, &union));
            }
            let replaces = std::iter::once(None)
                .chain((0..3).flat_map(|i| (0..WIDTH as u32).map(move |x| Some((i, x)))));
            for replace in replaces {
                let by_antichain = Subtraction::Antichain(Relevant::new(base, &maximized)).subtract(base, replace);
                let by_cover = Subtraction::Cover(&union).subtract(base, replace);
                // The surviving product, or None when it is empty.
                let survivor = |rm: Option<Removals>| rm.and_then(|rm| {
                    let mut p = base.clone();
                    if let Some((i, x)) = replace { p[i] = BitSet::single(WIDTH, x); }
                    for (k, s) in rm { p[k].difference_with(&s); }
                    (!product_is_empty(&p)).then_some(p)
                });
                prop_assert_eq!(survivor(by_antichain), survivor(by_cover), "replace {:?}", replace);
            }
        }
    }
}
