//! Reads back a trace that `weft check --format json` (or `weft simulate
//! --format json`) printed, for `weft replay`: the whole JSON Lines output
//! of a run (the first line with a trace, or the line of a named property),
//! one such line, or a bare trace object `{"initial", "trace", "failure"}`,
//! compact or pretty-printed. The inverse of `json.rs`'s `trace_fields`;
//! bad input is a `Diagnostic` naming the file, the line and the JSON path.

use crate::LoadOptions;
use crate::engine::result::{Partner, Store, Trace, TraceStep};
use crate::model::Diagnostic;
use crate::model::load::budget;
use serde_json::Value;
use std::path::Path;

/// A counterexample read from a file, with the property it is for.
#[derive(Clone, Debug)]
pub struct SavedTrace {
    /// The property the trace was saved for: its line's `property`, or the
    /// one asked for.
    pub property: Option<String>,
    /// The trace.
    pub trace: Trace,
}

impl SavedTrace {
    /// Reads a trace file; `property` picks the line of that property in a
    /// run's output (default: the first line with a trace).
    ///
    /// ```no_run
    /// let saved = weft::SavedTrace::load("trace.jsonl", Some("mutex")).unwrap();
    /// let model = weft::Model::load("models/bug-ticket-lock.json").unwrap();
    /// let report = model.replay(&saved.trace, saved.property.as_deref()).unwrap();
    /// assert!(report.confirmed());
    /// ```
    pub fn load(
        path: impl AsRef<Path>,
        property: Option<&str>,
    ) -> Result<SavedTrace, Box<Diagnostic>> {
        SavedTrace::load_with(path, property, &LoadOptions::default())
    }

    /// As [`SavedTrace::load`], within the budgets of `opts` (`timeout`,
    /// `max_memory_bytes`, `started`; its other fields are the model's):
    /// once one runs out, the error's [`Diagnostic::budget_exhausted`]
    /// says which, in [`crate::Phase::ReadingTrace`].
    pub fn load_with(
        path: impl AsRef<Path>,
        property: Option<&str>,
        opts: &LoadOptions,
    ) -> Result<SavedTrace, Box<Diagnostic>> {
        let path = path.as_ref();
        let file = path.display().to_string();
        crate::phase::enter(crate::Phase::ReadingTrace);
        budget::with_limits(opts.limits(), || {
            let text = crate::model::read::read_text(path, "trace")?;
            SavedTrace::parse(&text, &file, property)
        })
    }

