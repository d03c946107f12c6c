//! weft against SPIN: `weft convert --to promela` exports a model, SPIN
//! checks it (`spin -a`, `gcc -O2 -DSAFETY -DNOREDUCE`, `./pan`), and SPIN's
//! verdict must equal weft's `standard` verdict. For the lock schema (and
//! every safe model here) SPIN's "states, stored" must be weft's state count
//! plus one: SPIN's initial state, before `init` has run (docs/promela.md).
//!
//! These tests need `spin` and `gcc`. Where either is missing they are not
//! run, and each says so on the terminal (past the test harness's output
//! capture), so `cargo test` passes on a machine without SPIN. With
//! `WEFT_REQUIRE_SPIN=1`, which .ci/run sets after installing SPIN, a
//! missing tool fails them instead: CI can never skip them silently.

use super::common;
use crate::engine::{self, CheckOptions};
use crate::engine::{Mode, Verdict};
use crate::program::Program;
use assert_cmd::Command as Weft;
use std::path::{Path, PathBuf};
use std::process::Command;

fn require(tool: &str, arg: &str) {
    let ok = Command::new(tool)
        .arg(arg)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        ok,
        "`{tool}` is not installed, and the SPIN cross-check tests need it: install SPIN and gcc \
         (Debian/Ubuntu: `apt-get update && apt-get install -y spin gcc`); CI installs them in .ci/run"
    );
}

/// Are `spin` and `gcc` on the PATH? If not: fails under
/// `WEFT_REQUIRE_SPIN=1`, otherwise prints a loud line to the terminal and
/// answers false (the test then returns without checking anything).
pub(super) fn spin_present(test: &str) -> bool {
    let runs = |tool: &str, arg: &str| {
        Command::new(tool)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let missing: Vec<&str> = [("spin", "-V"), ("gcc", "--version")]
        .into_iter()
        .filter(|(tool, arg)| !runs(tool, arg))
        .map(|(tool, _)| tool)
        .collect();
    if missing.is_empty() {
        return true;
    }
    let msg = format!(
        "SPIN cross-check `{test}` NOT RUN: `{}` not on the PATH (Debian/Ubuntu: `apt-get install -y spin gcc`)",
        missing.join("`, `")
    );
    if std::env::var("WEFT_REQUIRE_SPIN").is_ok_and(|v| ["1", "true", "yes"].contains(&v.as_str()))
    {
        panic!("{msg}; WEFT_REQUIRE_SPIN=1 requires it");
    }
    // Written to the handle, not with eprintln!, so the harness does not
    // capture it.
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "\n*** {msg} ***");
    false
}

/// What pan reported.
#[derive(Debug)]
pub(super) struct Pan {
    pub(super) errors: u64,
    pub(super) stored: u64,
    pub(super) output: String,
}

fn field(output: &str, pattern: &str, before: bool) -> u64 {
    let line = output
        .lines()
        .find(|l| l.contains(pattern))
        .unwrap_or_else(|| panic!("no `{pattern}` in pan's output:\n{output}"));
    let text = if before {
        line.split(pattern).next().unwrap_or("")
    } else {
        line.split(pattern).nth(1).unwrap_or("")
    };
    let word = if before {
        text.split_whitespace().last()
    } else {
        text.split(|c: char| !c.is_ascii_digit())
            .find(|w| !w.is_empty())
    };
    let word = word.unwrap_or_else(|| panic!("no number at `{pattern}` in:\n{output}"));
    word.parse::<f64>()
        .unwrap_or_else(|_| panic!("bad number `{word}` at `{pattern}` in:\n{output}")) as u64
}

fn run(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() || program == "./pan",
        "`{program} {}` failed:\n{text}",
        args.join(" ")
    );
    text
}

