//! The prose of the output and its messages: a count of one is singular ("in 1
//! step", "all 1 step replayed"). (The stats line's seconds, plain
//! decimals, are tested beside their rendering in src/report/text.rs.)

mod cli;

use cli::{Run, weft};
use std::path::PathBuf;

/// One thread whose single step reaches the error state.
const ONE_STEP: &str = r#"{
  "format": "weft/1",
  "name": "one-step",
  "globals": {"x": {"type": "int", "min": 0, "max": 1, "init": 0}},
  "threads": [
    {"name": "p", "start": "a", "transitions": [{"from": "a", "to": "b", "do": "x := 1"}]}
  ],
  "properties": [{"name": "x-set", "error": "x == 1"}]
}"#;

fn model() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("one-step.json");
    std::fs::write(&path, ONE_STEP).unwrap();
    (dir, path)
}

#[test]
fn a_count_of_one_is_singular() {
    let (dir, path) = model();
    let m = path.to_str().unwrap();
    for mode in ["standard", "refine"] {
        let r = weft(&["check", m, "--mode", mode]);
        assert_eq!(r.code, Some(1), "{mode}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stdout.contains("reachable in 1 step"),
            "{mode}: {}",
            r.stdout
        );
        assert!(!r.stdout.contains("1 steps"), "{mode}: {}", r.stdout);
    }
    let r = weft(&["check", m, "--format", "json"]);
    let trace = dir.path().join("trace.jsonl");
    std::fs::write(&trace, &r.stdout).unwrap();
    let r = weft(&["replay", m, trace.to_str().unwrap()]);
    assert!(r.stdout.contains("(1 step)"), "{}", r.stdout);
    assert!(r.stdout.contains("all 1 step replayed"), "{}", r.stdout);
}

#[test]
fn a_misspelt_property_lists_every_name_that_can_be_asked() {
    let (_dir, path) = model();
    let r = weft(&["check", path.to_str().unwrap(), "--property", "x-sett"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("unknown property `x-sett`; this model has: x-set, model-errors"),
        "{}",
        r.stderr
    );
}

/// `weft check models/token-ring-5.json --mode cartesian-exc --exceptions`
/// a file holding `entries`.
fn token_ring_with_exceptions(dir: &std::path::Path, entries: &str) -> (Run, std::path::PathBuf) {
    let set = dir.join("set.json");
    std::fs::write(&set, entries).unwrap();
    let r = weft(&[
        "check",
        "models/token-ring-5.json",
        "--mode",
        "cartesian-exc",
        "--exceptions",
        set.to_str().unwrap(),
    ]);
    (r, set)
}

#[test]
fn an_exception_set_too_wide_to_instantiate_is_refused_in_its_file() {
    // A cooperative model's hidden scheduler state makes its global stores
    // too many to enumerate, and an entry with no `when` is instantiated at
    // every one: the set given by --exceptions is what cannot be used, so
    // the message names it (found by the input fuzzer, F5).
    let dir = tempfile::tempdir().unwrap();
    let (r, set) = token_ring_with_exceptions(dir.path(), r#"[{"threads": {"*": "true"}}]"#);
    assert_eq!(r.code, Some(2), "{}{}", r.stdout, r.stderr);
    let named = format!(
        "error: {}: the exception entries admit more than",
        set.display()
    );
    assert!(r.stderr.starts_with(&named), "{}", r.stderr);
    assert!(r.stderr.contains("pin more globals"), "{}", r.stderr);
}

#[test]
fn an_exception_entry_pinning_the_globals_is_instantiated_where_it_admits() {
    // F5: refused as too wide before, as every global store was enumerated
    // whatever the entries' `when`. Pinned as `refine --save-exceptions`
    // pins its entries, the entry is instantiated at its one store: the
    // initial state, reachable anyway, so the run proves what it proves
    // without a set.
    let dir = tempfile::tempdir().unwrap();
    let cells: Vec<String> = (0..6).map(|i| format!("waiting[{i}] == 0")).collect();
    let entry = format!(
        r#"[{{"when": "token == 0 && local == 0 && {}", "threads": {{"*": "@start"}}}}]"#,
        cells.join(" && ")
    );
    let (r, _) = token_ring_with_exceptions(dir.path(), &entry);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(
            "token: safe — proved: no error state in the Cartesian invariant with 1 exception product\n"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn one_simulated_run_of_one_step_is_singular() {
    let r = weft(&[
        "simulate",
        "models/peterson.json",
        "--runs",
        "1",
        "--steps",
        "1",
        "--seed",
        "1",
    ]);
    assert!(
        r.stdout
            .contains("no error in 1 random run of at most 1 step (1 step in all)"),
        "{}",
        r.stdout
    );
}
