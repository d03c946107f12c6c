//! The recursive-descent parser of the expression language: precedence
//! climbing from `->` down to primaries, depth-limited as it builds.

use super::lex::{Tok, leak, lex};
use super::{Assign, BinOp, Expr, ExprKind, ParseError, Quant, Rhs, Span, UnOp};

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
    /// The location or group after `@`: a name, digits (`@2`), or any
    /// string quoted (`@'l.2'`, what [`crate::program::location_ref`] writes).
    fn location(&mut self) -> PResult<(String, Span)> {
        if let Tok::Quoted(s) = self.peek().clone() {
            let sp = self.bump().1;
            return Ok((s, sp));
        }
        self.ident("a location or group name after `@`")
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
                let (name, sp) = self.location()?;
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
                let (name, sp) = self.location()?;
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
        let after_any = matches!(rhs, Rhs::Any(_));
        out.push(Assign { target, rhs });
        if *p.peek() != Tok::End && !p.eat(";") {
            if after_any {
                return Err(ParseError {
                    message: format!(
                        "`any` is only allowed as the whole right-hand side (`x := any`), found {} after it",
                        p.peek()
                    ),
                    span: p.span(),
                    label: "expected `;` or the end".into(),
                });
            }
            return Err(ParseError {
                message: format!("expected `;` between assignments, found {}", p.peek()),
                span: p.span(),
                label: "expected `;`".into(),
            });
        }
    }
    Ok(out)
}