/// Exports `prog`, runs SPIN on it in a fresh temp dir and parses pan's
/// report. `spin_flags` go before `-a` (e.g. `-o2`).
fn spin(prog: &Program, spin_flags: &[&str]) -> Pan {
    require("spin", "-V");
    require("gcc", "--version");
    let export = crate::promela::to_promela(prog, &crate::promela::Options::default())
        .unwrap_or_else(|e| panic!("export of {} failed: {e}", prog.name));
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("model.pml"), &export.text).expect("write model.pml");
    let mut args: Vec<&str> = spin_flags.to_vec();
    args.extend(["-a", "model.pml"]);
    run(dir.path(), "spin", &args);
    run(
        dir.path(),
        "gcc",
        &["-O2", "-DSAFETY", "-DNOREDUCE", "-o", "pan", "pan.c"],
    );
    let output = run(dir.path(), "./pan", &["-m1000000"]);
    assert!(
        !output.contains("max search depth too small"),
        "pan's depth bound was hit:\n{output}"
    );
    Pan {
        errors: field(&output, "errors:", false),
        stored: field(&output, "states, stored", true),
        output: format!("{output}\n--- model.pml ---\n{}", export.text),
    }
}

/// weft's `standard` run: overall verdict and state count.
fn weft(prog: &Program) -> (Verdict, u64) {
    let report = engine::check(prog, Mode::Standard, &CheckOptions::default())
        .unwrap_or_else(|e| panic!("weft refused {}: {e}", prog.name));
    let states = report
        .stats
        .get("states")
        .and_then(|v| v.as_u64())
        .expect("states in the stats");
    (report.verdict(), states)
}

/// SPIN's verdict equals weft's; for a safe model, the state counts are
/// related by the documented +1.
pub(super) fn cross_check(prog: &Program, spin_flags: &[&str]) -> (Verdict, u64, Pan) {
    let (verdict, states) = weft(prog);
    let pan = spin(prog, spin_flags);
    assert!(
        verdict == Verdict::Safe || verdict == Verdict::Unsafe,
        "{}: weft's standard verdict is {verdict:?}",
        prog.name
    );
    assert_eq!(
        pan.errors > 0,
        verdict == Verdict::Unsafe,
        "{}: weft says {}, SPIN reports errors: {}\n{}",
        prog.name,
        verdict.name(),
        pan.errors,
        pan.output
    );
    if verdict == Verdict::Safe {
        assert_eq!(
            pan.stored,
            states + 1,
            "{}: SPIN stored {} states, weft counts {states} (+1 expected)\n{}",
            prog.name,
            pan.stored,
            pan.output
        );
    }
    (verdict, states, pan)
}

fn load_value(v: &serde_json::Value) -> Program {
    crate::model::load_str(&v.to_string(), "x.json", &[])
        .map(crate::model::Model::into_program)
        .unwrap_or_else(|d| panic!("{}", d.render()))
}

fn models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models")
}

fn load_model(name: &str) -> Program {
    crate::model::load_file(&models_dir().join(name), &[])
        .map(crate::model::Model::into_program)
        .unwrap_or_else(|d| panic!("{}", d.render()))
}

#[test]
fn lock_schema_state_counts_are_weft_plus_one_in_spin() {
    if !spin_present("lock_schema_state_counts_are_weft_plus_one_in_spin") {
        return;
    }
    for (n, m) in [(1, 1), (2, 1), (2, 2), (3, 1), (3, 3), (4, 2), (5, 1)] {
        let prog = load_value(&crate::families::lock(n, m));
        let (verdict, states, pan) = cross_check(&prog, &[]);
        let formula = crate::families::lock_state_count(n, m).expect("fits") as u64;
        assert_eq!(
            (verdict, states),
            (Verdict::Safe, formula),
            "lock({n}, {m})"
        );
        assert_eq!(
            pan.stored,
            formula + 1,
            "lock({n}, {m}): SPIN's states, stored"
        );
    }
}

#[test]
fn peterson_is_safe_in_both_with_the_same_state_space() {
    if !spin_present("peterson_is_safe_in_both_with_the_same_state_space") {
        return;
    }
    let (verdict, states, pan) = cross_check(&load_model("peterson.json"), &[]);
    assert_eq!(verdict, Verdict::Safe);
    assert_eq!(pan.stored, states + 1);
}

