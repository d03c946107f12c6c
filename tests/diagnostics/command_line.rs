//! The command line, and refusals found by fuzzing and audits outside the loader.

use super::*;

// ---- the command line ----------------------------------------------------------

#[test]
fn unknown_param_override() {
    let r = run_model(
        "param",
        |m| m["params"]["threads"] = json!(2),
        &["--param", "thread=4"],
    );
    assert_error(
        &r,
        "params",
        &[
            "unknown parameter `thread`",
            "--param",
            "did you mean `threads`?",
        ],
    );
}

#[test]
fn non_integer_param_value_is_a_usage_error() {
    let r = run_model("paramval", |_| {}, &["--param", "n=abc"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    for w in ["--param", "`n` must be an integer", "`abc`"] {
        assert!(
            r.stderr.contains(w),
            "stderr must contain `{w}`:\n{}",
            r.stderr
        );
    }
}

#[test]
fn nonexistent_model_file() {
    let path = temp_path("missing");
    let out = Command::cargo_bin("weft")
        .unwrap()
        .arg("check")
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(!stderr.contains("panicked"), "{stderr}");
    let name = path.file_name().unwrap().to_string_lossy();
    assert!(stderr.contains(&*name), "{stderr}");
    assert!(stderr.contains("cannot read the model file"), "{stderr}");
}

#[test]
fn bad_exceptions_file_is_named() {
    let epath = temp_path("exc");
    std::fs::write(
        &epath,
        r#"{"exceptions": [{"when": "lck != 0", "one": "@crt", "others": "!@crit"}]}"#,
    )
    .unwrap();
    let r = run_model(
        "withexc",
        |_| {},
        &["--exceptions", epath.to_str().unwrap()],
    );
    let _ = std::fs::remove_file(&epath);
    let ename = epath.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    for w in [
        format!("{ename}: exceptions[0].one"),
        "did you mean `crit`?".into(),
        "^^^".into(),
    ] {
        assert!(
            r.stderr.contains(&w),
            "stderr must contain `{w}`:\n{}",
            r.stderr
        );
    }
}

#[test]
fn a_start_location_that_no_transition_leaves_is_warned_about() {
    // Legal (a terminal start), but almost always a typo: the run goes on.
    let r = run_model("start", |m| set(m, "/threads/0/start", json!("l9")), &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr.contains("warning: ")
            && r.stderr.contains(&r.file)
            && r.stderr.contains("threads[0].start")
            && r.stderr
                .contains("`p` starts at `l9`, which no transition leaves"),
        "{}",
        r.stderr
    );
    // Once (it was printed twice: by the loader's caller and again).
    assert_eq!(r.stderr.matches("warning: ").count(), 1, "{}", r.stderr);
    // The base model starts where a transition leaves: no warning.
    let r = run_model("start-ok", |_| {}, &[]);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
}

#[test]
fn error_and_exceptions_options_go_together() {
    let dir = std::env::temp_dir().join(format!("weft-diag-exc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exc = dir.join("e.json");
    std::fs::write(&exc, r#"{"exceptions": []}"#).unwrap();
    let models = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // --error replaces the model's properties, with or without --exceptions.
    let lock = models.join("models/lock.json");
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args([
            "check",
            lock.to_str().unwrap(),
            "--exceptions",
            exc.to_str().unwrap(),
            "--error",
            "lck == 1",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("error: UNSAFE") && !text.contains("mutex"),
        "{text}"
    );
    // Only cartesian-exc reads an exception set: other modes say so.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "warning: --exceptions is used by cartesian-exc only; mode standard ignores it"
        ),
        "{stderr}"
    );
    // A DVE model takes an exception file too.
    let dve = models.join("tests/data/beem/dve/fischer.1.dve");
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args([
            "check",
            dve.to_str().unwrap(),
            "--mode",
            "thread-modular",
            "--exceptions",
            exc.to_str().unwrap(),
            "--error",
            "count(*: @CS) >= 2",
        ])
        .output()
        .unwrap();
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Found by fuzzing (2026-11-28): refusals outside the loader that did not
/// name the file they are about — the Promela export of a model with
/// rendezvous, and a failing predicate of an `--exceptions` file (which
/// named the model instead). A DVE model's transition is named by its
/// line in the DVE text.
#[test]
fn refusals_after_loading_name_their_file() {
    let dve = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/beem/dve/lann.1.dve"
    );
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args(["convert", dve, "--to", "promela"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    // At the DVE transition (line 40: `wait -> got_msg {sync link_0_out?v; }`),
    // not at its translation's path (audit of issue 15).
    assert!(
        err.contains(
            "lann.1.dve: the transition at line 40, column 2 (`wait->got_msg`) is a rendezvous"
        ),
        "{err}"
    );

    let exceptions = temp_path("exceptions");
    std::fs::write(
        &exceptions,
        r#"[{"threads": {"p[1]": "1 / (x - x) == 0"}}]"#,
    )
    .unwrap();
    let r = run_model(
        "exceptions-file",
        |_| {},
        &[
            "--mode",
            "cartesian-exc",
            "--exceptions",
            exceptions.to_str().unwrap(),
        ],
    );
    let _ = std::fs::remove_file(&exceptions);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    let name = exceptions
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        r.stderr
            .contains(&format!("{name}: evaluating the exception set")),
        "{}",
        r.stderr
    );
}

/// `weft gen` refuses sizes it could not print (found by fuzzing: `gen p1
/// --stmts 4000000000` asked for 288 GB and aborted).
#[test]
fn gen_refuses_sizes_beyond_its_maximum() {
    for args in [
        &["gen", "p1", "--stmts", "4000000000"][..],
        &["gen", "token-ring", "--threads", "1000000000"],
        &["gen", "lock", "--threads", "100000", "--sections", "100000"],
    ] {
        let out = Command::cargo_bin("weft")
            .unwrap()
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("at most"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// `x := any` over more than a million values is refused where it is
/// written (found by fuzzing: `simulate` and `replay` built its 2^31
/// successors and aborted).
#[test]
fn any_over_a_wide_range_is_refused_where_it_is_written() {
    let r = run_model(
        "wide-any",
        |m| {
            m["globals"]["w"] = json!({"type": "int", "min": 0, "max": 2147483647i64});
            m["threads"][0]["transitions"][1]["do"] = json!("w := any");
        },
        &[],
    );
    assert_refused(&r);
    assert!(
        r.stderr.contains("`w := any` gives 2147483648 successors"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("transitions[1].do"), "{}", r.stderr);
}

/// A mistake in `--error EXPR` is placed in `--error`, the user's own
/// text, as for a DVE model; it was placed at the model's
/// `properties[0].error`, which holds another expression (found in an
/// audit, 2026-11-28).
#[test]
fn an_error_option_mistake_is_placed_in_the_option() {
    let r = run_model("error-option", |_| {}, &["--error", "lck == 1 && nope"]);
    assert_expr_error(&r, "--error:1:13", "lck == 1 && nope", 12, &["nope"]);
    assert!(!r.stderr.contains("properties[0]"), "{}", r.stderr);
}

/// Found in an audit (2026-11-28): `--max-memory 0` was accepted (and ended
/// `unknown`) where `--max-states 0` and `--timeout 0` are usage errors;
/// `--show invariant` in mode standard was ignored without a word.
#[test]
fn a_zero_memory_budget_is_refused_and_an_ignored_show_is_said() {
    let r = run_model("zero-memory", |_| {}, &["--max-memory", "0"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("--max-memory"), "{}", r.stderr);
    // 2^44 MiB is 2^64 bytes: it wrapped to a budget of 0 (found in review).
    let r = run_model("huge-memory", |_| {}, &["--max-memory", "17592186044416"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let r = run_model("show-standard", |_| {}, &["--show", "invariant"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("warning: --show invariant shows the abstract modes' fixpoint"),
        "{}",
        r.stderr
    );
    let r = run_model(
        "show-cartesian",
        |_| {},
        &["--show", "invariant", "--mode", "cartesian-exc"],
    );
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
}
