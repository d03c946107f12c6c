//! The fuzz targets' entry points, shared by the libFuzzer binaries
//! (fuzz/fuzz_targets/*.rs, nightly) and the stable replay of the committed
//! corpus and of every past finding (tests/fuzz_regressions.rs), so both run
//! exactly the same code on an input. Each one loads the input through the
//! public facade and, whatever comes back, uses it the way the binary would:
//! a diagnostic is rendered (the snippet and caret at its position), a model
//! is exported to Promela. Any panic, stack overflow, abort on allocation or
//! a very slow input is a finding; `Ok` and `Err` are both fine.

#![allow(dead_code)]

use weft::{Diagnostic, Model};

/// What the binary does with a load's result, minus the checking.
fn consume(result: Result<Model, Box<Diagnostic>>) {
    match result {
        Ok(model) => {
            let _ = model.property_names();
            let _ = model.thread_names();
            let _ = model.warnings();
            let _ = model.to_promela(&[]);
        }
        Err(d) => {
            let _ = d.render();
            let _ = d.to_string();
        }
    }
}

/// `json_model`: the input as a weft/1 document.
pub fn json_model(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        consume(Model::from_json(text, "fuzz.json"));
    }
}

/// Where `expr` puts its input in the fixed model [`EXPR_MODEL`].
const EXPR_SLOTS: [&str; 6] = [
    "@PROPERTY@",
    "@INVARIANT@",
    "@WHEN@",
    "@DO@",
    "@LEN@",
    "@EXCEPTION@",
];

/// A small model with every kind of expression: a property (with `count`
/// and instance references in scope), an invariant, a guard, an update, a
/// number over params (an array length) and an exception entry. The slot
/// chosen by the input's first byte gets the rest of the input; the others
/// keep a harmless default.
const EXPR_MODEL: &str = r#"{
  "format": "weft/1",
  "name": "fuzz-expr",
  "params": {"n": 2},
  "globals": {
    "x": {"type": "int", "min": 0, "max": 3, "init": 0},
    "b": {"type": "bool", "init": false},
    "a": {"type": "array", "len": @LEN@, "of": {"type": "int", "min": 0, "max": 3}}
  },
  "threads": [{
    "name": "p",
    "count": "n",
    "start": "idle",
    "groups": {"crit": ["l2", "l3"]},
    "locals": {"k": {"type": "int", "min": 0, "max": 2, "init": 0}},
    "transitions": [
      {"from": "idle", "to": "l2", "when": @WHEN@, "do": @DO@},
      {"from": "l2", "to": "l3", "assert": "x <= 3"},
      {"from": "l3", "to": "idle", "do": "x := 0"}
    ]
  }],
  "properties": [
    {"name": "e", "error": @PROPERTY@},
    {"name": "i", "invariant": @INVARIANT@}
  ],
  "exceptions": [{"when": @EXCEPTION@, "one": "@crit", "others": "!@crit"}]
}"#;

const EXPR_DEFAULTS: [&str; 6] = [
    "count(p: @crit) >= 2",
    "x <= 3",
    "x == 0",
    "x := x + 1; a[k] := 1",
    "3",
    "x != 0",
];

/// `expr`: the input (after its first byte, which picks the slot) as one
/// expression of [`EXPR_MODEL`], loaded in full: parse, resolve, type-check,
/// compile, ranges, exception entries, Promela export.
pub fn expr(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let slot = which as usize % EXPR_SLOTS.len();
    let mut model = EXPR_MODEL.to_string();
    // The input last, so that a slot's name inside it stays as it is.
    for (i, key) in EXPR_SLOTS.iter().enumerate() {
        if i != slot {
            model = model.replace(key, &json_string(EXPR_DEFAULTS[i]));
        }
    }
    let model = model.replace(EXPR_SLOTS[slot], &json_string(text));
    consume(Model::from_json(&model, "fuzz-expr.json"));
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
    weft::serde_json::Value::String(s.to_string()).to_string()
}

/// `dve`: the input as a DVE model; after a NUL byte, if there is one, the
/// rest is the `--error` expression.
pub fn dve(data: &[u8]) {
    let (model, error) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let Ok(text) = std::str::from_utf8(model) else {
        return;
    };
    let error = match error.map(std::str::from_utf8) {
        Some(Ok(e)) => Some(e),
        Some(Err(_)) => return,
        None => None,
    };
    consume(Model::from_dve(text, "fuzz.dve", error));
}
