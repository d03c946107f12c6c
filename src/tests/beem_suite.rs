//! The whole BEEM suite up to five million states: every instance of the
//! public BEEM copy (GitHub plug-obp/beem-benchmark) whose published count
//! is complete and at most 5,000,000 states, copied to tests/data/beem/dve
//! with its published figures in tests/data/beem/suite.csv (written by
//! `scripts/beem-import.py BEEM_CHECKOUT 5000000` from BEEM's results.xml
//! and stat.xml). Two tests, which the harness runs side by side: the 176
//! instances up to a million states, and the 36 from one to five million
//! (80 M states; about 2.8 minutes alone on the project's 2-core machine).
//! The larger instances are run by scripts/beem-suite.py (docs/beem.md).

use super::beem::{data, stat};
use crate::engine::{self, CheckOptions, Mode};

/// Runs every row of suite.csv whose published state count lies in
/// `states` with DiVinE's error state (`--divine-errors`: anderson.1
/// overflows), and compares states and, where BEEM publishes them, edges,
/// BFS levels and states of out-degree 0. Returns how many rows ran and
/// every difference.
fn run_published(states: std::ops::RangeInclusive<u64>) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(data().join("suite.csv")).unwrap();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let num = |i: usize| f.get(i).and_then(|s| s.parse::<u64>().ok());
        if !num(1).is_some_and(|n| states.contains(&n)) {
            continue;
        }
        let path = data().join(f[0]);
        let prog = crate::model::load_any_with(&path, &[], None, true)
            .map(crate::model::Model::into_program)
            .unwrap_or_else(|d| panic!("{}", d.render()));
        let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        let got = [
            ("states", Some(stat(&r, "states"))),
            ("edges", Some(stat(&r, "transitions"))),
            ("BFS levels", Some(stat(&r, "depth") + 1)),
            (
                "deadlocks",
                r.stats.get("deadlocks").and_then(|v| v.as_u64()),
            ),
        ];
        for (k, (what, value)) in got.into_iter().enumerate() {
            if let Some(want) = num(k + 1)
                && value != Some(want)
            {
                wrong.push(format!("{}: {what} {value:?}, published {want}", f[0]));
            }
        }
        checked += 1;
    }
    (checked, wrong)
}

#[test]
fn published_counts_of_the_whole_suite_up_to_a_million_states() {
    let (checked, wrong) = run_published(0..=1_000_000);
    assert_eq!(checked, 176, "rows of suite.csv up to a million states");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn published_counts_from_one_to_five_million_states() {
    let (checked, wrong) = run_published(1_000_001..=5_000_000);
    assert_eq!(
        checked, 36,
        "rows of suite.csv from one to five million states"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
