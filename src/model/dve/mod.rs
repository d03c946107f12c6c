//! DVE (DiVinE's modelling language, as used by the BEEM benchmark) to a
//! weft/1 model. Each DVE process becomes a thread template of count 1; its
//! states become locations; DVE's untyped C-like expressions become typed
//! weft expressions (comparisons and logic are bools, everything stored is an
//! int; `int(b)` and `e != 0` convert between them).
//!
//! Semantics chosen to reproduce BEEM's published state counts: `byte` is
//! 0..255 and `int` is -32768..32767; a value assigned outside the range,
//! an array index out of bounds and a division by zero are model errors
//! (the transition has no successor; `model-errors` reports a trace), as in
//! DiVinE's interpreter (anderson.1 and .3 decide it: docs/beem.md). Synchronous channels become
//! weft rendezvous (`sync`); a buffered channel becomes a FIFO in two
//! globals (`c_buf`, `c_len`): a send is enabled while it is not full and
//! appends, a receive while it is not empty and takes the first value
//! (vacated cells are reset to 0, so equal contents are equal states).
//! A read of another process (`P.s`, `P.v`) becomes a read of a global: a
//! location mirror `P_state` that P's transitions keep up to date, or P's
//! local promoted to a global `v_P`; an array named as a value is its first
//! cell (docs/beem.md says why both keep DiVinE's state space).
//!
//! `to_weft` runs the stages: `lex` (tokens), `parse` (to the syntax tree of
//! `ast`), the duplicate-name checks here, and `emit` (weft/1 JSON and the
//! `SourceMap` back to the DVE text).

mod ast;
mod emit;
mod emit_expr;
mod error_state;
mod lex;
mod parse;

use super::diag::Diagnostic;
use super::expr::Span;
pub(crate) use error_state::add_error_state;
use lex::line_col;
use parse::Parser;
use serde_json::Value;

/// Where the parts of the translated model come from in the DVE text, so
/// that a diagnostic about the translation points at the DVE source.
pub(crate) struct SourceMap {
    file: String,
    text: String,
    /// (JSON path in the translation, DVE span, what is there).
    spans: Vec<(String, Span, &'static str)>,
}

impl SourceMap {
    fn add(&mut self, path: String, span: Span, what: &'static str) {
        self.spans.push((path, span, what));
    }

    /// Where the part of the translation at `path` comes from in the DVE
    /// text: "line L, column C" of its construct (exactly `path`'s, else
    /// the innermost one holding it).
    pub(crate) fn place(&self, path: &str) -> Option<String> {
        let (_, span, _) = self.innermost(path)?;
        let (line, col) = line_col(&self.text, span.start);
        Some(format!("line {line}, column {col}"))
    }

    /// The innermost construct holding the part at `path`: its own, or
    /// the one with the longest path above it.
    fn innermost(&self, path: &str) -> Option<&(String, Span, &'static str)> {
        self.spans
            .iter()
            .filter(|(p, ..)| within(path, p))
            .max_by_key(|(p, ..)| p.len())
    }

    /// Re-points a diagnostic about the translated model at the DVE text:
    /// the DVE construct it came from, with the translation as a note.
    pub(crate) fn relocate(&self, d: Box<Diagnostic>) -> Box<Diagnostic> {
        if d.path.starts_with("properties") {
            // The --error expression: the user's own text, positions intact.
            let mut d = d;
            d.path = "--error".into();
            return d;
        }
        let Some((_, span, what)) = self.innermost(&d.path) else {
            return d;
        };
        let mut out = Diagnostic::new(&self.file, "", d.message.clone())
            .with_snippet(&self.text, *span, *what);
        if let Some(sn) = &d.snippet {
            out = out.note(format!("in weft's translation of it: `{}`", sn.text.trim()));
        }
        for n in &d.notes {
            out = out.note(n.clone());
        }
        Box::new(out)
    }
}

/// Is the JSON path `path` the part at `part` or inside it?
fn within(path: &str, part: &str) -> bool {
    path.strip_prefix(part)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

/// A DVE model translated to weft/1.
pub(crate) struct Translation {
    pub(crate) model: Value,
    pub(crate) warnings: Vec<String>,
    pub(crate) map: SourceMap,
}

/// Refuses a name declared twice in one scope, at its second declaration.
fn check_unique<'n>(
    text: &str,
    file: &str,
    names: impl IntoIterator<Item = (&'n str, usize)>,
    scope: &str,
) -> Result<(), Box<Diagnostic>> {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (name, at) in names {
        if let Some(first) = seen.get(name) {
            let (line, col) = line_col(text, *first);
            let msg =
                format!("`{name}` is declared twice {scope} (first at line {line}, column {col})");
            return Err(Box::new(Diagnostic::new(file, "", msg).with_snippet(
                text,
                Span::new(at, at + name.len()),
                "declared again here",
            )));
        }
        seen.insert(name, at);
    }
    Ok(())
}

/// Translates a DVE model to a weft/1 model. `error` is the property (weft's
/// predicate language); without it, the model checks the state space and
/// its deadlocks, as DiVinE does.
pub(crate) fn to_weft(
    text: &str,
    file: &str,
    error: Option<&str>,
) -> Result<Translation, Box<Diagnostic>> {
    let mut p = Parser::new(text, file)?;
    let (globals, procs, channels) = p.model()?;
    if procs.is_empty() {
        return Err(Box::new(Diagnostic::new(
            file,
            "",
            "the DVE model has no process",
        )));
    }
    let consts: Vec<(&str, usize)> = p
        .consts
        .iter()
        .map(|(n, _)| n.as_str())
        .zip(p.const_at.iter().copied())
        .collect();
    check_unique(
        text,
        file,
        globals
            .iter()
            .map(|g| (g.name.as_str(), g.at))
            .chain(consts)
            .chain(channels.iter().map(|c| (c.name.as_str(), c.at)))
            .chain(procs.iter().map(|pr| (pr.name.as_str(), pr.at))),
        "at the top level",
    )?;
    for pr in &procs {
        let scope = format!("in process `{}`", pr.name);
        check_unique(
            text,
            file,
            pr.locals.iter().map(|l| (l.name.as_str(), l.at)),
            &scope,
        )?;
        check_unique(
            text,
            file,
            pr.states.iter().map(|(n, at)| (n.as_str(), *at)),
            &scope,
        )?;
    }
    let (model, map, emitted) =
        emit::translate(text, file, error, &p, &globals, &procs, &channels)?;
    let mut warnings = p.warnings;
    warnings.extend(emitted);
    if error.is_none() && globals.iter().any(|g| g.name == "deadlock") {
        warnings.push(format!(
            "{file}: the model has a variable named `deadlock`, which hides the built-in predicate: its deadlocks are not checked (rename the variable to check them)"
        ));
    }
    Ok(Translation {
        model,
        warnings,
        map,
    })
}
