//! What each transition reads and writes of the global store, and what a
//! thread may still touch from each of its locations: the static dependence
//! relation behind partial-order reduction (`engine/por/`). Two
//! transitions of different threads are dependent when one writes a global
//! slot the other reads or writes, or (for the thread closure) both take
//! part in rendezvous on one channel, where the transition closure pairs
//! the two sides instead (`engine/por/stubborn/`); locals belong to their
//! thread and make no dependence.
//!
//! An array cell indexed by a constant is that cell alone (BEEM's generated
//! processes write `fork[1]`, `pos[0]`); indexed by any other expression it
//! counts as the whole array (the index is not known statically). A transition whose expressions read
//! another thread's store (`count`, instance references: properties only,
//! today) is marked `whole_state` and depends on every thread.

use super::ops::{BinOp, UnOp};
use super::{Action, CExpr, Program, SyncOp, Target, Template};

/// A set of global slots (or of channels): a plain bitset.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Slots(Vec<u64>);

impl Slots {
    pub(crate) fn insert(&mut self, i: u32) {
        let w = i as usize / 64;
        if w >= self.0.len() {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1 << (i % 64);
    }
    pub(crate) fn insert_range(&mut self, first: u32, len: u32) {
        for i in first..first + len {
            self.insert(i);
        }
    }
    pub(crate) fn contains(&self, i: u32) -> bool {
        self.0
            .get(i as usize / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    pub(crate) fn union_with(&mut self, other: &Slots) {
        if other.0.len() > self.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }
    /// The slots of `self` not in `other`.
    pub(crate) fn without(&self, other: &Slots) -> Slots {
        Slots(
            self.0
                .iter()
                .enumerate()
                .map(|(i, w)| w & !other.0.get(i).copied().unwrap_or(0))
                .collect(),
        )
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }
    pub(crate) fn intersects(&self, other: &Slots) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }
    /// The members, in increasing order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            let mut bits = bits;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros();
                    bits &= bits - 1;
                    w as u32 * 64 + b
                })
            })
        })
    }
    /// The members of both, in increasing order.
    pub(crate) fn iter_and<'a>(&'a self, other: &'a Slots) -> impl Iterator<Item = u32> + 'a {
        self.0
            .iter()
            .zip(&other.0)
            .enumerate()
            .flat_map(|(w, (&a, &b))| {
                let mut bits = a & b;
                std::iter::from_fn(move || {
                    (bits != 0).then(|| {
                        let i = bits.trailing_zeros();
                        bits &= bits - 1;
                        w as u32 * 64 + i
                    })
                })
            })
    }
    /// Empties the set, with room for members below `n`, reusing its
    /// memory (the reduction clears its sets at every state).
    pub(crate) fn clear_with_room(&mut self, n: usize) {
        self.0.clear();
        self.0.resize(n.div_ceil(64), 0);
    }
}

/// What one transition touches.
#[derive(Clone, Debug, Default)]
pub(crate) struct Access {
    /// Global slots its guard reads: what can enable or disable it.
    pub(crate) guard_reads: Slots,
    /// Global slots it reads anywhere (guard, right-hand sides, indices,
    /// the value sent).
    pub(crate) reads: Slots,
    /// Global slots it may write.
    pub(crate) writes: Slots,
    /// Local slots it may write (slot 0, the pc, when it changes location).
    pub(crate) local_writes: Slots,
    /// The channel of its rendezvous, if it is one side of one.
    pub(crate) channel: Option<u32>,
    /// It reads other threads' stores: dependent on everything.
    pub(crate) whole_state: bool,
    /// Globals its enabledness reads besides its guard: in a cooperative
    /// model, its thread's `waiting` cell.
    pub(crate) implicit_guard: Slots,
}

/// Global slots (and other threads' stores) an expression reads.
pub(crate) fn expr_reads(e: &CExpr, into: &mut Slots, whole_state: &mut bool) {
    e.visit(&mut |x| match x {
        CExpr::Global(s) => into.insert(*s),
        CExpr::GlobalCell(base, len, _, i) => insert_cell(into, *base, *len, i),
        CExpr::InstLocal(..) | CExpr::InstLocalCell(..) | CExpr::InstAt(..) | CExpr::Count(..) => {
            *whole_state = true
        }
        _ => {}
    });
}

