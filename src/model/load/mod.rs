//! The weft/1 loader: JSON text -> validated, compiled `Program`.
//! Every rejection is a `Diagnostic` naming the file, the JSON path and,
//! for expressions, the position inside the expression.

use super::Model;
use super::diag::{Diagnostic, did_you_mean};
use super::expr::{self, ExprKind, ParseError, Rhs};
use super::json::{LResult, Node};
use super::resolve::{Names, Resolver, Scope, Src, TplNames, Ty};
use crate::program::{
    Action, CExpr, Domain, ExceptionEntry, ExceptionShape, Layout, Program, Property, PropertyKind,
    SyncOp, Target, Template, Thread, Transition, Val,
};
use serde_json::Value;

pub(crate) mod budget;
mod cooperative;
mod deadlock;
mod entry;
mod error_state;
mod fan_out;
mod properties;
mod templates;
mod vars;

pub(crate) use entry::{
    is_dve_path, load_any_with, load_dve_str, load_str, load_with_exceptions, to_json,
};
#[cfg(test)]
pub(crate) use entry::{load_any, load_file};

/// Initial stores are enumerated; past this many, the model is refused.
const MAX_INIT_STORES: usize = 1_000_000;

pub(super) struct Loader<'a> {
    file: &'a str,
    names: Names,
    /// Things worth telling the user that do not stop the load.
    warnings: Vec<String>,
}

/// Per-slot initial values: one value, or every value of the domain.
pub(super) type SlotInit = Vec<Vec<Val>>;

pub(super) struct RawTemplate<'a> {
    node: Node<'a>,
    start: u16,
    count: u32,
    local_init: SlotInit,
    /// The declared `final` locations, if any.
    finals: Option<Vec<u16>>,
}

impl<'a> Loader<'a> {
    fn model(&mut self, root: &Node<'a>, overrides: &[(String, i64)]) -> LResult<Model> {
        root.check_keys(
            &[
                "format",
                "name",
                "description",
                "params",
                "globals",
                "threads",
                "properties",
                "exceptions",
                "expect",
                "channels",
                "check-deadlock",
                "scheduling",
                "events",
                "error-state",
            ],
            "the model",
        )?;
        if let Some(f) = root.get("format") {
            let v = f.str("the format version")?;
            if v != "weft/1" {
                return Err(f.err(format!(
                    "unsupported format `{v}`: this weft reads \"weft/1\""
                )));
            }
        }
        let name = root
            .req("name", "a short identifier for the model")?
            .str("the model name")?
            .to_string();
        let description = match root.get("description") {
            Some(d) => d.str("a description")?.to_string(),
            None => String::new(),
        };
        self.params(root.get("params"))?;
        for (k, v) in overrides {
            match self.names.params.iter_mut().find(|(p, _)| p == k) {
                Some(slot) => slot.1 = *v,
                None => {
                    let known: Vec<&str> =
                        self.names.params.iter().map(|(p, _)| p.as_str()).collect();
                    let mut d = Diagnostic::new(
                        self.file,
                        "params",
                        format!("unknown parameter `{k}` given with --param"),
                    );
                    d = match did_you_mean(k, known.iter().copied()) {
                        Some(h) => d.note(format!("did you mean `{h}`?")),
                        None if known.is_empty() => d.note("this model declares no params"),
                        None => d.note(format!("this model's params: {}", known.join(", "))),
                    };
                    return Err(Box::new(d));
                }
            }
        }
        self.rest(root, name, description)
    }

    fn params(&mut self, node: Option<Node<'a>>) -> LResult<()> {
        if let Some(node) = node {
            for (k, v) in node.entries("params (name -> default integer)")? {
                let value = v.value.as_i64().ok_or_else(|| {
                    v.err(format!("parameter `{k}` must have an integer default"))
                })?;
                check_ident(&v, k, "parameter")?;
                self.names.params.push((k.to_string(), value));
            }
        }
        Ok(())
    }

