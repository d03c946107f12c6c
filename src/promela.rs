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

use crate::model::expr::{BinOp, UnOp};
use crate::program::{Action, CExpr, Domain, Program, PropertyKind, Target, Val};
use std::cell::Cell;
use std::collections::HashSet;
use std::fmt::Write as _;

/// SPIN runs at most 255 processes; two are `init` and the monitor.
pub const MAX_THREADS: usize = 253;

/// Above this many values, `x := any` is a loop instead of an `if`.
const MAX_IF_VALUES: u64 = 256;

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Property names to export; empty means all. Model errors are always
    /// checked (they are asserts in the process code).
    pub properties: Vec<String>,
}

/// The exported model and what the user should know about it.
#[derive(Clone, Debug)]
pub struct Export {
    pub text: String,
    pub warnings: Vec<String>,
}

/// Exports `prog` as a Promela model. Errors: an unknown property name, more
/// threads than SPIN can run, a rendezvous (not supported yet).
pub fn to_promela(prog: &Program, opts: &Options) -> Result<Export, String> {
    crate::engine::check_property_names(prog, &opts.properties).map_err(|e| e.to_string())?;
    if prog.threads.len() > MAX_THREADS {
        return Err(format!(
            "the model has {} threads; SPIN runs at most 255 processes, so at most {MAX_THREADS} threads can be exported (init and the monitor are the other two)",
            prog.threads.len()
        ));
    }
    let synced = prog
        .templates
        .iter()
        .flat_map(|t| &t.transitions)
        .find(|tr| tr.sync.is_some());
    if let Some(tr) = synced {
        return Err(format!(
            "{} (`{}`) is a rendezvous on a channel; the Promela export does not support rendezvous yet",
            tr.path, tr.label
        ));
    }
    let mut ex = Exporter::new(prog);
    let text = ex.model(opts)?;
    Ok(Export {
        text,
        warnings: ex.warnings,
    })
}

/// Promela keywords, C keywords and identifiers of SPIN's generated
/// verifier (pan.c) that a model name must not take (space-separated).
const RESERVED: &[&str] = &[
    // Promela
    "active assert atomic bit bool break byte chan d_step D_proctype do else empty",
    "enabled eval false fi for full get_priority goto hidden if in init inline int len",
    "local ltl mtype nempty never nfull notrace np_ od of pc_value pid print printf",
    "printm priority proctype provided run select set_priority short show skip timeout",
    "trace true typedef unless unsigned xr xs c_code c_decl c_expr c_state c_track end",
    "accept progress always eventually until weak stronger implies equivalent release",
    "STDIN _ _pid _nr_pr _last _priority _p",
    // C
    "auto case char const continue default double enum extern float long register",
    "restrict return signed sizeof static struct switch union void volatile while main",
    // pan.c
    "now uchar ushort uint ulong VECTORSZ MEMLIM SAFETY NOREDUCE BFS MAXPROC MAXQ NCORE",
    "BASE HASH COLLAPSE BITSTATE VERI SYNC ASYNC GLOBAL LOCAL VERBOSE DEBUG NOCOMP NOFAIR",
    "NFAIR FULLSTACK CNTRSTACK MA W_XPT HC HC4 PMAX QMAX WS TRANSITIONS Index cas",
    "enter_critical leave_critical final mix rot max wasnew pptr qptr q_sz grab_state",
    "getframe iam_alive onstack_now onstack_put onstack_zap get16bits get_permuted",
    "Offsetof Addproc INRANGE BAD CHECK QUIT CONTINUE DELTA MERGED NTRANS LONG_T SHORT_T",
    "OFFT Pinit Pclaim Uerror uerror depth trpt tt ot II JJ From To",
];

/// Allocates Promela names: the wanted name if it is free, else `name_1`,
/// `name_2`, ...
#[derive(Default)]
struct Names {
    used: HashSet<String>,
}

impl Names {
    fn new() -> Names {
        Names {
            used: RESERVED
                .iter()
                .flat_map(|s| s.split_whitespace())
                .map(str::to_string)
                .collect(),
        }
    }
    fn fresh(&mut self, want: &str) -> String {
        // Leading underscores are SPIN's and the C compiler's.
        let base = if want.starts_with('_') {
            format!("w{want}")
        } else {
            want.to_string()
        };
        let mut name = base.clone();
        let mut k = 1;
        while self.used.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.used.insert(name.clone());
        name
    }
    /// A proctype name: pan also defines `P<name>` as a macro.
    fn fresh_proc(&mut self, want: &str) -> String {
        loop {
            let name = self.fresh(want);
            if self.used.insert(format!("P{name}")) {
                return name;
            }
        }
    }
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

type Range = (i128, i128);

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

/// Per slot of a layout: (variable index, offset in the variable). Slot 0
/// of a local layout (the pc) belongs to no variable.
fn slots_of(vars: &[crate::program::Var], slots: u32) -> Vec<(usize, u32)> {
    let mut out = vec![(usize::MAX, 0); slots as usize];
    for (vi, v) in vars.iter().enumerate() {
        for k in 0..v.len.unwrap_or(1) {
            out[(v.slot + k) as usize] = (vi, k);
        }
    }
    out
}

/// Promela type of a scalar of this domain.
fn ptype(d: &Domain) -> &'static str {
    if d.is_bool {
        "bool"
    } else if d.min >= 0 && d.max <= 1 {
        "bit"
    } else if d.min >= 0 && d.max <= 255 {
        "byte"
    } else if d.min >= i16::MIN as i64 && d.max <= i16::MAX as i64 {
        "short"
    } else {
        "int"
    }
}

