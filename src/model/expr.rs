//! The expression language of weft/1 models: lexer, abstract syntax tree and
//! a recursive-descent parser. Every node carries the byte span of its source
//! text so that later stages (name resolution, type checking) can point at it
//! with a caret.

use std::fmt;

/// Byte range `start..end` inside one expression string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Span {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl Span {
    pub(crate) fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
    pub(crate) fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// A syntax error: what was expected, and where.
#[derive(Debug, Clone)]
pub(crate) struct ParseError {
    pub(crate) message: String,
    pub(crate) span: Span,
    pub(crate) label: String,
}

pub(crate) use crate::program::ops::{BinOp, UnOp};

/// `count`, `exists` or `forall` over a template (or `*`, all threads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quant {
    Count,
    Exists,
    Forall,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Expr {
    pub(crate) kind: ExprKind,
    pub(crate) span: Span,
    /// The depth of the tree below and including this node (a leaf is 1),
    /// kept as it is built so that the parser refuses a too deep tree
    /// before it grows (even dropping a very deep tree recurses).
    depth: usize,
}

impl Expr {
    fn new(kind: ExprKind, span: Span) -> Expr {
        let below = match &kind {
            ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Name(_) | ExprKind::At(None, ..) => 0,
            ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => a.depth.max(b.depth),
            ExprKind::Field(a, ..)
            | ExprKind::At(Some(a), ..)
            | ExprKind::Unary(_, a)
            | ExprKind::Quant(_, _, a) => a.depth,
        };
        Expr {
            kind,
            span,
            depth: below + 1,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ExprKind {
    Int(i64),
    Bool(bool),
    Name(String),
    /// `a[i]` (array cell) or `p[2]` (thread instance): resolved later.
    Index(Box<Expr>, Box<Expr>),
    /// `p[2].k`: a local of a named instance. The span is the field name's.
    Field(Box<Expr>, String, Span),
    /// `@L` (the current thread) or `p[2]@L`, `P1@D` (a named instance).
    At(Option<Box<Expr>>, String, Span),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `count(p: φ)`; the scope is a template name, or `None` for `*`.
    Quant(Quant, Option<(String, Span)>, Box<Expr>),
}

/// The right-hand side of an assignment.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Rhs {
    Expr(Expr),
    /// `x := any`: one successor per value of the target's domain.
    Any(Span),
}

/// `x := e` or `a[i] := e`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Assign {
    pub(crate) target: Expr,
    pub(crate) rhs: Rhs,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(i64),
    Ident(String),
    Sym(&'static str),
    End,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Int(v) => write!(f, "number `{v}`"),
            Tok::Ident(s) => write!(f, "name `{s}`"),
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

fn lex(src: &str) -> Result<Vec<(Tok, Span)>, ParseError> {
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

/// How deeply an expression may nest (parentheses, operators): deep enough
/// for any model written by hand, shallow enough that the recursive stages
/// after parsing (resolution, evaluation) cannot run out of stack. Long
/// `&&` / `||` chains are built balanced, so they stay shallow.
pub(crate) const MAX_DEPTH: usize = 256;

struct Parser {
    toks: Vec<(Tok, Span)>,
    pos: usize,
    /// Current recursion depth of the parser itself.
    nesting: usize,
}

type PResult<T> = Result<T, ParseError>;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }
    fn span(&self) -> Span {
        self.toks[self.pos].1
    }
    fn bump(&mut self) -> (Tok, Span) {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn eat(&mut self, sym: &str) -> bool {
        if *self.peek() == Tok::Sym(leak(sym)) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, sym: &str, what: &str) -> PResult<Span> {
        if self.eat(sym) {
            Ok(self.toks[self.pos - 1].1)
        } else {
            Err(self.unexpected(&format!("`{sym}` {what}")))
        }
    }
    fn unexpected(&self, expected: &str) -> ParseError {
        ParseError {
            message: format!("expected {expected}, found {}", self.peek()),
            span: self.span(),
            label: format!("expected {expected}"),
        }
    }
    fn ident(&mut self, what: &str) -> PResult<(String, Span)> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                let sp = self.bump().1;
                Ok((s, sp))
            }
            // Locations may be named by numbers (`@2` in Simple(n)).
            Tok::Int(v) => {
                let sp = self.bump().1;
                Ok((v.to_string(), sp))
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn too_deep(&self) -> ParseError {
        ParseError {
            message: format!("the expression is nested too deeply (more than {MAX_DEPTH} levels)"),
            span: self.span(),
            label: "split it into smaller parts (a group can name many locations at once)".into(),
        }
    }
    /// Enters a recursive rule; `leave` when it returns.
    fn enter(&mut self) -> PResult<()> {
        self.nesting += 1;
        if self.nesting > MAX_DEPTH {
            return Err(self.too_deep());
        }
        Ok(())
    }
    fn leave(&mut self) {
        self.nesting -= 1;
    }
    /// Refuses a node deeper than `MAX_DEPTH`, as soon as it is built (a
    /// left-associative chain `a + b + c …` nests one level per operator).
    fn shallow(&self, e: Expr) -> PResult<Expr> {
        if e.depth > MAX_DEPTH {
            return Err(self.too_deep());
        }
        Ok(e)
    }

    fn expr(&mut self) -> PResult<Expr> {
        self.implies()
    }
    fn implies(&mut self) -> PResult<Expr> {
        self.enter()?;
        let mut e = self.or()?;
        if self.eat("->") {
            let rhs = self.implies()?;
            e = self.shallow(bin(BinOp::Implies, e, rhs))?;
        }
        self.leave();
        Ok(e)
    }
    fn or(&mut self) -> PResult<Expr> {
        let first = self.and()?;
        let mut rest = Vec::new();
        while self.eat("||") || self.eat_word("or") {
            rest.push(self.and()?);
        }
        self.shallow(balanced(BinOp::Or, first, rest))
    }
    fn and(&mut self) -> PResult<Expr> {
        let first = self.cmp()?;
        let mut rest = Vec::new();
        while self.eat("&&") || self.eat_word("and") {
            rest.push(self.cmp()?);
        }
        self.shallow(balanced(BinOp::And, first, rest))
    }
    fn eat_word(&mut self, w: &str) -> bool {
        if matches!(self.peek(), Tok::Ident(s) if s == w) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn cmp(&mut self) -> PResult<Expr> {
        let lhs = self.bitor()?;
        let op = match self.peek() {
            Tok::Sym("==") => BinOp::Eq,
            Tok::Sym("!=") => BinOp::Ne,
            Tok::Sym("<") => BinOp::Lt,
            Tok::Sym("<=") => BinOp::Le,
            Tok::Sym(">") => BinOp::Gt,
            Tok::Sym(">=") => BinOp::Ge,
            _ => return Ok(lhs),
        };
        self.bump();
        let rhs = self.bitor()?;
        if let Tok::Sym(s @ ("==" | "!=" | "<" | "<=" | ">" | ">=")) = self.peek() {
            return Err(ParseError {
                message: format!("comparisons do not chain: `{s}` after a comparison"),
                span: self.span(),
                label: "add parentheses or split with `&&`".into(),
            });
        }
        self.shallow(bin(op, lhs, rhs))
    }
    fn bitor(&mut self) -> PResult<Expr> {
        let mut lhs = self.bitxor()?;
        while self.eat("|") {
            let rhs = self.bitxor()?;
            lhs = self.shallow(bin(BinOp::BitOr, lhs, rhs))?;
        }
        Ok(lhs)
    }
    fn bitxor(&mut self) -> PResult<Expr> {
        let mut lhs = self.bitand()?;
        while self.eat("^") {
            let rhs = self.bitand()?;
            lhs = self.shallow(bin(BinOp::BitXor, lhs, rhs))?;
        }
        Ok(lhs)
    }
    fn bitand(&mut self) -> PResult<Expr> {
        let mut lhs = self.shift()?;
        while self.eat("&") {
            let rhs = self.shift()?;
            lhs = self.shallow(bin(BinOp::BitAnd, lhs, rhs))?;
        }
        Ok(lhs)
    }
    fn shift(&mut self) -> PResult<Expr> {
        let mut lhs = self.add()?;
        loop {
            let op = match self.peek() {
                Tok::Sym("<<") => BinOp::Shl,
                Tok::Sym(">>") => BinOp::Shr,
                _ => return Ok(lhs),
            };
            self.bump();
            let rhs = self.add()?;
            lhs = self.shallow(bin(op, lhs, rhs))?;
        }
    }
    fn add(&mut self) -> PResult<Expr> {
        let mut lhs = self.mul()?;
        loop {
            let op = match self.peek() {
                Tok::Sym("+") => BinOp::Add,
                Tok::Sym("-") => BinOp::Sub,
                _ => return Ok(lhs),
            };
            self.bump();
            let rhs = self.mul()?;
            lhs = self.shallow(bin(op, lhs, rhs))?;
        }
    }
    fn mul(&mut self) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        loop {
            let op = match self.peek() {
                Tok::Sym("*") => BinOp::Mul,
                Tok::Sym("/") => BinOp::Div,
                Tok::Sym("%") => BinOp::Rem,
                _ => return Ok(lhs),
            };
            self.bump();
            let rhs = self.unary()?;
            lhs = self.shallow(bin(op, lhs, rhs))?;
        }
    }
    fn unary(&mut self) -> PResult<Expr> {
        let start = self.span();
        let op = if self.eat("!") || self.eat_word("not") {
            UnOp::Not
        } else if self.eat("-") {
            UnOp::Neg
        } else if self.eat("~") {
            UnOp::BitNot
        } else {
            return self.postfix();
        };
        self.enter()?;
        let e = self.unary()?;
        self.leave();
        let span = start.to(e.span);
        self.shallow(Expr::new(ExprKind::Unary(op, Box::new(e)), span))
    }
    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        loop {
            if self.eat("[") {
                let idx = self.expr()?;
                let close = self.expect("]", "to close the index")?;
                let span = e.span.to(close);
                e = self.shallow(Expr::new(ExprKind::Index(Box::new(e), Box::new(idx)), span))?;
            } else if self.eat(".") {
                let (name, sp) = self.ident("a local variable name after `.`")?;
                let span = e.span.to(sp);
                e = self.shallow(Expr::new(ExprKind::Field(Box::new(e), name, sp), span))?;
            } else if self.eat("@") {
                let (name, sp) = self.ident("a location or group name after `@`")?;
                let span = e.span.to(sp);
                e = self.shallow(Expr::new(ExprKind::At(Some(Box::new(e)), name, sp), span))?;
            } else {
                return Ok(e);
            }
        }
    }
    fn primary(&mut self) -> PResult<Expr> {
        let (tok, span) = (self.peek().clone(), self.span());
        match tok {
            Tok::Int(v) => {
                self.bump();
                Ok(Expr::new(ExprKind::Int(v), span))
            }
            Tok::Sym("(") => {
                self.bump();
                let mut e = self.expr()?;
                let close = self.expect(")", "to close the parenthesis")?;
                e.span = span.to(close);
                Ok(e)
            }
            Tok::Sym("@") => {
                self.bump();
                let (name, sp) = self.ident("a location or group name after `@`")?;
                Ok(Expr::new(ExprKind::At(None, name, sp), span.to(sp)))
            }
            Tok::Ident(name)
                if name == "int"
                    && self
                        .toks
                        .get(self.pos + 1)
                        .is_some_and(|t| t.0 == Tok::Sym("(")) =>
            {
                self.bump();
                self.bump();
                let e = self.expr()?;
                let close = self.expect(")", "to close `int(`")?;
                self.shallow(Expr::new(
                    ExprKind::Unary(UnOp::ToInt, Box::new(e)),
                    span.to(close),
                ))
            }
            Tok::Ident(name) => {
                self.bump();
                let quant = match name.as_str() {
                    "true" => {
                        return Ok(Expr::new(ExprKind::Bool(true), span));
                    }
                    "false" => {
                        return Ok(Expr::new(ExprKind::Bool(false), span));
                    }
                    "count" => Some(Quant::Count),
                    "exists" => Some(Quant::Exists),
                    "forall" => Some(Quant::Forall),
                    _ => None,
                };
                match quant {
                    Some(q) if *self.peek() == Tok::Sym("(") => self.quant(q, span),
                    _ => Ok(Expr::new(ExprKind::Name(name), span)),
                }
            }
            _ => Err(self.unexpected("a value, a name or `(`")),
        }
    }
    fn quant(&mut self, q: Quant, start: Span) -> PResult<Expr> {
        self.expect("(", "after the quantifier")?;
        let scope = if self.eat("*") {
            None
        } else {
            Some(self.ident("a thread template name or `*`")?)
        };
        self.expect(":", "after the template name, as in `count(p: @crit)`")?;
        let body = self.expr()?;
        let close = self.expect(")", "to close the quantifier")?;
        self.shallow(Expr::new(
            ExprKind::Quant(q, scope, Box::new(body)),
            start.to(close),
        ))
    }
    fn at_end(&self, what: &str) -> PResult<()> {
        let label = match self.peek() {
            Tok::End => return Ok(()),
            Tok::Sym(":=") => "assignments belong in `do`; to compare, write `==`",
            Tok::Sym(";") => "`;` separates assignments in `do`; combine conditions with `&&`",
            Tok::Sym("(") if matches!(self.toks[self.pos.saturating_sub(1)].0, Tok::Ident(_)) => {
                "only count(…), exists(…) and forall(…) take arguments"
            }
            Tok::Sym(")") => "this `)` has no matching `(`",
            Tok::Sym("]") => "this `]` has no matching `[`",
            _ => "expected the end here (a missing operator?)",
        };
        Err(ParseError {
            message: format!("unexpected {} after the {what}", self.peek()),
            span: self.span(),
            label: label.into(),
        })
    }
}

/// Symbols are compared against the static table; this maps a borrowed
/// symbol to its `'static` twin so `Tok::Sym` can be matched by value.
fn leak(sym: &str) -> &'static str {
    SYMBOLS.iter().find(|s| **s == sym).copied().unwrap_or("")
}

/// `first op rest[0] op rest[1] …` as a balanced tree (for the associative
/// `&&` and `||`: same value and the same left-to-right, short-circuit
/// evaluation order as the left-nested tree, but logarithmic depth).
fn balanced(op: BinOp, first: Expr, rest: Vec<Expr>) -> Expr {
    if rest.is_empty() {
        return first;
    }
    let mut items = Vec::with_capacity(rest.len() + 1);
    items.push(first);
    items.extend(rest);
    while items.len() > 1 {
        let mut next = Vec::with_capacity(items.len().div_ceil(2));
        let mut it = items.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => bin(op, a, b),
                None => a,
            });
        }
        items = next;
    }
    items.swap_remove(0)
}

