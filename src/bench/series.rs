//! The curves of a bench: one per (source, m, mode), with the points that
//! have a time and the first n that ran out of budget. time_vs_threads.svg
//! draws them and report.md lists the points they leave out.

use super::grid::{SeriesKey, Source};
use super::harness::Status;
use super::record::Record;
use crate::engine::Mode;

/// One curve: its label and its (n, median seconds) points.
pub(crate) struct Series {
    pub(crate) key: SeriesKey,
    pub(crate) label: String,
    pub(crate) points: Vec<(i64, f64)>,
    /// The smallest n that timed out or went over its budget, if any: drawn
    /// at the per-run timeout.
    pub(crate) over: Option<i64>,
}

/// The curves of a set of records, one per (source, m, mode), also when no
/// point of it has a time; grouped by mode (in the order the modes first
/// appear), then in record order.
pub(crate) fn series(records: &[Record]) -> Vec<Series> {
    let lock_only = records
        .iter()
        .all(|r| r.point.source == Source::Family(super::grid::Family::Lock));
    let mut out: Vec<Series> = Vec::new();
    for r in records {
        let key = r.point.series();
        let i = match out.iter().position(|s| s.key == key) {
            Some(i) => i,
            None => {
                out.push(Series {
                    label: String::new(),
                    key,
                    points: Vec::new(),
                    over: None,
                });
                out.len() - 1
            }
        };
        if let (Some(n), Some(t)) = (r.point.n, r.time_s)
            && r.status.completed()
            && t.median > 0.0
        {
            out[i].points.push((n as i64, t.median));
        }
    }
    let mut modes: Vec<Mode> = Vec::new();
    for s in &out {
        if !modes.contains(&s.key.mode) {
            modes.push(s.key.mode);
        }
    }
    // A stable sort keeps record order within a mode.
    out.sort_by_key(|s| modes.iter().position(|&m| m == s.key.mode));
    for s in &mut out {
        let of: Vec<&Record> = records
            .iter()
            .filter(|r| r.point.series() == s.key)
            .collect();
        let mut label = series_label(&s.key, lock_only);
        let first_over = of
            .iter()
            .filter(|r| r.status.over_budget() && r.point.n.is_some())
            .min_by_key(|r| r.point.n);
        if let Some(r) = first_over {
            s.over = r.point.n.map(i64::from);
            label.push_str(&format!(
                " ({} from n = {})",
                r.stop_phrase(),
                r.point.n.unwrap_or(0)
            ));
        } else if s.points.is_empty() {
            label.push_str(" (no point finished)");
        } else if of
            .iter()
            .all(|r| !r.status.completed() || r.status == Status::Unknown)
        {
            label.push_str(" (unknown)");
        }
        s.label = label;
    }
    out
}

/// `cartesian-exc, m = 3` (lock only grids), else with the source named.
pub(crate) fn series_label(key: &SeriesKey, lock_only: bool) -> String {
    let mut mode = super::grid::mode_label(key.mode, key.refine);
    if key.symmetry {
        mode.push_str(" --symmetry");
    }
    match (&key.source, key.m) {
        (Source::Family(_), Some(m)) if lock_only => format!("{mode}, m = {m}"),
        (src, Some(m)) => format!("{mode}, {} m = {m}", src.label()),
        (src, None) => format!("{mode}, {}", src.label()),
    }
}
