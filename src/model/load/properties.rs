//! Properties (and the implicit `assertions`), exception entries.

use super::*;

impl<'a> Loader<'a> {
    /// The model's `properties`, then, with `check-deadlock`, the
    /// property `deadlock` (the caller refuses a model left with none, its
    /// `assert`s counted).
    pub(super) fn properties(
        &self,
        node: &Node<'a>,
        check_deadlock: bool,
    ) -> LResult<Vec<Property>> {
        let items = node.array("properties")?;
        let mut out: Vec<Property> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for p in items {
            super::budget::check(self.file)?;
            p.check_keys(&["name", "error", "invariant", "description"], "a property")?;
            let name_n = p.req("name", "the property name")?;
            let name = name_n.str("the property name")?.to_string();
            if !seen.insert(name.clone()) {
                return Err(name_n.err(format!("duplicate property name `{name}`")));
            }
            if name == "assertions" || name == "model-errors" {
                return Err(name_n.err(format!(
                    "the property name `{name}` is reserved: weft reports the transitions' `assert`s as `assertions` and run-time errors as `model-errors`"
                )));
            }
            let (kind, n) = match (p.get("error"), p.get("invariant")) {
                (Some(e), None) => (PropertyKind::Error, e),
                (None, Some(i)) => (PropertyKind::Invariant, i),
                (Some(_), Some(_)) => {
                    return Err(p.err("a property has either `error` or `invariant`, not both"));
                }
                (None, None) => return Err(p.err(
                    "a property needs `error` (the bad states) or `invariant` (the good states)",
                )),
            };
            let c = self.expr(&n, &Scope::Property, Ty::Bool, "a property")?;
            let error = match (kind, c) {
                // `!!e` is `e`: `"invariant": "!deadlock"` is `deadlock`.
                (PropertyKind::Invariant, CExpr::Un(expr::UnOp::Not, inner)) => *inner,
                (PropertyKind::Invariant, c) => CExpr::Un(expr::UnOp::Not, Box::new(c)),
                (_, c) => c,
            };
            out.push(Property {
                name,
                kind,
                source: n.str("")?.to_string(),
                error,
                only_in_deadlocks: false,
                is_deadlock: false,
            });
        }
        if check_deadlock {
            if out.iter().any(|p| p.name == "deadlock") {
                return Err(node.err(
                    "`check-deadlock` adds a property named `deadlock`, and the model has one already: drop one of them",
                ));
            }
            let error = self.names.deadlock.clone().unwrap_or(CExpr::Const(0));
            out.push(Property {
                name: "deadlock".into(),
                kind: PropertyKind::Error,
                source: "deadlock".into(),
                error,
                only_in_deadlocks: true,
                is_deadlock: false,
            });
        }
        Ok(out)
    }

    /// The transitions' `assert`s as one property: some thread is at the
    /// source of an asserting transition and the assertion is false.
    pub(super) fn assertions(&self, templates: &[Template]) -> Option<Property> {
        let mut disjuncts = Vec::new();
        for (ti, t) in templates.iter().enumerate() {
            let mut violations = Vec::new();
            for tr in &t.transitions {
                let Some(a) = &tr.assert else { continue };
                let mut mask = vec![false; t.locations.len()];
                for &f in &tr.from {
                    mask[f as usize] = true;
                }
                let mut masks: Vec<Box<[bool]>> = vec![Box::new([]); templates.len()];
                masks[ti] = mask.into();
                let violated = CExpr::Bin(
                    expr::BinOp::And,
                    Box::new(CExpr::At(masks.into())),
                    Box::new(CExpr::Un(expr::UnOp::Not, Box::new(a.clone()))),
                );
                violations.push(violated);
            }
            if let Some(b) = super::deadlock::balanced(violations, expr::BinOp::Or) {
                let tn = &self.names.templates[ti];
                let threads: Box<[u32]> = (tn.first_thread..tn.first_thread + tn.count).collect();
                disjuncts.push(CExpr::Bin(
                    expr::BinOp::Ge,
                    Box::new(CExpr::Count(threads, Box::new(b))),
                    Box::new(CExpr::Const(1)),
                ));
            }
        }
        let error = super::deadlock::balanced(disjuncts, expr::BinOp::Or)?;
        Some(Property {
            name: "assertions".into(),
            kind: PropertyKind::Assertions,
            source: "the transitions' `assert` fields".into(),
            error,
            only_in_deadlocks: false,
            is_deadlock: false,
        })
    }

