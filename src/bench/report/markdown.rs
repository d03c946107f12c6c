//! report.md: the document (header, one table per mode in the Fig. 4
//! layout, the paper's seconds beside cartesian-exc's, the growth table,
//! the plot section), with the Fig. 1 comparison from `fig1` and the
//! paragraph from `prose`.

use super::fig1::fig1;
use super::fit::{MIN_EXP_FACTOR, MIN_FIT_S, exp_fit, fit_points, paper_exponent, power_fit};
use super::prose::what_this_shows;
use super::{Bench, SVG_NAME, all_lock, columns, modes, rows, subject};
use crate::bench::format::{fmt_duration, fmt_int, fmt_ranges, fmt_ratio, fmt_secs, utc_date_time};
use crate::bench::grid::{Family, Source};
use crate::bench::harness::{GRACE, Status};
use crate::bench::paper;
use crate::bench::record::Record;
use crate::bench::series;
use crate::engine::Mode;
use std::fmt::Write;

/// report.md.
pub(crate) fn to_markdown(b: &Bench) -> String {
    let mut md = String::new();
    let recs = &b.records;
    let lock_only = all_lock(recs);
    let subject = subject(recs);
    preamble(&mut md, b, &subject, "report.json");
    if super::scaling::wanted(b.preset.as_deref()) {
        // Throughput and memory per point; the Fig. 4 layout and growth
        // fits, which group points by mode alone, would mix the curves
        // with and without --symmetry.
        super::scaling::throughput_table(&mut md, recs);
        not_plotted(&mut md, recs);
        return md;
    }
    let _ = writeln!(
        md,
        "- Cells: seconds for `safe`; `unknown (s)` for an alarm of an abstract mode; `timeout`; `budget` (over the memory or state budget); `skipped` (a smaller n of the same row timed out or went over budget; report.json's `reason` says which); `error`.\n"
    );

    for mode in modes(recs) {
        let of: Vec<&Record> = recs.iter().filter(|r| r.point.mode == mode).collect();
        if lock_only {
            let _ = writeln!(
                md,
                "## {}: median seconds (Fig. 4 layout: rows m, columns n)\n",
                mode.name()
            );
        } else {
            let _ = writeln!(md, "## {}: median seconds\n", mode.name());
        }
        let (shown, rest) = split_common_columns(&of);
        md.push_str(&table(&shown, lock_only, cell));
        md.push('\n');
        if !rest.is_empty() {
            let _ = writeln!(
                md,
                "Not in this table (thread counts run at some rows only): {}; see the Fig. 1 table and report.json.\n",
                describe_points(&rest, lock_only)
            );
        }
        if mode == Mode::CartesianExc {
            paper_tables(&mut md, &of);
        }
    }
    fig1(&mut md, recs, b.limits.timeout_s);
    growth_table(&mut md, recs);
    let _ = writeln!(md, "## What this shows\n");
    md.push_str(&what_this_shows(recs, &subject));
    md.push_str("\n\n");
    not_plotted(&mut md, recs);
    md
}

/// The title and the first lines of a report: command, machine, when, how
/// each point was measured (`json`: the report's JSON file, for min and
/// max).
pub(super) fn preamble(md: &mut String, b: &Bench, subject: &str, json: &str) {
    let recs = &b.records;
    let _ = writeln!(md, "# weft bench: {subject}\n");
    let _ = writeln!(md, "- Command: `{}`", b.command);
    let _ = writeln!(md, "- Machine: {}", b.machine.summary());
    let _ = writeln!(
        md,
        "- Started {} UTC; wall time {}; {} points, {} child runs of `weft check`.",
        utc_date_time(b.started_unix),
        fmt_duration(b.wall_s),
        recs.len(),
        recs.iter().map(|r| r.runs).sum::<u32>()
    );
    let _ = writeln!(
        md,
        "- Each point is the median of {} of the engine's own time `stats.time_s` (model loading excluded); a run that does not finish is not repeated. Per-run timeout {} s (the harness kills a child {} s later), memory budget {} MiB{}. Min and max are in {json}.",
        if b.repeat == 1 {
            "1 run".to_string()
        } else {
            format!("up to {} runs", b.repeat)
        },
        b.limits.timeout_s,
        GRACE.as_secs(),
        b.limits.max_memory_mib,
        match b.limits.max_states {
            Some(n) => format!(", state budget {}", fmt_int(n)),
            None => String::new(),
        }
    );
    let _ = writeln!(
        md,
        "- Jobs: standard's search ran on {} worker thread{} (`--jobs`; by default one per core, as for `weft check`); the abstract engines (thread-modular, cartesian-exc, refine) are sequential.",
        b.jobs,
        if b.jobs == 1 { "" } else { "s" }
    );
}