#[test]
fn buggy_models_are_unsafe_in_both() {
    if !spin_present("buggy_models_are_unsafe_in_both") {
        return;
    }
    let mut seen = 0;
    for entry in std::fs::read_dir(models_dir()).expect("models/") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        if !(name.starts_with("bug-") && name.ends_with(".json")) {
            continue;
        }
        let prog = load_model(&name);
        if prog.scheduler.is_some() {
            // Cooperative: the export refuses it (checked below).
            assert!(matches!(
                crate::promela::to_promela(&prog, &Default::default()),
                Err(crate::promela::Error::Cooperative)
            ));
            continue;
        }
        let (verdict, _, pan) = cross_check(&prog, &[]);
        assert_eq!(verdict, Verdict::Unsafe, "{name}");
        // A deadlock is pan's invalid end state; other errors fail an assert.
        let want = if name.contains("deadlock") {
            "pan:1: invalid end state"
        } else {
            "assertion violated"
        };
        assert!(pan.output.contains(want), "{name}: {}", pan.output);
        seen += 1;
    }
    assert!(
        seen >= 3,
        "expected the models/bug-*.json models, found {seen}"
    );
}

/// The other shipped models (peterson and bug-* have their own tests).
#[test]
fn every_other_shipped_model_agrees() {
    if !spin_present("every_other_shipped_model_agrees") {
        return;
    }
    for entry in std::fs::read_dir(models_dir()).expect("models/") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !name.ends_with(".json") || name.starts_with("bug-") || name == "peterson.json" {
            continue;
        }
        let prog = load_model(name);
        if prog.scheduler.is_some() {
            continue; // cooperative: not exported (see above)
        }
        cross_check(&prog, &[]);
    }
}

/// Nondeterministic initial values (`init: "any"`, per-cell lists), `x :=
/// any` on a local array cell, local arrays read through named instances
/// and counts, several templates, `tid`, transition asserts: the same state
/// space in both.
#[test]
fn any_arrays_templates_and_asserts_give_the_same_state_space() {
    if !spin_present("any_arrays_templates_and_asserts_give_the_same_state_space") {
        return;
    }
    let m = serde_json::json!({
        "name": "features",
        "globals": {
            "x": {"type": "int", "min": 0, "max": 2, "init": "any"},
            "a": {"type": "array", "len": 3, "of": {"type": "int", "min": 0, "max": 1}, "init": [0, "any", 1]},
            "f": {"type": "bool", "init": true},
            "m": {"type": "int", "min": 0, "max": 3}
        },
        "threads": [
            {"name": "p", "count": 2, "start": "s",
             "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": "any"},
                        "b": {"type": "array", "len": 2, "of": {"type": "int", "min": -1, "max": 1}, "init": 1}},
             "transitions": [
                {"from": "s", "to": "t", "when": "x < 2 && f", "do": "x := x + 1; a[k] := any; b[k] := -b[k]"},
                {"from": "t", "to": "s", "do": "k := any; f := !f"},
                {"from": ["s", "t"], "to": "u", "when": "a[2] == 0 -> x == 0", "do": "x := any"},
                {"from": "u", "to": "v", "when": "m == 0", "do": "m := tid"},
                {"from": "v", "to": "u", "assert": "m == tid", "do": "m := 0"}]},
            {"name": "q", "start": "w", "locations": ["w", "z"],
             "transitions": [{"from": "w", "to": "w", "do": "a[0] := 1 - a[0]"}]}
        ],
        "properties": [
            {"name": "inv", "invariant": "count(p: b[0] + b[1] >= -2) == 2"},
            {"name": "named", "error": "p[1].b[1] == 2 || q@z && p[2].b[p[1].k] == 1"},
            {"name": "mutex", "error": "count(p: @v) >= 2"}
        ]
    });
    let (verdict, states, _) = cross_check(&load_value(&m), &[]);
    assert_eq!(verdict, Verdict::Safe);
    assert!(states > 1000, "{states}");
}

