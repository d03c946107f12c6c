//! The output of `weft simulate`: the lines of `weft check` (text, or one
//! JSON object per property with `"mode": "simulate"`), so that a trace
//! reads, and is replayed, as `standard`'s; plus the states where runs
//! could not move, deadlocks (`stuck`) apart from valid end states
//! (`ended`): SPIN's and TLC's users read "stuck" as a deadlock.

use super::json::{obj, outcome_line, stats_object, summary};
use super::text;
use crate::engine::result::{SimulationReport, StuckState};
use serde_json::{Value, json};

impl SimulationReport {
    /// What `weft simulate` prints: a line per property with its trace if
    /// a run reached its error states, the deadlocks and the valid end
    /// states runs ended in, the statistics.
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
        out.push_str(&section(
            "stuck",
            self.stats.count("stuck_runs"),
            "got stuck in a deadlock (nothing can move, some thread rests at a location that is not final)",
            &self.stuck,
        ));
        out.push_str(&section(
            "ended",
            self.stats.count("ended_runs"),
            "ended in a valid end state (nothing can move, every thread rests at a final location)",
            &self.ended,
        ));
        out.push_str(&text::stats(&self.stats));
        out
    }

    /// One JSON object per property, as `weft check --format json` (mode
    /// `simulate`), each with `stuck` and `ended`: the deadlocks and the
    /// valid end states runs ended in; then the summary line, as `weft
    /// check`'s, last.
    pub fn to_json_lines(&self) -> String {
        let stats = stats_object(&self.stats);
        let stuck = states_json(&self.stuck);
        let ended = states_json(&self.ended);
        let mut out = String::new();
        for o in &self.outcomes {
            let mut m = outcome_line(&self.model, "simulate", o, &stats);
            m.insert("stuck".into(), stuck.clone());
            m.insert("ended".into(), ended.clone());
            out.push_str(&Value::Object(m).to_string());
            out.push('\n');
        }
        let verdict = (self.verdict(), self.exit_code());
        let last = summary(&self.model, "simulate", &self.outcomes, verdict, stats);
        out.push_str(&last.to_string());
        out.push('\n');
        out
    }
}

/// `  stuck: 5 runs got stuck in … (2 distinct states shown):` and a line
/// per state; nothing when no run ended so.
fn section(label: &str, runs: Option<u64>, what: &str, states: &[StuckState]) -> String {
    let Some(n) = runs.filter(|&n| n > 0) else {
        return String::new();
    };
    let shown = if states.len() > 1 {
        format!(" ({} distinct states shown)", states.len())
    } else {
        String::new()
    };
    let mut out = format!(
        "  {label}: {} {what}{shown}:\n",
        crate::words::count(n, "run")
    );
    for s in states {
        out.push_str(&format!(
            "    {} ({})\n",
            stuck_line(s),
            crate::words::count(s.runs, "run")
        ));
    }
    out
}

/// `[{"globals", "locals", "runs"}]`, `locals` by instance name.
fn states_json(states: &[StuckState]) -> Value {
    states
        .iter()
        .map(|s| {
            let locals: serde_json::Map<String, Value> =
                s.locals.iter().map(|(n, l)| (n.clone(), obj(l))).collect();
            json!({"globals": obj(&s.globals), "locals": locals, "runs": s.runs})
        })
        .collect()
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
