//! Firing one thread's transitions on concrete stores: the guard, the
//! assertion, the `do` block in order (`any` gives one successor per
//! value), and the run-time model errors they meet. `Explorer` interns and
//! memoises what these give; the rendezvous, cooperative macro-steps and
//! `--blocks` call them directly.

use super::taken::Taken;
use super::{Action, CExpr, Ctx, EvalError, Program, SyncOp, Target, Val};

/// Fires every enabled transition of `thread` (but rendezvous) from the
/// stores `gs`, `ls`: the resulting stores, with the transition, pushed to
/// `out` (one per value of an `any`); returns the first run-time model
/// error met (that transition then has no successor).
pub(crate) fn fire_all(
    prog: &Program,
    thread: usize,
    gs: &[Val],
    ls: &[Val],
    out: &mut Vec<(Vec<Val>, Vec<Val>, u32)>,
) -> Option<(u32, String)> {
    fire_all_counting(prog, thread, (gs, ls), out, &mut 0, None)
}

/// As `fire_all`, adding to `failures` the number of transitions that
/// failed, and marking in `taken` each transition that gave a step or
/// failed.
pub(super) fn fire_all_counting(
    prog: &Program,
    thread: usize,
    (gs, ls): (&[Val], &[Val]),
    out: &mut Vec<(Vec<Val>, Vec<Val>, u32)>,
    failures: &mut u32,
    taken: Option<&Taken>,
) -> Option<(u32, String)> {
    let th = &prog.threads[thread];
    let template = th.template as usize;
    let tpl = &prog.templates[template];
    let mut error = None;
    for &ti in &tpl.outgoing[ls[0] as usize] {
        if tpl.transitions[ti as usize].sync.is_some() {
            continue; // fires only in a rendezvous (`sync_steps`)
        }
        let result = fire_one(prog, thread, ti, gs, ls);
        if let Some(taken) = taken
            && result.as_ref().map_or(true, |r| !r.is_empty())
        {
            taken.mark(template, ti);
        }
        match result {
            Ok(results) => out.extend(results.into_iter().map(|(g2, l2)| (g2, l2, ti))),
            Err(EvalError(msg)) => {
                *failures += 1;
                if error.is_none() {
                    let tr = &tpl.transitions[ti as usize];
                    error = Some((ti, format!("{}: {msg}", tr.path)));
                }
            }
        }
    }
    error
}

/// A global store and a local store.
pub(crate) type Stores = (Vec<Val>, Vec<Val>);

/// Fires transition `ti` of `thread` (not a rendezvous) from the stores
/// `gs`, `ls` if its guard holds: the resulting stores, at its target (one
/// per value of an `any`; none when the guard is false), or the run-time
/// error of its guard or actions.
pub(crate) fn fire_one(
    prog: &Program,
    thread: usize,
    ti: u32,
    gs: &[Val],
    ls: &[Val],
) -> Result<Vec<Stores>, EvalError> {
    let th = &prog.threads[thread];
    let tpl = &prog.templates[th.template as usize];
    let tr = &tpl.transitions[ti as usize];
    let ctx = Ctx::thread(th, gs, ls);
    let on = match &tr.guard {
        None => true,
        Some(e) => e.eval(&ctx)? != 0,
    };
    let mut results = Vec::new();
    if on {
        let mut g2 = gs.to_vec();
        let mut l2 = ls.to_vec();
        execute(
            &tr.actions,
            th.tid,
            th.template as usize,
            &mut g2,
            &mut l2,
            &mut results,
        )?;
    }
    for (_, l2) in &mut results {
        l2[0] = tr.to as Val;
    }
    Ok(results)
}

/// Runs `actions` in order on copies of the stores; `any` forks one branch
/// per domain value. Finished branches are pushed to `out`.
pub(crate) fn execute(
    actions: &[Action],
    tid: i64,
    template: usize,
    g: &mut Vec<Val>,
    l: &mut Vec<Val>,
    out: &mut Vec<(Vec<Val>, Vec<Val>)>,
) -> Result<(), EvalError> {
    let Some((a, rest)) = actions.split_first() else {
        out.push((g.clone(), l.clone()));
        return Ok(());
    };
    assign_then((a, None), rest, (tid, template), (g, l), out)
}

