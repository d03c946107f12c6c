//! Generators for the papers' model families, as weft/1 JSON. The bench
//! harness and the tests use these; `weft gen` prints them.

use serde_json::{Value, json};

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
        "expect": {"standard": "safe", "thread-modular": "unknown", "cartesian-exc": "safe"}
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
        "expect": if boolean_mutex { json!({"standard": "safe", "thread-modular": "unknown"}) } else { json!({"standard": "safe", "thread-modular": "safe"}) }
    })
}

/// The number of reachable states of lock(n, m), counted independently of
/// any engine: with the lock free every thread is at one of m+1 non-critical
/// positions; with it held, one thread is at one of 2m critical locations
/// and the others anywhere non-critical.
pub fn lock_state_count(n: u32, m: u32) -> u128 {
    let free = (m as u128 + 1).pow(n);
    let held = n as u128 * 2 * m as u128 * (m as u128 + 1).pow(n - 1);
    free + held
}
