//! Why a bench could not run or write its report. The messages are those
//! `weft bench` prints (each begins with `error:`, except a JSON
//! serialisation error, which is serde_json's own text).

use std::path::PathBuf;

/// Why `weft bench` stopped before or while writing its report.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    // The grid (`Grid::new`).
    /// No model family, file or preset was given.
    #[error("error: give --family, --model FILE or --preset")]
    NoSource,
    /// A family without thread counts.
    #[error("error: --family needs --threads (e.g. --threads 10,20,30)")]
    NoThreads,
    /// A thread count of 0.
    #[error("error: --threads must be at least 1")]
    ZeroThreads,
    /// A section count of 0.
    #[error("error: --sections must be at least 1")]
    ZeroSections,
    /// Sections given for a family other than lock.
    #[error("error: --sections applies to --family lock only")]
    SectionsWithoutLock,

    /// `--only` matched no model of the grid.
    #[error("error: --only {}: no model of the grid matches", only.join(", --only "))]
    NoMatch {
        /// The substrings given.
        only: Vec<String>,
    },

    // The settings (`run`).
    /// A repeat count of 0.
    #[error("error: --repeat must be at least 1")]
    ZeroRepeat,
    /// A timeout that is not a positive number.
    #[error("error: --timeout must be a positive number of seconds")]
    BadTimeout,
    /// A memory budget of 0.
    #[error("error: --max-memory must be at least 1 MiB")]
    ZeroMaxMemory,
    /// A state budget of 0.
    #[error("error: --max-states must be at least 1")]
    ZeroMaxStates,
    /// A job count of 0.
    #[error("error: --jobs must be at least 1")]
    ZeroJobs,

    // Files.
    /// A file or folder of the refine preset cannot be read.
    #[error("error: cannot read {}: {source} (the refine preset reads models/ and tests/data/beem/dve/ of the weft repository; run it from there)", path.display())]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The output folder cannot be created.
    #[error("error: cannot create {}: {source}", path.display())]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A report file cannot be written.
    #[error("error: cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// report.json could not be serialised.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// plotters' error, as text (its type depends on the backend).
    #[error("error: cannot draw {}: {message}", path.display())]
    Draw {
        /// The SVG file.
        path: PathBuf,
        /// plotters' message.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts are those of the `String` errors they replace.
    #[test]
    fn messages() {
        let io = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let cases = [
            (
                BenchError::NoSource,
                "error: give --family, --model FILE or --preset",
            ),
            (
                BenchError::NoThreads,
                "error: --family needs --threads (e.g. --threads 10,20,30)",
            ),
            (
                BenchError::ZeroThreads,
                "error: --threads must be at least 1",
            ),
            (
                BenchError::ZeroSections,
                "error: --sections must be at least 1",
            ),
            (
                BenchError::SectionsWithoutLock,
                "error: --sections applies to --family lock only",
            ),
            (BenchError::ZeroRepeat, "error: --repeat must be at least 1"),
            (
                BenchError::BadTimeout,
                "error: --timeout must be a positive number of seconds",
            ),
            (
                BenchError::ZeroMaxMemory,
                "error: --max-memory must be at least 1 MiB",
            ),
            (
                BenchError::ZeroMaxStates,
                "error: --max-states must be at least 1",
            ),
            (BenchError::ZeroJobs, "error: --jobs must be at least 1"),
            (
                BenchError::NoMatch {
                    only: vec!["x".into(), "y".into()],
                },
                "error: --only x, --only y: no model of the grid matches",
            ),
            (
                BenchError::CreateDir {
                    path: "out/x".into(),
                    source: io(),
                },
                &format!("error: cannot create out/x: {}", io()),
            ),
            (
                BenchError::Write {
                    path: "out/report.md".into(),
                    source: io(),
                },
                &format!("error: cannot write out/report.md: {}", io()),
            ),
            (
                BenchError::Draw {
                    path: "out/t.svg".into(),
                    message: "backend error".into(),
                },
                "error: cannot draw out/t.svg: backend error",
            ),
        ];
        for (e, want) in cases {
            assert_eq!(e.to_string(), want);
        }
        let json = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        let want = json.to_string();
        assert_eq!(BenchError::from(json).to_string(), want);
    }
}
