//! DVE (DiVinE's modelling language, as used by the BEEM benchmark) to a
//! weft/1 model. Each DVE process becomes a thread template of count 1; its
//! states become locations; DVE's untyped C-like expressions become typed
//! weft expressions (comparisons and logic are bools, everything stored is an
//! int; `int(b)` and `e != 0` convert between them).
//!
//! Semantics chosen to reproduce BEEM's published state counts: `byte` is
//! 0..255 and `int` is -32768..32767; a value assigned outside the range
//! wraps around (two's complement truncation, as DiVinE stores it), and an
//! array index out of bounds is a model error. Synchronous channels become
//! weft rendezvous (`sync`); a buffered channel becomes a FIFO in two
//! globals (`c_buf`, `c_len`): a send is enabled while it is not full and
//! appends, a receive while it is not empty and takes the first value
//! (vacated cells are reset to 0, so equal contents are equal states).

use super::diag::Diagnostic;
use super::expr::Span;
use serde_json::{Map, Value, json};

/// Weft words a DVE identifier may not use as is; such names get a `_`.
const RESERVED: &[&str] = &[
    "true", "false", "tid", "any", "count", "exists", "forall", "and", "or", "not", "int", "pc",
];

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(i64),
    Id(String),
    Sym(&'static str),
    End,
}

const SYMS: &[&str] = &[
    "->", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "{", "}", "(", ")", "[", "]", ",", ";",
    "=", "+", "-", "*", "/", "%", "!", "<", ">", "|", "&", "^", "~", ".", "?", ":",
];

struct Lexer<'a> {
    src: &'a str,
    file: &'a str,
}

