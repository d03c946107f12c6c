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
