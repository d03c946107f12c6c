//! Running the `weft` binary from the tests in tests/ (shared by the
//! replay, simulate and --max-depth tests).
#![allow(dead_code)]

use assert_cmd::Command;

/// What one run of `weft` gave.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// `weft ARGS…`, run from the repository's root.
pub fn weft(args: &[&str]) -> Run {
    weft_with_env(&[], args)
}

/// `weft ARGS…` with environment variables `env` set.
pub fn weft_with_env(env: &[(&str, &str)], args: &[&str]) -> Run {
    let out = Command::cargo_bin("weft")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .envs(env.iter().copied())
        .args(args)
        .output()
        .unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The JSON Lines of `weft check --format json`, each parsed.
pub fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The model `weft gen ARGS…` prints, written to a scratch file `name`.
pub fn generated(name: &str, args: &[&str]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("weft-gen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let run = weft(&[&["gen"], args].concat());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    std::fs::write(&path, run.stdout).unwrap();
    path
}
