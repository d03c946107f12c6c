//! Name resolution proper: a name, an array cell, a thread instance, a
//! location test `@L` and a quantifier's body, each resolved in its scope
//! (a thread's own locals, another instance's, the globals, params).

use super::{R, Resolver, Scope, TplNames, Ty, ty_of};
use crate::model::diag::{Diagnostic, did_you_mean};
use crate::model::expr::{BinOp, Expr, ExprKind, Quant, Span, UnOp};
use crate::program::{CExpr, Var, location_ref};

impl<'a> Resolver<'a> {
    pub(super) fn name(&self, n: &str, span: Span, scope: &Scope) -> R<(CExpr, Ty)> {
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

    pub(super) fn index(
        &self,
        base: &Expr,
        idx: &Expr,
        span: Span,
        scope: &Scope,
    ) -> R<(CExpr, Ty)> {
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

    pub(super) fn template_of_thread(&self, thread: usize) -> usize {
        self.names.template_of_thread(thread)
    }

    pub(super) fn local_var(&self, tpl: usize, field: &str, span: Span) -> R<&'a Var> {
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

    pub(super) fn at_self(
        &self,
        loc: &str,
        lspan: Span,
        span: Span,
        scope: &Scope,
    ) -> R<(CExpr, Ty)> {
        let tpls: Vec<usize> = match scope {
            Scope::Thread(t) => vec![*t],
            Scope::Threads(ts) => ts.clone(),
            _ => {
                return Err(self.src.err(
                    span,
                    format!("`@{}` needs a thread", location_ref(loc)),
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

    pub(super) fn unknown_place<'t>(
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
        // As an expression names them, quoted where not identifiers.
        let label = match did_you_mean(loc, names.iter().copied()) {
            Some(s) => format!("did you mean `{}`?", location_ref(&s)),
            None => {
                let refs: Vec<_> = names.iter().map(|n| location_ref(n)).collect();
                format!("known: {}", refs.join(", "))
            }
        };
        self.src.err(
            span,
            format!("no location or group `{loc}` in {owner}"),
            label,
        )
    }

    pub(super) fn quant(
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
