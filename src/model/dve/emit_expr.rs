//! DVE expressions to weft expressions: identifiers renamed away from weft
//! words, ints and bools coerced into each other, reads of other processes
//! (`P.s`, `P.v`) resolved to the globals that hold them, and arrays named
//! as a value read as their first cell.

use super::ast::DExpr;

/// Weft words a DVE identifier may not use as is; such names get a `_`.
const RESERVED: &[&str] = &[
    "true", "false", "tid", "any", "count", "exists", "forall", "and", "or", "not", "int", "pc",
];

/// Renames DVE identifiers that are weft words.
pub(super) fn ident(name: &str) -> String {
    if RESERVED.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// What a reference to another process (`P.s`, `P.v`) reads in the
/// translation: a state of `P` is the value of `P`'s location mirror (a
/// global that every transition of `P` keeps equal to its state's index);
/// a local of `P` read elsewhere is promoted to a global (`v_P`).
#[derive(Clone, Debug)]
pub(super) enum Remote {
    State { mirror: String, index: usize },
    Var { global: String },
}

/// The references to other processes of a model, resolved.
pub(super) type Remotes = std::collections::HashMap<(String, String), Remote>;

/// Emits weft expressions from DVE ones, coercing between ints and bools,
/// with one renaming table (process locals that shadow globals or are
/// promoted) and the resolved references to other processes.
pub(super) struct Emit<'a> {
    pub(super) rename: &'a [(String, String)],
    pub(super) remotes: &'a Remotes,
    /// The arrays in scope (DVE names): an array named as a value is its
    /// first cell, as DiVinE reads it (train-gate's `e`; docs/beem.md).
    pub(super) arrays: &'a [&'a str],
}

impl Emit<'_> {
    pub(super) fn name(&self, n: &str) -> String {
        self.rename
            .iter()
            .find(|(a, _)| a == n)
            .map(|(_, b)| b.clone())
            .unwrap_or_else(|| ident(n))
    }
    fn remote(&self, process: &str, member: &str) -> &Remote {
        // Every reference was resolved (or refused) before emitting.
        &self.remotes[&(process.to_string(), member.to_string())]
    }
    fn is_bool(&self, e: &DExpr) -> bool {
        match e {
            DExpr::Un("!", _) => true,
            DExpr::Bin(op, ..) => {
                matches!(*op, "==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||")
            }
            DExpr::Remote {
                process, member, ..
            } => matches!(self.remote(process, member), Remote::State { .. }),
            _ => false,
        }
    }
    pub(super) fn int(&self, e: &DExpr) -> String {
        if self.is_bool(e) {
            return format!("int({})", self.bool(e));
        }
        match e {
            DExpr::Num(v) if *v < 0 => format!("({v})"),
            DExpr::Num(v) => v.to_string(),
            DExpr::Var(n) if self.arrays.contains(&n.as_str()) => format!("{}[0]", self.name(n)),
            DExpr::Var(n) => self.name(n),
            DExpr::Index(a, i) => format!("{}[{}]", self.name(a), self.int(i)),
            DExpr::Un(op, a) => format!("({op}{})", self.int(a)),
            DExpr::Bin(op, a, b) => format!("({} {op} {})", self.int(a), self.int(b)),
            DExpr::Remote {
                process,
                member,
                index,
                ..
            } => match (self.remote(process, member), index) {
                (Remote::Var { global }, Some(i)) => format!("{global}[{}]", self.int(i)),
                (Remote::Var { global }, None) => global.clone(),
                (Remote::State { mirror, index }, _) => format!("int({mirror} == {index})"),
            },
        }
    }
    pub(super) fn bool(&self, e: &DExpr) -> String {
        match e {
            DExpr::Un("!", a) => format!("(!{})", self.bool(a)),
            DExpr::Bin(op @ ("&&" | "||"), a, b) => {
                format!("({} {op} {})", self.bool(a), self.bool(b))
            }
            DExpr::Bin(op @ ("==" | "!=" | "<" | "<=" | ">" | ">="), a, b) => {
                format!("({} {op} {})", self.int(a), self.int(b))
            }
            DExpr::Remote {
                process, member, ..
            } if self.is_bool(e) => match self.remote(process, member) {
                Remote::State { mirror, index } => format!("({mirror} == {index})"),
                Remote::Var { .. } => format!("({} != 0)", self.int(e)),
            },
            _ => format!("({} != 0)", self.int(e)),
        }
    }
}

/// Every array of `arrays` that `e` names as a value (not indexed).
pub(super) fn array_values<'e>(e: &'e DExpr, arrays: &[&str], out: &mut Vec<&'e str>) {
    match e {
        DExpr::Num(_) => {}
        DExpr::Var(n) => {
            if arrays.contains(&n.as_str()) && !out.contains(&n.as_str()) {
                out.push(n);
            }
        }
        DExpr::Index(_, i) | DExpr::Un(_, i) => array_values(i, arrays, out),
        DExpr::Bin(_, a, b) => {
            array_values(a, arrays, out);
            array_values(b, arrays, out);
        }
        DExpr::Remote { index, .. } => {
            if let Some(i) = index {
                array_values(i, arrays, out);
            }
        }
    }
}

/// Every `P.m` in `e`: (process, member, where).
pub(super) fn remote_refs<'e>(e: &'e DExpr, out: &mut Vec<(&'e str, &'e str, usize)>) {
    match e {
        DExpr::Num(_) | DExpr::Var(_) => {}
        DExpr::Index(_, i) | DExpr::Un(_, i) => remote_refs(i, out),
        DExpr::Bin(_, a, b) => {
            remote_refs(a, out);
            remote_refs(b, out);
        }
        DExpr::Remote {
            process,
            member,
            index,
            at,
        } => {
            out.push((process, member, *at));
            if let Some(i) = index {
                remote_refs(i, out);
            }
        }
    }
}
