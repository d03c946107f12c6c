//! `--por` passes through a state whose reduced expansion is one step
//! (standard/pass/), on hand-made cases: a chain into a cycle of such
//! states, followed round once and left; a state where a property holds,
//! or where a step fails, stored and reported with a trace through the
//! states passed; `--max-depth`, which counts steps, turning it off. The
//! generated models of `por.rs` and `por_proviso.rs` check every verdict,
//! and replay every trace, with it on.

use super::common;
use super::differential;
use super::por::{agree, independent_model, por, rendezvous_model};
use crate::engine::standard::GIVE_UP_AT_FOR_TESTS;
use crate::engine::{self, CheckOptions, MODEL_ERRORS, Mode, Verdict};
use proptest::prelude::*;
use serde_json::{Value, json};

/// One thread: a -> b -> c -> b -> ... and, where `error` names one, the
/// error states.
fn one_thread(error: &str, step: &str) -> Value {
    json!({
        "name": "chain",
        "globals": {"x": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [{"name": "t", "start": "a", "transitions": [
            {"from": "a", "to": "b"},
            {"from": "b", "to": "c", "do": step},
            {"from": "c", "to": "b"}]}],
        "check-deadlock": true,
        "properties": [{"name": "bad", "error": error}],
    })
}

/// Every state after the initial one has one step: b and c are passed
/// through, the cycle between them followed round once and left, and only
/// the initial state is stored (the full search stores all three).
#[test]
fn a_cycle_of_single_steps_is_followed_round_once_and_left() {
    let prog = common::load_value(&one_thread("false", "x := 1 - x"));
    // b, c with x = 1, b, c with x = 0, then b again: four passed.
    let full = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    assert_eq!(full.stats.count("states"), Some(5));
    assert_eq!(agree(&prog).unwrap(), (5, 1));
    let r = engine::check(&prog, Mode::Standard, &por(2)).unwrap();
    assert_eq!(r.stats.count("por_passed_states"), Some(4));
    assert_eq!(r.outcome("deadlock").unwrap().verdict, Verdict::Safe);
}

/// Where the property holds (t at c) the state is stored, and the trace to
/// it goes through the state passed on the way (b): two steps, replayed
/// by `agree`.
#[test]
fn a_state_where_the_property_holds_is_stored_and_traced_through_the_states_passed() {
    let prog = common::load_value(&one_thread("exists(t: @c) && x == 0", "x := 1 - x"));
    let r = engine::check(&prog, Mode::Standard, &por(1)).unwrap();
    let bad = r.outcome("bad").unwrap();
    assert_eq!(bad.verdict, Verdict::Unsafe);
    // a, b, c (x = 1), b, c (x = 0): the one state where it holds.
    assert_eq!(bad.trace.as_ref().unwrap().steps.len(), 4);
    // a and the error state stored; b, c (x = 1) and b passed on the way
    // there, and again on the way from it back to itself: six passes.
    assert_eq!(r.stats.count("states"), Some(2));
    assert_eq!(r.stats.count("por_passed_states"), Some(6));
    agree(&prog).unwrap();
}

/// A step that fails at run time is reported where it fails, so the state
/// it leaves from is stored: a is, b (whose step overflows x) is, and the
/// run-time error's trace is the one step between.
#[test]
fn a_state_whose_step_fails_is_stored() {
    let prog = common::load_value(&one_thread("false", "x := x + 2"));
    let r = engine::check(&prog, Mode::Standard, &por(1)).unwrap();
    let errors = r.outcome(MODEL_ERRORS).unwrap();
    assert_eq!(errors.verdict, Verdict::Unsafe);
    assert_eq!(errors.trace.as_ref().unwrap().steps.len(), 1);
    assert_eq!(r.stats.count("states"), Some(2));
    assert_eq!(r.stats.count("por_passed_states"), Some(0));
    agree(&prog).unwrap();
}

/// `--max-depth` counts steps from an initial state, so a search under it
/// stores every state it reduces to (no state is passed through).
#[test]
fn max_depth_turns_passing_off() {
    let prog = common::load_value(&one_thread("false", "x := 1 - x"));
    let opts = CheckOptions {
        max_depth: Some(10),
        ..por(1)
    };
    let r = engine::check(&prog, Mode::Standard, &opts).unwrap();
    assert_eq!(r.stats.count("states"), Some(5));
    assert_eq!(r.stats.count("por_passed_states"), None);
}

/// Past the depth tags' period the walk back numbers the levels by a
/// forward search over the stored states (`rebuild.rs`, `Exact`), which
/// must follow the states passed through too: one thread steps from a to
/// b (x one up) and back to a choosing z, so every state at a is passed
/// and those at b are stored, one level each; the error at b with x = 8
/// lies 8 levels and 15 steps deep. With a period of 3 (two tag bits) its
/// trace is the same and replays.
#[test]
fn a_trace_through_passed_states_is_rebuilt_past_the_tags_period() {
    let prog = common::load_value(&json!({
        "name": "steps-and-choices",
        "globals": {
            "x": {"type": "int", "min": 0, "max": 8, "init": 0},
            "z": {"type": "int", "min": 0, "max": 1, "init": 0}
        },
        "threads": [{"name": "t", "start": "a", "transitions": [
            {"from": "a", "to": "b", "when": "x < 8", "do": "x := x + 1"},
            {"from": "b", "to": "a", "do": "z := 0"},
            {"from": "b", "to": "a", "do": "z := 1"}]}],
        "properties": [{"name": "far", "error": "exists(t: @b) && x == 8"}]
    }));
    let full = super::replay::traces(&prog, &por(1));
    assert_eq!(full, vec![("far".to_string(), 15, true)]);
    let r = engine::check(&prog, Mode::Standard, &por(1)).unwrap();
    // The initial state, b with x = 1..8 and z = 0 or 1 (but x = 1: z =
    // 0), and a with x = 8, where t has no step, when level 8 is expanded.
    assert_eq!(r.stats.count("states"), Some(18));
    let short = with_short_tags(|| super::replay::traces(&prog, &por(1)));
    assert_eq!(short, full);
    // And with the rounds given up after three levels: the states at a
    // are then stored from level 4 on, and the walk back, numbering the
    // levels, must not take them for states of the levels where they were
    // passed through.
    let given_up = given_up_at(3, || {
        with_short_tags(|| super::replay::traces(&prog, &por(1)))
    });
    assert_eq!(given_up.len(), 1);
    assert!(given_up[0].2, "{given_up:?}");
}

/// Runs `f` with depth tags of two bits (a period of 3).
fn with_short_tags<T>(f: impl FnOnce() -> T) -> T {
    let tags = &crate::engine::store::TAG_BITS_FOR_TESTS;
    tags.with(|b| b.set(2));
    let out = f();
    tags.with(|b| b.set(24));
    out
}

/// Runs `f` with the rounds given up after `levels` levels.
fn given_up_at<T>(levels: usize, f: impl FnOnce() -> T) -> T {
    GIVE_UP_AT_FOR_TESTS.with(|g| g.set(Some(levels)));
    let out = f();
    GIVE_UP_AT_FOR_TESTS.with(|g| g.set(None));
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Once the rounds give up (on a large model where they pass few
    /// states), a state passed through at an earlier level may be stored
    /// at a later one, and the walk back must end each chain where the
    /// rounds did. Every verdict stays, and every trace replays, with the
    /// rounds given up after one, two or three levels.
    #[test]
    fn traces_replay_when_the_rounds_give_up_midway(m in differential::model(), at in 1usize..4) {
        let prog = common::load_value(&m);
        given_up_at(at, || agree(&prog))?;
    }
}

/// A state passed through before the rounds give up can be stored after:
/// one thread goes a -> b -> c, where c chooses d or e; d leads back to b,
/// and e on to the error three steps on. With the rounds given up after
/// the first level, b is passed through at level 1 (its chain ends at c)
/// and stored at level 3 (from d). The walk back from c must follow the
/// chain from a through b as the rounds did, not stop at b because it is
/// stored now.
#[test]
fn a_state_passed_through_and_later_stored_is_followed_where_it_was_passed() {
    let prog = common::load_value(&json!({
        "name": "passed-then-stored",
        "threads": [{"name": "t", "start": "a", "transitions": [
            {"from": "a", "to": "b"},
            {"from": "b", "to": "c"},
            {"from": "c", "to": "d"},
            {"from": "c", "to": "e"},
            {"from": "d", "to": "b"},
            {"from": "e", "to": "e1"},
            {"from": "e1", "to": "e2"},
            {"from": "e2", "to": "e3"}]}],
        "properties": [{"name": "far", "error": "exists(t: @e3)"}]
    }));
    // Without giving up: a, c, d's chain ends at c, e's at e3: a, c, e3.
    assert_eq!(
        super::replay::traces(&prog, &por(1)),
        vec![("far".to_string(), 6, true)]
    );
    let given_up = given_up_at(1, || {
        let r = engine::check(&prog, Mode::Standard, &por(1)).unwrap();
        // a, c, then d, e, b, e1, e2, e3 stored: the rounds are off.
        assert_eq!(r.stats.count("states"), Some(8));
        super::replay::traces(&prog, &por(1))
    });
    assert_eq!(given_up, vec![("far".to_string(), 6, true)]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Past the tags' period the walk back numbers the levels by a forward
    /// search over the stored states; under `--por` that search takes
    /// moves the reduced search did not, and may reach a state sooner than
    /// the search did, or through states it never met. Every trace must
    /// still replay, with or without the rounds given up (`--continue`
    /// searches deeper).
    #[test]
    fn reduced_traces_replay_past_the_tags_period(
        m in prop_oneof![differential::model(), independent_model(), rendezvous_model()],
        at in 0usize..3,
        keep_going in any::<bool>(),
    ) {
        let prog = common::load_value(&m);
        let opts = CheckOptions { keep_going, ..por(1) };
        let full = super::replay::traces(&prog, &opts);
        let give_up = |f: &dyn Fn() -> Vec<(String, usize, bool)>| match at {
            0 => f(),
            _ => given_up_at(at, f),
        };
        let short = give_up(&|| with_short_tags(|| super::replay::traces(&prog, &opts)));
        let names = |t: &[(String, usize, bool)]| t.iter().map(|t| t.0.clone()).collect::<Vec<_>>();
        prop_assert_eq!(names(&short), names(&full));
        prop_assert!(short.iter().chain(&full).all(|t| t.2), "{:?} {:?}\n{}", short, full, m);
    }
}

/// The forward numbering past the tags' period, on the generated model
/// that showed it wrong (shrunk by proptest): t1 climbs to L3 through a
/// step on g1, t2 idles at L0 or steps to L2, where it is stuck, and t0
/// steps to L1 or idles; every deadlock lies four steps deep. The reduced
/// search reaches some states later than a search taking every move does,
/// so their tags and the forward levels disagree (with depth tags of two
/// bits the trace came out empty). Its trace must replay.
#[test]
fn a_reduced_trace_past_the_tags_period_starts_at_the_initial_state() {
    let prog = common::load_value(&json!({
        "name": "late",
        "globals": {
            "g1": {"type": "int", "min": 0, "max": 2, "init": 0},
            "g2": {"type": "int", "min": 0, "max": 2, "init": 0},
            "a": {"type": "array", "len": 2, "of": {"type": "int", "min": 0, "max": 1}, "init": 0}
        },
        "threads": [
            {"name": "t0", "start": "L0", "transitions": [
                {"from": "L0", "to": "L1"},
                {"from": "L0", "to": "L0", "do": "a[0] := 1"}]},
            {"name": "t1", "start": "L0",
             "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": 0}},
             "transitions": [
                {"from": "L0", "to": "L2"},
                {"from": "L2", "to": "L3", "do": "g1 := (g1 + 1) % 3; k := any"}]},
            {"name": "t2", "start": "L0",
             "locals": {"j": {"type": "int", "min": 0, "max": 1, "init": 0}},
             "transitions": [
                {"from": "L0", "to": "L0", "when": "g1 == 0 || g2 == 0"},
                {"from": "L2", "to": "L0", "when": "a[j] == 1"},
                {"from": "L0", "to": "L2"}]}],
        "check-deadlock": true,
        "properties": [{"name": "bad", "error": "false"}]
    }));
    let full = super::replay::traces(&prog, &por(1));
    assert_eq!(full, vec![("deadlock".to_string(), 4, true)]);
    let short = with_short_tags(|| super::replay::traces(&prog, &por(1)));
    assert_eq!(short.len(), 1);
    assert!(short[0].2, "{short:?}");
}

/// And on the one that showed the forward numbering following a chain
/// the search never did (shrunk by proptest): t1 can step to L2 first,
/// the search steps t0 first; from t1 at L2 and t0 at L0 the one step is
/// t0's, so a chain through that state, never met, leads from the initial
/// state to t0 and t1 at L2, two threads apart, where the walk back looks
/// for predecessors one thread apart (the search passed no state).
#[test]
fn a_reduced_trace_past_the_tags_period_follows_only_chains_the_walk_back_can() {
    let prog = common::load_value(&json!({
        "name": "never-met",
        "globals": {
            "g1": {"type": "int", "min": 0, "max": 2, "init": 0},
            "g2": {"type": "int", "min": 0, "max": 2, "init": 0},
            "a": {"type": "array", "len": 2, "of": {"type": "int", "min": 0, "max": 1}, "init": 0}
        },
        "threads": [
            {"name": "t0", "start": "L0",
             "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": 0}},
             "transitions": [
                {"from": "L0", "to": "L2"},
                {"from": "L2", "to": "L3", "do": "g1 := (g1 + 1) % 3; k := any"}]},
            {"name": "t1", "start": "L0",
             "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": 0}},
             "transitions": [
                {"from": "L0", "to": "L0", "when": "g1 == 0 || g2 == 0"},
                {"from": "L2", "to": "L0", "when": "a[1] != 0 && k == 1"},
                {"from": "L0", "to": "L2"}]}],
        "check-deadlock": true,
        "properties": [{"name": "bad", "error": "false"}]
    }));
    let full = super::replay::traces(&prog, &por(1));
    assert_eq!(full, vec![("deadlock".to_string(), 3, true)]);
    let short = with_short_tags(|| super::replay::traces(&prog, &por(1)));
    assert_eq!(short, full);
}
