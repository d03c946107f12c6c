//! Phases and In/Out locations (Popeea, Rybalchenko and Wilhelm, §V-B).
//!
//! The phase analysis is HC2 with predicates over the pc and the phase
//! only, that is, over the control graph: the start location is in the
//! pre-commit phase (p = 1); a right mover leads to the pre-commit phase,
//! a left mover or a non-mover to the post-commit phase (p = 0), a
//! both-mover keeps the phase.
//!
//! A location is In (inside a block) when it is not initial and, in every
//! phase that reaches it, it is pre-commit, or every transition leaving it
//! is a left or both mover and one of them is always enabled (a left mover
//! that can block is not one, §V-B). The paper writes In with an
//! existential phase; weft takes every phase, which is what the reduction
//! needs when both phases reach a location. Final locations, the start
//! location, locations a property pins, and locations of a rendezvous are
//! Out. A cycle of In locations would let a thread run inside a block for
//! ever (the termination check): each is broken by making the location it
//! is entered at Out.

use super::movers::Mover;
use crate::program::Template;

/// The pre-commit phase reaches the location.
pub(crate) const PRE: u8 = 1;
/// The post-commit phase reaches the location.
pub(crate) const POST: u8 = 2;

/// Which phases reach each location, from the start location.
pub(super) fn phases(tpl: &Template, movers: &[Mover]) -> Vec<u8> {
    let mut reach = vec![0u8; tpl.locations.len()];
    reach[tpl.start as usize] = PRE;
    let mut work = vec![(tpl.start, PRE)];
    while let Some((loc, p)) = work.pop() {
        for &ti in &tpl.outgoing[loc as usize] {
            let next = match movers[ti as usize] {
                Mover::Right => PRE,
                Mover::Left | Mover::Non => POST,
                Mover::Both => p,
            };
            let to = tpl.transitions[ti as usize].to;
            if reach[to as usize] & next == 0 {
                reach[to as usize] |= next;
                work.push((to, next));
            }
        }
    }
    reach
}

/// Locations Out whatever the phases say, with the reason: the start, the
/// final locations, those a property pins (`pinned`), and both ends of a
/// rendezvous.
pub(super) fn forced_out(tpl: &Template, pinned: &[Option<String>]) -> Vec<Option<String>> {
    let mut why: Vec<Option<String>> = pinned
        .iter()
        .map(|p| p.as_ref().map(|name| format!("pinned by `{name}`")))
        .collect();
    for (loc, w) in why.iter_mut().enumerate() {
        if tpl.final_locations.get(loc).copied().unwrap_or(false) || tpl.outgoing[loc].is_empty() {
            *w = Some("final".into());
        }
    }
    for tr in tpl.transitions.iter().filter(|tr| tr.sync.is_some()) {
        for &f in &tr.from {
            why[f as usize].get_or_insert_with(|| "a rendezvous".into());
        }
        why[tr.to as usize].get_or_insert_with(|| "after a rendezvous".into());
    }
    why[tpl.start as usize] = Some("initial".into());
    why
}

/// Out per location (`why` gains the cycles broken).
pub(super) fn in_out(
    tpl: &Template,
    movers: &[Mover],
    phases: &[u8],
    why: &mut [Option<String>],
) -> Vec<bool> {
    let mut out: Vec<bool> = (0..tpl.locations.len())
        .map(|loc| {
            let post_ok = tpl.outgoing[loc]
                .iter()
                .all(|&t| matches!(movers[t as usize], Mover::Left | Mover::Both))
                && never_blocks(tpl, loc);
            why[loc].is_some() || phases[loc] == 0 || (phases[loc] & POST != 0 && !post_ok)
        })
        .collect();
    break_cycles(tpl, &mut out, why);
    out
}

/// Some transition leaving `loc` is always enabled: it has no guard.
fn never_blocks(tpl: &Template, loc: usize) -> bool {
    tpl.outgoing[loc].iter().any(|&t| {
        let tr = &tpl.transitions[t as usize];
        tr.sync.is_none() && matches!(tr.guard, None | Some(crate::program::CExpr::Const(1)))
    })
}

/// Makes a location of every cycle of In locations Out: a depth-first
/// search over In locations from each Out location; a back edge's target
/// becomes Out.
fn break_cycles(tpl: &Template, out: &mut [bool], why: &mut [Option<String>]) {
    const NEW: u8 = 0;
    const ACTIVE: u8 = 1;
    const DONE: u8 = 2;
    let n = tpl.locations.len();
    let mut state = vec![NEW; n];
    for root in 0..n {
        if state[root] != NEW || out[root] {
            continue;
        }
        // Iterative DFS: (location, next outgoing index).
        let mut stack = vec![(root, 0usize)];
        state[root] = ACTIVE;
        while let Some(&mut (loc, ref mut k)) = stack.last_mut() {
            if *k < tpl.outgoing[loc].len() {
                let t = tpl.outgoing[loc][*k];
                *k += 1;
                let to = tpl.transitions[t as usize].to as usize;
                if out[to] {
                    continue;
                }
                match state[to] {
                    NEW => {
                        state[to] = ACTIVE;
                        stack.push((to, 0));
                    }
                    ACTIVE => {
                        out[to] = true;
                        why[to] = Some("a cycle inside a block enters here".into());
                    }
                    _ => {}
                }
            } else {
                state[loc] = DONE;
                stack.pop();
            }
        }
    }
}
