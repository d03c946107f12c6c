//! Where each element of the cartesian-exc fixpoint came from, for the
//! derivations of a witness (as thread-modular prints them). An element is
//! a thread t's local store l in the product X(g); the first time it is
//! joined into X, its parent is recorded: it is initial, or thread t's own
//! step from (g₀, l₀) put it there, or another thread's step g₀ → g carried
//! it along from X(g₀). The parent was in X (or in E) before the child, so
//! following parents ends.
//!
//! Cheap to record: a join that adds elements stores its post (`Move`)
//! once, and each new element (t, l, which post) is appended to its global
//! store's list, in the order elements are added (each only once: X only
//! grows). No hashing per element; a lookup scans one store's list, which
//! only witnesses do.

use super::Cartesian;
use crate::engine::rendezvous::Joint;
use crate::engine::result::{Derivation, Derived};
use rustc_hash::FxHashMap;

/// Who moved in a post that joins into X.
#[derive(Clone, Copy, Debug)]
pub(super) enum Who {
    /// The initial states.
    Init,
    /// Thread `t` from local store `l` by `trans`.
    One { t: u32, l: u32, trans: u32 },
    /// Thread `by`, from some local store: only the other components are
    /// joined (`join_others`).
    Other { by: u32 },
    /// A rendezvous: sender `s` from `ls` by `ts`, receiver `r` from `lr`
    /// by `tr`.
    Pair {
        s: u32,
        ls: u32,
        ts: u32,
        r: u32,
        lr: u32,
        tr: u32,
    },
}

impl Who {
    pub(super) fn pair(j: &Joint) -> Who {
        Who::Pair {
            s: j.step.sender as u32,
            ls: j.from_send,
            ts: j.step.send_trans,
            r: j.step.receiver as u32,
            lr: j.from_recv,
            tr: j.step.recv_trans,
        }
    }
}

/// A post from the product at global store `g` (a product of E when
/// `from_e`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Move {
    pub(super) g: u32,
    pub(super) from_e: bool,
    pub(super) who: Who,
}

impl Move {
    pub(super) fn init(g: u32) -> Move {
        Move {
            g,
            from_e: false,
            who: Who::Init,
        }
    }
}

/// One link of a derivation chain: how thread t's element (g, l) was
/// derived from the previous one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Link {
    /// An initial state's.
    Init,
    /// A state of E (taken as reachable): the chain starts there.
    Exception,
    /// Own step from local store `l` at the previous global store, by
    /// transition `trans`, with `partner` in a rendezvous.
    Step {
        l: u32,
        trans: u32,
        partner: Option<u32>,
    },
    /// Carried along by thread `by` (and `with`, in a rendezvous) changing
    /// the global store.
    Env { by: u32, with: Option<u32> },
}

impl Move {
    fn link(&self, j: u32) -> Link {
        match self.who {
            Who::Init => Link::Init,
            Who::One { t, l, trans } if t == j => Link::Step {
                l,
                trans,
                partner: None,
            },
            Who::One { t: by, .. } | Who::Other { by } => Link::Env { by, with: None },
            Who::Pair { s, ls, ts, r, .. } if s == j => Link::Step {
                l: ls,
                trans: ts,
                partner: Some(r),
            },
            Who::Pair { s, r, lr, tr, .. } if r == j => Link::Step {
                l: lr,
                trans: tr,
                partner: Some(s),
            },
            Who::Pair { s, r, .. } => Link::Env {
                by: s,
                with: Some(r),
            },
        }
    }
}

/// The first derivation of every element of X.
#[derive(Default)]
pub(crate) struct Parents {
    /// The posts that added elements, each once.
    moves: Vec<Move>,
    /// Per global store: its elements (thread, local store, index of the
    /// move that added it), in the order they were added.
    by_global: FxHashMap<u32, Vec<[u32; 3]>>,
    /// Elements added by the join in progress (thread, local store).
    pending: Vec<(u32, u32)>,
}

impl Parents {
    /// Element (_, j, l) was just added by the join in progress.
    pub(super) fn added(&mut self, j: usize, l: u32) {
        self.pending.push((j as u32, l));
    }

    /// The join in progress, into X(g), by `mv`, is done.
    pub(super) fn flush(&mut self, g: u32, mv: Move) {
        if self.pending.is_empty() {
            return;
        }
        let k = self.moves.len() as u32;
        self.moves.push(mv);
        let list = self.by_global.entry(g).or_default();
        list.extend(self.pending.drain(..).map(|(j, l)| [j, l, k]));
    }

    /// The move that first added thread t's local store l to X(g).
    fn first(&self, g: u32, t: u32, l: u32) -> Option<&Move> {
        let list = self.by_global.get(&g)?;
        let e = list.iter().find(|e| e[0] == t && e[1] == l)?;
        self.moves.get(e[2] as usize)
    }
}

impl Cartesian<'_> {
    /// How thread t's local store l at global store g was derived: the
    /// elements (link, g, l) from an initial state (or a state of E) to
    /// (g, l). A thread state that is not an element of X is one of E's.
    pub(crate) fn chain(&self, t: usize, g: u32, l: u32) -> Vec<(Link, u32, u32)> {
        let (mut g, mut l) = (g, l);
        let mut links = Vec::new();
        // Parents were added before their children, so this ends.
        for _ in 0..=self.parents.moves.len() {
            let Some(mv) = self.parents.first(g, t as u32, l) else {
                links.push((Link::Exception, g, l));
                break;
            };
            let link = mv.link(t as u32);
            links.push((link, g, l));
            match link {
                Link::Init | Link::Exception => break,
                Link::Step { l: l0, .. } => l = l0,
                Link::Env { .. } => {}
            }
            g = mv.g;
            if mv.from_e {
                links.push((Link::Exception, g, l));
                break;
            }
        }
        links.reverse();
        links
    }

    /// The chain as the report shows it.
    pub(crate) fn derivation(&self, t: usize, g: u32, l: u32) -> Vec<Derivation> {
        let prog = self.exp.prog;
        let tpl = prog.template_of(t);
        let name = |u: u32| prog.threads[u as usize].name.as_str();
        self.chain(t, g, l)
            .into_iter()
            .map(|(link, g, l)| Derivation {
                by: match link {
                    Link::Init => Derived::Init,
                    Link::Exception => Derived::Exception,
                    Link::Step { trans, partner, .. } => {
                        let label = &tpl.transitions[trans as usize].label;
                        Derived::Step(match partner {
                            None => label.clone(),
                            Some(u) => format!("{label} with {}", name(u)),
                        })
                    }
                    Link::Env { by, with } => Derived::Env(match with {
                        None => name(by).to_string(),
                        Some(w) => format!("{} and {}", name(by), name(w)),
                    }),
                },
                global: prog.globals.render(self.exp.globals.get(g)),
                local: tpl.render_local(self.exp.local(t, l)),
            })
            .collect()
    }
}
