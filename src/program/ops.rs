//! The operators of the expression language. They live below the front end
//! so that the compiled program (`cexpr`, `ranges`) can name them without
//! importing `model`.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum UnOp {
    Not,
    Neg,
    BitNot,
    /// `int(b)`: a bool as 0/1 (needed by translated DVE models).
    ToInt,
    /// Built-in predicates only, no syntax: 1 where the operand evaluates
    /// to non-zero, 0 where it is zero or fails to evaluate. `deadlock`
    /// reads each guard so ("no transition has a true guard": one that
    /// fails is not true, and another thread's true guard still settles
    /// it); the step that evaluates the failing guard is the model error.
    Holds,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Implies,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinOp {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
            BinOp::Implies => "->",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
        }
    }
    pub(crate) fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
    pub(crate) fn is_logical(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or | BinOp::Implies)
    }
}
