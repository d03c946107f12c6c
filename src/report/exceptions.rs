//! An exception set as the `--exceptions` file format (docs/model-format.md,
//! "Exception sets"): one entry per product, its `when` the global store's
//! equalities and each thread's value the disjunction of its local stores.

use crate::engine::result::{RefinedExceptions, Store};
use serde_json::{Map, Value, json};

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
    // Each component's disjunction once, however many products name it.
    let mut disjunctions: Vec<Option<String>> = vec![None; e.component_count()];
    let entries = e
        .product_parts()
        .map(|(global, components)| {
            let mut threads = Map::new();
            for (name, &c) in e.threads().iter().zip(components) {
                let text = disjunctions[c as usize].get_or_insert_with(|| {
                    let states: Vec<String> = e.component(c).map(local_predicate).collect();
                    states.join(" || ")
                });
                threads.insert(name.clone(), Value::String(text.clone()));
            }
            json!({
                "when": conjunction(global),
                "threads": threads,
            })
        })
        .collect();
    Value::Array(entries)
}

/// `(@cs && k == 1)`: one local store, `pc` as a location atom.
fn local_predicate(store: &Store) -> String {
    let mut atoms = Vec::new();
    if let Some((_, Value::String(loc))) = store.first() {
        atoms.push(format!("@{loc}"));
    }
    atoms.extend(atoms_of(&store[1.min(store.len())..]));
    format!("({})", atoms.join(" && "))
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