    pub(super) fn exceptions(&self, node: &Node<'a>) -> LResult<Vec<ExceptionEntry>> {
        let mut out = Vec::new();
        let n_threads: u32 = self.names.templates.iter().map(|t| t.count).sum();
        for e in node.array("exception entries")? {
            super::budget::check(self.file)?;
            e.check_keys(
                &["when", "threads", "one", "others", "over"],
                "an exception entry",
            )?;
            let when = e
                .get("when")
                .map(|w| self.expr(&w, &Scope::Globals, Ty::Bool, "an exception's `when`"))
                .transpose()?;
            let shape = match (e.get("threads"), e.get("one"), e.get("others")) {
                (Some(t), None, None) => {
                    if let Some(o) = e.get("over") {
                        return Err(o.err("`over` goes with `one`/`others`, not with `threads`"));
                    }
                    let mut per: Vec<Option<CExpr>> = vec![None; n_threads as usize];
                    let mut named = vec![false; n_threads as usize];
                    let mut star = None;
                    for (key, pred) in t.entries("threads (instance name -> local predicate)")? {
                        if key == "*" {
                            star = Some(pred);
                            continue;
                        }
                        let th = self.instance_key(&pred, key)?;
                        let tpl = self.template_index(th);
                        per[th] = Some(self.expr(&pred, &Scope::Thread(tpl), Ty::Bool, "a thread's local predicate")?);
                        named[th] = true;
                    }
                    if let Some(pred) = star {
                        for th in 0..n_threads as usize {
                            if !named[th] {
                                let tpl = self.template_index(th);
                                per[th] = Some(self.expr(&pred, &Scope::Thread(tpl), Ty::Bool, "a thread's local predicate")?);
                            }
                        }
                    }
                    ExceptionShape::Product(per)
                }
                (None, Some(one), Some(others)) => {
                    let tpls: Vec<usize> = match e.get("over") {
                        None => (0..self.names.templates.len()).collect(),
                        Some(o) => {
                            let s = o.str("a thread template name")?;
                            match self.names.template(s) {
                                Some(i) => vec![i],
                                None => {
                                    let hint = did_you_mean(s, self.names.templates.iter().map(|t| t.name.as_str())).map(|h| format!(" (did you mean `{h}`?)")).unwrap_or_default();
                                    return Err(o.err(format!("unknown thread template `{s}`{hint}")));
                                }
                            }
                        }
                    };
                    let scope = Scope::Threads(tpls.clone());
                    let over = tpls
                        .iter()
                        .flat_map(|&t| {
                            let tp = &self.names.templates[t];
                            tp.first_thread..tp.first_thread + tp.count
                        })
                        .collect();
                    ExceptionShape::OneOthers {
                        one: self.expr(&one, &scope, Ty::Bool, "`one`")?,
                        others: self.expr(&others, &scope, Ty::Bool, "`others`")?,
                        over,
                    }
                }
                (None, None, None) => return Err(e.err("an exception entry needs `threads` (one product) or `one` and `others` (a family of products)")),
                (_, Some(_), None) => return Err(e.err("`one` needs `others` (the predicate every other thread satisfies)")),
                (_, None, Some(_)) => return Err(e.err("`others` needs `one` (the predicate exactly one thread satisfies)")),
                _ => return Err(e.err("an exception entry has either `threads` or `one`/`others`, not both")),
            };
            out.push(ExceptionEntry { when, shape });
        }
        Ok(out)
    }

    /// An instance name used as a key: `P1`, `p[2]`.
    pub(super) fn instance_key(&self, node: &Node<'a>, key: &str) -> LResult<usize> {
        let e = self.parse(node, key, expr::parse_expr)?;
        self.resolver(node, key).instance(&e, &Scope::Property)
    }

    pub(super) fn template_index(&self, thread: usize) -> usize {
        self.names.template_of_thread(thread)
    }
}
