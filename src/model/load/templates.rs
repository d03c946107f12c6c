//! Thread templates: locations, groups, locals, transitions, rendezvous.

use super::*;
use std::collections::HashMap;

/// The most values `x := any` may choose from: one successor each, built at
/// every step (`simulate` and `replay` ran out of memory on a 32-bit range,
/// found by fuzzing), as `init: "any"` is bounded by its stores.
pub(super) const MAX_ANY_VALUES: i128 = 1_000_000;

impl<'a> Loader<'a> {
    /// A rendezvous: `c!e`, `c!`, `c?x`, `c?a[i]` or `c?`.
    pub(super) fn sync_op(&self, node: &Node<'a>, ti: usize) -> LResult<SyncOp> {
        let text = node.str("a rendezvous like \"c!e\" or \"c?x\"")?;
        let Some(pos) = text.find(['!', '?']) else {
            return Err(node.err(format!("`{text}` is not a rendezvous: write `c!e` to send on channel c, `c?x` to receive into x")));
        };
        let name = text[..pos].trim();
        let Some(channel) = self.names.channels.iter().position(|c| c == name) else {
            let hint = did_you_mean(name, self.names.channels.iter().map(String::as_str))
                .map(|h| format!(" (did you mean `{h}`?)"))
                .unwrap_or_default();
            return Err(node.err(format!(
                "unknown channel `{name}`{hint}: declare it in the model's `channels`"
            )));
        };
        let channel = channel as u32;
        let rest = text[pos + 1..].trim();
        if text[pos..].starts_with('!') {
            let value = if rest.is_empty() {
                None
            } else {
                let e = self.parse(node, rest, expr::parse_expr)?;
                Some(self.resolver(node, rest).compile_ty(
                    &e,
                    &Scope::Thread(ti),
                    Ty::Int,
                    "a sent value",
                )?)
            };
            return Ok(SyncOp::Send { channel, value });
        }
        let target = if rest.is_empty() {
            None
        } else {
            // Resolve the target as an assignment's, so it gets the same checks.
            let synthetic = Value::String(format!("{rest} := any"));
            let tnode = Node {
                value: &synthetic,
                path: node.path.clone(),
                file: node.file,
            };
            self.actions(&tnode, ti)?.into_iter().next()
        };
        Ok(SyncOp::Recv { channel, target })
    }

