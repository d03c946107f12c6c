//! The output of `weft simulate`: the lines of `weft check` (text, or one
//! JSON object per property with `"mode": "simulate"`), so that a trace
//! reads, and is replayed, as `standard`'s; plus the states where runs got
//! stuck.

use super::json::{obj, outcome_line, stats_object};
use super::text;
use crate::engine::result::{SimulationReport, StuckState};
use serde_json::{Value, json};

impl SimulationReport {
    /// What `weft simulate` prints: a line per property with its trace if
    /// a run reached its error states, the stuck states, the statistics.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "weft: model {}, simulate (seed {})\n",
            self.model, self.seed
        );
        for o in &self.outcomes {
            out.push_str(&text::outcome(o));
            if let Some(n) = &o.next_step {
                out.push_str(&format!("    next: {n}\n"));
            }
        }
        if let Some(runs) = self.stats.count("stuck_runs").filter(|&n| n > 0) {
            out.push_str(&format!(
                "  stuck: {} ended in a state where nothing can move{}:\n",
                crate::words::count(runs, "run"),
                if self.stuck.len() > 1 {
                    format!(" ({} distinct states shown)", self.stuck.len())
                } else {
                    String::new()
                }
            ));
            for s in &self.stuck {
                out.push_str(&format!(
                    "    {} ({})\n",
                    stuck_line(s),
                    crate::words::count(s.runs, "run")
                ));
            }
        }
        out.push_str(&text::stats(&self.stats));
        out
    }

    /// One JSON object per property, as `weft check --format json` (mode
    /// `simulate`), each with `stuck`: the states where runs got stuck.
    pub fn to_json_lines(&self) -> String {
        let stats = stats_object(&self.stats);
        let stuck: Vec<Value> = self
            .stuck
            .iter()
            .map(|s| {
                let locals: serde_json::Map<String, Value> =
                    s.locals.iter().map(|(n, l)| (n.clone(), obj(l))).collect();
                json!({"globals": obj(&s.globals), "locals": locals, "runs": s.runs})
            })
            .collect();
        let mut out = String::new();
        for o in &self.outcomes {
            let mut m = outcome_line(&self.model, "simulate", o, &stats);
            m.insert("stuck".into(), Value::Array(stuck.clone()));
            out.push_str(&Value::Object(m).to_string());
            out.push('\n');
        }
        out
    }
}

/// `x=1 y=0  | p[1]:cs p[2]:wait my=1`.
fn stuck_line(s: &StuckState) -> String {
    let show = |store: &crate::engine::result::Store| {
        store
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}={s}"),
                v => format!("{k}={v}"),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let locals: Vec<String> = s
        .locals
        .iter()
        .map(|(n, l)| format!("{n}:{}", show(l).trim_start_matches("pc=")))
        .collect();
    format!("{}  | {}", show(&s.globals), locals.join(" "))
}
