//! Range inference: for every variable, an interval that contains every
//! value it can hold in any reachable state, and in any state of the
//! abstract modes' over-approximations.
//!
//! Models translated from DVE declare `byte` variables (0..255) that hold a
//! handful of values; `cartesian-exc` enumerates every local store of a
//! template and, for exception sets, every global store, so declared ranges
//! make it slow or impossible there. The analysis keeps one interval per
//! global variable, and per local variable *and location* of its template
//! (every array cell sharing its array's interval), plus which locations can
//! be reached at all: each transition's assignments are evaluated over the
//! intervals of its source locations, with the guard's comparisons of a
//! scalar against a constant or another scalar narrowing them first, and the
//! thread's locals after the step are joined into its target location, until
//! nothing grows. A variable that keeps growing is widened to its declared
//! bound, and a few descending rounds take back what widening gave away.
//!
//! Why the result holds for the abstract modes too: their states are built
//! from initial values and from the same assignments evaluated at states
//! whose every variable lies in its interval, and such values are inside the
//! intervals by construction. Anything the analysis does not model (an
//! expression form it cannot bound, `x := any`) falls back to the declared
//! range. A rendezvous (`sync.rs`) is a send, stepped as a transition of its
//! own, and a receive that assigns any value some send on its channel can
//! offer. The operators' interval arithmetic is in `arith.rs`.

use super::cexpr::CExpr;
use super::ops::{BinOp, UnOp};
use super::{Action, Layout, Program, SyncOp, Target, Transition};
use arith::{binop, truth};
use sync::Received;

mod arith;
mod fails;
mod sync;

/// A closed interval of values.
pub(crate) type Interval = (i64, i64);

/// Inferred intervals, per slot: globals, and per template and location its
/// local store's slots (slot 0, the pc, is the location itself); `None` for
/// a location no run reaches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ranges {
    pub(crate) globals: Vec<Interval>,
    pub(crate) locals: Vec<Vec<Option<Vec<Interval>>>>,
}

/// Exact rounds before a still-growing bound is widened to the declared one.
const EXACT_ROUNDS: usize = 32;
/// Descending rounds after the ascending ones reach a fixpoint.
const NARROWING_ROUNDS: usize = 8;

/// Per-variable intervals (indexed like `Layout::vars`): the globals', and
/// per template and location the locals' (`None`: not reached).
#[derive(Clone, PartialEq, Eq)]
struct Env {
    globals: Vec<Interval>,
    locals: Vec<Vec<Option<Vec<Interval>>>>,
}

fn join_vars(a: &[Interval], b: &[Interval]) -> Vec<Interval> {
    a.iter().zip(b).map(|(x, y)| join(*x, *y)).collect()
}

fn join_at(a: &Option<Vec<Interval>>, b: &Option<Vec<Interval>>) -> Option<Vec<Interval>> {
    match (a, b) {
        (Some(x), Some(y)) => Some(join_vars(x, y)),
        (Some(x), None) | (None, Some(x)) => Some(x.clone()),
        (None, None) => None,
    }
}

impl Ranges {
    /// Does the state (globals, per-thread local stores) lie inside?
    pub(crate) fn contain(&self, g: &[super::Val], ls: &[Vec<super::Val>], prog: &Program) -> bool {
        inside(g, &self.globals)
            && ls.iter().enumerate().all(|(t, l)| {
                let at = self.locals[prog.threads[t].template as usize].get(l[0] as usize);
                matches!(at, Some(Some(r)) if inside(l, r))
            })
    }

    /// Per reached location of a template, the intervals of its local
    /// store's slots (the pc fixed to the location).
    pub(crate) fn local_boxes(&self, template: usize) -> Vec<&[Interval]> {
        self.locals[template]
            .iter()
            .flatten()
            .map(Vec::as_slice)
            .collect()
    }

    /// The inferred ranges of the model.
    pub(crate) fn infer(prog: &Program) -> Ranges {
        Env::infer(prog).to_slots(prog)
    }

    /// Per template and transition: may it fail at run time from a
    /// reachable state (`fails.rs`)? `false` is a proof that it does not.
    pub(crate) fn fallible(prog: &Program) -> Vec<Vec<bool>> {
        Env::infer(prog).fallible(prog, &Env::declared(prog))
    }
}

