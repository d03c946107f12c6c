//! The front ends' limits (docs/model-format.md, "Limits"): expressions
//! nest at most 256 levels in weft/1 and 64 in DVE (whose translation takes
//! up to four of weft's levels per DVE level), DVE arrays have 1 to 1000000
//! cells as weft/1's; beyond them a model is refused with a diagnostic at
//! the place, and `weft` exits 2 without a panic or a stack overflow.

mod cli;

use weft::Model;

/// A DVE model with `guard` on its one transition.
fn dve(guard: &str) -> String {
    format!(
        "byte x = 0; byte a[2]; process P {{ state s, t; init s; trans s -> t {{ guard {guard}; effect x = 1; }}; }} system async;"
    )
}

/// A weft/1 model with `inv` as its invariant.
fn weft(inv: &str) -> String {
    weft::serde_json::json!({
        "format": "weft/1",
        "name": "limits",
        "globals": {
            "x": {"type": "int", "min": 0, "max": 3, "init": 0},
            "b": {"type": "bool", "init": false},
            "a": {"type": "array", "len": 2, "of": {"type": "int", "min": 0, "max": 1}}
        },
        "threads": [{"name": "p", "start": "s", "transitions": [{"from": "s", "to": "t", "do": "x := 1"}]}],
        "properties": [{"name": "inv", "invariant": inv}]
    })
    .to_string()
}

/// Expression shapes of nesting `k`, each as deep as one level per step.
type Shape = fn(usize) -> String;

const DVE_SHAPES: &[(&str, Shape)] = &[
    ("parentheses", |k| {
        format!("{}x{} == 0", "(".repeat(k), ")".repeat(k))
    }),
    ("not", |k| format!("{}x", "!".repeat(k))),
    ("minus", |k| format!("{}x == 0", "-".repeat(k))),
    ("sum", |k| format!("x{} == 0", " + x".repeat(k))),
    ("index", |k| {
        format!("{}0{} == 0", "a[".repeat(k), "]".repeat(k))
    }),
    // The translation's worst case: each level an int operator over a
    // bool operand and a bool one over an int operand (`int(…)` and
    // `… != 0` both added), each inside parentheses.
    ("alternating", |k| {
        let mut e = "x".to_string();
        for i in 0..k {
            e = if i % 2 == 0 {
                format!("!({e} + 1)")
            } else {
                format!("-({e} == 1)")
            };
        }
        e
    }),
];

const WEFT_SHAPES: &[(&str, Shape)] = &[
    ("parentheses", |k| {
        format!("{}x{} == 0", "(".repeat(k), ")".repeat(k))
    }),
    ("not", |k| format!("{}b", "!".repeat(k))),
    ("minus", |k| format!("{}x == 0", "- ".repeat(k))),
    ("sum", |k| format!("x{} == 0", " + x".repeat(k))),
    ("implies", |k| format!("b{}", " -> b".repeat(k))),
    ("index", |k| {
        format!("{}0{} == 0", "a[".repeat(k), "]".repeat(k))
    }),
];

