//! One record per grid point: the repeats of a run folded into a verdict,
//! min/median/max times, states and memory.

use super::grid::Point;
use super::harness::{RunResult, Status, StopCause};
use serde_json::{Value, json};

/// min, median and max of a few measurements.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Spread {
    pub(crate) min: f64,
    pub(crate) median: f64,
    pub(crate) max: f64,
}

impl Spread {
    /// `None` for no values. The median of an even count is the mean of the
    /// middle two.
    pub(crate) fn of(values: &[f64]) -> Option<Spread> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(|a, b| a.total_cmp(b));
        let k = v.len();
        let median = if k % 2 == 1 {
            v[k / 2]
        } else {
            (v[k / 2 - 1] + v[k / 2]) / 2.0
        };
        Some(Spread {
            min: v[0],
            median,
            max: v[k - 1],
        })
    }

    fn to_json(self) -> Value {
        // Microseconds, like `stats.time_s`.
        let r = |x: f64| (x * 1e6).round() / 1e6;
        json!({"min": r(self.min), "median": r(self.median), "max": r(self.max)})
    }
}

/// One point of a bench: its repeats folded into one result.
#[derive(Clone, Debug)]
pub struct Record {
    pub(crate) point: Point,
    /// The model's `name` (e.g. `lock-10-1`).
    pub(crate) model: String,
    pub(crate) status: Status,
    pub(crate) reason: String,
    /// Engine seconds (`stats.time_s`) over the runs that completed.
    pub(crate) time_s: Option<Spread>,
    /// Wall-clock seconds of the child processes (all runs, also those
    /// stopped by a budget).
    pub(crate) wall_s: Option<Spread>,
    /// `stats.states` (on a budget stop: states explored until then).
    pub(crate) states: Option<u64>,
    /// The largest peak resident set over the runs.
    pub(crate) peak_memory_bytes: Option<u64>,
    /// Child processes started for this point.
    pub(crate) runs: u32,
    /// The harness killed a child of this point.
    pub(crate) killed: bool,
    /// Which budget stopped the point (`timeout`, `budget`), or, for a
    /// `skipped` point, the one that stopped the smaller n.
    pub(crate) stop: Option<StopCause>,
    /// Worker threads of the engine: `stats.jobs` of standard's children
    /// (else the `--jobs` passed to them); 1 for the abstract modes, whose
    /// engines are sequential; `None` for a point not run.
    pub(crate) jobs: Option<u64>,
    /// The child's `stats` object (of the run the verdict comes from).
    pub(crate) stats: Option<Value>,
    /// `weft check` refused the check (exit 2): the reason says why.
    pub(crate) refused: bool,
    /// The model's `expect` object (mode name to verdict), if it has one.
    pub(crate) expect: Option<Value>,
}

impl Record {
    /// The point, as `lock(n=10, m=3) standard`.
    pub fn label(&self) -> String {
        self.point.label()
    }

    /// How the point ended.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Why, in one sentence.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// Folds the repeats of one point. The verdict is that of the runs that
    /// completed, if any (a later repeat running out of time is noted in
    /// the reason); otherwise that of the last run.
    /// `jobs` is what the harness passed to standard's children.
    pub(crate) fn from_runs(
        point: Point,
        model: String,
        runs: &[RunResult],
        jobs: Option<u16>,
    ) -> Record {
        let done: Vec<&RunResult> = runs.iter().filter(|r| r.status.completed()).collect();
        let last = runs.last().expect("at least one run");
        let lead = done.first().copied().unwrap_or(last);
        let mut reason = lead.reason.clone();
        if !done.is_empty() && done.len() < runs.len() {
            reason.push_str(&format!(
                " ({} of {} runs ended as {})",
                runs.len() - done.len(),
                runs.len(),
                last.status.name()
            ));
        }
        let times: Vec<f64> = done.iter().filter_map(|r| r.time_s).collect();
        let walls: Vec<f64> = runs.iter().map(|r| r.wall_s).collect();
        let jobs = match point.mode {
            crate::engine::Mode::Standard => {
                runs.iter().find_map(|r| r.jobs).or(jobs.map(u64::from))
            }
            _ => Some(1),
        };
        Record {
            point,
            model,
            status: lead.status,
            reason,
            time_s: Spread::of(&times),
            wall_s: Spread::of(&walls),
            states: lead.states,
            peak_memory_bytes: runs.iter().filter_map(|r| r.peak_memory_bytes).max(),
            runs: runs.len() as u32,
            killed: runs.iter().any(|r| r.killed),
            stop: if lead.status.over_budget() {
                lead.stop
            } else {
                None
            },
            jobs,
            stats: lead.stats.clone(),
            refused: lead.refused,
            expect: None,
        }
    }

