//! The DVE parser: declarations (variables, constants, channels), processes
//! (states, initial state, transitions) and C-precedence expressions, from
//! the lexer's tokens to the syntax tree; constant expressions are evaluated
//! as they are read. The expressions themselves are in `parse/expr.rs`.

use super::ast::{DChannel, DExpr, DProc, DTrans, DVar};
use super::lex::{Lexer, Tok, line_col};
use crate::model::diag::Diagnostic;
use crate::model::expr::Span;
use crate::model::load::budget;

pub(super) struct Parser<'a> {
    lx: Lexer<'a>,
    toks: Vec<(Tok, usize)>,
    pos: usize,
    pub(super) consts: Vec<(String, i64)>,
    /// Where each constant is declared (for duplicate names).
    pub(super) const_at: Vec<usize>,
    pub(super) warnings: Vec<String>,
    /// Current recursion depth of the expression parser.
    nesting: usize,
}

/// The longest array, as in weft/1.
const MAX_ARRAY_LEN: i64 = 1_000_000;

type R<T> = Result<T, Box<Diagnostic>>;

mod expr;

impl<'a> Parser<'a> {
    /// A parser at the start of `text` (lexed here).
    pub(super) fn new(text: &'a str, file: &'a str) -> R<Parser<'a>> {
        let lx = Lexer { src: text, file };
        let toks = lx.tokens()?;
        Ok(Parser {
            lx: Lexer { src: text, file },
            toks,
            pos: 0,
            consts: Vec::new(),
            const_at: Vec::new(),
            warnings: Vec::new(),
            nesting: 0,
        })
    }
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }
    fn at(&self) -> usize {
        self.toks[self.pos].1
    }
    /// Where the last token taken ends.
    fn prev_end(&self) -> usize {
        let Some((tok, at)) = self.pos.checked_sub(1).map(|p| &self.toks[p]) else {
            return 0;
        };
        at + match tok {
            Tok::Id(s) => s.len(),
            Tok::Sym(s) => s.len(),
            Tok::Num(_) => self.lx.src[*at..]
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count(),
            Tok::End => 0,
        }
    }
    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].0.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Sym(x) if *x == s)
    }
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Id(x) if x == w)
    }
    fn eat(&mut self, s: &str) -> bool {
        if self.is_sym(s) || self.is_word(s) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn unexpected(&self, what: &str) -> Box<Diagnostic> {
        let found = match self.peek() {
            Tok::Num(v) => format!("`{v}`"),
            Tok::Id(s) => format!("`{s}`"),
            Tok::Sym(s) => format!("`{s}`"),
            Tok::End => "the end of the file".into(),
        };
        self.lx.err(
            self.at(),
            1,
            format!("expected {what}, found {found}"),
            format!("expected {what}"),
        )
    }
    fn expect(&mut self, s: &str) -> R<()> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("`{s}`")))
        }
    }
    fn ident(&mut self, what: &str) -> R<String> {
        match self.peek().clone() {
            Tok::Id(s) => {
                self.bump();
                Ok(s)
            }
            _ => Err(self.unexpected(what)),
        }
    }
    fn unsupported(&self, what: &str) -> Box<Diagnostic> {
        let (line, col) = line_col(self.lx.src, self.at());
        self.lx.err(
            self.at(),
            1,
            format!("unsupported: {what} (line {line}, column {col})"),
            "weft's DVE front end does not support this yet",
        )
    }

    pub(super) fn model(&mut self) -> R<(Vec<DVar>, Vec<DProc>, Vec<DChannel>)> {
        let mut globals = Vec::new();
        let mut procs = Vec::new();
        let mut channels = Vec::new();
        let mut system = false;
        loop {
            match self.peek().clone() {
                Tok::End => break,
                Tok::Id(w) if w == "byte" || w == "int" => globals.extend(self.var_decl()?),
                Tok::Id(w) if w == "const" => self.const_decl()?,
                Tok::Id(w) if w == "channel" || w == "chan" => {
                    channels.extend(self.channel_decl()?)
                }
                Tok::Id(w) if w == "process" => procs.push(self.process()?),
                Tok::Id(w) if w == "system" => {
                    system = true;
                    self.bump();
                    if self.is_word("sync") {
                        return Err(self.unsupported("`system sync` (synchronous systems)"));
                    }
                    self.expect("async")?;
                    if self.is_word("property") {
                        return Err(self.unsupported(
                            "`property` (LTL/Büchi properties); give the error with --error",
                        ));
                    }
                    self.expect(";")?;
                }
                _ => {
                    return Err(self.unexpected(
                        "a declaration (`byte`, `int`, `const`, `process` or `system`)",
                    ));
                }
            }
        }
        if !system {
            self.warnings.push(format!(
                "{}: no `system async;` declaration; weft reads the model as asynchronous (interleaving)",
                self.lx.file
            ));
        }
        Ok((globals, procs, channels))
    }

    /// `channel a, b;` (rendezvous) or `channel {byte} c[2];` (buffered;
    /// `[0]` or no length: a typed rendezvous).
    fn channel_decl(&mut self) -> R<Vec<DChannel>> {
        self.bump();
        let mut is_int = false;
        if self.eat("{") {
            is_int = self.ident("a type (`byte` or `int`)")? == "int";
            if self.is_sym(",") {
                return Err(self.unsupported("channels that carry several values"));
            }
            self.expect("}")?;
        }
        let mut out = Vec::new();
        loop {
            let at = self.at();
            let name = self.ident("a channel name")?;
            let mut buffer = 0;
            if self.eat("[") {
                let lat = self.at();
                let e = self.expr()?;
                buffer = self
                    .const_eval(&e)
                    .filter(|n| (0..=255).contains(n))
                    .ok_or_else(|| {
                        self.lx.err(
                            lat,
                            1,
                            "a channel's buffer size must be a constant from 0 to 255",
                            "not such a constant",
                        )
                    })?;
                self.expect("]")?;
            }
            out.push(DChannel {
                name,
                at,
                buffer,
                is_int,
            });
            if !self.eat(",") {
                break;
            }
        }
        self.expect(";")?;
        Ok(out)
    }

    fn const_decl(&mut self) -> R<()> {
        self.bump();
        if self.is_word("byte") || self.is_word("int") {
            self.bump();
        }
        loop {
            self.const_at.push(self.at());
            let name = self.ident("a constant name")?;
            self.expect("=")?;
            let at = self.at();
            let e = self.expr()?;
            let v = self.const_eval(&e).ok_or_else(|| {
                self.lx.err(
                    at,
                    1,
                    "a constant's value must be a constant expression (within 64 bits, no division by zero)",
                    "not constant",
                )
            })?;
            self.consts.push((name, v));
            if !self.eat(",") {
                break;
            }
        }
        self.expect(";")
    }

    fn var_decl(&mut self) -> R<Vec<DVar>> {
        let is_int = self.ident("a type")? == "int";
        let mut out = Vec::new();
        loop {
            let at = self.at();
            let name = self.ident("a variable name")?;
            let len = if self.eat("[") {
                let lat = self.at();
                let e = self.expr()?;
                let n = self.const_eval(&e).ok_or_else(|| {
                    self.lx.err(
                        lat,
                        1,
                        "an array length must be a constant (within 64 bits, no division by zero)",
                        "not constant",
                    )
                })?;
                // The bounds of weft/1 (src/model/load/vars.rs), checked
                // here, before the translation allocates the cells.
                if !(1..=MAX_ARRAY_LEN).contains(&n) {
                    return Err(self.lx.err(
                        lat,
                        self.prev_end().saturating_sub(lat),
                        format!("array length must be between 1 and {MAX_ARRAY_LEN}, found {n}"),
                        "this length",
                    ));
                }
                self.expect("]")?;
                Some(n)
            } else {
                None
            };
            let mut init = Vec::new();
            if self.eat("=") {
                if self.eat("{") {
                    loop {
                        init.push(self.expr()?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                    self.expect("}")?;
                } else {
                    init.push(self.expr()?);
                }
            }
            if let Some(n) = len
                && init.len() as i64 > n
            {
                let (line, col) = line_col(self.lx.src, at);
                self.warnings.push(format!("{}:{line}:{col}: `{name}` has {} initial values for {n} cells; the extra ones are ignored, as DiVinE does", self.lx.file, init.len()));
                init.truncate(n as usize);
            }
            out.push(DVar {
                name,
                is_int,
                len,
                init,
                at,
            });
            if !self.eat(",") {
                break;
            }
        }
        self.expect(";")?;
        Ok(out)
    }

    fn process(&mut self) -> R<DProc> {
        self.bump();
        let at = self.at();
        let name = self.ident("a process name")?;
        self.expect("{")?;
        let mut locals = Vec::new();
        while self.is_word("byte") || self.is_word("int") {
            locals.extend(self.var_decl()?);
        }
        if self.is_word("const") {
            self.const_decl()?;
        }
        self.expect("state")?;
        let mut states = Vec::new();
        loop {
            let at = self.at();
            states.push((self.ident("a state name")?, at));
            if !self.eat(",") {
                break;
            }
        }
        self.expect(";")?;
        self.expect_in_process("init")?;
        let init_at = self.at();
        let init = self.ident("the initial state")?;
        self.expect(";")?;
        for w in ["accept", "commit", "assert"] {
            if self.is_word(w) {
                return Err(self.unsupported(&format!("`{w}` declarations")));
            }
        }
        let mut trans = Vec::new();
        self.refuse_late_declaration()?;
        if self.eat("trans") {
            loop {
                trans.push(self.transition()?);
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(";")?;
        }
        self.expect_in_process("}")?;
        Ok(DProc {
            name,
            at,
            locals,
            states,
            init,
            init_at,
            trans,
        })
    }

    /// `expect` inside a process body, with a clearer error for a
    /// declaration in the wrong place.
    fn expect_in_process(&mut self, s: &str) -> R<()> {
        self.refuse_late_declaration()?;
        self.expect(s)
    }

    /// A variable or constant declared after the `state` line: DVE wants
    /// a process's declarations first.
    fn refuse_late_declaration(&self) -> R<()> {
        match ["byte", "int", "const"].into_iter().find(|w| self.is_word(w)) {
            Some(w) => Err(self.lx.err(
                self.at(),
                w.len(),
                format!(
                    "`{w}` declaration after the `state` line: a process declares its variables and constants first, then `state`, `init` and `trans`"
                ),
                "move this declaration above `state`".to_string(),
            )),
            None => Ok(()),
        }
    }

    fn transition(&mut self) -> R<DTrans> {
        // A transition's syntax tree can be large (plc.4's average about
        // 200 KB): the budgets are checked at each one.
        budget::check(self.lx.file)?;
        let start = self.at();
        let from = self.ident("a source state")?;
        self.expect("->")?;
        let to = self.ident("a target state")?;
        let head = Span::new(start, self.prev_end());
        self.expect("{")?;
        let mut guard = None;
        let mut sync = None;
        let mut effects = Vec::new();
        let (mut guard_at, mut sync_at, mut effects_at) = (None, None, None);
        loop {
            let part = self.at();
            if self.eat("guard") {
                guard = Some(self.expr()?);
                guard_at = Some(Span::new(part, self.prev_end()));
                self.expect(";")?;
            } else if self.eat("sync") {
                let chan = self.ident("a channel name")?;
                let send = if self.eat("!") {
                    true
                } else if self.eat("?") {
                    false
                } else {
                    return Err(self.unexpected("`!` or `?` after the channel name"));
                };
                let arg = if self.is_sym(";") {
                    None
                } else if send {
                    Some(self.expr()?)
                } else {
                    Some(self.postfix()?)
                };
                sync_at = Some(Span::new(part, self.prev_end()));
                self.expect(";")?;
                sync = Some((chan, send, arg));
            } else if self.eat("effect") {
                loop {
                    let lhs = self.postfix()?;
                    if !matches!(lhs, DExpr::Var(_) | DExpr::Index(..)) {
                        return Err(self.unexpected("a variable to assign"));
                    }
                    self.expect("=")?;
                    effects.push((lhs, self.expr()?));
                    if !self.eat(",") {
                        break;
                    }
                }
                effects_at = Some(Span::new(part, self.prev_end()));
                self.expect(";")?;
            } else {
                break;
            }
        }
        self.expect("}")?;
        Ok(DTrans {
            from,
            to,
            guard,
            sync,
            effects,
            head,
            guard_at,
            sync_at,
            effects_at,
        })
    }
}
