//! The counter representation of `--symmetry` (engine/standard/counter.rs)
//! against the sorted one and the unreduced search: on generated models
//! with symmetric templates (one or two blocks, with or without a thread of
//! its own), the same verdicts, reduced counts, transitions, depths and
//! deadlock counts as the sorted form, full_states equal to the plain
//! count, shortest traces as long as the plain ones that replay; the lock
//! formula through counters; and the `tid` regression of issue 17.

use super::common;
use super::differential::template;
use crate::engine::result::RunReport;
use crate::engine::standard::{DOMAIN_CUT_FOR_TESTS, FORCE_FOR_TESTS, Repr};
use crate::engine::{self, CheckError, CheckOptions, Mode, Verdict, replay};
use crate::families::{lock, lock_state_count};
use crate::program::Program;
use crate::report::SavedTrace;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Error predicates over the replicated template `p` (and `*`): counts
/// whose body reads the local store only, the globals too, `tid` in a way
/// that is the same for every instance (allowed) or not (p is then not
/// reduced), a named solo instance, and deadlocks.
const ERRORS: &[&str] = &[
    "count(p: @L1) >= 2",
    "g0 == 2 && exists(p: @L2)",
    "forall(*: @L0) && g1 == 1",
    "count(p: @L1 && k == 1) == 1 && g0 == 1",
    "exists(p: @L2) && exists(*: @L1)",
    "count(p: k == g0) >= 2",
    "count(p: tid >= 1 && @L1) >= 2",
    "count(p: tid == 1 && @L1) >= 1",
    "count(p: tid == 2 && @L1) >= 1",
    "deadlock",
    "deadlock && g0 == 1",
    "q@L1 && count(p: @L1) >= 1",
];

/// Which threads: p's instances, then a second block r[2] and/or a
/// thread q of its own (at most four threads in all).
const SHAPES: &[(usize, bool, bool)] = &[
    (2, false, false),
    (3, false, false),
    (4, false, false),
    (2, true, false),
    (2, false, true),
    (3, false, true),
    (2, true, false),
];

fn sym_model() -> impl Strategy<Value = Value> {
    (0..SHAPES.len(), 0..3i64, 0..3i64, 0..ERRORS.len()).prop_flat_map(|(s, i0, i1, e)| {
        let (n, r, q) = SHAPES[s];
        (
            template("p".into(), n, false),
            template("r".into(), 2, false),
            template("q".into(), 1, false),
        )
            .prop_map(move |(tp, tr, tq)| {
                let mut threads = vec![tp];
                if r {
                    threads.push(tr);
                }
                if q {
                    threads.push(tq);
                }
                let error = if q { ERRORS[e] } else { &ERRORS[e].replace("q@L1", "true") };
                json!({
                    "name": "generated",
                    "globals": {"g0": {"type": "int", "min": 0, "max": 2, "init": i0}, "g1": {"type": "int", "min": 0, "max": 2, "init": i1}},
                    "threads": threads,
                    "properties": [{"name": "bad", "error": error}]
                })
            })
    })
}

/// `standard` with symmetry in the given representation (`None`: none).
fn check(prog: &Program, repr: Option<Repr>, jobs: usize) -> Result<RunReport, CheckError> {
    FORCE_FOR_TESTS.with(|f| f.set(repr));
    let opts = CheckOptions {
        symmetry: repr.is_some(),
        jobs: Some(jobs),
        ..Default::default()
    };
    let r = engine::check(prog, Mode::Standard, &opts);
    FORCE_FOR_TESTS.with(|f| f.set(None));
    r
}

fn stat(r: &RunReport, key: &str) -> Option<Value> {
    r.stats.get(key).cloned()
}