/// The largest `k` for which `load(shape(k))` is not refused as too deep,
/// and the message that refuses `k + 1`. Every accepted model is also
/// exported to Promela and every refusal rendered (later stages that
/// recurse on the expression).
fn threshold(
    shape: Shape,
    load: &dyn Fn(&str) -> Result<Model, Box<weft::Diagnostic>>,
) -> (usize, String) {
    let too_deep = |k: usize| match load(&shape(k)) {
        Ok(m) => {
            let _ = m.to_promela(&[]);
            None
        }
        Err(d) => {
            let text = d.render();
            text.contains("nested too deeply").then_some(text)
        }
    };
    let (mut lo, mut hi) = (1, 2000);
    assert!(too_deep(lo).is_none(), "the shallowest shape is refused");
    let refused = too_deep(hi).expect("2000 levels are accepted");
    assert!(!refused.is_empty());
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if too_deep(mid).is_some() {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    (lo, too_deep(hi).unwrap())
}

#[test]
fn dve_expressions_are_refused_by_the_dve_limit_before_weft_s() {
    for (name, shape) in DVE_SHAPES {
        let (k, message) = threshold(*shape, &|g| Model::from_dve(&dve(g), "limits.dve", None));
        eprintln!("DVE {name}: {k} levels load");
        assert!(k >= 30, "{name}: only {k} levels load");
        // Whatever the shape, the DVE parser refuses it first: the
        // translation of what it accepts is within weft's limit.
        assert!(
            message.contains("more than 64 levels") && message.contains("limits.dve:1:"),
            "{name}: one level more than {k} is refused with\n{message}"
        );
    }
}

#[test]
fn weft_expressions_nest_up_to_256_levels() {
    for (name, shape) in WEFT_SHAPES {
        let (k, message) = threshold(*shape, &|e| Model::from_json(&weft(e), "limits.json"));
        eprintln!("weft {name}: {k} levels load");
        assert!(k >= 120, "{name}: only {k} levels load");
        assert!(
            message.contains("more than 256 levels")
                && message.contains("limits.json: properties[0].invariant:1:"),
            "{name}: one level more than {k} is refused with\n{message}"
        );
    }
}

#[test]
fn long_and_chains_are_not_deep() {
    let guard = vec!["x == 0"; 5000].join(" && ");
    assert!(Model::from_dve(&dve(&guard), "limits.dve", None).is_ok());
    let inv = vec!["b"; 5000].join(" || ");
    assert!(Model::from_json(&weft(&inv), "limits.json").is_ok());
}

#[test]
fn dve_array_lengths_are_bounded_like_weft_s() {
    let model =
        |len: &str| format!("byte a[{len}]; process P {{ state s; init s; }} system async;");
    // The longest array translates (translation only: loading a million
    // cells is the loader's business, and slow in a debug build).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.dve");
    std::fs::write(&path, model("1000000")).unwrap();
    let (json, _) = Model::dve_to_json(&path, None).unwrap();
    assert_eq!(json["globals"]["a"]["len"], 1000000);
    for len in ["1000001", "0", "0 - 5", "9223372036854775807 + 1"] {
        let err = Model::from_dve(&model(len), "a.dve", None)
            .err()
            .unwrap_or_else(|| panic!("length {len} is accepted"));
        assert!(
            err.render().contains("a.dve:1:8"),
            "{len}: {}",
            err.render()
        );
    }
}

/// What `weft check FILE` says and exits with on an input past a limit.
fn refused(args: &[&str], place: &str, message: &str) {
    let run = cli::weft(args);
    assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
    assert!(run.stderr.contains(place), "{args:?}: {}", run.stderr);
    assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
    for bad in ["panicked", "overflowed", "memory allocation"] {
        assert!(!run.stderr.contains(bad), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn a_dve_guard_nested_10000_deep_exits_2_at_its_place() {
    refused(
        &["check", "tests/data/fuzz/dve/deep-guard.dve"],
        "tests/data/fuzz/dve/deep-guard.dve:1:130",
        "the expression is nested too deeply (more than 64 levels)",
    );
}

#[test]
fn a_dve_array_of_a_billion_cells_exits_2_at_its_length() {
    refused(
        &[
            "check",
            "--max-memory",
            "2000",
            "tests/data/fuzz/dve/huge-array.dve",
        ],
        "tests/data/fuzz/dve/huge-array.dve:1:15",
        "array length must be between 1 and 1000000, found 1000000000",
    );
}

#[test]
fn a_weft_invariant_nested_10000_deep_exits_2_at_its_place() {
    refused(
        &["check", "tests/data/fuzz/json_model/deep-parens.json"],
        "tests/data/fuzz/json_model/deep-parens.json: properties[0].invariant:1:",
        "the expression is nested too deeply (more than 256 levels)",
    );
}

/// Runs `f` on a thread with a program's main-thread stack (8 MiB).
fn on_main_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn many_transitions_do_not_make_deep_predicates() {
    // The built-in `deadlock` and `assertions` join every transition's
    // guard or assertion: 60000 of them from one location once made a
    // chain 60000 deep, which overflowed the stack when evaluated.
    on_main_stack(|| {
        let n = 60_000;
        let trans = vec!["a -> b { guard x == 1; }"; n].join(", ");
        let text =
            format!("byte x = 0; process P {{ state a, b; init a; trans {trans}; }} system async;");
        let m = Model::from_dve(&text, "many.dve", None).unwrap();
        let report = m
            .check(weft::Mode::Standard, &weft::CheckOptions::default())
            .unwrap();
        assert_eq!(report.verdict(), weft::Verdict::Unsafe, "the deadlock in a");
        let _ = m.to_promela(&[]);

        let tr =
            weft::serde_json::json!({"from": "a", "to": "b", "when": "x == 1", "assert": "x == 0"});
        let json = weft::serde_json::json!({
            "format": "weft/1", "name": "many",
            "globals": {"x": {"type": "int", "min": 0, "max": 3, "init": 0}},
            "threads": [{"name": "p", "start": "a", "transitions": vec![tr; n]}],
            "properties": [{"name": "e", "invariant": "x <= 3"}],
            "check-deadlock": true
        });
        let m = Model::from_json(&json.to_string(), "many.json").unwrap();
        let report = m
            .check(weft::Mode::Standard, &weft::CheckOptions::default())
            .unwrap();
        assert_eq!(
            report.outcomes.len(),
            4,
            "e, deadlock, assertions, model-errors"
        );
        let _ = m.to_promela(&[]);
    });
}
