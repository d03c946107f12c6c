//! Cooperative scheduling (program/cooperative.rs, seed 001): macro-steps
//! on a model small enough to enumerate by hand, lost notifications,
//! a thread blocked while running, load errors, ESST's token ring in
//! every mode (its bug found with a trace that replays), and generated
//! cooperative models with replicated templates in every mode and under
//! `--symmetry`.

use super::common;
use crate::engine::{self, CheckOptions, Mode, Verdict};
use proptest::prelude::*;
use serde_json::{Value, json};

/// `m` made cooperative: each transition may notify an event, and may end
/// the macro-step by waiting for one or yielding.
pub(super) fn made_cooperative(m: Value) -> impl Strategy<Value = Value> {
    let n = common::transitions(&m);
    proptest::collection::vec((0..4u8, 0..5u8), n).prop_map(move |coop| {
        let mut m = m.clone();
        m["scheduling"] = json!("cooperative");
        m["events"] = json!(["e0", "e1"]);
        let mut k = 0;
        for t in m["threads"].as_array_mut().unwrap() {
            for tr in t["transitions"].as_array_mut().unwrap() {
                let (notify, release) = coop[k];
                k += 1;
                if notify < 2 {
                    tr["notify"] = json!(format!("e{notify}"));
                }
                match release {
                    0 | 1 => tr["wait"] = json!(format!("e{release}")),
                    2 => tr["yield"] = json!(true),
                    _ => {}
                }
            }
        }
        m
    })
}

