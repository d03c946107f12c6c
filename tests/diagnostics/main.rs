//! Bad input, as a new user writes it, through the real `weft` binary: every
//! mistake must exit with code 2 and print, on stderr only, the file, the
//! JSON path, what is wrong (with a did-you-mean where one helps) and, for
//! expressions, the expression with a caret under the culprit. Never a panic.

use assert_cmd::Command;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

mod command_line;
mod expressions;
mod structure;
mod top_level;

/// A valid model that each test breaks in one place.
fn base() -> Value {
    json!({
        "format": "weft/1",
        "name": "diag",
        "params": {"n": 3},
        "globals": {
            "lck": {"type": "int", "min": 0, "max": 1, "init": 0},
            "b": {"type": "bool"},
            "x": {"type": "int", "min": 0, "max": 3},
            "turn": {"type": "int", "min": 0, "max": 1}
        },
        "threads": [{
            "name": "p",
            "count": "n",
            "start": "l1",
            "groups": {"crit": ["l2", "l3"]},
            "transitions": [
                {"from": "l1", "to": "l2", "when": "lck == 0", "do": "lck := 1", "label": "acquire"},
                {"from": "l2", "to": "l3", "label": "work"},
                {"from": "l3", "to": "done", "do": "lck := 0", "label": "release"}
            ]
        }],
        "properties": [{"name": "mutex", "error": "count(p: @crit) >= 2"}]
    })
}

struct Run {
    /// The model file's name, unique per run.
    file: String,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn temp_path(tag: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let k = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("weft-diag-{}-{k}-{tag}.json", std::process::id()))
}

/// Runs `weft check FILE ARGS…` on `text` written to a fresh temp file.
fn run_text(tag: &str, text: &str, args: &[&str]) -> Run {
    let path = temp_path(tag);
    std::fs::write(&path, text).unwrap();
    let out = Command::cargo_bin("weft")
        .unwrap()
        .arg("check")
        .arg(&path)
        .args(args)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    Run {
        file: path.file_name().unwrap().to_string_lossy().into_owned(),
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The base model after `change`.
fn run_model(tag: &str, change: impl FnOnce(&mut Value), args: &[&str]) -> Run {
    let mut m = base();
    change(&mut m);
    run_text(tag, &serde_json::to_string_pretty(&m).unwrap(), args)
}

/// Exit code 2, nothing on stdout, no panic, and stderr naming the file.
fn assert_refused(r: &Run) {
    assert_eq!(
        r.code,
        Some(2),
        "exit code\nstderr:\n{}\nstdout:\n{}",
        r.stderr,
        r.stdout
    );
    assert!(
        r.stdout.is_empty(),
        "stdout must be empty, got:\n{}",
        r.stdout
    );
    assert!(!r.stderr.contains("panicked"), "panic:\n{}", r.stderr);
    assert!(
        r.stderr.contains(&r.file),
        "stderr must name the file `{}`:\n{}",
        r.file,
        r.stderr
    );
}

/// A refusal at JSON path `path` whose message contains every one of `words`.
fn assert_error(r: &Run, path: &str, words: &[&str]) {
    assert_refused(r);
    assert!(
        r.stderr.contains(&format!("{}: {path}", r.file)),
        "stderr must name the JSON path `{path}` after the file:\n{}",
        r.stderr
    );
    for w in words {
        assert!(
            r.stderr.contains(w),
            "stderr must contain `{w}`:\n{}",
            r.stderr
        );
    }
}

/// An expression error: as `assert_error`, plus the expression shown with a
/// caret `^` under byte `offset` of it.
fn assert_expr_error(r: &Run, path: &str, expr: &str, offset: usize, words: &[&str]) {
    assert_error(r, path, words);
    let lines: Vec<&str> = r.stderr.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.contains('│') && l.ends_with(expr))
        .unwrap_or_else(|| panic!("the expression `{expr}` must be shown:\n{}", r.stderr));
    let start = lines[i].chars().count() - expr.chars().count();
    let caret = lines
        .get(i + 1)
        .and_then(|l| l.chars().position(|c| c == '^'))
        .unwrap_or_else(|| panic!("a caret `^` must follow the expression:\n{}", r.stderr));
    assert_eq!(
        caret,
        start + offset,
        "caret position under `{expr}`:\n{}",
        r.stderr
    );
}

/// Sets the value at a JSON pointer such as `/threads/0/transitions/1/do`,
/// creating the last key if needed.
fn set(m: &mut Value, ptr: &str, v: Value) {
    let mut cur = m;
    for seg in ptr.split('/').skip(1) {
        cur = match seg.parse::<usize>() {
            Ok(i) if cur.is_array() => &mut cur[i],
            _ => &mut cur[seg],
        };
    }
    *cur = v;
}

fn guard(m: &mut Value, text: &str) {
    set(m, "/threads/0/transitions/0/when", json!(text));
}

fn action(m: &mut Value, text: &str) {
    set(m, "/threads/0/transitions/1/do", json!(text));
}

fn property(m: &mut Value, text: &str) {
    set(m, "/properties/0/error", json!(text));
}

const GUARD: &str = "threads[0].transitions[0].when";
const ACTION: &str = "threads[0].transitions[1].do";
const PROPERTY: &str = "properties[0].error";

#[test]
fn the_base_model_is_valid() {
    let r = run_model("base", |_| {}, &[]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("mutex: safe"), "{}", r.stdout);
}
