//! `--blocks` (engine/lipton, program/blocks.rs, program/locks.rs): Lipton
//! reduction never changes a `standard` verdict (generated models with
//! locks, races, loops, properties over globals, locations and locals, and
//! every shipped model), `thread-modular --blocks` never proves an
//! unreachable-error claim false, traces replay; and the paper's goldens:
//! P1-1's mover classes and Out sets as Popeea, Rybalchenko and Wilhelm
//! print them (§V, Examples 3–5), the spurious alarm of plain
//! thread-modular on P1-1 and the proofs with blocks, P1-x's counts.

use super::common;
use crate::engine::lipton::Mover;
use crate::engine::{self, CheckOptions, Mode, Verdict};
use crate::program::Program;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::{Value, json};

fn opts(blocks: bool) -> CheckOptions {
    CheckOptions {
        blocks,
        keep_going: true,
        jobs: Some(2),
        ..CheckOptions::default()
    }
}

/// `standard` with and without `--blocks` (whole state spaces, so every
/// property and model errors are decided): the same verdicts, no more
/// states with blocks, unsafe traces that replay; `thread-modular
/// --blocks` never `safe` where standard is `unsafe`. Returns the state
/// counts (full, blocks).
fn agree(prog: &Program) -> Result<(u64, u64), TestCaseError> {
    let full = engine::check(prog, Mode::Standard, &opts(false)).unwrap();
    let reduced = engine::check(prog, Mode::Standard, &opts(true)).unwrap();
    for (a, b) in full.outcomes.iter().zip(&reduced.outcomes) {
        prop_assert_eq!(&a.property, &b.property);
        prop_assert_eq!(
            a.verdict,
            b.verdict,
            "{}: {} / {}",
            a.property,
            a.reason,
            b.reason
        );
        if b.verdict == Verdict::Unsafe {
            prop_assert!(
                b.reason.contains("shortest in whole blocks"),
                "{}: {}",
                b.property,
                b.reason
            );
        }
    }
    let (f, r) = (
        full.stats.count("states").unwrap_or(0),
        reduced.stats.count("states").unwrap_or(0),
    );
    prop_assert!(r <= f, "{} states with blocks, {} without", r, f);
    for line in reduced.to_json_lines().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["verdict"] == "unsafe" && v.get("property").is_some() {
            common::replay_line(prog, &v, &prog.name);
        }
    }
    let tm = CheckOptions {
        blocks: true,
        ..CheckOptions::default()
    };
    let abs = engine::check(prog, Mode::ThreadModular, &tm).unwrap();
    for (a, b) in full.outcomes.iter().zip(&abs.outcomes) {
        prop_assert!(b.verdict != Verdict::Unsafe, "thread-modular said unsafe");
        if a.verdict == Verdict::Unsafe {
            prop_assert!(
                b.verdict != Verdict::Safe,
                "{}: thread-modular --blocks proved a reachable error unreachable",
                a.property
            );
        }
    }
    Ok((f, r))
}

/// One statement of a generated thread: on the shared `g0`, `g1` (raced or
/// protected, as it falls), on the thread's own local `k`, or a guard.
const STMTS: &[(&str, &str)] = &[
    ("", "k := 1 - k"),
    ("", "g0 := (g0 + 1) % 3"),
    ("", "g1 := k"),
    ("g0 != 2", "g1 := (g1 + 1) % 3"),
    ("k == 0", "g0 := g1"),
    ("g1 == 0", ""),
    ("", "k := g0 % 2"),
    ("", "g0 := 2 / (g1 + 1)"),
    ("", "g1 := 3 - g1"), // out of range when g1 == 0: a model error
    // On `g2`, which no property reads: races the semantic check decides
    // (increments commute; a guarded reset or a read into `k` does not).
    ("", "g2 := (g2 + 1) % 3"),
    ("g2 != 1", "g2 := 0"),
    ("", "k := g2 % 2"),
];
const ERRORS: &[&str] = &[
    "g0 == 2 && g1 == 2",
    "g0 == 1 && t0@L3",
    "t0@L4 && t1@L4 && g1 == 1",
    "t1.k == 1 && g0 == 0",
    "count(*: @L2) >= 2",
    "(t0@L2 && g1 == 1) || (t1@L5 && g0 == 1)",
    "m0 == 1 && g0 == 2",
];

