//! Mover classes (Popeea, Rybalchenko and Wilhelm, §V-A; Lipton): per
//! transition, right mover (`rm`: commutes to the right with every
//! transition of another thread), left mover (`lm`: to the left), both, or
//! non-mover (`nm`).
//!
//! The paper's rules: an acquire is a right mover, a release a left mover;
//! a transition is a non-mover if some transition of another thread
//! accesses a common global, one of them writing, and the locks held at
//! their two source locations are disjoint (two threads never hold one
//! lock at once: with a common lock held the two are never adjacent in a
//! run, so they commute); every other transition is a both-mover. The
//! locks' own accesses by acquires and releases are not races: the lock
//! discipline of `program/locks.rs` makes an acquire commute with every
//! other thread's step and a release too.
//!
//! Beyond the paper, whose errors are at Out locations only: a checked
//! property is split into disjuncts (`||`, `count(…) >= 1`); a disjunct
//! that pins a thread to locations (`T@L && …`, an assertion's `from`)
//! makes them Out for that thread (`Pins::forced`), and the transitions of
//! any other thread that can change an atom of the disjunct (`atoms.rs`)
//! are non-movers. A rendezvous, or a transition that reads other threads'
//! stores, is a non-mover too.

use super::commute::Reach;
use crate::engine::atoms::Atoms;
use crate::program::access::{Accesses, Slots};
use crate::program::locks::Locks;
use crate::program::ops::BinOp;
use crate::program::{CExpr, Program};
use rustc_hash::FxHashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mover {
    Right,
    Left,
    Both,
    Non,
}

impl Mover {
    /// The paper's abbreviation.
    pub(crate) fn short(self) -> &'static str {
        match self {
            Mover::Right => "rm",
            Mover::Left => "lm",
            Mover::Both => "bm",
            Mover::Non => "nm",
        }
    }
}

/// What the checked properties impose on the blocks.
pub(super) struct Pins {
    /// `forced[template][location]`: Out because a property pins a thread
    /// there (the property's name).
    pub(super) forced: Vec<Vec<Option<String>>>,
    /// `visible[template][transition]`: can change what a property reads
    /// in a state where the thread is not pinned (the property's name).
    pub(super) visible: Vec<Vec<Option<String>>>,
}

/// One disjunct of a property: the threads it pins to location sets, and
/// the expression (evaluated for `current`, inside a `count`).
struct Disjunct<'e> {
    pins: FxHashMap<u32, Vec<bool>>,
    expr: &'e CExpr,
    current: Option<u32>,
}

impl Pins {
    pub(super) fn of(prog: &Program, acc: &Accesses, props: &[usize]) -> Pins {
        let mut pins = Pins {
            forced: prog
                .templates
                .iter()
                .map(|t| vec![None; t.locations.len()])
                .collect(),
            visible: prog
                .templates
                .iter()
                .map(|t| vec![None; t.transitions.len()])
                .collect(),
        };
        for &p in props {
            let prop = &prog.properties[p];
            let mut ds = Vec::new();
            disjuncts(prog, &prop.error, None, &mut ds);
            for d in ds {
                pins.add(prog, acc, &prop.name, &d);
            }
        }
        pins
    }

