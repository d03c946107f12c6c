//! One concrete state at a time, for the engines that walk single runs
//! rather than search (`replay`, `simulate`): every move out of a state
//! (each thread's steps and each rendezvous), and the run-time model error
//! in a state, described as `standard` describes it so that a trace from
//! either engine reads the same; and whether a state where nothing moves
//! is a deadlock.

use crate::program::Explorer;
use crate::property;

/// One move out of a state: the moving thread and its transition, the
/// receiver of a rendezvous, and the stores it writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Move {
    pub(crate) thread: usize,
    pub(crate) trans: u32,
    /// The receiver of a rendezvous: thread, transition, its local after.
    pub(crate) partner: Option<(usize, u32, u32)>,
    /// The global store after.
    pub(crate) g: u32,
    /// The moving thread's local store after.
    pub(crate) l: u32,
}

impl Move {
    /// The state after the move, from the state `(_, ls)` before it.
    pub(crate) fn apply(&self, ls: &mut [u32]) -> u32 {
        ls[self.thread] = self.l;
        if let Some((u, _, lu)) = self.partner {
            ls[u] = lu;
        }
        self.g
    }
}

/// Every move out of `(g, ls)`, in a fixed order (threads in order, each by
/// its transitions' order, then the rendezvous), into `out`; and the first
/// run-time model error met, in `standard`'s words: a thread that cannot
/// move because one of its transitions fails, else a rendezvous that fails.
pub(crate) fn moves(exp: &mut Explorer, g: u32, ls: &[u32], out: &mut Vec<Move>) -> Option<String> {
    out.clear();
    let mut error = None;
    for (t, &l) in ls.iter().enumerate() {
        let succs = exp.successors(t, g, l);
        if let (Some((_, msg)), None) = (&succs.error, &error) {
            error = Some(format!("{} cannot move: {msg}", exp.prog.threads[t].name));
        }
        out.extend(succs.steps.iter().map(|s| Move {
            thread: t,
            trans: s.trans,
            partner: None,
            g: s.g,
            l: s.l,
        }));
    }
    if !exp.prog.channels.is_empty() {
        let (steps, sync_error) = exp.sync_steps(g, ls);
        if let (Some(msg), None) = (sync_error, &error) {
            error = Some(format!("a rendezvous cannot happen: {msg}"));
        }
        out.extend(steps.into_iter().map(|s| Move {
            thread: s.sender,
            trans: s.send_trans,
            partner: Some((s.receiver, s.recv_trans, s.l_recv)),
            g: s.g,
            l: s.l_send,
        }));
    }
    error
}

/// The properties (indices into `props`' program properties) whose error
/// predicate holds in `(g, ls)`, and the first that cannot be evaluated
/// there, as `standard` words that model error.
pub(crate) fn violated(
    exp: &Explorer,
    props: &[usize],
    g: u32,
    ls: &[u32],
) -> (Vec<usize>, Option<String>) {
    let mut holds = Vec::new();
    let mut error = None;
    for &p in props {
        let prop = &exp.prog.properties[p];
        match property::holds(&prop.error, exp, g, ls) {
            Ok(true) => holds.push(p),
            Ok(false) => {}
            Err(e) => {
                error
                    .get_or_insert_with(|| format!("evaluating property `{}`: {}", prop.name, e.0));
            }
        }
    }
    (holds, error)
}

/// Is `(g, ls)` a deadlock, as the built-in predicate `deadlock` decides
/// (model/load/deadlock.rs): directly where `Explorer::deadlocked` can,
/// else by evaluating the predicate. A state where nothing moves and that
/// is no deadlock is a valid end state (every thread rests at a final
/// location). A predicate that fails to evaluate counts as a deadlock, so
/// that a state is never called a valid end without the predicate saying so.
pub(crate) fn deadlocked(exp: &Explorer, g: u32, ls: &[u32]) -> bool {
    exp.deadlocked(g, ls)
        .unwrap_or_else(|| property::holds(&exp.prog.deadlock, exp, g, ls).unwrap_or(true))
}
