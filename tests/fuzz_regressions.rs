//! Replays, on stable Rust, every input the fuzzer ever found a problem
//! with (tests/data/fuzz/TARGET/) and the committed, minimised fuzz corpus
//! (fuzz/corpus/TARGET/) through the fuzz targets' own entry points
//! (fuzz/entries.rs): each must load or be refused with a diagnostic, never
//! panic, overflow the stack or abort. docs/fuzzing.md.
//!
//! Inputs run on a thread with the main thread's default stack (8 MiB), so
//! that unbounded recursion shows as a failure here as it would in `weft`.

#[path = "../fuzz/entries.rs"]
mod entries;

use std::path::{Path, PathBuf};

/// The default stack of a program's main thread on Linux.
const STACK: usize = 8 << 20;

/// Every file under `dir` (recursively), sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Runs `entry` on every input of `target`'s folders; fails naming each
/// input that panicked. Set FUZZ_REPLAY_VERBOSE=1 to see each input's name
/// before it runs (a stack overflow aborts the whole test binary).
fn replay(target: &'static str, entry: fn(&[u8])) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs = files(&root.join("tests/data/fuzz").join(target));
    let findings = inputs.len();
    inputs.extend(files(&root.join("fuzz/corpus").join(target)));
    assert!(
        inputs.len() > findings,
        "no committed corpus in fuzz/corpus/{target}"
    );
    let verbose = std::env::var_os("FUZZ_REPLAY_VERBOSE").is_some();
    let mut failed = Vec::new();
    for path in &inputs {
        let data = std::fs::read(path).unwrap();
        if verbose {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "replaying {}", path.display());
        }
        let run = std::thread::Builder::new()
            .stack_size(STACK)
            .spawn(move || entry(&data))
            .unwrap()
            .join();
        if run.is_err() {
            failed.push(path.display().to_string());
        }
    }
    assert!(
        failed.is_empty(),
        "{target}: {} of {} inputs panicked: {failed:#?}",
        failed.len(),
        inputs.len()
    );
}

#[test]
fn json_model_inputs_load_or_are_refused() {
    replay("json_model", entries::json_model);
}

#[test]
fn expr_inputs_load_or_are_refused() {
    replay("expr", entries::expr);
}

#[test]
fn dve_inputs_load_or_are_refused() {
    replay("dve", entries::dve);
}
