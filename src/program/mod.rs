//! The compiled finite program: store layouts, thread templates with compiled
//! transitions, thread instances, properties and exception entries. Built by
//! `model::load`; read (never modified) by every engine.

pub mod cexpr;
pub mod explore;
pub mod ops;
pub mod ranges;

pub use cexpr::{CExpr, Ctx, EvalError, StateView, Val};
pub use explore::{Explorer, Succs};

/// The domain of one scalar (a variable or an array cell).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Domain {
    pub min: i64,
    pub max: i64,
    pub is_bool: bool,
}

impl Domain {
    pub fn contains(&self, v: i64) -> bool {
        (self.min..=self.max).contains(&v)
    }
    pub fn size(&self) -> u64 {
        (self.max - self.min + 1) as u64
    }
    pub fn describe(&self) -> String {
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
pub struct Var {
    pub name: String,
    pub domain: Domain,
    pub len: Option<u32>,
    pub slot: u32,
}

/// Variables laid out in slots. For local stores, slot 0 is the pc.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    pub vars: Vec<Var>,
    pub slots: u32,
}

impl Layout {
    pub fn find(&self, name: &str) -> Option<&Var> {
        self.vars.iter().find(|v| v.name == name)
    }
    /// Renders a store as `name=value` pairs (arrays as `[a,b,c]`).
    pub fn render(&self, store: &[Val]) -> Vec<(String, serde_json::Value)> {
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
pub enum Target {
    Global(u32),
    Local(u32),
    /// Array cell: first slot, length, index expression.
    GlobalCell(u32, u32, CExpr),
    LocalCell(u32, u32, CExpr),
}

#[derive(Clone, Debug)]
pub struct Action {
    pub target: Target,
    /// The target variable's name and domain, for range checks and messages.
    pub var: String,
    pub domain: Domain,
    /// `None` means `any`.
    pub rhs: Option<CExpr>,
}

#[derive(Clone, Debug)]
pub struct Transition {
    /// Index of the transition within its template.
    pub index: u32,
    pub from: Vec<u16>,
    pub to: u16,
    pub guard: Option<CExpr>,
    pub actions: Vec<Action>,
    pub assert: Option<CExpr>,
    pub label: String,
    /// `threads[i].transitions[j]`, for messages.
    pub path: String,
    /// A rendezvous: the transition fires only together with a matching
    /// one of another thread (DVE's synchronous channels).
    pub sync: Option<SyncOp>,
}

/// One side of a rendezvous on a channel.
#[derive(Clone, Debug)]
pub enum SyncOp {
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
pub struct Template {
    pub name: String,
    pub count: u32,
    pub locations: Vec<String>,
    pub groups: Vec<(String, Vec<u16>)>,
    pub locals: Layout,
    pub start: u16,
    pub transitions: Vec<Transition>,
    /// Transitions leaving each location, by location index.
    pub outgoing: Vec<Vec<u32>>,
    /// Initial local stores (several when a local starts as `any`).
    pub init: Vec<Box<[Val]>>,
}

impl Template {
    /// Renders a local store: pc name, then the locals.
    pub fn render_local(&self, l: &[Val]) -> Vec<(String, serde_json::Value)> {
        let mut out = vec![(
            "pc".to_string(),
            serde_json::Value::from(self.locations[l[0] as usize].clone()),
        )];
        out.extend(self.locals.render(l));
        out
    }
    /// Compact text form: `loc` or `loc(k=1,j=0)`.
    pub fn show_local(&self, l: &[Val]) -> String {
        let loc = &self.locations[l[0] as usize];
        if self.locals.vars.is_empty() {
            return loc.clone();
        }
        let vars: Vec<String> = self
            .locals
            .render(l)
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("{loc}({})", vars.join(","))
    }
}

#[derive(Clone, Debug)]
pub struct Thread {
    pub name: String,
    pub template: u32,
    /// 1-based position among all threads.
    pub tid: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropertyKind {
    Error,
    Invariant,
    /// Built from the transitions' `assert` fields.
    Assertions,
}

#[derive(Clone, Debug)]
pub struct Property {
    pub name: String,
    pub kind: PropertyKind,
    /// The source text as written (for messages and reports).
    pub source: String,
    /// The error predicate (for invariants, the negation).
    pub error: CExpr,
}

/// One exception entry, compiled: a global condition and either one product
/// (per-thread local predicates) or the `one`/`others` family.
#[derive(Clone, Debug)]
pub struct ExceptionEntry {
    pub when: Option<CExpr>,
    pub shape: ExceptionShape,
    pub path: String,
}

#[derive(Clone, Debug)]
pub enum ExceptionShape {
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
pub struct Program {
    pub name: String,
    pub description: String,
    pub params: Vec<(String, i64)>,
    pub globals: Layout,
    /// Initial global stores (several when a global starts as `any`).
    pub init_globals: Vec<Box<[Val]>>,
    pub templates: Vec<Template>,
    pub threads: Vec<Thread>,
    pub properties: Vec<Property>,
    pub exceptions: Vec<ExceptionEntry>,
    /// Synchronous channels (rendezvous), by name.
    pub channels: Vec<String>,
}

impl Program {
    pub fn template_of(&self, thread: usize) -> &Template {
        &self.templates[self.threads[thread].template as usize]
    }
    /// Compact text of a global store: `x=1 y=0 turn=1`.
    pub fn show_global(&self, g: &[Val]) -> String {
        self.globals
            .render(g)
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}
