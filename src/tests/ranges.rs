//! Range inference (`program::ranges`) on small models, against ranges computed by hand.

use crate::program::ranges::*;

/// The range of `y` in a model where x takes any value in 0..7 and one
/// transition, guarded by `guard`, runs `update`.
fn y_range(guard: &str, update: &str) -> Interval {
    let model = serde_json::json!({
        "name": "r",
        "globals": {
            "x": {"type": "int", "min": 0, "max": 7, "init": "any"},
            "y": {"type": "int", "min": 0, "max": 7, "init": 0},
            "a": {"type": "array", "len": 2, "of": {"type": "int", "min": 0, "max": 7}, "init": [0, 5]}
        },
        "threads": [{"name": "p", "count": 1, "start": "L0",
            "transitions": [{"from": "L0", "to": "L0", "when": guard, "do": update}]}],
        "properties": [{"name": "bad", "error": "false"}]
    });
    let prog = crate::model::load_str(&model.to_string(), "r.json", &[])
        .map(crate::model::Model::into_program)
        .unwrap_or_else(|d| panic!("{}", d.render()));
    Ranges::infer(&prog).globals[1]
}

#[test]
fn locals_are_bounded_per_location_and_unreached_locations_are_none() {
    // A counter j that only `wait`'s guard bounds (as in BEEM's bakery):
    // loop: j < 2 -> wait; wait: j := j + 1 -> loop; loop: j == 2 -> done.
    let model = serde_json::json!({
        "name": "r",
        "globals": {"x": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [{"name": "p", "count": 2, "start": "loop",
            "locations": ["loop", "wait", "done", "never"],
            "locals": {"j": {"type": "int", "min": 0, "max": 255, "init": 0}},
            "transitions": [
                {"from": "loop", "to": "wait", "when": "j < 2"},
                {"from": "wait", "to": "loop", "do": "j := j + 1"},
                {"from": "loop", "to": "done", "when": "j == 2"},
                {"from": "done", "to": "never", "when": "x == 1"}
            ]}],
        "properties": [{"name": "bad", "error": "false"}]
    });
    let prog = crate::model::load_str(&model.to_string(), "r.json", &[])
        .map(crate::model::Model::into_program)
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let r = Ranges::infer(&prog);
    let at = |loc: usize| r.locals[0][loc].clone();
    // By hand: j ∈ 0..2 at loop, 0..1 at wait, 2 at done; x stays 0, so
    // `never` is not reached.
    assert_eq!(at(0), Some(vec![(0, 0), (0, 2)]));
    assert_eq!(at(1), Some(vec![(1, 1), (0, 1)]));
    assert_eq!(at(2), Some(vec![(2, 2), (2, 2)]));
    assert_eq!(at(3), None);
    assert_eq!(r.globals, vec![(0, 0)]);
}

#[test]
fn guards_narrow_what_assignments_read() {
    // By hand: y starts at 0 and gets the values of x allowed by the guard.
    assert_eq!(y_range("x < 3", "y := x"), (0, 2));
    assert_eq!(y_range("x <= 3", "y := x"), (0, 3));
    assert_eq!(y_range("x > 5", "y := x"), (0, 7));
    assert_eq!(y_range("x > 5", "y := x - 5"), (0, 2));
    assert_eq!(y_range("x >= 4 && x < 6", "y := x"), (0, 5));
    assert_eq!(y_range("x == 3", "y := x + 1"), (0, 4));
    assert_eq!(y_range("3 > x", "y := x"), (0, 2));
    // x < y: y starts at 0, so x < y never holds until y grows: y stays 0.
    assert_eq!(y_range("x < y", "y := x"), (0, 0));
    // An assignment reads the values written before it in the same step.
    assert_eq!(y_range("x < 2", "x := x + 3; y := x"), (0, 4));
    // Array cells: a guard on one cell narrows nothing; a write to a
    // cell keeps the others.
    assert_eq!(y_range("a[0] < 1", "y := a[1]"), (0, 5));
    assert_eq!(y_range("true", "a[0] := 2; y := a[1]"), (0, 5));
    // A guard with no solution inside the ranges never fires (`x < x`
    // is beyond intervals: it fires, harmlessly, as far as they know).
    assert_eq!(y_range("x > 5 && x < 3", "y := 7"), (0, 0));
    assert_eq!(y_range("x > 5 && 3 > x", "y := 7"), (0, 0));
    assert_eq!(y_range("x < x", "y := 7"), (0, 7));
    // Disjunctions and negations do not narrow.
    assert_eq!(y_range("x < 1 || x > 6", "y := x"), (0, 7));
    // A remainder within one block of the modulus is a shift.
    assert_eq!(y_range("x < 2", "y := (x + 257) % 256"), (0, 2));
    // Values outside the declared range are run-time errors, not values.
    assert_eq!(y_range("true", "y := x + 5"), (0, 7));
}

#[test]
fn a_receive_gets_what_the_sends_offer_and_sees_the_senders_effects() {
    // s: a -> b, `c!x + 2`, x := 5; t: a -> b, `c?y` when x == 0, then
    // z := x. By hand, with one interval for x over the whole run: x is 0,
    // then 5, so x ∈ 0..5; y gets x + 2 ∈ 2..7 (the run has 2); z gets x
    // ∈ 0..5 and not the 0..0 that t's guard `x == 0` allows, because the
    // sender's x := 5 runs before the receiver's effects (the run has 5).
    // u waits on `d?w`, which nobody sends: it never leaves a, and w keeps
    // its initial 1.
    let model = serde_json::json!({
        "name": "r",
        "channels": ["c", "d"],
        "globals": {"x": {"type": "int", "min": 0, "max": 7, "init": 0}},
        "threads": [
            {"name": "s", "start": "a",
                "transitions": [{"from": "a", "to": "b", "sync": "c!x + 2", "do": "x := 5"}]},
            {"name": "t", "start": "a",
                "locals": {"y": {"type": "int", "min": 0, "max": 7}, "z": {"type": "int", "min": 0, "max": 7}},
                "transitions": [{"from": "a", "to": "b", "when": "x == 0", "sync": "c?y", "do": "z := x"}]},
            {"name": "u", "start": "a",
                "locals": {"w": {"type": "int", "min": 0, "max": 7, "init": 1}},
                "transitions": [{"from": "a", "to": "b", "sync": "d?w"}]}
        ],
        "properties": [{"name": "bad", "error": "false"}]
    });
    let prog = crate::model::load_str(&model.to_string(), "r.json", &[])
        .map(crate::model::Model::into_program)
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let r = Ranges::infer(&prog);
    assert_eq!(r.globals, vec![(0, 5)]);
    // t at b: pc, y, z.
    assert_eq!(r.locals[1][1], Some(vec![(1, 1), (2, 7), (0, 5)]));
    assert_eq!(r.locals[2], vec![Some(vec![(0, 0), (1, 1)]), None]);
    assert!(super::common::reachable_outside_ranges(&prog).is_none());
}