/// A thread: a sequence of segments from `L0`, each a statement or a
/// critical section (acquire m, statements, release m; sometimes the other
/// lock nested inside), then a loop back to `L0` or an end; the lock
/// discipline holds by construction.
fn thread(segments: &[(u8, Vec<usize>)], loops: bool, i: usize) -> Value {
    let mut trs = Vec::new();
    let mut at = 0;
    let mut step = |when: &str, act: &str, trs: &mut Vec<Value>| {
        let mut t = json!({"from": format!("L{at}"), "to": format!("L{}", at + 1)});
        if !when.is_empty() {
            t["when"] = json!(when);
        }
        if !act.is_empty() {
            t["do"] = json!(act);
        }
        trs.push(t);
        at += 1;
    };
    for (kind, stmts) in segments {
        let lock = |k: u8| format!("m{}", k % 2);
        match kind {
            0 => {
                for &s in stmts {
                    step(STMTS[s].0, STMTS[s].1, &mut trs);
                }
            }
            1 | 2 => {
                let m = lock(*kind + i as u8);
                step(&format!("{m} == 0"), &format!("{m} := 1"), &mut trs);
                for &s in stmts {
                    step(STMTS[s].0, STMTS[s].1, &mut trs);
                }
                step("", &format!("{m} := 0"), &mut trs);
            }
            _ => {
                let (a, b) = (lock(0), lock(1));
                step(&format!("{a} == 0"), &format!("{a} := 1"), &mut trs);
                step(&format!("{b} == 0"), &format!("{b} := 1"), &mut trs);
                for &s in stmts {
                    step(STMTS[s].0, STMTS[s].1, &mut trs);
                }
                step("", &format!("{b} := 0"), &mut trs);
                step("", &format!("{a} := 0"), &mut trs);
            }
        }
    }
    if loops {
        trs.push(json!({"from": format!("L{at}"), "to": "L0", "when": "k == 0"}));
    }
    json!({
        "name": format!("t{i}"),
        "start": "L0",
        "locations": (0..=24).map(|l| format!("L{l}")).collect::<Vec<_>>(),
        "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "transitions": trs,
    })
}

fn lock_model() -> impl Strategy<Value = Value> {
    let segment = (0..4u8, proptest::collection::vec(0..STMTS.len(), 1..3));
    let thread_s = (proptest::collection::vec(segment, 1..4), any::<bool>());
    (
        proptest::collection::vec(thread_s, 2..=3),
        0..ERRORS.len(),
        any::<bool>(),
    )
        .prop_map(|(ts, e, two)| {
            let threads: Vec<Value> = ts
                .iter()
                .enumerate()
                .map(|(i, (segs, loops))| thread(segs, *loops, i))
                .collect();
            let mut threads = threads;
            if two {
                // Two instances of one template: races between them.
                threads[0]["count"] = json!(2);
            }
            let error = if two {
                ERRORS[e].replace("t0@", "t0[1]@")
            } else {
                ERRORS[e].to_string()
            };
            json!({
                "name": "locks",
                "globals": {
                    "g0": {"type": "int", "min": 0, "max": 2, "init": 0},
                    "g1": {"type": "int", "min": 0, "max": 2, "init": 0},
                    "g2": {"type": "int", "min": 0, "max": 2, "init": 0},
                    "m0": {"type": "int", "min": 0, "max": 1, "init": 0, "lock": true},
                    "m1": {"type": "bool", "init": false, "lock": true},
                },
                "threads": threads,
                "properties": [{"name": "bad", "error": error}],
            })
        })
}

/// `m1` is a bool: the generator writes every lock as an int, and its
/// tests and writes are rewritten here.
fn with_bool_lock(m: &Value) -> Program {
    let text = m
        .to_string()
        .replace("m1 == 0", "!m1")
        .replace("m1 := 1", "m1 := true")
        .replace("m1 := 0", "m1 := false");
    common::load_value(&serde_json::from_str(&text).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    #[test]
    fn blocks_keep_every_verdict_of_generated_models_with_locks(m in lock_model()) {
        agree(&with_bool_lock(&m))?;
    }
}

/// The generator makes models the reduction bites on, and models with
/// reachable errors (so both verdicts are compared).
#[test]
fn generated_lock_models_are_reduced_and_some_are_unsafe() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut reduced, mut unsafe_, mut lifted, n) = (0, 0, 0, 100);
    for _ in 0..n {
        let m = lock_model().new_tree(&mut runner).unwrap().current();
        let prog = with_bool_lock(&m);
        let (f, r) = agree(&prog).unwrap();
        reduced += (r < f) as usize;
        let blocks = crate::engine::lipton::infer(&prog, &[0]).unwrap();
        lifted += blocks.templates.iter().any(|t| {
            t.movers
                .iter()
                .any(|(m, why)| *m != Mover::Non && why.is_some())
        }) as usize;
        let full = engine::check(&prog, Mode::Standard, &opts(false)).unwrap();
        unsafe_ += (full.outcome("bad").unwrap().verdict == Verdict::Unsafe) as usize;
    }
    assert!(reduced >= n / 2, "{reduced} of {n} reduced");
    // The semantic commutation check lifts a race in some of them, so the
    // differential test above covers it.
    assert!(lifted >= n / 10, "a race lifted in {lifted} of {n}");
    eprintln!("reduced {reduced}, unsafe {unsafe_}, lifted {lifted} of {n}");
    assert!(
        unsafe_ >= n / 10 && unsafe_ <= n * 9 / 10,
        "{unsafe_} of {n} unsafe"
    );
}

