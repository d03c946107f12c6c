//! The storage and symmetry presets' table: `standard`'s throughput and
//! memory per point (states/s from the engine time, the visited set's bytes
//! per state, peak RSS per state), and under `--symmetry` the concrete
//! states the reduced ones stand for.

use crate::bench::format::{fmt_int, fmt_secs};
use crate::bench::record::Record;
use crate::engine::Mode;
use std::fmt::Write;

/// The presets whose report.md carries this table.
pub(crate) fn wanted(preset: Option<&str>) -> bool {
    matches!(preset, Some("storage" | "symmetry"))
}

/// One row per `standard` point that ran: model, options, jobs, states
/// (and the full count under symmetry), median engine time, states/s,
/// bytes per state of the visited set, peak RSS and RSS per state.
pub(super) fn throughput_table(md: &mut String, recs: &[Record]) {
    let _ = writeln!(
        md,
        "## standard: states per second and bytes per state\n\n\
         States/s is the states stored over the median engine time; store B/state is the visited set's own figure (`bytes_per_state`), RSS/state the whole process's peak over the states.\n"
    );
    let _ = writeln!(
        md,
        "| model | mode | jobs | states | stands for | engine time | states/s | store B/state | peak RSS | RSS B/state |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|");
    for r in recs.iter().filter(|r| r.point.mode == Mode::Standard) {
        let (Some(states), Some(t)) = (r.states, r.time_s) else {
            let _ = writeln!(
                md,
                "| {} | {} | | | | {} | | | | |",
                r.point.model_label(),
                r.point.mode_label(),
                r.status.name()
            );
            continue;
        };
        let full = r
            .stats
            .as_ref()
            .and_then(|s| s.get("full_states"))
            .map(|v| match v.as_u64() {
                Some(n) => fmt_int(n),
                None => v.as_str().unwrap_or("").to_string(),
            })
            .unwrap_or_default();
        let per_state = r
            .stats
            .as_ref()
            .and_then(|s| s.get("bytes_per_state"))
            .and_then(|v| v.as_f64())
            .map(|b| format!("{b:.1}"))
            .unwrap_or_default();
        let rate = if t.median > 0.0 {
            fmt_int((states as f64 / t.median) as u64)
        } else {
            String::new()
        };
        let (rss, rss_per) = match r.peak_memory_bytes {
            Some(b) if states > 0 => (
                format!("{:.0} MiB", b as f64 / (1024.0 * 1024.0)),
                format!("{:.1}", b as f64 / states as f64),
            ),
            _ => (String::new(), String::new()),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.point.model_label(),
            r.point.mode_label(),
            r.jobs.map(|j| j.to_string()).unwrap_or_default(),
            fmt_int(states),
            full,
            fmt_secs(t.median),
            rate,
            per_state,
            rss,
            rss_per
        );
    }
    md.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::grid::{Family, Point, Source};
    use crate::bench::harness::{RunResult, Status};
    use serde_json::json;

    fn rec(n: u32, symmetry: bool, states: u64, time_s: f64, stats: serde_json::Value) -> Record {
        let run = RunResult {
            status: Status::Safe,
            reason: "why".into(),
            time_s: Some(time_s),
            wall_s: time_s + 0.1,
            states: Some(states),
            peak_memory_bytes: Some(200 * 1024 * 1024),
            killed: false,
            stop: None,
            jobs: Some(2),
            stats: Some(stats),
            refused: false,
        };
        let point = Point {
            source: Source::Family(Family::Lock),
            n: Some(n),
            m: Some(3),
            mode: Mode::Standard,
            refine: None,
            symmetry,
        };
        Record::from_runs(point, format!("lock-{n}-3"), &[run], Some(2))
    }

    #[test]
    fn a_row_gives_rate_bytes_and_the_full_count() {
        let recs = vec![
            rec(
                10,
                false,
                16_777_216,
                4.0,
                json!({"bytes_per_state": 11.3, "states": 16_777_216}),
            ),
            rec(
                100,
                true,
                1_207_051,
                0.5,
                json!({"bytes_per_state": 20.0, "full_states": "more than 2^128"}),
            ),
        ];
        let mut md = String::new();
        throughput_table(&mut md, &recs);
        let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| lock")).collect();
        assert_eq!(
            rows[0],
            "| lock(10, 3) | standard | 2 | 16,777,216 |  | 4 | 4,194,304 | 11.3 | 200 MiB | 12.5 |"
        );
        assert_eq!(
            rows[1],
            "| lock(100, 3) | standard --symmetry | 2 | 1,207,051 | more than 2^128 | 0.5 | 2,414,102 | 20.0 | 200 MiB | 173.7 |"
        );
        assert!(wanted(Some("symmetry")) && wanted(Some("storage")) && !wanted(Some("fig4")));
    }
}