fn pc_type(locations: usize) -> &'static str {
    if locations <= 256 { "byte" } else { "short" }
}

/// Text safe inside a `/* */` comment, on one line.
fn comment(s: &str) -> String {
    s.replace("*/", "* /")
        .replace("/*", "/ *")
        .replace(['\n', '\r'], " ")
}

fn num(v: i64) -> String {
    if v < 0 {
        format!("({v})")
    } else {
        v.to_string()
    }
}

fn conj(parts: &[String]) -> String {
    match parts {
        [] => "true".into(),
        [one] => one.clone(),
        _ => format!("({})", parts.join(" && ")),
    }
}

fn sat(v: i128) -> i128 {
    v.clamp(-(1i128 << 100), 1i128 << 100)
}

/// Smallest k with |v| < 2^k.
fn bits(v: i128) -> u32 {
    128 - v.unsigned_abs().leading_zeros()
}

impl<'p> Exporter<'p> {
    fn new(prog: &'p Program) -> Exporter<'p> {
        let mut names = Names::new();
        let globals: Vec<String> = prog
            .globals
            .vars
            .iter()
            .map(|v| names.fresh(&v.name))
            .collect();
        let gslot = slots_of(&prog.globals.vars, prog.globals.slots);
        let mut tpls = Vec::new();
        let mut first = 0usize;
        for t in &prog.templates {
            let proc = names.fresh_proc(&t.name);
            let pc = names.fresh(&format!("pc_{}", t.name));
            let locals = t
                .locals
                .vars
                .iter()
                .map(|v| names.fresh(&format!("{}_{}", v.name, t.name)))
                .collect();
            tpls.push(TplNames {
                proc,
                pc,
                locals,
                slot: slots_of(&t.locals.vars, t.locals.slots),
                first,
            });
            first += t.count as usize;
        }
        let mut inst = Vec::new();
        for th in &prog.threads {
            let t = th.template as usize;
            let k = prog.threads[..inst.len()]
                .iter()
                .filter(|o| o.template == th.template)
                .count() as u32;
            inst.push((t, k));
        }
        let monitor = names.fresh_proc("monitor");
        let p_inst = names.fresh("i");
        let p_tid = names.fresh("tid");
        Exporter {
            prog,
            globals,
            gslot,
            tpls,
            inst,
            p_inst,
            p_tid,
            monitor,
            wide: Cell::new(false),
            warnings: Vec::new(),
        }
    }

    fn template_of(&self, who: Who) -> Option<usize> {
        match who {
            Who::Proc(t) => Some(t),
            Who::Thread(th) => Some(self.inst[th].0),
            Who::Global => None,
        }
    }

    /// The instance index as Promela text.
    fn instance(&self, who: Who) -> Result<String, String> {
        match who {
            Who::Proc(_) => Ok(self.p_inst.clone()),
            Who::Thread(th) => Ok(self.inst[th].1.to_string()),
            Who::Global => Err("internal: a thread-local expression outside any thread".into()),
        }
    }

    fn pc(&self, who: Who) -> Result<String, String> {
        let t = self
            .template_of(who)
            .ok_or("internal: `@L` outside any thread")?;
        Ok(format!("{}[{}]", self.tpls[t].pc, self.instance(who)?))
    }

    /// A local cell: variable `vi` of template `t`, cell `cell` (text, for
    /// arrays) of instance `inst`.
    fn local_ref(&self, t: usize, vi: usize, inst: &str, cell: Option<&str>) -> String {
        let var = &self.prog.templates[t].locals.vars[vi];
        let name = &self.tpls[t].locals[vi];
        match (var.len, cell) {
            (Some(len), Some(c)) => match (inst.parse::<u64>(), c.parse::<u64>()) {
                (Ok(k), Ok(j)) => format!("{name}[{}]", k * len as u64 + j),
                (Ok(0), Err(_)) => format!("{name}[{c}]"),
                (Ok(k), Err(_)) => format!("{name}[{} + {c}]", k * len as u64),
                (Err(_), _) => format!("{name}[{inst} * {len} + {c}]"),
            },
            (Some(len), None) => format!("{name}[{inst} * {len}]"),
            (None, _) => format!("{name}[{inst}]"),
        }
    }

    fn local_slot(&self, who: Who, slot: u32) -> Result<String, String> {
        let t = self
            .template_of(who)
            .ok_or("internal: a local outside any thread")?;
        if slot == 0 {
            return self.pc(who);
        }
        let (vi, off) = self.tpls[t].slot[slot as usize];
        let cell = off.to_string();
        let has_len = self.prog.templates[t].locals.vars[vi].len.is_some();
        Ok(self.local_ref(
            t,
            vi,
            &self.instance(who)?,
            has_len.then_some(cell.as_str()),
        ))
    }

    fn local_cell(&self, who: Who, base: u32, idx: &str) -> Result<String, String> {
        let t = self
            .template_of(who)
            .ok_or("internal: a local outside any thread")?;
        let (vi, _) = self.tpls[t].slot[base as usize];
        Ok(self.local_ref(t, vi, &self.instance(who)?, Some(idx)))
    }

    fn global_slot(&self, slot: u32) -> String {
        let (vi, off) = self.gslot[slot as usize];
        match self.prog.globals.vars[vi].len {
            Some(_) => format!("{}[{off}]", self.globals[vi]),
            None => self.globals[vi].clone(),
        }
    }

    fn global_cell(&self, base: u32, idx: &str) -> String {
        let (vi, _) = self.gslot[base as usize];
        format!("{}[{idx}]", self.globals[vi])
    }

    /// `pc` is in the set `mask`.
    fn at(pc: &str, mask: &[bool]) -> String {
        let on: Vec<usize> = (0..mask.len()).filter(|&i| mask[i]).collect();
        if on.is_empty() {
            return "false".into();
        }
        if on.len() == mask.len() {
            return "true".into();
        }
        let contiguous = on.windows(2).all(|w| w[1] == w[0] + 1);
        if on.len() == 1 {
            format!("({pc} == {})", on[0])
        } else if contiguous && on.len() > 2 {
            format!("({pc} >= {} && {pc} <= {})", on[0], on[on.len() - 1])
        } else {
            let parts: Vec<String> = on.iter().map(|i| format!("{pc} == {i}")).collect();
            format!("({})", parts.join(" || "))
        }
    }

    /// The Promela text of an expression (fully parenthesised).
    fn expr(&self, e: &CExpr, who: Who) -> Result<String, String> {
        Ok(match e {
            CExpr::Const(v) => num(*v),
            CExpr::Global(s) => self.global_slot(*s),
            CExpr::Local(s) => self.local_slot(who, *s)?,
            CExpr::GlobalCell(base, _, _, i) => self.global_cell(*base, &self.expr(i, who)?),
            CExpr::LocalCell(base, _, _, i) => self.local_cell(who, *base, &self.expr(i, who)?)?,
            CExpr::Tid => match who {
                Who::Proc(_) => self.p_tid.clone(),
                Who::Thread(th) => self.prog.threads[th].tid.to_string(),
                Who::Global => return Err("internal: `tid` outside any thread".into()),
            },
            CExpr::At(masks) => {
                let t = self
                    .template_of(who)
                    .ok_or("internal: `@L` outside any thread")?;
                Self::at(&self.pc(who)?, &masks[t])
            }
            CExpr::Un(op, a) => {
                let a = self.expr(a, who)?;
                match op {
                    UnOp::Not => format!("(!{a})"),
                    UnOp::Neg => format!("(-{a})"),
                    UnOp::BitNot => format!("(~{a})"),
                    UnOp::ToInt => a,
                }
            }
            CExpr::Bin(op, a, b) => {
                let (a, b) = (self.expr(a, who)?, self.expr(b, who)?);
                match op {
                    BinOp::Implies => format!("((!{a}) || {b})"),
                    _ => format!("({a} {} {b})", op.symbol()),
                }
            }
            CExpr::InstLocal(th, s) => self.local_slot(Who::Thread(*th as usize), *s)?,
            CExpr::InstLocalCell(th, base, _, _, i) => {
                self.local_cell(Who::Thread(*th as usize), *base, &self.expr(i, who)?)?
            }
            CExpr::InstAt(th, mask) => Self::at(&self.pc(Who::Thread(*th as usize))?, mask),
            CExpr::Count(threads, body) => {
                if threads.is_empty() {
                    return Ok("0".into());
                }
                let terms = threads
                    .iter()
                    .map(|&t| {
                        Ok(format!(
                            "({} -> 1 : 0)",
                            self.expr(body, Who::Thread(t as usize))?
                        ))
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                format!("({})", terms.join(" + "))
            }
            CExpr::Term(_) => return Err("internal: a precomputed term in a model".into()),
        })
    }

    fn local_domain(&self, who: Who, slot: u32) -> Range {
        let Some(t) = self.template_of(who) else {
            return (i32::MIN as i128, i32::MAX as i128);
        };
        if slot == 0 {
            return (0, self.prog.templates[t].locations.len() as i128 - 1);
        }
        let (vi, _) = self.tpls[t].slot[slot as usize];
        let d = self.prog.templates[t].locals.vars[vi].domain;
        (d.min as i128, d.max as i128)
    }

    fn global_domain(&self, slot: u32) -> Range {
        let d = self.prog.globals.vars[self.gslot[slot as usize].0].domain;
        (d.min as i128, d.max as i128)
    }

    /// An interval containing every value `e` can take (in reachable or
    /// unreachable states alike); flags values outside 32 bits.
    fn range(&self, e: &CExpr, who: Who) -> Range {
        let r = self.range_raw(e, who);
        if r.0 < i32::MIN as i128 || r.1 > i32::MAX as i128 {
            self.wide.set(true);
        }
        r
    }

    fn range_raw(&self, e: &CExpr, who: Who) -> Range {
        match e {
            CExpr::Const(v) => (*v as i128, *v as i128),
            CExpr::Global(s) => self.global_domain(*s),
            CExpr::GlobalCell(base, _, _, i) => {
                self.range(i, who);
                self.global_domain(*base)
            }
            CExpr::Local(s) => self.local_domain(who, *s),
            CExpr::LocalCell(base, _, _, i) => {
                self.range(i, who);
                self.local_domain(who, *base)
            }
            CExpr::InstLocal(th, s) => self.local_domain(Who::Thread(*th as usize), *s),
            CExpr::InstLocalCell(th, base, _, _, i) => {
                self.range(i, who);
                self.local_domain(Who::Thread(*th as usize), *base)
            }
            CExpr::Tid => match who {
                Who::Proc(t) => {
                    let f = self.tpls[t].first as i128;
                    (f + 1, f + self.prog.templates[t].count as i128)
                }
                Who::Thread(th) => {
                    let tid = self.prog.threads[th].tid as i128;
                    (tid, tid)
                }
                Who::Global => (1, self.prog.threads.len() as i128),
            },
            CExpr::At(_) | CExpr::InstAt(..) => (0, 1),
            CExpr::Count(threads, body) => {
                for &t in threads.iter() {
                    self.range(body, Who::Thread(t as usize));
                }
                (0, threads.len() as i128)
            }
            CExpr::Term(_) => (i64::MIN as i128, i64::MAX as i128),
            CExpr::Un(op, a) => {
                let (lo, hi) = self.range(a, who);
                match op {
                    UnOp::Not => (0, 1),
                    UnOp::Neg => (-hi, -lo),
                    UnOp::BitNot => (-hi - 1, -lo - 1),
                    UnOp::ToInt => (lo, hi),
                }
            }
            CExpr::Bin(op, a, b) => {
                let (xl, xh) = self.range(a, who);
                let (yl, yh) = self.range(b, who);
                let mx = xl.abs().max(xh.abs());
                let my = yl.abs().max(yh.abs());
                let signed = |m: i128| {
                    let k = bits(m);
                    (-(1i128 << k), (1i128 << k) - 1)
                };
                match op {
                    BinOp::Add => (sat(xl + yl), sat(xh + yh)),
                    BinOp::Sub => (sat(xl - yh), sat(xh - yl)),
                    BinOp::Mul => {
                        let c = [
                            xl.saturating_mul(yl),
                            xl.saturating_mul(yh),
                            xh.saturating_mul(yl),
                            xh.saturating_mul(yh),
                        ]
                        .map(sat);
                        (
                            c.into_iter().min().unwrap_or(0),
                            c.into_iter().max().unwrap_or(0),
                        )
                    }
                    BinOp::Div => {
                        if xl >= 0 && yl >= 0 {
                            (0, xh)
                        } else {
                            (-mx, mx)
                        }
                    }
                    BinOp::Rem => {
                        let m = mx.min((my - 1).max(0));
                        if xl >= 0 { (0, m) } else { (-m, m) }
                    }
                    BinOp::BitAnd => match (xl >= 0, yl >= 0) {
                        (true, true) => (0, xh.min(yh)),
                        (true, false) => (0, xh),
                        (false, true) => (0, yh),
                        (false, false) => signed(mx.max(my)),
                    },
                    BinOp::BitOr | BinOp::BitXor => {
                        if xl >= 0 && yl >= 0 {
                            (0, (1i128 << bits(xh.max(yh))) - 1)
                        } else {
                            signed(mx.max(my))
                        }
                    }
                    BinOp::Shl => {
                        let k = yh.clamp(0, 62) as u32;
                        (
                            sat(xl.min(0).saturating_mul(1 << k)),
                            sat(xh.max(0).saturating_mul(1 << k)),
                        )
                    }
                    BinOp::Shr => (xl.min(0), xh.max(0)),
                    BinOp::Eq
                    | BinOp::Ne
                    | BinOp::Lt
                    | BinOp::Le
                    | BinOp::Gt
                    | BinOp::Ge
                    | BinOp::And
                    | BinOp::Or
                    | BinOp::Implies => (0, 1),
                }
            }
        }
    }

    /// `0 <= i < len`, unless the range of `i` proves it.
    fn bound(&self, i: &CExpr, len: u32, who: Who) -> Result<Vec<String>, String> {
        let (lo, hi) = self.range(i, who);
        if lo >= 0 && hi < len as i128 {
            return Ok(Vec::new());
        }
        let t = self.expr(i, who)?;
        let mut out = Vec::new();
        if lo < 0 {
            out.push(format!("({t} >= 0)"));
        }
        if hi >= len as i128 {
            out.push(format!("({t} < {len})"));
        }
        Ok(out)
    }

    /// The top-level conjuncts of `e`, as text.
    fn conjuncts(&self, e: &CExpr, who: Who, out: &mut Vec<String>) -> Result<(), String> {
        match e {
            CExpr::Bin(BinOp::And, a, b) => {
                self.conjuncts(a, who, out)?;
                self.conjuncts(b, who, out)
            }
            _ => {
                out.push(self.expr(e, who)?);
                Ok(())
            }
        }
    }

    /// The conditions under which evaluating `e` raises no model error, as
    /// conjuncts (empty: never fails). Each conjunct only reads what weft's
    /// evaluation reads before it, so it is itself safe to evaluate.
    fn def(&self, e: &CExpr, who: Who) -> Result<Vec<String>, String> {
        Ok(match e {
            CExpr::Const(_)
            | CExpr::Global(_)
            | CExpr::Local(_)
            | CExpr::Tid
            | CExpr::At(_)
            | CExpr::InstLocal(..)
            | CExpr::InstAt(..)
            | CExpr::Term(_) => Vec::new(),
            CExpr::GlobalCell(_, len, _, i)
            | CExpr::LocalCell(_, len, _, i)
            | CExpr::InstLocalCell(_, _, len, _, i) => {
                let mut d = self.def(i, who)?;
                d.extend(self.bound(i, *len, who)?);
                d
            }
            CExpr::Un(_, a) => self.def(a, who)?,
            CExpr::Count(threads, body) => {
                let mut d = Vec::new();
                for &t in threads.iter() {
                    d.extend(self.def(body, Who::Thread(t as usize))?);
                }
                d
            }
            CExpr::Bin(op, a, b) => {
                let mut d = self.def(a, who)?;
                let mut db = self.def(b, who)?;
                if matches!(op, BinOp::And | BinOp::Implies) && !db.is_empty() {
                    // `i < 3 && a[i] == 0`: what `a` guarantees need not be checked.
                    let mut known = Vec::new();
                    self.conjuncts(a, who, &mut known)?;
                    db.retain(|c| !known.contains(c));
                }
                match op {
                    BinOp::And | BinOp::Implies if !db.is_empty() => {
                        d.push(format!("((!{}) || {})", self.expr(a, who)?, conj(&db)));
                    }
                    BinOp::Or if !db.is_empty() => {
                        d.push(format!("({} || {})", self.expr(a, who)?, conj(&db)));
                    }
                    BinOp::And | BinOp::Implies | BinOp::Or => {}
                    BinOp::Div | BinOp::Rem => {
                        d.extend(db);
                        let (lo, hi) = self.range(b, who);
                        if lo <= 0 && 0 <= hi {
                            d.push(format!("({} != 0)", self.expr(b, who)?));
                        }
                    }
                    BinOp::Shl | BinOp::Shr => {
                        d.extend(db);
                        let (lo, hi) = self.range(b, who);
                        if lo < 0 || hi > 62 {
                            let t = self.expr(b, who)?;
                            d.push(format!("({t} >= 0 && {t} <= 62)"));
                        }
                    }
                    _ => d.extend(db),
                }
                d
            }
        })
    }

    fn model(&mut self, opts: &Options) -> Result<String, String> {
        let prog = self.prog;
        let mut out = String::new();
        self.header(&mut out);

        // Declarations, and the initial assignments `init` must make.
        let mut init_code: Vec<String> = Vec::new();
        out.push_str("/* Globals. */\n");
        if prog.globals.vars.is_empty() {
            out.push_str("/* (none) */\n");
        }
        let gsets = slot_sets(&prog.init_globals, prog.globals.slots as usize);
        let gproduct = is_product(&gsets, prog.init_globals.len());
        for (vi, v) in prog.globals.vars.iter().enumerate() {
            let cells: Vec<(String, Vec<Val>)> = (0..v.len.unwrap_or(1))
                .map(|k| {
                    let target = match v.len {
                        Some(_) => format!("{}[{k}]", self.globals[vi]),
                        None => self.globals[vi].clone(),
                    };
                    (target, gsets[(v.slot + k) as usize].clone())
                })
                .collect();
            let decl = declare(
                &self.globals[vi],
                &v.domain,
                v.len,
                &cells,
                gproduct,
                &mut init_code,
            );
            let _ = writeln!(out, "{decl}\t/* {} */", describe(&v.domain, v.len));
        }
        if !gproduct {
            init_code.push(store_choice(
                &prog.init_globals,
                &(0..prog.globals.slots)
                    .map(|s| self.global_slot(s))
                    .collect::<Vec<_>>(),
            ));
        }

        for (t, tpl) in prog.templates.iter().enumerate() {
            let names = &self.tpls[t];
            let n = tpl.count;
            if n == 0 {
                let _ = writeln!(
                    out,
                    "\n/* Template {}: no instances, nothing declared. */",
                    comment(&tpl.name)
                );
                continue;
            }
            let _ = writeln!(
                out,
                "\n/* Template {}: {n} instance(s), tid {}..{}; pc and locals are arrays indexed by the 0-based instance. */",
                comment(&tpl.name),
                names.first + 1,
                names.first + n as usize
            );
            let locs: Vec<String> = tpl
                .locations
                .iter()
                .enumerate()
                .map(|(i, l)| format!("{i} = {}", comment(l)))
                .collect();
            let _ = writeln!(out, "/* Locations: {}. */", locs.join(", "));
            let _ = writeln!(
                out,
                "{} {}[{n}] = {};\t/* pc */",
                pc_type(tpl.locations.len()),
                names.pc,
                tpl.start
            );
            let lsets = slot_sets(&tpl.init, tpl.locals.slots as usize);
            let lproduct = is_product(&lsets, tpl.init.len());
            for (vi, v) in tpl.locals.vars.iter().enumerate() {
                let len = v.len.unwrap_or(1);
                let mut cells = Vec::new();
                for k in 0..n {
                    for c in 0..len {
                        let target = match v.len {
                            Some(_) => format!("{}[{}]", names.locals[vi], k * len + c),
                            None => format!("{}[{k}]", names.locals[vi]),
                        };
                        cells.push((target, lsets[(v.slot + c) as usize].clone()));
                    }
                }
                let decl = declare(
                    &names.locals[vi],
                    &v.domain,
                    Some(n * len),
                    &cells,
                    lproduct,
                    &mut init_code,
                );
                let _ = writeln!(
                    out,
                    "{decl}\t/* local {}: {}{} */",
                    comment(&v.name),
                    describe(&v.domain, v.len),
                    if v.len.is_some() {
                        ", cell j of instance k at k*len+j"
                    } else {
                        ""
                    }
                );
            }
            if !lproduct {
                for k in 0..n {
                    let th = names.first + k as usize;
                    let targets: Vec<String> = (0..tpl.locals.slots)
                        .map(|s| self.local_slot(Who::Thread(th), s))
                        .collect::<Result<_, _>>()?;
                    init_code.push(store_choice(&tpl.init, &targets));
                }
            }
        }

        // Processes.
        let mut runs = Vec::new();
        for (t, tpl) in prog.templates.iter().enumerate() {
            if tpl.count == 0 {
                continue;
            }
            if tpl.transitions.is_empty() {
                let _ = writeln!(
                    out,
                    "\n/* Template {} has no transitions: its threads never move, no process is needed. */",
                    comment(&tpl.name)
                );
                continue;
            }
            let names = &self.tpls[t];
            let _ = writeln!(
                out,
                "\nproctype {}(byte {}; byte {}) {{\nend:\n\tdo",
                names.proc, self.p_inst, self.p_tid
            );
            for tr in &tpl.transitions {
                self.wide.set(false);
                let code = self.transition(t, tr)?;
                if self.wide.get() {
                    self.warnings.push(format!(
                        "{} (`{}`): some value may leave the 32-bit range of SPIN's int; weft computes in 64 bits, so the export is exact only while every intermediate value fits in 32 bits",
                        tr.path, tr.label
                    ));
                }
                out.push_str(&code);
            }
            out.push_str("\tod\n}\n");
            for k in 0..tpl.count {
                runs.push(format!(
                    "run {}({k}, {})",
                    names.proc,
                    names.first + k as usize + 1
                ));
            }
        }

        // The monitor.
        let mut options = String::new();
        let mut has_monitor = false;
        for p in &prog.properties {
            if !opts.properties.is_empty() && !opts.properties.contains(&p.name) {
                continue;
            }
            self.wide.set(false);
            let what = match p.kind {
                PropertyKind::Error => format!("error {}", p.source),
                PropertyKind::Invariant => format!("invariant {} (error: its negation)", p.source),
                PropertyKind::Assertions => "the transitions' `assert` fields".to_string(),
            };
            let _ = writeln!(
                options,
                "\t/* property `{}`: {} */",
                comment(&p.name),
                comment(&what)
            );
            if let CExpr::Const(0) = p.error {
                options.push_str("\t/* (never violated: nothing to check) */\n");
                continue;
            }
            self.range(&p.error, Who::Global);
            let err = self.expr(&p.error, Who::Global)?;
            let d = self.def(&p.error, Who::Global)?;
            has_monitor = true;
            if d.is_empty() {
                let _ = writeln!(options, "\t:: atomic {{ {err} -> assert(!{err}) }}");
            } else {
                let dc = conj(&d);
                let _ = writeln!(
                    options,
                    "\t:: atomic {{ ((!{dc}) || {err}) ->\n\t\tassert({dc});\t/* model error while evaluating the property */\n\t\tassert(!{err}) }}"
                );
            }
            if self.wide.get() {
                self.warnings.push(format!(
                    "property `{}`: some value may leave the 32-bit range of SPIN's int; weft computes in 64 bits",
                    p.name
                ));
            }
        }
        if has_monitor {
            let _ = write!(
                out,
                "\n/* The properties: enabled exactly in the error states, so pan (which tries every\n   enabled process in every stored state) fails an assert iff an error state is reachable. */\nproctype {}() {{\nend:\n\tdo\n{options}\tod\n}}\n",
                self.monitor
            );
            runs.push(format!("run {}()", self.monitor));
        } else {
            let _ = write!(
                out,
                "\n/* No property to check besides model errors (asserts in the processes), so there is no monitor process. */\n{options}"
            );
        }

        out.push_str("\n/* Initial values chosen by `init` (nondeterministic for \"any\"), then the processes;\n   atomic, so pan stores none of these intermediate states. */\ninit {\n\tatomic {\n");
        let mut stmts = init_code;
        stmts.extend(runs);
        if stmts.is_empty() {
            stmts.push("skip".into());
        }
        let body: Vec<String> = stmts
            .iter()
            .map(|s| format!("\t\t{}", s.replace('\n', "\n\t\t")))
            .collect();
        out.push_str(&body.join(";\n"));
        out.push_str("\n\t}\n}\n");
        Ok(out)
    }

    /// A rough size of pan's state vector in bytes: the variables, plus
    /// about 8 bytes of bookkeeping and parameters per process (measured:
    /// 204 bytes for lock(20, 1)).
    fn vector_estimate(&self) -> u64 {
        let prog = self.prog;
        let size = |d: &Domain| match ptype(d) {
            "short" => 2,
            "int" => 4,
            _ => 1,
        };
        let mut bytes: u64 = 16;
        for v in &prog.globals.vars {
            bytes += size(&v.domain) * v.len.unwrap_or(1) as u64;
        }
        for t in &prog.templates {
            let n = t.count as u64;
            bytes += n * if t.locations.len() <= 256 { 1 } else { 2 };
            for v in &t.locals.vars {
                bytes += n * size(&v.domain) * v.len.unwrap_or(1) as u64;
            }
            if !t.transitions.is_empty() {
                bytes += 8 * n;
            }
        }
        bytes + 16
    }

    /// The header comment; pan's default `VECTORSZ` is 1024 bytes, so a
    /// larger model gets the flag in the suggested command (and a warning).
    fn header(&mut self, out: &mut String) {
        let prog = self.prog;
        let estimate = self.vector_estimate();
        let vectorsz = if estimate > 900 {
            let n = (estimate * 3 / 2).div_ceil(1024) * 1024;
            self.warnings.push(format!(
                "the state vector is about {estimate} bytes, more than pan's default 1024: compile pan with -DVECTORSZ={n}"
            ));
            format!(" -DVECTORSZ={n}")
        } else {
            String::new()
        };
        let _ = write!(
            out,
            "/* SPIN model of the weft model `{}`, written by `weft convert --to promela`.\n\
             \n   Check it (see docs/promela.md):\n\
             \n       spin -a model.pml && gcc -O2 -DSAFETY -DNOREDUCE{vectorsz} -o pan pan.c && ./pan -m1000000\n\
             \n   errors: 0 means no error state and no run-time model error is reachable (weft: safe);\n\
             \x20  errors: 1 means an assert failed: a property's monitor option (weft: the property is\n\
             \x20  unsafe) or a model-error assert in a process (weft: model-errors is unsafe).\n\
             \x20  Replay the counterexample with `spin -t -p model.pml`.\n\
             \n   \"states, stored\" = weft's state count + 1 (SPIN's initial state, before `init` has run):\n\
             \x20  pan stores no state inside the atomic/d_step sequences. This holds when `spin` keeps\n\
             \x20  every variable: by default it hides variables that are written but never read, which\n\
             \x20  merges states; `spin -o2 -a` keeps them. Large models may need -DVECTORSZ=N (bytes\n\
             \x20  of state vector) or -DMEMLIM=N (MiB) when compiling pan.\n",
            comment(&prog.name)
        );
        if !prog.params.is_empty() {
            let ps: Vec<String> = prog
                .params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let _ = write!(out, "\n   Parameters: {}.\n", comment(&ps.join(", ")));
        }
        out.push_str("*/\n\n");
    }

    /// One weft transition as one option of the process's `do` loop.
    fn transition(&self, t: usize, tr: &crate::program::Transition) -> Result<String, String> {
        let who = Who::Proc(t);
        let tpl = &self.prog.templates[t];
        let pc = self.pc(who)?;
        let mut mask = vec![false; tpl.locations.len()];
        for &f in &tr.from {
            mask[f as usize] = true;
        }
        let from = Self::at(&pc, &mask);
        let mut stmts: Vec<String> = Vec::new();
        let cond = match &tr.guard {
            None => from,
            Some(g) => {
                self.range(g, who);
                let gt = self.expr(g, who)?;
                let d = self.def(g, who)?;
                if d.is_empty() {
                    format!("{from} && {gt}")
                } else {
                    let dc = conj(&d);
                    stmts.push(format!("/* model error in the guard */\nassert({dc})"));
                    format!("{from} && ((!{dc}) || {gt})")
                }
            }
        };
        let mut any = false;
        for a in &tr.actions {
            any |= a.rhs.is_none();
            self.action(a, who, &mut stmts)?;
        }
        let to = &tpl.locations[tr.to as usize];
        stmts.push(format!("{pc} = {}", tr.to));
        let froms: Vec<&str> = tr
            .from
            .iter()
            .map(|&f| tpl.locations[f as usize].as_str())
            .collect();
        let mut s = format!(
            "\t/* {}: {} -> {} ({}) */\n\t:: {} {{ {cond} ->\n",
            comment(&tr.label),
            comment(&froms.join("|")),
            comment(to),
            comment(&tr.path),
            if any { "atomic" } else { "d_step" }
        );
        let body: Vec<String> = stmts
            .iter()
            .map(|st| format!("\t\t{}", st.replace('\n', "\n\t\t")))
            .collect();
        s.push_str(&body.join(";\n"));
        s.push('\n');
        s.push_str("\t}\n");
        Ok(s)
    }

    fn action(&self, a: &Action, who: Who, out: &mut Vec<String>) -> Result<(), String> {
        let target = match &a.target {
            Target::Global(s) => self.global_slot(*s),
            Target::Local(s) => self.local_slot(who, *s)?,
            Target::GlobalCell(base, len, i) | Target::LocalCell(base, len, i) => {
                let mut d = self.def(i, who)?;
                d.extend(self.bound(i, *len, who)?);
                if !d.is_empty() {
                    out.push(format!(
                        "/* model error: index of `{}` */\nassert({})",
                        comment(&a.var),
                        conj(&d)
                    ));
                }
                let it = self.expr(i, who)?;
                match &a.target {
                    Target::GlobalCell(..) => self.global_cell(*base, &it),
                    _ => self.local_cell(who, *base, &it)?,
                }
            }
        };
        let dom = a.domain;
        match &a.rhs {
            Some(e) => {
                let d = self.def(e, who)?;
                if !d.is_empty() {
                    out.push(format!(
                        "/* model error in the value for `{}` */\nassert({})",
                        comment(&a.var),
                        conj(&d)
                    ));
                }
                let v = self.expr(e, who)?;
                let (lo, hi) = self.range(e, who);
                let mut checks = Vec::new();
                if lo < dom.min as i128 {
                    checks.push(format!("({v} >= {})", num(dom.min)));
                }
                if hi > dom.max as i128 {
                    checks.push(format!("({v} <= {})", num(dom.max)));
                }
                if !checks.is_empty() {
                    out.push(format!(
                        "/* model error: `{}` out of range */\nassert({})",
                        comment(&a.var),
                        conj(&checks)
                    ));
                }
                out.push(format!("{target} = {v}"));
            }
            None => {
                if dom.size() <= MAX_IF_VALUES {
                    let opts: Vec<String> = (dom.min..=dom.max)
                        .map(|v| format!(":: {target} = {}", num(v)))
                        .collect();
                    out.push(format!(
                        "if\t/* {} := any */\n{}\nfi",
                        comment(&a.var),
                        opts.join("\n")
                    ));
                } else {
                    out.push(format!(
                        "{target} = {};\t/* {} := any */\ndo\n:: {target} < {} -> {target}++\n:: break\nod",
                        num(dom.min),
                        comment(&a.var),
                        num(dom.max)
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Per slot, the distinct values of that slot over the stores (in order).
fn slot_sets(stores: &[Box<[Val]>], slots: usize) -> Vec<Vec<Val>> {
    let mut sets: Vec<Vec<Val>> = vec![Vec::new(); slots];
    for s in stores {
        for (k, set) in sets.iter_mut().enumerate() {
            if !set.contains(&s[k]) {
                set.push(s[k]);
            }
        }
    }
    for set in &mut sets {
        set.sort_unstable();
    }
    sets
}

/// Whether the stores are exactly the product of the per-slot sets (as the
/// loader builds them), so each slot can be chosen independently.
fn is_product(sets: &[Vec<Val>], stores: usize) -> bool {
    sets.iter()
        .try_fold(1usize, |acc, s| acc.checked_mul(s.len().max(1)))
        == Some(stores)
}

/// The declaration of one variable (scalar or array); initial values it
/// cannot express go to `init`.
fn declare(
    name: &str,
    d: &Domain,
    len: Option<u32>,
    cells: &[(String, Vec<Val>)],
    product: bool,
    init: &mut Vec<String>,
) -> String {
    let ty = ptype(d);
    let decl = match len {
        Some(n) => format!("{ty} {name}[{n}]"),
        None => format!("{ty} {name}"),
    };
    if !product {
        // Whole stores are chosen in `init`.
        return format!("{decl};");
    }
    // A common fixed value goes in the declaration.
    let first = cells.first().map(|(_, s)| s.clone()).unwrap_or_default();
    if first.len() == 1 && cells.iter().all(|(_, s)| *s == first) {
        return format!("{decl} = {};", num(first[0] as i64));
    }
    for (target, set) in cells {
        match set.as_slice() {
            [0] => {}
            [v] => init.push(format!("{target} = {}", num(*v as i64))),
            vs => {
                let opts: Vec<String> = vs
                    .iter()
                    .map(|v| format!(":: {target} = {}", num(*v as i64)))
                    .collect();
                init.push(format!("if\t/* init: any */\n{}\nfi", opts.join("\n")));
            }
        }
    }
    format!("{decl};")
}

/// A nondeterministic choice of one whole store (when the initial stores
/// are not a product of per-slot choices).
fn store_choice(stores: &[Box<[Val]>], targets: &[String]) -> String {
    let opts: Vec<String> = stores
        .iter()
        .map(|s| {
            let a: Vec<String> = targets
                .iter()
                .zip(s.iter())
                .map(|(t, v)| format!("{t} = {}", num(*v as i64)))
                .collect();
            format!(":: {}", a.join("; "))
        })
        .collect();
    format!("if\t/* initial stores */\n{}\nfi", opts.join("\n"))
}

fn describe(d: &Domain, len: Option<u32>) -> String {
    match len {
        Some(n) => format!("array[{n}] of {}", d.describe()),
        None => d.describe(),
    }
}
