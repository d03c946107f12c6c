//! DVE syntax tree to weft/1 JSON: variables with DiVinE's ranges (an
//! out-of-range assignment is a model error), processes as thread templates, expressions coerced between
//! ints and bools, channels as rendezvous or as FIFOs in two globals,
//! reads of other processes as reads of globals (location mirrors and
//! promoted locals), and the source map from the translation back to the
//! DVE text.

use super::SourceMap;
use super::ast::{DChannel, DExpr, DProc, DVar};
use super::emit_expr::{Emit, Remote, Remotes, array_values, ident, remote_refs};
use super::parse::Parser;
use crate::model::diag::Diagnostic;
use crate::model::expr::Span;
use crate::model::load::budget;
use serde_json::{Map, Value, json};

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
) -> Result<(Value, SourceMap, Vec<String>), Box<Diagnostic>> {
    let mut warnings = Vec::new();
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
    // References to other processes (`P.s`, `P.v`), resolved before any
    // process is emitted: a state of P makes P keep a location mirror, a
    // local of P read elsewhere becomes a global. Both are functions of
    // the state DiVinE stores, so the state space keeps its shape (same
    // states, same edges) and every mode sees these reads as reads of
    // globals, which is what they are: a thread reading another's state.
    let mirror_name = |q: &DProc| format!("{}_state", ident(&q.name));
    let promoted_name = |q: &DProc, v: &str| format!("{}_{}", ident(v), q.name);
    let mut remotes = Remotes::new();
    let mut mirrored: Vec<usize> = Vec::new();
    let mut promoted: Vec<(usize, String)> = Vec::new();
    for pr in procs {
        let mut refs = Vec::new();
        for t in &pr.trans {
            t.guard.iter().for_each(|g| remote_refs(g, &mut refs));
            if let Some((_, _, Some(a))) = &t.sync {
                remote_refs(a, &mut refs);
            }
            for (l, r) in &t.effects {
                remote_refs(l, &mut refs);
                remote_refs(r, &mut refs);
            }
        }
        for (process, member, at) in refs {
            let key = (process.to_string(), member.to_string());
            if remotes.contains_key(&key) {
                continue;
            }
            let Some(qi) = procs.iter().position(|q| q.name == process) else {
                return Err(err_at(
                    at,
                    format!("there is no process `{process}` (in `{process}.{member}`)"),
                ));
            };
            let q = &procs[qi];
            let r = if let Some(index) = q.states.iter().position(|(s, _)| s == member) {
                if !mirrored.contains(&qi) {
                    mirrored.push(qi);
                }
                Remote::State {
                    mirror: mirror_name(q),
                    index,
                }
            } else if q.locals.iter().any(|l| l.name == member) {
                promoted.push((qi, member.to_string()));
                Remote::Var {
                    global: promoted_name(q, member),
                }
            } else {
                return Err(err_at(
                    at,
                    format!("process `{process}` has no state or variable `{member}`"),
                ));
            };
            remotes.insert(key, r);
        }
    }
    let taken = |gjson: &Map<String, Value>, name: &str, at: usize, why: String| {
        if gjson.contains_key(name) {
            Err(err_at(
                at,
                format!("{why} needs a global `{name}`, which the model already has; rename it"),
            ))
        } else {
            Ok(())
        }
    };
    for &qi in &mirrored {
        let q = &procs[qi];
        let name = mirror_name(q);
        taken(
            &gjson,
            &name,
            q.at,
            format!("reading the state of process `{}`", q.name),
        )?;
        let init = q.states.iter().position(|(s, _)| *s == q.init).unwrap_or(0);
        gjson.insert(
            name.clone(),
            json!({"type": "int", "min": 0, "max": q.states.len().saturating_sub(1), "init": init}),
        );
        map.add(
            format!("globals.{name}"),
            name_span(q.at, &q.name),
            "this process",
        );
    }
    for (qi, v) in &promoted {
        let q = &procs[*qi];
        let name = promoted_name(q, v);
        let Some(l) = q.locals.iter().find(|l| l.name == *v) else {
            continue;
        };
        taken(
            &gjson,
            &name,
            l.at,
            format!("reading `{}.{v}` from another process", q.name),
        )?;
        gjson.insert(
            name.clone(),
            var_json(l, p).map_err(|m| err_at(l.at, m.to_string()))?,
        );
        map.add(
            format!("globals.{name}"),
            name_span(l.at, &l.name),
            "this variable",
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
        // So is a local promoted to a global (read by another process).
        let is_promoted = |v: &str| promoted.iter().any(|(q, n)| *q == pi && n == v);
        let rename: Vec<(String, String)> = pr
            .locals
            .iter()
            .filter(|l| global_names.contains(l.name.as_str()) || is_promoted(&l.name))
            .map(|l| (l.name.clone(), promoted_name(pr, &l.name)))
            .collect();
        let arrays: Vec<&str> = pr
            .locals
            .iter()
            .filter(|l| l.len.is_some())
            .chain(
                globals
                    .iter()
                    .filter(|g| g.len.is_some() && !pr.locals.iter().any(|l| l.name == g.name)),
            )
            .map(|v| v.name.as_str())
            .collect();
        for t in &pr.trans {
            let mut named = Vec::new();
            t.guard
                .iter()
                .for_each(|g| array_values(g, &arrays, &mut named));
            if let Some((_, _, Some(a))) = &t.sync {
                array_values(a, &arrays, &mut named);
            }
            for (l, r) in &t.effects {
                array_values(l, &arrays, &mut named);
                array_values(r, &arrays, &mut named);
            }
            for n in named {
                let w = format!(
                    "{file}: process `{}` uses the array `{n}` as a value; it is read and written as `{n}[0]`, as DiVinE does",
                    pr.name
                );
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
            }
        }
        let em = Emit {
            rename: &rename,
            remotes: &remotes,
            arrays: &arrays,
        };
        // An assignment stores its value as it is: one outside the
        // variable's range (0..255 for `byte`, -32768..32767 for `int`) is
        // a model error, reported with its trace, and the transition has no
        // successor. DiVinE's interpreter refused such assignments too: the
        // published counts of anderson.1 and anderson.3 (docs/beem.md,
        // "Overflow") rule out wrap-around.
        let assign = |lhs: &DExpr, value: String| format!("{} := {value}", em.int(lhs));
        let mut locals = Map::new();
        for l in pr.locals.iter().filter(|l| !is_promoted(&l.name)) {
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
            // The budgets hold here too, checked per transition as in parsing.
            budget::check(file)?;
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
                            assigns.push(format!("{buf}[{len}] := {v}"));
                            assigns.push(format!("{len} := {len} + 1"));
                        } else {
                            guards.push(format!("{len} > 0"));
                            if let Some(target) = arg {
                                assigns.push(assign(target, format!("{buf}[0]")));
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
            assigns.extend(t.effects.iter().map(|(lhs, rhs)| assign(lhs, em.int(rhs))));
            if let Some(span) = t.effects_at {
                map.add(format!("{at_t}.do"), span, "these effects");
            }
            // The location mirror follows the move (read as `P.s` elsewhere).
            if mirrored.contains(&pi)
                && t.from != t.to
                && let Some(k) = pr.states.iter().position(|(s, _)| *s == t.to)
            {
                assigns.push(format!("{} := {k}", mirror_name(pr)));
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
    Ok((model, map, warnings))
}
