//! The weft/1 loader: JSON text -> validated, compiled `Program`.
//! Every rejection is a `Diagnostic` naming the file, the JSON path and,
//! for expressions, the position inside the expression.

use super::diag::{Diagnostic, did_you_mean};
use super::expr::{self, ExprKind, ParseError, Rhs};
use super::json::{LResult, Node};
use super::resolve::{Names, Resolver, Scope, Src, TplNames, Ty};
use crate::program::{
    Action, CExpr, Domain, ExceptionEntry, ExceptionShape, Layout, Mode, Program, Property,
    PropertyKind, SyncOp, Target, Template, Thread, Transition, Val, Var, Verdict,
};
use serde_json::Value;
use std::path::Path;

/// Initial stores are enumerated; past this many, the model is refused.
const MAX_INIT_STORES: usize = 1_000_000;

/// Reads and compiles a model file. `params` are `--param` overrides.
pub fn load_file(path: &Path, params: &[(String, i64)]) -> LResult<Program> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        Box::new(Diagnostic::new(
            &file,
            "",
            format!("cannot read the model file: {e}"),
        ))
    })?;
    load_str(&text, &file, params)
}

/// Reads a model of either kind: weft/1 JSON, or DVE (by the `.dve`
/// extension), translated first. `error`, if given, replaces the model's
/// properties with one named `error` (the `--error` option).
pub fn load_any(path: &Path, params: &[(String, i64)], error: Option<&str>) -> LResult<Program> {
    let is_dve = path.extension().and_then(|e| e.to_str()) == Some("dve");
    if !is_dve && error.is_none() {
        return load_file(path, params); // keeps line numbers in every message
    }
    let (value, _) = to_json(path, error)?;
    load_str(&value.to_string(), &path.display().to_string(), params)
}

/// The model at `path` as weft/1 JSON (DVE translated), with warnings.
pub fn to_json(path: &Path, error: Option<&str>) -> LResult<(Value, Vec<String>)> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        Box::new(Diagnostic::new(
            &file,
            "",
            format!("cannot read the model file: {e}"),
        ))
    })?;
    if path.extension().and_then(|e| e.to_str()) == Some("dve") {
        return super::dve::to_weft(&text, &file, error);
    }
    let mut value: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| syntax_error(&text, &file, &e))?;
    if let (Some(e), Some(obj)) = (error, value.as_object_mut()) {
        obj.insert(
            "properties".into(),
            serde_json::json!([{"name": "error", "error": e}]),
        );
    }
    Ok((value, Vec::new()))
}

/// Compiles a model from its JSON text; `file` is used in messages.
pub fn load_str(text: &str, file: &str, params: &[(String, i64)]) -> LResult<Program> {
    Ok(load_with_names(text, file, params)?.0)
}

fn load_with_names(text: &str, file: &str, params: &[(String, i64)]) -> LResult<(Program, Names)> {
    let value = parse_json(text, file, "model")?;
    let mut loader = Loader {
        file,
        names: Names::default(),
    };
    let prog = loader.model(&Node::root(&value, file), params)?;
    Ok((prog, loader.names))
}

/// Reads a model and replaces its exception set with the one in
/// `exceptions` (a JSON array of entries, or an object with an
/// `exceptions` array, as in a model file).
pub fn load_with_exceptions(
    path: &Path,
    params: &[(String, i64)],
    exceptions: &Path,
) -> LResult<Program> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        Box::new(Diagnostic::new(
            &file,
            "",
            format!("cannot read the model file: {e}"),
        ))
    })?;
    let (mut prog, names) = load_with_names(&text, &file, params)?;
    let efile = exceptions.display().to_string();
    let etext = std::fs::read_to_string(exceptions).map_err(|e| {
        Box::new(Diagnostic::new(
            &efile,
            "",
            format!("cannot read the exceptions file: {e}"),
        ))
    })?;
    let value = parse_json(&etext, &efile, "exceptions")?;
    let root = Node::root(&value, &efile);
    let entries = match value {
        Value::Object(_) => root.req("exceptions", "an array of exception entries")?,
        _ => root,
    };
    prog.exceptions = Loader {
        file: &efile,
        names,
    }
    .exceptions(&entries)?;
    Ok(prog)
}

