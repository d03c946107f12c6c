//! A progress line on stderr for long runs: elapsed time, what the engine
//! counts (states, or the abstract engines' thread states and posts) and
//! its rate, the queue of work left, the depth, the memory, and the budget
//! that will stop the run first. Shown only on a terminal, never under CI,
//! once a run has lasted a second, and redrawn at most every 250 ms (the
//! engines may report far more often). The `Budget` owns it, so every
//! engine that checks its budget can report, and a refine run's rounds
//! share one line.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// No line before a run has lasted this long.
const DELAY: Duration = Duration::from_secs(1);
/// At most one redraw per this long.
const INTERVAL: Duration = Duration::from_millis(250);

/// The budgets of the run, as the line shows them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Limits {
    pub(crate) timeout: Option<Duration>,
    /// The budget on `Snapshot::count`.
    pub(crate) count: Option<u64>,
    pub(crate) memory_kib: Option<u64>,
}

/// What an engine reports.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Snapshot {
    /// What the state budget counts for this engine.
    pub(crate) count: u64,
    /// Its name: `states`, `thread states`, `posts`.
    pub(crate) unit: &'static str,
    /// Work not done yet: the frontier, or the worklist.
    pub(crate) queue: usize,
    /// The BFS depth (standard only).
    pub(crate) depth: Option<usize>,
}

pub(crate) struct Progress {
    start: Instant,
    enabled: bool,
    bar: Option<ProgressBar>,
    last: Option<Instant>,
    limits: Limits,
}

impl Progress {
    /// `wanted`: the caller asks for a line (`CheckOptions::progress`).
    pub(crate) fn new(limits: Limits, wanted: bool) -> Progress {
        let enabled = wanted && std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        Progress {
            start: Instant::now(),
            enabled,
            bar: None,
            last: None,
            limits,
        }
    }

    /// Cheap when not due: a clock read.
    pub(crate) fn update(&mut self, s: &Snapshot) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        let elapsed = now.duration_since(self.start);
        if !due(elapsed, self.last.map(|t| now.duration_since(t))) {
            return;
        }
        self.last = Some(now);
        let bar = self.bar.get_or_insert_with(|| {
            let b = ProgressBar::new_spinner();
            b.set_style(
                ProgressStyle::with_template("{spinner} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        let mem = crate::sys::current_memory_kib();
        bar.set_message(line(elapsed, s, mem, &self.limits));
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// Is a redraw due, `elapsed` into the run and `since` the last one?
fn due(elapsed: Duration, since: Option<Duration>) -> bool {
    elapsed >= DELAY && since.is_none_or(|d| d >= INTERVAL)
}

/// `12 s: 4878680 states (406557/s), queue 120345, depth 21, memory 161
/// MiB; first limit: timeout in 8 s`.
fn line(elapsed: Duration, s: &Snapshot, mem_kib: Option<u64>, limits: &Limits) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = s.count as f64 / secs.max(1e-9);
    let mut out = format!(
        "{secs:.0} s: {} {} ({rate:.0}/s), queue {}",
        s.count, s.unit, s.queue
    );
    if let Some(d) = s.depth {
        out.push_str(&format!(", depth {d}"));
    }
    if let Some(k) = mem_kib {
        out.push_str(&format!(", memory {:.0} MiB", k as f64 / 1024.0));
    }
    if let Some(first) = first_limit(elapsed, s, mem_kib, limits) {
        out.push_str(&format!("; first limit: {first}"));
    }
    out
}

/// The budget that will stop the run first: the one most used up (time,
/// states and memory grow together, roughly in proportion).
fn first_limit(
    elapsed: Duration,
    s: &Snapshot,
    mem_kib: Option<u64>,
    limits: &Limits,
) -> Option<String> {
    let mut candidates: Vec<(f64, String)> = Vec::new();
    if let Some(t) = limits.timeout {
        let left = t.saturating_sub(elapsed).as_secs_f64();
        candidates.push((
            elapsed.as_secs_f64() / t.as_secs_f64().max(1e-9),
            format!("timeout in {left:.0} s"),
        ));
    }
    if let Some(max) = limits.count {
        let f = s.count as f64 / max.max(1) as f64;
        candidates.push((f, format!("{} {:.0} % of {max}", s.unit, 100.0 * f)));
    }
    if let (Some(max), Some(cur)) = (limits.memory_kib, mem_kib) {
        let f = cur as f64 / max.max(1) as f64;
        candidates.push((
            f,
            format!(
                "memory {:.0} % of {:.0} MiB",
                100.0 * f,
                max as f64 / 1024.0
            ),
        ));
    }
    candidates
        .into_iter()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, text)| text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNAP: Snapshot = Snapshot {
        count: 400_000,
        unit: "states",
        queue: 1234,
        depth: Some(21),
    };

    fn limits(timeout_s: Option<u64>, count: Option<u64>, memory_mib: Option<u64>) -> Limits {
        Limits {
            timeout: timeout_s.map(Duration::from_secs),
            count,
            memory_kib: memory_mib.map(|m| m * 1024),
        }
    }

    #[test]
    fn no_line_unless_the_caller_asks_for_one() {
        // A library check leaves the embedding program's terminal alone.
        assert!(!Progress::new(Limits::default(), false).enabled);
        assert!(!crate::engine::CheckOptions::default().progress);
    }

    #[test]
    fn the_line_has_time_rate_queue_depth_and_memory() {
        let l = line(
            Duration::from_secs(8),
            &SNAP,
            Some(100 * 1024),
            &Limits::default(),
        );
        assert_eq!(
            l,
            "8 s: 400000 states (50000/s), queue 1234, depth 21, memory 100 MiB"
        );
    }

    #[test]
    fn the_most_used_budget_is_the_first_limit() {
        let at = Duration::from_secs(8);
        let mem = Some(1220 * 1024); // 61 % of 2000 MiB
        // Time: 8 of 20 s is 40 %; memory 61 %: memory stops it first.
        let both = limits(Some(20), None, Some(2000));
        assert_eq!(
            first_limit(at, &SNAP, mem, &both).as_deref(),
            Some("memory 61 % of 2000 MiB")
        );
        // Time: 8 of 10 s is 80 %.
        let short = limits(Some(10), None, Some(2000));
        assert_eq!(
            first_limit(at, &SNAP, mem, &short).as_deref(),
            Some("timeout in 2 s")
        );
        // States: 400000 of 500000 is 80 %, more than 61 %.
        let states = limits(None, Some(500_000), Some(2000));
        assert_eq!(
            first_limit(at, &SNAP, mem, &states).as_deref(),
            Some("states 80 % of 500000")
        );
        assert_eq!(first_limit(at, &SNAP, mem, &Limits::default()), None);
        assert!(line(at, &SNAP, mem, &short).ends_with("; first limit: timeout in 2 s"));
    }

    #[test]
    fn redraws_are_rate_limited() {
        let ms = Duration::from_millis;
        assert!(!due(ms(900), None), "not in the first second");
        assert!(due(ms(1000), None));
        assert!(!due(ms(1100), Some(ms(100))), "not twice in 250 ms");
        assert!(due(ms(1300), Some(ms(250))));
    }
}
