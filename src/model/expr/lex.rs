//! The lexer of the expression language: tokens with their byte spans.

use super::{ParseError, Span};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Int(i64),
    Ident(String),
    /// A quoted location name, `'l.2'` (with `''` for a quote inside): a
    /// location may be any string, and `@'…'` names one that is not an
    /// identifier or a number.
    Quoted(String),
    Sym(&'static str),
    End,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Int(v) => write!(f, "number `{v}`"),
            Tok::Ident(s) => write!(f, "name `{s}`"),
            Tok::Quoted(s) => write!(f, "quoted name `'{}'`", s.replace('\'', "''")),
            Tok::Sym(s) => write!(f, "`{s}`"),
            Tok::End => write!(f, "end of expression"),
        }
    }
}

/// Longest symbols first, so that `<=` wins over `<`.
const SYMBOLS: &[&str] = &[
    ":=", "==", "!=", "<=", ">=", "&&", "||", "->", "<<", ">>", "+", "-", "*", "/", "%", "<", ">",
    "!", "(", ")", "[", "]", "@", ".", ",", ":", ";", "&", "|", "^", "~",
];

pub(super) fn lex(src: &str) -> Result<Vec<(Tok, Span)>, ParseError> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                i += 1;
            }
            // `1.5`: no syntax puts a digit right after `.` after a number.
            if bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
                let mut end = i + 1;
                while end < bytes.len() && bytes[end].is_ascii_digit() {
                    end += 1;
                }
                return Err(ParseError {
                    message: format!(
                        "`{}` is a decimal number; weft's values are integers",
                        &src[start..end]
                    ),
                    span: Span::new(start, end),
                    label: "expected an integer".into(),
                });
            }
            let text = &src[start..i];
            // A location may be named by digits (`@2`): the parser decides.
            let value = text.parse::<i64>().map_err(|_| {
                let (message, label) = if text.bytes().all(|b| b.is_ascii_digit()) {
                    (
                        format!("the number `{text}` is too large"),
                        "numbers are 64-bit signed integers",
                    )
                } else {
                    (
                        format!("`{text}` is not a number"),
                        "expected a decimal integer",
                    )
                };
                ParseError {
                    message,
                    span: Span::new(start, i),
                    label: label.into(),
                }
            })?;
            out.push((Tok::Int(value), Span::new(start, i)));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Ident(src[start..i].to_string()), Span::new(start, i)));
            continue;
        }
        // Only after `@` (a stray quote, `lck' == 1`, is an unexpected
        // character below, not the start of a name).
        if c == b'\'' && out.last().is_some_and(|(t, _)| *t == Tok::Sym("@")) {
            let (name, end) = quoted(src, start)?;
            i = end;
            out.push((Tok::Quoted(name), Span::new(start, i)));
            continue;
        }
        if let Some(sym) = SYMBOLS.iter().find(|s| src[i..].starts_with(**s)) {
            i += sym.len();
            out.push((Tok::Sym(sym), Span::new(start, i)));
            continue;
        }
        let ch = src[i..].chars().next().unwrap_or('?');
        let span = Span::new(i, i + ch.len_utf8());
        if ch == '=' {
            return Err(ParseError {
                message: "`=` is not an operator: compare with `==`, assign with `:=`".into(),
                span,
                label: "use `==` or `:=`".into(),
            });
        }
        let ascii = match ch {
            '≤' => Some("<="),
            '≥' => Some(">="),
            '≠' => Some("!="),
            '∧' => Some("&&"),
            '∨' => Some("||"),
            '¬' => Some("!"),
            '→' | '⇒' => Some("->"),
            '≔' => Some(":="),
            '−' => Some("-"),
            '×' => Some("*"),
            _ => None,
        };
        return Err(ParseError {
            message: format!("unexpected character `{ch}`"),
            span,
            label: match ascii {
                Some(a) => format!("write `{a}`"),
                None => "not part of the expression language".into(),
            },
        });
    }
    out.push((Tok::End, Span::new(src.len(), src.len())));
    Ok(out)
}

/// The quoted name that starts at `start` (a `'`), and the byte after its
/// closing quote; `''` inside stands for one quote.
fn quoted(src: &str, start: usize) -> Result<(String, usize), ParseError> {
    let mut name = String::new();
    let mut rest = src[start + 1..].char_indices();
    while let Some((k, ch)) = rest.next() {
        if ch != '\'' {
            name.push(ch);
            continue;
        }
        let after = start + 1 + k + 1;
        if src[after..].starts_with('\'') {
            rest.next();
            name.push('\'');
            continue;
        }
        return Ok((name, after));
    }
    Err(ParseError {
        message: "the quoted name is not closed".into(),
        span: Span::new(start, src.len()),
        label: "close it with `'` (write `''` for a quote inside)".into(),
    })
}

/// Symbols are compared against the static table; this maps a borrowed
/// symbol to its `'static` twin so `Tok::Sym` can be matched by value.
pub(super) fn leak(sym: &str) -> &'static str {
    SYMBOLS.iter().find(|s| **s == sym).copied().unwrap_or("")
}
