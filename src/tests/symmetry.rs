//! Symmetry reduction in `standard`, against independent counts.

use super::common;

use crate::engine::{self, CheckOptions};
use crate::engine::{Mode, Verdict};
use crate::families::{lock, lock_state_count};
use serde_json::Value;

fn binomial(n: u128, k: u128) -> u128 {
    (0..k).fold(1, |r, i| r * (n - i) / (i + 1))
}

/// Distinct multisets of lock(n, m)'s thread states: with the lock free,
/// n threads over m+1 non-critical positions; with it held, one of 2m
/// critical locations and n-1 threads over m+1 positions.
fn lock_multisets(n: u128, m: u128) -> u128 {
    binomial(n + m, m) + 2 * m * binomial(n - 1 + m, m)
}

fn run(n: u32, m: u32) -> crate::RunReport {
    let prog = common::load_value(&lock(n, m));
    engine::check(
        &prog,
        Mode::Standard,
        &CheckOptions {
            symmetry: true,
            ..Default::default()
        },
    )
    .unwrap()
}

#[test]
fn reduced_and_full_counts_match_independent_formulas() {
    for n in 2..=8u32 {
        let r = run(n, 1);
        assert_eq!(
            r.stats.get("states").and_then(Value::as_u64),
            Some(3 * n as u64 + 1),
            "lock({n},1) reduced"
        );
        assert_eq!(
            r.stats
                .get("full_states")
                .and_then(Value::as_u64)
                .map(u128::from),
            lock_state_count(n, 1),
            "lock({n},1) full"
        );
        assert_eq!(r.verdict(), Verdict::Safe);
    }
    for (n, m) in [(3, 2), (5, 3), (8, 3)] {
        let r = run(n, m);
        assert_eq!(
            r.stats
                .get("states")
                .and_then(Value::as_u64)
                .map(u128::from),
            Some(lock_multisets(n as u128, m as u128)),
            "lock({n},{m})"
        );
        assert_eq!(
            r.stats
                .get("full_states")
                .and_then(Value::as_u64)
                .map(u128::from),
            lock_state_count(n, m),
            "lock({n},{m}) full"
        );
    }
}

#[test]
fn large_lock_instances_are_decided_exactly() {
    let r = run(100, 1);
    assert_eq!(r.verdict(), Verdict::Safe);
    assert_eq!(r.stats.get("states").and_then(Value::as_u64), Some(301));
    // 101 * 2^100, beyond u64: reported as a decimal string.
    assert_eq!(
        r.stats.get("full_states").and_then(Value::as_str),
        Some((101u128 << 100).to_string().as_str())
    );
    let r = run(50, 3);
    assert_eq!(r.verdict(), Verdict::Safe);
    assert_eq!(
        r.stats
            .get("states")
            .and_then(Value::as_u64)
            .map(u128::from),
        Some(lock_multisets(50, 3))
    );
}

#[test]
fn traces_under_symmetry_replay_on_the_model() {
    // The nonatomic lock with three threads: the trace is rebuilt through
    // permuted canonical states and must still replay step by step.
    let mut m: Value = serde_json::from_str(
        &std::fs::read_to_string(common::models_dir().join("bug-nonatomic-lock.json")).unwrap(),
    )
    .unwrap();
    m["threads"][0]["count"] = 3.into();
    let dir = common::temp_dir("sym");
    let path = dir.join("bug3.json");
    std::fs::write(&path, m.to_string()).unwrap();
    common::replay(&path, "mutex", &["--symmetry"]);
}

