//! Helpers shared by the integration tests.
#![allow(dead_code)]

use crate::program::Explorer;
use crate::program::Program;
use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models")
}

/// A fresh folder under the system's temp dir, unique to this test process.
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("weft-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn load(name: &str) -> Program {
    let path = models_dir().join(name);
    crate::model::load_file(&path, &[])
        .map(crate::model::Model::into_program)
        .unwrap_or_else(|d| panic!("{}", d.render()))
}

/// A model file of either front end (weft/1 JSON or DVE), with an optional
/// error property added, compiled; a diagnostic fails the test.
pub fn load_path(path: &Path, error: Option<&str>) -> Program {
    crate::model::load_any(path, &[], error)
        .map(crate::model::Model::into_program)
        .unwrap_or_else(|d| panic!("{}", d.render()))
}

pub fn load_value(v: &serde_json::Value) -> Program {
    crate::model::load_str(&v.to_string(), "generated.json", &[])
        .map(crate::model::Model::into_program)
        .unwrap_or_else(|d| panic!("{}", d.render()))
}

/// A shipped model with its exception set removed.
pub fn without_exceptions(mut p: Program) -> Program {
    p.exceptions.clear();
    p
}

/// Replays a JSON trace against the model: every step must be a real
/// successor by the named thread and transition, leading to exactly the
/// printed values; the last state must violate the property.
pub fn replay(path: &Path, property: &str, extra: &[&str]) {
    let model = path.display().to_string();
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args(["check", path.to_str().unwrap(), "--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{model} should be unsafe");
    let line = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["property"] == property)
        .unwrap_or_else(|| panic!("no result for {property}"));
    assert_eq!(line["verdict"], "unsafe");
    let prog = crate::model::load_file(path, &[])
        .map(crate::model::Model::into_program)
        .unwrap_or_else(|d| panic!("{}", d.render()));
    assert!(!line["trace"].as_array().unwrap().is_empty());
    replay_line(&prog, &line, &model);
}

/// Replays one JSON line's trace (`--format json`) against `prog`, as
/// `replay` does, ending in an error state of the line's property or, for
/// `model-errors`, in a state where a step fails. Returns the explorer and
/// the last state.
pub fn replay_line<'p>(
    prog: &'p Program,
    line: &Value,
    model: &str,
) -> (Explorer<'p>, u32, Vec<u32>) {
    let property = line["property"].as_str().expect("a property");
    let mut exp = Explorer::new(prog);
    let obj = |vars: Vec<(String, Value)>| Value::Object(vars.into_iter().collect());
    // The initial state named by the trace.
    let (mut g, mut ls) = exp
        .initial_states()
        .into_iter()
        .find(|(g, ls)| {
            obj(prog.globals.render(exp.globals.get(*g))) == line["initial"]["globals"]
                && (0..prog.threads.len()).all(|t| {
                    obj(prog.template_of(t).render_local(exp.local(t, ls[t])))
                        == line["initial"]["locals"][&prog.threads[t].name]
                })
        })
        .expect("the trace starts in an initial state");
    let steps = line["trace"].as_array().unwrap();
    for (k, step) in steps.iter().enumerate() {
        // The shape docs/output.md promises: thread, transition, globals and
        // locals (with the pc) as name -> value.
        assert!(
            step["thread"].is_string() && step["transition"].is_string(),
            "{step}"
        );
        assert!(step["globals"].is_object(), "{step}");
        assert!(step["locals"]["pc"].is_string(), "{step}");
        let t = prog
            .threads
            .iter()
            .position(|th| th.name == step["thread"])
            .expect("known thread");
        let tpl = prog.template_of(t);
        if step.get("partner").is_some() {
            (g, ls) = replay_rendezvous(prog, &mut exp, (g, ls), t, step).unwrap_or_else(|| {
                panic!(
                    "{model} step {}: not a rendezvous with these values: {step}",
                    k + 1
                )
            });
            continue;
        }
        let succs = exp.successors(t, g, ls[t]);
        let next = succs
            .steps
            .iter()
            .find(|s| {
                tpl.transitions[s.trans as usize].label == step["transition"]
                    && obj(prog.globals.render(exp.globals.get(s.g))) == step["globals"]
                    && obj(tpl.render_local(exp.local(t, s.l))) == step["locals"]
            })
            .unwrap_or_else(|| {
                panic!(
                    "{model} step {}: not an enabled transition with these values: {step}",
                    k + 1
                )
            });
        g = next.g;
        ls[t] = next.l;
    }
    if property == crate::engine::MODEL_ERRORS {
        // A step fails there, or a property cannot be evaluated there
        // (an index out of bounds in its formula, say).
        let evaluation_fails = prog
            .properties
            .iter()
            .any(|p| crate::property::holds(&p.error, &exp, g, &ls).is_err());
        assert!(
            evaluation_fails
                || (0..prog.threads.len()).any(|t| exp.successors(t, g, ls[t]).error.is_some())
                || exp.sync_steps(g, &ls).1.is_some(),
            "{model}: no step fails and every property evaluates in the last state"
        );
        return (exp, g, ls);
    }
    let p = prog.properties.iter().find(|p| p.name == property).unwrap();
    assert!(
        crate::property::holds(&p.error, &exp, g, &ls).unwrap(),
        "{model}: the last state is not an error state"
    );
    (exp, g, ls)
}

/// Replays one rendezvous step of a JSON trace: sender `t` and the
/// step's `partner` fire the named transitions together and reach exactly
/// the printed values. The state after it, or `None`.
fn replay_rendezvous(
    prog: &Program,
    exp: &mut Explorer,
    (g, ls): (u32, Vec<u32>),
    t: usize,
    step: &Value,
) -> Option<(u32, Vec<u32>)> {
    let obj = |vars: Vec<(String, Value)>| Value::Object(vars.into_iter().collect());
    let partner = &step["partner"];
    let u = prog
        .threads
        .iter()
        .position(|th| th.name == partner["thread"])?;
    let (tt, tu) = (prog.template_of(t), prog.template_of(u));
    let steps = exp.sync_steps(g, &ls).0;
    let st = steps.iter().find(|st| {
        st.sender == t
            && st.receiver == u
            && tt.transitions[st.send_trans as usize].label == step["transition"]
            && tu.transitions[st.recv_trans as usize].label == partner["transition"]
            && obj(prog.globals.render(exp.globals.get(st.g))) == step["globals"]
            && obj(tt.render_local(exp.local(t, st.l_send))) == step["locals"]
            && obj(tu.render_local(exp.local(u, st.l_recv))) == partner["locals"]
    })?;
    let mut next = ls;
    next[t] = st.l_send;
    next[u] = st.l_recv;
    Some((st.g, next))
}

/// The first state `standard` reaches outside the inferred value ranges,
/// described, if any.
pub fn reachable_outside_ranges(prog: &Program) -> Option<String> {
    let ranges = crate::program::ranges::Ranges::infer(prog);
    crate::engine::standard::reachable(prog)
        .unwrap()
        .into_iter()
        .find(|(g, ls)| !ranges.contain(g, ls, prog))
        .map(|(g, ls)| format!("state {g:?} {ls:?} outside {ranges:?}"))
}

/// How many transitions a generated weft/1 model (JSON) has.
pub fn transitions(m: &serde_json::Value) -> usize {
    m["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["transitions"].as_array().unwrap().len())
        .sum()
}
