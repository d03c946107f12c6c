//! Name resolution and type checking: turns a parsed expression into a
//! compiled `CExpr` for one scope (params only, globals, one thread's code,
//! a count body, or a whole-state property), with a diagnostic that points
//! into the expression for every mistake.

use super::diag::{Diagnostic, did_you_mean};
use super::expr::{BinOp, Expr, ExprKind, Quant, Span, UnOp};
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
    fn place_names(&self) -> impl Iterator<Item = &str> {
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
    pub(crate) fn compile(&self, e: &Expr, scope: &Scope) -> R<(CExpr, Ty)> {
        match &e.kind {
            ExprKind::Int(v) => Ok((CExpr::Const(*v), Ty::Int)),
            ExprKind::Bool(b) => Ok((CExpr::Const(*b as i64), Ty::Bool)),
            ExprKind::Name(n) => self.name(n, e.span, scope),
            ExprKind::Index(base, idx) => self.index(base, idx, e.span, scope),
            ExprKind::Field(base, field, fspan) => {
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

    fn name(&self, n: &str, span: Span, scope: &Scope) -> R<(CExpr, Ty)> {
        let local_tpl = self.local_template(scope);
        // In a property, `deadlock` is the built-in predicate: a variable or
        // parameter of that name would silently change what it means.
        if n == "deadlock"
            && matches!(scope, Scope::Property)
            && (self.names.globals.find(n).is_some()
                || self.names.params.iter().any(|(p, _)| p == n))
        {
            return Err(self.src.err(
                span,
                "`deadlock` is both a variable (or parameter) of the model and the built-in predicate",
                "rename the variable to check deadlocks, or to read it in a property",
            ));
        }
        if let Some(t) = local_tpl
            && let Some(v) = self.names.templates[t].locals.find(n)
        {
            return self.scalar(v, span, false);
        }
        if !matches!(scope, Scope::Const)
            && let Some(v) = self.names.globals.find(n)
        {
            return self.scalar(v, span, true);
        }
        if let Some((_, v)) = self.names.params.iter().find(|(p, _)| p == n) {
            return Ok((CExpr::Const(*v), Ty::Int));
        }
        if n == "tid" && matches!(scope, Scope::Thread(_) | Scope::Threads(_)) {
            return Ok((CExpr::Tid, Ty::Int));
        }
        if n == "deadlock" {
            return match (&self.names.deadlock, scope) {
                (Some(d), Scope::Property) => Ok((d.clone(), Ty::Bool)),
                _ => Err(self.src.err(
                    span,
                    "`deadlock` is a predicate on whole states: it is only defined in a property",
                    "\"error\": \"deadlock\" (no thread can move, and one rests at a location that is not final)",
                )),
            };
        }
        // Helpful errors for names that exist elsewhere.
        if n == "tid" {
            return Err(self.src.err(
                span,
                "`tid` is only defined inside a thread's code or a count(...)",
                "no current thread here",
            ));
        }
        if n == "any" {
            return Err(self.src.err(
                span,
                "`any` is only allowed as the whole right-hand side of an assignment",
                "`x := any`",
            ));
        }
        if self.names.template(n).is_some() {
            return Err(self.src.err(
                span,
                format!("`{n}` is a thread template, not a value"),
                "use count(p: …), p[1]@L or p[1].k",
            ));
        }
        // A local of some template, used where locals are not visible.
        let is_some_local = self
            .names
            .templates
            .iter()
            .any(|t| t.locals.find(n).is_some());
        if matches!(scope, Scope::Threads(_)) && local_tpl.is_none() && is_some_local {
            return Err(self.src.err(
                span,
                format!("the local `{n}` is not visible here"),
                "locals are visible in count(p: …) over one template, not across templates",
            ));
        }
        if matches!(scope, Scope::Const) && self.names.globals.find(n).is_some() {
            return Err(self.src.err(
                span,
                format!("`{n}` is a variable; only params may be used here"),
                "a number over params is expected",
            ));
        }
        if matches!(scope, Scope::Globals) && is_some_local {
            return Err(self.src.err(span, format!("`{n}` is a thread-local variable"), "only globals and params are visible here; constrain locals in `threads`, `one` or `others`"));
        }
        if matches!(scope, Scope::Property) && is_some_local {
            return Err(self.src.err(
                span,
                format!("`{n}` is a thread-local variable"),
                "name the instance (`p[1].k`) or count over a template (`count(p: k > 0)`)",
            ));
        }
        let mut cands: Vec<&str> = self.names.params.iter().map(|(p, _)| p.as_str()).collect();
        if !matches!(scope, Scope::Const) {
            cands.extend(self.names.globals.vars.iter().map(|v| v.name.as_str()));
        }
        if let Some(t) = local_tpl {
            cands.extend(
                self.names.templates[t]
                    .locals
                    .vars
                    .iter()
                    .map(|v| v.name.as_str()),
            );
        }
        let label = match did_you_mean(n, cands.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None if cands.is_empty() => "nothing with this name is declared".to_string(),
            None => format!("known here: {}", cands.join(", ")),
        };
        Err(self.src.err(span, format!("unknown name `{n}`"), label))
    }

    fn scalar(&self, v: &Var, span: Span, global: bool) -> R<(CExpr, Ty)> {
        if v.len.is_some() {
            return Err(self.src.err(
                span,
                format!("`{}` is an array", v.name),
                "index it: `a[i]`",
            ));
        }
        let e = if global {
            CExpr::Global(v.slot)
        } else {
            CExpr::Local(v.slot)
        };
        Ok((e, ty_of(v)))
    }

    fn local_template(&self, scope: &Scope) -> Option<usize> {
        match scope {
            Scope::Thread(t) => Some(*t),
            Scope::Threads(ts) if ts.len() == 1 => Some(ts[0]),
            Scope::Threads(ts) if !ts.is_empty() && self.names.templates.len() == 1 => Some(ts[0]),
            _ => None,
        }
    }

    fn index(&self, base: &Expr, idx: &Expr, span: Span, scope: &Scope) -> R<(CExpr, Ty)> {
        // `p[1].a[i]`: a cell of a named instance's local array.
        if let ExprKind::Field(inst, field, fspan) = &base.kind {
            let thread = self.instance(inst, scope)?;
            let tpl = self.template_of_thread(thread);
            let var = self.local_var(tpl, field, *fspan)?.clone();
            let len = var.len.ok_or_else(|| {
                self.src.err(
                    *fspan,
                    format!("`{field}` is not an array"),
                    "cannot be indexed",
                )
            })?;
            let i = self.compile_ty(idx, scope, Ty::Int, "an array index")?;
            return Ok((
                CExpr::InstLocalCell(
                    thread as u32,
                    var.slot,
                    len,
                    var.name.clone().into(),
                    Box::new(i),
                ),
                ty_of(&var),
            ));
        }
        let ExprKind::Name(n) = &base.kind else {
            return Err(self.src.err(
                base.span,
                "only a named array can be indexed",
                "not an array",
            ));
        };
        let local_tpl = self.local_template(scope);
        let found = local_tpl
            .and_then(|t| self.names.templates[t].locals.find(n).map(|v| (v, false)))
            .or_else(|| {
                (!matches!(scope, Scope::Const))
                    .then(|| self.names.globals.find(n).map(|v| (v, true)))
                    .flatten()
            });
        let Some((var, global)) = found else {
            if self.names.template(n).is_some() {
                return Err(self.src.err(
                    span,
                    format!(
                        "`{}` names a thread, not a value",
                        &self.src.text[span.start..span.end]
                    ),
                    "use it with `@L` or `.k`",
                ));
            }
            self.name(n, base.span, scope)?;
            return Err(self.src.err(
                base.span,
                format!("`{n}` is not an array"),
                "cannot be indexed",
            ));
        };
        let Some(len) = var.len else {
            return Err(self.src.err(
                base.span,
                format!("`{n}` is not an array"),
                "cannot be indexed",
            ));
        };
        let i = self.compile_ty(idx, scope, Ty::Int, "an array index")?;
        if let CExpr::Const(k) = i
            && (k < 0 || k >= len as i64)
        {
            return Err(self.src.err(
                idx.span,
                format!("array index {k} is out of bounds for `{n}` (length {len})"),
                "out of bounds",
            ));
        }
        let name: Box<str> = var.name.clone().into();
        let e = if global {
            CExpr::GlobalCell(var.slot, len, name, Box::new(i))
        } else {
            CExpr::LocalCell(var.slot, len, name, Box::new(i))
        };
        Ok((e, ty_of(var)))
    }

    /// Resolves `p[2]` or `P1` to a thread index (properties only).
    pub(crate) fn instance(&self, e: &Expr, scope: &Scope) -> R<usize> {
        if !matches!(scope, Scope::Property) {
            return Err(self.src.err(
                e.span,
                "named thread instances can only be used in properties",
                "not allowed here",
            ));
        }
        let (name, nspan, idx) = match &e.kind {
            ExprKind::Name(n) => (n, e.span, None),
            ExprKind::Index(b, i) => match &b.kind {
                ExprKind::Name(n) => (n, b.span, Some(i)),
                _ => {
                    return Err(self.src.err(
                        e.span,
                        "expected a thread instance like `p[2]` or `P1`",
                        "not an instance",
                    ));
                }
            },
            _ => {
                return Err(self.src.err(
                    e.span,
                    "expected a thread instance like `p[2]` or `P1`",
                    "not an instance",
                ));
            }
        };
        let Some(tpl) = self.names.template(name).map(|t| &self.names.templates[t]) else {
            let label =
                match did_you_mean(name, self.names.templates.iter().map(|t| t.name.as_str())) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "not a thread template".into(),
                };
            return Err(self
                .src
                .err(nspan, format!("unknown thread `{name}`"), label));
        };
        let k = match idx {
            None if tpl.count == 1 => 1,
            None => {
                return Err(self.src.err(
                    nspan,
                    format!("`{name}` has {} instances ({name}[1] .. {name}[{}]): name one instance, or count over them", tpl.count, tpl.count),
                    format!("e.g. `{name}[1]`, or `count({name}: …)`"),
                ));
            }
            Some(i) => {
                let (c, _) = self.compile(i, &Scope::Const)?;
                let CExpr::Const(k) = c else {
                    return Err(self.src.err(
                        i.span,
                        "an instance number must be a constant",
                        "a number over params",
                    ));
                };
                if k < 1 || k > tpl.count as i64 {
                    return Err(self.src.err(
                        i.span,
                        format!("`{name}` has instances 1..{}, not {k}", tpl.count),
                        "instance numbers are 1-based",
                    ));
                }
                k
            }
        };
        Ok(tpl.first_thread as usize + (k - 1) as usize)
    }

    fn template_of_thread(&self, thread: usize) -> usize {
        self.names.template_of_thread(thread)
    }

    fn local_var(&self, tpl: usize, field: &str, span: Span) -> R<&'a Var> {
        let t = &self.names.templates[tpl];
        t.locals.find(field).ok_or_else(|| {
            let label = match did_you_mean(field, t.locals.vars.iter().map(|v| v.name.as_str())) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("`{}` has no such local", t.name),
            };
            self.src.err(
                span,
                format!("unknown local `{field}` of `{}`", t.name),
                label,
            )
        })
    }

    fn at_self(&self, loc: &str, lspan: Span, span: Span, scope: &Scope) -> R<(CExpr, Ty)> {
        let tpls: Vec<usize> = match scope {
            Scope::Thread(t) => vec![*t],
            Scope::Threads(ts) => ts.clone(),
            _ => {
                return Err(self.src.err(
                    span,
                    format!("`@{loc}` needs a thread"),
                    "use count(p: @L), exists(p: @L) or p[1]@L",
                ));
            }
        };
        let mut masks: Vec<Box<[bool]>> = vec![Box::new([]); self.names.templates.len()];
        let mut any = false;
        for &t in &tpls {
            if let Some(m) = self.names.templates[t].mask(loc) {
                masks[t] = m;
                any = true;
            }
        }
        if !any {
            return Err(self.unknown_place(
                loc,
                lspan,
                tpls.iter().map(|&t| &self.names.templates[t]),
            ));
        }
        Ok((CExpr::At(masks.into()), Ty::Bool))
    }

    fn unknown_place<'t>(
        &self,
        loc: &str,
        span: Span,
        tpls: impl IntoIterator<Item = &'t TplNames>,
    ) -> Box<Diagnostic> {
        let tpls: Vec<&TplNames> = tpls.into_iter().collect();
        let names: Vec<&str> = tpls.iter().flat_map(|t| t.place_names()).collect();
        let owner = tpls
            .iter()
            .map(|t| format!("`{}`", t.name))
            .collect::<Vec<_>>()
            .join(", ");
        let label = match did_you_mean(loc, names.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("known: {}", names.join(", ")),
        };
        self.src.err(
            span,
            format!("no location or group `{loc}` in {owner}"),
            label,
        )
    }

    fn quant(
        &self,
        q: Quant,
        tscope: &Option<(String, Span)>,
        body: &Expr,
        span: Span,
        scope: &Scope,
    ) -> R<(CExpr, Ty)> {
        if !matches!(scope, Scope::Property) {
            return Err(self.src.err(
                span,
                "count/exists/forall can only be used at the top of a property",
                "not allowed here",
            ));
        }
        let tpls: Vec<usize> = match tscope {
            None => (0..self.names.templates.len()).collect(),
            Some((name, nspan)) => match self.names.template(name) {
                Some(t) => vec![t],
                None => {
                    let label = match did_you_mean(
                        name,
                        self.names.templates.iter().map(|t| t.name.as_str()),
                    ) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => "not a thread template (or write `*` for all threads)".into(),
                    };
                    return Err(self.src.err(
                        *nspan,
                        format!("unknown thread template `{name}`"),
                        label,
                    ));
                }
            },
        };
        let threads: Box<[u32]> = tpls
            .iter()
            .flat_map(|&t| {
                let tp = &self.names.templates[t];
                tp.first_thread..tp.first_thread + tp.count
            })
            .collect();
        let b = self.compile_ty(
            body,
            &Scope::Threads(tpls),
            Ty::Bool,
            "the body of a quantifier",
        )?;
        Ok(match q {
            Quant::Count => (CExpr::Count(threads, Box::new(b)), Ty::Int),
            Quant::Exists => (
                CExpr::Bin(
                    BinOp::Ge,
                    Box::new(CExpr::Count(threads, Box::new(b))),
                    Box::new(CExpr::Const(1)),
                ),
                Ty::Bool,
            ),
            Quant::Forall => (
                CExpr::Bin(
                    BinOp::Eq,
                    Box::new(CExpr::Count(
                        threads,
                        Box::new(CExpr::Un(UnOp::Not, Box::new(b))),
                    )),
                    Box::new(CExpr::Const(0)),
                ),
                Ty::Bool,
            ),
        })
    }
}

fn ty_of(v: &Var) -> Ty {
    if v.domain.is_bool { Ty::Bool } else { Ty::Int }
}
