//! The `standard` engine against independent counts, and its traces replayed
//! step by step against the model.

mod common;

use assert_cmd::Command;
use serde_json::Value;
use weft::bench::generate::{lock, lock_state_count};
use weft::engine::{self, CheckOptions};
use weft::program::{Mode, Verdict};

fn states(p: &weft::program::Program) -> u64 {
    let r = engine::check(p, Mode::Standard, &CheckOptions::default()).unwrap();
    r.stats.get("states").and_then(Value::as_u64).unwrap()
}

#[test]
fn lock_schema_counts_match_the_formula() {
    // The figures, from (m+1)^n + n*2m*(m+1)^(n-1).
    for (n, m, expected) in [(2, 1, 12), (3, 1, 32), (3, 2, 135), (4, 1, 80)] {
        assert_eq!(
            lock_state_count(n, m),
            expected,
            "formula for lock({n},{m})"
        );
        assert_eq!(
            states(&common::load_value(&lock(n, m))) as u128,
            expected,
            "lock({n},{m})"
        );
    }
    // Larger ones, from the formula only.
    for (n, m) in [(6, 3), (8, 2), (10, 1)] {
        assert_eq!(
            states(&common::load_value(&lock(n, m))) as u128,
            lock_state_count(n, m),
            "lock({n},{m})"
        );
    }
}

#[test]
fn peterson_has_twenty_reachable_states() {
    // Hand enumeration (and the precise thread-modular paper's X4 minus its
    // three unreachable Cartesian states): 20.
    assert_eq!(states(&common::load("peterson.json")), 20);
}

#[test]
fn every_shipped_model_meets_its_expectations() {
    let mut checked = 0;
    for entry in std::fs::read_dir(common::models_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let prog = weft::model::load_file(&path, &[]).unwrap_or_else(|d| panic!("{}", d.render()));
        assert!(
            !prog.expect.is_empty(),
            "{} has no `expect`",
            path.display()
        );
        for &(mode, verdict) in &prog.expect {
            let r = engine::check(&prog, mode, &CheckOptions::default()).unwrap();
            assert_eq!(
                r.verdict(),
                verdict,
                "{} in mode {}",
                path.display(),
                mode.name()
            );
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} (model, mode) pairs checked");
}

#[test]
fn buggy_models_give_replayable_traces() {
    let m = common::models_dir();
    common::replay(&m.join("bug-nonatomic-lock.json"), "mutex", &[]);
    common::replay(&m.join("bug-peterson-swapped-turn.json"), "mutex", &[]);
    common::replay(&m.join("bug-simple-no-acquire.json"), "no-race", &[]);
    common::replay(&m.join("bug-simple-no-acquire.json"), "inv", &[]);
    common::replay(&m.join("bug-simple-no-acquire.json"), "assertions", &[]);
}

#[test]
fn traces_are_shortest() {
    // BFS: the non-atomic lock needs both tests before both sets: 4 steps.
    let prog = common::load("bug-nonatomic-lock.json");
    let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    assert_eq!(r.outcomes[0].trace.as_ref().unwrap().steps.len(), 4);
    let prog = common::load("bug-simple-no-acquire.json");
    let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    assert_eq!(r.outcomes[0].trace.as_ref().unwrap().steps.len(), 2);
}

#[test]
fn state_budget_ends_in_unknown_with_exit_3() {
    let path = common::models_dir().join("lock.json");
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args(["check", path.to_str().unwrap(), "--max-states", "10"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("state budget of 10 states exhausted"),
        "{text}"
    );
}

#[test]
fn memory_budget_ends_in_unknown_with_exit_3() {
    let dir = std::env::temp_dir().join(format!("weft-mem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("lock.json");
    std::fs::write(&path, lock(12, 1).to_string()).unwrap();
    // 1 MiB is below what any run needs: the budget must stop it cleanly.
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args(["check", path.to_str().unwrap(), "--max-memory", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("memory budget of 1 MiB exhausted"), "{text}");
}

#[test]
fn run_time_model_errors_are_reported_with_a_trace() {
    let model = serde_json::json!({
        "name": "div",
        "globals": {"x": {"type": "int", "min": 0, "max": 3, "init": 2}, "y": {"type": "int", "min": 0, "max": 3, "init": 0}},
        "threads": [
            {"name": "a", "start": "s", "transitions": [{"from": "s", "to": "t", "do": "x := x - 1", "label": "dec"}, {"from": "t", "to": "s", "when": "x > 0"}]},
            {"name": "b", "start": "s", "transitions": [{"from": "s", "to": "t", "do": "y := 3 / x", "label": "divide"}]}
        ],
        "properties": [{"name": "never", "error": "false"}]
    });
    let prog = common::load_value(&model);
    let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    let me = r
        .outcomes
        .iter()
        .find(|o| o.property == engine::MODEL_ERRORS)
        .unwrap();
    assert_eq!(me.verdict, Verdict::Unsafe);
    let trace = me.trace.as_ref().unwrap();
    assert!(
        trace
            .failure
            .as_deref()
            .unwrap()
            .contains("division by zero"),
        "{:?}",
        trace.failure
    );
    // a decrements x twice (2 -> 1 -> 0, via t -> s in between): 3 steps.
    assert_eq!(trace.steps.len(), 3);
    assert_eq!(r.verdict(), Verdict::Unsafe);
}

#[test]
fn counts_match_the_formula_for_every_small_lock_instance() {
    for n in 1..=8u32 {
        for m in 1..=3u32 {
            assert_eq!(
                states(&common::load_value(&lock(n, m))) as u128,
                lock_state_count(n, m),
                "lock({n},{m})"
            );
        }
    }
}
