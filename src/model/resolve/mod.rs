//! Name resolution and type checking: turns a parsed expression into a
//! compiled `CExpr` for one scope (params only, globals, one thread's code,
//! a count body, or a whole-state property), with a diagnostic that points
//! into the expression for every mistake.

mod refs;

use super::diag::Diagnostic;
use super::expr::{BinOp, Expr, ExprKind, Span, UnOp};
use crate::program::cexpr::binop;
use crate::program::{CExpr, Layout, Var};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Int,
    Bool,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Int => "an int",
            Ty::Bool => "a bool",
        }
    }
}

/// What a template contributes to name resolution.
#[derive(Clone, Debug)]
pub(crate) struct TplNames {
    pub(crate) name: String,
    pub(crate) count: u32,
    pub(crate) first_thread: u32,
    pub(crate) locations: Vec<String>,
    /// `locations` by name (loading stays linear in the locations).
    pub(crate) location_ids: HashMap<String, u16>,
    pub(crate) groups: Vec<(String, Vec<u16>)>,
    pub(crate) locals: Layout,
}

impl TplNames {
    /// The index of the location `name`.
    pub(crate) fn location(&self, name: &str) -> Option<u16> {
        self.location_ids.get(name).copied()
    }

    /// The location set named by a location or a group.
    pub(crate) fn mask(&self, name: &str) -> Option<Box<[bool]>> {
        let mut m = vec![false; self.locations.len()];
        if let Some(i) = self.location(name) {
            m[i as usize] = true;
        } else {
            let (_, locs) = self.groups.iter().find(|(g, _)| g == name)?;
            for &l in locs {
                m[l as usize] = true;
            }
        }
        Some(m.into())
    }
    pub(crate) fn place_names(&self) -> impl Iterator<Item = &str> {
        self.locations
            .iter()
            .map(|s| s.as_str())
            .chain(self.groups.iter().map(|(g, _)| g.as_str()))
    }
}

/// Everything names can refer to.
#[derive(Clone, Debug, Default)]
pub(crate) struct Names {
    pub(crate) params: Vec<(String, i64)>,
    /// Synchronous channels (rendezvous), by name.
    pub(crate) channels: Vec<String>,
    /// Events of a cooperative model, by name (ids are 1-based).
    pub(crate) events: Vec<String>,
    /// `"scheduling": "cooperative"`.
    pub(crate) cooperative: bool,
    pub(crate) globals: Layout,
    pub(crate) templates: Vec<TplNames>,
    /// `templates` by name.
    pub(crate) template_ids: HashMap<String, usize>,
    /// The built-in `deadlock` predicate, once the templates are compiled
    /// (properties only).
    pub(crate) deadlock: Option<CExpr>,
}

impl Names {
    /// The index of the template `name`.
    pub(crate) fn template(&self, name: &str) -> Option<usize> {
        self.template_ids.get(name).copied()
    }

    /// Adds a template's names (after every location is known).
    pub(crate) fn push_template(&mut self, t: TplNames) {
        self.template_ids
            .insert(t.name.clone(), self.templates.len());
        self.templates.push(t);
    }

    /// The template that thread index `thread` is an instance of.
    pub(crate) fn template_of_thread(&self, thread: usize) -> usize {
        self.templates
            .iter()
            .position(|t| {
                (t.first_thread as usize..(t.first_thread + t.count) as usize).contains(&thread)
            })
            .unwrap_or(0)
    }
}

/// Where an expression appears, which decides what it may mention.
#[derive(Clone, Debug)]
pub(crate) enum Scope {
    /// Numbers over params (`"n+1"`).
    Const,
    /// Params and globals (an exception's `when`).
    Globals,
    /// A thread's own code: locals, globals, params, `tid`, `@L`.
    Thread(usize),
    /// A count body or a per-thread predicate over several templates:
    /// globals, params, `tid`, `@L`; locals only for a single template.
    Threads(Vec<usize>),
    /// A whole-state property.
    Property,
}

/// The expression's source and where it sits, for diagnostics.
pub(crate) struct Src<'a> {
    pub(crate) file: &'a str,
    pub(crate) path: &'a str,
    pub(crate) text: &'a str,
}

impl Src<'_> {
    pub(crate) fn err(
        &self,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> Box<Diagnostic> {
        Box::new(
            Diagnostic::new(self.file, self.path, message).with_snippet(self.text, span, label),
        )
    }
}

type R<T> = Result<T, Box<Diagnostic>>;

pub(crate) struct Resolver<'a> {
    pub(crate) names: &'a Names,
    pub(crate) src: Src<'a>,
}

impl<'a> Resolver<'a> {
    /// `@l.2` reads as the local `2` of `@l`; when some template has a
    /// location `l.2`, the user meant it, and is told how to write it.
    fn dotted_location(&self, loc: &str, field: &str, span: Span) -> R<()> {
        let name = format!("{loc}.{field}");
        let known = self
            .names
            .templates
            .iter()
            .any(|t| t.place_names().any(|p| p == name));
        if !known {
            return Ok(());
        }
        let quoted = crate::program::location_ref(&name);
        Err(self.src.err(
            span,
            format!(
                "`{name}` is not an identifier: a location so named is written quoted, `@{quoted}`"
            ),
            format!("write `@{quoted}`"),
        ))
    }

