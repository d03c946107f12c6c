//! The compact thread-modular fixpoint (`engine/thread_modular/`) against
//! the previous one (`thread_modular::oracle`), on generated models: the
//! same R and G per thread, |R| and |G|, model error, and verdict per
//! property, with R shared between interchangeable threads and without;
//! every fact's packed derivation a real rule application; witnesses whose
//! derivations run from (AG INIT) to the witness state; and the decision
//! procedure's reuse of a thread's contribution types giving the choice it
//! gave without it.

use super::common;
use super::differential::{model, template};

use crate::engine::thread_modular::oracle::Oracle;
use crate::engine::thread_modular::{ThreadModular, products, report_of};
use crate::engine::{self, Budget, CheckOptions, Mode};
use crate::program::Program;
use crate::property::Decider;
use crate::{Derived, Verdict};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Two or three interchangeable threads `p`, one thread `q` (a class of
/// one, whose own guarantee must not move it), and optionally a thread `r`
/// whose guard reads `tid` (a component of its own). With `p_reads_tid`,
/// the `p` threads read it too: one component each, with R that differ
/// (what the decision procedure's reuse must tell apart).
fn mixed_model() -> impl Strategy<Value = Value> {
    (
        any::<bool>(),
        2..=3usize,
        template("p".into(), 2, false),
        template("q".into(), 1, false),
        proptest::option::of(template("r".into(), 1, false)),
        0..3usize,
    )
        .prop_map(|(p_reads_tid, np, mut p, q, r, e)| {
            p["count"] = json!(np);
            if p_reads_tid {
                p["transitions"][0]["when"] = json!("g1 + tid >= 3");
            }
            let mut threads = vec![p, q];
            if let Some(mut r) = r {
                r["transitions"][0]["when"] = json!("g0 + tid >= 3");
                threads.push(r);
            }
            let errors = [
                "count(*: @L1) >= 2",
                "exists(*: @L2) && g0 == 1",
                "count(p: @L1 && k == 1) >= 1 && exists(q: @L2)",
            ];
            json!({
                "name": "mixed",
                "globals": {"g0": {"type": "int", "min": 0, "max": 2, "init": 0}, "g1": {"type": "int", "min": 0, "max": 2, "init": 1}},
                "threads": threads,
                "properties": [{"name": "bad", "error": errors[e]}]
            })
        })
}

/// The compact fixpoint, shared or not, equals the oracle; its
/// derivations are real; its verdicts and witnesses are the oracle's.
fn equals_the_oracle(prog: &Program) -> Result<(), TestCaseError> {
    let oracle = Oracle::compute(prog);
    let budget = Budget::new(&CheckOptions::default());
    for share in [false, true] {
        let mut tm = ThreadModular::compute_with(prog, &budget, share);
        for t in 0..prog.threads.len() {
            prop_assert_eq!(
                tm.reach_values(t),
                oracle.reach_values(t),
                "R({}) {}",
                t,
                share
            );
            prop_assert_eq!(
                tm.guarantee_values(t),
                oracle.guarantee_values(t),
                "G({}) {}",
                t,
                share
            );
        }
        prop_assert_eq!(tm.reach_size(), oracle.reach_size());
        prop_assert_eq!(tm.guarantee_size(), oracle.guarantee_size());
        prop_assert_eq!(tm.model_error.is_some(), oracle.model_error.is_some());
        if let Err(e) = tm.audit_derivations() {
            return Err(TestCaseError::fail(e));
        }
        let (new, old) = (report_of(prog, &tm), report_of(prog, &oracle));
        for (a, b) in new.outcomes.iter().zip(&old.outcomes) {
            prop_assert_eq!(&a.property, &b.property);
            prop_assert_eq!(a.verdict, b.verdict, "{}: {}", a.property, a.reason);
            let Some(w) = &a.witness else { continue };
            for th in &w.threads {
                let first = th.derivation.first().map(|d| &d.by);
                prop_assert_eq!(first, Some(&Derived::Init), "{:?}", th);
                let last = th.derivation.last().unwrap();
                prop_assert!(
                    last.local == th.local && last.global == w.globals,
                    "{:?} ends elsewhere than {:?}",
                    th.derivation,
                    th.local
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn compact_thread_modular_equals_the_oracle(m in model()) {
        equals_the_oracle(&common::load_value(&m))?;
    }

    #[test]
    fn shared_components_equal_the_oracle_on_mixed_templates(m in mixed_model()) {
        equals_the_oracle(&common::load_value(&m))?;
    }

    /// The decision procedure picks the same error state with and without
    /// reusing a thread's contribution types, at every global store, and
    /// with its buffers kept from one store to the next or fresh.
    #[test]
    fn decider_reuse_picks_the_same_choice(m in prop_oneof![model(), mixed_model()]) {
        let prog = common::load_value(&m);
        let tm = ThreadModular::compute(&prog);
        for p in &prog.properties {
            let Ok(fast) = Decider::new(&prog, &p.error) else { continue };
            let plain = fast.clone().without_reuse();
            let mut mismatch = None;
            let mut kept = crate::property::WitnessScratch::default();
            let _ = products(&tm, &mut |g, cands| {
                let a = fast.witness_with(&tm.exp, g, cands, &mut kept);
                let b = plain.witness(&tm.exp, g, cands);
                if format!("{a:?}") != format!("{b:?}") {
                    mismatch.get_or_insert(format!("{}: at {g}: {a:?} vs {b:?}", p.name));
                }
                Ok(None)
            });
            prop_assert!(mismatch.is_none(), "{}", mismatch.unwrap_or_default());
        }
    }
}

/// Simple(n)'s threads read `tid`: one component each. The instances of a
/// template that does not (lock(n, m)) share one, and R stays the paper's.
#[test]
fn components_are_the_threads_that_read_no_tid() {
    let simple = common::load_value(&crate::families::simple(4, false));
    let tm = ThreadModular::compute(&simple);
    assert_eq!(tm.units().members.len(), 4);
    let lock = common::load_value(&crate::families::lock(5, 2));
    let tm = ThreadModular::compute(&lock);
    assert_eq!(tm.units().members, vec![vec![0, 1, 2, 3, 4]]);
    let oracle = Oracle::compute(&lock);
    assert_eq!(tm.reach_size(), oracle.reach_size());
    for t in 0..5 {
        assert_eq!(tm.reach_values(t), oracle.reach_values(t));
    }
    // Under --max-states the cap counts thread states one by one.
    let capped = engine::check(
        &lock,
        Mode::ThreadModular,
        &CheckOptions {
            max_states: Some(7),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(capped.stats.count("states"), Some(7));
    assert_eq!(capped.verdict(), Verdict::Unknown);
}
