//! `weft replay` through the real binary: saved traces of `weft check
//! --format json` (whole output, one line, a bare trace object) replay and
//! end in their error state; traces changed in one step fail at exactly
//! that step, saying why; bad trace files exit 2 naming the file and the
//! JSON path.
//!
//! The bug-ticket-lock traces below are written by hand from the model's
//! own description (p[1] and p[2] both read next_ticket = 0, then both
//! enter), not taken from weft's output.

mod cli;

use cli::{Run, weft};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const TICKET: &str = "models/bug-ticket-lock.json";
const WRITE: &str = "write next_ticket (bug: not atomic with the read)";

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn replay(model: &str, trace: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["replay", model, trace.to_str().unwrap()];
    args.extend(extra);
    weft(&args)
}

/// A step of the ticket lock: the globals after it and the mover's locals.
fn step(thread: &str, label: &str, next: i64, serving: i64, pc: &str, my: i64) -> Value {
    json!({"thread": thread, "transition": label,
           "globals": {"next_ticket": next, "now_serving": serving},
           "locals": {"pc": pc, "my": my}})
}

/// The ticket lock's initial state (n = 3): counters 0, everyone idle.
fn ticket_initial() -> Value {
    let idle = json!({"pc": "idle", "my": 0});
    json!({"globals": {"next_ticket": 0, "now_serving": 0},
           "locals": {"p[1]": idle, "p[2]": idle, "p[3]": idle}})
}

/// The race, by hand: both read 0, p[1] writes 1 and enters (its ticket 0
/// is served), p[2] writes 1 and enters too.
fn ticket_trace() -> Value {
    json!({"initial": ticket_initial(), "trace": [
        step("p[1]", "read next_ticket", 0, 0, "incr", 0),
        step("p[2]", "read next_ticket", 0, 0, "incr", 0),
        step("p[1]", WRITE, 1, 0, "wait", 0),
        step("p[1]", "enter", 1, 0, "cs", 0),
        step("p[2]", WRITE, 1, 0, "wait", 0),
        step("p[2]", "enter", 1, 0, "cs", 0),
    ]})
}

fn assert_fails_at(r: &Run, k: usize, steps: usize, why: &str) {
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(&format!("  step {k}: {why}")),
        "expected `step {k}: {why}` in:\n{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains(&format!("replay FAILED at step {k} of {steps}")),
        "{}",
        r.stdout
    );
    // The steps before it are printed as confirmed, not the one after.
    let confirmed = |i: usize| {
        r.stdout
            .lines()
            .any(|l| l.starts_with(&format!("    {i:<2} ")))
    };
    assert!((1..k).all(confirmed), "{}", r.stdout);
    assert!(!confirmed(k), "{}", r.stdout);
}

