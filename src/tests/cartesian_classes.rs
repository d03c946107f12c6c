//! cartesian-exc on classes of interchangeable threads against the
//! per-thread path, differentially on generated models (a replicated
//! template, sometimes beside a template of one thread; with and without
//! exception entries; error properties with counts): the same verdicts and
//! statistics, the same fixpoint (Y_k(g) = X_i(g) for every thread i of
//! class k) and the same E (every member of every orbit, and nothing
//! else); and never `safe` where standard finds an error.

use super::common;
use super::differential::model_without_channels;
use crate::engine::cartesian::symmetric::Symmetric;
use crate::engine::cartesian::{Cartesian, Exceptions, Path, ProductValues, run_with};
use crate::engine::exceptions::orbits;
use crate::engine::{self, CheckOptions, Mode, Verdict};
use crate::program::{Program, Val};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// Exception entries: disjoint `one`/`others` (kept as orbits), overlapping
/// ones and a named instance (which make the run fall back), products.
const ENTRIES: &[&str] = &[
    r#"{"when": "g0 == 1", "one": "@L1", "others": "!@L1"}"#,
    r#"{"when": "g1 != 0", "one": "@L2", "others": "@L0"}"#,
    r#"{"one": "k == 1", "others": "k == 0 && !@L2", "over": "p"}"#,
    r#"{"when": "g0 == g1", "one": "@L1 || @L2", "others": "@L0 || @L1"}"#,
    r#"{"when": "g0 == 2", "threads": {"*": "@L0 || k == 1"}}"#,
    r#"{"when": "g1 == 1", "threads": {"p[2]": "@L1"}}"#,
    r#"{"when": "g0 != 0", "one": "@L0 && k == 0", "others": "@L1 || @L2", "over": "p"}"#,
];

/// A generated model without channels, with 0-2 exception entries and, one
/// time in three, a second template `q` of one thread (a copy of `p`).
fn symmetric_model() -> impl Strategy<Value = Value> {
    (
        model_without_channels(),
        proptest::collection::vec(0..ENTRIES.len(), 0..3),
        0..3u8,
    )
        .prop_map(|(mut m, es, q)| {
            let replicated = m["threads"][0]["name"] == "p";
            // Entries naming `p` only where there is a template `p`; a
            // local over `*` only where there is one template.
            let single = replicated && q != 0;
            let entries: Vec<Value> = es
                .iter()
                .filter(|&&e| replicated || !ENTRIES[e].contains("\"p"))
                .filter(|&&e| single || !ENTRIES[e].contains("\"*\""))
                .map(|&e| serde_json::from_str(ENTRIES[e]).unwrap_or(Value::Null))
                .collect();
            m["exceptions"] = json!(entries);
            if replicated && q == 0 {
                let mut t = m["threads"][0].clone();
                t["name"] = json!("q");
                t["count"] = json!(1);
                if let Some(ts) = m["threads"].as_array_mut() {
                    ts.push(t);
                }
            }
            m
        })
}

/// The per-thread fixpoint's products by values: g → per thread its set.
fn per_thread_x(c: &Cartesian) -> BTreeMap<Vec<Val>, Vec<BTreeSet<Vec<Val>>>> {
    c.products()
        .into_iter()
        .map(|(g, ts)| (g, ts.into_iter().map(|s| s.into_iter().collect()).collect()))
        .collect()
}

/// The class fixpoint expanded per thread, by values.
fn class_x(s: &Symmetric) -> BTreeMap<Vec<Val>, Vec<BTreeSet<Vec<Val>>>> {
    s.y.iter()
        .map(|(g, y)| {
            let per = s
                .classes
                .ranges
                .iter()
                .zip(y)
                .flat_map(|(r, set)| {
                    let t = r.start;
                    let vals: BTreeSet<Vec<Val>> =
                        set.iter().map(|l| s.exp.local(t, l).to_vec()).collect();
                    std::iter::repeat_n(vals, r.len())
                })
                .collect();
            (s.exp.globals.get(*g).to_vec(), per)
        })
        .collect()
}

