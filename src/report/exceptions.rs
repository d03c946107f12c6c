//! An exception set as the `--exceptions` file format (docs/model-format.md,
//! "Exception sets"): one entry per product, its `when` the global store's
//! equalities and each thread's value a predicate that holds at exactly
//! the local stores of its component. The predicate is factored variable
//! by variable (location first), values with the same rest are merged and
//! runs of consecutive integers become ranges: a component of every
//! `quantum` in 0..4000 at one location is `@b11 && quantum >= 0 && quantum
//! <= 4000`, not 4001 disjuncts (svcomp-scull with `quantum := any`: a
//! 13.5 MB file that cartesian-exc took over 60 s to read back).

use crate::engine::result::{RefinedExceptions, Store};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// The exception set as a JSON array of entries, ready for `--exceptions`.
///
/// ```
/// use weft::{CheckOptions, Mode, Model};
/// let model = Model::load("models/lock.json").unwrap();
/// let report = model.check(Mode::Refine, &CheckOptions::default()).unwrap();
/// let entries = weft::exception_entries(report.exceptions.as_ref().unwrap());
/// assert!(entries.as_array().is_some_and(|e| !e.is_empty()));
/// ```
pub fn exception_entries(e: &RefinedExceptions) -> Value {
    // A value tree of these entries serializes without fail.
    serde_json::to_value(Entries::of(e)).unwrap_or(Value::Null)
}

/// Writes the exception set to `out` as `--save-exceptions` does: the
/// entries of [`exception_entries`], pretty-printed, entry by entry rather
/// than as a value tree (refine's E on simple-bool(400), 1600 products of
/// 400 threads: a 17 MB file, which took 110 MiB as a tree).
pub fn write_exception_entries(
    e: &RefinedExceptions,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &Entries::of(e))?;
    out.write_all(b"\n")
}

/// The entries, each component's disjunction made once however many
/// products name it.
struct Entries<'a> {
    e: &'a RefinedExceptions,
    disjunctions: Vec<String>,
}

impl<'a> Entries<'a> {
    fn of(e: &'a RefinedExceptions) -> Entries<'a> {
        let disjunctions = (0..e.component_count() as u32)
            .map(|c| component_predicate(e.component(c)).to_string())
            .collect();
        Entries { e, disjunctions }
    }
}

impl Serialize for Entries<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.e.product_parts().map(|(global, ids)| Entry {
            when: conjunction(global),
            names: self.e.threads(),
            ids: RefCell::new(Some(ids)),
            disjunctions: &self.disjunctions,
        }))
    }
}

/// One entry: `{"when": …, "threads": {name: disjunction, …}}`.
struct Entry<'a, I> {
    when: String,
    names: &'a [String],
    /// Each thread's component, read once, as the entry is written.
    ids: RefCell<Option<I>>,
    disjunctions: &'a [String],
}

impl<I: Iterator<Item = u32>> Serialize for Entry<'_, I> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Threads<'b, I>(&'b Entry<'b, I>);
        impl<I: Iterator<Item = u32>> Serialize for Threads<'_, I> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let e = self.0;
                let ids = e.ids.borrow_mut().take().into_iter().flatten();
                s.collect_map(
                    e.names
                        .iter()
                        .zip(ids)
                        .map(|(name, c)| (name, &e.disjunctions[c as usize])),
                )
            }
        }
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("when", &self.when)?;
        m.serialize_entry("threads", &Threads(self))?;
        m.end()
    }
}

/// `x == 1 && flag && !done && a[0] == 2`, or `true` for no variables.
fn conjunction(store: &Store) -> String {
    let atoms = atoms_of(store);
    if atoms.is_empty() {
        "true".into()
    } else {
        atoms.join(" && ")
    }
}

fn atoms_of(vars: &[(String, Value)]) -> Vec<String> {
    let mut atoms = Vec::new();
    for (name, v) in vars {
        match v {
            Value::Array(cells) => {
                for (i, c) in cells.iter().enumerate() {
                    atoms.push(atom(&format!("{name}[{i}]"), c));
                }
            }
            other => atoms.push(atom(name, other)),
        }
    }
    atoms
}

fn atom(name: &str, v: &Value) -> String {
    match v {
        Value::Bool(true) => name.to_string(),
        Value::Bool(false) => format!("!{name}"),
        other => format!("{name} == {other}"),
    }
}

/// One variable's value in a local store, ordered so that consecutive
/// integers sit side by side.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Location(String),
    Bool(bool),
    Int(i64),
    /// Anything else, as its JSON text (compared for equality only).
    Other(String),
}

