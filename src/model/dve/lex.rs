//! The DVE lexer: the source text as tokens (numbers, identifiers, symbols)
//! with their byte offsets, comments and whitespace skipped; and the
//! diagnostics that point at a place in that text.

use crate::model::diag::Diagnostic;
use crate::model::expr::Span;
use crate::model::load::budget;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Num(i64),
    Id(String),
    Sym(&'static str),
    End,
}

/// Text lexed between two budget checks: the tokens of a large model take
/// about 20 times its text (plc.4's 1.8 MB lex to about 34 MiB).
const POLL_BYTES: usize = 64 * 1024;

const SYMS: &[&str] = &[
    "->", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "{", "}", "(", ")", "[", "]", ",", ";",
    "=", "+", "-", "*", "/", "%", "!", "<", ">", "|", "&", "^", "~", ".", "?", ":",
];

pub(super) struct Lexer<'a> {
    pub(super) src: &'a str,
    pub(super) file: &'a str,
}

impl Lexer<'_> {
    pub(super) fn err(
        &self,
        at: usize,
        len: usize,
        msg: impl Into<String>,
        label: impl Into<String>,
    ) -> Box<Diagnostic> {
        let end = (at + len.max(1)).min(self.src.len());
        Box::new(Diagnostic::new(self.file, "", msg).with_snippet(
            self.src,
            Span::new(at.min(end), end),
            label,
        ))
    }

    pub(super) fn tokens(&self) -> Result<Vec<(Tok, usize)>, Box<Diagnostic>> {
        let b = self.src.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        let mut next_poll = 0;
        while i < b.len() {
            if i >= next_poll {
                budget::check(self.file)?;
                next_poll = i + POLL_BYTES;
            }
            let c = b[i];
            if c.is_ascii_whitespace() {
                i += 1;
            } else if self.src[i..].starts_with("//") {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            } else if self.src[i..].starts_with("/*") {
                let end = self.src[i + 2..].find("*/").ok_or_else(|| {
                    self.err(i, 2, "unterminated comment", "this `/*` is never closed")
                })?;
                i += end + 4;
            } else if c.is_ascii_digit() {
                let s = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let v = self.src[s..i].parse().map_err(|_| {
                    self.err(s, i - s, "number too large", "does not fit in 64 bits")
                })?;
                out.push((Tok::Num(v), s));
            } else if c.is_ascii_alphabetic() || c == b'_' {
                let s = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push((Tok::Id(self.src[s..i].to_string()), s));
            } else if let Some(sym) = SYMS.iter().find(|s| self.src[i..].starts_with(**s)) {
                out.push((Tok::Sym(sym), i));
                i += sym.len();
            } else {
                let ch = self.src[i..].chars().next().unwrap_or('?');
                return Err(self.err(
                    i,
                    ch.len_utf8(),
                    format!("unexpected character `{ch}`"),
                    "not part of DVE",
                ));
            }
        }
        out.push((Tok::End, self.src.len()));
        Ok(out)
    }
}

pub(super) fn line_col(src: &str, at: usize) -> (usize, usize) {
    let before = &src[..at.min(src.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1;
    (line, col)
}