fn check_depth(e: &Expr) -> Result<(), ParseError> {
    if e.depth > MAX_DEPTH {
        return Err(ParseError {
            message: format!("the expression is nested too deeply (more than {MAX_DEPTH} levels)"),
            span: e.span,
            label: "split it into smaller parts".into(),
        });
    }
    Ok(())
}

fn bin(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    let span = lhs.span.to(rhs.span);
    Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span)
}

/// Parses a whole expression (a guard, an update's right-hand side, a
/// property or a number over params).
pub(crate) fn parse_expr(src: &str) -> Result<Expr, ParseError> {
    let mut p = Parser {
        toks: lex(src)?,
        pos: 0,
        nesting: 0,
    };
    if *p.peek() == Tok::End {
        return Err(ParseError {
            message: "the expression is empty".into(),
            span: Span::new(0, src.len()),
            label: "expected an expression".into(),
        });
    }
    let e = p.expr()?;
    p.at_end("expression")?;
    check_depth(&e)?;
    Ok(e)
}

/// Parses a `do` block: `;`-separated assignments (`x := e`, `a[i] := e`,
/// `x := any`). An empty block, or a trailing `;`, is allowed.
pub(crate) fn parse_assignments(src: &str) -> Result<Vec<Assign>, ParseError> {
    let mut p = Parser {
        toks: lex(src)?,
        pos: 0,
        nesting: 0,
    };
    let mut out = Vec::new();
    while *p.peek() != Tok::End {
        if p.eat(";") {
            continue;
        }
        let target = p.postfix()?;
        if !matches!(target.kind, ExprKind::Name(_) | ExprKind::Index(..)) {
            return Err(ParseError {
                message: "only a variable or an array cell can be assigned".into(),
                span: target.span,
                label: "not assignable".into(),
            });
        }
        if !p.eat(":=") {
            let hint = if *p.peek() == Tok::Sym("==") || *p.peek() == Tok::Sym("!=") {
                " (assignments use `:=`; conditions belong in `when`)"
            } else {
                ""
            };
            return Err(ParseError {
                message: format!("expected `:=` after the assignment target{hint}"),
                span: p.span(),
                label: "expected `:=`".into(),
            });
        }
        check_depth(&target)?;
        let rhs = if matches!(p.peek(), Tok::Ident(s) if s == "any") {
            Rhs::Any(p.bump().1)
        } else {
            let e = p.expr()?;
            check_depth(&e)?;
            Rhs::Expr(e)
        };
        out.push(Assign { target, rhs });
        if *p.peek() != Tok::End && !p.eat(";") {
            return Err(ParseError {
                message: format!("expected `;` between assignments, found {}", p.peek()),
                span: p.span(),
                label: "expected `;`".into(),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Int(v) => v.to_string(),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Name(n) => n.clone(),
            ExprKind::Index(a, i) => format!("{}[{}]", shape(a), shape(i)),
            ExprKind::Field(a, f, _) => format!("{}.{f}", shape(a)),
            ExprKind::At(None, l, _) => format!("@{l}"),
            ExprKind::At(Some(a), l, _) => format!("{}@{l}", shape(a)),
            ExprKind::Unary(op, a) => format!("({op:?} {})", shape(a)),
            ExprKind::Binary(op, a, b) => format!("({} {} {})", shape(a), op.symbol(), shape(b)),
            ExprKind::Quant(q, s, b) => format!(
                "{q:?}({}: {})",
                s.as_ref().map(|s| s.0.as_str()).unwrap_or("*"),
                shape(b)
            ),
        }
    }

    #[test]
    fn precedence_and_associativity() {
        let e = parse_expr("a + b * c == 3 && !d || e -> f -> g").unwrap();
        assert_eq!(
            shape(&e),
            "(((((a + (b * c)) == 3) && (Not d)) || e) -> (f -> g))"
        );
    }

    #[test]
    fn instance_references_and_quantifiers() {
        let e = parse_expr("p[2]@crit && P1@D && p[1].k >= count(*: @2 || @3)").unwrap();
        assert_eq!(
            shape(&e),
            "((p[2]@crit && P1@D) && (p[1].k >= Count(*: (@2 || @3))))"
        );
    }

    #[test]
    fn chained_comparison_is_rejected_with_position() {
        let err = parse_expr("0 < x < 3").unwrap_err();
        assert!(err.message.contains("do not chain"), "{}", err.message);
        assert_eq!(err.span, Span::new(6, 7));
    }

    #[test]
    fn a_too_deep_tree_is_refused_where_it_grows_too_deep() {
        // Refused at the operator where the tree passes MAX_DEPTH, before
        // the rest is built (a tree checked only at the end could already
        // be deep enough to overflow the stack when dropped).
        let src = vec!["x"; 2 * MAX_DEPTH].join(" + ");
        let err = parse_expr(&src).unwrap_err();
        assert!(err.message.contains("nested too deeply"), "{}", err.message);
        assert_eq!(err.span.start, 4 * MAX_DEPTH + 2, "{:?}", err.span);
        let nested = format!("{}x{}", "(".repeat(300), ")".repeat(300));
        assert_eq!(parse_expr(&nested).unwrap_err().span.start, MAX_DEPTH);
    }

    #[test]
    fn assignments_parse_and_report_missing_operator() {
        let a = parse_assignments("x := any; a[i+1] := x * 2;").unwrap();
        assert_eq!(a.len(), 2);
        assert!(matches!(a[0].rhs, Rhs::Any(_)));
        let err = parse_assignments("x == 1").unwrap_err();
        assert!(err.message.contains(":="), "{}", err.message);
    }
}
