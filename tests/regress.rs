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
