//! Locks (Popeea, Rybalchenko and Wilhelm, §III "lock variables" and §V-A):
//! globals declared `"lock": true`, taken by an *acquire* and given back by
//! a *release*, and the locks a thread holds at each of its locations.
//!
//! * An acquire is a transition whose guard has the conjunct `m == 0` (or
//!   `!m`, `m == false`) and whose `do` sets `m` to a nonzero constant or
//!   to `tid` (the paper's `acquire(m)`: wait until free, then take it).
//! * A release sets `m := 0` (or `false`) at a location where the thread
//!   holds `m`.
//! * Nothing else reads or writes a lock (properties may read it).
//!
//! This discipline is what makes two threads never hold one lock at once,
//! which the mover classification (`engine/lipton/movers.rs`) relies on;
//! the loader checks it, so a misuse is a load error naming the transition.
//!
//! The locks held at a location, `lh(ℓ)`, are computed for the thread
//! alone, as the paper's HC1 with predicates over the pc and `m = 0`,
//! `m = 1` only: a must-analysis over the control graph (data guards are
//! ignored; an acquire sets the lock, a release clears it), the
//! intersection over every path from the start location.

use super::ops::{BinOp, UnOp};
use super::{CExpr, Program, Target, Template, Transition};

/// What one transition does to the locks, as bitsets over the locks'
/// indices (`Locks::slots`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LockOps {
    pub(crate) acquires: u64,
    pub(crate) releases: u64,
}

/// The locks of a program and what each template does with them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Locks {
    /// The global slot of each lock, and its name.
    pub(crate) slots: Vec<u32>,
    pub(crate) names: Vec<String>,
    /// `ops[template][transition]`.
    pub(crate) ops: Vec<Vec<LockOps>>,
    /// `held[template][location]`: the locks surely held there (the thread
    /// alone); `None` where the location is unreachable from the start.
    pub(crate) held: Vec<Vec<Option<u64>>>,
}

impl Locks {
    /// The lock index of a global slot, if it is a lock.
    pub(crate) fn index_of(&self, slot: u32) -> Option<usize> {
        self.slots.iter().position(|&s| s == slot)
    }

    /// The names of the locks in a bitset, in declaration order.
    pub(crate) fn names_of(&self, set: u64) -> Vec<&str> {
        (0..self.slots.len())
            .filter(|&k| set & (1 << k) != 0)
            .map(|k| self.names[k].as_str())
            .collect()
    }
}

/// A transition that uses a lock outside the discipline.
#[derive(Debug)]
pub(crate) struct Misuse {
    pub(crate) template: usize,
    pub(crate) transition: usize,
    pub(crate) message: String,
}

/// Locks past this many are refused (the held sets are `u64` bitsets).
pub(crate) const MAX_LOCKS: usize = 64;

/// Recognises every acquire and release, checks the discipline and
/// computes the locks held per location.
pub(crate) fn analyse(prog: &Program) -> Result<Locks, Misuse> {
    let mut locks = Locks::default();
    for v in prog.globals.vars.iter().filter(|v| v.lock) {
        locks.slots.push(v.slot);
        locks.names.push(v.name.clone());
    }
    if locks.slots.len() > MAX_LOCKS {
        return Err(Misuse {
            template: 0,
            transition: 0,
            message: format!(
                "the model declares {} locks; weft supports at most {MAX_LOCKS}",
                locks.slots.len()
            ),
        });
    }
    for (ti, tpl) in prog.templates.iter().enumerate() {
        let mut row = Vec::with_capacity(tpl.transitions.len());
        for (j, tr) in tpl.transitions.iter().enumerate() {
            let ops = transition_ops(&locks, tr).map_err(|message| Misuse {
                template: ti,
                transition: j,
                message,
            })?;
            row.push(ops);
        }
        locks.ops.push(row);
    }
    for (ti, tpl) in prog.templates.iter().enumerate() {
        let held = held_sets(tpl, &locks.ops[ti]);
        for (j, tr) in tpl.transitions.iter().enumerate() {
            let rel = locks.ops[ti][j].releases;
            for &f in &tr.from {
                let Some(h) = held[f as usize] else { continue };
                if rel & !h != 0 {
                    return Err(Misuse {
                        template: ti,
                        transition: j,
                        message: format!(
                            "releases the lock `{}` at `{}`, where the thread may not hold it (a thread releases only a lock it took)",
                            locks.names_of(rel & !h).join("`, `"),
                            tpl.locations[f as usize]
                        ),
                    });
                }
            }
        }
        locks.held.push(held);
    }
    Ok(locks)
}