#[test]
fn a_hand_written_trace_of_the_ticket_lock_race_replays() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "t.json", &ticket_trace().to_string());
    let r = replay(TICKET, &t, &["--property", "mutex"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("all 6 steps replayed"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("the trace ends in an error state of property `mutex`"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("    6  p[2] \"enter\""), "{}", r.stdout);
}

#[test]
fn a_saved_check_trace_replays_from_the_whole_output_one_line_or_a_bare_trace() {
    let dir = tempfile::tempdir().unwrap();
    let check = weft(&["check", TICKET, "--format", "json"]);
    assert_eq!(check.code, Some(1));
    let first: Value = serde_json::from_str(check.stdout.lines().next().unwrap()).unwrap();
    let bare = json!({"initial": first["initial"], "trace": first["trace"]});
    let files = [
        write(dir.path(), "all.jsonl", &check.stdout),
        write(dir.path(), "line.json", &first.to_string()),
        write(
            dir.path(),
            "bare.json",
            &serde_json::to_string_pretty(&bare).unwrap(),
        ),
    ];
    for f in &files {
        let r = replay(TICKET, f, &[]);
        assert_eq!(r.code, Some(0), "{}: {}{}", f.display(), r.stdout, r.stderr);
        assert!(r.stdout.contains("all 6 steps replayed"), "{}", r.stdout);
        assert!(r.stdout.contains("property `mutex`"), "{}", r.stdout);
    }
}

/// gear.1 (BEEM) has channels: its shortest error trace fires rendezvous.
#[test]
fn a_rendezvous_trace_of_a_beem_model_replays() {
    let dir = tempfile::tempdir().unwrap();
    let gear = "tests/data/beem/dve/gear.1.dve";
    let check = weft(&[
        "check",
        gear,
        "--error",
        "Clutch@error_open",
        "--format",
        "json",
    ]);
    assert_eq!(check.code, Some(1), "{}", check.stderr);
    let line: Value = serde_json::from_str(check.stdout.lines().next().unwrap()).unwrap();
    let joint = line["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s.get("partner").is_some())
        .count();
    assert!(joint >= 2, "the trace should fire rendezvous: {line}");
    let t = write(dir.path(), "gear.jsonl", &check.stdout);
    let r = replay(gear, &t, &["--error", "Clutch@error_open"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("property `error`"), "{}", r.stdout);
    assert!(r.stdout.contains(", with GearControl"), "{}", r.stdout);
}

#[test]
fn a_changed_global_fails_at_that_step() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = ticket_trace();
    t["trace"][2]["globals"]["next_ticket"] = json!(2);
    let f = write(dir.path(), "t.json", &t.to_string());
    let r = replay(TICKET, &f, &[]);
    assert_fails_at(
        &r,
        3,
        6,
        &format!("p[1] \"{WRITE}\" leads to next_ticket=1, the trace says 2"),
    );
}

#[test]
fn a_renamed_transition_fails_at_that_step() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = ticket_trace();
    t["trace"][3]["transition"] = json!("entr");
    let f = write(dir.path(), "t.json", &t.to_string());
    let r = replay(TICKET, &f, &[]);
    assert_fails_at(&r, 4, 6, "p[1] has no transition \"entr\"");
    assert!(r.stdout.contains("it has \"enter\""), "{}", r.stdout);
}

#[test]
fn a_dropped_step_fails_at_that_step() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = ticket_trace();
    // Without p[1]'s write, its next step "enter" is taken from `incr`.
    t["trace"].as_array_mut().unwrap().remove(2);
    let f = write(dir.path(), "t.json", &t.to_string());
    let r = replay(TICKET, &f, &[]);
    assert_fails_at(
        &r,
        3,
        5,
        "p[1] \"enter\" is not enabled: p[1] is at `incr`, and \"enter\" leaves `wait`",
    );
}

/// p[1] takes ticket 0 atomically enough; p[2] then takes ticket 1 and may
/// not enter while now_serving is 0.
#[test]
fn a_false_guard_is_named_with_the_state_it_is_false_in() {
    let dir = tempfile::tempdir().unwrap();
    let t = json!({"initial": ticket_initial(), "trace": [
        step("p[1]", "read next_ticket", 0, 0, "incr", 0),
        step("p[1]", WRITE, 1, 0, "wait", 0),
        step("p[2]", "read next_ticket", 1, 0, "incr", 1),
        step("p[2]", WRITE, 2, 0, "wait", 1),
        step("p[2]", "enter", 2, 0, "cs", 1),
    ]});
    let f = write(dir.path(), "t.json", &t.to_string());
    let r = replay(TICKET, &f, &[]);
    assert_fails_at(
        &r,
        5,
        5,
        "p[2] \"enter\" is not enabled: its guard `now_serving == my` is false in next_ticket=2 now_serving=0, p[2]: wait my=1",
    );
}

#[test]
fn a_changed_rendezvous_fails_at_that_step() {
    let dir = tempfile::tempdir().unwrap();
    let gear = "tests/data/beem/dve/gear.1.dve";
    let check = weft(&[
        "check",
        gear,
        "--error",
        "Clutch@error_open",
        "--format",
        "json",
    ]);
    let line: Value = serde_json::from_str(check.stdout.lines().next().unwrap()).unwrap();
    let steps = line["trace"].as_array().unwrap();
    let k = steps
        .iter()
        .position(|s| s.get("partner").is_some())
        .unwrap();
    let (sender, partner) = (&steps[k], &steps[k]["partner"]);
    let who = partner["thread"].as_str().unwrap();
    let before = line["initial"]["locals"][who]["pc"].as_str().unwrap();
    let after = partner["locals"]["pc"].as_str().unwrap();
    assert_ne!(before, after);

    // The receiver's location after the step, changed to where it was.
    let mut t = line.clone();
    t["trace"][k]["partner"]["locals"]["pc"] = json!(before);
    let f = write(dir.path(), "pc.json", &t.to_string());
    let r = replay(gear, &f, &["--error", "Clutch@error_open"]);
    let head = format!(
        "{} \"{}\" with {who} \"{}\"",
        sender["thread"].as_str().unwrap(),
        sender["transition"].as_str().unwrap(),
        partner["transition"].as_str().unwrap()
    );
    assert_fails_at(
        &r,
        k + 1,
        steps.len(),
        &format!("{head} leads to {who}.pc={after}, the trace says {before}"),
    );

    // The receiver's transition renamed.
    let mut t = line.clone();
    t["trace"][k]["partner"]["transition"] = json!("no such label");
    let f = write(dir.path(), "label.json", &t.to_string());
    let r = replay(gear, &f, &["--error", "Clutch@error_open"]);
    assert_fails_at(
        &r,
        k + 1,
        steps.len(),
        &format!("{who} has no transition \"no such label\""),
    );

    // The partner dropped: the send cannot fire alone.
    let mut t = line.clone();
    t["trace"][k].as_object_mut().unwrap().remove("partner");
    let f = write(dir.path(), "alone.json", &t.to_string());
    let r = replay(gear, &f, &["--error", "Clutch@error_open"]);
    assert_fails_at(
        &r,
        k + 1,
        steps.len(),
        &format!(
            "{} \"{}\" is a rendezvous",
            sender["thread"].as_str().unwrap(),
            sender["transition"].as_str().unwrap()
        ),
    );
}

#[test]
fn a_trace_that_stops_short_ends_in_no_error_state() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = ticket_trace();
    t["trace"].as_array_mut().unwrap().pop();
    let f = write(dir.path(), "t.json", &t.to_string());
    let r = replay(TICKET, &f, &[]);
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    assert!(r.stdout.contains("all 5 steps replayed"), "{}", r.stdout);
    assert!(
        r.stdout.contains("the trace ends in no error state"),
        "{}",
        r.stdout
    );
}