/// Names that Promela, C or pan.c own (`now`, `uchar`, `Pp` next to a
/// proctype `p`, a leading underscore) are renamed; a template without
/// instances or without transitions; `x := any` over 301 values (a loop);
/// shifts, bit operations, `int(b)`. The model writes variables it never
/// reads, which SPIN hides unless `-o2`.
#[test]
fn reserved_names_empty_templates_and_large_any() {
    if !spin_present("reserved_names_empty_templates_and_large_any") {
        return;
    }
    let m = serde_json::json!({
        "name": "names",
        "globals": {"i": {"type": "int", "min": -3, "max": 300, "init": -3}, "now": {"type": "bool"},
                    "pc_p": {"type": "int", "min": 0, "max": 7}, "_x": {"type": "int", "min": 0, "max": 3},
                    "uchar": {"type": "int", "min": 0, "max": 1}, "Pp": {"type": "int", "min": 0, "max": 1}},
        "threads": [
            {"name": "p", "count": 2, "start": "a", "locals": {"monitor": {"type": "int", "min": 0, "max": 300}},
             "transitions": [
                {"from": "a", "to": "b", "do": "monitor := any"},
                {"from": "b", "to": "c", "when": "monitor % 100 == 7 || monitor > 297",
                 "do": "i := (monitor >> 1) - 3 + int(now); now := !now; pc_p := (tid << 1) ^ 1; _x := ~(-4) & 3"}]},
            {"name": "q", "count": 0, "start": "a", "transitions": [{"from": "a", "to": "b"}]},
            {"name": "r", "start": "z", "transitions": []}
        ],
        "properties": [{"name": "big", "error": "i > 200 && count(p: @c) == 2 && r@z"},
                       {"name": "never", "invariant": "uchar == 0 && Pp == 0"}]
    });
    let prog = load_value(&m);
    let (verdict, states, _) = cross_check(&prog, &["-o2"]);
    assert_eq!(verdict, Verdict::Safe);
    assert!(states > 90_000, "{states}");
    let text = crate::promela::to_promela(&prog, &Default::default())
        .expect("export")
        .text;
    for renamed in [
        "bool now_1",
        "bit uchar_1",
        "byte w_x",
        "byte pc_p_1[2]",
        "proctype p_1(",
    ] {
        assert!(text.contains(renamed), "no `{renamed}` in:\n{text}");
    }
}