/// The slots of cell `i` of the array at `base` of length `len`: the one
/// cell when the index is a constant in range, else the whole array (an
/// out-of-range constant fails at run time and writes nothing, but reading
/// the whole array is the safe side).
fn insert_cell(into: &mut Slots, base: u32, len: u32, i: &CExpr) {
    match i {
        CExpr::Const(k) if (0..len as i64).contains(k) => into.insert(base + *k as u32),
        _ => into.insert_range(base, len),
    }
}

fn action_access(a: &Action, acc: &mut Access) {
    let mut whole = acc.whole_state;
    match &a.target {
        Target::Global(s) => acc.writes.insert(*s),
        Target::Local(s) => acc.local_writes.insert(*s),
        Target::GlobalCell(base, len, i) => {
            insert_cell(&mut acc.writes, *base, *len, i);
            expr_reads(i, &mut acc.reads, &mut whole);
        }
        Target::LocalCell(base, len, i) => {
            insert_cell(&mut acc.local_writes, *base, *len, i);
            expr_reads(i, &mut acc.reads, &mut whole);
        }
    }
    if let Some(rhs) = &a.rhs {
        expr_reads(rhs, &mut acc.reads, &mut whole);
    }
    acc.whole_state = whole;
}

/// The access of every transition of a template, by transition index.
fn template_access(tpl: &Template) -> Vec<Access> {
    tpl.transitions
        .iter()
        .map(|tr| {
            let mut acc = Access::default();
            let mut whole = false;
            if let Some(g) = &tr.guard {
                expr_reads(g, &mut acc.guard_reads, &mut whole);
            }
            acc.reads.union_with(&acc.guard_reads);
            acc.whole_state = whole;
            for a in &tr.actions {
                action_access(a, &mut acc);
            }
            match &tr.sync {
                Some(SyncOp::Send { channel, value }) => {
                    acc.channel = Some(*channel);
                    if let Some(v) = value {
                        let mut whole = acc.whole_state;
                        expr_reads(v, &mut acc.reads, &mut whole);
                        acc.whole_state = whole;
                    }
                }
                Some(SyncOp::Recv { channel, target }) => {
                    acc.channel = Some(*channel);
                    if let Some(t) = target {
                        action_access(t, &mut acc);
                    }
                }
                None => {}
            }
            if tr.from.iter().any(|&f| f != tr.to) {
                acc.local_writes.insert(0);
            }
            acc
        })
        .collect()
}

/// What a thread at a location may still do, over every path of its
/// control graph from there (the location's own transitions included).
#[derive(Clone, Debug, Default)]
pub(crate) struct Future {
    pub(crate) reads: Slots,
    pub(crate) writes: Slots,
    pub(crate) channels: Slots,
    pub(crate) whole_state: bool,
}

/// The static access tables of a program, per template.
#[derive(Clone, Debug)]
pub(crate) struct Accesses {
    /// `transitions[template][transition]`: in a cooperative model, of the
    /// whole macro-step the transition starts.
    pub(crate) transitions: Vec<Vec<Access>>,
    /// `future[template][location]`.
    pub(crate) future: Vec<Vec<Future>>,
    /// `blocks[template][transition]`: the transitions a step starting with
    /// it may fire (itself alone, but in a cooperative model).
    pub(crate) blocks: Vec<Vec<Vec<u32>>>,
    /// `single[template][transition]`: of the transition alone (in a
    /// cooperative model, the scheduler's accesses included).
    pub(crate) single: Vec<Vec<Access>>,
}

impl Accesses {
    pub(crate) fn new(prog: &Program) -> Accesses {
        let mut transitions: Vec<Vec<Access>> =
            prog.templates.iter().map(template_access).collect();
        let blocks: Vec<Vec<Vec<u32>>> = prog
            .templates
            .iter()
            .map(|tpl| {
                (0..tpl.transitions.len() as u32)
                    .map(|t| match prog.scheduler {
                        Some(_) => super::cooperative::block(tpl, t),
                        None => vec![t],
                    })
                    .collect()
            })
            .collect();
        if let Some(s) = &prog.scheduler {
            super::cooperative::add_scheduler_access(prog, s, &mut transitions);
        }
        let single = transitions.clone();
        if prog.scheduler.is_some() {
            for (tpl, acc) in transitions.iter_mut().enumerate() {
                for (a, block) in acc.iter_mut().zip(&blocks[tpl]) {
                    for &t in block {
                        let b = &single[tpl][t as usize];
                        a.reads.union_with(&b.reads);
                        a.writes.union_with(&b.writes);
                        a.local_writes.union_with(&b.local_writes);
                        a.whole_state |= b.whole_state;
                    }
                }
            }
        }
        let future = prog
            .templates
            .iter()
            .zip(&transitions)
            .map(|(tpl, acc)| futures(tpl, acc))
            .collect();
        Accesses {
            transitions,
            future,
            blocks,
            single,
        }
    }
}

