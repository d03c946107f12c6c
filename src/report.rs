//! What a run produced, and its two renderings: text for people, JSON Lines
//! (one object per property, see docs/output.md) for scripts.

use crate::program::{Mode, Verdict};
use crate::trace::Trace;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// The answer for one property.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub property: String,
    pub verdict: Verdict,
    /// One sentence saying why.
    pub reason: String,
    /// A concrete counterexample (`standard`, verdict unsafe).
    pub trace: Option<Trace>,
    /// An abstract witness (abstract modes, verdict unknown).
    pub witness: Option<Witness>,
}

/// An abstract error state and, per thread, how its local state was derived.
#[derive(Clone, Debug)]
pub struct Witness {
    pub globals: Vec<(String, Value)>,
    /// Per thread: instance name, local store (text), derivation lines.
    pub threads: Vec<(String, String, Vec<String>)>,
}

impl Witness {
    fn to_json(&self) -> Value {
        json!({
            "globals": Value::Object(self.globals.iter().cloned().collect()),
            "threads": self.threads.iter().map(|(n, l, d)| json!({"thread": n, "local": l, "derivation": d})).collect::<Vec<_>>(),
        })
    }
    fn to_text(&self) -> String {
        let g: Vec<String> = self
            .globals
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let mut out = format!(
            "    abstract error state: {}  | {}\n",
            g.join(" "),
            self.threads
                .iter()
                .map(|(n, l, _)| format!("{n}:{l}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        for (n, _, d) in &self.threads {
            if !d.is_empty() {
                out.push_str(&format!("    how {n} gets there: {}\n", d.join(" ; ")));
            }
        }
        out
    }
}

/// Engine statistics, in display order.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub entries: Vec<(&'static str, Value)>,
}

impl Stats {
    pub fn push(&mut self, key: &'static str, v: impl Into<Value>) {
        self.entries.push((key, v.into()));
    }
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
    pub fn finish(&mut self, elapsed: Duration) {
        self.push("time_s", (elapsed.as_secs_f64() * 1e6).round() / 1e6);
        if let Some(kb) = peak_memory_kib() {
            self.push("peak_memory_bytes", kb * 1024);
        }
    }
}

/// Peak resident memory of this process, from /proc (Linux); `None` elsewhere.
pub fn peak_memory_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Current resident memory, from /proc (Linux).
pub fn current_memory_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[derive(Clone, Debug)]
pub struct RunReport {
    pub model: String,
    pub mode: Mode,
    pub outcomes: Vec<Outcome>,
    pub stats: Stats,
    /// `--show invariant`: the abstract fixpoint, as JSON and as text.
    pub invariant: Option<(Value, String)>,
}

impl RunReport {
    /// The run's verdict: the worst over its properties.
    pub fn verdict(&self) -> Verdict {
        self.outcomes
            .iter()
            .map(|o| o.verdict)
            .max()
            .unwrap_or(Verdict::Safe)
    }

    /// One JSON object per property (JSON Lines).
    pub fn to_json_lines(&self) -> String {
        let stats = Value::Object(
            self.stats
                .entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect::<Map<_, _>>(),
        );
        let mut out = String::new();
        for o in &self.outcomes {
            let mut m = Map::new();
            m.insert("model".into(), json!(self.model));
            m.insert("mode".into(), json!(self.mode.name()));
            m.insert("property".into(), json!(o.property));
            m.insert("verdict".into(), json!(o.verdict.name()));
            m.insert("reason".into(), json!(o.reason));
            m.insert("stats".into(), stats.clone());
            match &o.trace {
                Some(t) => m.extend(t.json_fields()),
                None => {
                    m.insert("trace".into(), Value::Null);
                }
            }
            if let Some(w) = &o.witness {
                m.insert("witness".into(), w.to_json());
            }
            if let Some((inv, _)) = &self.invariant {
                m.insert("invariant".into(), inv.clone());
            }
            out.push_str(&Value::Object(m).to_string());
            out.push('\n');
        }
        out
    }

    pub fn to_text(&self) -> String {
        let mut out = format!("weft: model {}, mode {}\n", self.model, self.mode.name());
        for o in &self.outcomes {
            let v = match o.verdict {
                Verdict::Safe => "safe",
                Verdict::Unsafe => "UNSAFE",
                Verdict::Unknown => "unknown",
            };
            out.push_str(&format!("  {}: {v} — {}\n", o.property, o.reason));
            if let Some(t) = &o.trace {
                out.push_str(&t.to_text());
            }
            if let Some(w) = &o.witness {
                out.push_str(&w.to_text());
            }
        }
        if let Some((_, text)) = &self.invariant {
            out.push_str(text);
        }
        let stats: Vec<String> = self
            .stats
            .entries
            .iter()
            .map(|(k, v)| match (*k, v.as_u64()) {
                ("peak_memory_bytes", Some(b)) => {
                    format!("peak memory {:.1} MiB", b as f64 / 1048576.0)
                }
                ("time_s", _) => format!("time {v} s"),
                _ => format!("{} {v}", k.replace('_', " ")),
            })
            .collect();
        out.push_str(&format!("  stats: {}\n", stats.join(", ")));
        out
    }
}
