//! The compiled finite program: store layouts, thread templates with compiled
//! transitions, thread instances, properties and exception entries. Built by
//! `model::load`; read (never modified) by every engine.

pub(crate) mod access;
pub(crate) mod blocks;
pub(crate) mod cexpr;
pub(crate) mod cooperative;
pub(crate) mod deadlocked;
pub(crate) mod dense_memo;
pub(crate) mod error_state;
pub(crate) mod explore;
pub(crate) mod fire;
pub(crate) mod interner;
pub(crate) mod locks;
pub(crate) mod memo;
pub(crate) mod ops;
pub(crate) mod ranges;
pub(crate) mod rendezvous;
pub(crate) mod step_budget;
pub(crate) mod taken;

pub(crate) use cexpr::{CExpr, Ctx, EvalError, StateView, Val};
pub(crate) use error_state::ErrorState;
pub(crate) use explore::{Explorer, Succs};
pub(crate) use step_budget::{StepBudget, StepPoll};

/// The domain of one scalar (a variable or an array cell).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Domain {
    pub(crate) min: i64,
    pub(crate) max: i64,
    pub(crate) is_bool: bool,
}

impl Domain {
    pub(crate) fn contains(&self, v: i64) -> bool {
        (self.min..=self.max).contains(&v)
    }
    pub(crate) fn size(&self) -> u64 {
        (self.max - self.min + 1) as u64
    }
    pub(crate) fn describe(&self) -> String {
        if self.is_bool {
            "bool".into()
        } else {
            format!("{}..{}", self.min, self.max)
        }
    }
}

/// A variable: a scalar, or an array of `len` cells, stored in consecutive
/// slots from `slot`.
#[derive(Clone, Debug)]
pub(crate) struct Var {
    pub(crate) name: String,
    pub(crate) domain: Domain,
    pub(crate) len: Option<u32>,
    pub(crate) slot: u32,
    /// Declared `"lock": true` (a scalar global): taken and released only
    /// as `locks.rs` describes.
    pub(crate) lock: bool,
}

/// Variables laid out in slots. For local stores, slot 0 is the pc.
#[derive(Clone, Debug, Default)]
pub(crate) struct Layout {
    pub(crate) vars: Vec<Var>,
    pub(crate) slots: u32,
    /// `vars` by name, so that resolving a name costs O(1) and loading
    /// stays linear in the number of variables.
    index: std::collections::HashMap<String, usize>,
}

impl Layout {
    /// Variables laid out from slot `first_slot` on.
    pub(crate) fn starting_at(first_slot: u32) -> Layout {
        Layout {
            slots: first_slot,
            ..Layout::default()
        }
    }

    /// Appends `var`, which starts at the next free slot and takes one
    /// slot, or `len` for an array.
    pub(crate) fn push(&mut self, name: String, domain: Domain, len: Option<u32>) {
        self.index.insert(name.clone(), self.vars.len());
        self.vars.push(Var {
            name,
            domain,
            len,
            slot: self.slots,
            lock: false,
        });
        self.slots += len.unwrap_or(1);
    }

    /// Marks the last variable pushed as a lock.
    pub(crate) fn mark_last_lock(&mut self) {
        if let Some(v) = self.vars.last_mut() {
            v.lock = true;
        }
    }

    pub(crate) fn find(&self, name: &str) -> Option<&Var> {
        self.index.get(name).map(|&i| &self.vars[i])
    }
    /// Renders a store as `name=value` pairs (arrays as `[a,b,c]`).
    pub(crate) fn render(&self, store: &[Val]) -> Vec<(String, serde_json::Value)> {
        self.vars
            .iter()
            .map(|v| {
                let val = |s: u32| -> serde_json::Value {
                    let x = store[s as usize];
                    if v.domain.is_bool {
                        serde_json::Value::Bool(x != 0)
                    } else {
                        serde_json::Value::from(x)
                    }
                };
                let value = match v.len {
                    None => val(v.slot),
                    Some(n) => serde_json::Value::Array((0..n).map(|i| val(v.slot + i)).collect()),
                };
                (v.name.clone(), value)
            })
            .collect()
    }
}

