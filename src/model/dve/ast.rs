//! The DVE syntax tree the parser builds: expressions, variables,
//! transitions, processes and channels, each with where it is in the text.

use crate::model::expr::Span;

#[derive(Clone, Debug)]
pub(super) enum DExpr {
    Num(i64),
    Var(String),
    Index(String, Box<DExpr>),
    Un(&'static str, Box<DExpr>),
    Bin(&'static str, Box<DExpr>, Box<DExpr>),
    /// `P.s` (process `P` is at state `s`) or `P.v` / `P.v[i]` (a local of
    /// `P`), at byte offset `at`: a read of another process's state.
    Remote {
        process: String,
        member: String,
        index: Option<Box<DExpr>>,
        at: usize,
    },
}

pub(super) struct DVar {
    pub(super) name: String,
    pub(super) is_int: bool,
    pub(super) len: Option<i64>,
    pub(super) init: Vec<DExpr>,
    pub(super) at: usize,
}

pub(super) struct DTrans {
    pub(super) from: String,
    pub(super) to: String,
    pub(super) guard: Option<DExpr>,
    /// `sync c!e` (true, value) or `sync c?x` (false, target).
    pub(super) sync: Option<(String, bool, Option<DExpr>)>,
    pub(super) effects: Vec<(DExpr, DExpr)>,
    /// Where `from -> to`, the guard, the sync and the effects are.
    pub(super) head: Span,
    pub(super) guard_at: Option<Span>,
    pub(super) sync_at: Option<Span>,
    pub(super) effects_at: Option<Span>,
}

pub(super) struct DProc {
    pub(super) name: String,
    pub(super) at: usize,
    pub(super) locals: Vec<DVar>,
    pub(super) states: Vec<(String, usize)>,
    pub(super) init: String,
    pub(super) init_at: usize,
    pub(super) trans: Vec<DTrans>,
}

/// A channel: synchronous (rendezvous) when `buffer` is 0, else a FIFO of
/// `buffer` values of one type (`is_int`: int, else byte).
pub(super) struct DChannel {
    pub(super) name: String,
    pub(super) at: usize,
    pub(super) buffer: i64,
    pub(super) is_int: bool,
}