    fn rest(&mut self, root: &Node<'a>, name: String, description: String) -> LResult<Model> {
        let (globals, global_init) = match root.get("globals") {
            Some(g) => self.layout(&g, 0, "globals")?,
            None => (Layout::default(), Vec::new()),
        };
        for v in &globals.vars {
            if self.names.params.iter().any(|(p, _)| *p == v.name) {
                return Err(root
                    .get("globals")
                    .map(|g| {
                        g.err(format!(
                            "duplicate name `{}`: it is both a parameter and a global",
                            v.name
                        ))
                    })
                    .unwrap_or_else(|| root.err("duplicate name")));
            }
        }
        self.names.globals = globals.clone();
        let init_globals = product(&global_init, root.get("globals").as_ref().unwrap_or(root))?;

        if let Some(c) = root.get("channels") {
            for item in c.array("channel names")? {
                let name = item.str("a channel name")?;
                check_ident(&item, name, "channel")?;
                if self.names.channels.iter().any(|x| x == name) {
                    return Err(item.err(format!("channel `{name}` is declared twice")));
                }
                self.names.channels.push(name.to_string());
            }
        }
        let threads_node = root.req("threads", "an array of thread templates")?;
        let tnodes = threads_node.array("thread templates")?;
        if tnodes.is_empty() {
            return Err(threads_node.err("a model needs at least one thread template"));
        }
        let mut raws = Vec::new();
        for tn in tnodes {
            budget::check(self.file)?;
            raws.push(self.template_names(tn)?);
        }
        if self.names.templates.iter().all(|t| t.count == 0) {
            return Err(
                threads_node.err("every thread template has count 0: the model has no threads")
            );
        }
        let (mut globals, mut init_globals) = (globals, init_globals);
        let scheduler = self.scheduling(root, &mut globals, &mut init_globals)?;
        let mut templates = Vec::new();
        for (i, raw) in raws.into_iter().enumerate() {
            templates.push(self.template(i, raw)?);
        }
        let threads: Vec<Thread> = self
            .names
            .templates
            .iter()
            .enumerate()
            .flat_map(|(ti, t)| {
                (0..t.count).map(move |k| Thread {
                    name: if t.count == 1 {
                        t.name.clone()
                    } else {
                        format!("{}[{}]", t.name, k + 1)
                    },
                    template: ti as u32,
                    tid: (t.first_thread + k + 1) as i64,
                })
            })
            .collect();
        let deadlock = deadlock::formula(
            &templates,
            self.names.channels.len(),
            scheduler.as_ref().map(|s| s.waiting),
            root.get("error-state").is_some(),
        );
        self.names.deadlock = Some(deadlock.clone());
        let check_deadlock = match root.get("check-deadlock") {
            Some(n) => n
                .value
                .as_bool()
                .ok_or_else(|| n.err("`check-deadlock` must be true or false"))?,
            None => false,
        };
        let mut properties = match root.get("properties") {
            Some(n) => self.properties(&n, check_deadlock)?,
            None => Vec::new(),
        };
        for p in &mut properties {
            p.only_in_deadlocks = deadlock::only_in_deadlocks(&p.error, &deadlock);
            p.is_deadlock = p.error == deadlock;
        }
        if let Some(p) = self.assertions(&templates) {
            properties.push(p);
        }
        // As SPIN: a model whose only property is its `assert`s needs no
        // `properties`; one with nothing to check at all is a mistake.
        if properties.is_empty() {
            let at = root.get("properties").unwrap_or_else(|| root.clone());
            return Err(at.err(
                "a model needs at least one property: give `properties`, an `assert` in a transition, or `\"check-deadlock\": true`",
            ));
        }
        let exceptions = match root.get("exceptions") {
            Some(e) => self.exceptions(&e)?,
            None => Vec::new(),
        };
        let expect = match root.get("expect") {
            Some(e) => super::expect::parse(&e, &self.names.params)?,
            None => Vec::new(),
        };
        let error_state = self.error_state(root, &globals, &templates, &threads)?;
        let program = Program {
            name,
            description,
            params: self.names.params.clone(),
            globals,
            init_globals,
            templates,
            threads,
            properties,
            exceptions,
            channels: self.names.channels.clone(),
            deadlock,
            scheduler,
            error_state,
        };
        fan_out::rendezvous_fan_out(&program)
            .map_err(|(path, m)| Box::new(Diagnostic::new(self.file, &path, m)))?;
        if program.globals.vars.iter().any(|v| v.lock) {
            crate::program::locks::analyse(&program).map_err(|m| {
                let path = &program.templates[m.template].transitions[m.transition].path;
                Box::new(Diagnostic::new(self.file, path, m.message))
            })?;
        }
        Ok(Model {
            program,
            expect,
            warnings: std::mem::take(&mut self.warnings),
            places: Vec::new(),
        })
    }

