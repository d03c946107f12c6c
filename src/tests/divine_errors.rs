//! DiVinE's error state (`--divine-errors`, program/error_state.rs): a
//! transition that fails at run time leads to one error state (every
//! variable 0, every process at its first state, the first process at a
//! location of its own), which is stored and expanded. The counts are
//! worked out by hand in each test; BEEM's anderson.1 is in tests/beem.rs.

use super::common;
use crate::engine::{self, CheckError, CheckOptions, Mode, Verdict};
use crate::{LoadOptions, Model};
use serde_json::json;

/// P adds one to x (254 at first) for ever; Q moves once, from q0 to q1.
const OVERFLOW: &str = "byte x = 254;\n\
    process P { state a; init a; trans a -> a { effect x = x + 1; }; }\n\
    process Q { state q0, q1; init q0; trans q0 -> q1 {}; }\n\
    system async;";

fn load(src: &str, error: Option<&str>, divine_errors: bool) -> Model {
    let dir = common::temp_dir("divine-errors");
    let path = dir.join(format!("m{}.dve", src.len()));
    std::fs::write(&path, src).unwrap();
    let opts = LoadOptions {
        error: error.map(str::to_string),
        divine_errors,
        ..LoadOptions::default()
    };
    Model::load_with(&path, &opts).unwrap_or_else(|d| panic!("{}", d.render()))
}

fn counts(model: &Model) -> (u64, u64, u64) {
    let r = model
        .check(Mode::Standard, &CheckOptions::default())
        .unwrap();
    let stat = |k: &str| r.stats.get(k).and_then(|v| v.as_u64()).unwrap();
    (stat("states"), stat("transitions"), stat("deadlocks"))
}

#[test]
fn a_failing_assignment_leads_to_the_error_state_which_is_expanded() {
    // Without: x = 254 or 255, Q at q0 or q1: 4 states; P's step from 255
    // fails (no successor). Edges: 2 + 1 + 1 + 0. No deadlock: a state
    // where a step fails is not one.
    assert_eq!(counts(&load(OVERFLOW, None, false)), (4, 4, 0));
    // With: both states with x = 255 lead to the error state E (x = 0,
    // P at `error`, Q at q0), and Q moves on from there to E' (Q at q1):
    // 6 states. Edges: 2 + 2 + 1 + 1 from the four, 1 from E. E', where
    // no process moves, is a deadlock (as DiVinE counts states without
    // successors).
    assert_eq!(counts(&load(OVERFLOW, None, true)), (6, 7, 1));
}

#[test]
fn a_guard_that_fails_to_evaluate_passes_and_leads_to_the_error_state() {
    // DiVinE: "erroneous transitions automatically pass". (s, i = 1),
    // (t, 2), (s, 2); then `a[2]` is out of bounds: without, nothing more;
    // with, the error state (i = 0, P at `error`), where P stays.
    let src = "byte a[2]; byte i = 1;\n\
        process P { state s, t; init s; trans s -> t { guard a[i] == 0; effect i = i + 1; }, t -> s {}; }\n\
        system async;";
    assert_eq!(counts(&load(src, None, false)).0, 3);
    assert_eq!(counts(&load(src, None, true)).0, 4);
}

#[test]
fn a_trace_through_the_error_state_is_shortest_and_replays() {
    // Shortest: P to 255, P fails (into E, Q back at q0), Q to q1: 3 steps
    // (Q first would take 4: E puts Q back at q0).
    let model = load(OVERFLOW, Some("P@error && Q@q1"), true);
    let r = model
        .check(Mode::Standard, &CheckOptions::default())
        .unwrap();
    let o = r.outcome("error").unwrap();
    assert_eq!(o.verdict, Verdict::Unsafe);
    let trace = o.trace.as_ref().unwrap();
    let movers: Vec<&str> = trace.steps.iter().map(|s| s.thread.as_str()).collect();
    assert_eq!(movers, ["P", "P", "Q"]);
    let replayed = model.replay(trace, Some("error")).unwrap();
    assert!(replayed.confirmed(), "{replayed:?}");
    // The same trace does not replay where failing steps have no successor.
    let plain = load(OVERFLOW, Some("Q@q1"), false);
    let replayed = plain.replay(trace, None).unwrap();
    assert!(replayed.failure.is_some_and(|f| f.step == 2));
}

#[test]
fn only_standard_without_reductions_explores_the_error_state() {
    let prog = load(OVERFLOW, None, true).into_program();
    let refused = |mode, opts: CheckOptions| match engine::check(&prog, mode, &opts) {
        // Both ways to have an error state are named: a weft/1 model's
        // user passed no flag to drop.
        Err(CheckError::Unsupported(m)) => assert!(
            m.contains("--divine-errors") && m.contains("`error-state` in a weft/1 model"),
            "{m}"
        ),
        other => panic!("{mode:?} {opts:?}: {:?}", other.map(|r| r.verdict())),
    };
    for mode in [Mode::ThreadModular, Mode::CartesianExc, Mode::Refine] {
        refused(mode, CheckOptions::default());
    }
    let with = |f: fn(&mut CheckOptions)| {
        let mut o = CheckOptions::default();
        f(&mut o);
        o
    };
    refused(Mode::Standard, with(|o| o.por = true));
    refused(Mode::Standard, with(|o| o.symmetry = true));
    refused(Mode::Standard, with(|o| o.blocks = true));
}