impl Key {
    fn of(v: &Value, is_location: bool) -> Key {
        match v {
            Value::String(s) if is_location => Key::Location(s.clone()),
            Value::Bool(b) => Key::Bool(*b),
            Value::Number(n) if n.is_i64() => Key::Int(n.as_i64().unwrap_or_default()),
            other => Key::Other(other.to_string()),
        }
    }
}

/// A predicate over one thread's local store.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Pred {
    True,
    /// `@loc`.
    At(String),
    /// `name` or `!name`.
    Flag(String, bool),
    /// `name == value` (an integer, or another value's JSON text).
    Equals(String, String),
    /// `name >= lo && name <= hi`.
    Range(String, i64, i64),
    And(Vec<Pred>),
    Or(Vec<Pred>),
}

/// The local stores as rows of scalar values under flattened names
/// (`pc` first, array cells as `a[0]`, `a[1]`, …).
fn rows<'a>(stores: impl Iterator<Item = &'a Store>) -> (Vec<String>, Vec<Vec<Key>>) {
    let mut names = Vec::new();
    let mut rows = Vec::new();
    for store in stores {
        let mut row = Vec::new();
        let mut row_names = Vec::new();
        for (i, (name, v)) in store.iter().enumerate() {
            match v {
                Value::Array(cells) => {
                    for (j, c) in cells.iter().enumerate() {
                        row_names.push(format!("{name}[{j}]"));
                        row.push(Key::of(c, false));
                    }
                }
                other => {
                    row_names.push(name.clone());
                    row.push(Key::of(other, i == 0));
                }
            }
        }
        if names.is_empty() {
            names = row_names;
        }
        rows.push(row);
    }
    (names, rows)
}

/// The predicate that holds at exactly the given local stores (all of one
/// template, so of one shape).
fn component_predicate<'a>(stores: impl Iterator<Item = &'a Store>) -> Pred {
    let (names, rows) = rows(stores);
    let refs: Vec<&[Key]> = rows.iter().map(Vec::as_slice).collect();
    factor(&names, &refs)
}

/// Rows over `names` (each row as long as `names`) as a predicate: grouped
/// by the first variable's value; values whose rests give the same
/// predicate share one term.
fn factor(names: &[String], rows: &[&[Key]]) -> Pred {
    let Some((name, rest_names)) = names.split_first() else {
        return Pred::True;
    };
    let mut by_value: BTreeMap<&Key, Vec<&[Key]>> = BTreeMap::new();
    for row in rows {
        by_value.entry(&row[0]).or_default().push(&row[1..]);
    }
    // (the rest's predicate, the values that have it), in value order.
    // Indexed by the predicate, so that many distinct rests stay linear.
    let mut terms: Vec<(Pred, Vec<&Key>)> = Vec::new();
    let mut index: HashMap<Pred, usize> = HashMap::new();
    for (value, rest) in by_value {
        let sub = factor(rest_names, &rest);
        match index.get(&sub) {
            Some(&at) => terms[at].1.push(value),
            None => {
                index.insert(sub.clone(), terms.len());
                terms.push((sub, vec![value]));
            }
        }
    }
    let terms: Vec<Pred> = terms
        .into_iter()
        .map(|(sub, values)| and(values_in(name, &values), sub))
        .collect();
    or(terms)
}

/// `name` takes one of `values` (sorted).
fn values_in(name: &str, values: &[&Key]) -> Pred {
    let mut out = Vec::new();
    let mut i = 0;
    while i < values.len() {
        match values[i] {
            Key::Location(loc) => out.push(Pred::At(loc.clone())),
            Key::Bool(_) if values.len() == 2 => return Pred::True,
            Key::Bool(b) => out.push(Pred::Flag(name.into(), *b)),
            Key::Int(lo) => {
                // The run of consecutive integers from here.
                let mut hi = *lo;
                while let Some(Key::Int(next)) = values.get(i + 1)
                    && hi.checked_add(1) == Some(*next)
                {
                    hi = *next;
                    i += 1;
                }
                out.push(match hi == *lo {
                    true => Pred::Equals(name.into(), lo.to_string()),
                    false => Pred::Range(name.into(), *lo, hi),
                });
            }
            Key::Other(text) => out.push(Pred::Equals(name.into(), text.clone())),
        }
        i += 1;
    }
    or(out)
}

fn and(a: Pred, b: Pred) -> Pred {
    match (a, b) {
        (Pred::True, p) | (p, Pred::True) => p,
        (Pred::And(mut xs), Pred::And(ys)) => {
            xs.extend(ys);
            Pred::And(xs)
        }
        (Pred::And(mut xs), p) => {
            xs.push(p);
            Pred::And(xs)
        }
        (p, Pred::And(mut ys)) => {
            ys.insert(0, p);
            Pred::And(ys)
        }
        (p, q) => Pred::And(vec![p, q]),
    }
}

