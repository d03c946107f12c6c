//! Compiled expressions: names resolved to store slots, locations to masks,
//! types checked. Engines evaluate these against interned stores; they never
//! see source text.

use super::ops::{BinOp, UnOp};

/// A value in a store. Bools are 0/1.
pub(crate) type Val = i32;

/// An evaluation failure that the model itself causes at run time. The
/// message is boxed so that `Result<i64, EvalError>` is two words, which
/// the evaluator's recursion returns in registers (a `String` made it
/// three, returned through memory).
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(clippy::box_collection)]
pub(crate) struct EvalError(pub Box<String>);

impl EvalError {
    pub(crate) fn new(message: String) -> EvalError {
        EvalError(Box::new(message))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum CExpr {
    Const(i64),
    Global(u32),
    /// A local slot of the current thread (slot 0 is the pc).
    Local(u32),
    /// `a[i]` over a global array: first slot, length, variable name.
    GlobalCell(u32, u32, Box<str>, Box<CExpr>),
    LocalCell(u32, u32, Box<str>, Box<CExpr>),
    Tid,
    /// `@L`: is the current thread's pc in the set? Indexed by template id;
    /// an empty mask means the template has no such location (false).
    At(Box<[Box<[bool]>]>),
    Un(UnOp, Box<CExpr>),
    Bin(BinOp, Box<CExpr>, Box<CExpr>),
    /// A local slot of a named thread instance (properties only).
    InstLocal(u32, u32),
    InstLocalCell(u32, u32, u32, Box<str>, Box<CExpr>),
    /// `p[2]@L`: a named instance at a location set.
    InstAt(u32, Box<[bool]>),
    /// `count(scope: body)` over the listed thread indices.
    Count(Box<[u32]>, Box<CExpr>),
    /// A precomputed thread-dependent value (abstract decision procedures).
    Term(u32),
}

/// What an expression is evaluated against.
pub(crate) struct Ctx<'a> {
    pub(crate) g: &'a [Val],
    /// The current thread: its tid, template and local store.
    pub(crate) tid: i64,
    pub(crate) template: usize,
    pub(crate) l: &'a [Val],
    /// The whole state's threads, for instance references and counts.
    pub(crate) state: Option<&'a dyn StateView>,
    pub(crate) terms: &'a [i64],
}

/// Access to every thread's local store of one concrete state.
pub(crate) trait StateView {
    fn local(&self, thread: usize) -> &[Val];
    fn template_of(&self, thread: usize) -> usize;
    fn tid_of(&self, thread: usize) -> i64;
}

impl<'a> Ctx<'a> {
    /// The context of thread `th` at the stores `g`, `l` (a guard or a
    /// transition's expressions).
    pub(crate) fn thread(th: &super::Thread, g: &'a [Val], l: &'a [Val]) -> Ctx<'a> {
        Ctx {
            g,
            tid: th.tid,
            template: th.template as usize,
            l,
            state: None,
            terms: &[],
        }
    }

    /// A context with no current thread (global-only or whole-state
    /// predicates).
    pub(crate) fn global(g: &'a [Val], state: Option<&'a dyn StateView>) -> Ctx<'a> {
        Ctx {
            g,
            tid: 0,
            template: usize::MAX,
            l: &[],
            state,
            terms: &[],
        }
    }
}

fn index(len: u32, name: &str, i: i64) -> Result<u32, EvalError> {
    if i < 0 || i >= len as i64 {
        Err(EvalError::new(format!(
            "array index {i} is out of bounds for `{name}` (length {len})"
        )))
    } else {
        Ok(i as u32)
    }
}