#[test]
fn asymmetric_models_are_refused_with_the_reason() {
    let simple = common::load("simple.json");
    let err = engine::check(
        &simple,
        Mode::Standard,
        &CheckOptions {
            symmetry: true,
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("`p` reads `tid`"), "{err}");
    let mut named = common::load_value(&lock(3, 1));
    named.properties = common::load_value(&serde_json::json!({
        "name": "x", "globals": {"lck": {"type": "int", "min": 0, "max": 1}},
        "threads": [{"name": "p", "count": 3, "start": "a", "transitions": [{"from": "a", "to": "b"}]}],
        "properties": [{"name": "first", "error": "p[1]@b"}]
    }))
    .properties;
    let err = engine::check(
        &named,
        Mode::Standard,
        &CheckOptions {
            symmetry: true,
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("names the instance `p[1]`"), "{err}");
    let err = engine::check(
        &common::load("lock.json"),
        Mode::CartesianExc,
        &CheckOptions {
            symmetry: true,
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("standard only"), "{err}");
}

/// Threads that move back and forth (a cycle a → b → c → a, and b → a):
/// a successor may have to move a thread anywhere in its sorted block, not
/// only where the lock schema's forward-moving threads go. Every multiset
/// of n threads over 3 locations is reachable: C(n + 2, 2) reduced states
/// standing for 3^n.
#[test]
fn threads_moving_back_and_forth_give_one_state_per_orbit() {
    for n in 2..=6u32 {
        let model = serde_json::json!({
            "format": "weft/1",
            "name": "cycle",
            "threads": [{"name": "p", "count": n, "start": "a", "transitions": [
                {"from": "a", "to": "b"}, {"from": "b", "to": "c"},
                {"from": "c", "to": "a"}, {"from": "b", "to": "a"}]}],
            "properties": [{"name": "never", "error": "false"}]
        });
        let prog = common::load_value(&model);
        let opts = CheckOptions {
            symmetry: true,
            ..Default::default()
        };
        let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
        let n = n as u128;
        assert_eq!(
            r.stats
                .get("states")
                .and_then(Value::as_u64)
                .map(u128::from),
            Some(binomial(n + 2, 2)),
            "n = {n}"
        );
        assert_eq!(
            r.stats
                .get("full_states")
                .and_then(Value::as_u64)
                .map(u128::from),
            Some(3u128.pow(n as u32)),
            "n = {n}"
        );
    }
}

/// Under `--max-depth`, the unreduced count is that of the states the run
/// counts, not of the level stored below the bound too (found by fuzzing:
/// `full states 6` beside the 3 states of depth 1), in both
/// representations.
#[test]
fn the_full_count_under_a_depth_bound_is_that_of_the_states_counted() {
    let prog = common::load_value(&lock(3, 2));
    for depth in 0..6 {
        let plain = engine::check(
            &prog,
            Mode::Standard,
            &CheckOptions {
                max_depth: Some(depth),
                ..Default::default()
            },
        )
        .unwrap();
        for sorted in [false, true] {
            let reduced = engine::check(
                &prog,
                Mode::Standard,
                &CheckOptions {
                    max_depth: Some(depth),
                    symmetry: true,
                    symmetry_sorted: sorted,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(
                reduced.stats.count("full_states"),
                Some(plain.stats.states()),
                "depth {depth}, sorted {sorted}"
            );
        }
    }
}

/// A `tid` in one template's guard leaves the other templates reducible
/// under `check-deadlock`: the `deadlock` predicate's part for `q`, `tid in
/// q's tids && x >= tid`, is false for every instance of `p` alike (found
/// by fuzzing: `p` was refused as told apart by tid).
#[test]
fn a_tid_guard_in_another_template_leaves_a_template_reducible() {
    let model = serde_json::json!({
        "format": "weft/1", "name": "deadlock-tid-other-template",
        "globals": {"x": {"type": "int", "min": 0, "max": 3}},
        "threads": [
            {"name": "p", "count": 3, "start": "a",
             "transitions": [{"from": "a", "to": "b", "do": "x := (x + 1) % 4"}]},
            {"name": "q", "count": 1, "start": "a",
             "transitions": [{"from": "a", "to": "b", "when": "x >= tid"}]}],
        "check-deadlock": true,
        "properties": [{"name": "P", "error": "count(p: @b) >= 3"}]
    });
    let prog = common::load_value(&model);
    let opts = |symmetry| CheckOptions {
        symmetry,
        keep_going: true,
        ..Default::default()
    };
    let plain = engine::check(&prog, Mode::Standard, &opts(false)).unwrap();
    let reduced = engine::check(&prog, Mode::Standard, &opts(true)).unwrap();
    for (a, b) in plain.outcomes.iter().zip(&reduced.outcomes) {
        assert_eq!((&a.property, a.verdict), (&b.property, b.verdict));
    }
    assert_eq!(
        reduced.stats.count("full_states"),
        Some(plain.stats.states())
    );
    assert!(reduced.stats.states() < plain.stats.states());
    // A tid compared with a variable in `p`'s own part still tells `p`'s
    // instances apart.
    let mut told = model.clone();
    told["threads"][0]["transitions"][0]["when"] = serde_json::json!("x >= tid");
    let prog = common::load_value(&told);
    assert!(engine::check(&prog, Mode::Standard, &opts(true)).is_err());
}

/// A conjunction's right side hides nothing of its left: in
/// `10 / (tid - x) > 0 && tid >= 4` the division is evaluated for every
/// instance and fails for one only, so the instances are told apart (the
/// first version of the rule above took either side: `--symmetry` then
/// said model-errors `safe` where it is unsafe; found in review).
#[test]
fn a_never_true_right_conjunct_does_not_hide_its_left() {
    let model = serde_json::json!({
        "format": "weft/1", "name": "symdiv",
        "globals": {"lck": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [{"name": "p", "count": 3,
            "locals": {"x": {"type": "int", "min": 0, "max": 1}}, "start": "l1",
            "transitions": [{"from": "l1", "to": "l2", "when": "lck == 0",
                             "do": "lck := 1; x := 1"}]}],
        "properties": [{"name": "p", "error": "count(p: 10 / (tid - x) > 0 && tid >= 4) >= 1"}]
    });
    let prog = common::load_value(&model);
    let plain = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    assert_eq!(
        plain.outcome("model-errors").unwrap().verdict,
        Verdict::Unsafe
    );
    let reduced = engine::check(
        &prog,
        Mode::Standard,
        &CheckOptions {
            symmetry: true,
            ..Default::default()
        },
    );
    assert!(reduced.is_err(), "{:?}", reduced.map(|r| r.to_text()));
}