/// Where an assignment writes.
#[derive(Clone, Debug)]
pub(crate) enum Target {
    Global(u32),
    Local(u32),
    /// Array cell: first slot, length, index expression.
    GlobalCell(u32, u32, CExpr),
    LocalCell(u32, u32, CExpr),
}

#[derive(Clone, Debug)]
pub(crate) struct Action {
    pub(crate) target: Target,
    /// The target variable's name and domain, for range checks and messages.
    pub(crate) var: String,
    pub(crate) domain: Domain,
    /// `None` means `any`.
    pub(crate) rhs: Option<CExpr>,
}

#[derive(Clone, Debug)]
pub(crate) struct Transition {
    /// Index of the transition within its template.
    pub(crate) index: u32,
    pub(crate) from: Vec<u16>,
    pub(crate) to: u16,
    pub(crate) guard: Option<CExpr>,
    /// The guard as written (`when`), for messages (`weft replay`).
    pub(crate) guard_source: Option<String>,
    pub(crate) actions: Vec<Action>,
    pub(crate) assert: Option<CExpr>,
    pub(crate) label: String,
    /// `threads[i].transitions[j]`, for messages.
    pub(crate) path: String,
    /// A rendezvous: the transition fires only together with a matching
    /// one of another thread (DVE's synchronous channels).
    pub(crate) sync: Option<SyncOp>,
    /// Cooperative scheduling: the events it notifies and whether the
    /// thread then waits or yields (`program/cooperative.rs`).
    pub(crate) coop: Coop,
}

/// What a transition tells the cooperative scheduler, after its `do`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Coop {
    /// Events notified (1-based ids): their waiters become runnable.
    pub(crate) notify: Vec<u32>,
    /// The thread gives the processor back.
    pub(crate) release: Option<Release>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Release {
    /// `wait e`: the thread waits for event e (1-based id).
    Wait(u32),
    /// `yield`: the thread stays runnable.
    Yield,
}

/// The scheduler state of a cooperative model, held in the global store:
/// `waiting[i]` is 0 while thread i is runnable, e while it waits for
/// event e.
#[derive(Clone, Debug)]
pub(crate) struct Scheduler {
    /// The global slot of `waiting[0]`.
    pub(crate) waiting: u32,
}

