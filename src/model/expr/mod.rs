//! The expression language of weft/1 models: its abstract syntax tree
//! (here), lexer (`lex.rs`) and recursive-descent parser (`parse.rs`).
//! Every node carries the byte span of its source text so that later stages
//! (name resolution, type checking) can point at it with a caret.

mod lex;
mod parse;

pub(crate) use parse::{MAX_DEPTH, parse_assignments, parse_expr};

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
    fn quoted_locations_name_any_string() {
        let e = parse_expr("@'l.2' || p[1]@'it''s' || @''''").unwrap();
        assert_eq!(shape(&e), "((@l.2 || p[1]@it's) || @')");
        let err = parse_expr("@'l.2 && x").unwrap_err();
        assert!(err.message.contains("not closed"), "{}", err.message);
        assert_eq!(err.span, Span::new(1, 10));
        // A quote that does not follow `@` is a stray character.
        let err = parse_expr("lck' == 1").unwrap_err();
        assert!(
            err.message.contains("unexpected character `'`"),
            "{}",
            err.message
        );
        assert_eq!(err.span, Span::new(3, 4));
    }

    proptest::proptest! {
        /// What `location_ref` writes after `@` parses back to the name.
        #[test]
        fn location_ref_reads_back(name in "[0-9]{1,3}|[a-z0-9_.' ]{1,6}|.{1,4}") {
            let src = format!("@{}", crate::program::location_ref(&name));
            let e = parse_expr(&src).map_err(|e| {
                proptest::test_runner::TestCaseError::fail(format!("{src}: {}", e.message))
            })?;
            proptest::prop_assert!(
                matches!(&e.kind, ExprKind::At(None, l, _) if *l == name),
                "{} read back as {}", src, shape(&e)
            );
        }
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
