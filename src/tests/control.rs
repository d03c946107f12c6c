//! `refine --refine control` (Gupta, Popeea and Rybalchenko) checked
//! independently of the engine:
//!
//! * on random small models both schemes decide as `standard` does, their
//!   `unsafe` traces replay and their `safe` invariants are inductive
//!   (enumerated state by state, in `refine::assert_inductive`);
//! * with one class per template the fixpoint is Flanagan–Qadeer's R;
//! * with any partition and any exploded locations, γ holds every state
//!   `standard` reaches (soundness of the abstraction itself);
//! * (generated models have no channels: control refuses them, as
//!   `refuses_channels` checks)
//! * every shipped model is decided as `standard` decides it, with traces
//!   that replay.

use super::common;
use super::differential::model_without_channels as model;
use super::refine::{assert_inductive, assert_traces_replay, check_with};
use crate::engine::refine::control::fixpoint::ControlFixpoint;
use crate::engine::refine::control::partition::Partition;
use crate::engine::thread_modular::ThreadModular;
use crate::engine::{self, Budget, CheckOptions, Mode, Refinement, Verdict};
use crate::program::{Explorer, Program};
use proptest::prelude::*;
use std::collections::BTreeSet;

const SCHEMES: [Refinement; 2] = [Refinement::Control, Refinement::ControlMonotonic];

/// Both schemes against standard on one model; `enumerable`: a generated
/// model, whose whole state space `assert_inductive` can enumerate.
fn agrees_with_standard(prog: &Program, what: &str, enumerable: bool) {
    let exact = check_with(prog, Mode::Standard, Refinement::Exceptions);
    for scheme in SCHEMES {
        let refined = check_with(prog, Mode::Refine, scheme);
        for (e, r) in exact.outcomes.iter().zip(&refined.outcomes) {
            assert_eq!(e.property, r.property);
            // standard's `unknown` is model-errors after it stopped at the
            // first violation; otherwise it decides, and so must refine.
            if e.verdict != Verdict::Unknown {
                assert_eq!(
                    r.verdict, e.verdict,
                    "{what} {scheme:?}: {}: {}",
                    r.property, r.reason
                );
            }
        }
        assert_traces_replay(prog, &refined);
        if enumerable && refined.verdict() == Verdict::Safe {
            assert_inductive(prog, &refined);
        }
    }
}

/// A partition drawn from `seed`: each location's class and whether it is
/// exploded, by template.
fn partition(prog: &Program, seed: &[u16]) -> Partition {
    let mut draws = seed.iter().cycle();
    let mut exploded = BTreeSet::new();
    let class = prog
        .templates
        .iter()
        .enumerate()
        .map(|(t, tpl)| {
            (0..tpl.locations.len() as u16)
                .map(|l| {
                    let d = draws.next().copied().unwrap_or(0);
                    if d >= 6 {
                        exploded.insert((t as u32, l));
                    }
                    d % 3
                })
                .collect()
        })
        .collect();
    Partition::from_classes(class, exploded)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn control_refinement_agrees_with_standard(m in model()) {
        agrees_with_standard(&common::load_value(&m), "generated", true);
    }

    #[test]
    fn one_class_per_template_is_thread_modular(m in model()) {
        let prog = common::load_value(&m);
        let tm = ThreadModular::compute(&prog);
        let mut exp = Explorer::new(&prog);
        let budget = Budget::new(&CheckOptions::default());
        let fx = ControlFixpoint::compute(&mut exp, &Partition::coarsest(&prog), &budget);
        for t in 0..prog.threads.len() {
            prop_assert_eq!(fx.reach_values(&exp, t), tm.reach_values(t), "thread {}", t);
        }
    }

    #[test]
    fn every_partition_covers_the_reachable_states(
        m in model(),
        seed in proptest::collection::vec(0u16..9, 1..16),
    ) {
        let prog = common::load_value(&m);
        let part = partition(&prog, &seed);
        let mut exp = Explorer::new(&prog);
        let budget = Budget::new(&CheckOptions::default());
        let fx = ControlFixpoint::compute(&mut exp, &part, &budget);
        for (g, ls) in engine::standard::reachable(&prog).unwrap() {
            let g = exp.globals.intern(&g);
            let ls: Vec<u32> = ls.iter().enumerate().map(|(t, l)| exp.intern_local(t, l)).collect();
            prop_assert!(fx.covers(&exp, &part, &(g, ls.clone())), "{:?} {:?}", g, ls);
        }
    }
}

