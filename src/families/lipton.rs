//! The families of Popeea, Rybalchenko and Wilhelm's Table I (reduction
//! for compositional verification): P1-x and P2-x (Fig. 1's program with x
//! statements in each reducible block), the SV-COMP stack with x elements,
//! and dining philosophers (Table II's dining-philos).

use serde_json::{Value, json};

/// The statements of one thread as `(label, when, do)`, in sequence from
/// `l0`; the thread ends at the last location.
fn sequence(stmts: &[(String, Option<String>, Option<String>)]) -> (Vec<Value>, Vec<String>) {
    let mut transitions = Vec::new();
    let mut locations = Vec::new();
    for (k, (label, when, act)) in stmts.iter().enumerate() {
        locations.push(format!("l{k}"));
        let mut t = json!({"from": format!("l{k}"), "to": format!("l{}", k + 1), "label": label});
        if let Some(w) = when {
            t["when"] = json!(w);
        }
        if let Some(a) = act {
            t["do"] = json!(a);
        }
        transitions.push(t);
    }
    locations.push(format!("l{}", stmts.len()));
    (transitions, locations)
}

fn acquire(m: &str) -> (String, Option<String>, Option<String>) {
    (
        format!("acquire({m})"),
        Some(format!("{m} == 0")),
        Some(format!("{m} := 1")),
    )
}
fn release(m: &str) -> (String, Option<String>, Option<String>) {
    (format!("release({m})"), None, Some(format!("{m} := 0")))
}
fn assign(s: &str) -> (String, Option<String>, Option<String>) {
    (s.replace(":=", "="), None, Some(s.to_string()))
}

fn thread(name: &str, stmts: &[(String, Option<String>, Option<String>)], locals: Value) -> Value {
    let (transitions, locations) = sequence(stmts);
    json!({"name": name, "locals": locals, "locations": locations, "start": "l0", "transitions": transitions})
}

/// P1-x (Fig. 1 for x = 1): thread-1 with two blocks, thread-2 adding 2 to
/// `x` under `mx`, thread-3 adding 2 to `y` under `my`; each block's
/// statement over the shared data is repeated x times (so the program
/// grows by 4 statements per x, as Table I's LOC column, 48 + 4(x−1)).
/// The error is the paper's, `x = 11` at the end, generalised: thread-1
/// reads `x` before or after thread-2's block, so at the end `x` is
/// 7 + 2x or 7 + 6x, never the 7 + 4x that a-c-b-d would give.
/// With `race` (P2-x) thread-3 also reads `y` without holding `my`.
pub fn p1(x: u32, race: bool) -> Value {
    let k = x.max(1) as i64;
    let mut t1 = vec![acquire("mx"), assign("a := x"), acquire("my")];
    t1.extend((0..k).map(|_| assign("y := y + a")));
    t1.extend([release("my"), assign("a := a + 1"), acquire("my")]);
    t1.extend((0..k).map(|_| assign("y := y + a")));
    t1.extend([release("my"), assign("x := 2 * x + a"), release("mx")]);
    let mut t2 = vec![acquire("mx")];
    t2.extend((0..k).map(|_| assign("x := x + 2")));
    t2.push(release("mx"));
    let mut t3 = vec![acquire("my")];
    t3.extend((0..k).map(|_| assign("y := y + 2")));
    t3.push(release("my"));
    if race {
        t3.push(assign("b := y"));
    }
    let (end1, end2, end3) = (t1.len(), t2.len(), t3.len());
    let x_max = 7 + 6 * k;
    let a_max = 3 + 2 * k;
    let y_max = 2 + 2 * k + k * (2 + 2 * k) + k * a_max;
    let name = format!("{}-{x}", if race { "p2" } else { "p1" });
    let int = |max: i64, init: i64| json!({"type": "int", "min": 0, "max": max, "init": init});
    let lock = json!({"type": "int", "min": 0, "max": 1, "init": 0, "lock": true});
    let t3_locals = if race {
        json!({"b": int(y_max, 0)})
    } else {
        json!({})
    };
    json!({
        "format": "weft/1",
        "name": name,
        "description": format!(
            "Popeea, Rybalchenko and Wilhelm, Fig. 1 and Table I: {} with {x} statement(s) in each reducible block; x ends as 7+2x or 7+6x, never 7+4x.",
            if race { "P2 (thread-3 also reads y without my)" } else { "P1" }
        ),
        "globals": {"x": int(x_max, 2), "y": int(y_max, 2), "mx": lock.clone(), "my": lock},
        "threads": [
            thread("t1", &t1, json!({"a": int(a_max, 0)})),
            thread("t2", &t2, json!({})),
            thread("t3", &t3, t3_locals),
        ],
        "properties": [{
            "name": "x-end",
            "error": format!("x == {} && t1@l{end1} && t2@l{end2} && t3@l{end3}", 7 + 4 * k)
        }],
        "expect": {"standard": "safe"}
    })
}

