//! Error predicates, decided two ways:
//!
//! * on a concrete state (`standard`): evaluate the compiled predicate;
//! * on a Cartesian element (`thread-modular`, `cartesian-exc`): is there a
//!   choice of one local store per thread, each from that thread's candidate
//!   set at global store g, such that the predicate holds? Decided without
//!   enumerating the product: every thread-dependent part of the predicate
//!   (a `count`, a named instance's location or local) becomes a *term*; a
//!   dynamic programme over the threads tracks the reachable vectors of term
//!   values, with counts saturated just above the largest constant they are
//!   compared with. The cost is n × (#term vectors) × (#distinct local
//!   types), polynomial in n for a fixed predicate.

mod counted;
mod witness;

use crate::program::{CExpr, Ctx, EvalError, Explorer, Program, StateView, Val};
pub(crate) use counted::CountedLayout;
use rustc_hash::FxHashMap;
pub(crate) use witness::WitnessScratch;

/// A concrete state seen through the explorer's interned stores.
pub(crate) struct Concrete<'a, 'p> {
    pub(crate) exp: &'a Explorer<'p>,
    pub(crate) locals: &'a [u32],
}

impl StateView for Concrete<'_, '_> {
    fn local(&self, thread: usize) -> &[Val] {
        self.exp.local(thread, self.locals[thread])
    }
    fn template_of(&self, thread: usize) -> usize {
        self.exp.template_id(thread)
    }
    fn tid_of(&self, thread: usize) -> i64 {
        self.exp.prog.threads[thread].tid
    }
}

/// Does the error predicate hold in the concrete state `(g, locals)`?
pub(crate) fn holds(
    error: &CExpr,
    exp: &Explorer,
    g: u32,
    locals: &[u32],
) -> Result<bool, EvalError> {
    let view = Concrete { exp, locals };
    let ctx = Ctx::global(exp.globals.get(g), Some(&view));
    Ok(error.eval(&ctx)? != 0)
}

/// An error predicate prepared for many concrete states (`standard`): its
/// counts and instance reads become terms, and a count whose body reads
/// only the thread's own local store is summed from a table of body values
/// per (template, local store), filled as stores are met. The result is
/// `holds`'s, errors included (a term that fails falls back to `holds`, so
/// short-circuits behave alike).
#[derive(Clone)]
pub(crate) struct ConcreteChecker {
    split: Decider,
    /// Per term: the member threads with their templates.
    members: Vec<Vec<(usize, usize)>>,
    /// Per term whose body reads only the local store: per template, the
    /// body's value per local store id (-1: not computed yet).
    memo: Vec<Option<Vec<Vec<i8>>>>,
    values: Vec<i64>,
    /// Prepared for counter states (`with_counters`).
    counted: Option<Box<counted::CountedTerms>>,
}

impl ConcreteChecker {
    pub(crate) fn new(prog: &Program, error: &CExpr) -> ConcreteChecker {
        let split = Decider::split(prog, error);
        let mut members = Vec::new();
        let mut memo = Vec::new();
        for term in &split.terms {
            match term {
                Term::Count { member, body, .. } => {
                    members.push(
                        (0..member.len())
                            .filter(|&t| member[t])
                            .map(|t| (t, prog.threads[t].template as usize))
                            .collect(),
                    );
                    memo.push(
                        reads_local_only(body).then(|| vec![Vec::new(); prog.templates.len()]),
                    );
                }
                Term::Inst { .. } => {
                    members.push(Vec::new());
                    memo.push(None);
                }
            }
        }
        let values = vec![0; split.terms.len()];
        ConcreteChecker {
            split,
            members,
            memo,
            values,
            counted: None,
        }
    }

    /// Does the predicate hold in `(g, locals)`? As `holds`.
    pub(crate) fn holds(
        &mut self,
        error: &CExpr,
        exp: &Explorer,
        g: u32,
        locals: &[u32],
    ) -> Result<bool, EvalError> {
        let gs = exp.globals.get(g);
        for k in 0..self.split.terms.len() {
            match self.term(k, exp, gs, locals) {
                Ok(v) => self.values[k] = v,
                Err(_) => return holds(error, exp, g, locals),
            }
        }
        let ctx = Ctx {
            terms: &self.values,
            ..Ctx::global(gs, None)
        };
        Ok(self.split.root.eval(&ctx)? != 0)
    }

