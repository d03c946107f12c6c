//! Counterexample traces: a concrete run from an initial state, step by step,
//! in terms a user recognises (thread instance, transition label, variable
//! values after the step).

use crate::program::Explorer;
use serde_json::{Map, Value};

pub type Vars = Vec<(String, Value)>;

#[derive(Clone, Debug)]
pub struct TraceStep {
    pub thread: String,
    pub transition: String,
    /// Globals after the step.
    pub globals: Vars,
    /// The moving thread's locals after the step, `pc` first.
    pub locals: Vars,
    /// For a rendezvous, the receiving thread: name, transition, locals after.
    pub partner: Option<(String, String, Vars)>,
}

/// One step as ids: moving thread, its transition, the receiver of a
/// rendezvous (thread, transition), and the state after.
pub struct StepIds {
    pub thread: usize,
    pub trans: u32,
    pub partner: Option<(usize, u32)>,
    pub state: StateIds,
}

#[derive(Clone, Debug)]
pub struct Trace {
    pub initial_globals: Vars,
    /// Every thread's initial locals, by instance name.
    pub initial_locals: Vec<(String, Vars)>,
    pub steps: Vec<TraceStep>,
    /// For a run-time model error: what failed in the last state.
    pub failure: Option<String>,
}

/// One concrete state: global store id and one local store id per thread.
pub type StateIds = (u32, Vec<u32>);

impl Trace {
    /// Builds a trace from the initial state and the `(thread, transition,
    /// state after)` steps.
    pub fn build(exp: &Explorer, initial: &StateIds, steps: &[StepIds]) -> Trace {
        let prog = exp.prog;
        let initial_locals = (0..prog.threads.len())
            .map(|t| {
                let tpl = prog.template_of(t);
                (
                    prog.threads[t].name.clone(),
                    tpl.render_local(exp.local(t, initial.1[t])),
                )
            })
            .collect();
        let steps = steps
            .iter()
            .map(|st| {
                let (t, (g, ls)) = (st.thread, &st.state);
                let tpl = prog.template_of(t);
                TraceStep {
                    thread: prog.threads[t].name.clone(),
                    transition: tpl.transitions[st.trans as usize].label.clone(),
                    globals: prog.globals.render(exp.globals.get(*g)),
                    locals: tpl.render_local(exp.local(t, ls[t])),
                    partner: st.partner.map(|(u, tr)| {
                        let tu = prog.template_of(u);
                        (
                            prog.threads[u].name.clone(),
                            tu.transitions[tr as usize].label.clone(),
                            tu.render_local(exp.local(u, ls[u])),
                        )
                    }),
                }
            })
            .collect();
        Trace {
            initial_globals: prog.globals.render(exp.globals.get(initial.0)),
            initial_locals,
            steps,
            failure: None,
        }
    }

    /// The trace's fields of a property's JSON line: `initial` (the
    /// initial state), `trace` (the steps, an array) and, for a model
    /// error, `failure`.
    pub fn json_fields(&self) -> Vec<(String, Value)> {
        let obj = |vars: &Vars| Value::Object(vars.iter().cloned().collect::<Map<_, _>>());
        let initial = serde_json::json!({
            "globals": obj(&self.initial_globals),
            "locals": Value::Object(self.initial_locals.iter().map(|(n, v)| (n.clone(), obj(v))).collect()),
        });
        let steps = self
            .steps
            .iter()
            .map(|s| {
                let mut step = serde_json::json!({
                    "thread": s.thread,
                    "transition": s.transition,
                    "globals": obj(&s.globals),
                    "locals": obj(&s.locals),
                });
                if let Some((t, tr, l)) = &s.partner {
                    step["partner"] =
                        serde_json::json!({"thread": t, "transition": tr, "locals": obj(l)});
                }
                step
            })
            .collect();
        let mut out = vec![
            ("initial".to_string(), initial),
            ("trace".to_string(), Value::Array(steps)),
        ];
        if let Some(f) = &self.failure {
            out.push(("failure".to_string(), Value::String(f.clone())));
        }
        out
    }

    /// Human-readable lines, one per step.
    pub fn to_text(&self) -> String {
        let show = |vars: &Vars| {
            vars.iter()
                .map(|(k, v)| format!("{k}={}", plain(v)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut out = String::new();
        let locals: Vec<String> = self
            .initial_locals
            .iter()
            .map(|(n, v)| format!("{n}:{}", show(v).trim_start_matches("pc=")))
            .collect();
        let width = self
            .steps
            .iter()
            .map(|s| s.thread.len() + s.transition.len() + 3)
            .max()
            .unwrap_or(0)
            .max(13);
        out.push_str(&format!(
            "    0  {:<width$} {}  | {}\n",
            "initial state",
            show(&self.initial_globals),
            locals.join(" ")
        ));
        for (i, s) in self.steps.iter().enumerate() {
            let head = format!("{} {}", s.thread, quote(&s.transition));
            let mut movers = format!(
                "{}: {}",
                s.thread,
                show(&s.locals).trim_start_matches("pc=")
            );
            if let Some((t, tr, l)) = &s.partner {
                movers.push_str(&format!(
                    ", with {t} {}: {}",
                    quote(tr),
                    show(l).trim_start_matches("pc=")
                ));
            }
            out.push_str(&format!(
                "    {:<2} {:<width$} {}  | {movers}\n",
                i + 1,
                head,
                show(&s.globals)
            ));
        }
        if let Some(f) = &self.failure {
            out.push_str(&format!("       then: {f}\n"));
        }
        out
    }
}

fn quote(s: &str) -> String {
    format!("\"{s}\"")
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
