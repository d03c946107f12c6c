//! The `standard` engine against independent counts, and its traces replayed
//! step by step against the model.

use super::common;

use crate::engine::{self, CheckOptions};
use crate::engine::{Mode, Verdict};
use crate::families::{lock, lock_state_count};
use assert_cmd::Command;
use serde_json::Value;

fn run(p: &crate::program::Program, jobs: usize) -> crate::RunReport {
    let opts = CheckOptions {
        jobs: Some(jobs),
        ..CheckOptions::default()
    };
    engine::check(p, Mode::Standard, &opts).unwrap()
}

fn stat(r: &crate::RunReport, key: &str) -> u64 {
    r.stats.get(key).and_then(Value::as_u64).unwrap()
}

/// The state count, the same with one worker thread and with two.
fn states(p: &crate::program::Program) -> u64 {
    let one = stat(&run(p, 1), "states");
    assert_eq!(
        stat(&run(p, 2), "states"),
        one,
        "{}: --jobs 2 differs from --jobs 1",
        p.name
    );
    one
}

#[test]
fn lock_schema_counts_match_the_formula() {
    // The figures, from (m+1)^n + n*2m*(m+1)^(n-1).
    for (n, m, expected) in [(2, 1, 12), (3, 1, 32), (3, 2, 135), (4, 1, 80)] {
        assert_eq!(
            lock_state_count(n, m),
            Some(expected),
            "formula for lock({n},{m})"
        );
        assert_eq!(
            states(&common::load_value(&lock(n, m))) as u128,
            expected,
            "lock({n},{m})"
        );
    }
    // No threads: the initial state alone; past u128: none.
    assert_eq!(lock_state_count(0, 1), Some(1));
    assert_eq!(lock_state_count(100, 9), None);
    // Larger ones, from the formula only.
    for (n, m) in [(6, 3), (8, 2), (10, 1)] {
        assert_eq!(
            Some(states(&common::load_value(&lock(n, m))) as u128),
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
        let model =
            crate::model::load_file(&path, &[]).unwrap_or_else(|d| panic!("{}", d.render()));
        let prog = model.program();
        assert!(
            !model.expect.is_empty(),
            "{} has no `expect`",
            path.display()
        );
        for want in &model.expect {
            let with_params;
            let prog = if want.params.is_empty() {
                prog
            } else {
                with_params = crate::model::load_file(&path, &want.params)
                    .unwrap_or_else(|d| panic!("{}", d.render()));
                with_params.program()
            };
            let r =
                engine::check(prog, want.mode, &want.options(&CheckOptions::default())).unwrap();
            assert_eq!(
                r.verdict(),
                want.verdict,
                "{} in mode {} {:?}",
                path.display(),
                want.mode.name(),
                want.flags()
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
    let dir = common::temp_dir("mem");
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

/// The trace of the model error that `standard` must find in `model`.
fn model_error_trace(model: &serde_json::Value) -> crate::Trace {
    let prog = common::load_value(model);
    let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    assert_eq!(r.verdict(), Verdict::Unsafe);
    let me = r
        .outcomes
        .into_iter()
        .find(|o| o.property == engine::MODEL_ERRORS)
        .unwrap();
    assert_eq!(me.verdict, Verdict::Unsafe);
    me.trace.unwrap()
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
    let trace = model_error_trace(&model);
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
}

#[test]
fn counts_match_the_formula_for_every_small_lock_instance() {
    for n in 1..=8u32 {
        for m in 1..=3u32 {
            assert_eq!(
                Some(states(&common::load_value(&lock(n, m))) as u128),
                lock_state_count(n, m),
                "lock({n},{m})"
            );
        }
    }
}

#[test]
fn results_do_not_depend_on_the_number_of_jobs() {
    // Deep enough (15 steps) for levels of thousands of states, which the
    // workers share: five threads must each pass the first section.
    let mut m = lock(8, 2);
    m["properties"] =
        serde_json::json!([{"name": "five-past-the-first", "error": "count(p: @l1_2) >= 5"}]);
    let prog = common::load_value(&m);
    let one = run(&prog, 1);
    assert_eq!(one.outcomes[0].verdict, Verdict::Unsafe);
    let len = |r: &crate::RunReport| r.outcomes[0].trace.as_ref().unwrap().steps.len();
    assert_eq!(len(&one), 15);
    for jobs in [2, 3] {
        let r = run(&prog, jobs);
        assert_eq!(stat(&r, "jobs"), jobs as u64);
        assert_eq!(r.outcomes[0].verdict, Verdict::Unsafe, "--jobs {jobs}");
        assert_eq!(len(&r), len(&one), "--jobs {jobs}");
        for key in ["states", "transitions", "depth"] {
            assert_eq!(stat(&r, key), stat(&one, key), "{key} with --jobs {jobs}");
        }
    }
}

#[test]
fn traces_of_a_parallel_search_replay() {
    let dir = common::temp_dir("jobs");
    let path = dir.join("lock8.json");
    let mut m = lock(8, 2);
    m["properties"] =
        serde_json::json!([{"name": "five-past-the-first", "error": "count(p: @l1_2) >= 5"}]);
    std::fs::write(&path, m.to_string()).unwrap();
    common::replay(&path, "five-past-the-first", &["--jobs", "2"]);
}

#[test]
fn index_and_range_errors_are_model_errors_with_shortest_traces() {
    // `a[i]` with i running past the array, and `x := x + 1` past its max:
    // each is a model error reached by the shortest run.
    for (globals, step, words, len) in [
        (
            serde_json::json!({"a": {"type": "array", "len": 2, "of": {"type": "int", "min": 0, "max": 3}}, "i": {"type": "int", "min": 0, "max": 5}}),
            "a[i] := 1; i := i + 1",
            "out of bounds",
            3,
        ),
        (
            serde_json::json!({"x": {"type": "int", "min": 0, "max": 2, "init": 0}}),
            "x := x + 1",
            "range",
            3,
        ),
    ] {
        let model = serde_json::json!({
            "name": "oops", "globals": globals,
            "threads": [{"name": "t", "start": "s", "transitions": [{"from": "s", "to": "s", "do": step, "label": "step"}]}],
            "properties": [{"name": "never", "error": "false"}]
        });
        let trace = model_error_trace(&model);
        let failure = trace.failure.as_deref().unwrap();
        assert!(failure.contains(words), "{step}: {failure}");
        // Two successful steps, then the third fails in the last state.
        assert_eq!(trace.steps.len(), len - 1, "{step}");
    }
}

/// The reachable state count by the plainest search there is: a queue and
/// a hash set of unpacked states, one thread step at a time.
fn naive_count(prog: &crate::program::Program) -> usize {
    let mut exp = crate::program::Explorer::new(prog);
    let mut seen = std::collections::HashSet::new();
    let mut queue = std::collections::VecDeque::new();
    for (g, ls) in exp.initial_states() {
        let s: Vec<u32> = std::iter::once(g).chain(ls).collect();
        if seen.insert(s.clone()) {
            queue.push_back(s);
        }
    }
    while let Some(s) = queue.pop_front() {
        for t in 0..prog.threads.len() {
            for st in &exp.successors(t, s[0], s[1 + t]).steps {
                let mut next = s.clone();
                next[0] = st.g;
                next[1 + t] = st.l;
                if seen.insert(next.clone()) {
                    queue.push_back(next);
                }
            }
        }
    }
    seen.len()
}

#[test]
fn shipped_model_counts_match_a_naive_search_with_any_number_of_jobs() {
    let mut checked = 0;
    let beem = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/beem/dve");
    // Two BEEM instances have levels large enough for both workers, and
    // many (thread, g, l) met for the first time (deferred successors).
    let paths = std::fs::read_dir(common::models_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .chain([beem.join("peterson.3.dve"), beem.join("at.1.dve")]);
    for path in paths {
        let mut prog = common::load_path(&path, None);
        // No property: the whole state space, not a search that stops early.
        prog.properties.clear();
        let expected = naive_count(&prog) as u64;
        for jobs in [1, 2] {
            assert_eq!(
                stat(&run(&prog, jobs), "states"),
                expected,
                "{} with --jobs {jobs}",
                path.display()
            );
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} models");
}