/// The acquires and releases of one transition, or why it breaks the
/// discipline.
fn transition_ops(locks: &Locks, tr: &Transition) -> Result<LockOps, String> {
    let mut ops = LockOps::default();
    if locks.slots.is_empty() {
        return Ok(ops);
    }
    let name = |k: usize| &locks.names[k];
    // The guard: conjuncts `m == 0` are the acquire's test; any other read
    // of a lock is a misuse.
    let mut tested = 0u64;
    if let Some(g) = &tr.guard {
        let mut conjuncts = Vec::new();
        split_and(g, &mut conjuncts);
        for c in conjuncts {
            match free_test(c).and_then(|s| locks.index_of(s)) {
                Some(k) => tested |= 1 << k,
                None => reads_lock(locks, c).map_or(Ok(()), |k| {
                    Err(format!(
                        "reads the lock `{}` in its guard other than as `{} == 0`: a lock is only tested by an acquire",
                        name(k),
                        name(k)
                    ))
                })?,
            }
        }
    }
    for a in &tr.actions {
        let rhs_read = a.rhs.as_ref().and_then(|e| reads_lock(locks, e));
        if let Some(k) = rhs_read {
            return Err(format!(
                "reads the lock `{}` in its `do`: a lock is only tested by an acquire",
                name(k)
            ));
        }
        // Locks are scalars: a cell of an array is never one.
        let Target::Global(s) = a.target else {
            continue;
        };
        let Some(k) = locks.index_of(s) else { continue };
        match &a.rhs {
            Some(CExpr::Const(0)) => ops.releases |= 1 << k,
            Some(CExpr::Const(_)) | Some(CExpr::Tid) if tested & (1 << k) != 0 => {
                ops.acquires |= 1 << k
            }
            Some(CExpr::Const(_)) | Some(CExpr::Tid) => {
                return Err(format!(
                    "takes the lock `{}` without testing it: an acquire has `\"when\": \"{} == 0\"`",
                    name(k),
                    name(k)
                ));
            }
            _ => {
                return Err(format!(
                    "writes the lock `{}` with something else than a constant or `tid` (take it with `{} := 1`, give it back with `{} := 0`)",
                    name(k),
                    name(k),
                    name(k)
                ));
            }
        }
    }
    if tested & !ops.acquires != 0 {
        let k = (tested & !ops.acquires).trailing_zeros() as usize;
        return Err(format!(
            "tests the lock `{}` without taking it: an acquire tests `{} == 0` and sets `{} := 1`",
            name(k),
            name(k),
            name(k)
        ));
    }
    if let Some(k) = tr.assert.as_ref().and_then(|e| reads_lock(locks, e)) {
        return Err(format!(
            "reads the lock `{}` in its `assert`: a property may read a lock, a transition only tests it",
            name(k)
        ));
    }
    if tr.sync.is_some() && ops != LockOps::default() {
        return Err(
            "takes or releases a lock in a rendezvous: a lock is taken by a transition of its own"
                .into(),
        );
    }
    Ok(ops)
}

/// The conjuncts of a guard.
pub(crate) fn split_and<'e>(e: &'e CExpr, out: &mut Vec<&'e CExpr>) {
    match e {
        CExpr::Bin(BinOp::And, a, b) => {
            split_and(a, out);
            split_and(b, out);
        }
        _ => out.push(e),
    }
}

/// The global slot `m` of a test `m == 0`, `0 == m` or `!m`.
fn free_test(e: &CExpr) -> Option<u32> {
    match e {
        CExpr::Bin(BinOp::Eq, a, b) => match (&**a, &**b) {
            (CExpr::Global(s), CExpr::Const(0)) | (CExpr::Const(0), CExpr::Global(s)) => Some(*s),
            _ => None,
        },
        CExpr::Un(UnOp::Not, a) => match &**a {
            CExpr::Global(s) => Some(*s),
            _ => None,
        },
        _ => None,
    }
}

/// The first lock an expression reads.
fn reads_lock(locks: &Locks, e: &CExpr) -> Option<usize> {
    let mut found = None;
    e.visit(&mut |x| {
        if found.is_none() {
            match x {
                CExpr::Global(s) => found = locks.index_of(*s),
                CExpr::GlobalCell(base, len, ..) => {
                    found = locks
                        .slots
                        .iter()
                        .position(|&s| (*base..*base + *len).contains(&s))
                }
                _ => {}
            }
        }
    });
    found
}

/// The locks surely held at each location of a template, the thread alone:
/// a forward must-analysis (intersection at joins) from the start location
/// holding nothing.
fn held_sets(tpl: &Template, ops: &[LockOps]) -> Vec<Option<u64>> {
    let mut held: Vec<Option<u64>> = vec![None; tpl.locations.len()];
    held[tpl.start as usize] = Some(0);
    let mut work = vec![tpl.start];
    while let Some(loc) = work.pop() {
        let Some(h) = held[loc as usize] else {
            continue;
        };
        for &ti in &tpl.outgoing[loc as usize] {
            let op = ops[ti as usize];
            if op.acquires & h != 0 {
                continue; // re-taking a held lock blocks for ever
            }
            let after = (h | op.acquires) & !op.releases;
            let to = tpl.transitions[ti as usize].to as usize;
            let next = match held[to] {
                None => after,
                Some(old) => old & after,
            };
            if held[to] != Some(next) {
                held[to] = Some(next);
                work.push(to as u16);
            }
        }
    }
    held
}
