//! DVE syntax tree to weft/1 JSON: variables with DiVinE's ranges and
//! wrap-around, processes as thread templates, expressions coerced between
//! ints and bools, channels as rendezvous or as FIFOs in two globals, and
//! the source map from the translation back to the DVE text.

use super::SourceMap;
use super::ast::{DChannel, DExpr, DProc, DVar};
use super::parse::Parser;
use crate::model::diag::Diagnostic;
use crate::model::expr::Span;
use serde_json::{Map, Value, json};

/// Weft words a DVE identifier may not use as is; such names get a `_`.
const RESERVED: &[&str] = &[
    "true", "false", "tid", "any", "count", "exists", "forall", "and", "or", "not", "int", "pc",
];

/// Renames DVE identifiers that are weft words.
fn ident(name: &str) -> String {
    if RESERVED.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// Emits weft expressions from DVE ones, coercing between ints and bools,
/// with one renaming table (process locals that shadow globals).
struct Emit<'a> {
    rename: &'a [(String, String)],
}

impl Emit<'_> {
    fn name(&self, n: &str) -> String {
        self.rename
            .iter()
            .find(|(a, _)| a == n)
            .map(|(_, b)| b.clone())
            .unwrap_or_else(|| ident(n))
    }
    fn is_bool(e: &DExpr) -> bool {
        match e {
            DExpr::Un("!", _) => true,
            DExpr::Bin(op, ..) => {
                matches!(*op, "==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||")
            }
            _ => false,
        }
    }
    fn int(&self, e: &DExpr) -> String {
        if Self::is_bool(e) {
            return format!("int({})", self.bool(e));
        }
        match e {
            DExpr::Num(v) if *v < 0 => format!("({v})"),
            DExpr::Num(v) => v.to_string(),
            DExpr::Var(n) => self.name(n),
            DExpr::Index(a, i) => format!("{}[{}]", self.name(a), self.int(i)),
            DExpr::Un(op, a) => format!("({op}{})", self.int(a)),
            DExpr::Bin(op, a, b) => format!("({} {op} {})", self.int(a), self.int(b)),
        }
    }
    fn bool(&self, e: &DExpr) -> String {
        match e {
            DExpr::Un("!", a) => format!("(!{})", self.bool(a)),
            DExpr::Bin(op @ ("&&" | "||"), a, b) => {
                format!("({} {op} {})", self.bool(a), self.bool(b))
            }
            DExpr::Bin(op @ ("==" | "!=" | "<" | "<=" | ">" | ">="), a, b) => {
                format!("({} {op} {})", self.int(a), self.int(b))
            }
            _ => format!("({} != 0)", self.int(e)),
        }
    }
}

/// Why a declaration cannot be translated (reported at the declaration).
#[derive(Debug, thiserror::Error)]
enum Error {
    /// The variable's initial value is not a constant expression.
    #[error("the initial value of `{0}` must be a constant (within 64 bits, no division by zero)")]
    InitNotConstant(String),
}

fn var_json(v: &DVar, consts: &Parser) -> Result<Value, Error> {
    let (min, max) = if v.is_int { (-32768, 32767) } else { (0, 255) };
    let values: Vec<i64> = v
        .init
        .iter()
        .map(|e| {
            consts
                .const_eval(e)
                .ok_or_else(|| Error::InitNotConstant(v.name.clone()))
        })
        .collect::<Result<_, _>>()?;
    // DiVinE stores initial values truncated like any other assignment.
    // (Without `x + 32768`, which could overflow on a huge constant.)
    let wrap = |x: i64| {
        if v.is_int {
            let r = x.rem_euclid(65536);
            if r > 32767 { r - 65536 } else { r }
        } else {
            x.rem_euclid(256)
        }
    };
    let scalar = json!({"type": "int", "min": min, "max": max});
    Ok(match v.len {
        None => {
            let mut s = scalar;
            s["init"] = json!(wrap(values.first().copied().unwrap_or(0)));
            s
        }
        Some(n) => {
            // `n` is within 1..=1000000 (the parser checked it). Cells all
            // equal (all zero, most often) are written as one value, so a
            // large array costs nothing in the translation.
            let mut cells: Vec<i64> = values.into_iter().map(wrap).collect();
            if cells.iter().all(|c| *c == 0) {
                json!({"type": "array", "len": n, "of": scalar, "init": 0})
            } else {
                cells.resize(n as usize, 0);
                json!({"type": "array", "len": n, "of": scalar, "init": cells})
            }
        }
    })
}

