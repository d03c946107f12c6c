//! The loader's entry points: reading a model file (weft/1, or DVE
//! translated first), `--error`, `--divine-errors`, an `--exceptions` file,
//! and the JSON text parsed strictly, a syntax error placed at its line
//! and column.

use super::super::Model;
use super::super::diag::Diagnostic;
use super::super::expr;
use super::super::json::{LResult, Node};
use super::super::resolve::Names;
use super::{Loader, budget};
use serde_json::Value;
use std::path::Path;

/// The file's name (for messages) and text: the model file, or with
/// `Phase::ReadingExceptions` an exception set file.
fn read_model(path: &Path, phase: crate::Phase) -> LResult<(String, String)> {
    let file = path.display().to_string();
    let what = match phase {
        crate::Phase::ReadingExceptions => "exceptions",
        _ => "model",
    };
    budget::enter(&file, phase)?;
    let text = super::super::read::read_text(path, what)?;
    budget::check(&file)?;
    Ok((file, text))
}

/// Reads and compiles a model file. `params` are `--param` overrides.
#[cfg(test)]
pub(crate) fn load_file(path: &Path, params: &[(String, i64)]) -> LResult<Model> {
    let (file, text) = read_model(path, crate::Phase::Reading)?;
    load_str(&text, &file, params)
}

/// Reads a model of either kind: weft/1 JSON, or DVE (by the `.dve`
/// extension), translated first. `error`, if given, replaces the model's
/// properties with one named `error` (the `--error` option).
#[cfg(test)]
pub(crate) fn load_any(
    path: &Path,
    params: &[(String, i64)],
    error: Option<&str>,
) -> LResult<Model> {
    Ok(load_any_with_names(path, params, error, false)?.0)
}

/// As `load_any`; `divine_errors`: a DVE model sends a transition that
/// fails at run time to DiVinE's error state (`program/error_state.rs`).
pub(crate) fn load_any_with(
    path: &Path,
    params: &[(String, i64)],
    error: Option<&str>,
    divine_errors: bool,
) -> LResult<Model> {
    Ok(load_any_with_names(path, params, error, divine_errors)?.0)
}

fn load_any_with_names(
    path: &Path,
    params: &[(String, i64)],
    error: Option<&str>,
    divine_errors: bool,
) -> LResult<(Model, Names)> {
    let is_dve = is_dve_path(path);
    if !is_dve && error.is_none() {
        // Straight from the text: keeps line numbers in every message.
        let (file, text) = read_model(path, crate::Phase::Reading)?;
        let mut loaded = load_with_names(&text, &file, params)?;
        if divine_errors {
            loaded.0.warnings.push(ignored_divine_errors(&file));
        }
        return Ok(loaded);
    }
    let file = path.display().to_string();
    let (value, warnings, map) = translate(path, error, divine_errors)?;
    let loaded = load_with_names(&value.to_string(), &file, params);
    let (mut prog, names) = match (loaded, map) {
        (Ok(mut p), Some(map)) => {
            p.0.locate_syncs(&map);
            p
        }
        (Ok(p), None) => p,
        (Err(d), Some(map)) => return Err(map.relocate(d)),
        // The --error expression: the user's own text, positions intact,
        // not the model file's `properties[0]` it stands in for.
        (Err(mut d), None) if error.is_some() && d.path.starts_with("properties[0]") => {
            d.path = "--error".into();
            return Err(d);
        }
        (Err(d), None) => return Err(d),
    };
    prog.warnings.splice(0..0, warnings);
    if divine_errors && !is_dve {
        prog.warnings.push(ignored_divine_errors(&file));
    }
    Ok((prog, names))
}

/// A DVE file, by its extension `.dve` in any case.
pub(crate) fn is_dve_path(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("dve"))
}

fn ignored_divine_errors(file: &str) -> String {
    format!(
        "{file}: --divine-errors applies to DVE files; a weft/1 model asks for the error state with its own `error-state`"
    )
}

/// The model at `path` as weft/1 JSON (DVE translated), with warnings.
pub(crate) fn to_json(
    path: &Path,
    error: Option<&str>,
    divine_errors: bool,
) -> LResult<(Value, Vec<String>)> {
    let (value, warnings, _) = translate(path, error, divine_errors)?;
    Ok((value, warnings))
}

