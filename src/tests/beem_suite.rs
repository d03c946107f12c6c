//! The whole BEEM suite up to a million states: every instance of the
//! public BEEM copy (GitHub plug-obp/beem-benchmark) whose published count
//! is complete and at most 1,000,000 states, copied to tests/data/beem/dve
//! with its published figures in tests/data/beem/suite.csv (written by
//! `scripts/beem-import.py BEEM_CHECKOUT 1000000` from BEEM's results.xml
//! and stat.xml). The larger instances are run by scripts/beem-suite.py
//! (docs/beem.md): the 36 from one to five million states took this test
//! from 3.5 to 10 minutes on the project's 2-core machine, and CI to
//! about 17.

use super::beem::{data, stat};
use crate::engine::{self, CheckOptions, Mode};

/// Runs every row of suite.csv with DiVinE's error state
/// (`--divine-errors`: anderson.1 overflows), and compares states and, where BEEM publishes them,
/// edges, BFS levels and states of out-degree 0. Returns how many rows
/// ran and every difference.
fn run_published() -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(data().join("suite.csv")).unwrap();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let num = |i: usize| f.get(i).and_then(|s| s.parse::<u64>().ok());
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
    let (checked, wrong) = run_published();
    assert_eq!(checked, 176, "rows of suite.csv up to a million states");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
