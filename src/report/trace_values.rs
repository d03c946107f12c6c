//! The JSON values of a trace file, each with the line it starts on, built
//! with the load budgets (`--timeout`, `--max-memory`) checked as they
//! grow: a trace's JSON tree takes many times its text, so a file that
//! fits the budget can still outgrow it while parsed, and one value (a
//! long trace on one line) can be most of the file. Without limits in
//! force (`model::load::budget::with_limits`) the checks pass.

use crate::model::Diagnostic;
use crate::model::load::budget;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};

/// Array elements and object members built between two budget checks.
const POLL_EVERY: u32 = 1024;

thread_local! {
    /// The file named in a budget stop, while `values` runs.
    static FILE: RefCell<String> = const { RefCell::new(String::new()) };
    /// Elements built since the last check.
    static BUILT: Cell<u32> = const { Cell::new(0) };
    /// The budget stop that ended the parse: serde's errors carry only a
    /// message, and the caller needs the diagnostic with its limit.
    static STOP: RefCell<Option<Box<Diagnostic>>> = const { RefCell::new(None) };
}

/// Every JSON value in `text` (a file named `file`), with its first line;
/// `Err` for invalid JSON (at its line and column) or a budget run out.
pub(super) fn values(text: &str, file: &str) -> Result<Vec<(usize, Value)>, Box<Diagnostic>> {
    FILE.with(|f| *f.borrow_mut() = file.to_string());
    STOP.with(|s| s.borrow_mut().take());
    let mut values = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Budgeted>();
    // Lines are counted from where the last count stopped, not from the
    // start each time (quadratic in a file of many values).
    let (mut line, mut counted) = (1, 0);
    loop {
        let before = stream.byte_offset();
        let start = text[before..]
            .find(|c: char| !c.is_whitespace())
            .map_or(before, |i| before + i);
        line += text[counted..start].matches('\n').count();
        counted = start;
        match stream.next() {
            None => return Ok(values),
            Some(Ok(Budgeted(v))) => values.push((line, v)),
            Some(Err(e)) => {
                if let Some(stop) = STOP.with(|s| s.borrow_mut().take()) {
                    return Err(stop);
                }
                return Err(Box::new(Diagnostic::new(
                    file,
                    &format!("line {}, column {}", e.line(), e.column()),
                    format!("not valid JSON: {e}"),
                )));
            }
        }
        budget::check(file)?;
    }
}

/// Counts one element built; every `POLL_EVERY`, checks the budgets and,
/// when one has run out, keeps the stop for `values` and fails the parse.
fn poll<E: serde::de::Error>() -> Result<(), E> {
    let due = BUILT.with(|b| {
        let n = b.get() + 1;
        b.set(n % POLL_EVERY);
        n == POLL_EVERY
    });
    if !due {
        return Ok(());
    }
    match FILE.with(|f| budget::check(&f.borrow())) {
        Ok(()) => Ok(()),
        Err(stop) => {
            let msg = stop.message.clone();
            STOP.with(|s| *s.borrow_mut() = Some(stop));
            Err(E::custom(msg))
        }
    }
}

/// A `serde_json::Value` built with `poll` at each element.
struct Budgeted(Value);

impl<'de> Deserialize<'de> for Budgeted {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Budgeted, D::Error> {
        d.deserialize_any(Build).map(Budgeted)
    }
}

struct Build;

impl<'de> Visitor<'de> for Build {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    crate::model::json::scalar_value_visits!();
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Budgeted(v)) = seq.next_element()? {
            poll()?;
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        // As `serde_json::Value`: a duplicate key keeps its last value.
        while let Some((k, Budgeted(v))) = map.next_entry::<String, Budgeted>()? {
            poll()?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}