/// Runs action `a`, its right-hand side replaced by `value` when one is
/// given (a receive's target gets the value its sender offered), then
/// `rest` (as `execute`). A loop over the actions, not a recursion per
/// action: a `do` of 20,000 assignments overflowed the stack. It recurses
/// only where `any` forks (one level per `any` with two values or more,
/// and the successors double at each: the stack is not what runs out).
/// The stores are as they were on return, also after an error.
pub(crate) fn assign_then(
    (a, value): (&Action, Option<i64>),
    rest: &[Action],
    (tid, template): (i64, usize),
    (g, l): (&mut Vec<Val>, &mut Vec<Val>),
    out: &mut Vec<(Vec<Val>, Vec<Val>)>,
) -> Result<(), EvalError> {
    // The assignments made here, to undo: (global?, slot, old value).
    let mut undo: Vec<(bool, u32, Val)> = Vec::new();
    let result = assign_in_order((a, value), rest, (tid, template), (g, l), out, &mut undo);
    for (is_global, slot, old) in undo.into_iter().rev() {
        let store = if is_global { &mut *g } else { &mut *l };
        store[slot as usize] = old;
    }
    result
}

/// `assign_then`'s loop; each assignment's old value goes to `undo`.
fn assign_in_order(
    (mut a, mut value): (&Action, Option<i64>),
    mut rest: &[Action],
    (tid, template): (i64, usize),
    (g, l): (&mut Vec<Val>, &mut Vec<Val>),
    out: &mut Vec<(Vec<Val>, Vec<Val>)>,
    undo: &mut Vec<(bool, u32, Val)>,
) -> Result<(), EvalError> {
    loop {
        let ctx = Ctx {
            g,
            tid,
            template,
            l,
            state: None,
            terms: &[],
        };
        let (is_global, slot) = match &a.target {
            Target::Global(s) => (true, *s),
            Target::Local(s) => (false, *s),
            Target::GlobalCell(base, len, i) => (true, base + cell(i, *len, &a.var, &ctx)?),
            Target::LocalCell(base, len, i) => (false, base + cell(i, *len, &a.var, &ctx)?),
        };
        // The values the target takes: one, or every value of its domain
        // (`any`). A range, not a list: this runs for every action fired.
        let values = match value
            .map(Ok)
            .or_else(|| a.rhs.as_ref().map(|e| e.eval(&ctx)))
        {
            Some(v) => {
                let v = v?;
                if !a.domain.contains(v) {
                    return Err(EvalError::new(format!(
                        "assignment out of range: `{}` gets {v}, outside its domain {}",
                        a.var,
                        a.domain.describe()
                    )));
                }
                v..=v
            }
            None => a.domain.min..=a.domain.max,
        };
        let store = if is_global { &mut *g } else { &mut *l };
        undo.push((is_global, slot, store[slot as usize]));
        if values.start() == values.end() {
            store[slot as usize] = *values.start() as Val;
            let Some((next, more)) = rest.split_first() else {
                out.push((g.clone(), l.clone()));
                return Ok(());
            };
            (a, value, rest) = (next, None, more);
            continue;
        }
        // `any`: each value, and the rest after it (which undoes its own).
        for v in values {
            let store = if is_global { &mut *g } else { &mut *l };
            store[slot as usize] = v as Val;
            execute(rest, tid, template, g, l, out)?;
        }
        return Ok(());
    }
}

fn cell(i: &CExpr, len: u32, name: &str, ctx: &Ctx) -> Result<u32, EvalError> {
    let v = i.eval(ctx)?;
    if v < 0 || v >= len as i64 {
        return Err(EvalError::new(format!(
            "array index {v} is out of bounds for `{name}` (length {len})"
        )));
    }
    Ok(v as u32)
}

/// Does any transition of the template read `tid`: in its guard, its
/// assignments, the value it sends or the cell it receives into? (A
/// template that does not is one class of the memo, and its instances are
/// interchangeable for symmetry; a send of `tid` missed here once gave
/// every instance the first one's offer.)
pub(crate) fn uses_tid(t: &super::Template) -> bool {
    let mut found = false;
    let mut check = |e: &CExpr| {
        e.visit(&mut |x| {
            if matches!(x, CExpr::Tid) {
                found = true
            }
        })
    };
    for tr in &t.transitions {
        let target = match &tr.sync {
            Some(SyncOp::Send { value: Some(e), .. }) => {
                check(e);
                None
            }
            Some(SyncOp::Recv { target, .. }) => target.as_ref(),
            _ => None,
        };
        if let Some(e) = &tr.guard {
            check(e);
        }
        if let Some(e) = &tr.assert {
            check(e);
        }
        for a in tr.actions.iter().chain(target) {
            if let Some(e) = &a.rhs {
                check(e);
            }
            if let Target::GlobalCell(_, _, e) | Target::LocalCell(_, _, e) = &a.target {
                check(e);
            }
        }
    }
    found
}