/// Each outcome's trace length (None: no trace).
fn trace_lengths(r: &RunReport) -> Vec<Option<usize>> {
    r.outcomes
        .iter()
        .map(|o| o.trace.as_ref().map(|t| t.steps.len()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn counters_agree_with_sorted_and_plain(m in sym_model()) {
        let prog = common::load_value(&m);
        let plain = check(&prog, None, 1).unwrap();
        let sorted = check(&prog, Some(Repr::Sorted), 1);
        let counted = check(&prog, Some(Repr::Counters), 1);
        let (sorted, counted) = match (sorted, counted) {
            (Ok(s), Ok(c)) => (s, c),
            (Err(a), Err(b)) => {
                prop_assert_eq!(a.to_string(), b.to_string());
                return Ok(());
            }
            (s, c) => {
                prop_assert!(false, "one refused: {:?} {:?}\n{}", s.err(), c.err(), m);
                unreachable!()
            }
        };
        prop_assert_eq!(stat(&counted, "symmetry"), Some(json!("counters")), "{}", m);
        prop_assert_eq!(stat(&sorted, "symmetry"), Some(json!("sorted")));
        let verdicts = |r: &RunReport| r.outcomes.iter().map(|o| o.verdict).collect::<Vec<_>>();
        prop_assert_eq!(verdicts(&counted), verdicts(&plain), "{}", m);
        prop_assert_eq!(verdicts(&sorted), verdicts(&plain));
        for key in ["states", "transitions", "depth", "deadlocks", "full_states"] {
            prop_assert_eq!(stat(&counted, key), stat(&sorted, key), "{} {}", key, m);
        }
        prop_assert_eq!(stat(&counted, "full_states"), stat(&plain, "states"), "{}", m);
        prop_assert_eq!(trace_lengths(&counted), trace_lengths(&plain), "{}", m);
        // Every trace replays on the model, read back from JSON Lines.
        let text = counted.to_json_lines();
        for o in counted.outcomes.iter().filter(|o| o.trace.is_some()) {
            let saved = SavedTrace::parse(&text, "generated.jsonl", Some(&o.property))
                .unwrap_or_else(|d| panic!("{}", d.render()));
            let rep = replay::replay(&prog, &saved.trace, Some(&o.property), &Default::default()).unwrap();
            prop_assert!(rep.confirmed(), "{}: {}\n{}", o.property, rep.to_text(), m);
        }
        // Results do not depend on the number of workers.
        let two = check(&prog, Some(Repr::Counters), 2).unwrap();
        prop_assert_eq!(two.to_json_lines().lines().count(), text.lines().count());
        for (a, b) in two.outcomes.iter().zip(&counted.outcomes) {
            prop_assert_eq!(&a.reason, &b.reason);
            prop_assert_eq!(a.trace.as_ref().map(|t| t.steps.len()), b.trace.as_ref().map(|t| t.steps.len()));
        }
        prop_assert_eq!(stat(&two, "states"), stat(&counted, "states"));
    }
}

/// Distinct multisets of lock(n, m)'s thread states (see symmetry.rs).
fn lock_multisets(n: u128, m: u128) -> u128 {
    let binomial = |n: u128, k: u128| (0..k).fold(1, |r, i| r * (n - i) / (i + 1));
    binomial(n + m, m) + 2 * m * binomial(n - 1 + m, m)
}

#[test]
fn the_lock_formula_holds_through_counters() {
    for (n, m) in [(2, 1), (3, 1), (5, 2), (8, 3), (12, 2), (30, 1)] {
        let prog = common::load_value(&lock(n, m));
        let r = check(&prog, Some(Repr::Counters), 2).unwrap();
        assert_eq!(r.verdict(), Verdict::Safe);
        assert_eq!(stat(&r, "symmetry"), Some(json!("counters")));
        let count = |k| stat(&r, k).and_then(|v| v.as_u64()).map(u128::from);
        assert_eq!(count("states"), Some(lock_multisets(n as u128, m as u128)));
        assert_eq!(
            count("full_states"),
            lock_state_count(n, m),
            "lock({n},{m})"
        );
        let sorted = check(&prog, Some(Repr::Sorted), 2).unwrap();
        for k in ["states", "transitions", "depth"] {
            assert_eq!(stat(&r, k), stat(&sorted, k), "lock({n},{m}) {k}");
        }
    }
    // Chosen unasked where counters pack smaller.
    let r = check(&common::load_value(&lock(40, 2)), Some(Repr::Auto), 2).unwrap();
    assert_eq!(stat(&r, "symmetry"), Some(json!("counters")));
}

/// Issue 17: a count whose body reads `tid` tells a block's threads apart;
/// reducing them anyway gave lock(3, 1) a 7-step "trace" not ending in an
/// error, where one step reaches it.
#[test]
fn a_count_reading_tid_is_not_reduced() {
    let mut m = lock(3, 1);
    m["properties"] = json!([{"name": "first", "error": "count(p: tid == 1 && @crit) >= 1"}]);
    let prog = common::load_value(&m);
    for repr in [Repr::Sorted, Repr::Counters] {
        let err = check(&prog, Some(repr), 1).unwrap_err().to_string();
        assert!(err.contains("by `tid`"), "{err}");
    }
    // With a second template, that one is still reduced and the trace is
    // the plain one: one step, ending in the error.
    let mut t = m["threads"][0].clone();
    t["name"] = json!("o");
    m["threads"].as_array_mut().unwrap().push(t);
    let prog = common::load_value(&m);
    for repr in [Repr::Sorted, Repr::Counters] {
        let r = check(&prog, Some(repr), 1).unwrap();
        let o = &r.outcomes[0];
        assert_eq!(o.verdict, Verdict::Unsafe);
        let trace = o.trace.as_ref().unwrap();
        assert_eq!(trace.steps.len(), 1, "{repr:?}");
        let rep = replay::replay(&prog, trace, Some("first"), &Default::default()).unwrap();
        assert!(rep.confirmed(), "{}", rep.to_text());
    }
}

/// A trace through counters names real threads and replays from the
/// command line (`weft replay` reads what `weft check` printed).
#[test]
fn counter_traces_replay_on_the_command_line() {
    let mut m = lock(40, 2);
    m["properties"] = json!([{"name": "two-done", "error": "count(p: @done) >= 2 && lck == 1"}]);
    let dir = common::temp_dir("counter");
    let path = dir.join("lock40.json");
    std::fs::write(&path, m.to_string()).unwrap();
    let r = check(&common::load_value(&m), Some(Repr::Auto), 2).unwrap();
    assert_eq!(stat(&r, "symmetry"), Some(json!("counters")));
    assert_eq!(
        r.outcomes[0].trace.as_ref().map(|t| t.steps.len()),
        Some(13)
    );
    common::replay(&path, "two-done", &["--symmetry"]);
}

/// `--max-states` stops the counter search exactly there, as the sorted.
#[test]
fn the_state_budget_is_exact_through_counters() {
    let prog = common::load_value(&lock(40, 2));
    for repr in [Repr::Sorted, Repr::Counters] {
        FORCE_FOR_TESTS.with(|f| f.set(Some(repr)));
        let opts = CheckOptions {
            symmetry: true,
            max_states: Some(100),
            ..Default::default()
        };
        let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
        FORCE_FOR_TESTS.with(|f| f.set(None));
        assert_eq!(r.verdict(), Verdict::Unknown, "{repr:?}");
        assert_eq!(r.stats.count("states"), Some(100), "{repr:?}");
    }
}

/// A counter state whose successor leaves its block's domain (the ranges
/// rule it out; here the domain is cut short) is not lost: the run falls
/// back to the sorted form and finds every state.
#[test]
fn leaving_the_domain_falls_back_to_sorted_ids() {
    let mut m = lock(5, 2);
    m["properties"] = json!([{"name": "two-done", "error": "count(p: @done) >= 2 && lck == 1"}]);
    let prog = common::load_value(&m);
    let sorted = check(&prog, Some(Repr::Sorted), 1).unwrap();
    for cut in [1, 3, 6] {
        DOMAIN_CUT_FOR_TESTS.with(|c| c.set(Some(cut)));
        let r = check(&prog, Some(Repr::Counters), 1);
        DOMAIN_CUT_FOR_TESTS.with(|c| c.set(None));
        let r = r.unwrap();
        assert_eq!(stat(&r, "symmetry"), Some(json!("sorted")), "cut {cut}");
        for k in ["states", "transitions", "depth", "full_states"] {
            assert_eq!(stat(&r, k), stat(&sorted, k), "cut {cut} {k}");
        }
        assert_eq!(trace_lengths(&r), trace_lengths(&sorted));
    }
}