    fn term(
        &mut self,
        k: usize,
        exp: &Explorer,
        gs: &[Val],
        locals: &[u32],
    ) -> Result<i64, EvalError> {
        let prog = exp.prog;
        let ctx = |t: usize| Ctx {
            g: gs,
            tid: prog.threads[t].tid,
            template: prog.threads[t].template as usize,
            l: exp.local(t, locals[t]),
            state: None,
            terms: &[],
        };
        match (&self.split.terms[k], &mut self.memo[k]) {
            (Term::Count { body, .. }, Some(memo)) => {
                let mut n = 0;
                for &(t, tpl) in &self.members[k] {
                    let l = locals[t] as usize;
                    let row = &mut memo[tpl];
                    if row.len() <= l {
                        row.resize(l + 1, -1);
                    }
                    if row[l] < 0 {
                        row[l] = (body.eval(&ctx(t))? != 0) as i8;
                    }
                    n += row[l] as i64;
                }
                Ok(n)
            }
            (Term::Count { body, .. }, None) => {
                let mut n = 0;
                for &(t, _) in &self.members[k] {
                    n += (body.eval(&ctx(t))? != 0) as i64;
                }
                Ok(n)
            }
            (Term::Inst { thread, value }, _) => value.eval(&ctx(*thread)),
        }
    }
}

/// Does the expression read nothing but the current thread's local store?
fn reads_local_only(e: &CExpr) -> bool {
    let mut ok = true;
    e.visit(&mut |x| {
        ok &= matches!(
            x,
            CExpr::Const(_)
                | CExpr::Local(_)
                | CExpr::LocalCell(..)
                | CExpr::At(_)
                | CExpr::Un(..)
                | CExpr::Bin(..)
        )
    });
    ok
}

/// A thread-dependent part of a predicate.
#[derive(Clone, Debug)]
enum Term {
    /// `count(scope: body)`, saturated at `cap`.
    Count {
        member: Vec<bool>,
        body: CExpr,
        cap: i64,
    },
    /// A value read from one named thread's local store (evaluated in that
    /// thread's context).
    Inst { thread: usize, value: CExpr },
}

/// The predicate prepared for the Cartesian decision procedure.
#[derive(Clone, Debug)]
pub(crate) struct Decider {
    root: CExpr,
    terms: Vec<Term>,
    /// No term reads `tid`: a term's value depends on the thread only
    /// through its template and local store.
    tid_free: bool,
}

/// Refusal: the predicate cannot be decided this way within bounds.
#[derive(Debug, Clone)]
pub(crate) struct Undecidable(pub String);

/// Term vectors tracked at most per global store.
const MAX_VECTORS: usize = 1 << 20;

impl Decider {
    pub(crate) fn new(prog: &Program, error: &CExpr) -> Result<Decider, Undecidable> {
        let d = Decider::split(prog, error);
        // The witness search tracks the joint values of all terms: each
        // count up to its cap, and per named instance the values its atoms
        // can take together (at most its template's local stores).
        let mut bound: f64 = 1.0;
        let mut per_instance: FxHashMap<usize, f64> = FxHashMap::default();
        let (mut counts, mut atoms) = (0, Vec::new());
        for t in &d.terms {
            match t {
                Term::Count { cap, .. } => {
                    counts += 1;
                    bound *= (*cap + 1) as f64;
                }
                Term::Inst { thread, value } => {
                    atoms.push(*thread);
                    *per_instance.entry(*thread).or_insert(1.0) *=
                        inst_values(prog, *thread, value);
                }
            }
        }
        for (t, values) in per_instance {
            bound *= values.min(local_stores(prog, t));
        }
        if bound > MAX_VECTORS as f64 {
            atoms.sort_unstable();
            atoms.dedup();
            let mut names: Vec<&str> = atoms
                .iter()
                .take(3)
                .map(|&t| prog.threads[t].name.as_str())
                .collect();
            if atoms.len() > 3 {
                names.push("…");
            }
            let what = match (counts, atoms.len()) {
                (c, 0) => format!("{c} count(...) term(s)"),
                (0, _) => format!(
                    "atoms of {} named instances ({})",
                    atoms.len(),
                    names.join(", ")
                ),
                (c, _) => format!(
                    "{c} count(...) term(s) and atoms of {} named instances ({})",
                    atoms.len(),
                    names.join(", ")
                ),
            };
            return Err(Undecidable(format!(
                "the predicate combines {what} whose values would have to be tracked jointly (up to {bound:.0} combinations per global store); split it into several properties, compare each count with a constant, or use --mode standard"
            )));
        }
        Ok(d)
    }