/// E per thread, by values: (g, per thread its set) for every product.
fn per_thread_e(c: &Cartesian) -> BTreeSet<ProductValues> {
    let mut out = BTreeSet::new();
    for (g, ps) in &c.exceptions.by_global {
        for p in ps {
            let comps = p
                .iter()
                .enumerate()
                .map(|(t, s)| s.iter().map(|l| c.exp.local(t, l).to_vec()).collect())
                .collect();
            out.insert((c.exp.globals.get(*g).to_vec(), comps));
        }
    }
    out
}

/// Every member of every orbit of the class path's E, by values.
fn class_e(s: &Symmetric) -> BTreeSet<ProductValues> {
    let mut out = BTreeSet::new();
    for (g, os) in &s.exceptions.by_global {
        for o in os {
            for member in orbits::members(o) {
                let comps = member
                    .iter()
                    .enumerate()
                    .map(|(t, set)| set.iter().map(|l| s.exp.local(t, l).to_vec()).collect())
                    .collect();
                out.insert((s.exp.globals.get(*g).to_vec(), comps));
            }
        }
    }
    out
}

/// E's products as text, sorted: the set, whatever the order.
fn rendered(e: &crate::engine::result::RefinedExceptions) -> Vec<String> {
    let mut out: Vec<String> = e.products().map(|p| format!("{p:?}")).collect();
    out.sort();
    out
}

fn verdicts(r: &crate::engine::result::RunReport) -> Vec<(String, Verdict)> {
    r.outcomes
        .iter()
        .map(|o| (o.property.clone(), o.verdict))
        .collect()
}

fn stat(r: &crate::engine::result::RunReport, key: &str) -> Option<u64> {
    r.stats.get(key).and_then(|v| v.as_u64())
}

/// Both paths on one program; true when the class path applies.
fn compare(prog: &Program) -> Result<bool, TestCaseError> {
    let opts = CheckOptions::default();
    let fail = |e: crate::engine::CheckError| TestCaseError::fail(e.to_string());
    let auto = run_with(prog, &opts, Path::Auto).map_err(fail)?;
    let per = run_with(prog, &opts, Path::PerThread).map_err(fail)?;
    prop_assert_eq!(verdicts(&auto), verdicts(&per));
    // The class path's own report (an alarm's is replaced by the per-thread
    // one in `run_with`): same verdicts and counts, same fixpoint and E.
    let classes = crate::engine::cartesian::run_classes(prog, &opts).map_err(fail)?;
    if let Some(own) = &classes {
        prop_assert_eq!(verdicts(own), verdicts(&per));
        prop_assert_eq!(stat(own, "states"), stat(&per, "states"));
        prop_assert_eq!(
            stat(own, "exception_products"),
            stat(&per, "exception_products")
        );
        let s = Symmetric::compute(prog, &opts)
            .map_err(fail)?
            .ok_or_else(|| TestCaseError::fail("the class path applied once"))?;
        let c = Cartesian::compute(prog, Exceptions::Model, &opts).map_err(fail)?;
        prop_assert_eq!(class_x(&s), per_thread_x(&c));
        prop_assert_eq!(class_e(&s), per_thread_e(&c));
        // E read back per thread (what refine answers with) is the same
        // set of products on both paths.
        let expanded = s
            .exception_set(&crate::engine::Budget::new(&opts))
            .ok_or_else(|| TestCaseError::fail("a small E reads back"))?;
        prop_assert_eq!(rendered(&expanded), rendered(&c.exception_set()));
    }
    // Never safe where standard finds an error.
    let std = engine::check(prog, Mode::Standard, &opts)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    for (a, s) in auto.outcomes.iter().zip(&std.outcomes) {
        if s.verdict == Verdict::Unsafe {
            prop_assert_ne!(a.verdict, Verdict::Safe, "{} is violated", &a.property);
        }
    }
    Ok(classes.is_some())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn classes_agree_with_the_per_thread_path(m in symmetric_model()) {
        let prog = common::load_value(&m);
        compare(&prog)?;
    }
}

