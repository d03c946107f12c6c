use super::*;
use crate::tests::common;

fn program(globals: serde_json::Value, exceptions: serde_json::Value) -> Program {
    common::load_value(&serde_json::json!({
        "format": "weft/1",
        "name": "boxes",
        "globals": globals,
        "threads": [{"name": "p", "count": 2, "start": "A",
            "transitions": [{"from": "A", "to": "A"}]}],
        "properties": [{"name": "two", "error": "count(p: @A) >= 3"}],
        "exceptions": exceptions
    }))
}

/// The stores `Admitted` instantiates at, as values, with their entries.
fn admitted(prog: &Program, ranges: &[Interval]) -> Option<Vec<(Vec<Val>, Vec<usize>)>> {
    let mut interner = Interner::default();
    let at = Admitted::new(prog, ranges, &mut interner, 1 << 20)?;
    let mut entries = Vec::new();
    Some(
        at.gs
            .iter()
            .map(|&g| {
                at.entries_at(g, &mut entries);
                (interner.get(g).to_vec(), entries.clone())
            })
            .collect(),
    )
}

#[test]
fn an_entry_pinning_every_global_is_instantiated_at_its_one_store() {
    let prog = program(
        serde_json::json!({
            "x": {"type": "int", "min": 0, "max": 9, "init": 0},
            "t": {"type": "array", "len": 2, "of": {"type": "int", "min": 0, "max": 9}, "init": 0}
        }),
        serde_json::json!([
            {"when": "x == 3 && t[0] == 1 && 2 == t[1]", "threads": {"*": "@A"}},
            {"when": "t[1] == 0 && x == 3 && t[0] == 1", "threads": {"*": "@A"}},
            {"when": "x == 3 && x == 4", "threads": {"*": "@A"}}
        ]),
    );
    let ranges = [(0, 9), (0, 9), (0, 9)];
    // In mixed-radix order, each with the entries whose box holds it; the
    // third holds nowhere.
    assert_eq!(
        admitted(&prog, &ranges).unwrap(),
        vec![(vec![3, 1, 0], vec![1]), (vec![3, 1, 2], vec![0])]
    );
}

#[test]
fn comparisons_and_booleans_narrow_to_a_box() {
    let prog = program(
        serde_json::json!({
            "x": {"type": "int", "min": 0, "max": 9, "init": 0},
            "b": {"type": "bool", "init": false}
        }),
        serde_json::json!([
            {"when": "x < 2 && b", "threads": {"*": "@A"}},
            {"when": "7 < x && x != 9 && !b", "threads": {"*": "@A"}}
        ]),
    );
    let stores: Vec<Vec<Val>> = admitted(&prog, &[(0, 9), (0, 1)])
        .unwrap()
        .into_iter()
        .map(|(s, _)| s)
        .collect();
    assert_eq!(stores, vec![vec![0, 1], vec![1, 1], vec![8, 0]]);
}

#[test]
fn an_entry_narrowing_nothing_is_instantiated_everywhere() {
    let prog = program(
        serde_json::json!({"x": {"type": "int", "min": 0, "max": 2, "init": 0}}),
        serde_json::json!([
            {"when": "x == 1", "threads": {"*": "@A"}},
            {"when": "x * 2 == 2", "threads": {"*": "@A"}}
        ]),
    );
    assert_eq!(
        admitted(&prog, &[(0, 2)]).unwrap(),
        vec![
            (vec![0], vec![1]),
            (vec![1], vec![0, 1]),
            (vec![2], vec![1])
        ]
    );
}

#[test]
fn too_many_stores_are_refused() {
    let prog = program(
        serde_json::json!({"x": {"type": "int", "min": 0, "max": 2, "init": 0}}),
        serde_json::json!([{"when": "x >= 0", "threads": {"*": "@A"}}]),
    );
    let wide = vec![(0, 15); 6]; // 16^6 = 2^24 stores
    assert!(admitted(&prog, &wide).is_none());
}

#[test]
fn a_store_in_several_boxes_counts_once() {
    // Found by review: two entries' boxes of 600 × 1024 stores each, the
    // same ones, were refused as 1,228,800 > 2^20.
    let prog = program(
        serde_json::json!({"x": {"type": "int", "min": 0, "max": 2, "init": 0}}),
        serde_json::json!([
            {"when": "x < 600", "threads": {"*": "@A"}},
            {"when": "x < 600", "threads": {"*": "@A"}}
        ]),
    );
    let stores = admitted(&prog, &[(0, 1023), (0, 1023)]).expect("614,400 stores");
    assert_eq!(stores.len(), 600 * 1024);
    assert!(stores.iter().all(|(_, entries)| entries == &[0, 1]));
}
