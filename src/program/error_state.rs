//! DiVinE's error state (`"error-state"` in weft/1; the DVE translation
//! writes it under `--divine-errors`). DiVinE's interpreter of DVE, which
//! produced BEEM's published counts, does not drop a transition that fails
//! at run time (a value outside its type, an index out of bounds, a
//! division by zero; a guard that fails to evaluate counts as true): it
//! moves to one error state shared by the whole system, the state cleared
//! to zero with the first process at a state that does not exist
//! (`dve_explicit_system_t::go_to_error`). That state is stored and
//! expanded like any other: the first process never moves again, the
//! others go on from their first state with every variable zero.
//!
//! weft's own semantics is the model error (the transition has no
//! successor, and `model-errors` reports it); with an error state, the
//! model error is still reported, and the failing transition also leads
//! to the error state. Only `standard` explores it (`engine::check`
//! refuses the other modes and reductions).

use super::explore::Explorer;
use super::{Program, Val};

/// Where the error state puts its one distinguished thread; every other
/// thread is at its template's first location, and every variable is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ErrorState {
    pub(crate) thread: usize,
    /// A location with no outgoing transition.
    pub(crate) location: Val,
}

impl Program {
    /// The error state's stores, if the program has one: the globals and
    /// each thread's local store (its location first).
    pub(crate) fn error_stores(&self) -> Option<(Vec<Val>, Vec<Vec<Val>>)> {
        let e = self.error_state?;
        let globals = vec![0; self.globals.slots as usize];
        let locals = (0..self.threads.len())
            .map(|t| {
                let mut l = vec![0; self.template_of(t).locals.slots as usize];
                if t == e.thread {
                    l[0] = e.location;
                }
                l
            })
            .collect();
        Some((globals, locals))
    }
}

impl Explorer<'_> {
    /// The error state as interned ids (the global store, then each
    /// thread's local store), if the program has one.
    pub(crate) fn error_state(&mut self) -> Option<Vec<u32>> {
        let (g, ls) = self.prog.error_stores()?;
        let mut out = vec![self.globals.intern(&g)];
        for (t, l) in ls.iter().enumerate() {
            out.push(self.intern_local(t, l));
        }
        Some(out)
    }
}