/// SV-COMP's `stack_safe`/`stack_unsafe` (Table I's stack-safe-x and
/// stack-unsafe-x): a pusher and a popper, `size` rounds each under the
/// lock `m`; the errors are a push on a full stack and a pop of an empty
/// one (SV-COMP's `OVERFLOW`, `UNDERFLOW`). The popper pops
/// when `top > 0`; with `bug`, when `flag` (set by the first push), so it
/// can pop an empty stack.
pub fn stack(size: u32, bug: bool) -> Value {
    let size = size.max(1);
    let cond = if bug { "flag" } else { "top > 0" };
    json!({
        "format": "weft/1",
        "name": format!("stack-{}-{size}", if bug { "unsafe" } else { "safe" }),
        "description": format!("SV-COMP pthread stack_{} with SIZE = {size} (Popeea, Rybalchenko and Wilhelm, Table I): the errors are a push on a full stack, a pop of an empty one.", if bug { "unsafe" } else { "safe" }),
        "params": {"size": size},
        "globals": {
            "top": {"type": "int", "min": 0, "max": "size", "init": 0},
            "flag": {"type": "bool", "init": false},
            "m": {"type": "int", "min": 0, "max": 1, "init": 0, "lock": true}
        },
        "threads": [
            {
                "name": "pusher",
                "locals": {"i": {"type": "int", "min": 0, "max": "size", "init": 0}},
                "locations": ["head", "locked", "pushed", "flagged", "done"],
                "start": "head",
                "transitions": [
                    {"from": "head", "to": "locked", "when": "i < size && m == 0", "do": "m := 1", "label": "lock(m)"},
                    {"from": "locked", "to": "pushed", "do": "top := top + 1", "label": "push"},
                    {"from": "pushed", "to": "flagged", "do": "flag := true", "label": "flag = TRUE"},
                    {"from": "flagged", "to": "head", "do": "m := 0; i := i + 1", "label": "unlock(m)"},
                    {"from": "head", "to": "done", "when": "i == size", "label": "exit"}
                ]
            },
            {
                "name": "popper",
                "locals": {"i": {"type": "int", "min": 0, "max": "size", "init": 0}},
                "locations": ["head", "locked", "popping", "popped", "done"],
                "start": "head",
                "transitions": [
                    {"from": "head", "to": "locked", "when": "i < size && m == 0", "do": "m := 1", "label": "lock(m)"},
                    {"from": "locked", "to": "popping", "when": cond, "label": format!("if ({cond})")},
                    {"from": "locked", "to": "popped", "when": format!("!({cond})"), "label": "skip"},
                    {"from": "popping", "to": "popped", "when": "top > 0", "do": "top := top - 1", "label": "pop"},
                    {"from": "popped", "to": "head", "do": "m := 0; i := i + 1", "label": "unlock(m)"},
                    {"from": "head", "to": "done", "when": "i == size", "label": "exit"}
                ]
            }
        ],
        "properties": [
            {"name": "overflow", "error": "pusher@locked && top == size"},
            {"name": "underflow", "error": "popper@popping && top == 0"}
        ],
        "expect": {"standard": if bug { "unsafe" } else { "safe" }}
    })
}

/// Dining philosophers (Table II's dining-philos): `n` philosophers round
/// a table, fork i a lock between philosopher i and i+1; each takes the
/// lower-numbered fork first (no deadlock), eats once, puts both back.
/// The error: two neighbours eating at once.
pub fn philosophers(n: u32) -> Value {
    let n = n.max(2);
    let mut globals = serde_json::Map::new();
    for i in 0..n {
        globals.insert(
            format!("f{i}"),
            json!({"type": "int", "min": 0, "max": 1, "init": 0, "lock": true}),
        );
    }
    let threads: Vec<Value> = (0..n)
        .map(|i| {
            let (a, b) = (i.min((i + 1) % n), i.max((i + 1) % n));
            json!({
                "name": format!("phil{i}"),
                "locations": ["think", "one", "eat", "put", "done"],
                "start": "think",
                "transitions": [
                    {"from": "think", "to": "one", "when": format!("f{a} == 0"), "do": format!("f{a} := 1"), "label": format!("take f{a}")},
                    {"from": "one", "to": "eat", "when": format!("f{b} == 0"), "do": format!("f{b} := 1"), "label": format!("take f{b}")},
                    {"from": "eat", "to": "put", "do": format!("f{b} := 0"), "label": format!("put f{b}")},
                    {"from": "put", "to": "done", "do": format!("f{a} := 0"), "label": format!("put f{a}")}
                ]
            })
        })
        .collect();
    let error = (0..n)
        .map(|i| format!("(phil{i}@eat && phil{}@eat)", (i + 1) % n))
        .collect::<Vec<_>>()
        .join(" || ");
    json!({
        "format": "weft/1",
        "name": format!("philosophers-{n}"),
        "description": format!("{n} dining philosophers, forks as locks, the lower fork first."),
        "globals": globals,
        "threads": threads,
        "properties": [{"name": "neighbours-eat", "error": error}],
        "expect": {"standard": "safe"}
    })
}
