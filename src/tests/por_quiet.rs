//! Quiet sides in `--por`'s transition closure (engine/por/stubborn): a
//! rendezvous side that is a self-loop with no effect (a memory cell's
//! read, `q -> q { sync read!x; }` in BEEM's lamport_nonatomic) does not
//! move its thread, so holding the cell through it leaves the cell's other
//! quiet sides, and their partners, out of the set, until a member that
//! moves the cell (its write, say) is enabled in the set.
//!
//! Differentially, on models built around such cells: a cell with quiet
//! reads (guarded or not, of a global it may also write), a write that
//! changes what it sends, a step that takes it elsewhere, and clients that
//! read, write, branch on what they read and step on their own; deadlocks
//! (with random final locations) and error properties. Every verdict
//! equals the unreduced search's (`por::agree`).

use super::common;
use super::por::agree;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Four readers of a cell that only sends: each reader's read commutes
/// with the others', so the reduced search takes them one at a time (5
/// states: none read, one, ..., four) where the full one stores every
/// subset of readers done (2^4 = 16), and both reach the deadlock where
/// every reader is done and the cell has no partner. Of the five, the
/// three between the first and the deadlock have one reduced step each,
/// and are passed through, not stored (standard/pass/).
#[test]
fn a_cells_reads_leave_the_other_readers_out() {
    let m = json!({"name": "cell", "channels": ["rd"],
        "globals": {"x": {"type": "int", "min": 0, "max": 1, "init": 1}},
        "threads": [
            {"name": "cell", "start": "q", "transitions": [{"from": "q", "to": "q", "sync": "rd!x"}]},
            {"name": "r", "count": 4, "start": "idle",
             "locals": {"v": {"type": "int", "min": 0, "max": 1, "init": 0}},
             "transitions": [{"from": "idle", "to": "done", "sync": "rd?v"}]}],
        "check-deadlock": true,
        "properties": []});
    let prog = common::load_value(&m);
    assert_eq!(agree(&prog).unwrap(), (16, 2));
    let r = crate::engine::check(&prog, crate::engine::Mode::Standard, &super::por::por(1));
    assert_eq!(r.unwrap().stats.count("por_passed_states"), Some(3));
}

