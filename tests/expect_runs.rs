//! `expect` entries with options (a run per entry, docs/model-format.md,
//! `expect`) and `weft test`'s per-run resource options.

use assert_cmd::Command;
use serde_json::{Value, json};

/// `weft test ARGS…` on `model` written to a fresh folder: exit code,
/// stdout, and the folder (kept for the JUnit file).
fn weft_test(model: &Value, args: &[&str]) -> (Option<i32>, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.json");
    std::fs::write(&file, model.to_string()).unwrap();
    let out = Command::cargo_bin("weft")
        .unwrap()
        .arg("test")
        .arg(&file)
        .args(args)
        .current_dir(dir.path())
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
    (out.status.code(), text, dir)
}

/// A counter that one thread takes to 3; the error is `x == k`, so the
/// verdict depends on the parameter `k` (default 5: safe; 2: unsafe).
fn counter(expect: Value) -> Value {
    json!({
        "name": "counter",
        "params": {"k": 5},
        "globals": {"x": {"type": "int", "min": 0, "max": 5}},
        "threads": [{"name": "p", "locations": ["a"], "start": "a",
            "transitions": [{"from": "a", "to": "a", "when": "x < 3", "do": "x := x + 1"}]}],
        "properties": [{"name": "reach", "error": "x == k"},
                       {"name": "never", "error": "x == 4"}],
        "expect": expect
    })
}

#[test]
fn a_run_with_params_loads_the_model_with_them() {
    let m = counter(json!({"standard": ["safe", {"verdict": "unsafe", "params": {"k": 2}}]}));
    let (code, text, _dir) = weft_test(&m, &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("[standard] safe"), "{text}");
    assert!(text.contains("[standard --param k=2] unsafe"), "{text}");
    assert!(text.ends_with("2 passed, 0 failed\n"), "{text}");
}

#[test]
fn a_run_checks_only_its_properties() {
    // With k = 2 the run is unsafe, unless only `never` is checked.
    let run = json!({"verdict": "safe", "params": {"k": 2}, "properties": ["never"]});
    let (code, text, _dir) = weft_test(&counter(json!({"standard": run})), &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("[standard --property never --param k=2] safe"),
        "{text}"
    );
}

#[test]
fn a_runs_reduction_is_passed_to_the_check() {
    // refine takes no --por, --symmetry or --blocks: a run that passes
    // the option on is refused, which shows it was passed.
    for opt in ["por", "symmetry", "blocks"] {
        let m = counter(json!({"refine": {"verdict": "safe", opt: true}}));
        let (code, text, _dir) = weft_test(&m, &["--format", "json"]);
        assert_eq!(code, Some(1), "{opt}: {text}");
        let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(first["status"], "error", "{opt}: {text}");
        assert_eq!(first["options"], json!([format!("--{opt}")]), "{text}");
        let reason = first["reason"].as_str().unwrap();
        assert!(reason.contains(&format!("--{opt}")), "{opt}: {reason}");
    }
}

#[test]
fn the_junit_case_is_named_by_mode_and_options() {
    let m = counter(json!({"standard": ["safe", {"verdict": "safe", "por": true}]}));
    let (code, text, dir) = weft_test(&m, &["--junit", "j.xml"]);
    assert_eq!(code, Some(0), "{text}");
    let xml = std::fs::read_to_string(dir.path().join("j.xml")).unwrap();
    assert!(xml.contains(r#"name="standard""#), "{xml}");
    assert!(xml.contains(r#"name="standard --por""#), "{xml}");
}

#[test]
fn a_malformed_run_is_refused_at_its_position() {
    for (expect, at, words) in [
        (
            json!({"standard": {"verdict": "safe", "pro": true}}),
            "expect.standard",
            "`pro`",
        ),
        (
            json!({"standard": {"por": true}}),
            "expect.standard",
            "`verdict`",
        ),
        (json!({"standard": []}), "expect.standard", "empty list"),
        (
            json!({"standard": [{"verdict": "safe", "por": 1}]}),
            "expect.standard[0].por",
            "true or false",
        ),
        (
            json!({"standard": {"verdict": "safe", "params": {"k": "2"}}}),
            "expect.standard.params.k",
            "integer",
        ),
        (
            json!({"standard": {"verdict": "safe", "params": {"kk": 2}}}),
            "expect.standard.params.kk",
            "did you mean `k`?",
        ),
    ] {
        let (code, text, _dir) = weft_test(&counter(expect.clone()), &[]);
        assert_eq!(code, Some(1), "{expect}: {text}");
        assert!(
            text.contains("does not load") && text.contains(words),
            "{expect}: {text}"
        );
        assert!(text.contains(&format!("(at {at}")), "{expect}: {text}");
    }
}

#[test]
fn a_memory_budget_applies_to_each_run() {
    // No check fits in 1 MiB of resident memory: the safe run ends
    // `unknown` on the budget, which fails it.
    let m = counter(json!({"standard": "safe"}));
    let (code, text, _dir) = weft_test(&m, &["--max-memory", "1", "--jobs", "1"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("expected safe, got unknown"), "{text}");
    assert!(text.contains("memory budget of 1 MiB"), "{text}");
}
