//! Budgets from the first byte read (issue 19): a load that outlasts
//! `--timeout` or `--max-memory` ends `unknown` with its phase and exit 3;
//! loading is linear (a weft/1 array of the documented maximum length
//! loads well within a 10 s budget); the watchdog stops a run that no
//! cooperative check can; a panic is an internal error with exit 4.

mod cli;

use cli::{weft, weft_with_env};
use std::path::{Path, PathBuf};

/// A weft/1 model with one global array of `len` cells of 0..1; the
/// property fails after one step.
fn array_model(dir: &Path, len: usize) -> PathBuf {
    let model = serde_json::json!({
        "format": "weft/1",
        "name": "big-array",
        "globals": {"a": {"type": "array", "len": len,
                          "of": {"type": "int", "min": 0, "max": 1}, "init": 0}},
        "threads": [{"name": "t", "start": "a",
                     "transitions": [{"from": "a", "to": "b", "do": "a[0] := 1"}]}],
        "properties": [{"name": "p", "invariant": "a[0] == 0"}]
    });
    let path = dir.join(format!("array-{len}.json"));
    std::fs::write(&path, model.to_string()).unwrap();
    path
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("weft-budgets-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn an_array_of_the_documented_maximum_length_loads_within_the_budget() {
    // Was 67 s (initial stores built by copying every prefix); now well
    // under a second, so a 10 s budget is generous even on a loaded CI.
    let dir = scratch("max-array");
    let model = array_model(&dir, 1_000_000);
    let run = weft(&[
        "check",
        model.to_str().unwrap(),
        "--timeout",
        "10",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stdout.contains("\"verdict\":\"unsafe\""),
        "{}",
        run.stdout
    );
}

#[test]
fn a_load_that_outlasts_the_timeout_is_unknown_with_its_phase() {
    let dir = scratch("load-timeout");
    let model = array_model(&dir, 1_000_000);
    let run = weft(&["check", model.to_str().unwrap(), "--timeout", "0.01"]);
    assert_eq!(run.code, Some(3), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("unknown — time budget of 0.01 s exhausted while"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("nothing was checked"), "{}", run.stdout);
    assert!(
        run.stdout.contains("next: raise `--timeout`"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_load_over_the_memory_budget_is_unknown_with_its_phase() {
    // 1 MiB: less than any process's resident memory, so the first check
    // of the load stops it.
    let run = weft(&[
        "check",
        "models/peterson.json",
        "--max-memory",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, Some(3), "{}{}", run.stdout, run.stderr);
    let line: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(line["verdict"], "unknown");
    assert_eq!(line["summary"]["exit_code"], 3);
    let reason = line["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("memory budget of 1 MiB exhausted while"),
        "{reason}"
    );
    assert!(line["next_step"].as_str().unwrap().contains("--max-memory"));
}

#[test]
fn the_watchdog_stops_a_run_that_overruns_its_timeout_outside_any_check() {
    let started = std::time::Instant::now();
    let run = weft_with_env(
        &[("WEFT_TEST_STALL_SECONDS", "60")],
        &["check", "models/peterson.json", "--timeout", "1"],
    );
    let stdout = run.stdout;
    assert_eq!(run.code, Some(3), "{stdout}");
    assert!(
        started.elapsed().as_secs() < 30,
        "the 60 s stall was not cut short"
    );
    assert!(
        stdout.contains("unknown — time budget of 1 s exhausted while compiling the model"),
        "{stdout}"
    );
}

#[test]
fn a_panic_is_an_internal_error_with_exit_code_4() {
    let run = weft_with_env(
        &[("WEFT_TEST_INTERNAL_ERROR", "1")],
        &["check", "models/peterson.json"],
    );
    let stderr = run.stderr;
    assert_eq!(run.code, Some(4), "{stderr}");
    assert!(stderr.starts_with("weft: internal error: "), "{stderr}");
    assert!(stderr.contains("Please report it"), "{stderr}");
    assert!(!stderr.contains("panicked at"), "{stderr}");
    assert!(!stderr.contains("RUST_BACKTRACE"), "{stderr}");
}

/// A reader that leaves early (`| head`) ends weft quietly, as it ends
/// `cat`: no internal error, no exit code 4 (it was both).
#[cfg(unix)]
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    // Several megabytes: far more than a pipe holds, so weft is still
    // writing when the reader has gone.
    let mut child = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["gen", "philosophers", "--threads", "2000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGPIPE), "{status:?} {stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}

/// Every file under `dir`, recursively, with one of `extensions`.
fn files(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, extensions, out);
        } else if p
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| extensions.contains(&x))
        {
            out.push(p);
        }
    }
}

#[test]
fn no_shipped_or_test_input_reaches_the_internal_error_handler() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs = Vec::new();
    for dir in ["models", "tests/data"] {
        files(&root.join(dir), &["json", "dve"], &mut inputs);
    }
    assert!(inputs.len() >= 60, "found only {} inputs", inputs.len());
    for input in &inputs {
        let path = input.to_str().unwrap();
        for mode in ["standard", "cartesian-exc"] {
            let run = weft(&[
                "check",
                path,
                "--mode",
                mode,
                "--max-states",
                "20000",
                "--timeout",
                "10",
            ]);
            assert_ne!(run.code, Some(4), "{path} --mode {mode}: {}", run.stderr);
            assert!(
                run.code.is_some(),
                "{path} --mode {mode}: killed by a signal"
            );
            for bad in ["internal error", "panicked", "overflowed its stack"] {
                assert!(
                    !run.stderr.contains(bad),
                    "{path} --mode {mode}: {}",
                    run.stderr
                );
            }
        }
    }
}

#[test]
fn a_template_of_many_locations_loads_in_linear_time_and_memory() {
    // One DVE process of 40,000 states in a chain, each transition guarded.
    // Name lookups by linear search, and the deadlock predicate's location
    // mask per guarded location, made this quadratic: about 10 s and 6 GB.
    // Now it takes about a second and 150 MB.
    let dir = scratch("many-locations");
    let n = 40_000;
    let states: Vec<String> = (0..n).map(|i| format!("s{i}")).collect();
    let transitions: Vec<String> = (0..n - 1)
        .map(|i| format!("s{i} -> s{} {{ guard x == 0; }}", i + 1))
        .collect();
    let text = format!(
        "byte x = 0;\nprocess P {{ state {}; init s0; trans {}; }}\nsystem async;\n",
        states.join(", "),
        transitions.join(", ")
    );
    let path = dir.join("chain.dve");
    std::fs::write(&path, text).unwrap();
    let run = weft(&[
        "check",
        path.to_str().unwrap(),
        "--timeout",
        "20",
        "--max-memory",
        "1000",
    ]);
    // A chain ends in a deadlock (its last state is not final in DVE).
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("states 40000"), "{}", run.stdout);
}

/// `init: "any"` over a 32-bit range is refused before its 2^32 values are
/// built (found by fuzzing, 2026-11-28: 16 GiB, or an abort under a memory
/// limit, before the refusal). Run under a 1 GiB address-space limit, so
/// that building them first aborts instead of passing slowly.
#[test]
fn init_any_over_a_wide_range_is_refused_before_its_values_are_built() {
    let dir = scratch("any");
    let path = dir.join("any.json");
    let model = serde_json::json!({
        "name": "wide-any",
        "globals": {"g": {"type": "int", "min": -2147483648i64, "max": 2147483647i64, "init": "any"}},
        "threads": [{"name": "t", "start": "l0", "transitions": []}],
        "properties": [{"name": "p", "error": "false"}]
    });
    std::fs::write(&path, model.to_string()).unwrap();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 1048576 && exec \"$0\" check \"{}\"",
            path.display()
        ))
        .arg(env!("CARGO_BIN_EXE_weft"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("4294967296 initial stores"), "{err}");
    assert!(err.contains("globals.g.init"), "{err}");
}

/// An item `"any"` of an array's init list counts its own values, not
/// values^cells (a regression of the check above, found in review: three
/// cells over 0..200 with `["any", 0, 0]` have 201 initial stores).
#[test]
fn init_any_for_one_cell_of_a_list_counts_that_cell_alone() {
    let dir = scratch("any-item");
    let path = dir.join("any-item.json");
    let model = serde_json::json!({
        "name": "any-item",
        "globals": {"a": {"type": "array", "len": 3, "of": {"type": "int", "min": 0, "max": 200}, "init": ["any", 0, 0]}},
        "threads": [{"name": "t", "start": "l0", "transitions": []}],
        "properties": [{"name": "p", "error": "a[0] == 200"}]
    });
    std::fs::write(&path, model.to_string()).unwrap();
    let r = weft(&["check", path.to_str().unwrap()]);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("p: UNSAFE"), "{}", r.stdout);
}