    /// First pass over a template: names, locations, groups, locals.
    pub(super) fn template_names(&mut self, tn: Node<'a>) -> LResult<RawTemplate<'a>> {
        tn.check_keys(
            &[
                "name",
                "count",
                "locals",
                "locations",
                "start",
                "groups",
                "transitions",
                "final",
            ],
            "a thread template",
        )?;
        let name_n = tn.req("name", "the template name")?;
        let name = name_n.str("the template name")?.to_string();
        check_ident(&name_n, &name, "thread template")?;
        if self.names.template(&name).is_some() {
            return Err(name_n.err(format!("duplicate thread template name `{name}`")));
        }
        if self.names.globals.find(&name).is_some()
            || self.names.params.iter().any(|(p, _)| *p == name)
        {
            return Err(name_n.err(format!(
                "duplicate name `{name}`: a global or parameter has this name too"
            )));
        }
        let count = match tn.get("count") {
            Some(c) => {
                let v = self.number(&c, "the thread count")?;
                if !(0..=100_000).contains(&v) {
                    return Err(c.err(format!(
                        "thread count must be between 0 and 100000, found {v}"
                    )));
                }
                v as u32
            }
            None => 1,
        };
        let (locals, local_init) = match tn.get("locals") {
            Some(l) => self.layout(&l, 1, "locals")?,
            None => (Layout::starting_at(1), Vec::new()),
        };
        for v in &locals.vars {
            let other = if self.names.globals.find(&v.name).is_some() {
                "a global"
            } else if self.names.params.iter().any(|(p, _)| *p == v.name) {
                "a parameter"
            } else {
                continue;
            };
            let at = tn
                .get("locals")
                .and_then(|l| l.get(&v.name))
                .unwrap_or_else(|| tn.clone());
            return Err(at.err(format!("the local `{}` has the same name as {other}; rename one (a local may not shadow {other})", v.name)));
        }
        // With `locations`, the template declares its locations (in this
        // order) and any other name in start/from/to is an error (a typo).
        let declared: Option<Vec<String>> = match tn.get("locations") {
            None => None,
            Some(ln) => {
                let mut v: Vec<String> = Vec::new();
                let mut seen = std::collections::HashSet::new();
                for x in ln.array("declared locations")? {
                    let s = location_name(&x)?;
                    if !seen.insert(s) {
                        return Err(x.err(format!("location `{s}` is declared twice")));
                    }
                    v.push(s.to_string());
                }
                if v.is_empty() {
                    return Err(ln.err("`locations` must declare at least one location"));
                }
                Some(v)
            }
        };
        let mut locations: Vec<String> = declared.clone().unwrap_or_default();
        let mut location_ids: HashMap<String, u16> = HashMap::new();
        for (i, l) in locations.iter().enumerate() {
            location_ids.insert(l.clone(), i as u16);
        }
        let mut note = |node: &Node<'a>, s: &str| -> LResult<()> {
            if location_ids.contains_key(s) {
                return Ok(());
            }
            if let Some(d) = &declared {
                let hint = did_you_mean(s, d.iter().map(String::as_str))
                    .map(|h| format!(" (did you mean `{h}`?)"))
                    .unwrap_or_default();
                return Err(node.err(format!(
                    "`{s}` is not among the template's declared `locations`{hint}"
                )));
            }
            if locations.len() > u16::MAX as usize {
                return Err(node.err(format!(
                    "too many locations: at most {} per template",
                    u16::MAX as usize + 1
                )));
            }
            location_ids.insert(s.to_string(), locations.len() as u16);
            locations.push(s.to_string());
            Ok(())
        };
        let start_n = tn.req("start", "the initial location")?;
        let start_name = location_name(&start_n)?.to_string();
        note(&start_n, &start_name)?;
        let trans = tn.req("transitions", "an array of transitions")?;
        let mut sources: Vec<String> = Vec::new();
        for t in trans.array("transitions")? {
            t.object("a transition")?;
            let from = t.req("from", "the source location (or an array of them)")?;
            let froms: Vec<Node> = match from.value {
                Value::Array(_) => from.array("source locations")?,
                _ => vec![from],
            };
            for f in froms {
                let s = location_name(&f)?;
                note(&f, s)?;
                sources.push(s.to_string());
            }
            let to = t.req("to", "the target location")?;
            note(&to, location_name(&to)?)?;
        }
        if !sources.is_empty() && !sources.contains(&start_name) {
            // Legal (a terminal start), but almost always a typo.
            let hint = did_you_mean(&start_name, sources.iter().map(String::as_str))
                .map(|h| format!(" (did you mean `{h}`?)"))
                .unwrap_or_default();
            self.warnings.push(format!(
                "{}: {}: `{name}` starts at `{start_name}`, which no transition leaves, so its threads never move{hint}",
                self.file, start_n.path
            ));
        }
        let start = location_ids.get(&start_name).copied().unwrap_or(0);
        if locations.len() > u16::MAX as usize {
            return Err(tn.err("too many locations"));
        }
        let mut groups = Vec::new();
        if let Some(g) = tn.get("groups") {
            for (gname, members) in g.entries("groups (name -> array of locations)")? {
                if location_ids.contains_key(gname) {
                    return Err(members.err(format!(
                        "the group `{gname}` has the same name as a location"
                    )));
                }
                let mut locs = Vec::new();
                for m in members.array("the group's locations")? {
                    let s = location_name(&m)?;
                    let Some(&i) = location_ids.get(s) else {
                        let mut d = *m.err(format!("the group `{gname}` names `{s}`, which is not a location of `{name}` (locations are the names used in start, from and to)"));
                        if let Some(h) = did_you_mean(s, locations.iter().map(|s| s.as_str())) {
                            d = d.note(format!("did you mean `{h}`?"));
                        }
                        return Err(Box::new(d.note(format!(
                            "the locations of `{name}` are: {}",
                            locations.join(", ")
                        ))));
                    };
                    locs.push(i);
                }
                groups.push((gname.to_string(), locs));
            }
        }
        let finals = match tn.get("final") {
            None => None,
            Some(f) => {
                let mut out = Vec::new();
                for m in f.array("the final locations (or groups)")? {
                    let s = location_name(&m)?;
                    if let Some(&i) = location_ids.get(s) {
                        out.push(i);
                    } else if let Some((_, locs)) = groups.iter().find(|(g, _)| g == s) {
                        out.extend(locs);
                    } else {
                        let mut d = *m.err(format!(
                            "`final` names `{s}`, which is neither a location nor a group of `{name}`"
                        ));
                        let known = locations.iter().chain(groups.iter().map(|(g, _)| g));
                        if let Some(h) = did_you_mean(s, known.map(String::as_str)) {
                            d = d.note(format!("did you mean `{h}`?"));
                        }
                        return Err(Box::new(d));
                    }
                }
                Some(out)
            }
        };
        let first_thread = self.names.templates.iter().map(|t| t.count).sum();
        self.names.push_template(TplNames {
            name,
            count,
            first_thread,
            locations,
            location_ids,
            groups,
            locals,
        });
        Ok(RawTemplate {
            node: tn,
            start,
            count,
            local_init,
            finals,
        })
    }