/// Parses a JSON file (a leading byte-order mark is ignored); an empty
/// file, a syntax error or a duplicate key is a diagnostic with the line
/// and column.
fn parse_json(text: &str, file: &str, what: &str) -> LResult<Value> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(Box::new(Diagnostic::new(
            file,
            "",
            format!("the {what} file is empty: expected a JSON object"),
        )));
    }
    super::json::parse_strict(text).map_err(|e| syntax_error(text, file, &e))
}

fn syntax_error(text: &str, file: &str, e: &serde_json::Error) -> Box<Diagnostic> {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let at = (line_start + e.column().saturating_sub(1)).min(text.len());
    let msg = e.to_string();
    let msg = msg.split(" at line").next().unwrap_or(&msg).to_string();
    let mut d = Diagnostic::new(
        file,
        "",
        format!(
            "invalid JSON: {msg} (line {}, column {})",
            e.line(),
            e.column()
        ),
    )
    .with_snippet(text, expr::Span::new(at, (at + 1).min(text.len())), "here");
    let rest = text.get(at..).unwrap_or("");
    if rest.starts_with("//") || rest.starts_with("/*") || rest.starts_with('#') {
        d = d.note("JSON has no comments; put free text in a \"description\" field");
    } else if rest.starts_with('\'') {
        d = d.note("JSON strings use double quotes");
    }
    Box::new(d)
}

struct Loader<'a> {
    file: &'a str,
    names: Names,
}

/// Per-slot initial values: one value, or every value of the domain.
type SlotInit = Vec<Vec<Val>>;

struct RawTemplate<'a> {
    node: Node<'a>,
    start: u16,
    count: u32,
    local_init: SlotInit,
}

impl<'a> Loader<'a> {
    fn model(&mut self, root: &Node<'a>, overrides: &[(String, i64)]) -> LResult<Program> {
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

    fn rest(&mut self, root: &Node<'a>, name: String, description: String) -> LResult<Program> {
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
            raws.push(self.template_names(tn)?);
        }
        if self.names.templates.iter().all(|t| t.count == 0) {
            return Err(
                threads_node.err("every thread template has count 0: the model has no threads")
            );
        }
        let mut templates = Vec::new();
        for (i, raw) in raws.into_iter().enumerate() {
            templates.push(self.template(i, raw)?);
        }
        let threads = self
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

        let mut properties =
            self.properties(&root.req("properties", "an array of properties (at least one)")?)?;
        if let Some(p) = self.assertions(&templates) {
            properties.push(p);
        }
        let exceptions = match root.get("exceptions") {
            Some(e) => self.exceptions(&e)?,
            None => Vec::new(),
        };
        let expect = match root.get("expect") {
            Some(e) => expect(&e)?,
            None => Vec::new(),
        };
        Ok(Program {
            name,
            description,
            params: self.names.params.clone(),
            globals,
            init_globals,
            templates,
            threads,
            properties,
            exceptions,
            expect,
            channels: self.names.channels.clone(),
        })
    }