impl Env {
    /// The fixpoint: intervals closed under every step.
    fn infer(prog: &Program) -> Env {
        let declared = Env::declared(prog);
        let mut env = Env::initial(prog);
        let mut round = 0;
        loop {
            let next = env.join(&env.step(prog, &declared));
            if next == env {
                break;
            }
            env = if round < EXACT_ROUNDS {
                next
            } else {
                env.widen(&next, &declared)
            };
            round += 1;
        }
        // Here `env` is closed: the initial values and every step from
        // states inside it stay inside. Descending: the initial values and
        // the values assigned from the current intervals, kept only while
        // the result is still closed (a round of a monotone step would be;
        // the check keeps that true of this code as it changes).
        let initial = Env::initial(prog);
        let post = |e: &Env| initial.join(&e.step(prog, &declared));
        for _ in 0..NARROWING_ROUNDS {
            let next = post(&env);
            if next == env || !post(&next).within(&next) {
                break;
            }
            env = next;
        }
        env
    }
}

/// The empty interval: the unit of `join`.
const EMPTY: Interval = (i64::MAX, i64::MIN);

fn join(a: Interval, b: Interval) -> Interval {
    (a.0.min(b.0), a.1.max(b.1))
}

fn inside(v: &[super::Val], r: &[Interval]) -> bool {
    v.iter()
        .zip(r)
        .all(|(&x, &(lo, hi))| lo <= x as i64 && x as i64 <= hi)
}

fn var_intervals(layout: &Layout, f: impl Fn(usize) -> Interval) -> Vec<Interval> {
    (0..layout.vars.len()).map(f).collect()
}

/// The index of the variable occupying `slot` in `layout`.
fn var_of(layout: &Layout, slot: u32) -> Option<usize> {
    layout
        .vars
        .iter()
        .position(|v| (v.slot..v.slot + v.len.unwrap_or(1)).contains(&slot))
}

impl Env {
    /// Every location reached, every variable over its declared range.
    fn declared(prog: &Program) -> Env {
        let d = |l: &Layout| var_intervals(l, |i| (l.vars[i].domain.min, l.vars[i].domain.max));
        Env {
            globals: d(&prog.globals),
            locals: prog
                .templates
                .iter()
                .map(|t| vec![Some(d(&t.locals)); t.locations.len()])
                .collect(),
        }
    }

    /// The initial values' intervals, the locals' at their start location.
    fn initial(prog: &Program) -> Env {
        let store = |layout: &Layout, s: &[super::Val]| {
            var_intervals(layout, |i| {
                let v = &layout.vars[i];
                (0..v.len.unwrap_or(1))
                    .map(|k| s[(v.slot + k) as usize] as i64)
                    .fold(EMPTY, |o, x| join(o, (x, x)))
            })
        };
        let globals = prog
            .init_globals
            .iter()
            .map(|s| store(&prog.globals, s))
            .fold(vec![EMPTY; prog.globals.vars.len()], |a, b| {
                join_vars(&a, &b)
            });
        let locals = prog
            .templates
            .iter()
            .map(|t| {
                let mut at: Vec<Option<Vec<Interval>>> = vec![None; t.locations.len()];
                for s in &t.init {
                    let loc = s[0] as usize;
                    at[loc] = join_at(&at[loc], &Some(store(&t.locals, s)));
                }
                at
            })
            .collect();
        Env { globals, locals }
    }

    /// Is every interval of `self` inside the same one of `other` (and
    /// every location `self` reaches reached by `other`)?
    fn within(&self, other: &Env) -> bool {
        let vars = |a: &[Interval], b: &[Interval]| {
            a.iter()
                .zip(b)
                .all(|(x, y)| x.0 > x.1 || (y.0 <= x.0 && x.1 <= y.1))
        };
        vars(&self.globals, &other.globals)
            && self.locals.iter().zip(&other.locals).all(|(a, b)| {
                a.iter().zip(b).all(|(x, y)| match (x, y) {
                    (None, _) => true,
                    (Some(_), None) => false,
                    (Some(x), Some(y)) => vars(x, y),
                })
            })
    }

    fn join(&self, other: &Env) -> Env {
        Env {
            globals: join_vars(&self.globals, &other.globals),
            locals: self
                .locals
                .iter()
                .zip(&other.locals)
                .map(|(a, b)| a.iter().zip(b).map(|(x, y)| join_at(x, y)).collect())
                .collect(),
        }
    }

