//! `weft test DIR`, the regression runner CI uses.

mod common;

use assert_cmd::Command;

#[test]
fn shipped_models_all_pass() {
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args(["test", common::models_dir().to_str().unwrap()])
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
    let dir = common::temp_dir("regress");
    let mut model: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(common::models_dir().join("peterson.json")).unwrap(),
    )
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
        text.lines().last().unwrap().ends_with("2 passed, 1 failed"),
        "{text}"
    );
}
