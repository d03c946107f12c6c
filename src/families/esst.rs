//! The cooperative models of seed 001 (Cimatti, Narasamdya and Roveri,
//! §6: ft-token-ring and ft-pc-sfifo, from the SystemC benchmarks of their
//! earlier papers), made finite: the token counts modulo 2^k, data range
//! over a small domain.

use serde_json::{Value, json};

/// The token ring with a master and `n` transmitters. The master draws a
/// token (any value modulo `2^k`, the least power of two above n), keeps a
/// copy, passes the token to transmitter 1 and waits; transmitter i waits
/// for its event, adds one, and passes it on; the last one hands it back to
/// the master, which checks that it grew by exactly n, and starts again.
/// With `bug`, the last transmitter forgets to add one: the check fails.
pub fn token_ring(n: u32, bug: bool) -> Value {
    let n = n.max(1);
    let modulus = (u64::from(n) + 1).next_power_of_two();
    let events: Vec<String> = (0..=n).map(|i| format!("e{i}")).collect();
    let mut threads = vec![json!({
        "name": "master",
        "locations": ["start", "waiting", "error"],
        "start": "start",
        "final": ["waiting"],
        "transitions": [
            {"from": "start", "to": "waiting", "do": "token := any; local := token",
             "notify": "e1", "wait": "e0", "label": "pass the token"},
            {"from": "waiting", "to": "start", "when": format!("token == (local + {n}) % {modulus}"),
             "label": "check"},
            {"from": "waiting", "to": "error", "when": format!("token != (local + {n}) % {modulus}"),
             "label": "check fails"},
        ]
    })];
    for i in 1..=n {
        let next = if i == n { 0 } else { i + 1 };
        let add = if bug && i == n {
            "token := token"
        } else {
            "token := (token + 1) % M"
        };
        threads.push(json!({
            "name": format!("t{i}"),
            "locations": ["start", "waiting"],
            "start": "start",
            "final": ["waiting"],
            "transitions": [
                {"from": "start", "to": "waiting", "wait": format!("e{i}"), "label": "wait for the token"},
                {"from": "waiting", "to": "waiting", "do": add.replace('M', &modulus.to_string()),
                 "notify": format!("e{next}"), "wait": format!("e{i}"), "label": "pass it on"},
            ]
        }));
    }
    let name = if bug {
        format!("token-ring-bug-{n}")
    } else {
        format!("token-ring-{n}")
    };
    json!({
        "format": "weft/1",
        "name": name,
        "description": format!(
            "ESST's token ring (seed 001, Table 1: ft-token-ring{}.{n}), cooperative: a master and {n} transmitters pass a token (modulo {modulus}) round the ring; the master checks it grew by {n}.{}",
            if bug { "-bug" } else { "" },
            if bug { " Bug: the last transmitter does not add one." } else { "" }
        ),
        "scheduling": "cooperative",
        "events": events,
        "globals": {
            "token": {"type": "int", "min": 0, "max": modulus - 1, "init": 0},
            "local": {"type": "int", "min": 0, "max": modulus - 1, "init": 0},
        },
        "threads": threads,
        "check-deadlock": true,
        "properties": [{"name": "token", "error": "master@error"}],
        "expect": {"standard": if bug { "unsafe" } else { "safe" }}
    })
}

/// Producer and consumer over a FIFO of capacity `variant` (1 or 2): the
/// producer writes the sequence numbers 0, 1, … (modulo 4), waiting while
/// the FIFO is full; the consumer reads, waiting while it is empty, and
/// checks that it reads them in order.
pub fn pc_sfifo(variant: u32) -> Value {
    let cap = variant.clamp(1, 2);
    json!({
        "format": "weft/1",
        "name": format!("pc-sfifo-{cap}"),
        "description": format!(
            "ESST's producer and consumer over a FIFO (seed 001, Table 1: ft-pc-sfifo{cap}), cooperative, a FIFO of capacity {cap}: the consumer checks that it reads the producer's sequence numbers (modulo 4) in order."
        ),
        "scheduling": "cooperative",
        "events": ["written", "read"],
        "globals": {
            "buf": {"type": "array", "len": cap, "of": {"type": "int", "min": 0, "max": 3}, "init": 0},
            "head": {"type": "int", "min": 0, "max": cap - 1, "init": 0},
            "items": {"type": "int", "min": 0, "max": cap, "init": 0},
        },
        "threads": [
            {
                "name": "producer", "start": "loop", "final": ["loop"],
                "locals": {"next": {"type": "int", "min": 0, "max": 3, "init": 0}},
                "transitions": [
                    {"from": "loop", "to": "loop", "when": format!("items < {cap}"),
                     "do": format!("buf[(head + items) % {cap}] := next; next := (next + 1) % 4; items := items + 1"),
                     "notify": "written", "yield": true, "label": "write"},
                    {"from": "loop", "to": "loop", "when": format!("items == {cap}"), "wait": "read", "label": "full: wait"},
                ]
            },
            {
                "name": "consumer", "start": "loop", "final": ["loop"],
                "locations": ["loop", "check", "error"],
                "locals": {
                    "expect": {"type": "int", "min": 0, "max": 3, "init": 0},
                    "got": {"type": "int", "min": 0, "max": 3, "init": 0},
                },
                "transitions": [
                    {"from": "loop", "to": "check", "when": "items > 0",
                     "do": format!("got := buf[head]; head := (head + 1) % {cap}; items := items - 1"),
                     "notify": "read", "label": "read"},
                    {"from": "loop", "to": "loop", "when": "items == 0", "wait": "written", "label": "empty: wait"},
                    {"from": "check", "to": "loop", "when": "got == expect", "do": "expect := (expect + 1) % 4", "yield": true, "label": "in order"},
                    {"from": "check", "to": "error", "when": "got != expect", "label": "out of order"},
                ]
            }
        ],
        "check-deadlock": true,
        "properties": [{"name": "order", "error": "consumer@error"}],
        "expect": {"standard": "safe"}
    })
}
