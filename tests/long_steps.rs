//! A step of many transitions, here a cooperative macro-step through three
//! `any` of 1000 values each (10^9 stores in one step), holds `--max-memory`
//! and `--timeout`: the step is stopped short, and the run ends `unknown`
//! with what it explored and which step the budget ran out in, as any
//! other budget stop, not through the watchdog (which loses what was
//! found).

mod cli;

use cli::{json_lines, weft};
use std::path::PathBuf;

fn chain() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("weft-long-steps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let int = serde_json::json!({"type": "int", "min": 0, "max": 999, "init": 0});
    let model = serde_json::json!({
        "format": "weft/1", "name": "chain", "scheduling": "cooperative",
        "globals": {"a": int, "b": int, "c": int},
        "threads": [{"name": "T", "start": "l0", "transitions": [
            {"from": "l0", "to": "l1", "do": "a := any"},
            {"from": "l1", "to": "l2", "do": "b := any"},
            {"from": "l2", "to": "l3", "do": "c := any"},
            {"from": "l3", "to": "l0", "yield": true}
        ]}],
        "properties": [{"name": "sum", "error": "a + b + c == 3000"}]
    });
    let path = dir.join("chain.json");
    std::fs::write(&path, model.to_string()).unwrap();
    path
}

#[test]
fn a_macro_step_too_long_for_the_memory_budget_ends_unknown_with_what_was_explored() {
    let model = chain();
    for mode in ["standard", "thread-modular"] {
        let run = weft(&[
            "check",
            model.to_str().unwrap(),
            "--mode",
            mode,
            "--max-memory",
            "200",
        ]);
        assert_eq!(run.code, Some(3), "{mode}: {}{}", run.stdout, run.stderr);
        // Out, or about to be passed by a table's growth.
        assert!(
            run.stdout
                .contains("sum: unknown — memory budget of 200 MiB ")
                && run.stdout.contains(" in a macro-step of T after ")
                && run.stdout.contains(" stores: a `yield` would split it"),
            "{mode}: {}",
            run.stdout
        );
        assert!(!run.stdout.contains("is lost"), "{mode}: {}", run.stdout);
        assert!(
            run.stdout.contains("  stats: states 1,"),
            "{mode}: {}",
            run.stdout
        );
    }
}

#[test]
fn a_macro_step_too_long_for_the_time_budget_ends_unknown_in_json() {
    let model = chain();
    for mode in ["cartesian-exc", "refine"] {
        let run = weft(&[
            "check",
            model.to_str().unwrap(),
            "--mode",
            mode,
            "--timeout",
            "0.5",
            "--format",
            "json",
        ]);
        assert_eq!(run.code, Some(3), "{mode}: {}{}", run.stdout, run.stderr);
        let lines = json_lines(&run.stdout);
        let reason = lines[0]["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("time budget of 0.5 s exhausted in a macro-step of T after ")
                && reason.contains(" stores: a `yield` would split it"),
            "{mode}: {reason}"
        );
        assert_eq!(lines.last().unwrap()["summary"]["exit_code"], 3, "{mode}");
    }
}
