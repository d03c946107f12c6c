//! DVE expressions: C precedence, `&&`/`||` chains as balanced trees, each
//! node's depth kept as it is built and refused beyond `MAX_DEPTH`, and
//! constant expressions evaluated without overflow.

use super::super::ast::DExpr;
use super::super::lex::Tok;
use super::{Parser, R};
use crate::model::diag::Diagnostic;

/// How deeply a DVE expression may nest (parentheses, operators): weft's
/// translation of one DVE level takes up to four levels of weft's own
/// expression parser (an operator, a conversion `int(…)` or `… != 0`, and
/// their parentheses), whose limit is `expr::MAX_DEPTH` (256); so anything
/// this parser accepts also translates, and no later stage can run out of
/// stack.
pub(super) const MAX_DEPTH: usize = crate::model::expr::MAX_DEPTH / 4;

impl Parser<'_> {
    pub(in crate::model::dve) fn const_eval(&self, e: &DExpr) -> Option<i64> {
        match e {
            DExpr::Num(v) => Some(*v),
            DExpr::Var(n) => self.consts.iter().find(|(c, _)| c == n).map(|(_, v)| *v),
            // An overflow is not a constant either (the caller says so).
            DExpr::Un("-", a) => self.const_eval(a)?.checked_neg(),
            DExpr::Bin(op, a, b) => {
                let (x, y) = (self.const_eval(a)?, self.const_eval(b)?);
                match *op {
                    "+" => x.checked_add(y),
                    "-" => x.checked_sub(y),
                    "*" => x.checked_mul(y),
                    "/" => x.checked_div(y),
                    "%" => x.checked_rem(y),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    // C precedence: || && | ^ & (== !=) (< <= > >=) (<< >>) (+ -) (* / %) unary.
    pub(super) fn expr(&mut self) -> R<DExpr> {
        Ok(self.nested()?.0)
    }

    /// A whole expression (at the top, or inside `( )` or `[ ]`) with the
    /// depth of its tree; one level deeper for the parser itself.
    fn nested(&mut self) -> R<(DExpr, usize)> {
        self.enter()?;
        let e = self.binary(0)?;
        self.nesting -= 1;
        Ok(e)
    }

    /// Enters one level of the parser's recursion (an expression inside
    /// parentheses or brackets, an operand of a unary operator): beyond
    /// `MAX_DEPTH` the input is refused before the stack can run out.
    fn enter(&mut self) -> R<()> {
        self.nesting += 1;
        if self.nesting > MAX_DEPTH {
            return Err(self.too_deep());
        }
        Ok(())
    }

    fn too_deep(&self) -> Box<Diagnostic> {
        self.lx.err(
            self.at(),
            1,
            format!("the expression is nested too deeply (more than {MAX_DEPTH} levels)"),
            "split it into smaller parts",
        )
    }

    /// A node over children of depth `d`, refused beyond `MAX_DEPTH` (a
    /// long chain such as `a + a + … + a` nests one level per operator).
    fn deeper(&self, d: usize) -> R<usize> {
        if d + 1 > MAX_DEPTH {
            return Err(self.too_deep());
        }
        Ok(d + 1)
    }

    fn binary(&mut self, level: usize) -> R<(DExpr, usize)> {
        const LEVELS: &[&[&str]] = &[
            &["||", "or"],
            &["&&", "and"],
            &["|"],
            &["^"],
            &["&"],
            &["==", "!="],
            &["<", "<=", ">", ">="],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let first = self.binary(level + 1)?;
        // `||` and `&&` are associative: a chain becomes a balanced tree
        // (same value, same left-to-right order), so that a long guard is
        // not deep (weft's expressions do the same).
        let mut chain: Vec<(DExpr, usize)> = Vec::new();
        let mut lhs = first;
        loop {
            let op = LEVELS[level]
                .iter()
                .find(|op| self.is_sym(op) || self.is_word(op))
                .copied();
            let Some(op) = op else { break };
            if self.is_sym("|")
                && self
                    .toks
                    .get(self.pos + 1)
                    .is_some_and(|t| t.0 == Tok::Sym("|"))
            {
                break;
            }
            self.bump();
            let rhs = self.binary(level + 1)?;
            if level < 2 {
                chain.push(rhs);
                continue;
            }
            let op = match op {
                "or" => "||",
                "and" => "&&",
                o => o,
            };
            let d = self.deeper(lhs.1.max(rhs.1))?;
            lhs = (DExpr::Bin(op, Box::new(lhs.0), Box::new(rhs.0)), d);
        }
        if chain.is_empty() {
            return Ok(lhs);
        }
        let op = if level == 0 { "||" } else { "&&" };
        let mut items = Vec::with_capacity(chain.len() + 1);
        items.push(lhs);
        items.extend(chain);
        while items.len() > 1 {
            let mut next = Vec::with_capacity(items.len().div_ceil(2));
            let mut it = items.into_iter();
            while let Some(a) = it.next() {
                next.push(match it.next() {
                    Some(b) => {
                        let d = self.deeper(a.1.max(b.1))?;
                        (DExpr::Bin(op, Box::new(a.0), Box::new(b.0)), d)
                    }
                    None => a,
                });
            }
            items = next;
        }
        Ok(items.swap_remove(0))
    }

    fn unary(&mut self) -> R<(DExpr, usize)> {
        for (sym, op) in [("!", "!"), ("not", "!"), ("-", "-"), ("~", "~")] {
            if self.eat(sym) {
                self.enter()?;
                let (e, d) = self.unary()?;
                self.nesting -= 1;
                let d = self.deeper(d)?;
                return Ok((DExpr::Un(op, Box::new(e)), d));
            }
        }
        self.postfix_d()
    }

    pub(super) fn postfix(&mut self) -> R<DExpr> {
        Ok(self.postfix_d()?.0)
    }

    fn postfix_d(&mut self) -> R<(DExpr, usize)> {
        match self.peek().clone() {
            Tok::Num(v) => {
                self.bump();
                Ok((DExpr::Num(v), 1))
            }
            Tok::Sym("(") => {
                self.bump();
                let e = self.nested()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Id(name) => {
                self.bump();
                match name.as_str() {
                    "true" => return Ok((DExpr::Num(1), 1)),
                    "false" => return Ok((DExpr::Num(0), 1)),
                    _ => {}
                }
                if self.eat(".") {
                    // `P.s` or `P.v[i]`: what `member` is, emit decides
                    // (it knows the processes).
                    let at = self.at();
                    let member = self.ident(&format!("a state or variable of process `{name}`"))?;
                    let (index, d) = if self.eat("[") {
                        let (i, d) = self.nested()?;
                        self.expect("]")?;
                        (Some(Box::new(i)), self.deeper(d)?)
                    } else {
                        (None, 1)
                    };
                    return Ok((
                        DExpr::Remote {
                            process: name,
                            member,
                            index,
                            at,
                        },
                        d,
                    ));
                }
                if self.eat("[") {
                    let (i, d) = self.nested()?;
                    self.expect("]")?;
                    let d = self.deeper(d)?;
                    return Ok((DExpr::Index(name, Box::new(i)), d));
                }
                if let Some((_, v)) = self.consts.iter().find(|(c, _)| *c == name) {
                    return Ok((DExpr::Num(*v), 1));
                }
                Ok((DExpr::Var(name), 1))
            }
            _ => Err(self.unexpected("an expression")),
        }
    }
}