/// With a writer ready, the write moves the cell (it changes what the
/// cell sends), so a set holding the write holds every read too. Here the
/// cell offers its value while it is 0; `r1` deadlocks at `got` only if
/// it reads before the write, and `r0`, earlier in the thread order, reads
/// for ever without changing the state: a set of `r0`, the cell and the
/// writer that left `r1`'s read out would be chosen at every state and
/// lose the deadlock.
#[test]
fn a_cells_enabled_write_brings_its_reads_back() {
    let reader = |name: &str, transitions: Value| {
        json!({"name": name, "start": "idle", "locations": ["idle", "got", "done"],
            "final": ["idle", "done"],
            "locals": {"v": {"type": "int", "min": 0, "max": 1, "init": 0}},
            "transitions": transitions})
    };
    let m = json!({"name": "cell", "channels": ["rd", "wr"],
        "globals": {"x": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "threads": [
            {"name": "cell", "start": "q", "final": ["q"], "transitions": [
                {"from": "q", "to": "q", "when": "x == 0", "sync": "rd!x"},
                {"from": "q", "to": "q", "sync": "wr?x"}]},
            {"name": "w", "start": "a", "transitions": [{"from": "a", "to": "b", "sync": "wr!1"}]},
            reader("r0", json!([{"from": "idle", "to": "idle", "sync": "rd?v"}])),
            reader("r1", json!([
                {"from": "idle", "to": "got", "sync": "rd?v"},
                {"from": "got", "to": "done", "when": "v == 1"}]))],
        "check-deadlock": true,
        "properties": []});
    let prog = common::load_value(&m);
    let full = crate::engine::check(&prog, crate::engine::Mode::Standard, &Default::default());
    assert_eq!(
        full.unwrap().outcomes[0].verdict,
        crate::engine::Verdict::Unsafe
    );
    agree(&prog).unwrap();
}

const CELL: &[&str] = &[
    r#"{"from": "q", "to": "q", "when": "y != 2", "sync": "rd!x"}"#,
    r#"{"from": "q", "to": "q", "sync": "wr?x"}"#,
    r#"{"from": "q", "to": "q", "sync": "c?"}"#,
    r#"{"from": "q", "to": "q", "when": "z == 0", "sync": "rd!y"}"#,
    r#"{"from": "q", "to": "r", "when": "z == 1"}"#,
    r#"{"from": "r", "to": "q", "sync": "wr?y"}"#,
    r#"{"from": "q", "to": "q", "when": "x == 2", "do": "x := 0"}"#,
    r#"{"from": "r", "to": "r", "sync": "rd!z"}"#,
    r#"{"from": "q", "to": "q", "when": "x == 0", "sync": "rd!x"}"#,
];

const CLIENT: &[&str] = &[
    r#""sync": "rd?v""#,
    r#""sync": "wr!k""#,
    r#""sync": "wr!2""#,
    r#""when": "v == 1", "do": "y := (y + 1) % 3""#,
    r#""do": "z := 1 - z""#,
    r#""sync": "c!""#,
    r#""when": "y == v""#,
    r#""do": "k := 1 - k""#,
    r#""when": "v != k", "sync": "rd?v""#,
    r#""when": "v == 1""#,
    r#""sync": "wr!1""#,
];

/// Half of the models check deadlocks only (`false`).
const ERRORS: &[&str] = &[
    "y == 2 && z == 1",
    "exists(*: @L2) && x == 2",
    "x == 1 && y == 1",
    "false",
    "false",
    "false",
];

/// What a client does before its random steps: nothing; read for ever;
/// write 1 once; read once and go on only if it read 1 (the roles of
/// `a_cells_enabled_write_brings_its_reads_back`, whose shape random
/// steps alone did not reach in 20,000 cases).
const ROLES: &[&[(usize, usize, usize)]] =
    &[&[], &[(0, 0, 0)], &[(0, 1, 10)], &[(0, 1, 0), (1, 2, 9)]];

/// Final locations of a deadlock check: the cell rests at q, and each
/// client at the locations of a random mask (or those no step leaves).
fn finals(threads: &mut [Value], masks: &[Option<u8>]) {
    threads[0]["final"] = json!(["q"]);
    for (t, mask) in threads[1..].iter_mut().zip(masks) {
        if let Some(mask) = mask {
            let locs: Vec<String> = (0..3)
                .filter(|b| mask & (1 << b) != 0)
                .map(|b| format!("L{b}"))
                .collect();
            t["final"] = json!(locs);
        }
    }
}

/// A cell (a quiet read, then its write, then up to three more
/// transitions) and three clients over locations L0..L2, each a role
/// followed by random steps.
fn cell_model() -> impl Strategy<Value = Value> {
    // The read is CELL[0] or, while x is 0, CELL[8].
    let cell = (
        any::<bool>(),
        proptest::collection::vec(1..CELL.len(), 0..4),
    )
        .prop_map(|(guarded, mut ts)| {
            ts.splice(0..0, [if guarded { 8 } else { 0 }, 1]);
            ts
        });
    let step = (0..3usize, 0..3usize, 0..CLIENT.len());
    let client =
        (0..ROLES.len(), proptest::collection::vec(step, 0..3)).prop_map(|(r, mut steps)| {
            steps.splice(0..0, ROLES[r].iter().copied());
            steps
        });
    (
        cell,
        proptest::collection::vec(client, 3),
        0..ERRORS.len(),
        prop_oneof![Just(0i64), 0..3i64],
        proptest::collection::vec(proptest::option::weighted(0.75, 0u8..8), 3),
    )
        .prop_map(|(cell, clients, e, x, masks)| {
            let cell_ts: Vec<Value> = cell.iter().map(|&i| serde_json::from_str(CELL[i]).unwrap()).collect();
            let mut threads = vec![json!({"name": "cell", "start": "q", "locations": ["q", "r"], "transitions": cell_ts})];
            for (i, steps) in clients.iter().enumerate() {
                let ts: Vec<Value> = steps
                    .iter()
                    .map(|&(f, t, s)| serde_json::from_str(&format!(r#"{{"from": "L{f}", "to": "L{t}", {}}}"#, CLIENT[s])).unwrap())
                    .collect();
                threads.push(json!({"name": format!("t{i}"), "start": "L0",
                    "locations": ["L0", "L1", "L2"],
                    "locals": {"v": {"type": "int", "min": 0, "max": 2, "init": 0},
                               "k": {"type": "int", "min": 0, "max": 1, "init": 0}},
                    "transitions": ts}));
            }
            let deadlocks = ERRORS[e] == "false";
            if deadlocks {
                finals(&mut threads, &masks);
            }
            json!({"name": "cell", "channels": ["rd", "wr", "c"],
                "globals": {"x": {"type": "int", "min": 0, "max": 2, "init": x},
                            "y": {"type": "int", "min": 0, "max": 2, "init": 0},
                            "z": {"type": "int", "min": 0, "max": 1, "init": 0}},
                "threads": threads,
                "check-deadlock": deadlocks,
                "properties": [{"name": "bad", "error": ERRORS[e]}]})
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Models around a memory cell: the same verdicts with and without
    /// `--por`.
    #[test]
    fn por_keeps_every_verdict_of_models_with_memory_cells(m in cell_model()) {
        agree(&common::load_value(&m))?;
    }
}
