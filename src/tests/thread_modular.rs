//! `thread-modular` against the thread-modular paper's printed results.

use super::common;

use crate::engine::thread_modular::ThreadModular;
use crate::engine::{self, CheckOptions};
use crate::engine::{Mode, Verdict};
use crate::families::simple;
use crate::program::Val;
use rustc_hash::FxHashSet;

/// The paper's R for Simple(n), Section 1.1, as a predicate over
/// (tid, m, x, pc).
fn paper_r(n: i64, tid: i64, m: i64, x: i64, pc: i64) -> bool {
    let other = m >= 1 && m <= n && m != tid;
    ([1, 6].contains(&pc) && m == 0 && x == 1)
        || ([1, 6].contains(&pc) && other && (x == 0 || x == 1))
        || ([2, 4, 5].contains(&pc) && m == tid && x == 1)
        || (pc == 3 && m == tid && x == 0)
}

/// The paper's G for Simple(n): (m, x) -> (m', x').
fn paper_g(tid: i64, m: i64, x: i64, m2: i64, x2: i64) -> bool {
    (m == 0 && m2 == tid && x == 1 && x2 == 1)
        || (m == tid && m2 == 0 && x == 1 && x2 == 1)
        || (m == tid && m2 == tid && x == 0 && x2 == 1)
        || (m == tid && m2 == tid && x == 1 && (x2 == 0 || x2 == 1))
}

#[test]
fn simple_n_reach_and_guarantee_equal_the_papers_predicates() {
    for n in 2..=5i64 {
        let prog = common::load_value(&simple(n as u32, false));
        let tm = ThreadModular::compute(&prog);
        let loc_number = |pc: Val| {
            prog.templates[0].locations[pc as usize]
                .parse::<i64>()
                .unwrap()
        };
        let mut total = 0;
        for t in 0..n as usize {
            let tid = t as i64 + 1;
            let got: FxHashSet<(i64, i64, i64)> = tm
                .reach_values(t)
                .into_iter()
                .map(|(g, l)| (g[0] as i64, g[1] as i64, loc_number(l[0])))
                .collect();
            let mut want = FxHashSet::default();
            for m in 0..=n {
                for x in 0..=2 {
                    for pc in 1..=6 {
                        if paper_r(n, tid, m, x, pc) {
                            want.insert((m, x, pc));
                        }
                    }
                }
            }
            assert_eq!(got, want, "R for tid {tid} in Simple({n})");
            total += want.len();
            let got_g: FxHashSet<((i64, i64), (i64, i64))> = tm
                .guarantee_values(t)
                .into_iter()
                .map(|(a, b)| ((a[0] as i64, a[1] as i64), (b[0] as i64, b[1] as i64)))
                .collect();
            let mut want_g = FxHashSet::default();
            for (m, x, m2, x2) in (0..=n).flat_map(|m| {
                (0..=2).flat_map(move |x| {
                    (0..=n).flat_map(move |m2| (0..=2).map(move |x2| (m, x, m2, x2)))
                })
            }) {
                if paper_g(tid, m, x, m2, x2) {
                    want_g.insert(((m, x), (m2, x2)));
                }
            }
            assert_eq!(got_g, want_g, "G for tid {tid} in Simple({n})");
        }
        // |R| counted from the paper's predicate; it is n(4n+2), O(n^2).
        assert_eq!(tm.reach_size(), total);
        assert_eq!(total as i64, n * (4 * n + 2));
        let r = engine::check(&prog, Mode::ThreadModular, &CheckOptions::default()).unwrap();
        for o in &r.outcomes {
            assert_eq!(
                o.verdict,
                Verdict::Safe,
                "Simple({n}) property {}",
                o.property
            );
        }
        assert_eq!(
            r.outcomes.len(),
            4,
            "no-race, inv, assertions, model-errors"
        );
    }
}