    fn add(&mut self, prog: &Program, acc: &Accesses, name: &str, d: &Disjunct) {
        for (&t, mask) in &d.pins {
            let tpl = prog.threads[t as usize].template as usize;
            for (loc, _) in mask.iter().enumerate().filter(|(_, m)| **m) {
                self.forced[tpl][loc].get_or_insert_with(|| name.to_string());
            }
        }
        let mut atoms = Atoms::default();
        atoms.collect(prog, d.expr, d.current);
        for (t, th) in prog.threads.iter().enumerate() {
            if d.pins.contains_key(&(t as u32)) {
                continue; // at an Out location in every state of d
            }
            let tpl_id = th.template as usize;
            let tpl = &prog.templates[tpl_id];
            let locals = atoms.locals.get(&(t as u32));
            let masks = atoms
                .masks
                .get(&(t as u32))
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            for (j, tr) in tpl.transitions.iter().enumerate() {
                let a = &acc.single[tpl_id][j];
                let visible = atoms.everything
                    || a.whole_state
                    || a.writes.intersects(&atoms.globals)
                    || locals.is_some_and(|s| a.local_writes.intersects(s))
                    || masks.iter().any(|m| {
                        tr.from
                            .iter()
                            .any(|&f| m.get(f as usize) != m.get(tr.to as usize))
                    });
                if visible {
                    self.visible[tpl_id][j].get_or_insert_with(|| name.to_string());
                }
            }
        }
    }
}

/// Splits `e` into disjuncts, each with the location sets its conjuncts
/// pin threads to.
fn disjuncts<'e>(prog: &Program, e: &'e CExpr, current: Option<u32>, out: &mut Vec<Disjunct<'e>>) {
    match e {
        CExpr::Bin(BinOp::Or, a, b) => {
            disjuncts(prog, a, current, out);
            disjuncts(prog, b, current, out);
        }
        // `count(T: body) >= 1`: some thread of T satisfies body.
        CExpr::Bin(BinOp::Ge, c, k) if matches!(**k, CExpr::Const(1)) => match &**c {
            CExpr::Count(threads, body) => {
                for &t in threads.iter() {
                    disjuncts(prog, body, Some(t), out);
                }
            }
            _ => out.push(conjunction(prog, e, current)),
        },
        _ => out.push(conjunction(prog, e, current)),
    }
}

fn conjunction<'e>(prog: &Program, e: &'e CExpr, current: Option<u32>) -> Disjunct<'e> {
    let mut conjuncts = Vec::new();
    crate::program::locks::split_and(e, &mut conjuncts);
    let mut pins: FxHashMap<u32, Vec<bool>> = FxHashMap::default();
    let mut pin = |t: u32, mask: &[bool]| {
        let n = prog.template_of(t as usize).locations.len();
        let mask: Vec<bool> = (0..n)
            .map(|i| mask.get(i).copied().unwrap_or(false))
            .collect();
        let entry = pins.entry(t).or_insert_with(|| vec![true; n]);
        for (a, b) in entry.iter_mut().zip(mask) {
            *a &= b;
        }
    };
    for c in conjuncts {
        match c {
            CExpr::InstAt(t, mask) => pin(*t, mask),
            CExpr::At(masks) => {
                if let Some(t) = current {
                    let tpl = prog.threads[t as usize].template as usize;
                    pin(t, &masks[tpl]);
                }
            }
            _ => {}
        }
    }
    Disjunct {
        pins,
        expr: e,
        current,
    }
}

