//! `weft test DIR`: the regression runner. Checks every model in a folder
//! in every mode its `expect` names, one line per (model, mode), and closes
//! with `N passed, N failed`.

use std::path::{Path, PathBuf};
use std::time::Instant;
use weft::{CheckOptions, Model};

/// Why a folder could not be run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RegressError {
    /// The folder cannot be listed.
    #[error("cannot read the folder {}: {source}", dir.display())]
    Unreadable {
        /// The folder.
        dir: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The folder holds no `*.json` file.
    #[error("no model files (*.json) in {}", dir.display())]
    Empty {
        /// The folder.
        dir: PathBuf,
    },
}

/// Runs the folder; returns the printed lines and whether all passed.
pub(crate) fn run_dir(dir: &Path, opts: &CheckOptions) -> Result<(String, bool), RegressError> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|source| RegressError::Unreadable {
            dir: dir.to_path_buf(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("json"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(RegressError::Empty {
            dir: dir.to_path_buf(),
        });
    }
    let (mut out, mut passed, mut failed, mut skipped) = (String::new(), 0, 0, 0);
    for path in &files {
        let shown = path.display();
        let prog = match Model::load(path) {
            Ok(p) => p,
            Err(d) => {
                failed += 1;
                out.push_str(&format!("FAIL  {shown}: does not load: {}\n", d.message));
                continue;
            }
        };
        if prog.expectations().is_empty() {
            skipped += 1;
            out.push_str(&format!("skip  {shown}: no `expect`\n"));
            continue;
        }
        for &(mode, want) in prog.expectations() {
            let start = Instant::now();
            let line = match prog.check(mode, opts) {
                Ok(r) if r.verdict() == want => {
                    passed += 1;
                    format!(
                        "ok    {shown} [{}] {} ({:.3} s)",
                        mode.name(),
                        want.name(),
                        start.elapsed().as_secs_f64()
                    )
                }
                Ok(r) => {
                    failed += 1;
                    let why: Vec<String> = r
                        .outcomes
                        .iter()
                        .map(|o| format!("{}: {}", o.property, o.verdict.name()))
                        .collect();
                    format!(
                        "FAIL  {shown} [{}] expected {}, got {} ({})",
                        mode.name(),
                        want.name(),
                        r.verdict().name(),
                        why.join(", ")
                    )
                }
                Err(e) => {
                    failed += 1;
                    format!(
                        "FAIL  {shown} [{}] expected {}, but the mode refused: {e}",
                        mode.name(),
                        want.name()
                    )
                }
            };
            out.push_str(&line);
            out.push('\n');
        }
    }
    let skip = if skipped > 0 {
        format!(", {skipped} skipped")
    } else {
        String::new()
    };
    out.push_str(&format!("{passed} passed, {failed} failed{skip}\n"));
    Ok((out, failed == 0))
}