fn table(recs: &[&Record], lock_only: bool, f: impl Fn(&Record) -> String) -> String {
    let cols = columns(recs);
    let corner = if lock_only { "m \\ n" } else { "model \\ n" };
    let mut s = format!("| {corner} |");
    for n in &cols {
        match n {
            Some(n) => s.push_str(&format!(" {n} |")),
            None => s.push_str(" – |"),
        }
    }
    s.push_str("\n|---|");
    s.push_str(&"---|".repeat(cols.len()));
    s.push('\n');
    for (src, m) in rows(recs) {
        let label = match (lock_only, m) {
            (true, Some(m)) => m.to_string(),
            (_, Some(m)) => format!("{} m={m}", src.label()),
            (_, None) => src.label(),
        };
        s.push_str(&format!("| {label} |"));
        for n in &cols {
            let c = recs
                .iter()
                .find(|r| r.point.source == src && r.point.m == m && r.point.n == *n)
                .map(|r| f(r))
                .unwrap_or_default();
            s.push_str(&format!(" {c} |"));
        }
        s.push('\n');
    }
    s
}

fn cell(r: &Record) -> String {
    let t = r.time_s.map(|t| fmt_secs(t.median));
    match (r.status, t) {
        (Status::Safe, Some(t)) => t,
        (Status::Unknown | Status::Unsafe, Some(t)) => format!("{} ({t})", r.status.name()),
        (st, _) => st.name().to_string(),
    }
}

/// For cartesian-exc on lock: the paper's Fig. 4 seconds for the same
/// points, and the ratio paper / ours.
fn paper_tables(md: &mut String, of: &[&Record]) {
    let on_paper: Vec<&Record> = of
        .iter()
        .copied()
        .filter(|r| r.point.source == Source::Family(Family::Lock))
        .filter(|r| matches!((r.point.n, r.point.m), (Some(n), Some(m)) if paper::fig4_seconds(n, m).is_some()))
        .collect();
    if on_paper.is_empty() {
        let _ = writeln!(
            md,
            "No point of this grid is in the paper's Fig. 4 (lock, n = 10..100 step 10, m ∈ {{1, 3, 5, 7, 9}}), so there is nothing to compare with.\n"
        );
        return;
    }
    let paper_of = |r: &Record| paper::fig4_seconds(r.point.n.unwrap(), r.point.m.unwrap());
    let _ = writeln!(
        md,
        "### cartesian-exc: the paper's seconds (Fig. 4 layout)\n\n{}.\n",
        paper::FIG4_SOURCE
    );
    md.push_str(&table(&on_paper, true, |r| {
        paper_of(r).map(fmt_secs).unwrap_or_default()
    }));
    let _ = writeln!(
        md,
        "\n### cartesian-exc: ratio paper / ours (Fig. 4 layout)\n"
    );
    md.push_str(&table(&on_paper, true, |r| {
        match (paper_of(r), r.time_s, r.status) {
            (Some(p), Some(t), Status::Safe) if t.median > 0.0 => fmt_ratio(p / t.median),
            _ => "–".into(),
        }
    }));
    md.push('\n');
}

/// A per-mode table shows the thread counts run at every row; the points of
/// thread counts run at some rows only (the fig4 preset's small-n strip at
/// m = 1) are returned apart, for the Fig. 1 table.
fn split_common_columns<'a>(of: &[&'a Record]) -> (Vec<&'a Record>, Vec<&'a Record>) {
    let rows = rows(of);
    if rows.len() <= 1 {
        return (of.to_vec(), Vec::new());
    }
    let common: Vec<Option<u32>> = columns(of)
        .into_iter()
        .filter(|n| {
            rows.iter().all(|(src, m)| {
                of.iter()
                    .any(|r| r.point.source == *src && r.point.m == *m && r.point.n == *n)
            })
        })
        .collect();
    if common.is_empty() {
        return (of.to_vec(), Vec::new());
    }
    of.iter().partition(|r| common.contains(&r.point.n))
}

