//! `weft simulate` through the real binary: it finds the ticket lock's race
//! with a fixed seed, is deterministic for a seed, its traces replay with
//! `weft replay`, it proves nothing on a safe model (exit 0, `unknown`), and
//! it reports where runs get stuck.

mod cli;

use cli::{Run, weft};
use serde_json::Value;
use std::path::Path;

const TICKET: &str = "models/bug-ticket-lock.json";

fn lines(r: &Run) -> Vec<Value> {
    r.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The acceptance run of the issue.
#[test]
fn simulation_finds_the_ticket_lock_race() {
    let r = weft(&["simulate", TICKET, "--seed", "1", "--runs", "1000"]);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("  mutex: UNSAFE — an error state is reached in run "),
        "{}",
        r.stdout
    );
    let r = weft(&["simulate", TICKET, "--seed", "1", "--format", "json"]);
    let first = &lines(&r)[0];
    assert_eq!(first["mode"], "simulate");
    assert_eq!(first["verdict"], "unsafe");
    // The last state has two threads in cs.
    let trace = first["trace"].as_array().unwrap();
    let mut at: std::collections::BTreeMap<String, String> = first["initial"]["locals"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(t, l)| (t.clone(), l["pc"].as_str().unwrap().to_string()))
        .collect();
    for s in trace {
        at.insert(
            s["thread"].as_str().unwrap().into(),
            s["locals"]["pc"].as_str().unwrap().into(),
        );
    }
    assert_eq!(at.values().filter(|pc| *pc == "cs").count(), 2, "{at:?}");
}

#[test]
fn simulation_is_deterministic_for_a_seed() {
    let trace = |seed: &str| {
        let r = weft(&["simulate", TICKET, "--seed", seed, "--format", "json"]);
        assert_eq!(r.code, Some(1), "{}", r.stderr);
        let l = &lines(&r)[0];
        (l["trace"].clone(), l["stats"]["steps"].clone())
    };
    let seeds = ["1", "2", "3", "4", "5"];
    let first: Vec<_> = seeds.iter().map(|s| trace(s)).collect();
    let again: Vec<_> = seeds.iter().map(|s| trace(s)).collect();
    assert_eq!(first, again);
    // The seed is used: not every seed gives the same runs.
    assert!(
        first.iter().any(|t| *t != first[0]),
        "five seeds gave the same run"
    );
}

fn replays(model: &str, extra: &[&str], dir: &Path) {
    let mut args = vec!["simulate", model, "--seed", "7", "--format", "json"];
    args.extend(extra);
    let r = weft(&args);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    let f = dir.join("sim.jsonl");
    std::fs::write(&f, &r.stdout).unwrap();
    let mut args = vec!["replay", model, f.to_str().unwrap()];
    args.extend(extra);
    let r = weft(&args);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("the trace ends in"), "{}", r.stdout);
}

#[test]
fn a_simulated_trace_replays() {
    let dir = tempfile::tempdir().unwrap();
    replays(TICKET, &[], dir.path());
    // With rendezvous.
    replays(
        "tests/data/beem/dve/gear.1.dve",
        &["--error", "Clutch@error_open"],
        dir.path(),
    );
}