    /// Second pass: compiles the transitions of template `ti`.
    pub(super) fn template(&self, ti: usize, raw: RawTemplate<'a>) -> LResult<Template> {
        let names = &self.names.templates[ti];
        let scope = Scope::Thread(ti);
        let loc_index = |n: &str| names.location(n).unwrap_or(0);
        let mut transitions = Vec::new();
        for (j, t) in raw
            .node
            .req("transitions", "")?
            .array("transitions")?
            .into_iter()
            .enumerate()
        {
            super::budget::check(self.file)?;
            t.check_keys(
                &[
                    "from", "to", "when", "do", "assert", "label", "sync", "wait", "notify",
                    "yield",
                ],
                "a transition",
            )?;
            let from_n = t.req("from", "")?;
            let from: Vec<u16> = match from_n.value {
                Value::Array(a) => a.iter().filter_map(|v| v.as_str()).map(loc_index).collect(),
                Value::String(s) => vec![loc_index(s)],
                _ => Vec::new(),
            };
            if from.is_empty() {
                return Err(from_n.err("a transition needs at least one source location"));
            }
            let to = loc_index(t.req("to", "")?.str("")?);
            let guard = t
                .get("when")
                .map(|w| self.expr(&w, &scope, Ty::Bool, "a guard (`when`)"))
                .transpose()?;
            let guard_source = t
                .get("when")
                .and_then(|w| w.value.as_str().map(str::to_string));
            let assert = t
                .get("assert")
                .map(|w| self.expr(&w, &scope, Ty::Bool, "an assertion"))
                .transpose()?;
            let actions = match t.get("do") {
                Some(d) => self.actions(&d, ti)?,
                None => Vec::new(),
            };
            let label = match t.get("label") {
                Some(l) => l.str("a label")?.to_string(),
                None => {
                    let f: Vec<&str> = from
                        .iter()
                        .map(|&i| names.locations[i as usize].as_str())
                        .collect();
                    format!("{}->{}", f.join("|"), names.locations[to as usize])
                }
            };
            let sync = t.get("sync").map(|n| self.sync_op(&n, ti)).transpose()?;
            let coop = self.coop(&t)?;
            transitions.push(Transition {
                sync,
                coop,
                index: j as u32,
                from,
                to,
                guard,
                guard_source,
                actions,
                assert,
                label,
                path: t.path.clone(),
            });
        }
        let mut outgoing = vec![Vec::new(); names.locations.len()];
        for t in &transitions {
            for &f in &t.from {
                outgoing[f as usize].push(t.index);
            }
        }
        // SPIN's valid end states: the declared ones, or where a thread has
        // terminated (no transition leaves).
        let final_locations = match &raw.finals {
            Some(locs) => {
                let mut mask = vec![false; names.locations.len()];
                for &l in locs {
                    mask[l as usize] = true;
                }
                mask
            }
            None => outgoing.iter().map(Vec::is_empty).collect(),
        };
        let mut slots = vec![vec![raw.start as Val]];
        slots.extend(raw.local_init);
        let init = product(&slots, &raw.node)?;
        Ok(Template {
            name: names.name.clone(),
            count: raw.count,
            locations: names.locations.clone(),
            locals: names.locals.clone(),
            start: raw.start,
            transitions,
            outgoing,
            init,
            final_locations,
        })
    }

