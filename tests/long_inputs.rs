//! Inputs that are long rather than deep, through the real binary (found by
//! fuzzing, 2026-11-28): a `do` of tens of thousands of assignments (one
//! stack frame per assignment overflowed the stack), a label of 70,000
//! characters (the trace's column padding panicked), and `any` choices
//! whose product no step can hold (`weft simulate` tried to). Each is
//! checked, or refused with its position; never a crash.

mod cli;

use cli::weft;
use serde_json::{Value, json};
use std::path::PathBuf;

fn write(tag: &str, model: &Value) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("weft-long-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{tag}.json"));
    std::fs::write(&path, model.to_string()).unwrap();
    path
}

/// One step of `assignments` toggles of `x` (an odd number: x ends 1).
fn long_do(assignments: usize) -> Value {
    let body = vec!["x := 1 - x"; assignments].join("; ");
    json!({
        "name": "long-do",
        "globals": {"x": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [{"name": "p", "count": 2, "start": "a",
                     "transitions": [{"from": "a", "to": "b", "do": body}]}],
        "properties": [{"name": "one", "error": "x == 1"}]
    })
}

#[test]
fn a_long_do_runs_in_every_engine() {
    let path = write("do", &long_do(100_001));
    let path = path.to_str().unwrap();
    for extra in [
        &[][..],
        &["--jobs", "2"],
        &["--por"],
        &["--mode", "thread-modular"],
        &["--mode", "refine"],
    ] {
        let args: Vec<&str> = ["check", path].iter().chain(extra).copied().collect();
        let run = weft(&args);
        assert!(
            run.stdout.contains("one: UNSAFE") || run.stdout.contains("one: unknown"),
            "{extra:?}: {}\n{}",
            run.stdout,
            run.stderr
        );
        assert!(
            matches!(run.code, Some(1) | Some(3)),
            "{extra:?}: {:?}",
            run.code
        );
    }
    let run = weft(&["simulate", path, "--runs", "1"]);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
}

#[test]
fn a_long_label_is_printed_in_its_trace() {
    let label = "l".repeat(70_000);
    let model = json!({
        "name": "long-label",
        "globals": {"x": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [{"name": "p", "start": "a",
                     "transitions": [{"from": "a", "to": "b", "do": "x := 1", "label": label}]}],
        "properties": [{"name": "one", "error": "x == 1"}]
    });
    let path = write("label", &model);
    let run = weft(&["check", path.to_str().unwrap()]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.contains(&label), "the trace names the step");
    assert!(!run.stderr.contains("internal error"), "{}", run.stderr);
}

#[test]
fn any_choices_beyond_a_million_successors_are_refused_where_they_pass_it() {
    let vars: serde_json::Map<String, Value> = (0..21)
        .map(|i| (format!("b{i}"), json!({"type": "bool"})))
        .collect();
    let body: Vec<String> = (0..21).map(|i| format!("b{i} := any")).collect();
    let body = body.join("; ");
    let model = json!({
        "name": "any-chain",
        "globals": vars,
        "threads": [{"name": "p", "start": "a",
                     "transitions": [{"from": "a", "to": "b", "do": body}]}],
        "properties": [{"name": "never", "error": "false"}]
    });
    let path = write("any", &model);
    let run = weft(&["simulate", path.to_str().unwrap(), "--runs", "1"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    // 2^20 passes the million at the 20th `any`, b19's (byte 10 × 11 +
    // 9 × 12 + 7 = 225).
    assert!(
        run.stderr.contains("give 1048576 successors together")
            && run.stderr.contains("threads[0].transitions[0].do:1:226"),
        "{}",
        run.stderr
    );
}