/// Peterson's algorithm is safe and never blocks: every run takes all its
/// steps, and nothing is found.
#[test]
fn simulation_proves_nothing_on_a_safe_model() {
    let r = weft(&[
        "simulate",
        "models/peterson.json",
        "--runs",
        "20",
        "--steps",
        "100",
        "--seed",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    for l in lines(&r) {
        assert_eq!(l["verdict"], "unknown", "{l}");
        assert!(l["trace"].is_null());
        assert!(l["reason"].as_str().unwrap().contains("proves nothing"));
        assert_eq!(l["stats"]["runs"], 20);
        assert_eq!(l["stats"]["steps"], 2000);
        assert_eq!(l["stats"]["stuck_runs"], 0);
        // What to do next is a search: `weft simulate` takes no `--mode`.
        let next = l["next_step"].as_str().unwrap();
        assert!(
            next.contains("`weft check`") && !next.contains("--mode"),
            "{next}"
        );
    }
}

/// BEEM's phils.1: four philosophers each take their first fork, then the
/// second; when all hold their first fork (every fork taken), nobody can
/// move (the classic deadlock). Checked as the state space only
/// (`--error false`), runs end stuck there; by default a DVE model checks
/// `deadlock`, so the simulation reports it as an error with its trace.
#[test]
fn simulation_reports_where_runs_get_stuck() {
    let phils = "tests/data/beem/dve/phils.1.dve";
    let r = weft(&[
        "simulate", phils, "--error", "false", "--runs", "50", "--seed", "2", "--format", "json",
    ]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let l = &lines(&r)[0];
    assert!(l["stats"]["stuck_runs"].as_u64().unwrap() > 0, "{l}");
    let stuck = l["stuck"].as_array().unwrap();
    assert!(!stuck.is_empty());
    for s in stuck {
        assert_eq!(s["globals"]["fork"], serde_json::json!([1, 1, 1, 1]), "{s}");
        for (_, local) in s["locals"].as_object().unwrap() {
            assert_eq!(local["pc"], "one", "{s}");
        }
    }
    let r = weft(&[
        "simulate", phils, "--error", "false", "--runs", "5", "--seed", "2",
    ]);
    assert!(
        r.stdout
            .contains("  stuck: 5 runs ended in a state where nothing can move"),
        "{}",
        r.stdout
    );
    // The default: the deadlock is an error, found with a trace ending in it.
    let r = weft(&["simulate", phils, "--seed", "2", "--format", "json"]);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    let deadlock = lines(&r)
        .into_iter()
        .find(|l| l["property"] == "deadlock")
        .expect("a deadlock line");
    assert_eq!(deadlock["verdict"], "unsafe", "{deadlock}");
    let last = deadlock["trace"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["globals"]["fork"], serde_json::json!([1, 1, 1, 1]));
}

/// c counts to 2; a third increment is a run-time error, which simulation
/// reports as `standard` does, and which replays.
#[test]
fn simulation_finds_a_run_time_error_and_it_replays() {
    let dir = tempfile::tempdir().unwrap();
    let model = serde_json::json!({"name": "overflow",
        "globals": {"c": {"type": "int", "min": 0, "max": 2, "init": 0}},
        "threads": [{"name": "p", "count": 2, "start": "a", "transitions": [
            {"from": "a", "to": "b", "do": "c := c + 1", "label": "inc"},
            {"from": "b", "to": "a", "label": "back"}]}],
        "properties": [{"name": "never", "error": "false"}]});
    let m = dir.path().join("m.json");
    std::fs::write(&m, model.to_string()).unwrap();
    let m = m.to_str().unwrap();
    let r = weft(&["simulate", m, "--seed", "4", "--format", "json"]);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    let l = lines(&r);
    let me = l.iter().find(|l| l["property"] == "model-errors").unwrap();
    assert_eq!(me["verdict"], "unsafe");
    // `never` was not checked further; simulated alone it would stop at the
    // same run-time error (model-errors is always checked), so the next
    // step is a search, not `--property never`.
    let never = l.iter().find(|l| l["property"] == "never").unwrap();
    let next = never["next_step"].as_str().unwrap();
    assert!(
        next.contains("`weft check`") && !next.contains("--property"),
        "{next}"
    );
    assert!(
        me["failure"]
            .as_str()
            .unwrap()
            .contains("`c` gets 3, outside its domain 0..2"),
        "{me}"
    );
    let f = dir.path().join("t.jsonl");
    std::fs::write(&f, &r.stdout).unwrap();
    let r = weft(&["replay", m, f.to_str().unwrap()]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("ends in a run-time error"),
        "{}",
        r.stdout
    );
}

#[test]
fn simulation_refuses_an_unknown_property() {
    let r = weft(&["simulate", TICKET, "--property", "mutx"]);
    assert_eq!(r.code, Some(2));
    assert!(r.stdout.is_empty());
    assert!(r.stderr.contains("unknown property `mutx`"), "{}", r.stderr);
}
