//! Generators for the papers' model families, as weft/1 JSON documents
//! (load them with [`crate::Model::from_json`]). The bench harness and the
//! tests use these; `weft gen` prints them. Each builds the whole model in
//! memory: the sizes meant are `weft gen`'s (up to 100,000 threads or
//! statements).

use serde_json::{Value, json};

mod esst;
mod lipton;
pub use esst::{pc_sfifo, token_ring};
pub use lipton::{p1, philosophers, stack};

/// The lock schema of the precise thread-modular paper (Sections 5 and 6,
/// Fig. 3 reconstructed from the text): `n` identical threads, each with `m`
/// critical sections in sequence guarded by one lock `lck`, and the
/// Section 5 exception set.
pub fn lock(n: u32, m: u32) -> Value {
    let mut transitions = Vec::new();
    let mut crit = Vec::new();
    for k in 1..=m {
        let next = if k == m {
            "done".to_string()
        } else {
            format!("l1_{}", k + 1)
        };
        transitions.push(json!({"from": format!("l1_{k}"), "to": format!("l2_{k}"), "when": "lck == 0", "do": "lck := 1", "label": format!("acquire {k}")}));
        transitions.push(json!({"from": format!("l2_{k}"), "to": format!("l3_{k}"), "label": format!("critical {k}")}));
        transitions.push(json!({"from": format!("l3_{k}"), "to": next, "do": "lck := 0", "label": format!("release {k}")}));
        crit.push(format!("l2_{k}"));
        crit.push(format!("l3_{k}"));
    }
    json!({
        "format": "weft/1",
        "name": format!("lock-{n}-{m}"),
        "description": format!("Lock schema of Malkis, Podelski and Rybalchenko: {n} threads with {m} critical sections each."),
        "params": {"n": n},
        "globals": {"lck": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [{
            "name": "p", "count": "n", "start": "l1_1",
            "groups": {"crit": crit},
            "transitions": transitions
        }],
        "properties": [{"name": "mutex", "error": "count(p: @crit) >= 2"}],
        "exceptions": [{"when": "lck != 0", "one": "@crit", "others": "!@crit"}],
        "expect": {"standard": "safe", "thread-modular": "unknown", "cartesian-exc": "safe", "refine": "safe"}
    })
}

/// Simple(n) of the thread-modular paper (Section 1.1); with `boolean_mutex`
/// the Section 1.2 variant where the mutex is a bool.
pub fn simple(n: u32, boolean_mutex: bool) -> Value {
    let (m, acquire, release, inv) = if boolean_mutex {
        (
            json!({"type": "bool", "init": false}),
            json!({"from": "1", "to": "2", "when": "!m", "do": "m := true", "label": "acquire"}),
            "m := false",
            "!m -> x == 1",
        )
    } else {
        (
            json!({"type": "int", "min": 0, "max": "n", "init": 0}),
            json!({"from": "1", "to": "2", "when": "m == 0", "do": "m := tid", "label": "acquire"}),
            "m := 0",
            "m == 0 -> x == 1",
        )
    };
    json!({
        "format": "weft/1",
        "name": if boolean_mutex { format!("simple-bool-{n}") } else { format!("simple-{n}") },
        "params": {"n": n},
        "globals": {"m": m, "x": {"type": "int", "min": 0, "max": 2, "init": 1}},
        "threads": [{
            "name": "p", "count": "n", "start": "1",
            "transitions": [
                acquire,
                {"from": "2", "to": "3", "do": "x := 0", "label": "x := 0"},
                {"from": "3", "to": "4", "do": "x := x + 1", "label": "x := x + 1"},
                {"from": "4", "to": "5", "assert": "x > 0", "label": "assert x > 0"},
                {"from": "5", "to": "6", "do": release, "label": "release"}
            ]
        }],
        "properties": [
            {"name": "no-race", "error": "count(p: @2 || @3 || @4) >= 2"},
            {"name": "inv", "invariant": inv}
        ],
        "expect": if boolean_mutex { json!({"standard": "safe", "thread-modular": "unknown", "refine": "safe"}) } else { json!({"standard": "safe", "thread-modular": "safe", "refine": "safe"}) }
    })
}

/// The number of reachable states of lock(n, m), counted independently of
/// any engine: with the lock free every thread is at one of m+1 non-critical
/// positions; with it held, one thread is at one of 2m critical locations
/// and the others anywhere non-critical. `None` when the count does not fit
/// in a `u128` (lock(100, 9) has about 10^100 states).
pub fn lock_state_count(n: u32, m: u32) -> Option<u128> {
    let positions = u128::from(m) + 1;
    let free = positions.checked_pow(n)?;
    let held = match n.checked_sub(1) {
        None => 0,
        Some(others) => {
            (u128::from(n) * 2 * u128::from(m)).checked_mul(positions.checked_pow(others)?)?
        }
    };
    free.checked_add(held)
}

/// Peterson's algorithm for two threads (precise thread-modular paper,
/// Fig. 2 and Section 2), with the paper's exception set: the same model as
/// models/peterson.json.
pub fn peterson() -> Value {
    let thread = |name: &str, mine: &str, other: &str, yield_to: u32, my_turn: u32| {
        json!({
            "name": name,
            "count": 1,
            "start": "A",
            "transitions": [
                {"from": "A", "to": "B", "do": format!("{mine} := 1"), "label": "want"},
                {"from": "B", "to": "C", "do": format!("turn := {yield_to}"), "label": "yield turn"},
                {"from": "C", "to": "D", "when": format!("{other} == 0 || turn == {my_turn}"), "label": "enter"},
                {"from": "D", "to": "A", "do": format!("{mine} := 0"), "label": "leave"}
            ]
        })
    };
    let bit = |init: u32| json!({"type": "int", "min": 0, "max": 1, "init": init});
    let both_want = |turn: u32| format!("x == 1 && y == 1 && turn == {turn}");
    json!({
        "format": "weft/1",
        "name": "peterson",
        "description": "Peterson's mutual exclusion algorithm for two threads, as in Fig. 2 of Malkis, Podelski and Rybalchenko, 'Precise thread-modular verification' (Section 2). Each thread announces its wish to enter (x or y := 1), yields the turn to the other thread, waits until the other thread does not want to enter or the turn is its own, and then occupies its critical section at location D. The property is mutual exclusion: P1 and P2 are never both at D. Expected verdicts: standard is safe because the algorithm is correct; thread-modular is unknown because the plain Cartesian over-approximation contains the spurious states (110, D, D) and (111, D, D); cartesian-exc is safe because the exception set E = {(110, B, D), (110, C, C), (111, D, B)} keeps exactly the correlations that the Cartesian abstraction loses, and its fixpoint is the paper's X4, which contains no state with both threads at D.",
        "globals": {"x": bit(0), "y": bit(0), "turn": bit(0)},
        "threads": [thread("P1", "x", "y", 1, 0), thread("P2", "y", "x", 0, 1)],
        "properties": [{"name": "mutex", "error": "P1@D && P2@D"}],
        "exceptions": [
            {"when": both_want(0), "threads": {"P1": "@B", "P2": "@D"}},
            {"when": both_want(0), "threads": {"P1": "@C", "P2": "@C"}},
            {"when": both_want(1), "threads": {"P1": "@D", "P2": "@B"}}
        ],
        "expect": {"standard": "safe", "thread-modular": "unknown", "cartesian-exc": "safe", "refine": "safe"}
    })
}
