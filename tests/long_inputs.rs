//! Inputs that are long rather than deep, through the real binary (found by
//! fuzzing, 2026-11-28): a `do` of tens of thousands of assignments (one
//! stack frame per assignment overflowed the stack), a label of 70,000
//! characters (the trace's column padding panicked), and `any` choices
//! whose product no step can hold (`weft simulate` tried to). Each is
//! checked, or refused with its position; never a crash.

mod cli;

use cli::weft;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn write(dir: &Path, tag: &str, model: &Value) -> PathBuf {
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
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "do", &long_do(100_001));
    let path = path.to_str().unwrap();
    for (extra, verdict, code) in [
        (&[][..], "one: UNSAFE", 1),
        (&["--jobs", "2"], "one: UNSAFE", 1),
        (&["--por"], "one: UNSAFE", 1),
        (&["--mode", "thread-modular"], "one: unknown", 3),
        (&["--mode", "refine"], "one: UNSAFE", 1),
    ] {
        let args: Vec<&str> = ["check", path].iter().chain(extra).copied().collect();
        let run = weft(&args);
        assert!(
            run.stdout.contains(verdict),
            "{extra:?}: {}\n{}",
            run.stdout,
            run.stderr
        );
        assert_eq!(run.code, Some(code), "{extra:?}");
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
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "label", &model);
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
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "any", &model);
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

/// A rendezvous runs both `do`s in one step: 11 `any` bools on each side
/// are 2^22 successors, though each `do` alone stays under the limit.
#[test]
fn any_choices_of_a_rendezvous_multiply() {
    let side = |prefix: &str| {
        let body: Vec<String> = (0..11).map(|i| format!("{prefix}{i} := any")).collect();
        body.join("; ")
    };
    let mut vars = serde_json::Map::new();
    for i in 0..11 {
        vars.insert(format!("a{i}"), json!({"type": "bool"}));
        vars.insert(format!("b{i}"), json!({"type": "bool"}));
    }
    let model = json!({
        "name": "any-pair", "channels": ["c"], "globals": vars,
        "threads": [
            {"name": "s", "start": "a", "transitions": [
                {"from": "a", "to": "b", "sync": "c!", "do": side("a")}]},
            {"name": "r", "start": "a", "transitions": [
                {"from": "a", "to": "b", "sync": "c?", "do": side("b")}]}],
        "properties": [{"name": "never", "error": "false"}]
    });
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "pair", &model);
    let run = weft(&["check", path.to_str().unwrap()]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("a rendezvous on `c`")
            && run.stderr.contains("4194304 successors in one step")
            && run.stderr.contains("threads[0].transitions[0].do"),
        "{}",
        run.stderr
    );
}