fn or(mut terms: Vec<Pred>) -> Pred {
    if terms.len() == 1 {
        terms.pop().unwrap_or(Pred::True)
    } else {
        Pred::Or(terms)
    }
}

impl fmt::Display for Pred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // An operand of `&&` or `||` that is itself one is parenthesized.
        let operand = |p: &Pred, f: &mut fmt::Formatter<'_>| match p {
            Pred::And(_) | Pred::Or(_) | Pred::Range(..) => write!(f, "({p})"),
            _ => write!(f, "{p}"),
        };
        let joined = |ps: &[Pred], op: &str, f: &mut fmt::Formatter<'_>| {
            for (i, p) in ps.iter().enumerate() {
                if i > 0 {
                    f.write_str(op)?;
                }
                operand(p, f)?;
            }
            Ok(())
        };
        match self {
            Pred::True => f.write_str("true"),
            Pred::At(loc) => write!(f, "@{}", crate::program::location_ref(loc)),
            Pred::Flag(name, true) => f.write_str(name),
            Pred::Flag(name, false) => write!(f, "!{name}"),
            Pred::Equals(name, v) => write!(f, "{name} == {v}"),
            Pred::Range(name, lo, hi) => write!(f, "{name} >= {lo} && {name} <= {hi}"),
            Pred::And(ps) => joined(ps, " && ", f),
            Pred::Or(ps) => joined(ps, " || ", f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// Does `p` hold at `row` (values under `names`)?
    fn holds(p: &Pred, names: &[String], row: &[Key]) -> bool {
        let at = |name: &str| &row[names.iter().position(|n| n == name).unwrap()];
        match p {
            Pred::True => true,
            Pred::At(loc) => row[0] == Key::Location(loc.clone()),
            Pred::Flag(name, b) => *at(name) == Key::Bool(*b),
            Pred::Equals(name, v) => match at(name) {
                Key::Int(x) => x.to_string() == *v,
                Key::Other(x) => x == v,
                _ => false,
            },
            Pred::Range(name, lo, hi) => matches!(at(name), Key::Int(x) if lo <= x && x <= hi),
            Pred::And(ps) => ps.iter().all(|p| holds(p, names, row)),
            Pred::Or(ps) => ps.iter().any(|p| holds(p, names, row)),
        }
    }

    /// Every local store of a template with `pc` in a..c, `x` in 0..5, a
    /// flag and a two-cell array of 0..1.
    fn universe() -> Vec<Store> {
        let mut out = Vec::new();
        for pc in ["a", "b", "c"] {
            for x in 0..5 {
                for flag in [false, true] {
                    for (c0, c1) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                        out.push(vec![
                            ("pc".into(), json!(pc)),
                            ("x".into(), json!(x)),
                            ("flag".into(), json!(flag)),
                            ("a".into(), json!([c0, c1])),
                        ]);
                    }
                }
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// The predicate holds at exactly the component's stores, among
        /// every store of the template.
        #[test]
        fn a_components_predicate_holds_at_exactly_its_stores(
            picks in proptest::collection::vec(any::<bool>(), 120),
            dense in 0u8..3,
        ) {
            let all = universe();
            // Dense components (most stores) exercise the merging, sparse
            // ones the single values.
            let chosen: Vec<&Store> = all
                .iter()
                .zip(&picks)
                .enumerate()
                .filter(|(i, (_, p))| **p || (dense == 2 && i % 3 != 0) || (dense == 1 && i % 2 == 0))
                .map(|(_, (s, _))| s)
                .collect();
            prop_assume!(!chosen.is_empty());
            let pred = component_predicate(chosen.iter().copied());
            let (names, rows) = rows(all.iter());
            for (store, row) in all.iter().zip(&rows) {
                let inside = chosen.contains(&store);
                prop_assert_eq!(holds(&pred, &names, row), inside, "{} at {:?}", pred, store);
            }
        }
    }

    #[test]
    fn every_value_of_one_variable_at_a_location_is_a_range() {
        let stores: Vec<Store> = (0..=4000)
            .map(|q| vec![("pc".into(), json!("b11")), ("quantum".into(), json!(q))])
            .collect();
        let pred = component_predicate(stores.iter());
        assert_eq!(
            pred.to_string(),
            "@b11 && (quantum >= 0 && quantum <= 4000)"
        );
    }
}