    /// As [`SavedTrace::load`], from the file's text; `file` names it in
    /// messages.
    pub fn parse(
        text: &str,
        file: &str,
        property: Option<&str>,
    ) -> Result<SavedTrace, Box<Diagnostic>> {
        let err = |path: &str, msg: String| Box::new(Diagnostic::new(file, path, msg));
        // Every JSON value in the file, with the line it starts on.
        let mut values = super::trace_values::values(text, file)?;
        // `weft check --format json` ends with a summary line: no trace.
        values.retain(|(_, v)| v.get("summary").is_none() || v.get("trace").is_some());
        let several = values.len() > 1;
        let at = |line: usize, path: &str| match (several, path.is_empty()) {
            (true, true) => format!("line {line}"),
            (true, false) => format!("line {line}: {path}"),
            (false, _) => path.to_string(),
        };
        for (line, v) in &values {
            match v {
                Value::Object(m) if m.contains_key("trace") => {}
                Value::Object(_) => {
                    return Err(err(
                        &at(*line, ""),
                        "this object has no `trace` field: it is neither a line of `weft check --format json` nor a trace".into(),
                    ));
                }
                other => {
                    return Err(err(
                        &at(*line, ""),
                        format!(
                            "expected an object (a line of `weft check --format json`, or a trace), found {}",
                            kind(other)
                        ),
                    ));
                }
            }
        }
        let name = |v: &Value| {
            v.get("property")
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let listed = || {
            values
                .iter()
                .map(|(_, v)| {
                    let verdict = v.get("verdict").and_then(Value::as_str).unwrap_or("?");
                    format!(
                        "{} ({verdict})",
                        name(v).unwrap_or_else(|| "a trace".into())
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let chosen = match property {
            Some(p) => {
                let found = values
                    .iter()
                    .position(|(_, v)| name(v).as_deref() == Some(p));
                match found {
                    Some(i) => i,
                    // A bare trace: the property is the caller's word.
                    None if values.len() == 1 && name(&values[0].1).is_none() => 0,
                    None if values.is_empty() => {
                        return Err(err("", "the file is empty: it holds no trace".into()));
                    }
                    None => {
                        return Err(err(
                            "",
                            format!(
                                "no line of property `{p}` in the file (it has: {})",
                                listed()
                            ),
                        ));
                    }
                }
            }
            None => match values.iter().position(|(_, v)| !v["trace"].is_null()) {
                Some(i) => i,
                None if values.is_empty() => {
                    return Err(err("", "the file is empty: it holds no trace".into()));
                }
                None => {
                    return Err(err(
                        "",
                        format!("no line of the file has a trace (it has: {})", listed()),
                    ));
                }
            },
        };
        // The chosen line alone is kept, and read by moving its values out
        // (a long trace's JSON tree is many times its file).
        let (line, v) = values.swap_remove(chosen);
        drop(values);
        if v["trace"].is_null() {
            return Err(err(
                &at(line, "trace"),
                format!(
                    "the line of property `{}` has no trace (its verdict is {})",
                    name(&v).unwrap_or_default(),
                    v.get("verdict")
                        .and_then(Value::as_str)
                        .unwrap_or("not given")
                ),
            ));
        }
        let property = name(&v).or_else(|| property.map(str::to_string));
        let trace = read_trace(v).map_err(|(path, msg)| err(&at(line, &path), msg))?;
        Ok(SavedTrace { property, trace })
    }
}

/// A JSON path and what is wrong there.
type Bad = (String, String);

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Checks that `v`, at `path`, is an object.
fn object(v: &Value, path: &str) -> Result<(), Bad> {
    match v {
        Value::Object(_) => Ok(()),
        other => Err((
            path.to_string(),
            format!("expected an object, found {}", kind(other)),
        )),
    }
}

fn string(v: &mut Value, key: &str, path: &str) -> Result<String, Bad> {
    let p = join(path, key);
    match take(v, key, path)? {
        Value::String(s) => Ok(s),
        other => Err((p, format!("expected a string, found {}", kind(&other)))),
    }
}

/// Moves field `key` out of the object `v` (which `object` has checked).
fn take(v: &mut Value, key: &str, path: &str) -> Result<Value, Bad> {
    v.get_mut(key)
        .map(Value::take)
        .ok_or_else(|| (path.to_string(), format!("missing field `{key}`")))
}

/// A store: `{"name": value, …}` in its order, moved out of `v`.
fn store(v: &mut Value, key: &str, path: &str) -> Result<Store, Bad> {
    let p = join(path, key);
    into_store(take(v, key, path)?, &p)
}

fn into_store(v: Value, path: &str) -> Result<Store, Bad> {
    object(&v, path)?;
    Ok(match v {
        Value::Object(m) => m.into_iter().collect(),
        _ => Store::new(),
    })
}

/// The trace of one line, moved out of it step by step, so that a long
/// trace is held about once rather than as its JSON tree and its steps.
fn read_trace(mut v: Value) -> Result<Trace, Bad> {
    let mut initial = take(&mut v, "initial", "")?;
    object(&initial, "initial")?;
    let initial_globals = store(&mut initial, "globals", "initial")?;
    let mut initial_locals = Vec::new();
    for (name, l) in into_store(take(&mut initial, "locals", "initial")?, "initial.locals")? {
        let p = format!("initial.locals.{name}");
        let store = into_store(l, &p)?;
        initial_locals.push((name, store));
    }
    let steps = match v["trace"].take() {
        Value::Array(a) => a,
        other => {
            return Err((
                "trace".into(),
                format!("expected an array of steps, found {}", kind(&other)),
            ));
        }
    };
    let steps = steps
        .into_iter()
        .enumerate()
        .map(|(i, mut s)| {
            let p = format!("trace[{i}]");
            object(&s, &p)?;
            let partner = match s.get_mut("partner").map(Value::take) {
                None | Some(Value::Null) => None,
                Some(mut q) => {
                    let pp = join(&p, "partner");
                    object(&q, &pp)?;
                    Some(Partner {
                        thread: string(&mut q, "thread", &pp)?,
                        transition: string(&mut q, "transition", &pp)?,
                        locals: store(&mut q, "locals", &pp)?,
                    })
                }
            };
            Ok(TraceStep {
                thread: string(&mut s, "thread", &p)?,
                transition: string(&mut s, "transition", &p)?,
                globals: store(&mut s, "globals", &p)?,
                locals: store(&mut s, "locals", &p)?,
                partner,
            })
        })
        .collect::<Result<Vec<_>, Bad>>()?;
    let failure = match v.get_mut("failure").map(Value::take) {
        None | Some(Value::Null) => None,
        Some(Value::String(f)) => Some(f),
        Some(other) => {
            return Err((
                "failure".into(),
                format!("expected a string, found {}", kind(&other)),
            ));
        }
    };
    Ok(Trace {
        initial_globals,
        initial_locals,
        steps,
        failure,
    })
}