/// weft's run-time model errors are SPIN assertion violations.
#[test]
fn model_errors_are_assertion_violations_in_spin() {
    if !spin_present("model_errors_are_assertion_violations_in_spin") {
        return;
    }
    let cases = [
        // index out of bounds in a guard
        serde_json::json!({"name": "index", "globals": {"x": {"type": "int", "min": 0, "max": 3}, "a": {"type": "array", "len": 3, "of": {"type": "int", "min": 0, "max": 1}}},
            "threads": [{"name": "p", "start": "s", "transitions": [
                {"from": "s", "to": "s", "when": "x < 3", "do": "x := x + 1"},
                {"from": "s", "to": "s", "when": "a[x] == 1"}]}],
            "properties": [{"name": "never", "error": "false"}]}),
        // assignment out of range
        serde_json::json!({"name": "range", "globals": {"y": {"type": "int", "min": 0, "max": 2}},
            "threads": [{"name": "p", "start": "s", "transitions": [{"from": "s", "to": "s", "do": "y := y + 1"}]}],
            "properties": [{"name": "never", "error": "y == 5"}]}),
        // division by zero after another action of the same transition
        serde_json::json!({"name": "div", "globals": {"d": {"type": "int", "min": 0, "max": 2, "init": 2}, "r": {"type": "int", "min": 0, "max": 10}},
            "threads": [{"name": "p", "count": 2, "start": "s", "transitions": [{"from": "s", "to": "t", "do": "d := d - 1; r := 10 / d"}]}],
            "properties": [{"name": "never", "error": "r == 7"}]}),
        // index out of bounds while evaluating a property
        serde_json::json!({"name": "property", "globals": {"x": {"type": "int", "min": 0, "max": 3}, "a": {"type": "array", "len": 3, "of": {"type": "int", "min": 0, "max": 1}}},
            "threads": [{"name": "p", "start": "s", "transitions": [{"from": "s", "to": "s", "when": "x < 3", "do": "x := x + 1"}]}],
            "properties": [{"name": "bad", "error": "a[x] == 1"}]}),
        // index out of bounds on an assignment target
        serde_json::json!({"name": "target", "globals": {"x": {"type": "int", "min": 0, "max": 3}, "a": {"type": "array", "len": 3, "of": {"type": "int", "min": 0, "max": 1}}},
            "threads": [{"name": "p", "start": "s", "transitions": [{"from": "s", "to": "s", "when": "x < 3", "do": "x := x + 1; a[x] := 1"}]}],
            "properties": [{"name": "never", "error": "false"}]}),
    ];
    for m in &cases {
        let prog = load_value(m);
        let (verdict, _, pan) = cross_check(&prog, &[]);
        assert_eq!(verdict, Verdict::Unsafe, "{}", prog.name);
        assert!(
            pan.output.contains("assertion violated"),
            "{}: {}",
            prog.name,
            pan.output
        );
    }
    // The same guards, made safe by short-circuit evaluation, are no error.
    let safe = serde_json::json!({"name": "guarded", "globals": {"x": {"type": "int", "min": 0, "max": 3}, "a": {"type": "array", "len": 3, "of": {"type": "int", "min": 0, "max": 1}}},
        "threads": [{"name": "p", "start": "s", "transitions": [
            {"from": "s", "to": "s", "when": "x < 3", "do": "x := x + 1"},
            {"from": "s", "to": "s", "when": "x < 3 && a[x] == 0", "do": "a[x % 3] := 1"}]}],
        "properties": [{"name": "bad", "error": "x < 3 && a[x] == 2"}]});
    let (verdict, _, _) = cross_check(&load_value(&safe), &[]);
    assert_eq!(verdict, Verdict::Safe);
}

/// SPIN hides variables that are written but never read (peterson.3's
/// `step` array) unless `spin -o2`: the state count relation holds with
/// -o2; without it SPIN explores a smaller quotient, with the same verdict.
#[test]
fn beem_peterson_3_needs_o2_for_the_state_count() {
    if !spin_present("beem_peterson_3_needs_o2_for_the_state_count") {
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/beem/dve/peterson.3.dve");
    let prog = common::load_path(&path, None);
    let (verdict, states, pan) = cross_check(&prog, &["-o2"]);
    assert_eq!(
        (verdict, states, pan.stored),
        (Verdict::Safe, 170_156, 170_157)
    );
    let hidden = spin(&prog, &[]);
    assert_eq!(hidden.errors, 0);
    assert!(hidden.stored < states, "{}", hidden.stored);
    // With the property, both find the mutual-exclusion violation.
    let prog = common::load_path(&path, Some("count(*: @CS) >= 2"));
    let (verdict, _, _) = cross_check(&prog, &[]);
    assert_eq!(verdict, Verdict::Unsafe);
}

#[test]
fn convert_to_promela_on_the_command_line() {
    let model = models_dir().join("lock.json");
    let model = model.to_str().expect("utf-8 path");
    let out = Weft::cargo_bin("weft")
        .expect("weft binary")
        .args(["convert", model, "--to", "promela", "--param", "n=2"])
        .output()
        .expect("run weft");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.starts_with("/* SPIN model of the weft model"),
        "{text}"
    );
    assert!(text.contains("proctype p(byte i; byte tid)"), "{text}");
    assert!(
        text.contains("run p(1, 2)") && !text.contains("run p(2, 3)"),
        "{text}"
    );
    // Unknown property: exit 2 with the known names.
    let out = Weft::cargo_bin("weft")
        .expect("weft binary")
        .args(["convert", model, "--to", "promela", "--property", "mutx"])
        .output()
        .expect("run weft");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown property `mutx`"));
    // The default stays weft/1 JSON.
    let out = Weft::cargo_bin("weft")
        .expect("weft binary")
        .args(["convert", model])
        .output()
        .expect("run weft");
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["format"], "weft/1");
}
