//! Classes of interchangeable threads for cartesian-exc (Malkis, Podelski
//! and Rybalchenko, Sections 3 to 5, read up to thread permutations), and
//! the exception set E instantiated as orbits of products.
//!
//! A template's instances form a class when its code never reads `tid`, no
//! property names one of them, every `count` takes all of them or none, and
//! every exception entry treats them alike (the condition of
//! `Symmetry::detect` for standard, extended to E). The initial states, the
//! transition relation and E are then closed under permuting the threads of
//! a class, so the least fixpoint of Section 4 is too: X_i(g) = X_j(g) for
//! every i, j of a class, and one component per class represents it
//! exactly. Any other thread is a class of its own; a program with no class
//! of two threads, with rendezvous, cooperative (its scheduler's `waiting`
//! cells are per thread), or whose E is not a verified maximized
//! antichain of orbits, keeps the per-thread path (`None`).

use crate::engine::exceptions::orbits::{self, MAX_GROUPS, Orbit};
use crate::engine::exceptions::{Admitted, BitSet, local_pred};
use crate::program::fire::uses_tid;
use crate::program::{CExpr, Ctx, EvalError, ExceptionShape, Explorer, Program};
use rustc_hash::FxHashMap;
use std::ops::Range;

/// The partition of the threads into classes: ranges of the thread list,
/// in order, covering it.
#[derive(Clone, Debug)]
pub(crate) struct Classes {
    pub(crate) ranges: Vec<Range<usize>>,
}

impl Classes {
    /// The classes of `prog`, or `None` when the per-thread path must be
    /// taken (rendezvous, a cooperative scheduler, `tid` in a predicate, or
    /// no class of two).
    pub(crate) fn detect(prog: &Program) -> Option<Classes> {
        // A cooperative model's scheduler keeps a `waiting` cell per
        // thread in the global store: exchanging two threads' local stores
        // is not a symmetry of it.
        if !prog.channels.is_empty() || prog.scheduler.is_some() {
            return None;
        }
        let n = prog.threads.len();
        // split[t]: thread t must be a class of its own.
        let mut split = vec![false; n];
        let mut tid = false;
        let mut visit = |e: &CExpr, split: &mut Vec<bool>| {
            e.visit(&mut |x| match x {
                CExpr::Tid => tid = true,
                CExpr::InstAt(t, _) | CExpr::InstLocal(t, _) | CExpr::InstLocalCell(t, ..) => {
                    split[*t as usize] = true
                }
                _ => {}
            });
        };
        for p in &prog.properties {
            visit(&p.error, &mut split);
        }
        for e in &prog.exceptions {
            if let Some(w) = &e.when {
                visit(w, &mut split);
            }
            match &e.shape {
                ExceptionShape::Product(per) => {
                    per.iter().flatten().for_each(|x| visit(x, &mut split))
                }
                ExceptionShape::OneOthers { one, others, .. } => {
                    visit(one, &mut split);
                    visit(others, &mut split);
                }
            }
        }
        if tid {
            return None;
        }
        // Sets of threads a predicate or entry distinguishes: a class that
        // meets one partly is split.
        let mut scopes: Vec<Vec<bool>> = Vec::new();
        let mut member = |ts: &mut dyn Iterator<Item = usize>| {
            let mut m = vec![false; n];
            ts.for_each(|t| m[t] = true);
            scopes.push(m);
        };
        for p in &prog.properties {
            p.error.visit(&mut |x| {
                if let CExpr::Count(ts, _) = x {
                    member(&mut ts.iter().map(|&t| t as usize));
                }
            });
        }
        for e in &prog.exceptions {
            if let ExceptionShape::OneOthers { over, .. } = &e.shape {
                member(&mut over.iter().map(|&t| t as usize));
            }
        }
        let mut ranges = Vec::new();
        let mut first = 0;
        for tpl in &prog.templates {
            let range = first..first + tpl.count as usize;
            first = range.end;
            let same_entries = prog.exceptions.iter().all(|e| match &e.shape {
                ExceptionShape::Product(per) => {
                    range.clone().all(|t| per.get(t) == per.get(range.start))
                }
                ExceptionShape::OneOthers { .. } => true,
            });
            let whole = range.clone().all(|t| !split[t])
                && !uses_tid(tpl)
                && same_entries
                && scopes
                    .iter()
                    .all(|m| range.clone().all(|t| m[t] == m[range.start]));
            if whole && range.len() >= 2 {
                ranges.push(range);
            } else {
                ranges.extend(range.map(|t| t..t + 1));
            }
        }
        ranges
            .iter()
            .any(|r| r.len() >= 2)
            .then_some(Classes { ranges })
    }