/// One side of a rendezvous on a channel.
#[derive(Clone, Debug)]
pub(crate) enum SyncOp {
    /// `c!e`: offers the value of `e` (or nothing).
    Send { channel: u32, value: Option<CExpr> },
    /// `c?x`: stores the offered value in the target (an action whose
    /// right-hand side is unused), or ignores it.
    Recv {
        channel: u32,
        target: Option<Action>,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct Template {
    pub(crate) name: String,
    pub(crate) count: u32,
    pub(crate) locations: Vec<String>,
    pub(crate) locals: Layout,
    pub(crate) start: u16,
    pub(crate) transitions: Vec<Transition>,
    /// Transitions leaving each location, by location index.
    pub(crate) outgoing: Vec<Vec<u32>>,
    /// Initial local stores (several when a local starts as `any`).
    pub(crate) init: Vec<Box<[Val]>>,
    /// Per location: a valid end state (SPIN's), where a thread may rest
    /// without its rest being a deadlock. The template's `final`, or by
    /// default the locations no transition leaves.
    pub(crate) final_locations: Vec<bool>,
}

impl Template {
    /// Renders a local store: pc name, then the locals.
    pub(crate) fn render_local(&self, l: &[Val]) -> Vec<(String, serde_json::Value)> {
        let mut out = vec![(
            "pc".to_string(),
            serde_json::Value::from(self.locations[l[0] as usize].clone()),
        )];
        out.extend(self.locals.render(l));
        out
    }
}

/// How an expression names the location `name` after `@`: as it is when it
/// is an identifier or a number written without leading zeros (`@cs`,
/// `@2`), otherwise quoted (`@'l.2'`, with `''` for a quote inside), since
/// a location may be any string. The parser in model/expr reads each back
/// to `name`; saved exception sets and printed predicates rely on that.
pub(crate) fn location_ref(name: &str) -> std::borrow::Cow<'_, str> {
    let bytes = name.as_bytes();
    let ident = bytes
        .first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        && bytes
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_');
    let number = bytes.iter().all(u8::is_ascii_digit)
        && (name == "0" || !name.starts_with('0'))
        && name.parse::<i64>().is_ok();
    if ident || number {
        name.into()
    } else {
        format!("'{}'", name.replace('\'', "''")).into()
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Thread {
    pub(crate) name: String,
    pub(crate) template: u32,
    /// 1-based position among all threads.
    pub(crate) tid: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PropertyKind {
    Error,
    Invariant,
    /// Built from the transitions' `assert` fields.
    Assertions,
}

#[derive(Clone, Debug)]
pub(crate) struct Property {
    pub(crate) name: String,
    pub(crate) kind: PropertyKind,
    /// The source text as written (for messages and reports).
    pub(crate) source: String,
    /// The error predicate (for invariants, the negation).
    pub(crate) error: CExpr,
    /// Every error state is a deadlock (the predicate is `deadlock`, or a
    /// conjunction with it): `standard` evaluates it only in states where
    /// no thread could move.
    pub(crate) only_in_deadlocks: bool,
    /// The predicate is `deadlock` itself: `standard` may decide it by
    /// `Explorer::deadlocked` instead of evaluating it.
    pub(crate) is_deadlock: bool,
}

impl Property {
    /// May evaluating the predicate fail (`access::may_fail`: a division,
    /// a shift, an index by a variable, …)? Such a failure is a model
    /// error. `deadlock`'s failures are its guards', which the steps
    /// evaluate too (a cooperative model's reads a waiting thread's guards
    /// no more than its steps do, `model/load/deadlock.rs`).
    pub(crate) fn may_fail_to_evaluate(&self) -> bool {
        !self.is_deadlock && access::may_fail(&self.error)
    }
}

/// One exception entry, compiled: a global condition and either one product
/// (per-thread local predicates) or the `one`/`others` family.
#[derive(Clone, Debug)]
pub(crate) struct ExceptionEntry {
    pub(crate) when: Option<CExpr>,
    pub(crate) shape: ExceptionShape,
}

#[derive(Clone, Debug)]
pub(crate) enum ExceptionShape {
    /// Per thread (by index), `None` = all local stores.
    Product(Vec<Option<CExpr>>),
    /// Exactly one thread of `over` (or any) satisfies `one`, every other
    /// thread of `over` satisfies `others`; threads outside `over` are free.
    OneOthers {
        one: CExpr,
        others: CExpr,
        over: Vec<u32>,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) params: Vec<(String, i64)>,
    pub(crate) globals: Layout,
    /// Initial global stores (several when a global starts as `any`).
    pub(crate) init_globals: Vec<Box<[Val]>>,
    pub(crate) templates: Vec<Template>,
    pub(crate) threads: Vec<Thread>,
    pub(crate) properties: Vec<Property>,
    pub(crate) exceptions: Vec<ExceptionEntry>,
    /// Synchronous channels (rendezvous), by name.
    pub(crate) channels: Vec<String>,
    /// The built-in predicate `deadlock` (model/load/deadlock.rs): no
    /// thread can move, and some thread rests at a location that is not
    /// final.
    pub(crate) deadlock: CExpr,
    /// `"scheduling": "cooperative"`: a step of a thread is a whole
    /// macro-step (`cooperative.rs`).
    pub(crate) scheduler: Option<Scheduler>,
    /// `"error-state"`: a transition that fails at run time leads to this
    /// state (DiVinE's semantics, `error_state.rs`) as well as being a
    /// model error.
    pub(crate) error_state: Option<ErrorState>,
}

/// Does a guard that evaluated to `value` let its transition move? One
/// that fails to evaluate does only with the program's error state
/// (`divine`), where DiVinE takes the transition, into that state; without
/// one the step is a model error, which moves nowhere.
pub(crate) fn guard_is_true(value: Result<i64, EvalError>, divine: bool) -> bool {
    match value {
        Ok(v) => v != 0,
        Err(_) => divine,
    }
}

impl Program {
    pub(crate) fn template_of(&self, thread: usize) -> &Template {
        &self.templates[self.threads[thread].template as usize]
    }
}
