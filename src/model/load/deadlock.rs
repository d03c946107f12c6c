//! The built-in predicate `deadlock`, compiled into the ordinary predicate
//! language so that every engine decides it as it decides any property
//! (`standard` on concrete states, the abstract modes by their polynomial
//! decision over counts, see `crate::property`):
//!
//! ```text
//! deadlock  =  count(*: enabled) == 0
//!           && count(*: !final) >= 1
//!           && for every channel c: no rendezvous on c is possible
//! ```
//!
//! `enabled` holds for a thread at a location with a transition that needs
//! no partner and whose guard holds; `final` is its template's valid end
//! locations (SPIN's valid end states; by default the locations no
//! transition leaves). A rendezvous on c is possible when some thread offers
//! a send on c, some thread offers a receive on c, and they can be two
//! different threads: `senders >= 1 && receivers >= 1 && count(*: send ||
//! receive) >= 2` says exactly that (if the only sender is also the only
//! receiver, the third conjunct fails; otherwise a pair of distinct threads
//! exists).
//!
//! A guard that fails to evaluate is not a true guard (`UnOp::Holds`): the
//! docs' "no thread can move" is then still decided by the others (a
//! failing guard of one thread made the whole predicate fail, so a property
//! `x == 1 && !deadlock` was undecided where another thread could move;
//! found by fuzzing against an interpreter of the docs). The step that
//! evaluates the failing guard is reported as a model error, as before.

use crate::program::ops::{BinOp, UnOp};
use crate::program::{CExpr, SyncOp, Template, Transition};

/// The `deadlock` predicate of a model with these compiled templates (in
/// order, `count` threads each) and `channels` channels.
///
/// In a cooperative model (`waiting`, the slot of the scheduler's global),
/// a thread moves only while it waits for no event.
///
/// With the program's error state (`divine`), a guard that fails to
/// evaluate counts as true: DiVinE takes the transition, into that state.
pub(super) fn formula(
    templates: &[Template],
    channels: usize,
    waiting: Option<u32>,
    divine: bool,
) -> CExpr {
    let threads: u32 = templates.iter().map(|t| t.count).sum();
    let all: Box<[u32]> = (0..threads).collect();
    let count = |body: CExpr| CExpr::Count(all.clone(), Box::new(body));

    let mut enabled = offers(templates, divine, |tr| tr.sync.is_none());
    if let Some(w) = waiting {
        let own = CExpr::Bin(BinOp::Sub, Box::new(CExpr::Tid), Box::new(CExpr::Const(1)));
        let cell = CExpr::GlobalCell(w, threads, "waiting".into(), Box::new(own));
        // Waiting first: a waiting thread's guards are not evaluated (the
        // steps do not evaluate them either; one that failed there made the
        // state a model error instead of the deadlock it is, found in
        // review).
        enabled = and(cmp(BinOp::Eq, cell, 0), enabled);
    }
    let finals: Vec<Box<[bool]>> = templates
        .iter()
        .map(|t| t.final_locations.clone().into_boxed_slice())
        .collect();
    let not_final = CExpr::Un(UnOp::Not, Box::new(CExpr::At(finals.into())));

    let mut conjuncts = vec![
        cmp(BinOp::Eq, count(enabled), 0),
        cmp(BinOp::Ge, count(not_final), 1),
    ];
    for c in 0..channels as u32 {
        let send = offers(
            templates,
            divine,
            |tr| matches!(tr.sync, Some(SyncOp::Send { channel, .. }) if channel == c),
        );
        let recv = offers(
            templates,
            divine,
            |tr| matches!(tr.sync, Some(SyncOp::Recv { channel, .. }) if channel == c),
        );
        let either = or(send.clone(), recv.clone());
        let possible = and(
            and(
                cmp(BinOp::Ge, count(send), 1),
                cmp(BinOp::Ge, count(recv), 1),
            ),
            cmp(BinOp::Ge, count(either), 2),
        );
        conjuncts.push(CExpr::Un(UnOp::Not, Box::new(possible)));
    }
    balanced(conjuncts, BinOp::And).unwrap_or(CExpr::Const(0))
}

