//! Progress on stderr: an indicatif bar, only for a person watching a
//! terminal. Nothing with `--quiet`, when `CI` is set, or when stderr is not
//! a terminal (a log file, a pipe): there the report is the output.

use super::record::Record;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// How often the bar redraws by itself, so that the elapsed time and the
/// spinner move during a long point.
const TICK: Duration = Duration::from_millis(120);

/// Whether the bench may write progress (and its closing summary) to
/// stderr: not with `--quiet`, not in CI (`CI` set), and only to a terminal.
pub fn shown(quiet: bool) -> bool {
    !quiet && std::env::var_os("CI").is_none() && std::io::stderr().is_terminal()
}

pub(crate) enum Progress {
    Bar(ProgressBar),
    Quiet,
}

impl Progress {
    pub(crate) fn new(total: usize, quiet: bool) -> Progress {
        if !shown(quiet) {
            return Progress::Quiet;
        }
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{spinner} {elapsed_precise} [{bar:30}] {pos}/{len} points  {msg}",
        )
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.enable_steady_tick(TICK);
        Progress::Bar(bar)
    }

    /// A point is about to run.
    pub(crate) fn start(&mut self, label: &str) {
        if let Progress::Bar(b) = self {
            b.set_message(label.to_string());
        }
    }

    /// A point has its record.
    pub(crate) fn done(&mut self, _record: &Record) {
        if let Progress::Bar(b) = self {
            b.inc(1);
        }
    }

    pub(crate) fn finish(self) {
        if let Progress::Bar(b) = self {
            b.finish_and_clear();
        }
    }
}