#[test]
fn an_initial_state_the_model_does_not_have_fails_at_step_0() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = ticket_trace();
    t["initial"]["globals"]["now_serving"] = json!(1);
    let f = write(dir.path(), "t.json", &t.to_string());
    let r = replay(TICKET, &f, &[]);
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "step 0: the initial state is not one of the model's: it has now_serving=1, the model starts with now_serving=0"
        ),
        "{}",
        r.stdout
    );
    // With two threads there is no p[3].
    let f = write(dir.path(), "t2.json", &ticket_trace().to_string());
    let r = replay(TICKET, &f, &["--param", "n=2"]);
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "step 0: the initial state: the model has no thread `p[3]` (its threads: p[1], p[2])"
        ),
        "{}",
        r.stdout
    );
}

/// c counts to 2; a third increment leaves its domain: a run-time error.
#[test]
fn a_run_time_error_trace_replays() {
    let dir = tempfile::tempdir().unwrap();
    let model = json!({"name": "overflow",
        "globals": {"c": {"type": "int", "min": 0, "max": 2, "init": 0}},
        "threads": [{"name": "p", "count": 2, "start": "a", "transitions": [
            {"from": "a", "to": "b", "do": "c := c + 1", "label": "inc"},
            {"from": "b", "to": "a", "label": "back"}]}],
        "properties": [{"name": "never", "error": "false"}]});
    let m = write(dir.path(), "m.json", &model.to_string());
    let m = m.to_str().unwrap();
    let check = weft(&["check", m, "--format", "json"]);
    assert_eq!(check.code, Some(1), "{}", check.stderr);
    let t = write(dir.path(), "t.jsonl", &check.stdout);
    let r = replay(m, &t, &["--property", "model-errors"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("the trace ends in a run-time error: p[1] cannot move")
            || r.stdout
                .contains("the trace ends in a run-time error: p[2] cannot move"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("outside its domain 0..2"), "{}", r.stdout);
}

#[test]
fn bad_trace_files_exit_2_naming_the_file_and_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |r: &Run, file: &str, want: &[&str]| {
        assert_eq!(r.code, Some(2), "{}{}", r.stdout, r.stderr);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
        assert!(r.stderr.contains(file), "{}", r.stderr);
        for w in want {
            assert!(r.stderr.contains(w), "expected `{w}` in {}", r.stderr);
        }
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    };
    let f = write(
        dir.path(),
        "broken.json",
        "{\"initial\": {}}\n{\"trace\": [1,",
    );
    refused(
        &replay(TICKET, &f, &[]),
        "broken.json",
        &["line 2", "not valid JSON"],
    );

    let mut t = ticket_trace();
    t["trace"][1].as_object_mut().unwrap().remove("thread");
    let f = write(dir.path(), "nothread.json", &t.to_string());
    refused(
        &replay(TICKET, &f, &[]),
        "nothread.json",
        &["trace[1]", "missing field `thread`"],
    );

    let mut t = ticket_trace();
    t["trace"][4]["globals"] = json!([1, 0]);
    let f = write(dir.path(), "globals.json", &t.to_string());
    refused(
        &replay(TICKET, &f, &[]),
        "globals.json",
        &["trace[4].globals", "expected an object, found an array"],
    );

    // A safe run's output has no trace.
    let check = weft(&["check", "models/peterson.json", "--format", "json"]);
    let f = write(dir.path(), "safe.jsonl", &check.stdout);
    refused(
        &replay("models/peterson.json", &f, &[]),
        "safe.jsonl",
        &["no line of the file has a trace", "mutex (safe)"],
    );
    refused(
        &replay("models/peterson.json", &f, &["--property", "mutex"]),
        "safe.jsonl",
        &["line 1: trace", "has no trace (its verdict is safe)"],
    );

    let check = weft(&["check", TICKET, "--format", "json"]);
    let f = write(dir.path(), "run.jsonl", &check.stdout);
    refused(
        &replay(TICKET, &f, &["--property", "mutx"]),
        "run.jsonl",
        &["no line of property `mutx`"],
    );
    let f = write(dir.path(), "t.json", &ticket_trace().to_string());
    refused(
        &replay(TICKET, &f, &["--property", "mutx"]),
        "t.json",
        &["unknown property `mutx`"],
    );
    let missing = dir.path().join("missing.json");
    refused(
        &replay(TICKET, &missing, &[]),
        "missing.json",
        &["cannot read"],
    );
}