    /// A rendezvous: `c!e`, `c!`, `c?x`, `c?a[i]` or `c?`.
    fn sync_op(&self, node: &Node<'a>, ti: usize) -> LResult<SyncOp> {
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

    /// A number: an integer, or a string expression over params.
    fn number(&self, node: &Node<'a>, what: &str) -> LResult<i64> {
        match node.value {
            Value::Number(n) => n
                .as_i64()
                .ok_or_else(|| node.err(format!("{what} must be an integer, found {n}"))),
            Value::String(s) => {
                let e = self.parse(node, s, expr::parse_expr)?;
                let r = self.resolver(node, s);
                match r.compile_ty(&e, &Scope::Const, Ty::Int, what)? {
                    CExpr::Const(v) => Ok(v),
                    _ => Err(node.err(format!("{what} must be a constant over params"))),
                }
            }
            other => Err(node.err(format!(
                "{what} must be an integer or an expression over params, found {other}"
            ))),
        }
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
        let e = self.parse(node, text, expr::parse_expr)?;
        self.resolver(node, text).compile_ty(&e, scope, ty, what)
    }

    /// Lays out variables from `first_slot`; returns per-slot initial values.
    fn layout(&self, node: &Node<'a>, first_slot: u32, what: &str) -> LResult<(Layout, SlotInit)> {
        let mut layout = Layout {
            vars: Vec::new(),
            slots: first_slot,
        };
        let mut init = Vec::new();
        for (name, spec) in node.entries(&format!("{what} (name -> variable spec)"))? {
            check_ident(&spec, name, "variable")?;
            let (domain, len, slot_init) = self.var_spec(&spec)?;
            layout.vars.push(Var {
                name: name.to_string(),
                domain,
                len,
                slot: layout.slots,
            });
            layout.slots += len.unwrap_or(1);
            init.extend(slot_init);
        }
        Ok((layout, init))
    }

    fn var_spec(&self, spec: &Node<'a>) -> LResult<(Domain, Option<u32>, SlotInit)> {
        spec.object(
            "a variable spec like {\"type\": \"int\", \"min\": 0, \"max\": 3, \"init\": 0}",
        )?;
        let ty = spec.req("type", "\"bool\", \"int\" or \"array\"")?;
        let ty_s = ty.str("the variable type")?;
        match ty_s {
            "bool" | "int" => {
                spec.check_keys(&["type", "min", "max", "init"], "a variable spec")?;
                let d = self.scalar_domain(spec, ty_s)?;
                let init = self.init_values(spec, spec.get("init"), d, None)?;
                Ok((d, None, init))
            }
            "array" => {
                spec.check_keys(&["type", "len", "of", "init"], "an array spec")?;
                let len_node = spec.req("len", "the array length")?;
                let len = self.number(&len_node, "the array length")?;
                if !(1..=1_000_000).contains(&len) {
                    return Err(len_node.err(format!(
                        "array length must be between 1 and 1000000, found {len}"
                    )));
                }
                let of = spec.req(
                    "of",
                    "the element type, e.g. {\"type\": \"int\", \"min\": 0, \"max\": 1}",
                )?;
                of.object("an element spec")?;
                of.check_keys(&["type", "min", "max", "init"], "an element spec")?;
                let et = of.req("type", "\"bool\" or \"int\"")?;
                let et_s = et.str("the element type")?;
                if et_s != "bool" && et_s != "int" {
                    return Err(et.err(format!(
                        "array elements must be \"bool\" or \"int\", found \"{et_s}\""
                    )));
                }
                let d = self.scalar_domain(&of, et_s)?;
                let init_node = spec.get("init").or_else(|| of.get("init"));
                let init = self.init_values(spec, init_node, d, Some(len as u32))?;
                Ok((d, Some(len as u32), init))
            }
            other => {
                let hint = did_you_mean(other, ["bool", "int", "array"])
                    .map(|s| format!(" (did you mean \"{s}\"?)"))
                    .unwrap_or_default();
                Err(ty.err(format!("unknown variable type \"{other}\"{hint}: expected \"bool\", \"int\" or \"array\"")))
            }
        }
    }

    fn scalar_domain(&self, spec: &Node<'a>, ty: &str) -> LResult<Domain> {
        if ty == "bool" {
            for k in ["min", "max"] {
                if let Some(n) = spec.get(k) {
                    return Err(n.err(format!("a bool has no `{k}`")));
                }
            }
            return Ok(Domain {
                min: 0,
                max: 1,
                is_bool: true,
            });
        }
        let min_n = spec.req("min", "the smallest value of the int")?;
        let max_n = spec.req("max", "the largest value of the int")?;
        let min = self.number(&min_n, "`min`")?;
        let max = self.number(&max_n, "`max`")?;
        if min > max {
            return Err(spec.err(format!("empty range: min {min} is greater than max {max}")));
        }
        if min < i32::MIN as i64 || max > i32::MAX as i64 {
            return Err(spec.err(format!("range {min}..{max} does not fit in 32 bits")));
        }
        Ok(Domain {
            min,
            max,
            is_bool: false,
        })
    }

    /// Initial values of a scalar (`len` None) or of an array's cells.
    fn init_values(
        &self,
        spec: &Node<'a>,
        node: Option<Node<'a>>,
        d: Domain,
        len: Option<u32>,
    ) -> LResult<SlotInit> {
        let cells = len.unwrap_or(1);
        let one = |n: &Node<'a>| -> LResult<Vec<Val>> {
            match n.value {
                Value::String(s) if s == "any" => Ok((d.min..=d.max).map(|v| v as Val).collect()),
                Value::Bool(b) if d.is_bool => Ok(vec![*b as Val]),
                Value::Number(_) if !d.is_bool => {
                    let v = self.number(n, "the initial value")?;
                    if !d.contains(v) {
                        return Err(n.err(format!(
                            "initial value {v} is outside the range {}",
                            d.describe()
                        )));
                    }
                    Ok(vec![v as Val])
                }
                Value::String(s) if !d.is_bool => {
                    let v = self.number(n, "the initial value")?;
                    if !d.contains(v) {
                        return Err(n.err(format!(
                            "initial value {v} (`{s}`) is outside the range {}",
                            d.describe()
                        )));
                    }
                    Ok(vec![v as Val])
                }
                other => Err(n.err(format!(
                    "initial value must be {} or \"any\", found {other}",
                    if d.is_bool {
                        "true/false"
                    } else {
                        "an integer"
                    }
                ))),
            }
        };
        let Some(node) = node else {
            // Zero-initialised, as in SPIN and DVE.
            if !d.contains(0) {
                return Err(spec.err(format!("a variable with range {} needs an `init`: the default initial value 0 is not in its range", d.describe())));
            }
            return Ok(vec![vec![0]; cells as usize]);
        };
        match node.value {
            Value::Array(_) if len.is_none() => Err(node.err(
                "this variable is not an array: its `init` must be one value or \"any\", not a list (for an array use {\"type\": \"array\", \"len\": …, \"of\": …})",
            )),
            Value::Array(_) => {
                let items = node.array("initial values")?;
                if items.len() != cells as usize {
                    return Err(node.err(format!("{} initial values given for an array of length {cells}", items.len())));
                }
                items.iter().map(one).collect()
            }
            _ => {
                let v = one(&node)?;
                Ok(vec![v; cells as usize])
            }
        }
    }