    pub(super) fn actions(&self, node: &Node<'a>, ti: usize) -> LResult<Vec<Action>> {
        let text = node.str("assignments (`x := e; y := any`)")?;
        let assigns = self.parse(node, text, expr::parse_assignments)?;
        let r = self.resolver(node, text);
        let scope = Scope::Thread(ti);
        let locals = &self.names.templates[ti].locals;
        let mut out = Vec::new();
        // Successors of one step: the product of the `any` domains so far
        // (`weft simulate` materialises them all; 40 bools as `any` asked
        // for 2^40).
        let mut fan_out: i128 = 1;
        for a in assigns {
            let (name, nspan, idx) = match &a.target.kind {
                ExprKind::Name(n) => (n.clone(), a.target.span, None),
                ExprKind::Index(b, i) => match &b.kind {
                    ExprKind::Name(n) => (n.clone(), b.span, Some(i.as_ref())),
                    _ => {
                        return Err(r.src.err(
                            a.target.span,
                            "only a variable or an array cell can be assigned",
                            "not assignable",
                        ));
                    }
                },
                _ => {
                    return Err(r.src.err(
                        a.target.span,
                        "only a variable or an array cell can be assigned",
                        "not assignable",
                    ));
                }
            };
            let (var, global) = match locals.find(&name) {
                Some(v) => (v, false),
                None => match self.names.globals.find(&name) {
                    Some(v) => (v, true),
                    None => {
                        if self.names.params.iter().any(|(p, _)| *p == name) {
                            return Err(r.src.err(
                                nspan,
                                format!("`{name}` is a parameter and cannot be assigned"),
                                "parameters are constants",
                            ));
                        }
                        // Reuse the resolver's unknown-name message (did-you-mean).
                        r.compile(&a.target, &scope)?;
                        return Err(r.src.err(
                            nspan,
                            format!("`{name}` cannot be assigned"),
                            "not a variable",
                        ));
                    }
                },
            };
            let target = match (idx, var.len) {
                (None, None) => {
                    if global {
                        Target::Global(var.slot)
                    } else {
                        Target::Local(var.slot)
                    }
                }
                (Some(i), Some(len)) => {
                    let ie = r.compile_ty(i, &scope, Ty::Int, "an array index")?;
                    if let CExpr::Const(k) = ie
                        && (k < 0 || k >= len as i64)
                    {
                        return Err(r.src.err(
                            i.span,
                            format!("array index {k} is out of bounds for `{name}` (length {len})"),
                            "out of bounds",
                        ));
                    }
                    if global {
                        Target::GlobalCell(var.slot, len, ie)
                    } else {
                        Target::LocalCell(var.slot, len, ie)
                    }
                }
                (None, Some(_)) => {
                    return Err(r.src.err(
                        nspan,
                        format!("`{name}` is an array: assign a cell, `{name}[i] := …`"),
                        "whole-array assignment is not supported",
                    ));
                }
                (Some(_), None) => {
                    return Err(r.src.err(
                        nspan,
                        format!("`{name}` is not an array"),
                        "cannot be indexed",
                    ));
                }
            };
            let want = if var.domain.is_bool {
                Ty::Bool
            } else {
                Ty::Int
            };
            let rhs = match &a.rhs {
                Rhs::Any(span) => {
                    let values = var.domain.max as i128 - var.domain.min as i128 + 1;
                    if values > MAX_ANY_VALUES {
                        return Err(r.src.err(
                            *span,
                            format!(
                                "`{name} := any` gives {values} successors (its domain {}); at most {MAX_ANY_VALUES} are supported",
                                var.domain.describe()
                            ),
                            "narrow the variable's range",
                        ));
                    }
                    fan_out *= values;
                    if fan_out > MAX_ANY_VALUES {
                        return Err(r.src.err(
                            *span,
                            format!(
                                "the `any` assignments of this `do` give {fan_out} successors together, here; at most {MAX_ANY_VALUES} per step are supported"
                            ),
                            "split the choice over several steps",
                        ));
                    }
                    None
                }
                Rhs::Expr(e) => {
                    let (c, t) = r.compile(e, &scope)?;
                    if t != want {
                        return Err(r.src.err(
                            e.span,
                            format!(
                                "type error: `{name}` is {} but the assigned value is {}",
                                if want == Ty::Bool { "a bool" } else { "an int" },
                                if t == Ty::Bool { "a bool" } else { "an int" }
                            ),
                            "ints and bools do not mix",
                        ));
                    }
                    if let CExpr::Const(v) = c
                        && !var.domain.contains(v)
                    {
                        return Err(r.src.err(
                            e.span,
                            format!(
                                "assignment out of range: `{name}` gets {v}, outside its domain {}",
                                var.domain.describe()
                            ),
                            "out of range",
                        ));
                    }
                    Some(c)
                }
            };
            out.push(Action {
                target,
                var: name,
                domain: var.domain,
                rhs,
            });
        }
        Ok(out)
    }
}
