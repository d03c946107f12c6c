//! Progress on stderr: an indicatif bar when stderr is a terminal (never
//! with `--quiet` or when `CI` is set), one line per point otherwise, and
//! nothing with `--quiet`.

use super::record::Record;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

pub enum Progress {
    Bar(ProgressBar),
    Lines { total: usize, done: usize },
    Quiet,
}

impl Progress {
    pub fn new(total: usize, quiet: bool) -> Progress {
        if quiet {
            return Progress::Quiet;
        }
        if std::io::stderr().is_terminal() && std::env::var_os("CI").is_none() {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} points  {msg}",
            )
            .map(|s| s.progress_chars("=> "))
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            return Progress::Bar(bar);
        }
        Progress::Lines { total, done: 0 }
    }

    /// A point is about to run.
    pub fn start(&mut self, label: &str) {
        if let Progress::Bar(b) = self {
            b.set_message(label.to_string());
        }
    }

    /// A point has its record.
    pub fn done(&mut self, record: &Record) {
        match self {
            Progress::Bar(b) => b.inc(1),
            Progress::Lines { total, done } => {
                *done += 1;
                let time = record
                    .time_s
                    .map(|t| format!(" {:.6} s", t.median))
                    .unwrap_or_default();
                eprintln!(
                    "[{done}/{total}] {}: {}{time}",
                    record.point.label(),
                    record.status.name()
                );
            }
            Progress::Quiet => {}
        }
    }

    pub fn finish(self) {
        if let Progress::Bar(b) = self {
            b.finish_and_clear();
        }
    }
}