/// An assignment of a DVE value, truncated to the target's width as
/// DiVinE stores it.
fn wrap(value: &str, is_int: bool) -> String {
    if is_int {
        format!("(({value} + 32768) % 65536 + 65536) % 65536 - 32768")
    } else {
        format!("({value} % 256 + 256) % 256")
    }
}

/// Translates the parsed model (its names already checked) to weft/1, with
/// the source map of the translation.
pub(super) fn translate(
    text: &str,
    file: &str,
    error: Option<&str>,
    p: &Parser,
    globals: &[DVar],
    procs: &[DProc],
    channels: &[DChannel],
) -> Result<(Value, SourceMap), Box<Diagnostic>> {
    let mut map = SourceMap {
        file: file.to_string(),
        text: text.to_string(),
        spans: Vec::new(),
    };
    let err_at = |at: usize, msg: String| {
        Box::new(Diagnostic::new(file, "", msg.clone()).with_snippet(
            text,
            Span::new(at, at + 1),
            msg,
        ))
    };
    let name_span = |at: usize, name: &str| Span::new(at, at + name.len());
    let mut gjson = Map::new();
    for g in globals {
        gjson.insert(
            ident(&g.name),
            var_json(g, p).map_err(|m| err_at(g.at, m.to_string()))?,
        );
        map.add(
            format!("globals.{}", ident(&g.name)),
            name_span(g.at, &g.name),
            "this variable",
        );
    }
    // A buffered channel is a FIFO in two globals: its cells and its length.
    let fifo = |c: &DChannel| {
        (
            format!("{}_buf", ident(&c.name)),
            format!("{}_len", ident(&c.name)),
        )
    };
    for c in channels.iter().filter(|c| c.buffer > 0) {
        let (buf, len) = fifo(c);
        for v in [&buf, &len] {
            if gjson.contains_key(v) {
                return Err(err_at(
                    c.at,
                    format!(
                        "the buffer of channel `{}` needs a variable `{v}`, which the model already has; rename it",
                        c.name
                    ),
                ));
            }
        }
        let (min, max) = if c.is_int { (-32768, 32767) } else { (0, 255) };
        gjson.insert(buf.clone(), json!({"type": "array", "len": c.buffer, "of": {"type": "int", "min": min, "max": max}, "init": vec![0; c.buffer as usize]}));
        gjson.insert(
            len.clone(),
            json!({"type": "int", "min": 0, "max": c.buffer, "init": 0}),
        );
        map.add(
            format!("globals.{buf}"),
            name_span(c.at, &c.name),
            "this channel",
        );
        map.add(
            format!("globals.{len}"),
            name_span(c.at, &c.name),
            "this channel",
        );
    }
    let mut threads = Vec::new();
    let global_names: std::collections::HashSet<&str> =
        globals.iter().map(|g| g.name.as_str()).collect();
    for (pi, pr) in procs.iter().enumerate() {
        let at_proc = format!("threads[{pi}]");
        map.add(at_proc.clone(), name_span(pr.at, &pr.name), "this process");
        map.add(
            format!("{at_proc}.start"),
            name_span(pr.init_at, &pr.init),
            "this initial state",
        );
        for (k, (st, at)) in pr.states.iter().enumerate() {
            map.add(
                format!("{at_proc}.locations[{k}]"),
                name_span(*at, st),
                "this state",
            );
        }
        // A local that shadows a global is renamed (weft forbids shadowing).
        let rename: Vec<(String, String)> = pr
            .locals
            .iter()
            .filter(|l| global_names.contains(l.name.as_str()))
            .map(|l| (l.name.clone(), format!("{}_{}", ident(&l.name), pr.name)))
            .collect();
        let em = Emit { rename: &rename };
        let is_int_var = |n: &str| {
            pr.locals
                .iter()
                .chain(globals.iter())
                .find(|v| v.name == n)
                .is_some_and(|v| v.is_int)
        };
        let assign = |lhs: &DExpr, rhs: Option<&DExpr>, value: String| {
            let is_int = match lhs {
                DExpr::Var(n) | DExpr::Index(n, _) => is_int_var(n),
                _ => false,
            };
            let (min, max) = if is_int { (-32768, 32767) } else { (0, 255) };
            match rhs {
                // A constant in range needs no truncation (readable output).
                Some(DExpr::Num(v)) if (min..=max).contains(v) => {
                    format!("{} := {value}", em.int(lhs))
                }
                _ => format!("{} := {}", em.int(lhs), wrap(&value, is_int)),
            }
        };
        let mut locals = Map::new();
        for l in &pr.locals {
            locals.insert(
                em.name(&l.name),
                var_json(l, p).map_err(|m| err_at(l.at, m.to_string()))?,
            );
            map.add(
                format!("{at_proc}.locals.{}", em.name(&l.name)),
                name_span(l.at, &l.name),
                "this variable",
            );
        }
        let mut transitions = Vec::new();
        for (ti, t) in pr.trans.iter().enumerate() {
            let at_t = format!("{at_proc}.transitions[{ti}]");
            map.add(at_t.clone(), t.head, "this transition");
            let mut guards: Vec<String> = t.guard.iter().map(|g| em.bool(g)).collect();
            let mut assigns: Vec<String> = Vec::new();
            if let Some(span) = t.guard_at {
                map.add(format!("{at_t}.when"), span, "this guard");
            }
            let mut tj = Map::new();
            tj.insert("from".into(), json!(t.from));
            tj.insert("to".into(), json!(t.to));
            if let Some((chan, send, arg)) = &t.sync {
                let buffered = channels.iter().find(|c| c.name == *chan && c.buffer > 0);
                let sync_span = t.sync_at.unwrap_or(t.head);
                match buffered {
                    Some(c) => {
                        let (buf, len) = fifo(c);
                        let n = c.buffer;
                        if *send {
                            guards.push(format!("{len} < {n}"));
                            let v = arg.as_ref().map_or_else(|| "0".to_string(), |a| em.int(a));
                            assigns.push(format!("{buf}[{len}] := {}", wrap(&v, c.is_int)));
                            assigns.push(format!("{len} := {len} + 1"));
                        } else {
                            guards.push(format!("{len} > 0"));
                            if let Some(target) = arg {
                                assigns.push(assign(target, None, format!("{buf}[0]")));
                            }
                            for k in 1..n {
                                assigns.push(format!("{buf}[{}] := {buf}[{k}]", k - 1));
                            }
                            assigns.push(format!("{buf}[{}] := 0", n - 1));
                            assigns.push(format!("{len} := {len} - 1"));
                        }
                        map.add(
                            format!("{at_t}.when"),
                            t.guard_at.unwrap_or(sync_span),
                            "this guard and sync",
                        );
                        map.add(format!("{at_t}.do"), sync_span, "this sync");
                    }
                    None => {
                        let arg = arg.as_ref().map(|a| em.int(a)).unwrap_or_default();
                        tj.insert(
                            "sync".into(),
                            json!(format!(
                                "{}{}{arg}",
                                ident(chan),
                                if *send { "!" } else { "?" }
                            )),
                        );
                        map.add(format!("{at_t}.sync"), sync_span, "this sync");
                    }
                }
            }
            if !guards.is_empty() {
                tj.insert("when".into(), json!(guards.join(" && ")));
            }
            assigns.extend(
                t.effects
                    .iter()
                    .map(|(lhs, rhs)| assign(lhs, Some(rhs), em.int(rhs))),
            );
            if let Some(span) = t.effects_at {
                map.add(format!("{at_t}.do"), span, "these effects");
            }
            if !assigns.is_empty() {
                tj.insert("do".into(), json!(assigns.join("; ")));
            }
            transitions.push(Value::Object(tj));
        }
        threads.push(json!({
            "name": pr.name,
            "locations": pr.states.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            "start": pr.init,
            "locals": locals,
            "transitions": transitions,
            // DiVinE knows no end states: a state where no process can move
            // is a deadlock wherever the processes are.
            "final": [],
        }));
    }
    let properties = match error {
        Some(e) => json!([{"name": "error", "error": e}]),
        // A global named `deadlock` hides the built-in (dve/mod.rs warns).
        None if globals.iter().any(|g| g.name == "deadlock") => {
            json!([{"name": "state-space", "error": "false"}])
        }
        // As DiVinE does: the whole state space, and its deadlocks.
        None => json!([
            {"name": "state-space", "error": "false"},
            {"name": "deadlock", "error": "deadlock"}
        ]),
    };
    let name = std::path::Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("dve")
        .to_string();
    let mut model = json!({
        "format": "weft/1",
        "name": name,
        "description": format!("Translated from the DVE model {file}."),
        "globals": gjson,
        "threads": threads,
        "properties": properties,
    });
    let rendezvous: Vec<String> = channels
        .iter()
        .filter(|c| c.buffer == 0)
        .map(|c| ident(&c.name))
        .collect();
    if !rendezvous.is_empty() {
        model["channels"] = json!(rendezvous);
    }
    Ok((model, map))
}