#[test]
fn blocks_keep_every_verdict_of_the_shipped_models() {
    let mut reduced = 0;
    for entry in std::fs::read_dir(common::models_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let mut prog = common::load_path(&path, None);
        if prog.scheduler.is_some() {
            continue; // refused: macro-steps are blocks already
        }
        // Deadlocks are refused under --blocks; the other properties.
        prog.properties.retain(|p| !p.only_in_deadlocks);
        if prog.properties.is_empty() {
            continue;
        }
        let (f, r) = agree(&prog).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        reduced += (r < f) as usize;
    }
    assert!(reduced >= 10, "only {reduced} shipped models reduced");
}

/// P1-1 exactly as Fig. 1: the paper's Example 4 (mover classes of
/// thread-1), Example 3 (`lh_1(ℓ3) = {mx, my}`), Example 5 (Out sets of
/// the three threads). The paper's Σ2 prints ℓ6 in the pre-commit phase;
/// its own rules put it in the post-commit phase (ℓ5 → ℓ6 is a both-mover
/// from the post-commit ℓ5), which is also what makes ℓ6 Out as its Out_1
/// says: weft follows the rules.
#[test]
fn p1_1_blocks_are_the_papers() {
    let prog = common::load("p1-1.json");
    let props: Vec<usize> = (0..prog.properties.len()).collect();
    let b = crate::engine::lipton::infer(&prog, &props).unwrap();
    let report = b.report(&prog);
    let pairs = |t: usize, class: &str| -> Vec<(String, String)> {
        report.templates[t]
            .transitions
            .iter()
            .filter(|tr| tr.mover == class)
            .map(|tr| (tr.from.join(","), tr.to.clone()))
            .collect()
    };
    let ls = |v: &[(u32, u32)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (format!("l{a}"), format!("l{b}")))
            .collect()
    };
    assert_eq!(pairs(0, "rm"), ls(&[(0, 1), (2, 3), (6, 7)]));
    assert_eq!(pairs(0, "lm"), ls(&[(4, 5), (8, 9), (10, 11)]));
    assert_eq!(pairs(0, "nm"), ls(&[]));
    assert_eq!(
        pairs(0, "bm"),
        ls(&[(1, 2), (3, 4), (5, 6), (7, 8), (9, 10)])
    );
    let l3 = &report.templates[0].locations[3];
    assert_eq!(l3.held, ["mx", "my"]);
    let out = |t: usize| -> Vec<&str> {
        report.templates[t]
            .locations
            .iter()
            .filter(|l| !l.inside)
            .map(|l| l.name.as_str())
            .collect()
    };
    assert_eq!(out(0), ["l0", "l6", "l11"]);
    assert_eq!(out(1), ["l0", "l3"]);
    assert_eq!(out(2), ["l0", "l3"]);
    // Σ2 by the rules: ℓ0–ℓ4 and ℓ7, ℓ8 pre-commit, the others post.
    let phases: Vec<&str> = report.templates[0]
        .locations
        .iter()
        .map(|l| l.phases[0].as_str())
        .collect();
    assert_eq!(
        phases,
        [
            "pre", "pre", "pre", "pre", "pre", "post", "post", "pre", "pre", "post", "post", "post"
        ]
    );
}