/// As `to_json`, with the DVE source map when the model is DVE.
fn translate(
    path: &Path,
    error: Option<&str>,
    divine_errors: bool,
) -> LResult<(Value, Vec<String>, Option<super::super::dve::SourceMap>)> {
    let (file, text) = read_model(path, crate::Phase::Reading)?;
    if is_dve_path(path) {
        budget::enter(&file, crate::Phase::Translating)?;
        let mut t = super::super::dve::to_weft(&text, &file, error)?;
        if divine_errors {
            super::super::dve::add_error_state(&mut t.model);
        }
        return Ok((t.model, t.warnings, Some(t.map)));
    }
    let mut value: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| syntax_error(&text, &file, &e))?;
    if let (Some(e), Some(obj)) = (error, value.as_object_mut()) {
        obj.insert(
            "properties".into(),
            serde_json::json!([{"name": "error", "error": e}]),
        );
        // `--error` replaces every property, `check-deadlock`'s too
        // (`--error deadlock` asks for that one).
        obj.remove("check-deadlock");
    }
    Ok((value, Vec::new(), None))
}

/// Compiles a DVE model from its text; `file` is used in messages, which
/// point at the DVE source.
pub(crate) fn load_dve_str(
    text: &str,
    file: &str,
    params: &[(String, i64)],
    error: Option<&str>,
) -> LResult<Model> {
    budget::enter(file, crate::Phase::Translating)?;
    let t = super::super::dve::to_weft(text, file, error)?;
    let mut model = load_with_names(&t.model.to_string(), file, params)
        .map_err(|d| t.map.relocate(d))?
        .0;
    model.locate_syncs(&t.map);
    model.warnings.splice(0..0, t.warnings);
    Ok(model)
}

/// Compiles a model from its JSON text; `file` is used in messages.
pub(crate) fn load_str(text: &str, file: &str, params: &[(String, i64)]) -> LResult<Model> {
    Ok(load_with_names(text, file, params)?.0)
}

fn load_with_names(text: &str, file: &str, params: &[(String, i64)]) -> LResult<(Model, Names)> {
    let value = parse_json(text, file, "model")?;
    budget::enter(file, crate::Phase::Compiling)?;
    let mut loader = Loader {
        file,
        names: Names::default(),
        warnings: Vec::new(),
    };
    let prog = loader.model(&Node::root(&value, file), params)?;
    Ok((prog, loader.names))
}

/// Reads a model as `load_any` does and replaces its exception set with
/// the one in `exceptions` (a JSON array of entries, or an object with an
/// `exceptions` array, as in a model file).
pub(crate) fn load_with_exceptions(
    path: &Path,
    params: &[(String, i64)],
    error: Option<&str>,
    divine_errors: bool,
    exceptions: &Path,
) -> LResult<Model> {
    let (mut prog, names) = load_any_with_names(path, params, error, divine_errors)?;
    let (efile, etext) = read_model(exceptions, crate::Phase::ReadingExceptions)?;
    budget::enter(&efile, crate::Phase::Exceptions)?;
    let value = parse_json(&etext, &efile, "exceptions")?;
    let root = Node::root(&value, &efile);
    let entries = match value {
        Value::Object(_) => root.req("exceptions", "an array of exception entries")?,
        _ => root,
    };
    prog.program.exceptions = Loader {
        file: &efile,
        names,
        warnings: Vec::new(),
    }
    .exceptions(&entries)?;
    Ok(prog)
}

/// Parses a JSON file (a leading byte-order mark is ignored); an empty
/// file, a syntax error or a duplicate key is a diagnostic with the line
/// and column.
fn parse_json(text: &str, file: &str, what: &str) -> LResult<Value> {
    budget::enter(file, crate::Phase::Parsing)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(Box::new(Diagnostic::new(
            file,
            "",
            format!("the {what} file is empty: expected a JSON object"),
        )));
    }
    let value = super::super::json::parse_strict(text).map_err(|e| syntax_error(text, file, &e))?;
    budget::check(file)?;
    Ok(value)
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
        // serde_json counts columns from 1, and says 0 at the very start of
        // a line (an unexpected end of file): that is column 1 too.
        format!(
            "invalid JSON: {msg} (line {}, column {})",
            e.line(),
            e.column().max(1)
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