/// Found by fuzzing (2026-11-28): two instances of one template, each
/// step notifying and then waiting for the event it notified. Thread i's
/// `waiting` cell is the scheduler's, so exchanging the instances' local
/// stores is no symmetry: `--symmetry` merged states that differ in who
/// waits, and cartesian-exc's classes did the same, and both said `safe`
/// where `x == 2` is reached in two steps.
#[test]
fn instances_of_a_cooperative_template_are_not_interchangeable() {
    let m = json!({
        "name": "c", "scheduling": "cooperative", "events": ["e"],
        "globals": {"x": {"type": "int", "min": 0, "max": 3}},
        "threads": [{"name": "a", "count": 2, "start": "s", "final": ["s"],
            "transitions": [{"from": "s", "to": "s", "do": "x := (x + 1) % 4",
                             "notify": "e", "wait": "e"}]}],
        "properties": [{"name": "p", "error": "x == 2"}]
    });
    let prog = common::load_value(&m);
    let verdict = |mode, symmetry| {
        let opts = CheckOptions {
            symmetry,
            ..CheckOptions::default()
        };
        engine::check(&prog, mode, &opts).map(|r| r.outcomes[0].verdict)
    };
    assert_eq!(verdict(Mode::Standard, false).unwrap(), Verdict::Unsafe);
    assert_eq!(verdict(Mode::Refine, false).unwrap(), Verdict::Unsafe);
    assert_eq!(
        verdict(Mode::CartesianExc, false).unwrap(),
        Verdict::Unknown
    );
    assert_eq!(
        verdict(Mode::ThreadModular, false).unwrap(),
        Verdict::Unknown
    );
    let refused = verdict(Mode::Standard, true).unwrap_err().to_string();
    assert!(refused.contains("cooperative"), "{refused}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// On generated cooperative models (one replicated template in about
    /// half of them), the abstract modes never say `unsafe`, nor `safe`
    /// where standard says `unsafe`; refine decides as standard does, its
    /// traces replaying.
    #[test]
    fn every_mode_keeps_standards_verdicts_on_cooperative_models(
        m in super::differential::model_without_channels().prop_flat_map(made_cooperative)
    ) {
        let prog = common::load_value(&m);
        let opts = CheckOptions::default();
        let exact = engine::check(&prog, Mode::Standard, &opts).unwrap();
        for mode in [Mode::ThreadModular, Mode::CartesianExc, Mode::Refine] {
            let r = engine::check(&prog, mode, &opts).unwrap();
            for (e, a) in exact.outcomes.iter().zip(&r.outcomes) {
                prop_assert_eq!(&e.property, &a.property);
                if mode == Mode::Refine {
                    if e.verdict != Verdict::Unknown {
                        prop_assert_eq!(a.verdict, e.verdict, "refine {}: {}", a.property, a.reason);
                    }
                } else {
                    prop_assert!(a.verdict != Verdict::Unsafe, "{:?} says unsafe", mode);
                    if e.verdict == Verdict::Unsafe {
                        prop_assert_eq!(a.verdict, Verdict::Unknown, "{:?} {}: {}", mode, a.property, a.reason);
                    }
                }
            }
            if mode == Mode::Refine {
                super::refine::assert_traces_replay(&prog, &r);
            }
        }
    }
}

/// t0 notifies e and ends; t1 waits for e, then sets x. If t0 runs first,
/// the notification is lost and t1 waits for ever at `b`.
fn notify_or_lose() -> Value {
    json!({
        "name": "lost-notification",
        "scheduling": "cooperative",
        "events": ["e"],
        "globals": {"x": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [
            {"name": "t0", "start": "a", "transitions": [{"from": "a", "to": "end", "notify": "e"}]},
            {"name": "t1", "start": "a", "transitions": [
                {"from": "a", "to": "b", "wait": "e"},
                {"from": "b", "to": "c", "do": "x := 1"},
            ]},
        ],
        "check-deadlock": true,
        "properties": [{"name": "set", "error": "x == 1"}],
    })
}

#[test]
fn a_notification_wakes_a_waiting_thread_and_is_lost_otherwise() {
    // By hand: s0 = (a, a, waiting [0, 0], x 0); t0 first: (end, a, [0,0]),
    // then t1 waits for good: (end, b, [0,1]), a deadlock (b is not
    // final). t1 first: (a, b, [0,1]); t0 wakes it: (end, b, [0,0]); t1
    // runs: (end, c, [0,0], x 1). Six states.
    let prog = common::load_value(&notify_or_lose());
    let opts = CheckOptions {
        keep_going: true,
        ..CheckOptions::default()
    };
    let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
    assert_eq!(r.stats.count("states"), Some(6));
    assert_eq!(r.stats.count("deadlocks"), Some(1));
    assert_eq!(r.outcome("set").unwrap().verdict, Verdict::Unsafe);
    assert_eq!(r.outcome("deadlock").unwrap().verdict, Verdict::Unsafe);
    for line in r.to_json_lines().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["verdict"] == "unsafe" && v.get("property").is_some() {
            common::replay_line(&prog, &v, "lost-notification");
        }
    }
}

#[test]
fn a_macro_step_runs_until_the_thread_waits_yields_or_ends() {
    // t0 runs a -> b -> c in one step (no state at b); with `yield` at b
    // the state at b exists.
    let model = |yield_at_b: bool| {
        let mut first = json!({"from": "a", "to": "b", "do": "x := 1"});
        if yield_at_b {
            first["yield"] = json!(true);
        }
        json!({
            "name": "macro", "scheduling": "cooperative",
            "globals": {"x": {"type": "int", "min": 0, "max": 2, "init": 0}},
            "threads": [{"name": "t0", "start": "a", "transitions": [first, {"from": "b", "to": "c", "do": "x := 2"}]}],
            "properties": [{"name": "middle", "error": "x == 1"}],
        })
    };
    for (yields, states, middle) in [(false, 2, Verdict::Safe), (true, 3, Verdict::Unsafe)] {
        let prog = common::load_value(&model(yields));
        let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        assert_eq!(
            r.outcome("middle").unwrap().verdict,
            middle,
            "yield {yields}"
        );
        if middle == Verdict::Safe {
            assert_eq!(r.stats.count("states"), Some(states));
        }
    }
}

#[test]
fn a_running_thread_with_no_enabled_transition_is_a_model_error() {
    let m = json!({
        "name": "stuck", "scheduling": "cooperative",
        "globals": {"x": {"type": "int", "min": 0, "max": 2, "init": 0}},
        "threads": [{"name": "t0", "start": "a", "transitions": [
            {"from": "a", "to": "b", "do": "x := 1"},
            {"from": "b", "to": "c", "when": "x == 2"},
        ]}],
        "properties": [{"name": "never", "error": "false"}],
    });
    let prog = common::load_value(&m);
    let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    let o = r.outcome(engine::MODEL_ERRORS).unwrap();
    assert_eq!(o.verdict, Verdict::Unsafe);
    assert!(o.reason.contains("t0 is running at `b`"), "{}", o.reason);
}

#[test]
fn cooperative_keys_are_checked_when_the_model_loads() {
    let load = |m: Value| {
        crate::model::load_str(&m.to_string(), "m.json", &[])
            .err()
            .map(|d| d.render())
            .unwrap_or_default()
    };
    let mut m = notify_or_lose();
    m["scheduling"] = json!("preemptive");
    assert!(load(m).contains("`events` belong to a cooperative model"));
    let mut m = notify_or_lose();
    m["threads"][1]["transitions"][0]["wait"] = json!("f");
    let msg = load(m);
    assert!(
        msg.contains("unknown event `f`") && msg.contains("threads[1].transitions[0].wait"),
        "{msg}"
    );
    let mut m = notify_or_lose();
    m["globals"]["waiting"] = json!({"type": "bool"});
    assert!(load(m).contains("rename the model's own `waiting`"));
    let mut m = notify_or_lose();
    m.as_object_mut().unwrap().remove("scheduling");
    m.as_object_mut().unwrap().remove("events");
    assert!(load(m).contains("need a cooperative model"));
}

/// ESST's token ring, N = 3..10: safe, its bug unsafe (a trace that
/// replays), with --por; without it the same verdicts where the full
/// space is small. The abstract modes never say unsafe and prove the safe
/// ring (the scheduler state is exact in the global store).
#[test]
fn the_token_ring_is_safe_and_its_bug_is_found_for_three_to_ten_transmitters() {
    let por = CheckOptions {
        por: true,
        ..CheckOptions::default()
    };
    for n in 3..=10 {
        for bug in [false, true] {
            let prog = common::load_value(&crate::families::token_ring(n, bug));
            let want = if bug { Verdict::Unsafe } else { Verdict::Safe };
            let mut runs = vec![por.clone()];
            if n <= 6 {
                runs.push(CheckOptions::default());
            }
            for opts in runs {
                let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
                let o = r.outcome("token").unwrap();
                assert_eq!(o.verdict, want, "n {n} bug {bug} por {}", opts.por);
                for line in r.to_json_lines().lines() {
                    let v: Value = serde_json::from_str(line).unwrap();
                    if v["verdict"] == "unsafe" && v["property"] == "token" {
                        common::replay_line(&prog, &v, &prog.name);
                    }
                }
            }
            if n == 3 {
                for mode in [Mode::ThreadModular, Mode::CartesianExc] {
                    let r = engine::check(&prog, mode, &CheckOptions::default()).unwrap();
                    let v = r.outcome("token").unwrap().verdict;
                    assert_eq!(
                        v,
                        if bug { Verdict::Unknown } else { Verdict::Safe },
                        "{mode:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_fifo_keeps_its_order() {
    for variant in [1, 2] {
        let prog = common::load_value(&crate::families::pc_sfifo(variant));
        let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        assert_eq!(r.outcome("order").unwrap().verdict, Verdict::Safe);
        assert_eq!(r.outcome("deadlock").unwrap().verdict, Verdict::Safe);
    }
}

/// `--por` on cooperative models must see through waits: a thread past a
/// `wait e` moves again when a thread outside the persistent set notifies
/// e, and a waiting thread in the set is enabled by such a notification.
/// Each model has a deadlock (t at `bad`, not final) that a reduction
/// blind to either would miss.
#[test]
fn por_sees_the_threads_a_notification_wakes() {
    let t = |wait_first: bool| {
        let mut ts = vec![
            json!({"from": "l1", "to": "ok", "when": "x == 1"}),
            json!({"from": "l1", "to": "bad", "when": "x == 0"}),
        ];
        if wait_first {
            ts.push(json!({"from": "l0", "to": "l1", "wait": "e"}));
        } else {
            ts = vec![
                json!({"from": "l0", "to": "ok", "when": "x == 0"}),
                json!({"from": "l0", "to": "bad", "when": "x == 1"}),
            ];
        }
        json!({"name": "t", "start": "l0", "locations": ["l0", "l1", "ok", "bad"],
               "final": ["l0", "l1", "ok"], "transitions": ts})
    };
    // u waits for e and then sets x; v notifies e; t reads x.
    let past_a_wait = json!({
        "name": "past-a-wait", "scheduling": "cooperative", "events": ["e"],
        "globals": {"x": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [
            t(false),
            {"name": "u", "start": "a", "transitions": [
                {"from": "a", "to": "b", "wait": "e"}, {"from": "b", "to": "c", "do": "x := 1"}]},
            {"name": "v", "start": "a", "transitions": [{"from": "a", "to": "b", "notify": "e"}]},
        ],
        "check-deadlock": true, "properties": [],
    });
    // t waits for e; w notifies it while v has not set x yet.
    let woken = json!({
        "name": "woken", "scheduling": "cooperative", "events": ["e"],
        "globals": {"x": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [
            t(true),
            {"name": "v", "start": "a", "transitions": [{"from": "a", "to": "b", "do": "x := 1"}]},
            {"name": "w", "start": "a", "transitions": [{"from": "a", "to": "b", "notify": "e"}]},
        ],
        "check-deadlock": true, "properties": [],
    });
    for m in [past_a_wait, woken] {
        let prog = common::load_value(&m);
        for por in [false, true] {
            let opts = CheckOptions {
                por,
                ..CheckOptions::default()
            };
            let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
            let v = r.outcome("deadlock").unwrap().verdict;
            assert_eq!(v, Verdict::Unsafe, "{} por {por}", m["name"]);
        }
    }
}