/// Plain thread-modular with 0/1 locks raises a spurious alarm on P1-1
/// (it cannot tell which thread holds `mx`, so thread-2's `x = x + 2`
/// interferes inside thread-1's block); with blocks, R holds Out locations
/// only and G whole blocks, and it proves P1-x for x = 1, 5, 10, 50, whose
/// blocks also keep `standard` to at most a third of its states.
#[test]
fn p1_x_thread_modular_alarms_without_blocks_and_proves_with_them() {
    let p1 = common::load("p1-1.json");
    let plain = engine::check(&p1, Mode::ThreadModular, &CheckOptions::default()).unwrap();
    assert_eq!(plain.outcome("x-end").unwrap().verdict, Verdict::Unknown);
    for x in [1, 5, 10, 50] {
        let prog = common::load_value(&crate::families::p1(x, false));
        let tm = CheckOptions {
            blocks: true,
            ..CheckOptions::default()
        };
        let proved = engine::check(&prog, Mode::ThreadModular, &tm).unwrap();
        assert_eq!(proved.verdict(), Verdict::Safe, "P1-{x}");
        let full = engine::check(&prog, Mode::Standard, &opts(false)).unwrap();
        let reduced = engine::check(&prog, Mode::Standard, &opts(true)).unwrap();
        assert_eq!(full.verdict(), Verdict::Safe);
        assert_eq!(reduced.verdict(), Verdict::Safe);
        let (f, r) = (
            full.stats.count("states").unwrap(),
            reduced.stats.count("states").unwrap(),
        );
        assert!(3 * r <= f, "P1-{x}: {r} states with blocks, {f} without");
    }
}

/// The other families: the stack's underflow found with blocks too (its
/// trace replays), P2's race keeps blocks apart, philosophers proved.
#[test]
fn stack_p2_and_philosophers_agree_with_and_without_blocks() {
    for m in [
        crate::families::stack(4, false),
        crate::families::stack(4, true),
        crate::families::p1(2, true),
        crate::families::philosophers(4),
    ] {
        let prog = common::load_value(&m);
        agree(&prog).unwrap();
    }
    let bug = engine::check(
        &common::load_value(&crate::families::stack(4, true)),
        Mode::Standard,
        &opts(true),
    )
    .unwrap();
    assert_eq!(bug.outcome("underflow").unwrap().verdict, Verdict::Unsafe);
}

/// Lock misuse is a load error naming the transition; deadlocks,
/// cooperative models, other modes and other reductions are refused.
#[test]
fn misuse_and_refusals_are_clear() {
    let model = |t1: Value| {
        json!({
            "name": "misuse",
            "globals": {"m": {"type": "int", "min": 0, "max": 1, "lock": true}, "x": {"type": "int", "min": 0, "max": 1}},
            "threads": [{"name": "t", "start": "a", "transitions": [t1]}],
            "properties": [{"name": "p", "error": "x == 1"}],
        })
    };
    let load = |v: Value| crate::model::load_str(&v.to_string(), "misuse.json", &[]);
    for (t, says) in [
        (
            json!({"from": "a", "to": "b", "do": "m := 0"}),
            "may not hold it",
        ),
        (
            json!({"from": "a", "to": "b", "do": "m := 1"}),
            "without testing it",
        ),
        (
            json!({"from": "a", "to": "b", "when": "m == 1"}),
            "in its guard",
        ),
        (
            json!({"from": "a", "to": "b", "do": "x := m"}),
            "in its `do`",
        ),
        (
            json!({"from": "a", "to": "b", "when": "m == 0"}),
            "without taking it",
        ),
        (
            json!({"from": "a", "to": "b", "when": "m == 0", "do": "m := any"}),
            "something else",
        ),
    ] {
        let Err(err) = load(model(t)) else {
            panic!("a misuse is refused")
        };
        let text = err.render();
        assert!(text.contains(says), "{text}");
        assert!(text.contains("threads[0].transitions[0]"), "{text}");
    }
    let arr = json!({"name": "a", "globals": {"m": {"type": "array", "len": 2, "of": {"type": "int", "min": 0, "max": 1}, "lock": true}},
        "threads": [{"name": "t", "start": "a", "transitions": []}], "properties": [{"name": "p", "error": "false"}]});
    assert!(load(arr).err().unwrap().render().contains("scalar global"));
    let prog = common::load("bug-deadlock-two-locks.json");
    let err = engine::check(&prog, Mode::Standard, &opts(true)).unwrap_err();
    assert!(
        err.to_string().contains("does not preserve deadlocks"),
        "{err}"
    );
    let p1 = common::load("p1-1.json");
    let blocks_only = CheckOptions {
        blocks: true,
        ..CheckOptions::default()
    };
    let err = engine::check(&p1, Mode::CartesianExc, &blocks_only).unwrap_err();
    assert!(
        err.to_string().contains("standard and thread-modular"),
        "{err}"
    );
    let both = CheckOptions {
        por: true,
        ..opts(true)
    };
    assert!(engine::check(&p1, Mode::Standard, &both).is_err());
    let coop = common::load("token-ring-5.json");
    let err = engine::check(&coop, Mode::Standard, &opts(true)).unwrap_err();
    assert!(err.to_string().contains("cooperative"), "{err}");
}

