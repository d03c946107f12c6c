//! `cartesian-exc` against the precise thread-modular paper's printed
//! results.

use super::common;

use crate::engine::cartesian::{Cartesian, Exceptions};
use crate::engine::{self, CheckOptions};
use crate::engine::{Mode, Verdict};
use crate::families::lock;
use std::collections::BTreeMap;

#[test]
fn peterson_fixpoint_is_the_papers_x4_product_by_product() {
    let prog = common::load("peterson.json");
    let c = Cartesian::compute(&prog, Exceptions::Model, &CheckOptions::default()).unwrap();
    let tpl = |t: usize| &prog.templates[prog.threads[t].template as usize];
    // Ours: xyturn -> (P1 locations, P2 locations).
    let ours: BTreeMap<String, (String, String)> = c
        .products()
        .into_iter()
        .map(|(g, comps)| {
            let key = g.iter().map(|v| v.to_string()).collect::<String>();
            let locs = |t: usize| {
                let mut v: Vec<String> = comps[t]
                    .iter()
                    .map(|l| tpl(t).locations[l[0] as usize].clone())
                    .collect();
                v.sort();
                v.concat()
            };
            (key, (locs(0), locs(1)))
        })
        .collect();
    // X4 as printed in Section 2 of the paper.
    let x4: BTreeMap<String, (String, String)> = [
        ("000", "A", "A"),
        ("001", "A", "A"),
        ("010", "A", "BCD"),
        ("011", "A", "B"),
        ("100", "B", "A"),
        ("101", "BCD", "A"),
        ("110", "BD", "BC"),
        ("111", "BC", "BCD"),
    ]
    .into_iter()
    .map(|(g, a, b)| (g.to_string(), (a.to_string(), b.to_string())))
    .collect();
    assert_eq!(ours, x4);
    // E, as given: {(110, B, D), (110, C, C), (111, D, B)}.
    assert_eq!(c.exceptions.size(), 3);
    let r = engine::check(&prog, Mode::CartesianExc, &CheckOptions::default()).unwrap();
    assert_eq!(r.outcomes[0].verdict, Verdict::Safe);
}

#[test]
fn peterson_without_exceptions_is_the_thread_modular_result() {
    let prog = common::without_exceptions(common::load("peterson.json"));
    let r = engine::check(&prog, Mode::CartesianExc, &CheckOptions::default()).unwrap();
    assert_eq!(r.outcomes[0].verdict, Verdict::Unknown);
    let w = r.outcomes[0].witness.as_ref().unwrap();
    assert!(w.threads.iter().all(|t| t.local[0].1 == "D"));
}

#[test]
fn lock_schema_grid_is_proved_with_the_section_5_exceptions_only() {
    for n in (10..=100).step_by(10) {
        for m in [1, 3, 5, 7, 9] {
            let prog = common::load_value(&lock(n, m));
            let r = engine::check(&prog, Mode::CartesianExc, &CheckOptions::default()).unwrap();
            assert_eq!(r.verdict(), Verdict::Safe, "lock({n},{m}) with exceptions");
            // E has the n products C(1)..C(n) (Section 5).
            assert_eq!(
                r.stats.get("exception_products").and_then(|v| v.as_u64()),
                Some(n as u64)
            );
            // Without them, the plain Cartesian abstraction raises an alarm.
            let plain = common::without_exceptions(prog);
            let r = engine::check(&plain, Mode::CartesianExc, &CheckOptions::default()).unwrap();
            assert_eq!(
                r.outcomes[0].verdict,
                Verdict::Unknown,
                "lock({n},{m}) without exceptions"
            );
        }
    }
}

#[test]
fn lock_fixpoint_is_exact_with_the_section_5_exceptions() {
    // For the lock schema the abstraction loses nothing: γ_cart(X) ∪ E
    // contains exactly the reachable states (checked on every state of the
    // full product for a small instance).
    let prog = common::load_value(&lock(3, 2));
    let c = Cartesian::compute(&prog, Exceptions::Model, &CheckOptions::default()).unwrap();
    let reach = crate::engine::standard::reachable(&prog).unwrap();
    for (g, ls) in &reach {
        assert!(c.contains_values(g, ls));
    }
    let mut count = 0;
    let locs = prog.templates[0].locations.len() as i32;
    for lck in 0..2 {
        for a in 0..locs {
            for b in 0..locs {
                for d in 0..locs {
                    let ls = vec![vec![a], vec![b], vec![d]];
                    let in_x = c.contains_values(&[lck], &ls);
                    let reachable = reach.iter().any(|(g, l)| g == &[lck] && *l == ls);
                    assert_eq!(in_x, reachable, "lck={lck} locals {ls:?}");
                    count += in_x as usize;
                }
            }
        }
    }
    assert_eq!(count, 135);
}