/// OVERFLOW written in weft/1 with its error state.
fn weft_model(error_state: serde_json::Value) -> serde_json::Value {
    json!({
        "name": "overflow",
        "globals": {"x": {"type": "int", "min": 0, "max": 255, "init": 254}},
        "threads": [
            {"name": "P", "locations": ["a", "error"], "start": "a",
             "transitions": [{"from": "a", "to": "a", "do": "x := x + 1"}], "final": []},
            {"name": "Q", "start": "q0", "transitions": [{"from": "q0", "to": "q1"}], "final": []}
        ],
        "properties": [{"name": "state-space", "error": "false"}, {"name": "deadlock", "error": "deadlock"}],
        "error-state": error_state
    })
}

#[test]
fn the_error_state_in_weft_1_counts_as_the_translation_does() {
    let prog = common::load_value(&weft_model(json!({"thread": "P", "location": "error"})));
    let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    let stat = |k: &str| r.stats.get(k).and_then(|v| v.as_u64()).unwrap();
    assert_eq!((stat("states"), stat("transitions")), (6, 7));
}

#[test]
fn a_wrong_error_state_is_refused_at_its_place() {
    let refused = |v: serde_json::Value| match crate::model::load_str(&v.to_string(), "m.json", &[])
    {
        Ok(_) => panic!("not refused: {v}"),
        Err(d) => d.render(),
    };
    let e = refused(weft_model(json!({"thread": "R", "location": "error"})));
    assert!(
        e.contains("error-state.thread") && e.contains("no thread `R`"),
        "{e}"
    );
    let e = refused(weft_model(json!({"thread": "P", "location": "a"})));
    assert!(
        e.contains("error-state.location") && e.contains("no transition leaves"),
        "{e}"
    );
    let e = refused(weft_model(json!({"thread": "Q", "location": "q9"})));
    assert!(e.contains("no location `q9`"), "{e}");
    let mut m = weft_model(json!({"thread": "P", "location": "error"}));
    m["globals"]["x"]["min"] = json!(1);
    let e = refused(m);
    assert!(e.contains("outside `x`'s domain 1..255"), "{e}");
}

#[test]
fn a_failing_rendezvous_pairs_as_in_divine() {
    // S sends `a[i]` with i out of bounds; R receives; Q moves once. The
    // pair fails: from both states of Q, into the error state E (S at
    // `error`, R at r0, Q at q0, i = 0), where only Q moves (S is dead, so
    // R never receives). States: 2 + E + E'; edges: 2 + 1 + 1.
    let src = "byte a[1]; byte i = 1; channel c;\n\
        process S { state s0, s1; init s0; trans s0 -> s1 { sync c!a[i]; }; }\n\
        process R { byte v; state r0, r1; init r0; trans r0 -> r1 { sync c?v; }; }\n\
        process Q { state q0, q1; init q0; trans q0 -> q1 {}; }\n\
        system async;";
    assert_eq!(counts(&load(src, None, true)), (4, 4, 1));
    assert_eq!(counts(&load(src, None, false)).0, 2);
    // With no receiver, a failing send is no step at all (DiVinE pairs
    // before it evaluates).
    let alone = src.replace(
        "process R { byte v; state r0, r1; init r0; trans r0 -> r1 { sync c?v; }; }\n",
        "",
    );
    assert_eq!(counts(&load(&alone, None, true)).0, 2);
    // A receive whose guard fails makes every pair on its channel fail:
    // S with R2 too (DiVinE's channel error flag), 2 edges into E, where
    // nothing moves.
    let flagged = "byte a[1]; byte i = 1; channel c;\n\
        process S { state s0, s1; init s0; trans s0 -> s1 { sync c!0; }; }\n\
        process R1 { byte v; state r0, r1; init r0; trans r0 -> r1 { guard a[i] == 0; sync c?v; }; }\n\
        process R2 { byte v; state r0, r1; init r0; trans r0 -> r1 { sync c?v; }; }\n\
        system async;";
    assert_eq!(counts(&load(flagged, None, true)), (2, 2, 1));
    // A trace into the error state through a failing pair replays.
    let model = load(src, Some("S@error && Q@q1"), true);
    let r = model
        .check(Mode::Standard, &CheckOptions::default())
        .unwrap();
    let trace = r.outcome("error").unwrap().trace.as_ref().unwrap();
    assert_eq!(trace.steps.len(), 2);
    assert!(model.replay(trace, Some("error")).unwrap().confirmed());
}