/// A per-thread predicate: the thread is at a location where one of its
/// template's transitions picked by `which` has a true guard.
///
/// Shape: `@U || (tid in T_1 && (d_1 || …)) || (tid in T_2 && …)`: U are
/// the locations (of every template) with an unguarded such transition;
/// per template t, T_t is its threads' tids and d the disjuncts
/// `pc == L && (g1 || g2 …)` over its locations L with guarded ones only.
/// Every part is O(1) in the model's other templates and locations (a
/// location mask per disjunct was quadratic in a template's locations, and
/// a mask per template in the number of templates), and the disjunctions
/// are balanced trees, so evaluating a template of 65,536 locations
/// recurses 17 levels deep, not 65,536.
fn offers(templates: &[Template], divine: bool, which: impl Fn(&Transition) -> bool) -> CExpr {
    let mut always: Vec<Box<[bool]>> = Vec::with_capacity(templates.len());
    let mut per_template: Vec<CExpr> = Vec::new();
    // Tids are 1, 2, … over the templates in order (the loader's numbering).
    let mut first_tid = 1i64;
    for t in templates {
        let tids = (first_tid, first_tid + t.count as i64 - 1);
        first_tid += t.count as i64;
        let mut unguarded = vec![false; t.locations.len()];
        let mut disjuncts: Vec<CExpr> = Vec::new();
        for (loc, outgoing) in t.outgoing.iter().enumerate() {
            let mut guards: Vec<CExpr> = Vec::new();
            for &k in outgoing {
                let tr = &t.transitions[k as usize];
                if !which(tr) {
                    continue;
                }
                match &tr.guard {
                    None => unguarded[loc] = true,
                    Some(g) => guards.push(guard_holds(g, divine)),
                }
            }
            if unguarded[loc] {
                continue;
            }
            if let Some(g) = balanced(guards, BinOp::Or) {
                disjuncts.push(and(cmp(BinOp::Eq, CExpr::Local(0), loc as i64), g));
            }
        }
        if t.count > 0
            && let Some(d) = balanced(disjuncts, BinOp::Or)
        {
            let mine = and(
                cmp(BinOp::Ge, CExpr::Tid, tids.0),
                cmp(BinOp::Le, CExpr::Tid, tids.1),
            );
            per_template.push(and(mine, d));
        }
        always.push(if unguarded.iter().any(|m| *m) {
            unguarded.into()
        } else {
            Box::new([])
        });
    }
    let head = if always.iter().any(|m| !m.is_empty()) {
        Some(CExpr::At(always.into()))
    } else {
        None
    };
    balanced(head.into_iter().chain(per_template).collect(), BinOp::Or).unwrap_or(CExpr::Const(0))
}

/// `g` as `deadlock` reads it: true where it holds, false where it is false,
/// and where it fails to evaluate, false (the step is a model error and
/// moves nowhere) or, with the error state (`divine`), true: `!Holds(!g)`.
fn guard_holds(g: &CExpr, divine: bool) -> CExpr {
    let holds = |e: CExpr| CExpr::Un(UnOp::Holds, Box::new(e));
    match divine {
        false => holds(g.clone()),
        true => CExpr::Un(
            UnOp::Not,
            Box::new(holds(CExpr::Un(UnOp::Not, Box::new(g.clone())))),
        ),
    }
}

/// `items` joined by `op` (`&&` or `||`) as a balanced tree: the same value
/// and the same left-to-right, short-circuit evaluation as the left-nested
/// chain, but logarithmic depth, so that a template with many transitions
/// (or many templates) cannot make a predicate deep enough to overflow the
/// stack where it is evaluated, compiled or exported.
pub(super) fn balanced(mut items: Vec<CExpr>, op: BinOp) -> Option<CExpr> {
    while items.len() > 1 {
        let mut next = Vec::with_capacity(items.len().div_ceil(2));
        let mut it = items.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => CExpr::Bin(op, Box::new(a), Box::new(b)),
                None => a,
            });
        }
        items = next;
    }
    items.pop()
}

fn cmp(op: BinOp, a: CExpr, k: i64) -> CExpr {
    CExpr::Bin(op, Box::new(a), Box::new(CExpr::Const(k)))
}

fn and(a: CExpr, b: CExpr) -> CExpr {
    CExpr::Bin(BinOp::And, Box::new(a), Box::new(b))
}

fn or(a: CExpr, b: CExpr) -> CExpr {
    CExpr::Bin(BinOp::Or, Box::new(a), Box::new(b))
}

/// Is every state satisfying `e` a deadlock, and is `e` evaluated past
/// `deadlock` only where it holds? True for `deadlock` itself and for
/// conjunctions that start with it (`deadlock && x == 1`): elsewhere the
/// short circuit evaluates nothing more, so skipping those states misses no
/// evaluation error either (in `x == 1 && deadlock`, `x == 1` may fail
/// anywhere, so it is evaluated everywhere).
pub(super) fn only_in_deadlocks(e: &CExpr, deadlock: &CExpr) -> bool {
    match e {
        _ if e == deadlock => true,
        CExpr::Bin(BinOp::And, a, _) => only_in_deadlocks(a, deadlock),
        CExpr::Un(UnOp::Not, a) => match &**a {
            CExpr::Un(UnOp::Not, inner) => only_in_deadlocks(inner, deadlock),
            _ => false,
        },
        _ => false,
    }
}