    /// The representative thread of class k (its first).
    pub(crate) fn rep(&self, k: usize) -> usize {
        self.ranges[k].start
    }

    /// The number of threads of class k.
    pub(crate) fn size(&self, k: usize) -> u32 {
        self.ranges[k].len() as u32
    }

    pub(crate) fn len(&self) -> usize {
        self.ranges.len()
    }
}

/// E as orbits: per global store, the orbits of its maximized antichain.
#[derive(Clone, Debug, Default)]
pub(crate) struct OrbitSet {
    pub(crate) by_global: FxHashMap<u32, Vec<Orbit>>,
}

impl OrbitSet {
    pub(crate) fn orbits(&self, g: u32) -> &[Orbit] {
        self.by_global.get(&g).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Products of the per-thread representation (orbit sizes summed).
    pub(crate) fn size(&self) -> u64 {
        self.by_global
            .values()
            .flatten()
            .map(orbits::size)
            .fold(0, u64::saturating_add)
    }

    /// E from the model's entries at the global stores `at` admits, as
    /// `ExceptionSet::from_entries` builds it per thread. `Ok(None)`: E is
    /// not a maximized antichain of orbits this module can vouch for (the
    /// caller takes the per-thread path). `stop` as there, with the number
    /// of orbits so far.
    pub(crate) fn from_entries(
        exp: &Explorer,
        at: &Admitted,
        classes: &Classes,
        universe: &[usize],
        stop: &mut dyn FnMut(usize) -> Option<String>,
    ) -> Result<Option<(OrbitSet, Option<String>)>, EvalError> {
        let prog = exp.prog;
        let mut set = OrbitSet::default();
        let mut so_far = 0;
        let full: Vec<BitSet> = (0..classes.len())
            .map(|k| BitSet::full(universe[classes.rep(k)]))
            .collect();
        let mut entries = Vec::new();
        for &g in &at.gs {
            let store = exp.globals.get(g);
            at.entries_at(g, &mut entries);
            // The local stores satisfying a predicate, per (class, predicate).
            let mut sats: FxHashMap<(usize, *const CExpr), BitSet> = FxHashMap::default();
            let mut sat = |k: usize, e: &CExpr| -> Result<BitSet, EvalError> {
                if let Some(b) = sats.get(&(k, e as *const CExpr)) {
                    return Ok(b.clone());
                }
                let t = classes.rep(k);
                let mut b = BitSet::empty(universe[t]);
                for l in 0..universe[t] as u32 {
                    if local_pred(exp, e, store, t, l)? {
                        b.insert(l);
                    }
                }
                sats.insert((k, e as *const CExpr), b.clone());
                Ok(b)
            };
            let mut here: Vec<Orbit> = Vec::new();
            for entry in entries.iter().map(|&e| &prog.exceptions[e]) {
                if let Some(why) = stop(so_far) {
                    return Ok(Some((set, Some(why))));
                }
                if let Some(w) = &entry.when
                    && w.eval(&Ctx::global(store, None))? == 0
                {
                    continue;
                }
                match &entry.shape {
                    ExceptionShape::Product(per) => {
                        let mut o: Orbit = Vec::with_capacity(classes.len());
                        for (k, all) in full.iter().enumerate() {
                            let s = match per.get(classes.rep(k)).and_then(Option::as_ref) {
                                Some(e) => sat(k, e)?,
                                None => all.clone(),
                            };
                            o.push(vec![(s, classes.size(k))]);
                        }
                        here.push(orbits::canonical(o));
                    }
                    ExceptionShape::OneOthers { one, others, over } => {
                        let inside: Vec<bool> = (0..classes.len())
                            .map(|k| over.contains(&(classes.rep(k) as u32)))
                            .collect();
                        let mut base: Orbit = Vec::with_capacity(classes.len());
                        for k in 0..classes.len() {
                            let s = if inside[k] {
                                sat(k, others)?
                            } else {
                                full[k].clone()
                            };
                            base.push(vec![(s, classes.size(k))]);
                        }
                        for k in (0..classes.len()).filter(|&k| inside[k]) {
                            let mut o = base.clone();
                            o[k] =
                                vec![(sat(k, one)?, 1), (o[k][0].0.clone(), classes.size(k) - 1)];
                            here.push(orbits::canonical(o));
                        }
                    }
                }
                so_far += 1;
            }
            if here.is_empty() {
                continue;
            }
            let Some(max) = orbits::maximize(here) else {
                return Ok(None);
            };
            if max.iter().flatten().any(|groups| groups.len() > MAX_GROUPS) {
                return Ok(None);
            }
            if !max.is_empty() {
                set.by_global.insert(g, max);
            }
        }
        Ok(Some((set, None)))
    }
}