#[test]
fn exceptions_can_come_from_a_separate_file() {
    let dir = common::temp_dir("exc");
    let file = dir.join("e.json");
    std::fs::write(
        &file,
        r#"[{"when": "x == 1 && y == 1 && turn == 0", "threads": {"P1": "@B", "P2": "@D"}},
        {"when": "x == 1 && y == 1 && turn == 0", "threads": {"P1": "@C", "P2": "@C"}},
        {"when": "x == 1 && y == 1 && turn == 1", "threads": {"P1": "@D", "P2": "@B"}}]"#,
    )
    .unwrap();
    let model = common::models_dir().join("peterson.json");
    let prog = crate::model::load::load_with_exceptions(&model, &[], None, false, &file)
        .map(crate::model::Model::into_program)
        .unwrap();
    assert_eq!(
        engine::check(&prog, Mode::CartesianExc, &CheckOptions::default())
            .unwrap()
            .verdict(),
        Verdict::Safe
    );
    // Only two of the three: the proof fails.
    std::fs::write(&file, r#"{"exceptions": [{"when": "x == 1 && y == 1 && turn == 0", "threads": {"P1": "@B", "P2": "@D"}},
        {"when": "x == 1 && y == 1 && turn == 0", "threads": {"P1": "@C", "P2": "@C"}}]}"#).unwrap();
    let prog = crate::model::load::load_with_exceptions(&model, &[], None, false, &file)
        .map(crate::model::Model::into_program)
        .unwrap();
    assert_eq!(
        engine::check(&prog, Mode::CartesianExc, &CheckOptions::default())
            .unwrap()
            .verdict(),
        Verdict::Unknown
    );
}

#[test]
fn show_invariant_json_has_products_and_exceptions() {
    let prog = common::load("peterson.json");
    let r = engine::check(
        &prog,
        Mode::CartesianExc,
        &CheckOptions {
            show_invariant: true,
            ..Default::default()
        },
    )
    .unwrap();
    let line: serde_json::Value =
        serde_json::from_str(r.to_json_lines().lines().next().unwrap()).unwrap();
    assert_eq!(line["invariant"]["products"].as_array().unwrap().len(), 8);
    assert_eq!(line["invariant"]["exceptions"].as_array().unwrap().len(), 3);
    assert_eq!(line["invariant"]["exceptions"][0]["threads"][0][0], "B");
}

