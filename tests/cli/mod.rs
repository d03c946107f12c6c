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
    let out = Command::cargo_bin("weft")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
