//! `weft convert --to promela`: a compiled `Program` as a SPIN model, to
//! cross-check weft's verdicts and state counts against SPIN.
//!
//! The encoding (docs/promela.md explains it and the state-count relation):
//!
//! - Globals stay globals. Each template's pc and locals become **global
//!   arrays indexed by instance** (`byte pc_p[N]`, `byte k_p[N]`; a local
//!   array of length L becomes `a_p[N*L]`), so that properties, which read
//!   other threads' locations and locals, are plain Promela expressions.
//! - One `proctype` per template, run once per instance with its 0-based
//!   instance index and its `tid`. Its body is `end: do :: T1 :: T2 ... od`,
//!   one option per weft transition: a `d_step` (or an `atomic` when the
//!   transition contains `x := any`, which becomes `if :: x = v1 :: ... fi`)
//!   whose guard is "the pc is at `from` and `when` holds", followed by the
//!   assignments and the pc update. Every stored SPIN state is then a weft
//!   state: pan does not store the states inside an atomic sequence.
//! - weft's run-time model errors (index out of bounds, assignment out of
//!   range, division by zero, bad shift count) become `assert`s placed just
//!   before the operation, so SPIN reports them as assertion violations.
//! - Properties: one `monitor` process, started last, whose `do` loop has one
//!   option per property, `atomic { (error) -> assert(!(error)) }`. It is
//!   enabled in exactly the error states, and pan tries every enabled
//!   process in every stored state, so an error state is found iff it is
//!   reachable.
//! - `init` sets the initial values chosen by `init: "any"` (nondeterministic
//!   `if`) and runs the processes, all inside one `atomic`.

mod bounds;
mod decl;
mod expr;
mod model;
mod names;
mod transition;

use crate::program::{CExpr, Program};
use std::cell::Cell;

/// SPIN runs at most 255 processes; two are `init` and the monitor.
pub(crate) const MAX_THREADS: usize = 253;

#[derive(Clone, Debug, Default)]
pub(crate) struct Options {
    /// Property names to export; empty means all. Model errors are always
    /// checked (they are asserts in the process code).
    pub(crate) properties: Vec<String>,
}

/// The exported model and what the user should know about it.
#[derive(Clone, Debug)]
pub(crate) struct Export {
    pub(crate) text: String,
    pub(crate) warnings: Vec<String>,
}

/// Why a model cannot be exported; the text is what `weft convert` prints
/// after `error: `.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `Options::properties` names a property the model does not have (the
    /// message lists the ones it has).
    #[error("{0}")]
    UnknownProperty(String),
    /// More threads than SPIN can run.
    #[error(
        "the model has {threads} threads; SPIN runs at most 255 processes, so at most {max} threads can be exported (init and the monitor are the other two)",
        max = MAX_THREADS
    )]
    TooManyThreads {
        /// The model's thread count.
        threads: usize,
    },
    /// A transition synchronises on a channel.
    #[error(
        "{path} (`{label}`) is a rendezvous on a channel; the Promela export does not support rendezvous yet"
    )]
    Rendezvous {
        /// Where in the model.
        path: String,
        /// The transition's label.
        label: String,
    },
    /// A property uses `deadlock` inside a larger predicate.
    #[error(
        "property `{0}` uses `deadlock` inside a larger predicate; the Promela export checks deadlocks only as a property of its own (`\"error\": \"deadlock\"`, pan's invalid end states)"
    )]
    DeadlockInPredicate(String),
    /// A cooperative model: its macro-steps have no translation yet.
    #[error(
        "the model is cooperative (\"scheduling\": \"cooperative\"); the Promela export does not translate its macro-steps yet"
    )]
    Cooperative,
    /// A bug in the exporter: an expression where the compiler never puts it.
    #[error("internal: {0}")]
    Internal(&'static str),
}

/// Exports `prog` as a Promela model. Errors: an unknown property name, more
/// threads than SPIN can run, a rendezvous (not supported yet).
pub(crate) fn to_promela(prog: &Program, opts: &Options) -> Result<Export, Error> {
    crate::engine::check_property_names(prog, &opts.properties)
        .map_err(|e| Error::UnknownProperty(e.to_string()))?;
    for p in &prog.properties {
        let selected = opts.properties.is_empty() || opts.properties.contains(&p.name);
        if selected && p.error != prog.deadlock && mentions(&p.error, &prog.deadlock) {
            return Err(Error::DeadlockInPredicate(p.name.clone()));
        }
    }
    if prog.scheduler.is_some() {
        return Err(Error::Cooperative);
    }
    if prog.threads.len() > MAX_THREADS {
        return Err(Error::TooManyThreads {
            threads: prog.threads.len(),
        });
    }
    let synced = prog
        .templates
        .iter()
        .flat_map(|t| &t.transitions)
        .find(|tr| tr.sync.is_some());
    if let Some(tr) = synced {
        return Err(Error::Rendezvous {
            path: tr.path.clone(),
            label: tr.label.clone(),
        });
    }
    let mut ex = Exporter::new(prog);
    let text = ex.model(opts)?;
    Ok(Export {
        text,
        warnings: ex.warnings,
    })
}

/// The Promela names of one template.
struct TplNames {
    proc: String,
    pc: String,
    /// Per local variable (in layout order): the global array holding it.
    locals: Vec<String>,
    /// Per local slot: (variable index, offset in the variable); slot 0 is
    /// the pc.
    slot: Vec<(usize, u32)>,
    /// First thread index of the template (`tid` is this plus the instance
    /// index plus one).
    first: usize,
}

/// Which thread an expression is about.
#[derive(Clone, Copy)]
enum Who {
    /// Inside the proctype of this template: the instance is the parameter.
    Proc(usize),
    /// One concrete thread (a `count` body, a named instance).
    Thread(usize),
    /// No thread (properties outside counts).
    Global,
}

/// One export in progress: the model, the Promela name of everything in it,
/// and the warnings so far.
struct Exporter<'p> {
    prog: &'p Program,
    globals: Vec<String>,
    /// Per global slot: (variable index, offset).
    gslot: Vec<(usize, u32)>,
    tpls: Vec<TplNames>,
    /// Per thread: (template, 0-based instance index).
    inst: Vec<(usize, u32)>,
    /// The proctype parameters.
    p_inst: String,
    p_tid: String,
    monitor: String,
    /// Set when some value may leave SPIN's 32-bit `int`.
    wide: Cell<bool>,
    warnings: Vec<String>,
}

/// Does `e` contain `part` as a subexpression?
fn mentions(e: &CExpr, part: &CExpr) -> bool {
    let mut found = false;
    e.visit(&mut |x| found |= x == part);
    found
}