#[test]
fn shipped_models_are_decided_as_standard_decides_them() {
    let mut names: Vec<_> = std::fs::read_dir(common::models_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert!(names.len() >= 30, "models/ went missing");
    for name in names {
        agrees_with_standard(&common::load(&name), &name, false);
    }
}

/// The qualitative claim of the paper's Table 1 on its five models (all
/// shipped: Bakery-atomic, Bakery of Fig. 2, Bluetooth, Mozilla-order-fixed,
/// Time-varying mutex): the non-monotonic scheme ends with no more classes
/// than the monotonic one.
#[test]
fn non_monotonic_refinement_needs_no_more_classes_on_the_seed_models() {
    for name in [
        "bakery-fig2.json",
        "bakery-atomic.json",
        "time-var-mutex.json",
    ] {
        let prog = common::load(name);
        let classes = |scheme| {
            let r = check_with(&prog, Mode::Refine, scheme);
            assert_eq!(r.verdict(), Verdict::Safe, "{name} {scheme:?}");
            r.stats.count("classes").expect("classes reported")
        };
        let (nonmon, mon) = (
            classes(Refinement::Control),
            classes(Refinement::ControlMonotonic),
        );
        assert!(nonmon <= mon, "{name}: {nonmon} > {mon}");
    }
}

#[test]
fn refuses_channels() {
    let prog = common::load_value(&serde_json::json!({
        "name": "handshake",
        "channels": ["c"],
        "globals": {},
        "threads": [
            {"name": "s", "start": "A", "transitions": [{"from": "A", "to": "B", "sync": "c!"}]},
            {"name": "r", "start": "A", "transitions": [{"from": "A", "to": "B", "sync": "c?"}]}
        ],
        "properties": [{"name": "bad", "error": "s@B && r@B"}]
    }));
    for scheme in SCHEMES {
        let opts = CheckOptions {
            refinement: scheme,
            ..CheckOptions::default()
        };
        let err = engine::check(&prog, Mode::Refine, &opts).unwrap_err();
        assert!(err.to_string().contains("--refine control"), "{err}");
    }
}

/// The time budget holds while the partition is refined: svcomp-scull
/// without its `__X__ := 0` (found by fuzzing) refines for ever in SAT
/// calls, which asked no budget, so a 1 s budget ran 21 s at 20 s and only
/// the CLI's watchdog stopped it, with the result lost.
#[test]
fn the_time_budget_holds_while_the_partition_is_refined() {
    let text = std::fs::read_to_string(common::models_dir().join("svcomp-scull.json")).unwrap();
    let mut model: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut dropped = 0;
    for t in model["threads"].as_array_mut().unwrap() {
        for tr in t["transitions"].as_array_mut().unwrap() {
            if tr["do"] == "__X__ := 0" {
                tr.as_object_mut().unwrap().remove("do");
                dropped += 1;
            }
        }
    }
    assert_eq!(dropped, 1);
    let prog = common::load_value(&model);
    let opts = CheckOptions {
        refinement: Refinement::Control,
        timeout: Some(std::time::Duration::from_millis(500)),
        ..CheckOptions::default()
    };
    let started = std::time::Instant::now();
    let r = engine::check(&prog, Mode::Refine, &opts).unwrap();
    let reach = r.outcome("reach_error").unwrap();
    assert_eq!(reach.verdict, Verdict::Unknown, "{}", r.to_text());
    assert!(
        reach.reason.contains("time budget of 0.5 s exhausted"),
        "{}",
        reach.reason
    );
    // Past the budget by one SAT call or one fixpoint's poll interval.
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
}
