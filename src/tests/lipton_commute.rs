//! The semantic commutation check of `--blocks` (engine/lipton/commute.rs):
//! a syntactic race between transitions that commute wherever both can be
//! taken does not make them non-movers, and a race between transitions
//! that do not commute still does. The classes and Out sets are worked out
//! by hand; the differential tests of tests/lipton.rs cover its soundness
//! on generated models (with races the check lifts and races it keeps).

use super::common;
use crate::engine::{self, CheckOptions, Mode, Verdict};
use crate::program::Program;
use serde_json::{Value, json};

/// Two threads, of one template (`second` none) or of two: each takes its
/// `steps` in a row (each a `do` on the globals `c`, `d`, under no lock)
/// from L0 and ends. The property reads only `z`, which nothing writes, so
/// no step is visible to it.
fn model(first: &[&str], second: Option<&[&str]>) -> Program {
    let thread = |name: &str, count: u32, steps: &[&str]| -> Value {
        let trs: Vec<Value> = steps
            .iter()
            .enumerate()
            .map(|(i, s)| json!({"from": format!("L{i}"), "to": format!("L{}", i + 1), "do": s}))
            .collect();
        json!({"name": name, "count": count, "start": "L0", "transitions": trs})
    };
    let threads = match second {
        None => vec![thread("T", 2, first)],
        Some(s) => vec![thread("T", 1, first), thread("U", 1, s)],
    };
    common::load_value(&json!({
        "name": "commute",
        "globals": {
            "c": {"type": "int", "min": 0, "max": 3, "init": 0},
            "d": {"type": "int", "min": 0, "max": 3, "init": 0},
            "z": {"type": "int", "min": 0, "max": 1, "init": 0}
        },
        "threads": threads,
        "properties": [{"name": "never", "error": "z == 1"}]
    }))
}

/// (mover, why) per transition of template `t`, and its Out locations.
fn blocks(prog: &Program, t: usize) -> (Vec<(String, Option<String>)>, Vec<String>) {
    let report = engine::lipton::infer(prog, &[0]).unwrap().report(prog);
    let tpl = &report.templates[t];
    let movers = tpl
        .transitions
        .iter()
        .map(|tr| (tr.mover.clone(), tr.why.clone()))
        .collect();
    let out = tpl
        .locations
        .iter()
        .filter(|l| !l.inside)
        .map(|l| l.name.clone())
        .collect();
    (movers, out)
}

#[test]
fn increments_race_but_commute_so_the_block_spans_both() {
    // `c := c + 1` by two threads: a race by the syntactic rule (a common
    // global, both writing, no lock); but c + 2 either way, from every
    // state. So both increments are both-movers, and L1 is inside a block
    // (pre-commit, reached by a both-mover). By the race rule alone each
    // increment is a non-mover, the first one the block's commit, and the
    // second cannot follow it in the same block: L1 would be Out.
    let prog = model(&["c := (c + 1) % 4", "d := (d + 1) % 4"], None);
    let (movers, out) = blocks(&prog, 0);
    let kinds: Vec<&str> = movers.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(kinds, ["bm", "bm"]);
    let why = movers[0].1.as_deref().unwrap_or_default();
    assert!(
        why.contains("races with T's `L0->L1`") && why.contains("semantic check"),
        "{why}"
    );
    assert_eq!(out, ["L0", "L2"]);
    // The verdict is the same, in fewer states.
    let run = |blocks| {
        let opts = CheckOptions {
            blocks,
            ..CheckOptions::default()
        };
        let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
        (
            r.verdict(),
            r.stats.get("states").and_then(|v| v.as_u64()).unwrap(),
        )
    };
    let (full, reduced) = (run(false), run(true));
    assert_eq!((full.0, reduced.0), (Verdict::Safe, Verdict::Safe));
    assert!(reduced.1 < full.1, "{reduced:?} against {full:?}");
}

#[test]
fn races_that_do_not_commute_stay_non_movers() {
    // An increment against a doubling: (c + 1) * 2 is not c * 2 + 1.
    let prog = model(&["c := (c + 1) % 4"], Some(&["c := (2 * c) % 4"]));
    let (movers, _) = blocks(&prog, 0);
    assert_eq!(movers[0].0, "nm");
    let why = movers[0].1.as_deref().unwrap_or_default();
    assert!(!why.contains("semantic"), "{why}");
    // A write against a read of it: `d := c` copies 0 or 1 by the order.
    let prog = model(&["c := 1"], Some(&["d := c"]));
    let (movers, _) = blocks(&prog, 1);
    assert_eq!(movers[0].0, "nm", "{movers:?}");
    // Two writes of one value commute (either order leaves c = 1).
    let prog = model(&["c := 1"], Some(&["c := 1"]));
    assert_eq!(blocks(&prog, 0).0[0].0, "bm");
}

#[test]
fn a_race_with_a_rendezvous_is_never_lifted() {
    // T sets x then z; U sends x to W. The send reads x, so T's `x := 1`
    // races with it; on the global store alone both orders agree, but the
    // rendezvous also moves W, whose y tells them apart. The error needs
    // the rendezvous between T's two steps: `--blocks` must keep that
    // interleaving, so `x := 1` stays a non-mover.
    let m = json!({
        "name": "send-race",
        "globals": {
            "x": {"type": "int", "min": 0, "max": 1, "init": 0},
            "z": {"type": "int", "min": 0, "max": 1, "init": 0}
        },
        "channels": ["c"],
        "threads": [
            {"name": "T", "start": "L0", "transitions": [
                {"from": "L0", "to": "L1", "do": "x := 1"},
                {"from": "L1", "to": "L2", "do": "z := 1"}]},
            {"name": "U", "start": "s0", "transitions": [
                {"from": "s0", "to": "s1", "sync": "c!x"}]},
            {"name": "W", "start": "r0",
             "locals": {"y": {"type": "int", "min": 0, "max": 1, "init": 0}},
             "transitions": [{"from": "r0", "to": "r1", "sync": "c?y"}]}
        ],
        "properties": [{"name": "between", "error": "W.y == 1 && z == 0"}]
    });
    let prog = common::load_value(&m);
    let (movers, _) = blocks(&prog, 0);
    assert_eq!(movers[0].0, "nm", "{movers:?}");
    for blocks in [false, true] {
        let opts = CheckOptions {
            blocks,
            ..CheckOptions::default()
        };
        let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
        assert_eq!(r.verdict(), Verdict::Unsafe, "--blocks {blocks}");
    }
}