/// A cycle of In locations (a loop of both-movers inside a critical
/// section) is broken, not looped on: the loop's head becomes Out.
#[test]
fn a_cycle_inside_a_block_is_broken_and_reported() {
    let m = json!({
        "name": "spin-inside",
        "globals": {"m": {"type": "int", "min": 0, "max": 1, "lock": true}, "x": {"type": "int", "min": 0, "max": 3}},
        "threads": [{"name": "t", "count": 2, "start": "a", "locals": {"k": {"type": "int", "min": 0, "max": 3}},
            "transitions": [
                {"from": "a", "to": "b", "when": "m == 0", "do": "m := 1"},
                {"from": "b", "to": "c", "do": "k := (k + 1) % 4"},
                {"from": "c", "to": "b", "when": "k != 0"},
                {"from": "c", "to": "d", "when": "k == 0", "do": "x := (x + 1) % 4"},
                {"from": "d", "to": "e", "do": "m := 0"}
            ]}],
        "properties": [{"name": "p", "error": "x == 3"}],
    });
    let prog = common::load_value(&m);
    let b = crate::engine::lipton::infer(&prog, &[0]).unwrap();
    let report = b.report(&prog);
    let cycle: Vec<&str> = report.templates[0]
        .locations
        .iter()
        .filter(|l| l.why_out.as_deref().is_some_and(|w| w.contains("cycle")))
        .map(|l| l.name.as_str())
        .collect();
    assert_eq!(cycle.len(), 1, "{:?}", report.templates[0].locations);
    agree(&prog).unwrap();
}

/// Models that catch the mutations the generator missed (a helper's
/// mutation run): a cycle of In locations after a commit (f), a run-time
/// error inside a block (g), locks held on one path only (h), an acquire
/// after the commit (i). Each is unsafe; `--blocks` must say so too.
#[test]
fn the_mutation_models_are_unsafe_with_blocks() {
    let dir = common::models_dir().join("../tests/data/lipton");
    for f in ["f", "g", "h", "i"] {
        let path = dir.join(format!("mutant-{f}.json"));
        let prog = crate::model::load_file(&path, &[])
            .map(crate::model::Model::into_program)
            .unwrap_or_else(|d| panic!("{}", d.render()));
        agree(&prog).unwrap_or_else(|e| panic!("{f}: {e}"));
        let r = engine::check(&prog, Mode::Standard, &opts(true)).unwrap();
        assert_eq!(r.outcome("p").unwrap().verdict, Verdict::Unsafe, "{f}");
    }
    let path = dir.join("mutant-h-misuse.json");
    let Err(d) = crate::model::load_file(&path, &[]) else {
        panic!("a release on a path that may not hold the lock is refused")
    };
    assert!(d.render().contains("may not hold it"));
}

/// A property that indexes a global array by a thread's local reads that
/// local, so t0's `k := 1` inside its block is visible and ends the block
/// (found by fuzzing: the atoms held the array only, and `--blocks` ran
/// t0's block whole, past the error state).
#[test]
fn an_array_index_read_by_a_property_splits_a_block() {
    let m = json!({"name": "blk",
        "globals": {"m": {"type": "int", "min": 0, "max": 1, "init": 0, "lock": true},
                    "arr": {"type": "array", "len": 2, "of": {"type": "int", "min": 0, "max": 1}, "init": 0}},
        "threads": [
            {"name": "t0", "start": "L0", "locations": ["L0", "L1", "L2", "L3", "L4"],
             "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": 0}},
             "transitions": [{"from": "L0", "to": "L1", "when": "m == 0", "do": "m := 1"},
                             {"from": "L1", "to": "L2", "do": "k := 1"},
                             {"from": "L2", "to": "L3", "do": "k := 0"},
                             {"from": "L3", "to": "L4", "do": "m := 0"}]},
            {"name": "t1", "start": "M0", "locations": ["M0", "M1"],
             "transitions": [{"from": "M0", "to": "M1", "do": "arr[1] := 1"}]}],
        "properties": [{"name": "bad", "error": "exists(t0: arr[k] == 1)"}]});
    let prog = common::load_value(&m);
    agree(&prog).unwrap();
    let r = engine::check(&prog, Mode::Standard, &opts(true)).unwrap();
    assert_eq!(r.outcome("bad").unwrap().verdict, Verdict::Unsafe);
}
