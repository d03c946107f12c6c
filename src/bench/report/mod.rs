//! report.json (every record, the machine, the settings) and report.md
//! (what a person reads: Fig. 4 layout tables, the paper's seconds beside
//! ours, a Fig. 1 comparison, and a paragraph computed from the data).
//!
//! | module | job |
//! |---|---|
//! | `json` | report.json |
//! | `markdown` | report.md: the document, its per-mode tables, the growth table, the plot section |
//! | `fig1` | the Fig. 1 comparison: standard against cartesian-exc on lock(n, 1) |
//! | `fit` | least-squares fits of time against n, and the paper's exponents |
//! | `prose` | the "What this shows" paragraph |
//! | `scaling` | the storage and symmetry presets' table: states/s, bytes per state, the full count under symmetry |
//! | `refine` | the refine preset's refine.md and refine.json: standard beside refine's strategies per model, disagreements, the control-abstraction paper's Table 1 beside |
//!
//! This module holds the `Bench` the report is made of and the questions
//! every part asks of the records (rows, columns, modes). Number formatting
//! is in `bench::format` and the plot's curves in `bench::series`, which
//! `plot` uses too: report and plot do not depend on each other.

mod fig1;
mod fit;
mod json;
mod markdown;
mod prose;
mod refine;
mod scaling;

pub(crate) use json::to_json;
pub(crate) use markdown::to_markdown;
pub(crate) use refine::{disagreements, to_json as refine_json, to_markdown as refine_markdown};

use super::grid::{Family, Source};
use super::harness::Limits;
use super::machine::Machine;
use super::record::Record;
use crate::engine::Mode;

/// Everything a report is made of.
pub(crate) struct Bench {
    pub(crate) machine: Machine,
    /// The command line, as `weft bench ...`.
    pub(crate) command: String,
    pub(crate) preset: Option<String>,
    pub(crate) repeat: u32,
    pub(crate) limits: Limits,
    /// `--jobs` of standard's children.
    pub(crate) jobs: u16,
    /// Seconds since the Unix epoch at the start.
    pub(crate) started_unix: u64,
    /// Wall-clock seconds of the whole bench.
    pub(crate) wall_s: f64,
    pub(crate) records: Vec<Record>,
}

pub(crate) const SVG_NAME: &str = "time_vs_threads.svg";

/// Columns of the Fig. 4 layout: the grid's thread counts.
fn columns(recs: &[&Record]) -> Vec<Option<u32>> {
    let mut ns: Vec<Option<u32>> = Vec::new();
    for r in recs {
        if !ns.contains(&r.point.n) {
            ns.push(r.point.n);
        }
    }
    ns.sort();
    ns
}

/// Rows: (source, m) in record order.
fn rows(recs: &[&Record]) -> Vec<(Source, Option<u32>)> {
    let mut out: Vec<(Source, Option<u32>)> = Vec::new();
    for r in recs {
        let k = (r.point.source.clone(), r.point.m);
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

fn modes(recs: &[Record]) -> Vec<Mode> {
    let mut out: Vec<Mode> = Vec::new();
    for r in recs {
        if !out.contains(&r.point.mode) {
            out.push(r.point.mode);
        }
    }
    out
}

fn all_lock(recs: &[Record]) -> bool {
    recs.iter()
        .all(|r| r.point.source == Source::Family(Family::Lock))
}

fn subject(recs: &[Record]) -> String {
    let mut sources: Vec<&Source> = Vec::new();
    for r in recs {
        if !sources.contains(&&r.point.source) {
            sources.push(&r.point.source);
        }
    }
    match sources.as_slice() {
        [Source::Family(Family::Lock)] => "lock(n, m)".into(),
        [Source::Family(Family::Simple)] => "Simple(n)".into(),
        [Source::Family(Family::SimpleBool)] => "Simple(n) with a boolean mutex".into(),
        [s] => s.label(),
        _ => "the grid's models".into(),
    }
}

/// The number of reachable states of lock(n, m) (the formula of
/// `families::lock_state_count`), `None` past u128.
fn lock_states(n: u32, m: u32) -> Option<u128> {
    let base = (m as u128) + 1;
    let free = base.checked_pow(n)?;
    let held = (n as u128)
        .checked_mul(2 * m as u128)?
        .checked_mul(base.checked_pow(n.checked_sub(1)?)?)?;
    free.checked_add(held)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_state_counts() {
        assert_eq!(lock_states(20, 1), Some(22_020_096));
        assert_eq!(lock_states(10, 1), Some(11_264));
        assert_eq!(lock_states(100, 9), None);
    }
}