/// `Future` of every location: the union over the transitions reachable in
/// the template's control graph.
fn futures(tpl: &Template, acc: &[Access]) -> Vec<Future> {
    (0..tpl.locations.len())
        .map(|start| {
            let mut f = Future::default();
            for ti in reachable_transitions(tpl, start) {
                let a = &acc[ti as usize];
                f.reads.union_with(&a.reads);
                f.writes.union_with(&a.writes);
                if let Some(c) = a.channel {
                    f.channels.insert(c);
                }
                f.whole_state |= a.whole_state;
            }
            f
        })
        .collect()
}

/// The transitions reachable from location `start` in the template's
/// control graph (its own included), in increasing order.
pub(crate) fn reachable_transitions(tpl: &Template, start: usize) -> Vec<u32> {
    let mut seen = vec![false; tpl.locations.len()];
    let mut stack = vec![start];
    let mut out = Vec::new();
    seen[start] = true;
    while let Some(loc) = stack.pop() {
        for &ti in &tpl.outgoing[loc] {
            out.push(ti);
            let to = tpl.transitions[ti as usize].to as usize;
            if !seen[to] {
                seen[to] = true;
                stack.push(to);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// May `e` fail to evaluate? An index that is not a constant, a division
/// or remainder by what is not a constant other than 0, a left shift, a
/// right shift by what is not a constant in 0..63, a negation, or
/// arithmetic whose operands' bound (values are 32-bit, constants as
/// written) may overflow 64 bits.
pub(crate) fn may_fail(e: &CExpr) -> bool {
    fn bound(e: &CExpr) -> Option<u128> {
        const VALUE: u128 = 1 << 31;
        const LIMIT: u128 = 1 << 62;
        let b = match e {
            CExpr::Const(k) => k.unsigned_abs() as u128,
            CExpr::Global(_) | CExpr::Local(_) | CExpr::Tid | CExpr::InstLocal(..) => VALUE,
            CExpr::At(_) | CExpr::InstAt(..) => 1,
            CExpr::Count(_, body) => {
                bound(body)?;
                VALUE
            }
            CExpr::GlobalCell(.., i) | CExpr::LocalCell(.., i) | CExpr::InstLocalCell(.., i) => {
                match **i {
                    CExpr::Const(_) => VALUE,
                    _ => return None,
                }
            }
            CExpr::Un(UnOp::Not, a) => {
                bound(a)?;
                1
            }
            CExpr::Un(..) => return None,
            CExpr::Bin(op, a, b) => {
                let (x, y) = (bound(a)?, bound(b)?);
                match op {
                    BinOp::Add | BinOp::Sub | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                        2 * x.max(y)
                    }
                    BinOp::Mul => x.saturating_mul(y),
                    // By a constant that is not 0 (the only failure left,
                    // i64::MIN / -1, is out of the bound): `(g + 1) % 3`.
                    BinOp::Div | BinOp::Rem if matches!(**b, CExpr::Const(k) if k != 0) => x,
                    BinOp::Shr if matches!(**b, CExpr::Const(k) if (0..63).contains(&k)) => x,
                    BinOp::Div | BinOp::Rem | BinOp::Shl | BinOp::Shr => return None,
                    _ => 1,
                }
            }
            CExpr::Term(_) => return None,
        };
        (b < LIMIT).then_some(b)
    }
    bound(e).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_intersect_only_on_a_common_member() {
        let mut a = Slots::default();
        let mut b = Slots::default();
        a.insert(3);
        b.insert(130);
        assert!(!a.intersects(&b) && !b.intersects(&a));
        b.insert(3);
        assert!(a.intersects(&b) && b.intersects(&a));
        a.insert_range(60, 10);
        assert!(a.contains(69) && !a.contains(70));
        assert_eq!(
            a.iter().collect::<Vec<_>>(),
            [3, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69]
        );
        assert_eq!(a.iter_and(&b).collect::<Vec<_>>(), [3]);
    }
}