#[test]
fn a_round_posts_only_the_local_stores_that_are_new() {
    // Two threads each count c from 0 to K, one step at a time. Every step
    // grows X(g) by one local store; a round that re-posted the whole
    // product would post about K²/2 steps per thread, the semi-naive one
    // posts each of the 2K steps (one per local store c < K) once.
    let k = 300;
    let prog = common::load_value(&serde_json::json!({
        "format": "weft/1",
        "name": "chain",
        "globals": {"g": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [{
            "name": "p", "count": 2, "start": "a",
            "locals": {"c": {"type": "int", "min": 0, "max": k, "init": 0}},
            "transitions": [{"from": "a", "to": "a", "when": "c < 300", "do": "c := c + 1"}]
        }],
        "properties": [{"name": "both-done", "error": "count(p: c == 300) >= 2"}]
    }));
    use crate::engine::cartesian::{Path, run_with};
    let r = run_with(&prog, &CheckOptions::default(), Path::PerThread).unwrap();
    assert_eq!(r.verdict(), Verdict::Unknown);
    assert_eq!(
        r.stats.get("states").and_then(|v| v.as_u64()),
        Some(2 * (k + 1))
    );
    assert_eq!(
        r.stats.get("transitions").and_then(|v| v.as_u64()),
        Some(2 * k)
    );
    // On classes (one component for both threads): each of the K steps
    // once, and the same states.
    let r = crate::engine::cartesian::run_classes(&prog, &CheckOptions::default())
        .unwrap()
        .expect("classes");
    assert_eq!(r.verdict(), Verdict::Unknown);
    assert_eq!(
        r.stats.get("thread_classes").and_then(|v| v.as_u64()),
        Some(1)
    );
    assert_eq!(
        r.stats.get("states").and_then(|v| v.as_u64()),
        Some(2 * (k + 1))
    );
    assert_eq!(r.stats.get("transitions").and_then(|v| v.as_u64()), Some(k));
}

#[test]
fn a_budget_stops_the_instantiation_of_a_large_exception_set() {
    // 2 × 51 × 51 global stores; the entry gives n products at each of the
    // 2601 with lck = 1: 52,020 products, far more than the budget allows.
    let prog = common::load_value(&serde_json::json!({
        "format": "weft/1",
        "name": "wide-globals",
        "globals": {
            "lck": {"type": "int", "min": 0, "max": 1, "init": 0},
            // Any initial value (else range inference would shrink a and
            // b, and E with them, to 0).
            "a": {"type": "int", "min": 0, "max": 50, "init": "any"},
            "b": {"type": "int", "min": 0, "max": 50, "init": "any"}
        },
        "threads": [{
            "name": "p", "count": 20, "start": "A",
            "transitions": [
                {"from": "A", "to": "C", "when": "lck == 0", "do": "lck := 1"},
                {"from": "C", "to": "A", "do": "lck := 0"}
            ]
        }],
        "properties": [{"name": "mutex", "error": "count(p: @C) >= 2"}],
        "exceptions": [{"when": "lck == 1", "one": "@C", "others": "@A"}]
    }));
    let opts = CheckOptions {
        max_states: Some(1000),
        ..Default::default()
    };
    let r = engine::check(&prog, Mode::CartesianExc, &opts).unwrap();
    assert_eq!(r.verdict(), Verdict::Unknown);
    let reason = &r.outcomes[0].reason;
    assert!(
        reason.contains("while instantiating the exception entries"),
        "{reason}"
    );
    assert_eq!(r.stats.get("transitions").and_then(|v| v.as_u64()), Some(0));
    // Without the budget the same model is proved.
    let r = engine::check(&prog, Mode::CartesianExc, &CheckOptions::default()).unwrap();
    assert_eq!(r.verdict(), Verdict::Safe);
}

/// A review found descending rounds of range inference that ended on
/// ranges not closed under a step (an empty guard narrowing kept the old
/// interval, so the step was not monotone): cartesian-exc then stepped an
/// exception state out of its universe and stopped with an internal error.
#[test]
fn inferred_ranges_stay_closed_under_a_step() {
    let prog = common::load_value(&serde_json::json!({
        "name": "descending-not-closed",
        "globals": {
            "x": {"type": "int", "min": 0, "max": 10, "init": "any"},
            "y": {"type": "int", "min": 0, "max": 20, "init": 0},
            "z": {"type": "int", "min": 0, "max": 20, "init": 6},
            "w": {"type": "int", "min": 0, "max": 20, "init": 0}},
        "threads": [
            {"name": "p", "count": 1, "start": "A", "transitions": [
                {"from": "A", "to": "A", "when": "x > 5 && x < y", "do": "z := x"},
                {"from": "A", "to": "A", "do": "w := z - 1"},
                {"from": "A", "to": "A", "do": "y := w"}]},
            {"name": "q", "count": 1, "start": "Q",
                "locals": {"v": {"type": "int", "min": 0, "max": 20, "init": 0}},
                "transitions": [{"from": "Q", "to": "Q", "do": "v := w"}]}],
        "properties": [{"name": "bad", "error": "false"}],
        "exceptions": [{"when": "w == 9", "threads": {}}]
    }));
    let r = engine::check(&prog, Mode::CartesianExc, &CheckOptions::default()).unwrap();
    assert_eq!(r.verdict(), Verdict::Safe, "{:?}", r.outcomes);
    assert_eq!(common::reachable_outside_ranges(&prog), None);
}
