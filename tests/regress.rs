//! `weft test DIR`, the regression runner CI uses.

/// A fresh folder for this test process.
fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("weft-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The shipped models.
fn models_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models")
}

use assert_cmd::Command;

#[test]
fn shipped_models_all_pass() {
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args(["test", models_dir().to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    let last = text.lines().last().unwrap();
    assert!(last.ends_with(" passed, 0 failed"), "{last}");
    let passed: usize = last.split(' ').next().unwrap().parse().unwrap();
    assert_eq!(
        passed,
        text.lines().filter(|l| l.starts_with("ok ")).count()
    );
    assert!(passed >= 15);
}

#[test]
fn a_wrong_expectation_fails_the_run() {
    let dir = temp_dir("regress");
    let mut model: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(models_dir().join("peterson.json")).unwrap())
            .unwrap();
    // Peterson is safe in `standard`: claiming unsafe must fail.
    model["expect"]["standard"] = "unsafe".into();
    std::fs::write(dir.join("peterson.json"), model.to_string()).unwrap();
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args(["test", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FAIL") && text.contains("[standard] expected unsafe, got safe"),
        "{text}"
    );
    assert!(
        text.lines().last().unwrap().ends_with("3 passed, 1 failed"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------
// `weft test` for CI: what a folder may hold besides models, single files,
// --timeout, --format json and --junit.

/// What the closing `N passed, N failed[, N skipped]` line says.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
struct Closing {
    passed: u64,
    failed: u64,
    skipped: u64,
}

/// Reads the closing line (the last line of the text output).
fn closing(text: &str) -> Closing {
    let last = text.lines().last().unwrap_or_default();
    let mut counts = [0u64; 3];
    for part in last.split(", ") {
        let (n, what) = part.split_once(' ').unwrap_or_else(|| panic!("{last}"));
        let n: u64 = n.parse().unwrap_or_else(|_| panic!("{last}"));
        match what {
            "passed" => counts[0] = n,
            "failed" => counts[1] = n,
            "skipped" => counts[2] = n,
            _ => panic!("not a closing line: {last}"),
        }
    }
    assert!(
        last.contains(" passed, ") && last.contains(" failed"),
        "{last}"
    );
    Closing {
        passed: counts[0],
        failed: counts[1],
        skipped: counts[2],
    }
}

/// Runs `weft test ARGS`: exit code, stdout, stderr. A run that hangs is
/// killed after a minute (a `--timeout` that is not passed on would make
/// the timeout test run until memory runs out).
fn weft_test(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("weft")
        .unwrap()
        .arg("test")
        .args(args)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A folder as CI finds one: Peterson (passes in its four modes), Peterson
/// with a wrong `expect` for standard (1 failure, 3 passes), a weft/1 model
/// with a mistake (fails to load), an exception set named by the
/// convention (left out), an exception set under another name and a
/// non-model object (both skipped as not weft/1 models), and a subfolder
/// (not entered).
fn mixed_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(models_dir().join("peterson.json")).unwrap();
    std::fs::write(dir.path().join("peterson.json"), &text).unwrap();
    let mut wrong: serde_json::Value = serde_json::from_str(&text).unwrap();
    wrong["expect"]["standard"] = "unsafe".into();
    std::fs::write(dir.path().join("wrong.json"), wrong.to_string()).unwrap();
    let mut broken: serde_json::Value = serde_json::from_str(&text).unwrap();
    broken["threads"] = serde_json::json!([]);
    std::fs::write(dir.path().join("broken.json"), broken.to_string()).unwrap();
    let exceptions =
        r#"[{"when": "x == 1 && y == 1 && turn == 0", "threads": {"P1": "@B", "P2": "@D"}}]"#;
    std::fs::write(dir.path().join("peterson.exceptions.json"), exceptions).unwrap();
    std::fs::write(dir.path().join("extra-set.json"), exceptions).unwrap();
    std::fs::write(dir.path().join("notes.json"), r#"{"owner": "ci"}"#).unwrap();
    // A subfolder is not entered, even one whose name ends in .json.
    let sub = dir.path().join("archive.json");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("wrong.json"), wrong.to_string()).unwrap();
    dir
}

/// Passed, failed (errors included) and skipped of `mixed_folder`.
const MIXED: Closing = Closing {
    passed: 7,
    failed: 2,
    skipped: 2,
};

#[test]
fn a_mixed_folder_skips_companions_and_fails_on_real_problems() {
    let dir = mixed_folder();
    let (code, text, _) = weft_test(&[dir.path().to_str().unwrap()]);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(closing(&text), MIXED, "{text}");
    assert!(text.ends_with("7 passed, 2 failed, 2 skipped\n"), "{text}");
    // The convention's file is not even listed; the other companions are.
    assert!(!text.contains("peterson.exceptions.json"), "{text}");
    assert!(!text.contains("archive.json"), "{text}");
    for skipped in ["extra-set.json", "notes.json"] {
        assert!(
            text.lines().any(|l| l.starts_with("skip ")
                && l.contains(skipped)
                && l.contains("not a weft/1 model")),
            "{skipped}: {text}"
        );
    }
    // The broken weft/1 model fails loudly, with the loader's message.
    assert!(
        text.lines().any(|l| l.starts_with("FAIL ")
            && l.contains("broken.json: does not load")
            && l.contains("at least one thread")),
        "{text}"
    );
    // The wrong verdict is explained property by property.
    assert!(
        text.contains("wrong.json [standard] expected unsafe, got safe")
            && text.contains("\n        mutex: safe — "),
        "{text}"
    );
    let count = |tag: &str| text.lines().filter(|l| l.starts_with(tag)).count() as u64;
    assert_eq!(count("ok "), MIXED.passed);
    assert_eq!(count("FAIL "), MIXED.failed);
    assert_eq!(count("skip "), MIXED.skipped);
}

#[test]
fn json_lines_agree_with_the_closing_line() {
    let dir = mixed_folder();
    let path = dir.path().to_str().unwrap();
    let (code, text, _) = weft_test(&[path]);
    let printed = closing(&text);
    let (json_code, lines, _) = weft_test(&[path, "--format", "json"]);
    assert_eq!(json_code, code);
    let records: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let (summary, records) = records.split_last().unwrap();
    let summary = &summary["summary"];
    assert_eq!(summary["passed"], printed.passed, "{lines}");
    assert_eq!(summary["failed"], printed.failed, "{lines}");
    assert_eq!(summary["skipped"], printed.skipped, "{lines}");
    assert_eq!(summary["errors"], 1, "{lines}");
    assert_eq!(summary["total"], records.len(), "{lines}");
    let with = |status: &str| records.iter().filter(|r| r["status"] == status).count() as u64;
    assert_eq!(with("passed"), printed.passed);
    assert_eq!(with("failed") + with("error"), printed.failed);
    assert_eq!(with("skipped"), printed.skipped);
    for r in records {
        for key in [
            "file", "model", "mode", "expected", "got", "passed", "time_s", "reason",
        ] {
            assert!(r.get(key).is_some(), "no {key}: {r}");
        }
        assert_eq!(r["passed"], r["status"] == "passed", "{r}");
    }
    let wrong = records
        .iter()
        .find(|r| r["status"] == "failed")
        .expect("a failed record");
    assert!(
        wrong["file"].as_str().unwrap().ends_with("wrong.json"),
        "{wrong}"
    );
    assert_eq!(wrong["model"], "peterson");
    assert_eq!(wrong["mode"], "standard");
    assert_eq!(wrong["expected"], "unsafe");
    assert_eq!(wrong["got"], "safe");
    assert!(
        wrong["reason"].as_str().unwrap().starts_with("mutex: safe"),
        "{wrong}"
    );
    let error = records.iter().find(|r| r["status"] == "error").unwrap();
    assert!(
        error["file"].as_str().unwrap().ends_with("broken.json"),
        "{error}"
    );
    assert!(error["mode"].is_null() && error["got"].is_null(), "{error}");
}

#[test]
fn junit_report_agrees_with_the_closing_line() {
    let dir = mixed_folder();
    let models = dir.path().to_str().unwrap();
    let out = tempfile::tempdir().unwrap();
    let xml = out.path().join("junit.xml");
    let (code, text, _) = weft_test(&[models, "--junit", xml.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{text}");
    let printed = closing(&text);
    let file = std::fs::File::open(&xml).unwrap();
    let report = junit_parser::from_reader(std::io::BufReader::new(file)).unwrap();
    assert_eq!(report.suites.len(), 1);
    let suite = &report.suites[0];
    // The counts the XML declares...
    assert_eq!(
        suite.tests,
        printed.passed + printed.failed + printed.skipped
    );
    assert_eq!(suite.failures + suite.errors, printed.failed);
    assert_eq!((suite.failures, suite.errors), (1, 1));
    assert_eq!(suite.skipped, printed.skipped);
    assert_eq!(
        (report.tests, report.failures, report.errors, report.skipped),
        (suite.tests, suite.failures, suite.errors, suite.skipped)
    );
    // ...are those of its test cases.
    let cases = &suite.cases;
    assert_eq!(cases.len() as u64, suite.tests);
    let count = |f: fn(&junit_parser::TestStatus) -> bool| {
        cases.iter().filter(|c| f(&c.status)).count() as u64
    };
    assert_eq!(count(junit_parser::TestStatus::is_success), printed.passed);
    assert_eq!(count(junit_parser::TestStatus::is_failure), suite.failures);
    assert_eq!(count(junit_parser::TestStatus::is_error), suite.errors);
    assert_eq!(count(junit_parser::TestStatus::is_skipped), suite.skipped);
    let failure = cases.iter().find(|c| c.status.is_failure()).unwrap();
    assert!(
        failure
            .classname
            .as_deref()
            .unwrap()
            .ends_with("wrong.json")
    );
    assert_eq!(failure.original_name, "standard");
    assert_eq!(
        failure.status.failure_as_ref().message,
        "expected unsafe, got safe"
    );
    let error = cases.iter().find(|c| c.status.is_error()).unwrap();
    assert!(error.classname.as_deref().unwrap().ends_with("broken.json"));
    assert_eq!(error.original_name, "load");
    // One case per (model, mode): Peterson's four modes, by name.
    let peterson: Vec<&str> = cases
        .iter()
        .filter(|c| c.classname.as_deref().unwrap().ends_with("/peterson.json"))
        .map(|c| c.original_name.as_str())
        .collect();
    assert_eq!(
        peterson,
        ["standard", "thread-modular", "cartesian-exc", "refine"]
    );
}

#[test]
fn a_single_file_is_a_run_of_its_own() {
    let dir = mixed_folder();
    let one = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (code, text, _) = weft_test(&[&one("peterson.json")]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(text.lines().last(), Some("4 passed, 0 failed"), "{text}");
    let (code, text, _) = weft_test(&[&one("wrong.json")]);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(text.lines().last(), Some("3 passed, 1 failed"), "{text}");
    // A DVE file has no `expect`: loaded, said so, and nothing checked is
    // not a pass.
    let dve =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/beem/dve/peterson.1.dve");
    let (code, text, err) = weft_test(&[dve.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{text}{err}");
    assert!(
        text.starts_with("skip ") && text.contains("no `expect` (a DVE file"),
        "{text}"
    );
    assert_eq!(
        text.lines().last(),
        Some("0 passed, 0 failed, 1 skipped"),
        "{text}"
    );
    assert!(err.contains("nothing to check"), "{err}");
}

#[test]
fn a_timeout_per_run_gives_unknown_which_fails_a_safe_expectation() {
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args(["gen", "lock", "--threads", "30", "--sections", "3"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut model: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // lock(30, 3) is safe but far beyond standard in 0.2 s (bench.rs).
    model["expect"] = serde_json::json!({"standard": "safe", "cartesian-exc": "safe"});
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lock-30-3.json");
    std::fs::write(&file, model.to_string()).unwrap();
    let (code, text, err) = weft_test(&[file.to_str().unwrap(), "--timeout", "0.2"]);
    assert_eq!(code, Some(1), "{text}{err}");
    assert!(
        text.contains("[standard] expected safe, got unknown") && text.contains("budget of"),
        "{text}"
    );
    // Each `unknown` says what to try, as `weft check` does.
    assert!(
        text.contains("\n          next: ") && text.contains("`--timeout`"),
        "{text}"
    );
    // cartesian-exc proves it within the same budget.
    assert!(
        text.contains("ok    ") && text.contains("[cartesian-exc] safe"),
        "{text}"
    );
    assert_eq!(text.lines().last(), Some("1 passed, 1 failed"), "{text}");
}

/// A model that loads with a warning (its start location is a typo)
/// passes, and says so: once, before its first line, in the text, the JSON
/// record and the JUnit report.
#[test]
fn a_load_warning_is_shown_once_and_does_not_fail_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("typo.json");
    std::fs::write(
        &model,
        r#"{"format": "weft/1", "name": "typo",
            "globals": {"x": {"type": "int", "min": 0, "max": 1, "init": 0}},
            "threads": [{"name": "p", "start": "idel",
                "transitions": [{"from": "idle", "to": "done", "do": "x := 1"}]}],
            "properties": [{"name": "e", "error": "x == 1"}],
            "expect": {"standard": "safe", "thread-modular": "safe"}}"#,
    )
    .unwrap();
    let path = model.to_str().unwrap();
    let (code, text, _) = weft_test(&[path]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(text.matches("warning: ").count(), 1, "{text}");
    assert!(
        text.starts_with("warning: ") && text.contains("did you mean `idle`?"),
        "{text}"
    );
    let junit = dir.path().join("j.xml");
    let (code, json, _) =
        weft_test(&[path, "--format", "json", "--junit", junit.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{json}");
    let records: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &serde_json::Value| r.get("summary").is_none())
        .collect();
    let counts: Vec<usize> = records
        .iter()
        .map(|r| r["warnings"].as_array().unwrap().len())
        .collect();
    assert_eq!(counts, [1, 0], "{json}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("<system-err>").count(), 1, "{xml}");
}