    /// First pass over a template: names, locations, groups, locals.
    fn template_names(&mut self, tn: Node<'a>) -> LResult<RawTemplate<'a>> {
        tn.check_keys(
            &[
                "name",
                "count",
                "locals",
                "locations",
                "start",
                "groups",
                "transitions",
            ],
            "a thread template",
        )?;
        let name_n = tn.req("name", "the template name")?;
        let name = name_n.str("the template name")?.to_string();
        check_ident(&name_n, &name, "thread template")?;
        if self.names.templates.iter().any(|t| t.name == name) {
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
            None => (
                Layout {
                    vars: Vec::new(),
                    slots: 1,
                },
                Vec::new(),
            ),
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
                for x in ln.array("declared locations")? {
                    let s = location_name(&x)?;
                    if v.iter().any(|l| l == s) {
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
        let mut note = |node: &Node<'a>, s: &str| -> LResult<()> {
            if locations.iter().any(|l| l == s) {
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
            locations.push(s.to_string());
            Ok(())
        };
        let start_n = tn.req("start", "the initial location")?;
        let start_name = location_name(&start_n)?.to_string();
        note(&start_n, &start_name)?;
        let trans = tn.req("transitions", "an array of transitions")?;
        for t in trans.array("transitions")? {
            t.object("a transition")?;
            let from = t.req("from", "the source location (or an array of them)")?;
            let froms: Vec<Node> = match from.value {
                Value::Array(_) => from.array("source locations")?,
                _ => vec![from],
            };
            for f in froms {
                note(&f, location_name(&f)?)?;
            }
            let to = t.req("to", "the target location")?;
            note(&to, location_name(&to)?)?;
        }
        let start = locations.iter().position(|l| *l == start_name).unwrap_or(0) as u16;
        if locations.len() > u16::MAX as usize {
            return Err(tn.err("too many locations"));
        }
        let mut groups = Vec::new();
        if let Some(g) = tn.get("groups") {
            for (gname, members) in g.entries("groups (name -> array of locations)")? {
                if locations.iter().any(|l| l == gname) {
                    return Err(members.err(format!(
                        "the group `{gname}` has the same name as a location"
                    )));
                }
                let mut locs = Vec::new();
                for m in members.array("the group's locations")? {
                    let s = location_name(&m)?;
                    let Some(i) = locations.iter().position(|l| l == s) else {
                        let mut d = *m.err(format!("the group `{gname}` names `{s}`, which is not a location of `{name}` (locations are the names used in start, from and to)"));
                        if let Some(h) = did_you_mean(s, locations.iter().map(|s| s.as_str())) {
                            d = d.note(format!("did you mean `{h}`?"));
                        }
                        return Err(Box::new(d.note(format!(
                            "the locations of `{name}` are: {}",
                            locations.join(", ")
                        ))));
                    };
                    locs.push(i as u16);
                }
                groups.push((gname.to_string(), locs));
            }
        }
        let first_thread = self.names.templates.iter().map(|t| t.count).sum();
        self.names.templates.push(TplNames {
            name,
            count,
            first_thread,
            locations,
            groups,
            locals,
        });
        Ok(RawTemplate {
            node: tn,
            start,
            count,
            local_init,
        })
    }

    /// Second pass: compiles the transitions of template `ti`.
    fn template(&self, ti: usize, raw: RawTemplate<'a>) -> LResult<Template> {
        let names = &self.names.templates[ti];
        let scope = Scope::Thread(ti);
        let loc_index = |n: &str| names.locations.iter().position(|l| l == n).unwrap_or(0) as u16;
        let mut transitions = Vec::new();
        for (j, t) in raw
            .node
            .req("transitions", "")?
            .array("transitions")?
            .into_iter()
            .enumerate()
        {
            t.check_keys(
                &["from", "to", "when", "do", "assert", "label", "sync"],
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
            transitions.push(Transition {
                sync,
                index: j as u32,
                from,
                to,
                guard,
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
        let mut slots = vec![vec![raw.start as Val]];
        slots.extend(raw.local_init);
        let init = product(&slots, &raw.node)?;
        Ok(Template {
            name: names.name.clone(),
            count: raw.count,
            locations: names.locations.clone(),
            groups: names.groups.clone(),
            locals: names.locals.clone(),
            start: raw.start,
            transitions,
            outgoing,
            init,
        })
    }

    fn actions(&self, node: &Node<'a>, ti: usize) -> LResult<Vec<Action>> {
        let text = node.str("assignments (`x := e; y := any`)")?;
        let assigns = self.parse(node, text, expr::parse_assignments)?;
        let r = self.resolver(node, text);
        let scope = Scope::Thread(ti);
        let locals = &self.names.templates[ti].locals;
        let mut out = Vec::new();
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
                Rhs::Any(_) => None,
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

    fn properties(&self, node: &Node<'a>) -> LResult<Vec<Property>> {
        let items = node.array("properties")?;
        if items.is_empty() {
            return Err(node.err("a model needs at least one property"));
        }
        let mut out: Vec<Property> = Vec::new();
        for p in items {
            p.check_keys(&["name", "error", "invariant", "description"], "a property")?;
            let name_n = p.req("name", "the property name")?;
            let name = name_n.str("the property name")?.to_string();
            if out.iter().any(|q| q.name == name) {
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
            let error = if kind == PropertyKind::Invariant {
                CExpr::Un(expr::UnOp::Not, Box::new(c))
            } else {
                c
            };
            out.push(Property {
                name,
                kind,
                source: n.str("")?.to_string(),
                error,
            });
        }
        Ok(out)
    }

    /// The transitions' `assert`s as one property: some thread is at the
    /// source of an asserting transition and the assertion is false.
    fn assertions(&self, templates: &[Template]) -> Option<Property> {
        let mut disjuncts = Vec::new();
        for (ti, t) in templates.iter().enumerate() {
            let mut body: Option<CExpr> = None;
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
                body = Some(match body {
                    None => violated,
                    Some(b) => CExpr::Bin(expr::BinOp::Or, Box::new(b), Box::new(violated)),
                });
            }
            if let Some(b) = body {
                let tn = &self.names.templates[ti];
                let threads: Box<[u32]> = (tn.first_thread..tn.first_thread + tn.count).collect();
                disjuncts.push(CExpr::Bin(
                    expr::BinOp::Ge,
                    Box::new(CExpr::Count(threads, Box::new(b))),
                    Box::new(CExpr::Const(1)),
                ));
            }
        }
        let error = disjuncts
            .into_iter()
            .reduce(|a, b| CExpr::Bin(expr::BinOp::Or, Box::new(a), Box::new(b)))?;
        Some(Property {
            name: "assertions".into(),
            kind: PropertyKind::Assertions,
            source: "the transitions' `assert` fields".into(),
            error,
        })
    }

    fn exceptions(&self, node: &Node<'a>) -> LResult<Vec<ExceptionEntry>> {
        let mut out = Vec::new();
        let n_threads: u32 = self.names.templates.iter().map(|t| t.count).sum();
        for e in node.array("exception entries")? {
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
                            match self.names.templates.iter().position(|t| t.name == s) {
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
            out.push(ExceptionEntry {
                when,
                shape,
                path: e.path.clone(),
            });
        }
        Ok(out)
    }

    /// An instance name used as a key: `P1`, `p[2]`.
    fn instance_key(&self, node: &Node<'a>, key: &str) -> LResult<usize> {
        let e = self.parse(node, key, expr::parse_expr)?;
        self.resolver(node, key).instance(&e, &Scope::Property)
    }

    fn template_index(&self, thread: usize) -> usize {
        self.names
            .templates
            .iter()
            .position(|t| {
                (t.first_thread as usize..(t.first_thread + t.count) as usize).contains(&thread)
            })
            .unwrap_or(0)
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
    let mut out: Vec<Vec<Val>> = vec![Vec::with_capacity(slots.len())];
    for choices in slots {
        out = out
            .into_iter()
            .flat_map(|s| {
                choices.iter().map(move |&v| {
                    let mut s = s.clone();
                    s.push(v);
                    s
                })
            })
            .collect();
    }
    Ok(out.into_iter().map(Vec::into_boxed_slice).collect())
}

fn expect(node: &Node) -> LResult<Vec<(Mode, Verdict)>> {
    let mut out = Vec::new();
    for (k, v) in node.entries("expect (mode -> verdict)")? {
        let mode = Mode::parse(k).ok_or_else(|| {
            let hint = did_you_mean(k, Mode::ALL.map(Mode::name))
                .map(|h| format!(" (did you mean `{h}`?)"))
                .unwrap_or_default();
            v.err(format!(
                "unknown mode `{k}`{hint}: expected standard, thread-modular or cartesian-exc"
            ))
        })?;
        let s = v.str("a verdict")?;
        let verdict = Verdict::parse(s).ok_or_else(|| {
            v.err(format!(
                "unknown verdict `{s}`: expected safe, unsafe or unknown"
            ))
        })?;
        out.push((mode, verdict));
    }
    Ok(out)
}
