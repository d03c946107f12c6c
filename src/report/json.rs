//! JSON Lines: one object per property, then one summary of the run
//! (docs/output.md).

use super::invariant_json::InvariantJson;
use crate::engine::Verdict;
use crate::engine::result::{
    Derivation, Derived, Outcome, RunReport, Stats, Store, Trace, Witness,
};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

pub(super) fn run(r: &RunReport, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let stats = stats_object(&r.stats);
    // Written once, then copied into every line as it is.
    let invariant = match &r.invariant {
        Some(inv) => Some(serde_json::value::to_raw_value(&InvariantJson(inv))?),
        None => None,
    };
    for o in &r.outcomes {
        let mut m = outcome_line(&r.model, r.mode.name(), o, &stats);
        if let Some(w) = &o.witness {
            m.insert("witness".into(), witness(w));
        }
        let line = LineJson {
            fields: &m,
            invariant: invariant.as_deref(),
        };
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    let verdict = (r.verdict(), r.verdict().exit_code());
    let mut last = summary(&r.model, r.mode.name(), &r.outcomes, verdict, stats);
    if let Some(b) = &r.blocks {
        last["summary"]["blocks"] = serde_json::to_value(b).unwrap_or(Value::Null);
    }
    if let Some(c) = &r.coverage {
        last["summary"]["coverage"] = serde_json::to_value(c).unwrap_or(Value::Null);
    }
    serde_json::to_writer(&mut *out, &last)?;
    out.write_all(b"\n")
}

/// A property's line: its fields, then the invariant's text, if shown.
struct LineJson<'a> {
    fields: &'a Map<String, Value>,
    invariant: Option<&'a RawValue>,
}

impl Serialize for LineJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (k, v) in self.fields {
            m.serialize_entry(k, v)?;
        }
        if let Some(inv) = self.invariant {
            m.serialize_entry("invariant", inv)?;
        }
        m.end()
    }
}

/// The fields of one property's line that every command shares: model,
/// mode, property, verdict, reason, stats, the trace (`null` if none) and
/// the next step (`null` unless the verdict is unknown).
pub(super) fn outcome_line(
    model: &str,
    mode: &str,
    o: &Outcome,
    stats: &Value,
) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("model".into(), json!(model));
    m.insert("mode".into(), json!(mode));
    m.insert("property".into(), json!(o.property));
    m.insert("verdict".into(), json!(o.verdict.name()));
    m.insert("reason".into(), json!(o.reason));
    m.insert("stats".into(), stats.clone());
    match &o.trace {
        Some(t) => m.extend(trace_fields(t)),
        None => {
            m.insert("trace".into(), Value::Null);
        }
    }
    m.insert(
        "next_step".into(),
        o.next_step
            .as_ref()
            .map_or(Value::Null, |n| Value::String(super::next::sentence(n))),
    );
    m
}

/// The statistics as one JSON object.
pub(super) fn stats_object(stats: &Stats) -> Value {
    Value::Object(
        stats
            .entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect::<Map<_, _>>(),
    )
}

/// The last line: the run's verdict and the exit code that reports it,
/// how many properties got each verdict, and the statistics, so that a
/// script needs not combine the lines. Shared by `weft check` and `weft
/// simulate`, whose exit codes for one verdict differ.
pub(super) fn summary(
    model: &str,
    mode: &str,
    outcomes: &[Outcome],
    (verdict, exit_code): (Verdict, i32),
    stats: Value,
) -> Value {
    let count = |v: Verdict| outcomes.iter().filter(|o| o.verdict == v).count();
    json!({
        "summary": {
            "model": model,
            "mode": mode,
            "properties": outcomes.len(),
            "safe": count(Verdict::Safe),
            "unsafe": count(Verdict::Unsafe),
            "unknown": count(Verdict::Unknown),
            "exit_code": exit_code,
            "stats": stats,
        },
        "verdict": verdict.name(),
    })
}

pub(super) fn obj(store: &Store) -> Value {
    Value::Object(store.iter().cloned().collect::<Map<_, _>>())
}

/// The trace's fields of a property's JSON line: `initial` (the initial
/// state), `trace` (the steps, an array) and, for a model error, `failure`.
impl Trace {
    /// The trace as `weft check --format json` writes it (`{"initial",
    /// "trace", "failure"}`, docs/output.md): what [`crate::SavedTrace`]
    /// and `weft replay` read back.
    ///
    /// ```
    /// use weft::{CheckOptions, Mode, Model, SavedTrace};
    /// let model = Model::load("models/bug-ticket-lock.json").unwrap();
    /// let report = model.check(Mode::Standard, &CheckOptions::default()).unwrap();
    /// let trace = report.outcomes[0].trace.as_ref().unwrap();
    /// let text = trace.to_json().to_string();
    /// let saved = SavedTrace::parse(&text, "t.json", Some("mutex")).unwrap();
    /// assert_eq!(&saved.trace, trace);
    /// assert!(model.replay(&saved.trace, Some("mutex")).unwrap().confirmed());
    /// ```
    pub fn to_json(&self) -> Value {
        Value::Object(trace_fields(self).into_iter().collect())
    }
}

fn trace_fields(t: &Trace) -> Vec<(String, Value)> {
    let initial = json!({
        "globals": obj(&t.initial_globals),
        "locals": Value::Object(t.initial_locals.iter().map(|(n, v)| (n.clone(), obj(v))).collect()),
    });
    let steps = t
        .steps
        .iter()
        .map(|s| {
            let mut step = json!({
                "thread": s.thread,
                "transition": s.transition,
                "globals": obj(&s.globals),
                "locals": obj(&s.locals),
            });
            if let Some(p) = &s.partner {
                step["partner"] =
                    json!({"thread": p.thread, "transition": p.transition, "locals": obj(&p.locals)});
            }
            step
        })
        .collect();
    let mut out = vec![
        ("initial".to_string(), initial),
        ("trace".to_string(), Value::Array(steps)),
    ];
    if let Some(f) = &t.failure {
        out.push(("failure".to_string(), Value::String(f.clone())));
    }
    out
}

fn witness(w: &Witness) -> Value {
    json!({
        "globals": obj(&w.globals),
        "threads": w.threads.iter().map(|t| json!({
            "thread": t.thread,
            "locals": obj(&t.local),
            "derivation": t.derivation.iter().map(derivation_line).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// `step "acquire" -> [m=1] cs`: one fact of a derivation.
pub(super) fn derivation_line(d: &Derivation) -> String {
    let here = format!(
        "[{}] {}",
        super::show_global(&d.global),
        super::show_local(&d.local)
    );
    match &d.by {
        Derived::Init => format!("init {here}"),
        Derived::Step(label) => format!("step \"{label}\" -> {here}"),
        Derived::Env(by) => format!("env step of {by} -> {here}"),
        Derived::Exception => format!("in the exception set {here}"),
    }
}
