//! A progress line on stderr for long searches: states, states per second,
//! depth and memory. Shown only on a terminal, never under CI, and only once
//! a run has lasted about a second.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

pub(crate) struct Progress {
    start: Instant,
    enabled: bool,
    bar: Option<ProgressBar>,
}

impl Progress {
    pub(crate) fn new() -> Progress {
        let enabled = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        Progress {
            start: Instant::now(),
            enabled,
            bar: None,
        }
    }

    /// Called every few thousand states.
    pub(crate) fn update(&mut self, states: usize, depth: usize) {
        if !self.enabled {
            return;
        }
        let elapsed = self.start.elapsed();
        if elapsed < Duration::from_secs(1) {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let b = ProgressBar::new_spinner();
            b.set_style(
                ProgressStyle::with_template("{spinner} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        let rate = states as f64 / elapsed.as_secs_f64();
        let mem = crate::sys::current_memory_kib().map_or(String::new(), |k| {
            format!(", memory {:.0} MiB", k as f64 / 1024.0)
        });
        bar.set_message(format!("{states} states ({rate:.0}/s), depth {depth}{mem}"));
    }
}

impl Default for Progress {
    fn default() -> Self {
        Progress::new()
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