impl Lexer<'_> {
    fn err(
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

    fn tokens(&self) -> Result<Vec<(Tok, usize)>, Box<Diagnostic>> {
        let b = self.src.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
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

#[derive(Clone, Debug)]
enum DExpr {
    Num(i64),
    Var(String),
    Index(String, Box<DExpr>),
    Un(&'static str, Box<DExpr>),
    Bin(&'static str, Box<DExpr>, Box<DExpr>),
}

struct DVar {
    name: String,
    is_int: bool,
    len: Option<i64>,
    init: Vec<DExpr>,
    at: usize,
}

struct DTrans {
    from: String,
    to: String,
    guard: Option<DExpr>,
    /// `sync c!e` (true, value) or `sync c?x` (false, target).
    sync: Option<(String, bool, Option<DExpr>)>,
    effects: Vec<(DExpr, DExpr)>,
    /// Where `from -> to`, the guard, the sync and the effects are.
    head: Span,
    guard_at: Option<Span>,
    sync_at: Option<Span>,
    effects_at: Option<Span>,
}

struct DProc {
    name: String,
    at: usize,
    locals: Vec<DVar>,
    states: Vec<(String, usize)>,
    init: String,
    init_at: usize,
    trans: Vec<DTrans>,
}

/// A channel: synchronous (rendezvous) when `buffer` is 0, else a FIFO of
/// `buffer` values of one type (`is_int`: int, else byte).
struct DChannel {
    name: String,
    at: usize,
    buffer: i64,
    is_int: bool,
}

struct Parser<'a> {
    lx: Lexer<'a>,
    toks: Vec<(Tok, usize)>,
    pos: usize,
    consts: Vec<(String, i64)>,
    /// Where each constant is declared (for duplicate names).
    const_at: Vec<usize>,
    warnings: Vec<String>,
}

type R<T> = Result<T, Box<Diagnostic>>;

impl<'a> Parser<'a> {
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

    fn model(&mut self) -> R<(Vec<DVar>, Vec<DProc>, Vec<DChannel>)> {
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
                    "a constant's value must be a constant expression",
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

    fn const_eval(&self, e: &DExpr) -> Option<i64> {
        match e {
            DExpr::Num(v) => Some(*v),
            DExpr::Var(n) => self.consts.iter().find(|(c, _)| c == n).map(|(_, v)| *v),
            DExpr::Un("-", a) => self.const_eval(a).map(|v| -v),
            DExpr::Bin(op, a, b) => {
                let (x, y) = (self.const_eval(a)?, self.const_eval(b)?);
                Some(match *op {
                    "+" => x + y,
                    "-" => x - y,
                    "*" => x * y,
                    "/" if y != 0 => x / y,
                    "%" if y != 0 => x % y,
                    _ => return None,
                })
            }
            _ => None,
        }
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
                    self.lx
                        .err(lat, 1, "an array length must be a constant", "not constant")
                })?;
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

    // C precedence: || && | ^ & (== !=) (< <= > >=) (<< >>) (+ -) (* / %) unary.
    fn expr(&mut self) -> R<DExpr> {
        self.binary(0)
    }

    fn binary(&mut self, level: usize) -> R<DExpr> {
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
        let mut lhs = self.binary(level + 1)?;
        loop {
            let op = LEVELS[level]
                .iter()
                .find(|op| self.is_sym(op) || self.is_word(op))
                .copied();
            let Some(op) = op else { return Ok(lhs) };
            if self.is_sym("|")
                && self
                    .toks
                    .get(self.pos + 1)
                    .is_some_and(|t| t.0 == Tok::Sym("|"))
            {
                return Ok(lhs);
            }
            self.bump();
            let rhs = self.binary(level + 1)?;
            let op = match op {
                "or" => "||",
                "and" => "&&",
                o => o,
            };
            lhs = DExpr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn unary(&mut self) -> R<DExpr> {
        for (sym, op) in [("!", "!"), ("not", "!"), ("-", "-"), ("~", "~")] {
            if self.eat(sym) {
                return Ok(DExpr::Un(op, Box::new(self.unary()?)));
            }
        }
        self.postfix()
    }

    fn postfix(&mut self) -> R<DExpr> {
        match self.peek().clone() {
            Tok::Num(v) => {
                self.bump();
                Ok(DExpr::Num(v))
            }
            Tok::Sym("(") => {
                self.bump();
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Id(name) => {
                self.bump();
                match name.as_str() {
                    "true" => return Ok(DExpr::Num(1)),
                    "false" => return Ok(DExpr::Num(0)),
                    _ => {}
                }
                if self.is_sym(".") {
                    return Err(self.unsupported("a reference to another process in an expression"));
                }
                if self.eat("[") {
                    let i = self.expr()?;
                    self.expect("]")?;
                    return Ok(DExpr::Index(name, Box::new(i)));
                }
                if let Some((_, v)) = self.consts.iter().find(|(c, _)| *c == name) {
                    return Ok(DExpr::Num(*v));
                }
                Ok(DExpr::Var(name))
            }
            _ => Err(self.unexpected("an expression")),
        }
    }
}

fn line_col(src: &str, at: usize) -> (usize, usize) {
    let before = &src[..at.min(src.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1;
    (line, col)
}

/// Renames DVE identifiers that are weft words.
fn ident(name: &str) -> String {
    if RESERVED.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// Emits weft expressions from DVE ones, coercing between ints and bools,
/// with one renaming table (process locals that shadow globals).
struct Emit<'a> {
    rename: &'a [(String, String)],
}

impl Emit<'_> {
    fn name(&self, n: &str) -> String {
        self.rename
            .iter()
            .find(|(a, _)| a == n)
            .map(|(_, b)| b.clone())
            .unwrap_or_else(|| ident(n))
    }
    fn is_bool(e: &DExpr) -> bool {
        match e {
            DExpr::Un("!", _) => true,
            DExpr::Bin(op, ..) => {
                matches!(*op, "==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||")
            }
            _ => false,
        }
    }
    fn int(&self, e: &DExpr) -> String {
        if Self::is_bool(e) {
            return format!("int({})", self.bool(e));
        }
        match e {
            DExpr::Num(v) if *v < 0 => format!("({v})"),
            DExpr::Num(v) => v.to_string(),
            DExpr::Var(n) => self.name(n),
            DExpr::Index(a, i) => format!("{}[{}]", self.name(a), self.int(i)),
            DExpr::Un(op, a) => format!("({op}{})", self.int(a)),
            DExpr::Bin(op, a, b) => format!("({} {op} {})", self.int(a), self.int(b)),
        }
    }
    fn bool(&self, e: &DExpr) -> String {
        match e {
            DExpr::Un("!", a) => format!("(!{})", self.bool(a)),
            DExpr::Bin(op @ ("&&" | "||"), a, b) => {
                format!("({} {op} {})", self.bool(a), self.bool(b))
            }
            DExpr::Bin(op @ ("==" | "!=" | "<" | "<=" | ">" | ">="), a, b) => {
                format!("({} {op} {})", self.int(a), self.int(b))
            }
            _ => format!("({} != 0)", self.int(e)),
        }
    }
}

fn var_json(v: &DVar, consts: &Parser) -> Result<Value, String> {
    let (min, max) = if v.is_int { (-32768, 32767) } else { (0, 255) };
    let values: Vec<i64> = v
        .init
        .iter()
        .map(|e| {
            consts
                .const_eval(e)
                .ok_or_else(|| format!("the initial value of `{}` must be a constant", v.name))
        })
        .collect::<Result<_, _>>()?;
    // DiVinE stores initial values truncated like any other assignment.
    let wrap = |x: i64| {
        if v.is_int {
            ((x + 32768).rem_euclid(65536)) - 32768
        } else {
            x.rem_euclid(256)
        }
    };
    let scalar = json!({"type": "int", "min": min, "max": max});
    Ok(match v.len {
        None => {
            let mut s = scalar;
            s["init"] = json!(wrap(values.first().copied().unwrap_or(0)));
            s
        }
        Some(n) => {
            let mut cells: Vec<i64> = values.into_iter().map(wrap).collect();
            cells.resize(n as usize, 0);
            json!({"type": "array", "len": n, "of": scalar, "init": cells})
        }
    })
}

/// Where the parts of the translated model come from in the DVE text, so
/// that a diagnostic about the translation points at the DVE source.
pub struct SourceMap {
    file: String,
    text: String,
    /// (JSON path in the translation, DVE span, what is there).
    spans: Vec<(String, Span, &'static str)>,
}

impl SourceMap {
    fn add(&mut self, path: String, span: Span, what: &'static str) {
        self.spans.push((path, span, what));
    }

    /// Re-points a diagnostic about the translated model at the DVE text:
    /// the DVE construct it came from, with the translation as a note.
    pub fn relocate(&self, d: Box<Diagnostic>) -> Box<Diagnostic> {
        if d.path.starts_with("properties") {
            // The --error expression: the user's own text, positions intact.
            let mut d = d;
            d.path = "--error".into();
            return d;
        }
        let within = |p: &str| {
            d.path == p
                || d.path.starts_with(&format!("{p}."))
                || d.path.starts_with(&format!("{p}["))
        };
        let Some((_, span, what)) = self
            .spans
            .iter()
            .filter(|(p, ..)| within(p))
            .max_by_key(|(p, ..)| p.len())
        else {
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

/// A DVE model translated to weft/1.
pub struct Translation {
    pub model: Value,
    pub warnings: Vec<String>,
    pub map: SourceMap,
}

/// Refuses a name declared twice in one scope, at its second declaration.
fn check_unique<'n>(
    text: &str,
    file: &str,
    names: impl IntoIterator<Item = (&'n str, usize)>,
    scope: &str,
) -> Result<(), Box<Diagnostic>> {
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for (name, at) in names {
        if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
            let (line, col) = line_col(text, *first);
            let msg =
                format!("`{name}` is declared twice {scope} (first at line {line}, column {col})");
            return Err(Box::new(Diagnostic::new(file, "", msg).with_snippet(
                text,
                Span::new(at, at + name.len()),
                "declared again here",
            )));
        }
        seen.push((name, at));
    }
    Ok(())
}

/// An assignment of a DVE value, truncated to the target's width as
/// DiVinE stores it.
fn wrap(value: &str, is_int: bool) -> String {
    if is_int {
        format!("(({value} + 32768) % 65536 + 65536) % 65536 - 32768")
    } else {
        format!("({value} % 256 + 256) % 256")
    }
}

/// Translates a DVE model to a weft/1 model. `error` is the property (weft's
/// predicate language); without it, the model checks the state space only.
pub fn to_weft(
    text: &str,
    file: &str,
    error: Option<&str>,
) -> Result<Translation, Box<Diagnostic>> {
    let lx = Lexer { src: text, file };
    let toks = lx.tokens()?;
    let mut p = Parser {
        lx: Lexer { src: text, file },
        toks,
        pos: 0,
        consts: Vec::new(),
        const_at: Vec::new(),
        warnings: Vec::new(),
    };
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
    let mut map = SourceMap {
        file: file.to_string(),
        text: text.to_string(),
        spans: Vec::new(),
    };
    let err_at = |at: usize, msg: String| {
        Box::new(Diagnostic::new(file, "", msg.clone()).with_snippet(
            text,
            Span::new(at, at + 1),
            msg,
        ))
    };
    let name_span = |at: usize, name: &str| Span::new(at, at + name.len());
    let mut gjson = Map::new();
    for g in &globals {
        gjson.insert(
            ident(&g.name),
            var_json(g, &p).map_err(|m| err_at(g.at, m))?,
        );
        map.add(
            format!("globals.{}", ident(&g.name)),
            name_span(g.at, &g.name),
            "this variable",
        );
    }
    // A buffered channel is a FIFO in two globals: its cells and its length.
    let fifo = |c: &DChannel| {
        (
            format!("{}_buf", ident(&c.name)),
            format!("{}_len", ident(&c.name)),
        )
    };
    for c in channels.iter().filter(|c| c.buffer > 0) {
        let (buf, len) = fifo(c);
        for v in [&buf, &len] {
            if gjson.contains_key(v) {
                return Err(err_at(
                    c.at,
                    format!(
                        "the buffer of channel `{}` needs a variable `{v}`, which the model already has; rename it",
                        c.name
                    ),
                ));
            }
        }
        let (min, max) = if c.is_int { (-32768, 32767) } else { (0, 255) };
        gjson.insert(buf.clone(), json!({"type": "array", "len": c.buffer, "of": {"type": "int", "min": min, "max": max}, "init": vec![0; c.buffer as usize]}));
        gjson.insert(
            len.clone(),
            json!({"type": "int", "min": 0, "max": c.buffer, "init": 0}),
        );
        map.add(
            format!("globals.{buf}"),
            name_span(c.at, &c.name),
            "this channel",
        );
        map.add(
            format!("globals.{len}"),
            name_span(c.at, &c.name),
            "this channel",
        );
    }
    let mut threads = Vec::new();
    for (pi, pr) in procs.iter().enumerate() {
        let at_proc = format!("threads[{pi}]");
        map.add(at_proc.clone(), name_span(pr.at, &pr.name), "this process");
        map.add(
            format!("{at_proc}.start"),
            name_span(pr.init_at, &pr.init),
            "this initial state",
        );
        for (k, (st, at)) in pr.states.iter().enumerate() {
            map.add(
                format!("{at_proc}.locations[{k}]"),
                name_span(*at, st),
                "this state",
            );
        }
        // A local that shadows a global is renamed (weft forbids shadowing).
        let rename: Vec<(String, String)> = pr
            .locals
            .iter()
            .filter(|l| globals.iter().any(|g| g.name == l.name))
            .map(|l| (l.name.clone(), format!("{}_{}", ident(&l.name), pr.name)))
            .collect();
        let em = Emit { rename: &rename };
        let is_int_var = |n: &str| {
            pr.locals
                .iter()
                .chain(globals.iter())
                .find(|v| v.name == n)
                .is_some_and(|v| v.is_int)
        };
        let assign = |lhs: &DExpr, rhs: Option<&DExpr>, value: String| {
            let is_int = match lhs {
                DExpr::Var(n) | DExpr::Index(n, _) => is_int_var(n),
                _ => false,
            };
            let (min, max) = if is_int { (-32768, 32767) } else { (0, 255) };
            match rhs {
                // A constant in range needs no truncation (readable output).
                Some(DExpr::Num(v)) if (min..=max).contains(v) => {
                    format!("{} := {value}", em.int(lhs))
                }
                _ => format!("{} := {}", em.int(lhs), wrap(&value, is_int)),
            }
        };
        let mut locals = Map::new();
        for l in &pr.locals {
            locals.insert(
                em.name(&l.name),
                var_json(l, &p).map_err(|m| err_at(l.at, m))?,
            );
            map.add(
                format!("{at_proc}.locals.{}", em.name(&l.name)),
                name_span(l.at, &l.name),
                "this variable",
            );
        }
        let mut transitions = Vec::new();
        for (ti, t) in pr.trans.iter().enumerate() {
            let at_t = format!("{at_proc}.transitions[{ti}]");
            map.add(at_t.clone(), t.head, "this transition");
            let mut guards: Vec<String> = t.guard.iter().map(|g| em.bool(g)).collect();
            let mut assigns: Vec<String> = Vec::new();
            if let Some(span) = t.guard_at {
                map.add(format!("{at_t}.when"), span, "this guard");
            }
            let mut tj = Map::new();
            tj.insert("from".into(), json!(t.from));
            tj.insert("to".into(), json!(t.to));
            if let Some((chan, send, arg)) = &t.sync {
                let buffered = channels.iter().find(|c| c.name == *chan && c.buffer > 0);
                let sync_span = t.sync_at.unwrap_or(t.head);
                match buffered {
                    Some(c) => {
                        let (buf, len) = fifo(c);
                        let n = c.buffer;
                        if *send {
                            guards.push(format!("{len} < {n}"));
                            let v = arg.as_ref().map_or_else(|| "0".to_string(), |a| em.int(a));
                            assigns.push(format!("{buf}[{len}] := {}", wrap(&v, c.is_int)));
                            assigns.push(format!("{len} := {len} + 1"));
                        } else {
                            guards.push(format!("{len} > 0"));
                            if let Some(target) = arg {
                                assigns.push(assign(target, None, format!("{buf}[0]")));
                            }
                            for k in 1..n {
                                assigns.push(format!("{buf}[{}] := {buf}[{k}]", k - 1));
                            }
                            assigns.push(format!("{buf}[{}] := 0", n - 1));
                            assigns.push(format!("{len} := {len} - 1"));
                        }
                        map.add(
                            format!("{at_t}.when"),
                            t.guard_at.unwrap_or(sync_span),
                            "this guard and sync",
                        );
                        map.add(format!("{at_t}.do"), sync_span, "this sync");
                    }
                    None => {
                        let arg = arg.as_ref().map(|a| em.int(a)).unwrap_or_default();
                        tj.insert(
                            "sync".into(),
                            json!(format!(
                                "{}{}{arg}",
                                ident(chan),
                                if *send { "!" } else { "?" }
                            )),
                        );
                        map.add(format!("{at_t}.sync"), sync_span, "this sync");
                    }
                }
            }
            if !guards.is_empty() {
                tj.insert("when".into(), json!(guards.join(" && ")));
            }
            assigns.extend(
                t.effects
                    .iter()
                    .map(|(lhs, rhs)| assign(lhs, Some(rhs), em.int(rhs))),
            );
            if let Some(span) = t.effects_at {
                map.add(format!("{at_t}.do"), span, "these effects");
            }
            if !assigns.is_empty() {
                tj.insert("do".into(), json!(assigns.join("; ")));
            }
            transitions.push(Value::Object(tj));
        }
        threads.push(json!({
            "name": pr.name,
            "locations": pr.states.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            "start": pr.init,
            "locals": locals,
            "transitions": transitions,
        }));
    }
    let properties = match error {
        Some(e) => json!([{"name": "error", "error": e}]),
        None => json!([{"name": "state-space", "error": "false"}]),
    };
    let name = std::path::Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("dve")
        .to_string();
    let mut model = json!({
        "format": "weft/1",
        "name": name,
        "description": format!("Translated from the DVE model {file}."),
        "globals": gjson,
        "threads": threads,
        "properties": properties,
    });
    let rendezvous: Vec<String> = channels
        .iter()
        .filter(|c| c.buffer == 0)
        .map(|c| ident(&c.name))
        .collect();
    if !rendezvous.is_empty() {
        model["channels"] = json!(rendezvous);
    }
    Ok(Translation {
        model,
        warnings: p.warnings,
        map,
    })
}