    /// The predicate as a root over terms, whatever their number.
    fn split(prog: &Program, error: &CExpr) -> Decider {
        let mut terms = Vec::new();
        let root = extract(prog, error, &mut terms);
        let mut caps: Vec<Option<i64>> = vec![Some(0); terms.len()];
        cap_uses(&root, &mut caps);
        for (t, cap) in terms.iter_mut().zip(caps) {
            if let Term::Count { member, cap: c, .. } = t {
                let size = member.iter().filter(|m| **m).count() as i64;
                *c = match cap {
                    Some(k) => (k + 1).min(size).max(0),
                    None => size,
                };
            }
        }
        let mut tid_free = true;
        for t in &terms {
            let (Term::Count { body: e, .. } | Term::Inst { value: e, .. }) = t;
            e.visit(&mut |x| tid_free &= !matches!(x, CExpr::Tid));
        }
        Decider {
            root,
            terms,
            tid_free,
        }
    }

    /// The same decision without reusing a thread's contribution types
    /// for the next (tests compare the two).
    #[cfg(test)]
    pub(crate) fn without_reuse(mut self) -> Decider {
        self.tid_free = false;
        self
    }
}

/// How many values a named-instance atom of thread t can take.
fn inst_values(prog: &Program, t: usize, value: &CExpr) -> f64 {
    let tpl = prog.template_of(t);
    let slot = match value {
        CExpr::Local(slot) => *slot,
        CExpr::LocalCell(base, ..) => *base,
        _ => return 2.0, // `@L`: true or false
    };
    if slot == 0 {
        return tpl.locations.len() as f64;
    }
    tpl.locals
        .vars
        .iter()
        .find(|v| (v.slot..v.slot + v.len.unwrap_or(1)).contains(&slot))
        .map_or(f64::INFINITY, |v| (v.domain.max - v.domain.min + 1) as f64)
}

/// How many local stores thread t's template has (as the domains allow).
fn local_stores(prog: &Program, t: usize) -> f64 {
    let tpl = prog.template_of(t);
    tpl.locals
        .vars
        .iter()
        .fold(tpl.locations.len() as f64, |acc, v| {
            acc * ((v.domain.max - v.domain.min + 1) as f64).powi(v.len.unwrap_or(1) as i32)
        })
}

/// Replaces thread-dependent subexpressions by `Term` references.
fn extract(prog: &Program, e: &CExpr, terms: &mut Vec<Term>) -> CExpr {
    let mut push = |t: Term| {
        terms.push(t);
        CExpr::Term((terms.len() - 1) as u32)
    };
    match e {
        CExpr::Count(threads, body) => {
            let mut member = vec![false; prog.threads.len()];
            for &t in threads.iter() {
                member[t as usize] = true;
            }
            push(Term::Count {
                member,
                body: (**body).clone(),
                cap: 0,
            })
        }
        CExpr::InstLocal(t, slot) => push(Term::Inst {
            thread: *t as usize,
            value: CExpr::Local(*slot),
        }),
        CExpr::InstLocalCell(t, base, len, name, idx) => push(Term::Inst {
            thread: *t as usize,
            value: CExpr::LocalCell(*base, *len, name.clone(), idx.clone()),
        }),
        CExpr::InstAt(t, mask) => {
            let mut masks: Vec<Box<[bool]>> = vec![Box::new([]); prog.templates.len()];
            masks[prog.threads[*t as usize].template as usize] = mask.clone();
            push(Term::Inst {
                thread: *t as usize,
                value: CExpr::At(masks.into()),
            })
        }
        CExpr::Un(op, a) => CExpr::Un(*op, Box::new(extract(prog, a, terms))),
        CExpr::Bin(op, a, b) => {
            let a = extract(prog, a, terms);
            let b = extract(prog, b, terms);
            CExpr::Bin(*op, Box::new(a), Box::new(b))
        }
        CExpr::GlobalCell(base, len, name, idx) => CExpr::GlobalCell(
            *base,
            *len,
            name.clone(),
            Box::new(extract(prog, idx, terms)),
        ),
        other => other.clone(),
    }
}

/// Computes how far each count must be tracked: `Some(k)` when it is only
/// ever compared with constants up to k, `None` when it must be exact.
fn cap_uses(e: &CExpr, caps: &mut [Option<i64>]) {
    match e {
        CExpr::Bin(op, a, b) if op.is_comparison() => {
            match (&**a, &**b) {
                (CExpr::Term(k), CExpr::Const(c)) | (CExpr::Const(c), CExpr::Term(k)) => {
                    // Saturating at c+1 keeps every comparison with c exact.
                    let k = *k as usize;
                    caps[k] = caps[k].map(|x| x.max((*c).max(0)));
                }
                _ => {
                    cap_uses(a, caps);
                    cap_uses(b, caps);
                }
            }
        }
        CExpr::Term(k) => caps[*k as usize] = None,
        CExpr::Un(_, a) => cap_uses(a, caps),
        CExpr::Bin(_, a, b) => {
            cap_uses(a, caps);
            cap_uses(b, caps);
        }
        CExpr::GlobalCell(.., i) => cap_uses(i, caps),
        _ => {}
    }
}