#[test]
fn simple_bool_raises_an_alarm_for_the_race() {
    let prog = common::load("simple-bool.json");
    let r = engine::check(
        &prog,
        Mode::ThreadModular,
        &CheckOptions {
            properties: vec!["no-race".into()],
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(r.outcomes[0].verdict, Verdict::Unknown);
    // The witness really is a race: two threads at 2, 3 or 4.
    let w = r.outcomes[0].witness.as_ref().unwrap();
    let racing = w
        .threads
        .iter()
        .filter(|t| ["2", "3", "4"].iter().any(|s| t.local[0].1 == *s))
        .count();
    assert!(racing >= 2, "{w:?}");
}

#[test]
fn peterson_alarm_is_both_threads_at_d_with_x_and_y_set() {
    let prog = common::load("peterson.json");
    let r = engine::check(&prog, Mode::ThreadModular, &CheckOptions::default()).unwrap();
    let mutex = &r.outcomes[0];
    assert_eq!(mutex.verdict, Verdict::Unknown);
    let w = mutex.witness.as_ref().unwrap();
    let g: Vec<(String, i64)> = w
        .globals
        .iter()
        .map(|(k, v)| (k.clone(), v.as_i64().unwrap()))
        .collect();
    assert_eq!(&g[..2], &[("x".to_string(), 1), ("y".to_string(), 1)]);
    assert!(
        w.threads.iter().all(|t| t.local[0].1 == "D"
            && t.derivation
                .first()
                .is_some_and(|d| d.by == crate::Derived::Init)),
        "{w:?}"
    );
}

#[test]
fn the_witness_derivation_starts_at_init_and_ends_at_the_error_state() {
    let prog = common::load("lock.json");
    let r = engine::check(&prog, Mode::ThreadModular, &CheckOptions::default()).unwrap();
    let w = r.outcomes[0]
        .witness
        .as_ref()
        .expect("lock(3,2) raises an alarm");
    for t in &w.threads {
        assert_eq!(t.derivation[0].by, crate::Derived::Init);
        let last = t.derivation.last().unwrap();
        assert!(
            last.local == t.local && last.global == w.globals,
            "{:?} should end at {:?}",
            t.derivation,
            t.local
        );
    }
}

#[test]
fn show_invariant_lists_reach_and_guarantee_in_json() {
    let prog = common::load("simple.json");
    let r = engine::check(
        &prog,
        Mode::ThreadModular,
        &CheckOptions {
            show_invariant: true,
            ..Default::default()
        },
    )
    .unwrap();
    let line: serde_json::Value =
        serde_json::from_str(r.to_json_lines().lines().next().unwrap()).unwrap();
    let threads = line["invariant"]["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 3);
    // Simple(3): |R| per thread is 4n+2 = 14, |G| is 2 + 1 + 2 = 5 per thread.
    assert_eq!(threads[0]["reach"].as_array().unwrap().len(), 14);
    assert_eq!(threads[0]["guarantee"].as_array().unwrap().len(), 5);
    assert!(threads[0]["reach"][0]["local"]["pc"].is_string());
}

#[test]
fn a_budget_ends_in_unknown_instead_of_a_partial_proof() {
    let prog = common::load_value(&simple(20, false));
    let r = engine::check(
        &prog,
        Mode::ThreadModular,
        &CheckOptions {
            max_states: Some(100),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(r.verdict(), Verdict::Unknown);
    assert!(
        r.outcomes[0]
            .reason
            .contains("state budget of 100 states exhausted"),
        "{}",
        r.outcomes[0].reason
    );
    // Without the budget the same model is proved.
    assert_eq!(
        engine::check(&prog, Mode::ThreadModular, &CheckOptions::default())
            .unwrap()
            .verdict(),
        Verdict::Safe
    );
}

#[test]
fn a_run_time_error_reachable_only_in_the_abstraction_is_an_alarm() {
    // Simple-bool's over-approximation lets `x := x + 1` run with x = 2
    // (never in a real run, where standard proves no model error).
    let prog = common::load("simple-bool.json");
    let standard = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    assert_eq!(
        standard
            .outcomes
            .iter()
            .find(|o| o.property == engine::MODEL_ERRORS)
            .unwrap()
            .verdict,
        Verdict::Safe
    );
    for mode in [Mode::ThreadModular, Mode::CartesianExc] {
        let r = engine::check(&prog, mode, &CheckOptions::default()).unwrap();
        let me = r
            .outcomes
            .iter()
            .find(|o| o.property == engine::MODEL_ERRORS)
            .unwrap();
        assert_eq!(me.verdict, Verdict::Unknown, "{}", mode.name());
        assert!(
            me.reason.contains("assignment out of range: `x` gets 3"),
            "{}",
            me.reason
        );
        let w = me.witness.as_ref().unwrap();
        assert!(w.globals.iter().any(|(k, v)| k == "x" && v == 2), "{w:?}");
    }
}

/// `check` on lock(24, 1) with `error` as its only property.
fn check_lock_24(mode: Mode, error: &str) -> Result<crate::RunReport, String> {
    let mut m = crate::families::lock(24, 1);
    m["properties"] = serde_json::json!([{"name": "e", "error": error}]);
    engine::check(&common::load_value(&m), mode, &CheckOptions::default())
        .map_err(|e| e.to_string())
}

#[test]
fn predicates_too_large_to_decide_are_refused_naming_their_form() {
    let atoms = |k: usize| {
        (1..=k)
            .map(|i| format!("p[{i}]@crit"))
            .collect::<Vec<_>>()
            .join(" && ")
    };
    // A few two-valued atoms are decided (thread-modular cannot prove
    // lock(n, m), cartesian-exc can).
    for (mode, verdict) in [
        (Mode::ThreadModular, Verdict::Unknown),
        (Mode::CartesianExc, Verdict::Safe),
    ] {
        let r = check_lock_24(mode, &atoms(5)).unwrap();
        assert_eq!(r.outcomes[0].verdict, verdict, "{mode:?}");
    }
    // 21 (2^21 combinations, over the bound of 2^20) are refused before
    // any work, naming the form.
    for mode in [Mode::ThreadModular, Mode::CartesianExc] {
        let e = check_lock_24(mode, &atoms(21)).unwrap_err();
        assert!(
            e.contains("atoms of 21 named instances (p[1], p[2], p[3], …)")
                && e.contains("2097152 combinations"),
            "{e}"
        );
    }
    // Counts compared with each other must be tracked exactly: 25^5.
    let counts = "count(p: @l1_1) == count(p: @l2_1) + count(p: @l3_1) + count(p: @crit) + count(p: @l1_1 || @l2_1)";
    let e = check_lock_24(Mode::ThreadModular, counts).unwrap_err();
    assert!(e.contains("5 count(...) term(s)"), "{e}");
}
