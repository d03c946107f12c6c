//! Diagnostics for bad input: where (file, JSON path, expression position),
//! what is wrong, and what to do. Rendered with codespan-reporting so that
//! expression errors show the expression with a caret under the culprit.

use super::expr::Span;
use codespan_reporting::diagnostic::{Diagnostic as CsDiag, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config};
use std::fmt;

/// A piece of source text to show with a label under `span`.
#[derive(Clone, Debug)]
pub(crate) struct Snippet {
    pub(crate) text: String,
    pub(crate) span: Span,
    pub(crate) label: String,
}

/// Why a model could not be loaded: the file, the place in it, what is
/// wrong and what to do.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// The file, as the user named it.
    pub file: String,
    /// Where in the file: a JSON path such as
    /// `threads[0].transitions[3].when`; for text that is not JSON, a line
    /// and column (`line 3, column 14`, a DVE file or a trace file's line);
    /// for an option's text, the option (`--error`); empty for the whole
    /// file.
    pub path: String,
    /// What is wrong.
    pub message: String,
    pub(crate) snippet: Option<Snippet>,
    /// What to do about it, and related facts.
    pub notes: Vec<String>,
    /// Not bad input: a budget of `LoadOptions` ran out in this phase.
    pub(crate) exhausted: Option<(crate::Limit, crate::Phase)>,
}

impl Diagnostic {
    pub(crate) fn new(file: &str, path: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: file.to_string(),
            path: path.to_string(),
            message: message.into(),
            snippet: None,
            notes: Vec::new(),
            exhausted: None,
        }
    }

    /// The budget that ran out while loading, and in which phase, when
    /// this is not a fault of the input but a load stopped by
    /// [`LoadOptions`](crate::LoadOptions)'s `timeout` or
    /// `max_memory_bytes`.
    pub fn budget_exhausted(&self) -> Option<(crate::Limit, crate::Phase)> {
        self.exhausted
    }
    pub(crate) fn with_snippet(mut self, text: &str, span: Span, label: impl Into<String>) -> Self {
        self.snippet = Some(Snippet {
            text: text.to_string(),
            span,
            label: label.into(),
        });
        self
    }
    pub(crate) fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    fn location(&self) -> String {
        if self.path.is_empty() {
            self.file.clone()
        } else {
            format!("{}: {}", self.file, self.path)
        }
    }

    /// Plain-text rendering (no colour), the same on a terminal and in CI.
    pub fn render(&self) -> String {
        match &self.snippet {
            Some(s) => {
                let file = SimpleFile::new(self.location(), s.text.clone());
                let end = s.span.end.min(s.text.len()).max(s.span.start);
                let start = s.span.start.min(end);
                let d = CsDiag::error()
                    .with_message(&self.message)
                    .with_labels(vec![Label::primary((), start..end).with_message(&s.label)])
                    .with_notes(self.notes.clone());
                term::emit_into_string(&Config::default(), &file, &d)
                    .unwrap_or_else(|_| self.plain())
            }
            None => self.plain(),
        }
    }

    fn plain(&self) -> String {
        let mut out = format!("error: {}\n  ┌─ {}\n", self.message, self.location());
        for n in &self.notes {
            out.push_str(&format!("  = {n}\n"));
        }
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Diagnostic {}

/// The closest candidate by edit distance, if it is close enough to be a
/// plausible typo.
pub(crate) fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let limit = |n: usize, m: usize| (n.max(m) / 3).max(1);
    let n = name.chars().count();
    if n > MAX_SUGGESTED_LEN {
        return None;
    }
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let m = c.chars().count();
        // The distance is at least the difference in length: a name that
        // far off could not be suggested anyway.
        if m > MAX_SUGGESTED_LEN || n.abs_diff(m) > limit(n, m) {
            continue;
        }
        let d = edit_distance(name, c);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    let (d, c) = best?;
    (d <= limit(n, c.chars().count())).then(|| c.to_string())
}

/// Names longer than this get no suggestion, and are suggested for none:
/// the distance table is quadratic in the names' length (two names of
/// 50,000 characters asked for 20 GB to print one error).
const MAX_SUGGESTED_LEN: usize = 64;

/// Edit distance counting a swap of two adjacent characters as one edit
/// (optimal string alignment), so `trun` is one typo away from `turn`.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]) as usize;
            let mut best = sub.min(d[i - 1][j] + 1).min(d[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_get_no_suggestion() {
        // One typo away, but past the length where the distance is computed.
        let long = "v".repeat(MAX_SUGGESTED_LEN + 1);
        let typo = format!("{}x", &long[1..]);
        assert_eq!(did_you_mean(&typo, [long.as_str(), "w"]), None);
        let near = "v".repeat(MAX_SUGGESTED_LEN);
        let typo = format!("{}x", &near[1..]);
        assert_eq!(
            did_you_mean(&typo, [near.as_str()]).as_deref(),
            Some(near.as_str())
        );
    }

    #[test]
    fn suggestions_are_close_names_only() {
        assert_eq!(did_you_mean("lk", ["lck", "x"]).as_deref(), Some("lck"));
        assert_eq!(
            did_you_mean("trun", ["turn", "x", "y"]).as_deref(),
            Some("turn")
        );
        assert_eq!(did_you_mean("banana", ["x", "y"]), None);
    }

    #[test]
    fn rendering_shows_path_and_caret() {
        let d = Diagnostic::new(
            "m.json",
            "threads[0].transitions[1].when",
            "unknown name `lk`",
        )
        .with_snippet("lk == 0", Span::new(0, 2), "did you mean `lck`?");
        let text = d.render();
        assert!(
            text.contains("m.json: threads[0].transitions[1].when"),
            "{text}"
        );
        assert!(text.contains("lk == 0"), "{text}");
        assert!(text.contains("^^"), "{text}");
    }
}