    /// The integer statistic `key` of the child (`refinements`,
    /// `exception_products`, `classes`, ...).
    pub(crate) fn stat(&self, key: &str) -> Option<u64> {
        self.stats.as_ref()?.get(key)?.as_u64()
    }

    /// What the model's `expect` says for this point's mode with default
    /// options: its verdict, or the first plain verdict of its list of runs
    /// (a run with options is not the point's run).
    pub(crate) fn expected(&self) -> Option<&str> {
        let entry = self.expect.as_ref()?.get(self.point.mode.name())?;
        match entry.as_array() {
            Some(runs) => runs.iter().find_map(Value::as_str),
            None => entry.as_str(),
        }
    }

    /// A point not run because a smaller n of its curve was over budget
    /// (`why`: the budget that stopped it, if known).
    pub(crate) fn skipped(
        point: Point,
        model: String,
        smaller_n: u32,
        why: Option<StopCause>,
    ) -> Record {
        let what = match why {
            Some(StopCause::Time) => "timed out",
            Some(StopCause::Memory) => "went over the memory budget",
            Some(StopCause::States) => "went over the state budget",
            None => "went over a budget",
        };
        let reason =
            format!("skipped (smaller n {what}): n = {smaller_n} {what}, and larger n need more");
        Record {
            point,
            model,
            status: Status::Skipped,
            reason,
            time_s: None,
            wall_s: None,
            states: None,
            peak_memory_bytes: None,
            runs: 0,
            killed: false,
            stop: why,
            jobs: None,
            stats: None,
            refused: false,
            expect: None,
        }
    }

    /// `timed out`, `went over its memory budget`, ... for a point stopped
    /// (or skipped) by a budget.
    pub(crate) fn stop_phrase(&self) -> &'static str {
        match self.stop {
            Some(c) => c.phrase(),
            None if self.status == Status::Timeout => "timed out",
            None => "went over a budget",
        }
    }

    /// The report.json record.
    pub(crate) fn to_json(&self) -> Value {
        let p = &self.point;
        let mut params = serde_json::Map::new();
        if let Some(n) = p.n {
            params.insert("n".into(), json!(n));
        }
        if let Some(m) = p.m {
            params.insert("m".into(), json!(m));
        }
        json!({
            "family": p.source.family_name(),
            "model": self.model,
            "file": p.source.file().map(|f| f.display().to_string()),
            "error": match &p.source {
                super::grid::Source::WithError { error, .. } => json!(error),
                _ => Value::Null,
            },
            "params": params,
            "mode": p.mode.name(),
            "refine": p.refine.map(super::grid::Strategy::name),
            "verdict": self.status.name(),
            "stop": self.stop.map(StopCause::name),
            "reason": self.reason,
            "time_s": self.time_s.map(Spread::to_json),
            "wall_s": self.wall_s.map(Spread::to_json),
            "states": self.states,
            "peak_memory_bytes": self.peak_memory_bytes,
            "runs": self.runs,
            "jobs": self.jobs,
            "killed_by_harness": self.killed,
            "refused": self.refused,
            "expect": self.expect,
            "stats": self.stats,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_of_odd_and_even_counts() {
        let s = Spread::of(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.min, s.median, s.max), (1.0, 2.0, 3.0));
        let s = Spread::of(&[4.0, 1.0]).unwrap();
        assert_eq!(s.median, 2.5);
        assert!(Spread::of(&[]).is_none());
    }
}