// `weft simulate` and `weft replay` hold `--timeout` and `--max-memory`
// too (by default 80% of physical memory): a simulation stops with the
// runs so far, a replay or a load that cannot finish within them ends
// `unknown` with exit 3, never killed by the kernel.

/// Writes `model` into `dir` as `name`; its path.
fn write_model(dir: &Path, name: &str, model: serde_json::Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, model.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn a_simulation_stops_at_its_time_budget_with_the_runs_so_far() {
    // One state forever: nothing grows, only the clock can stop it.
    let dir = scratch("simulate-timeout");
    let model = write_model(
        &dir,
        "spin.json",
        serde_json::json!({
            "name": "spin",
            "globals": {"x": {"type": "bool", "init": false}},
            "threads": [{"name": "t", "start": "a",
                         "transitions": [{"from": "a", "to": "a", "do": "x := !x"}]}],
            "properties": [{"name": "never", "error": "false"}]
        }),
    );
    let started = std::time::Instant::now();
    let run = weft(&[
        "simulate",
        &model,
        "--runs",
        "1",
        "--steps",
        "1000000000000",
        "--timeout",
        "0.3",
        "--seed",
        "1",
    ]);
    assert!(started.elapsed().as_secs() < 30);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(
            "; stopped in run 1 of 1: time budget of 0.3 s exhausted); a simulation proves nothing"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn a_simulation_stops_at_its_memory_budget_with_the_runs_so_far() {
    // Every step a new state, interned and its successors memoised.
    let dir = scratch("simulate-memory");
    let model = write_model(
        &dir,
        "grow.json",
        serde_json::json!({
            "name": "grow",
            "globals": {"a": {"type": "int", "min": 0, "max": 100000000, "init": 0}},
            "threads": [{"name": "t", "start": "l",
                         "transitions": [{"from": "l", "to": "l", "when": "a < 100000000",
                                          "do": "a := a + 1"}]}],
            "properties": [{"name": "never", "error": "a < 0"}]
        }),
    );
    let run = weft(&[
        "simulate",
        &model,
        "--runs",
        "1",
        "--steps",
        "100000000",
        "--max-memory",
        "64",
        "--seed",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let line: serde_json::Value = serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
    let reason = line["reason"].as_str().unwrap();
    assert!(
        reason.contains("; stopped in run 1 of 1: memory budget of 64 MiB exhausted)"),
        "{reason}"
    );
    assert!(line["stats"]["peak_memory_bytes"].as_u64().unwrap() < 128 << 20);
}

#[test]
fn simulate_and_replay_load_within_their_budgets() {
    for command in ["simulate", "replay"] {
        let mut args = vec![command, "models/peterson.json"];
        if command == "replay" {
            // Never read: the model is loaded first.
            args.push("models/peterson.json");
        }
        args.extend(["--max-memory", "1"]);
        let run = weft(&args);
        assert_eq!(run.code, Some(3), "{command}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stdout.starts_with(&format!(
                "weft: model models/peterson.json, {command}\n  unknown — memory budget of 1 MiB exhausted while"
            )),
            "{command}: {}",
            run.stdout
        );
    }
}

#[test]
fn a_trace_too_large_for_the_memory_budget_is_stopped_while_it_is_read() {
    // 20 MB of steps: its JSON tree takes many times that.
    let dir = scratch("replay-memory");
    let step = r#"{"thread":"P0","transition":"want","globals":{"flag0":1,"flag1":0,"turn":0},"locals":{"pc":"B"},"partner":null}"#;
    let mut text = String::from(
        r#"{"initial":{"globals":{"flag0":0,"flag1":0,"turn":0},"locals":{"P0":{"pc":"A"},"P1":{"pc":"A"}}},"trace":["#,
    );
    for i in 0..200_000 {
        if i > 0 {
            text.push(',');
        }
        text.push_str(step);
    }
    text.push_str("]}");
    let trace = dir.join("long.json");
    std::fs::write(&trace, text).unwrap();
    let run = weft(&[
        "replay",
        "models/peterson.json",
        trace.to_str().unwrap(),
        "--max-memory",
        "64",
    ]);
    // The reader stops itself, within the budget: the watchdog (which
    // says "nothing was checked") only fires 64 MiB past it.
    stopped_by_the_reader(&run, 64, "reading the trace file", "nothing was replayed");
}

#[test]
fn a_stream_given_as_the_trace_is_stopped_at_the_memory_budget() {
    // Zeros are text: only the budget stops the read (found by the input
    // fuzzer, F1: 117 MiB resident under a 50 MiB budget).
    let run = weft(&[
        "replay",
        "models/bug-ticket-lock.json",
        "/dev/zero",
        "--max-memory",
        "50",
    ]);
    stopped_by_the_reader(&run, 50, "reading the trace file", "nothing was replayed");
}

#[test]
fn a_large_dve_model_is_stopped_at_the_memory_budget_while_translated() {
    // plc.4's tokens and syntax tree take about 90 MiB (found by the input
    // fuzzer, F6: 88-96 MiB resident under budgets of 20 to 80 MiB).
    let run = weft(&[
        "check",
        "tests/data/beem/dve/plc.4.dve",
        "--max-memory",
        "20",
    ]);
    stopped_by_the_reader(&run, 20, "translating the DVE model", "nothing was checked");
}

/// `run` ended `unknown` on its memory budget of `mib` MiB, stopped by the
/// loader's own check in `phase` (the resident memory it names is under
/// half the watchdog's 64 MiB margin past the budget), with the next step.
fn stopped_by_the_reader(run: &cli::Run, mib: u64, phase: &str, what: &str) {
    assert_eq!(run.code, Some(3), "{}{}", run.stdout, run.stderr);
    let start = format!("unknown — memory budget of {mib} MiB exhausted while {phase} (");
    let at = run.stdout.find(&start).map(|i| i + start.len());
    let resident: Option<u64> = at
        .and_then(|i| run.stdout[i..].split(' ').next())
        .and_then(|n| n.parse().ok());
    assert!(resident.is_some_and(|r| r < mib + 32), "{}", run.stdout);
    assert!(
        run.stdout.contains(&format!("MiB resident); {what}")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("next: raise `--max-memory`"),
        "{}",
        run.stdout
    );
}

/// Initial states are enumerated before any search, so `--max-states`
/// cannot stop their enumeration: a model with more than 10,000,000 is
/// refused by the modes that enumerate them (five threads with a local
/// array `"init": "any"` over 64 stores each, 2^30 initial states, filled
/// 7 GB under `--max-states 1000`; found by fuzzing).
#[test]
fn a_model_with_too_many_initial_states_is_refused_where_they_are_enumerated() {
    let dir = scratch("init-states");
    let model = write_model(
        &dir,
        "init-any.json",
        serde_json::json!({
            "format": "weft/1", "name": "init-any-max-states",
            "threads": [{"name": "p", "count": 5, "start": "s",
                "locals": {"a": {"type": "array", "len": 3,
                                 "of": {"type": "int", "min": 0, "max": 3}, "init": "any"}},
                "transitions": [{"from": "s", "to": "t"}]}],
            "properties": [{"name": "P", "error": "count(p: @t) >= 5"}]
        }),
    );
    for command in [
        vec!["check", &model, "--max-states", "1000"],
        vec!["check", &model, "--mode", "refine"],
        vec!["simulate", &model],
    ] {
        let run = weft(&command);
        assert_eq!(
            run.code,
            Some(2),
            "{command:?}: {}{}",
            run.stdout,
            run.stderr
        );
        assert!(
            run.stderr.contains("1073741824 initial states")
                && run.stderr.contains("at most 10000000"),
            "{command:?}: {}",
            run.stderr
        );
    }
    // cartesian-exc starts from each thread's initial stores alone.
    let run = weft(&["check", &model, "--mode", "cartesian-exc"]);
    assert_eq!(run.code, Some(3), "{}{}", run.stdout, run.stderr);
}

/// refine stopped by a budget in its first pass (the model's own exception
/// set) still writes `--save-exceptions`: the empty set where the loop
/// would have started, with the warning that it re-proves nothing. It
/// panicked (exit 4) on every model with its own set (found by fuzzing).
#[test]
fn refine_stopped_in_its_first_pass_saves_where_it_stopped() {
    let dir = scratch("save-first-pass");
    let saved = dir.join("E.json");
    for model in ["models/lock.json", "models/peterson.json"] {
        let run = weft(&[
            "check",
            model,
            "--mode",
            "refine",
            "--max-states",
            "1",
            "--save-exceptions",
            saved.to_str().unwrap(),
        ]);
        assert_eq!(run.code, Some(3), "{model}: {}{}", run.stdout, run.stderr);
        assert!(run.stdout.contains("in the first pass"), "{}", run.stdout);
        assert!(
            run.stderr.contains("warning: --save-exceptions"),
            "{}",
            run.stderr
        );
        let text = std::fs::read_to_string(&saved).unwrap();
        assert_eq!(text.trim(), "[]", "{model}");
        std::fs::remove_file(&saved).unwrap();
    }
}
