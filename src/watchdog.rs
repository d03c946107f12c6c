//! `weft check`'s budgets from the first byte read to the last line
//! printed. The loader and the engines check `--timeout` and
//! `--max-memory` themselves and stop with `unknown` and what they found;
//! this thread is the backstop for any phase that cannot (one long library
//! call, a phase that forgot): once the time is over by `TIME_GRACE`, or
//! the resident memory passes the budget by `MEMORY_MARGIN`, it prints an
//! `unknown` naming the phase and exits with code 3, rather than let the
//! run overrun or be killed by the kernel. It stands down once the report
//! is being written.

use std::io::Write;
use std::time::{Duration, Instant};
use weft::{Limit, NextStep, Phase};

/// How long past `--timeout` the engines have to stop by themselves.
pub(crate) const TIME_GRACE: Duration = Duration::from_millis(1500);

/// How long past `--timeout` a search that has stopped has to assemble its
/// result (a trace, statistics) and free its memory: several GiB take a
/// second or two to free.
pub(crate) const FINISHING_GRACE: Duration = Duration::from_secs(10);

/// How far past `--max-memory` (in bytes) the engines may go before the
/// watchdog stops them: their own checks read the memory every 20 ms and
/// stop there, so this is only reached by an allocation burst between
/// two reads.
pub(crate) const MEMORY_MARGIN: u64 = 64 * 1024 * 1024;

/// How often the watchdog looks.
const POLL: Duration = Duration::from_millis(20);

/// What the watchdog guards and how it words a stop.
pub(crate) struct Watch {
    pub(crate) started: Instant,
    pub(crate) timeout: Option<Duration>,
    /// The memory budget in bytes (`--max-memory`, or the engines' default
    /// of 80% of physical memory).
    pub(crate) max_memory_bytes: Option<u64>,
    pub(crate) file: String,
    /// What the text names the run by: `mode standard`, `simulate`.
    pub(crate) heading: String,
    /// The `mode` of a JSON summary: `standard`, `simulate`.
    pub(crate) mode: &'static str,
    pub(crate) json: bool,
}

/// Starts the watchdog thread (nothing to start without a budget).
pub(crate) fn start(w: Watch) {
    if w.timeout.is_none() && w.max_memory_bytes.is_none() {
        return;
    }
    // Without a thread the engines' own checks still hold.
    let _ = std::thread::Builder::new()
        .name("weft-watchdog".into())
        .spawn(move || guard(w));
}

fn guard(w: Watch) {
    loop {
        std::thread::sleep(POLL);
        let phase = weft::phase::current();
        if phase == Phase::Reporting {
            return;
        }
        let grace = match phase {
            Phase::Finishing => FINISHING_GRACE,
            _ => TIME_GRACE,
        };
        if let Some(budget) = w.timeout
            && let Some(limit) = budget.checked_add(grace)
            && w.started.elapsed() >= limit
        {
            stop(
                &w,
                Limit::Time(budget),
                format!(
                    "time budget of {} s exhausted while {}",
                    seconds(budget),
                    phase.describe()
                ),
                phase,
            );
        }
        if let Some(max) = w.max_memory_bytes
            && let Some(rss) = resident_bytes()
            && rss > max.saturating_add(MEMORY_MARGIN)
        {
            stop(
                &w,
                Limit::Memory(max),
                format!(
                    "memory budget of {:.0} MiB exhausted while {} ({:.0} MiB resident)",
                    max as f64 / 1048576.0,
                    phase.describe(),
                    rss as f64 / 1048576.0
                ),
                phase,
            );
        }
    }
}

/// Prints the `unknown` of a run stopped in `phase` and exits with 3.
fn stop(w: &Watch, limit: Limit, reason: String, phase: Phase) -> ! {
    let reason = match phase {
        Phase::Searching | Phase::Simulating | Phase::Finishing => {
            format!("{reason}; the search did not stop by itself, so what it found is lost")
        }
        Phase::Replaying => format!("{reason}; the replay did not finish"),
        _ => format!("{reason}; nothing was checked"),
    };
    print_stopped(&w.file, &w.heading, w.mode, w.json, limit, phase, &reason);
    let _ = std::io::stdout().flush();
    std::process::exit(3)
}

/// The `unknown` report of a run that a budget stopped before any engine
/// could report: text or one JSON summary line, as `--format` says.
pub(crate) fn print_stopped(
    file: &str,
    heading: &str,
    mode: &str,
    json: bool,
    limit: Limit,
    phase: Phase,
    reason: &str,
) {
    let next = NextStep::raise(limit);
    if json {
        let line = weft::serde_json::json!({
            "summary": {
                "model": file,
                "mode": mode,
                "exit_code": 3,
                "phase": phase.name(),
            },
            "verdict": "unknown",
            "reason": reason,
            "next_step": next.to_string(),
        });
        println!("{line}");
    } else {
        println!("weft: model {file}, {heading}");
        println!("  unknown — {reason}");
        println!("    next: {next}");
    }
}

fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s}")
    }
}

/// This process's resident memory (Linux's /proc; elsewhere unknown, and
/// the engines' own checks are all there is).
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: u64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kib * 1024)
}