/// The mover class of every transition, per template, with the reason of
/// each non-mover.
pub(super) fn classify(
    prog: &Program,
    acc: &Accesses,
    locks: &Locks,
    pins: &Pins,
) -> Vec<Vec<(Mover, Option<String>)>> {
    // The semantic check's pre-pass, run once, at the first race.
    let mut reach: Option<Option<Reach>> = None;
    let mut lock_slots = Slots::default();
    for &s in &locks.slots {
        lock_slots.insert(s);
    }
    // Per template and transition: reads and writes outside the locks, and
    // the locks held at each source (unreachable sources left out).
    struct Touch {
        reads: Slots,
        writes: Slots,
        held: Vec<u64>,
    }
    let touch: Vec<Vec<Touch>> = prog
        .templates
        .iter()
        .enumerate()
        .map(|(ti, tpl)| {
            tpl.transitions
                .iter()
                .enumerate()
                .map(|(j, tr)| {
                    let a = &acc.single[ti][j];
                    Touch {
                        reads: a.reads.without(&lock_slots),
                        writes: a.writes.without(&lock_slots),
                        held: tr
                            .from
                            .iter()
                            .filter_map(|&f| locks.held[ti][f as usize])
                            .collect(),
                    }
                })
                .collect()
        })
        .collect();
    // Two threads of templates a and b exist.
    let other_thread = |a: usize, b: usize| a != b || prog.templates[a].count >= 2;
    let race = |x: &Touch, y: &Touch| {
        let shared = x.writes.intersects(&y.reads)
            || x.writes.intersects(&y.writes)
            || y.writes.intersects(&x.reads);
        shared && x.held.iter().any(|h| y.held.iter().any(|k| h & k == 0))
    };
    prog.templates
        .iter()
        .enumerate()
        .map(|(ti, tpl)| {
            tpl.transitions
                .iter()
                .enumerate()
                .map(|(j, tr)| {
                    let a = &acc.single[ti][j];
                    if tr.sync.is_some() {
                        return (Mover::Non, Some("a rendezvous".to_string()));
                    }
                    if a.whole_state {
                        return (Mover::Non, Some("reads other threads' stores".to_string()));
                    }
                    if let Some(p) = &pins.visible[ti][j] {
                        return (Mover::Non, Some(format!("can change what `{p}` reads")));
                    }
                    let me = &touch[ti][j];
                    let races: Vec<(usize, usize)> = (0..prog.templates.len())
                        .filter(|&ui| other_thread(ti, ui))
                        .flat_map(|ui| {
                            let hits = touch[ui].iter().enumerate().filter(|(_, o)| race(me, o));
                            hits.map(move |(k, _)| (ui, k))
                        })
                        .collect();
                    let mut note = None;
                    if let Some(&(ui, k)) = races.first() {
                        let utpl = &prog.templates[ui];
                        let with = format!("races with {}'s `{}`", utpl.name, utpl.transitions[k].label);
                        let reach = reach.get_or_insert_with(|| Reach::compute(prog));
                        let commutes = reach
                            .as_ref()
                            .is_some_and(|r| every_pair_commutes(prog, acc, r, (ti, j), &races));
                        if !commutes {
                            return (Mover::Non, Some(with));
                        }
                        note = Some(format!(
                            "{with}{}, but they commute wherever both can be taken (semantic check)",
                            if races.len() > 1 { " (and others)" } else { "" }
                        ));
                    }
                    let ops = locks.ops[ti][j];
                    match (ops.acquires != 0, ops.releases != 0) {
                        (true, true) => (
                            Mover::Non,
                            Some("takes and releases locks at once".to_string()),
                        ),
                        (true, false) => (Mover::Right, note),
                        (false, true) => (Mover::Left, note),
                        (false, false) => (Mover::Both, note),
                    }
                })
                .collect()
        })
        .collect()
}

/// Does transition `j` of template `ti` commute with each racing
/// transition `(template, index)` of `races`, for every thread of `ti` and
/// every other thread of the racing template (`commute.rs`)? Never with a
/// rendezvous (a step of two threads, which `commute.rs` does not fire) or
/// a transition that reads other threads' stores.
fn every_pair_commutes(
    prog: &Program,
    acc: &Accesses,
    reach: &Reach,
    (ti, j): (usize, usize),
    races: &[(usize, usize)],
) -> bool {
    let single = |u: usize, k: usize| {
        prog.templates[u].transitions[k].sync.is_none() && !acc.single[u][k].whole_state
    };
    if !races.iter().all(|&(ui, k)| single(ui, k)) {
        return false;
    }
    let threads_of = |tpl: usize| {
        prog.threads
            .iter()
            .enumerate()
            .filter(move |(_, th)| th.template as usize == tpl)
            .map(|(t, _)| t)
    };
    threads_of(ti).all(|t| {
        races.iter().all(|&(ui, k)| {
            threads_of(ui)
                .filter(|&u| u != t)
                .all(|u| reach.commute(prog, (t, j as u32), (u, k as u32)))
        })
    })
}