    pub(crate) fn compile(&self, e: &Expr, scope: &Scope) -> R<(CExpr, Ty)> {
        match &e.kind {
            ExprKind::Int(v) => Ok((CExpr::Const(*v), Ty::Int)),
            ExprKind::Bool(b) => Ok((CExpr::Const(*b as i64), Ty::Bool)),
            ExprKind::Name(n) => self.name(n, e.span, scope),
            ExprKind::Index(base, idx) => self.index(base, idx, e.span, scope),
            ExprKind::Field(base, field, fspan) => {
                if let ExprKind::At(_, loc, lspan) = &base.kind {
                    self.dotted_location(loc, field, lspan.to(*fspan))?;
                }
                let thread = self.instance(base, scope)?;
                let tpl = self.template_of_thread(thread);
                let var = self.local_var(tpl, field, *fspan)?;
                if var.len.is_some() {
                    return Err(self.src.err(
                        *fspan,
                        format!("`{field}` is an array"),
                        "index it: `p[1].a[i]`",
                    ));
                }
                Ok((CExpr::InstLocal(thread as u32, var.slot), ty_of(var)))
            }
            ExprKind::At(None, loc, lspan) => self.at_self(loc, *lspan, e.span, scope),
            ExprKind::At(Some(base), loc, lspan) => {
                let thread = self.instance(base, scope)?;
                let tpl = &self.names.templates[self.template_of_thread(thread)];
                let mask = tpl
                    .mask(loc)
                    .ok_or_else(|| self.unknown_place(loc, *lspan, [tpl]))?;
                Ok((CExpr::InstAt(thread as u32, mask), Ty::Bool))
            }
            ExprKind::Unary(UnOp::ToInt, a) => {
                // Bools are stored as 0/1: the conversion is only a type change.
                let x = self.compile_ty(a, scope, Ty::Bool, "the argument of `int(…)`")?;
                Ok((x, Ty::Int))
            }
            ExprKind::Unary(op, a) => {
                let (x, t) = self.compile(a, scope)?;
                let want = if *op == UnOp::Not { Ty::Bool } else { Ty::Int };
                let sym = match op {
                    UnOp::Not => "!",
                    UnOp::Neg => "-",
                    UnOp::BitNot => "~",
                    UnOp::ToInt => "int",
                    UnOp::Holds => "holds",
                };
                self.expect_ty(t, want, a.span, &format!("`{sym}` needs {}", want.name()))?;
                if let CExpr::Const(v) = x {
                    let v = match op {
                        UnOp::Not => (v == 0) as i64,
                        UnOp::Neg => v.checked_neg().ok_or_else(|| {
                            self.src.err(
                                e.span,
                                format!("arithmetic overflow in `-({v})`"),
                                "evaluated when the model is loaded",
                            )
                        })?,
                        UnOp::BitNot | UnOp::ToInt => !v,
                        UnOp::Holds => (v != 0) as i64,
                    };
                    return Ok((CExpr::Const(v), want));
                }
                Ok((CExpr::Un(*op, Box::new(x)), want))
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e.span, scope),
            ExprKind::Quant(q, tscope, body) => self.quant(*q, tscope, body, e.span, scope),
        }
    }

    /// Compiles and requires a type.
    pub(crate) fn compile_ty(&self, e: &Expr, scope: &Scope, want: Ty, what: &str) -> R<CExpr> {
        let (c, t) = self.compile(e, scope)?;
        self.expect_ty(t, want, e.span, &format!("{what} must be {}", want.name()))?;
        Ok(c)
    }

    fn expect_ty(&self, got: Ty, want: Ty, span: Span, msg: &str) -> R<()> {
        if got == want {
            return Ok(());
        }
        let hint = match want {
            Ty::Bool => "this is an int (compare it, e.g. `x != 0`)",
            Ty::Int => "this is a bool (ints and bools do not mix)",
        };
        Err(self.src.err(
            span,
            format!("type error: {msg}, found {}", got.name()),
            hint,
        ))
    }

    fn binary(&self, op: BinOp, a: &Expr, b: &Expr, span: Span, scope: &Scope) -> R<(CExpr, Ty)> {
        let (x, tx) = self.compile(a, scope)?;
        let (y, ty) = self.compile(b, scope)?;
        let sym = op.symbol();
        let out = if op.is_logical() {
            self.expect_ty(tx, Ty::Bool, a.span, &format!("`{sym}` needs bools"))?;
            self.expect_ty(ty, Ty::Bool, b.span, &format!("`{sym}` needs bools"))?;
            Ty::Bool
        } else if matches!(op, BinOp::Eq | BinOp::Ne) {
            if tx != ty {
                return Err(self.src.err(
                    span,
                    format!(
                        "type error: `{sym}` compares {} with {}",
                        tx.name(),
                        ty.name()
                    ),
                    "both sides must have the same type (ints and bools do not mix)",
                ));
            }
            Ty::Bool
        } else {
            self.expect_ty(tx, Ty::Int, a.span, &format!("`{sym}` needs ints"))?;
            self.expect_ty(ty, Ty::Int, b.span, &format!("`{sym}` needs ints"))?;
            if op.is_comparison() {
                Ty::Bool
            } else {
                Ty::Int
            }
        };
        if let (CExpr::Const(u), CExpr::Const(v)) = (&x, &y) {
            let v = binop(op, *u, *v).map_err(|e| {
                self.src
                    .err(span, *e.0, "evaluated when the model is loaded")
            })?;
            return Ok((CExpr::Const(v), out));
        }
        Ok((CExpr::Bin(op, Box::new(x), Box::new(y)), out))
    }
}

fn ty_of(v: &Var) -> Ty {
    if v.domain.is_bool { Ty::Bool } else { Ty::Int }
}