    /// A bound that grew again jumps to the declared one.
    fn widen(&self, next: &Env, declared: &Env) -> Env {
        let w = |old: &[Interval], new: &[Interval], top: &[Interval]| -> Vec<Interval> {
            old.iter()
                .zip(new)
                .zip(top)
                .map(|((o, n), t)| {
                    (
                        if n.0 < o.0 { t.0 } else { n.0 },
                        if n.1 > o.1 { t.1 } else { n.1 },
                    )
                })
                .collect()
        };
        let locals = (0..self.locals.len())
            .map(|t| {
                (0..self.locals[t].len())
                    .map(|loc| {
                        match (
                            &self.locals[t][loc],
                            &next.locals[t][loc],
                            &declared.locals[t][loc],
                        ) {
                            (Some(o), Some(n), Some(top)) => Some(w(o, n, top)),
                            (_, n, _) => n.clone(),
                        }
                    })
                    .collect()
            })
            .collect();
        Env {
            globals: w(&self.globals, &next.globals, &declared.globals),
            locals,
        }
    }

    /// The values every transition may assign, from states inside `self`;
    /// a variable no transition assigns comes back empty (`EMPTY`).
    fn step(&self, prog: &Program, declared: &Env) -> Env {
        let mut out = Env {
            globals: vec![EMPTY; self.globals.len()],
            locals: self.locals.iter().map(|l| vec![None; l.len()]).collect(),
        };
        let sent = self.sent(prog);
        // The cooperative scheduler writes `waiting` (`cooperative.rs`),
        // no action does: any value of its domain (found in review: kept
        // at its initial 0, a guard reading it was misjudged).
        if let Some(v) = prog
            .scheduler
            .as_ref()
            .and_then(|s| var_of(&prog.globals, s.waiting))
        {
            out.globals[v] = join(out.globals[v], declared.globals[v]);
        }
        for (ti, tpl) in prog.templates.iter().enumerate() {
            let tids = tids(prog, ti);
            for tr in &tpl.transitions {
                let received = match &tr.sync {
                    Some(SyncOp::Recv { channel, .. }) => Some(&sent[*channel as usize]),
                    _ => None,
                };
                self.assign(prog, ti, tr, tids, declared, received, &mut out);
            }
        }
        out
    }

    /// Joins into `out` the values `tr` assigns from states in `self`; for
    /// a receive, what its channel's sends can offer.
    #[allow(clippy::too_many_arguments)]
    fn assign(
        &self,
        prog: &Program,
        ti: usize,
        tr: &Transition,
        tids: Interval,
        declared: &Env,
        received: Option<&Received>,
        out: &mut Env,
    ) {
        let Some(mut here) = self.scope(prog, ti, tr, tids) else {
            return;
        };
        if let Some(g) = &tr.guard {
            if here.eval(g) == Some((0, 0)) {
                return; // never enabled from states inside the ranges
            }
            if !here.refine(g) {
                return; // a conjunct has no solution inside the ranges
            }
        }
        if let Some(rec) = received {
            let Some(value) = rec.value else {
                return; // no send on the channel can fire
            };
            // The sender's effects run before the receiver's: the globals
            // are any of `self`'s (closed under the sender's step), not the
            // ones the receiver's guard narrowed.
            here.globals.clone_from(&self.globals);
            if let Some(SyncOp::Recv {
                target: Some(a), ..
            }) = &tr.sync
                && !here.write(a, Some(value), rec.valueless, declared, out)
            {
                return;
            }
        }
        for a in &tr.actions {
            let value = a.rhs.as_ref().and_then(|e| here.eval(e));
            if !here.write(a, value, false, declared, out) {
                return;
            }
        }
        // The thread's locals after the step: assigned, or as the guard
        // narrowed them.
        let to = tr.to as usize;
        out.locals[ti][to] = join_at(&out.locals[ti][to], &Some(here.locals));
    }

