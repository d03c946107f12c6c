//! `weft simulate` through the real binary: it finds the ticket lock's race
//! with a fixed seed, is deterministic for a seed, its traces replay with
//! `weft replay`, it proves nothing on a safe model (exit 0, `unknown`), it
//! reports where runs get stuck in a deadlock apart from where they end in
//! a valid end state, and its JSON ends with `weft check`'s summary line.

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
    // The property lines: the summary (last) has no `property`.
    for l in lines(&r)
        .into_iter()
        .filter(|l| l.get("property").is_some())
    {
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
    assert_eq!(l["stats"]["ended_runs"], 0, "{l}");
    assert_eq!(l["ended"], serde_json::json!([]), "{l}");
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
            .contains("  stuck: 5 runs got stuck in a deadlock (nothing can move"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("  ended:"), "{}", r.stdout);
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

/// Writes `model` into `dir` as `name`; its path.
fn write(dir: &Path, name: &str, model: &Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, model.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

/// Two threads take a lock, release it and stop at `done`, a location no
/// transition leaves, so final by default: every run ends with both done
/// (the audit's speclock.json). With `"final": []` the same state is a
/// deadlock (DiVinE's notion).
fn lock(finals: Option<Value>) -> Value {
    let mut thread = serde_json::json!({"name": "p", "count": 2, "start": "l1", "transitions": [
        {"from": "l1", "to": "l2", "when": "lck == 0", "do": "lck := 1", "label": "acquire"},
        {"from": "l2", "to": "done", "do": "lck := 0", "label": "release"}]});
    if let Some(f) = finals {
        thread["final"] = f;
    }
    serde_json::json!({"name": "lock",
        "globals": {"lck": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [thread],
        "properties": [{"name": "mutex", "error": "count(p: @l2) >= 2"}]})
}

/// A JSON simulation ends as `weft check`'s does: one summary line, last,
/// with the verdict, the counts of verdicts, the statistics and the exit
/// code the process returns (0 when nothing was found: a simulation's
/// `unknown` is no failure).
#[test]
fn simulation_json_ends_with_a_summary_line() {
    let dir = tempfile::tempdir().unwrap();
    let m = write(dir.path(), "lock.json", &lock(None));
    let runs = [
        (m.as_str(), Some(0), "unknown"),
        (TICKET, Some(1), "unsafe"),
    ];
    for (model, code, verdict) in runs {
        let r = weft(&[
            "simulate", model, "--seed", "1", "--runs", "3", "--format", "json",
        ]);
        assert_eq!(r.code, code, "{}{}", r.stdout, r.stderr);
        let mut l = lines(&r);
        let last = l.pop().unwrap();
        assert!(l.iter().all(|p| p.get("summary").is_none()), "{}", r.stdout);
        assert!(last.get("property").is_none(), "{last}");
        assert_eq!(last["verdict"], verdict, "{last}");
        let s = &last["summary"];
        assert_eq!(s["mode"], "simulate", "{last}");
        assert_eq!(s["model"], l[0]["model"], "{last}");
        assert_eq!(s["exit_code"], code.unwrap(), "{last}");
        assert_eq!(s["properties"], l.len(), "{last}");
        let count = |v: &str| l.iter().filter(|p| p["verdict"] == v).count();
        for v in ["safe", "unsafe", "unknown"] {
            assert_eq!(s[v], count(v), "{v}: {last}");
        }
        assert_eq!(s["stats"], l[0]["stats"], "{last}");
    }
}

/// Runs where nothing can move are told apart as the predicate `deadlock`
/// of `weft check` tells them: every thread at a final location is a valid
/// end state (`ended`), else a deadlock (`stuck`).
#[test]
fn simulation_tells_valid_end_states_from_deadlocks() {
    let dir = tempfile::tempdir().unwrap();
    let ends = write(dir.path(), "ends.json", &lock(None));
    let r = weft(&["simulate", &ends, "--seed", "1", "--runs", "3"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(
            "  ended: 3 runs ended in a valid end state (nothing can move, every thread rests at a final location):\n    lck=0  | p[1]:done p[2]:done (3 runs)\n"
        ),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("  stuck:"), "{}", r.stdout);
    let r = weft(&[
        "simulate", &ends, "--seed", "1", "--runs", "3", "--format", "json",
    ]);
    let l = &lines(&r)[0];
    assert_eq!(l["stats"]["ended_runs"], 3, "{l}");
    assert_eq!(l["stats"]["stuck_runs"], 0, "{l}");
    assert_eq!(l["stuck"], serde_json::json!([]), "{l}");
    let ended = l["ended"].as_array().unwrap();
    assert_eq!(ended.len(), 1, "{l}");
    assert_eq!(ended[0]["runs"], 3, "{l}");
    assert_eq!(ended[0]["locals"]["p[2]"]["pc"], "done", "{l}");

    // The same state with no final location: a deadlock.
    let stuck = write(dir.path(), "stuck.json", &lock(Some(serde_json::json!([]))));
    let r = weft(&["simulate", &stuck, "--seed", "1", "--runs", "3"]);
    assert!(
        r.stdout
            .contains("  stuck: 3 runs got stuck in a deadlock (nothing can move, some thread rests at a location that is not final):\n"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("  ended:"), "{}", r.stdout);
    let r = weft(&[
        "simulate", &stuck, "--seed", "1", "--runs", "3", "--format", "json",
    ]);
    let l = &lines(&r)[0];
    assert_eq!(l["stats"]["stuck_runs"], 3, "{l}");
    assert_eq!(l["stats"]["ended_runs"], 0, "{l}");
    assert_eq!(l["ended"], serde_json::json!([]), "{l}");
    assert_eq!(l["stuck"][0]["locals"]["p[1]"]["pc"], "done", "{l}");
}

/// In a cooperative model the deadlock also reads the scheduler (a thread
/// waiting for an event cannot move), so it is decided by the predicate
/// itself: two threads that both end up waiting at final locations end
/// validly; with one of them not final, the same state is a deadlock.
#[test]
fn a_cooperative_simulation_tells_valid_end_states_from_deadlocks() {
    let dir = tempfile::tempdir().unwrap();
    let coop = |b_final: Value| {
        serde_json::json!({"name": "coop", "scheduling": "cooperative",
            "events": ["ping", "pong"],
            "threads": [
                {"name": "a", "start": "go", "final": ["go"], "transitions": [
                    {"from": "go", "to": "go", "notify": "ping", "wait": "pong"}]},
                {"name": "b", "start": "start", "final": b_final, "transitions": [
                    {"from": "start", "to": "idle", "wait": "ping"},
                    {"from": "idle", "to": "idle", "notify": "pong", "wait": "ping"}]}],
            "properties": [{"name": "never", "error": "false"}]})
    };
    let args = [
        "--seed", "1", "--runs", "20", "--steps", "50", "--format", "json",
    ];
    let run = |name: &str, b_final: Value| {
        let m = write(dir.path(), name, &coop(b_final));
        let mut a = vec!["simulate", m.as_str()];
        a.extend(args);
        let r = weft(&a);
        assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
        lines(&r)[0]["stats"].clone()
    };
    let ends = run("ends.json", serde_json::json!(["idle"]));
    assert!(ends["ended_runs"].as_u64().unwrap() > 0, "{ends}");
    assert_eq!(ends["stuck_runs"], 0, "{ends}");
    let stuck = run("stuck.json", serde_json::json!([]));
    assert_eq!(stuck["stuck_runs"], ends["ended_runs"], "{stuck}");
    assert_eq!(stuck["ended_runs"], 0, "{stuck}");
}
