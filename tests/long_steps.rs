//! A step of many transitions, here a cooperative macro-step through three
//! `any` of 1000 values each (10^9 stores in one step), holds `--max-memory`
//! and `--timeout`: the step is stopped short, and the run ends `unknown`
//! with what it explored and which step the budget ran out in, as any
//! other budget stop, not through the watchdog (which loses what was
//! found).

mod cli;

use cli::{json_lines, weft};
use std::path::PathBuf;

/// `model` written to `name` in this run's temporary folder.
fn write(name: &str, model: &serde_json::Value) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("weft-long-steps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, model.to_string()).unwrap();
    path
}

fn chain() -> PathBuf {
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
    write("chain.json", &model)
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

/// `weft replay` re-executes the one step of `chain` that reaches `sum`'s
/// error state (a = b = c = 999), 10^9 stores: under `--max-memory` it
/// stops at that step, exit 3, before the watchdog would.
#[test]
fn replaying_a_macro_step_too_long_for_the_memory_budget_stops_at_that_step() {
    let model = chain();
    let globals = |v| serde_json::json!({"a": v, "b": v, "c": v, "waiting": [0]});
    let saved = serde_json::json!({
        "initial": {"globals": globals(0), "locals": {"T": {"pc": "l0"}}},
        "trace": [{"thread": "T", "transition": "l0->l1",
                   "globals": globals(999), "locals": {"pc": "l0"}}]
    });
    let trace = write("chain.trace.json", &saved);
    let run = weft(&[
        "replay",
        model.to_str().unwrap(),
        trace.to_str().unwrap(),
        "--max-memory",
        "200",
    ]);
    assert_eq!(run.code, Some(3), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("  step 1: not re-executed: memory budget of 200 MiB ")
            && run.stdout.contains(" in a macro-step of T after ")
            && run
                .stdout
                .contains("  replay STOPPED at step 1 of 1 (unknown: 0 steps re-executed)\n    next: raise `--max-memory` (200 MiB ran out)"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("did not finish"), "{}", run.stdout);
}

/// A `--blocks` block of 512,000 stores (three `any` over 0..79 of a
/// thread's own locals) before the step that reaches `p`'s error. The
/// search keeps within 260 MiB; rebuilding the trace afterwards walks
/// back through a level of 512,000 states and through the block's stores
/// again, which took another 160 MiB (the successors of the states it
/// walked through kept, and the block's stores boxed twice each), and the
/// watchdog then stopped the run with what it had found lost. Now the
/// trace is rebuilt within what the search used.
#[test]
fn a_trace_through_a_long_block_is_rebuilt_within_the_memory_budget() {
    let int = serde_json::json!({"type": "int", "min": 0, "max": 79});
    let model = serde_json::json!({
        "format": "weft/1", "name": "block",
        "globals": {"bad": {"type": "bool"}},
        "threads": [{"name": "T", "start": "s0",
            "locals": {"x": int, "y": int, "z": int},
            "transitions": [
                {"from": "s0", "to": "s1", "do": "x := any"},
                {"from": "s1", "to": "s2", "do": "y := any"},
                {"from": "s2", "to": "s3", "do": "z := any"},
                {"from": "s3", "to": "s0", "do": "bad := x + y + z == 237; x := 0; y := 0; z := 0"}
            ]}],
        "properties": [{"name": "p", "error": "bad"}]
    });
    let path = write("block.json", &model);
    let run = weft(&[
        "check",
        path.to_str().unwrap(),
        "--blocks",
        "--max-memory",
        "260",
        "--property",
        "p",
    ]);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("p: UNSAFE — an error state is reachable in 4 steps")
            && run
                .stdout
                .contains("    3  T \"s2->s3\"    bad=false  | T: s3 x=79 y=79 z=79"),
        "{}",
        run.stdout
    );
}