/// The generator reaches the class path with E and without, and falls
/// back: a proptest that never took the class path would prove nothing.
#[test]
fn the_generated_models_exercise_both_paths() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut with_e, mut without_e, mut fallback) = (0, 0, 0);
    for _ in 0..200 {
        let m = symmetric_model().new_tree(&mut runner).map(|t| t.current());
        let Ok(m) = m else { continue };
        let prog = common::load_value(&m);
        match compare(&prog) {
            Ok(true) if prog.exceptions.is_empty() => without_e += 1,
            Ok(true) => with_e += 1,
            Ok(false) => fallback += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(
        with_e >= 20 && without_e >= 20 && fallback >= 20,
        "{with_e} with E, {without_e} without, {fallback} fallbacks"
    );
}

/// Fig. 4's lock schema goes through the class path: the same verdict,
/// E of n products, and the same fixpoint as per thread.
#[test]
fn lock_schema_takes_the_class_path() {
    for (n, m) in [(2, 1), (5, 3), (6, 2), (300, 9)] {
        let prog = common::load_value(&crate::families::lock(n, m));
        let r = engine::check(&prog, Mode::CartesianExc, &CheckOptions::default()).unwrap();
        assert_eq!(r.verdict(), Verdict::Safe);
        assert_eq!(stat(&r, "thread_classes"), Some(1), "lock({n},{m})");
        assert_eq!(stat(&r, "exception_products"), Some(n as u64));
        assert_eq!(stat(&r, "states"), Some(n as u64 * (m as u64 + 1)));
        // standard is the slow part of `compare`: small instances only.
        if n < 10 {
            assert!(compare(&prog).unwrap());
        }
    }
}

/// A witness of an alarm names real threads, one per thread, on classes;
/// the report of an alarm comes from the per-thread path, with
/// derivations.
#[test]
fn an_alarm_on_classes_names_real_threads() {
    let prog = common::without_exceptions(common::load_value(&crate::families::lock(4, 1)));
    let opts = CheckOptions::default();
    let r = crate::engine::cartesian::run_classes(&prog, &opts)
        .unwrap()
        .expect("classes");
    assert_eq!(stat(&r, "thread_classes"), Some(1));
    let w = r.outcomes[0]
        .witness
        .as_ref()
        .expect("an alarm with a witness");
    let names: Vec<&str> = w.threads.iter().map(|t| t.thread.as_str()).collect();
    let expected: Vec<&str> = prog.threads.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, expected);
    let r = engine::check(&prog, Mode::CartesianExc, &opts).unwrap();
    assert_eq!(stat(&r, "thread_classes"), None);
    let w = r.outcomes[0]
        .witness
        .as_ref()
        .expect("an alarm with a witness");
    assert!(w.threads.iter().all(|t| !t.derivation.is_empty()));
}

/// `--max-states` stops the class path exactly: the posts counted never
/// pass it, and the run says unknown.
#[test]
fn the_state_budget_stops_the_class_path_exactly() {
    let prog = common::load_value(&crate::families::lock(50, 9));
    for cap in [1, 5, 26] {
        let opts = CheckOptions {
            max_states: Some(cap),
            ..CheckOptions::default()
        };
        let r = engine::check(&prog, Mode::CartesianExc, &opts).unwrap();
        assert_eq!(stat(&r, "thread_classes"), Some(1));
        assert_eq!(stat(&r, "transitions"), Some(cap as u64), "cap {cap}");
        assert_eq!(r.verdict(), Verdict::Unknown, "cap {cap}");
    }
    let opts = CheckOptions {
        max_states: Some(27),
        ..CheckOptions::default()
    };
    let r = engine::check(&prog, Mode::CartesianExc, &opts).unwrap();
    assert_eq!(r.verdict(), Verdict::Safe);
}

/// E read back per thread (refine's answer) stops at the memory budget:
/// `None`, and the per-thread path takes over under its own checks.
#[test]
fn reading_e_back_per_thread_stops_at_the_memory_budget() {
    let prog = common::load_value(&crate::families::lock(2048, 1));
    let opts = CheckOptions::default();
    let s = Symmetric::compute(&prog, &opts).unwrap().expect("classes");
    let budget = |max_memory_bytes| {
        engine::Budget::new(&CheckOptions {
            max_memory_bytes,
            ..CheckOptions::default()
        })
    };
    let e = s.exception_set(&budget(None)).expect("within the budget");
    assert_eq!(e.len(), 2048);
    assert!(s.exception_set(&budget(Some(1))).is_none());
}