    fn resolver<'r>(&'r self, node: &'r Node<'a>, text: &'r str) -> Resolver<'r> {
        Resolver {
            names: &self.names,
            src: Src {
                file: self.file,
                path: &node.path,
                text,
            },
        }
    }

    fn parse<T>(
        &self,
        node: &Node<'a>,
        text: &str,
        f: fn(&str) -> Result<T, ParseError>,
    ) -> LResult<T> {
        f(text).map_err(|e| {
            Box::new(
                Diagnostic::new(
                    self.file,
                    &node.path,
                    format!("syntax error: {}", e.message),
                )
                .with_snippet(text, e.span, e.label),
            )
        })
    }

    /// Compiles a string-valued expression node in a scope, requiring `ty`.
    fn expr(&self, node: &Node<'a>, scope: &Scope, ty: Ty, what: &str) -> LResult<CExpr> {
        if let Value::Bool(_) | Value::Number(_) = node.value {
            return Err(node.err(format!(
                "{what} is written as a string expression: write \"{}\" (with quotes)",
                node.value
            )));
        }
        let text = node.str(what)?;
        let compiled = self
            .parse(node, text, expr::parse_expr)
            .and_then(|e| self.resolver(node, text).compile_ty(&e, scope, ty, what));
        compiled.map_err(|d| self.quoting_hint(d, text))
    }

    /// A location whose name is no identifier (`l.2.1`, `wait for lock`),
    /// written after `@` unquoted, fails in as many ways as its name has
    /// characters: whatever the error, it is told how to write it.
    fn quoting_hint(&self, d: Box<Diagnostic>, text: &str) -> Box<Diagnostic> {
        let unquoted = self
            .names
            .templates
            .iter()
            .flat_map(|t| t.place_names())
            .filter(|n| crate::program::location_ref(n) != *n && text.contains(&format!("@{n}")))
            .max_by_key(|n| n.len());
        match unquoted {
            Some(n) if !d.message.contains("written quoted") => Box::new(d.note(format!(
                "`{n}` is a location whose name is not an identifier: write it `@{}`",
                crate::program::location_ref(n)
            ))),
            _ => d,
        }
    }
}

/// A location name in `start`, `from`, `to` or a group: a string, also when
/// it is made of digits (`"2"`, referenced as `@2`).
fn location_name<'a>(node: &Node<'a>) -> LResult<&'a str> {
    match node.value {
        Value::Number(n) => Err(node.err(format!(
            "a location name must be a string: write \"{n}\" (with quotes)"
        ))),
        Value::String(s) if s.trim().is_empty() => Err(node.err("a location name cannot be empty")),
        _ => node.str("a location name"),
    }
}

fn check_ident(node: &Node, name: &str, what: &str) -> LResult<()> {
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    const RESERVED: &[&str] = &[
        "true", "false", "tid", "any", "count", "exists", "forall", "and", "or", "not",
    ];
    if !ok {
        return Err(node.err(format!("`{name}` is not a valid {what} name (letters, digits and `_`, not starting with a digit)")));
    }
    if RESERVED.contains(&name) {
        return Err(node.err(format!("`{name}` is reserved and cannot be a {what} name")));
    }
    Ok(())
}

/// Every combination of per-slot initial values.
fn product(slots: &[Vec<Val>], node: &Node) -> LResult<Vec<Box<[Val]>>> {
    let total: f64 = slots.iter().map(|s| s.len() as f64).product();
    if total > MAX_INIT_STORES as f64 {
        return Err(node.err(format!("`init: \"any\"` gives {total:.0} initial stores here; at most {MAX_INIT_STORES} are supported")));
    }
    if slots.iter().any(Vec::is_empty) {
        return Ok(Vec::new());
    }
    // An odometer over the slots' choices (the last slot turns fastest), so
    // each store is built once: linear in the output, where extending every
    // prefix slot by slot copied each prefix again (quadratic in the slots).
    let mut out = Vec::with_capacity(total as usize);
    let mut pick = vec![0usize; slots.len()];
    loop {
        out.push(slots.iter().zip(&pick).map(|(c, &i)| c[i]).collect());
        let mut k = slots.len();
        loop {
            let Some(prev) = k.checked_sub(1) else {
                return Ok(out);
            };
            k = prev;
            pick[k] += 1;
            if pick[k] < slots[k].len() {
                break;
            }
            pick[k] = 0;
        }
    }
}