    /// The intervals `tr` (of template `ti`) sees: the globals, and its
    /// thread's locals joined over its reached source locations; `None`
    /// when none is reached (it never fires).
    fn scope<'a>(
        &self,
        prog: &'a Program,
        ti: usize,
        tr: &'a Transition,
        tids: Interval,
    ) -> Option<Scope<'a>> {
        let locals = tr.from.iter().fold(None, |acc, &loc| {
            join_at(&acc, &self.locals[ti][loc as usize])
        })?;
        Some(Scope {
            prog,
            template: ti,
            from: &tr.from,
            tids,
            globals: self.globals.clone(),
            locals,
        })
    }

    fn to_slots(&self, prog: &Program) -> Ranges {
        let slots = |layout: &Layout, vars: &[Interval]| {
            let mut out = vec![(0, 0); layout.slots as usize];
            for (v, r) in layout.vars.iter().zip(vars) {
                for k in 0..v.len.unwrap_or(1) {
                    out[(v.slot + k) as usize] = *r;
                }
            }
            out
        };
        Ranges {
            globals: slots(&prog.globals, &self.globals),
            locals: prog
                .templates
                .iter()
                .zip(&self.locals)
                .map(|(t, at)| {
                    at.iter()
                        .enumerate()
                        .map(|(loc, vars)| {
                            let mut s = slots(&t.locals, vars.as_ref()?);
                            if let Some(pc) = s.first_mut() {
                                *pc = (loc as i64, loc as i64);
                            }
                            Some(s)
                        })
                        .collect()
                })
                .collect(),
        }
    }
}

/// The tids of a template's instances.
fn tids(prog: &Program, template: usize) -> Interval {
    let mut out: Option<Interval> = None;
    for t in prog
        .threads
        .iter()
        .filter(|t| t.template as usize == template)
    {
        out = Some(out.map_or((t.tid, t.tid), |o| join(o, (t.tid, t.tid))));
    }
    out.unwrap_or((0, 0))
}

/// Intervals as seen by one transition: the pc is one of `from`.
#[derive(Clone)]
struct Scope<'a> {
    prog: &'a Program,
    template: usize,
    from: &'a [u16],
    tids: Interval,
    globals: Vec<Interval>,
    locals: Vec<Interval>,
}