impl CExpr {
    pub(crate) fn eval(&self, c: &Ctx) -> Result<i64, EvalError> {
        Ok(match self {
            CExpr::Const(v) => *v,
            CExpr::Global(s) => c.g[*s as usize] as i64,
            CExpr::Local(s) => c.l[*s as usize] as i64,
            CExpr::GlobalCell(base, len, name, i) => {
                let i = index(*len, name, i.eval(c)?)?;
                c.g[(base + i) as usize] as i64
            }
            CExpr::LocalCell(base, len, name, i) => {
                let i = index(*len, name, i.eval(c)?)?;
                c.l[(base + i) as usize] as i64
            }
            CExpr::Tid => c.tid,
            CExpr::At(masks) => {
                let m = &masks[c.template];
                (!m.is_empty() && m[c.l[0] as usize]) as i64
            }
            CExpr::Un(UnOp::Holds, a) => a.eval(c).is_ok_and(|v| v != 0) as i64,
            CExpr::Un(op, a) => {
                let a = a.eval(c)?;
                match op {
                    UnOp::Holds => (a != 0) as i64,
                    UnOp::Not => (a == 0) as i64,
                    UnOp::Neg => a.checked_neg().ok_or_else(|| {
                        EvalError::new(format!("arithmetic overflow in `-({a})`"))
                    })?,
                    UnOp::BitNot => !a,
                    UnOp::ToInt => a,
                }
            }
            CExpr::Bin(op, a, b) => {
                let x = a.eval(c)?;
                match op {
                    BinOp::And if x == 0 => return Ok(0),
                    BinOp::Or if x != 0 => return Ok(1),
                    BinOp::Implies if x == 0 => return Ok(1),
                    _ => {}
                }
                let y = b.eval(c)?;
                binop(*op, x, y)?
            }
            CExpr::InstLocal(t, s) => self.view(c)?.local(*t as usize)[*s as usize] as i64,
            CExpr::InstLocalCell(t, base, len, name, i) => {
                let i = index(*len, name, i.eval(c)?)?;
                self.view(c)?.local(*t as usize)[(base + i) as usize] as i64
            }
            CExpr::InstAt(t, mask) => mask[self.view(c)?.local(*t as usize)[0] as usize] as i64,
            CExpr::Count(threads, body) => {
                let view = self.view(c)?;
                let mut n = 0;
                for &t in threads.iter() {
                    let t = t as usize;
                    let inner = Ctx {
                        g: c.g,
                        tid: view.tid_of(t),
                        template: view.template_of(t),
                        l: view.local(t),
                        state: c.state,
                        terms: c.terms,
                    };
                    n += (body.eval(&inner)? != 0) as i64;
                }
                n
            }
            CExpr::Term(k) => c.terms[*k as usize],
        })
    }

    fn view<'c>(&self, c: &Ctx<'c>) -> Result<&'c dyn StateView, EvalError> {
        c.state.ok_or_else(|| {
            EvalError::new("internal: a whole-state predicate was evaluated on one thread".into())
        })
    }

    /// Pre-order traversal.
    pub(crate) fn visit(&self, f: &mut dyn FnMut(&CExpr)) {
        f(self);
        match self {
            CExpr::GlobalCell(.., i)
            | CExpr::LocalCell(.., i)
            | CExpr::InstLocalCell(.., i)
            | CExpr::Un(_, i)
            | CExpr::Count(_, i) => i.visit(f),
            CExpr::Bin(_, a, b) => {
                a.visit(f);
                b.visit(f);
            }
            _ => {}
        }
    }
}

#[inline]
pub(crate) fn binop(op: BinOp, x: i64, y: i64) -> Result<i64, EvalError> {
    let ovf = || EvalError::new(format!("arithmetic overflow in `{x} {} {y}`", op.symbol()));
    Ok(match op {
        BinOp::Add => x.checked_add(y).ok_or_else(ovf)?,
        BinOp::Sub => x.checked_sub(y).ok_or_else(ovf)?,
        BinOp::Mul => x.checked_mul(y).ok_or_else(ovf)?,
        BinOp::Div | BinOp::Rem if y == 0 => {
            return Err(EvalError::new(format!(
                "division by zero in `{x} {} {y}`",
                op.symbol()
            )));
        }
        // C semantics: truncating division, remainder with the dividend's sign.
        BinOp::Div => x.checked_div(y).ok_or_else(ovf)?,
        BinOp::Rem => x.checked_rem(y).ok_or_else(ovf)?,
        BinOp::Eq => (x == y) as i64,
        BinOp::Ne => (x != y) as i64,
        BinOp::Lt => (x < y) as i64,
        BinOp::Le => (x <= y) as i64,
        BinOp::Gt => (x > y) as i64,
        BinOp::Ge => (x >= y) as i64,
        BinOp::And => (x != 0 && y != 0) as i64,
        BinOp::Or => (x != 0 || y != 0) as i64,
        BinOp::Implies => (x == 0 || y != 0) as i64,
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::Shl | BinOp::Shr if !(0..63).contains(&y) => {
            return Err(EvalError::new(format!(
                "shift count {y} outside 0..62 in `{x} {} {y}`",
                op.symbol()
            )));
        }
        // Bits shifted out are dropped, as in C and DiVinE
        // (docs/model-format.md): the count is the only error.
        BinOp::Shl => x << y,
        BinOp::Shr => x >> y,
    })
}