/// `m = 1: n = 2–9, 11–19` (by row).
fn describe_points(recs: &[&Record], lock_only: bool) -> String {
    rows(recs)
        .into_iter()
        .map(|(src, m)| {
            let mut ns: Vec<u32> = recs
                .iter()
                .filter(|r| r.point.source == src && r.point.m == m)
                .filter_map(|r| r.point.n)
                .collect();
            ns.sort_unstable();
            let label = match (lock_only, m) {
                (true, Some(m)) => format!("m = {m}"),
                (_, Some(m)) => format!("{} m = {m}", src.label()),
                (_, None) => src.label(),
            };
            format!("{label}: n = {}", fmt_ranges(&ns))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The growth of time with n per (mode, m): our exponent beside the
/// paper's (from its Fig. 4 seconds), and an exponential fit for
/// comparison.
fn growth_table(md: &mut String, recs: &[Record]) {
    if !recs.iter().any(|r| r.point.n.is_some()) {
        return;
    }
    let lock_only = all_lock(recs);
    let _ = writeln!(md, "## Growth with n\n");
    let _ = writeln!(
        md,
        "Per mode and row, time ≈ c·n^k fitted by least squares on log time against log n over the points that completed with at least {} (below that, timer resolution and fixed costs dominate; a fit needs 3 thread counts). The paper's k is the same fit to its Fig. 4 seconds (n = 10..100) for the same m; Fig. 4 is its Cartesian abstraction with exception sets, so it compares with cartesian-exc. The last columns fit time ≈ c·b^n (log time against n) instead: R² says which of the two shapes fits better; the summary below calls a row exponential only when b^n fits better and b is at least {MIN_EXP_FACTOR} (with b near 1 the two shapes are indistinguishable over these n).\n",
        if MIN_FIT_S >= 1e-3 {
            format!("{} ms", MIN_FIT_S * 1e3)
        } else {
            format!("{MIN_FIT_S} s")
        }
    );
    let _ = writeln!(
        md,
        "| mode | {} | points fitted | weft: k in c·n^k | R² | paper (Fig. 4): k | b in c·b^n | R² |\n|---|---|---|---|---|---|---|---|",
        if lock_only { "m" } else { "model" }
    );
    for mode in modes(recs) {
        let of: Vec<&Record> = recs.iter().filter(|r| r.point.mode == mode).collect();
        for (src, m) in rows(&of) {
            let pts = fit_points(&of, &src, m);
            let label = match (lock_only, m) {
                (true, Some(m)) => m.to_string(),
                (_, Some(m)) => format!("{} m = {m}", src.label()),
                (_, None) => src.label(),
            };
            let paper = match (&src, m, mode) {
                (Source::Family(Family::Lock), Some(m), Mode::CartesianExc) => {
                    paper_exponent(m).map(|f| format!("n^{:.1}", f.slope))
                }
                _ => None,
            }
            .unwrap_or_else(|| "–".into());
            let (pow, exp) = (power_fit(&pts), exp_fit(&pts));
            let row = match (pow, exp) {
                (Some(p), Some(e)) => format!(
                    "| {} | {label} | {} (n = {}–{}) | n^{:.1} | {:.3} | {paper} | {:.2} | {:.3} |",
                    mode.name(),
                    p.count,
                    p.n_lo,
                    p.n_hi,
                    p.slope,
                    p.r2,
                    e.slope.exp(),
                    e.r2
                ),
                _ => format!(
                    "| {} | {label} | {} (too few to fit) | – | – | {paper} | – | – |",
                    mode.name(),
                    pts.len()
                ),
            };
            let _ = writeln!(md, "{row}");
        }
    }
    md.push('\n');
}

/// Points that are not on the plot, by curve.
fn not_plotted(md: &mut String, recs: &[Record]) {
    let lock_only = all_lock(recs);
    let mut lines: Vec<String> = Vec::new();
    for s in series::series(recs) {
        let mut of: Vec<&Record> = recs.iter().filter(|r| r.point.series() == s.key).collect();
        of.sort_by_key(|r| r.point.n);
        // Consecutive unplotted points with the same status make one phrase.
        let plotted =
            |r: &Record| r.status.completed() && r.time_s.is_some() && r.point.n.is_some();
        let mut groups: Vec<(Status, Option<u32>, Option<u32>)> = Vec::new();
        let mut after_plotted = true;
        for r in &of {
            if plotted(r) {
                after_plotted = true;
                continue;
            }
            match groups.last_mut() {
                Some(g) if g.0 == r.status && !after_plotted => g.2 = r.point.n,
                _ => groups.push((r.status, r.point.n, r.point.n)),
            }
            after_plotted = false;
        }
        let missing: Vec<String> = groups
            .iter()
            .map(|(st, a, b)| {
                let ns = match (a, b) {
                    (Some(x), Some(y)) if x == y => format!("n = {x}"),
                    (Some(x), Some(y)) => format!("n = {x}–{y}"),
                    _ => "(no thread count)".into(),
                };
                format!("{ns} {}", st.name())
            })
            .collect();
        if !missing.is_empty() {
            lines.push(format!(
                "- {}: {}",
                series::series_label(&s.key, lock_only),
                missing.join("; ")
            ));
        }
    }
    let _ = writeln!(
        md,
        "## Plot\n\n![time against threads]({SVG_NAME})\n\n[{SVG_NAME}]({SVG_NAME}): median engine seconds (log scale) against n, one curve per (mode, m).{}",
        if lines.is_empty() {
            " Every point is plotted.".to_string()
        } else {
            format!(
                " Points without a time: the first that timed out or went over budget in a curve is drawn as a ring on the dashed timeout line; skipped and failed points are not drawn:\n\n{}",
                lines.join("\n")
            )
        }
    );
}