impl Scope<'_> {
    fn global(&self, slot: u32) -> Option<Interval> {
        var_of(&self.prog.globals, slot).map(|v| self.globals[v])
    }

    fn local(&self, slot: u32) -> Option<Interval> {
        if slot == 0 {
            let pcs = self.from.iter().map(|&p| p as i64);
            return Some((pcs.clone().min()?, pcs.max()?));
        }
        var_of(&self.prog.templates[self.template].locals, slot).map(|v| self.locals[v])
    }

    /// An interval containing every value of `e` at states inside the
    /// scope; `None` when the analysis cannot bound it.
    fn eval(&self, e: &CExpr) -> Option<Interval> {
        Some(match e {
            CExpr::Const(c) => (*c, *c),
            CExpr::Global(s) => self.global(*s)?,
            CExpr::Local(s) => self.local(*s)?,
            CExpr::GlobalCell(s, _, _, _) => self.global(*s)?,
            CExpr::LocalCell(s, _, _, _) => self.local(*s)?,
            CExpr::Tid => self.tids,
            CExpr::At(masks) => {
                let mask = masks.get(self.template)?;
                let at = |p: &u16| mask.get(*p as usize).copied().unwrap_or(false);
                match (self.from.iter().all(at), self.from.iter().any(at)) {
                    (true, _) => (1, 1),
                    (false, false) => (0, 0),
                    _ => (0, 1),
                }
            }
            CExpr::Un(UnOp::Holds, _) => (0, 1),
            CExpr::Un(op, x) => {
                let (a, b) = self.eval(x)?;
                match op {
                    UnOp::Holds => (0, 1),
                    UnOp::Not => truth(a == 0 && b == 0, b < 0 || a > 0),
                    UnOp::Neg => (b.checked_neg()?, a.checked_neg()?),
                    UnOp::BitNot => (
                        b.checked_neg()?.checked_sub(1)?,
                        a.checked_neg()?.checked_sub(1)?,
                    ),
                    UnOp::ToInt => (a, b),
                }
            }
            CExpr::Bin(op, x, y) => binop(*op, self.eval(x)?, self.eval(y)?)?,
            // Properties' forms: not in transitions.
            CExpr::InstLocal(..)
            | CExpr::InstLocalCell(..)
            | CExpr::InstAt(..)
            | CExpr::Count(..)
            | CExpr::Term(_) => return None,
        })
    }

    /// Joins into `out` the effect of assigning `a` a value in `value`
    /// (`None`: unbounded; `weak`: or keeping the old value); `false` when
    /// every value is out of the target's declared range (a run-time error,
    /// no successor).
    fn write(
        &mut self,
        a: &Action,
        value: Option<Interval>,
        weak: bool,
        declared: &Env,
        out: &mut Env,
    ) -> bool {
        let ti = self.template;
        let (is_global, slot, cell) = match &a.target {
            Target::Global(s) => (true, *s, false),
            Target::Local(s) => (false, *s, false),
            Target::GlobalCell(s, _, _) => (true, *s, true),
            Target::LocalCell(s, _, _) => (false, *s, true),
        };
        let layout = if is_global {
            &self.prog.globals
        } else {
            &self.prog.templates[ti].locals
        };
        let Some(var) = var_of(layout, slot) else {
            return true;
        };
        let top = if is_global {
            declared.globals[var]
        } else {
            // Every location of `declared` holds the declared ranges.
            declared.locals[ti]
                .first()
                .and_then(|l| l.as_ref())
                .map_or((i64::MIN, i64::MAX), |l| l[var])
        };
        // Values outside the declared range are run-time errors, not
        // successors.
        let value = match value {
            Some((lo, hi)) => (lo.max(top.0), hi.min(top.1)),
            None => top,
        };
        if value.0 > value.1 {
            return weak; // every value is out of range: no successor
        }
        let scope = if is_global {
            &mut self.globals[var]
        } else {
            &mut self.locals[var]
        };
        // A cell write keeps the array's other cells: a weak update.
        *scope = if cell || weak {
            join(*scope, value)
        } else {
            value
        };
        if is_global {
            out.globals[var] = join(out.globals[var], value);
        }
        true
    }

    /// Narrows the scalars a guard compares, where every state satisfying
    /// the guard has them in the narrower interval: through `&&`, and for
    /// `x op c`, `c op x` and `x op y` with x, y scalar variables. `false`
    /// when a conjunct has no solution inside the scope: the transition
    /// never fires from it. (Deciding that, rather than keeping the old
    /// intervals, keeps the step monotone: smaller ranges never give larger
    /// results.)
    fn refine(&mut self, guard: &CExpr) -> bool {
        match guard {
            CExpr::Bin(BinOp::And, a, b) => self.refine(a) && self.refine(b),
            CExpr::Bin(op, x, y) => {
                let (Some(xi), Some(yi)) = (self.eval(x), self.eval(y)) else {
                    return true;
                };
                let (nx, ny) = match op {
                    BinOp::Lt => (
                        (xi.0, xi.1.min(yi.1.saturating_sub(1))),
                        (yi.0.max(xi.0.saturating_add(1)), yi.1),
                    ),
                    BinOp::Le => ((xi.0, xi.1.min(yi.1)), (yi.0.max(xi.0), yi.1)),
                    BinOp::Gt => (
                        (xi.0.max(yi.0.saturating_add(1)), xi.1),
                        (yi.0, yi.1.min(xi.1.saturating_sub(1))),
                    ),
                    BinOp::Ge => ((xi.0.max(yi.0), xi.1), (yi.0, yi.1.min(xi.1))),
                    BinOp::Eq => {
                        let m = (xi.0.max(yi.0), xi.1.min(yi.1));
                        (m, m)
                    }
                    _ => return true,
                };
                // (`&` not `&&`: both sides narrow.)
                nx.0 <= nx.1 && ny.0 <= ny.1 && self.narrow(x, nx) & self.narrow(y, ny)
            }
            _ => true,
        }
    }

    /// Narrows a scalar variable (not an array cell: the other cells do not
    /// satisfy the guard) to `to`; `false` if nothing is left.
    fn narrow(&mut self, e: &CExpr, to: Interval) -> bool {
        let var = match e {
            CExpr::Global(s) => var_of(&self.prog.globals, *s).map(|v| &mut self.globals[v]),
            CExpr::Local(s) if *s != 0 => {
                var_of(&self.prog.templates[self.template].locals, *s).map(|v| &mut self.locals[v])
            }
            _ => None,
        };
        match var {
            Some(v) => {
                *v = (v.0.max(to.0), v.1.min(to.1));
                v.0 <= v.1
            }
            None => true,
        }
    }
}

#[cfg(test)]
mod tests;
