//! report.json (every record, the machine, the settings) and report.md
//! (what a person reads: Fig. 4 layout tables, the paper's seconds beside
//! ours, a Fig. 1 comparison, and a paragraph computed from the data).

use super::grid::{Family, Source};
use super::harness::{GRACE, Limits, Status};
use super::machine::Machine;
use super::paper;
use super::plot;
use super::record::Record;
use crate::program::Mode;
use serde_json::{Value, json};
use std::fmt::Write;

/// Everything a report is made of.
pub struct Bench {
    pub machine: Machine,
    /// The command line, as `weft bench ...`.
    pub command: String,
    pub preset: Option<String>,
    pub repeat: u32,
    pub limits: Limits,
    /// Seconds since the Unix epoch at the start.
    pub started_unix: u64,
    /// Wall-clock seconds of the whole bench.
    pub wall_s: f64,
    pub records: Vec<Record>,
}

pub const SVG_NAME: &str = "time_vs_threads.svg";

/// report.json.
pub fn to_json(b: &Bench) -> Value {
    json!({
        "format": "weft-bench/1",
        "command": b.command,
        "preset": b.preset,
        "started": utc_date_time(b.started_unix),
        "wall_time_s": round6(b.wall_s),
        "settings": {
            "repeat": b.repeat,
            "timeout_s": b.limits.timeout_s,
            "grace_s": GRACE.as_secs_f64(),
            "max_memory_mib": b.limits.max_memory_mib,
            "time_source": "stats.time_s of each child `weft check` (engine time, model loading excluded)",
        },
        "machine": b.machine.to_json(),
        "records": b.records.iter().map(Record::to_json).collect::<Vec<_>>(),
    })
}

/// report.md.
pub fn to_markdown(b: &Bench) -> String {
    let mut md = String::new();
    let recs = &b.records;
    let lock_only = all_lock(recs);
    let subject = subject(recs);
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
        "- Each point is the median of {} of the engine's own time `stats.time_s` (model loading excluded); a run that does not finish is not repeated. Per-run timeout {} s (the harness kills a child {} s later), memory budget {} MiB. Min and max are in report.json.",
        if b.repeat == 1 {
            "1 run".to_string()
        } else {
            format!("up to {} runs", b.repeat)
        },
        b.limits.timeout_s,
        GRACE.as_secs(),
        b.limits.max_memory_mib
    );
    let _ = writeln!(
        md,
        "- Cells: seconds for `safe`; `unknown (s)` for an alarm of an abstract mode; `timeout`, `budget` (memory), `skipped` (a smaller n of the same row timed out), `error`.\n"
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
        md.push_str(&table(&of, lock_only, cell));
        md.push('\n');
        if mode == Mode::CartesianExc {
            paper_tables(&mut md, &of);
        }
    }
    fig1(&mut md, recs, b.limits.timeout_s);
    let _ = writeln!(md, "## What this shows\n");
    md.push_str(&what_this_shows(recs, &subject));
    md.push_str("\n\n");
    not_plotted(&mut md, recs);
    md
}

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

/// Fig. 1 of the paper: standard against cartesian-exc at m = 1, by n.
fn fig1(md: &mut String, recs: &[Record], timeout_s: f64) {
    let at = |mode: Mode, n: u32| {
        recs.iter().find(|r| {
            r.point.source == Source::Family(Family::Lock)
                && r.point.m == Some(1)
                && r.point.mode == mode
                && r.point.n == Some(n)
        })
    };
    let mut ns: Vec<u32> = recs
        .iter()
        .filter(|r| r.point.source == Source::Family(Family::Lock) && r.point.m == Some(1))
        .filter(|r| matches!(r.point.mode, Mode::Standard | Mode::CartesianExc))
        .filter_map(|r| r.point.n)
        .collect();
    ns.sort_unstable();
    ns.dedup();
    let _ = writeln!(
        md,
        "## Fig. 1: standard against cartesian-exc on lock(n, 1)\n"
    );
    if ns.is_empty() {
        let _ = writeln!(
            md,
            "This grid has no lock(n, 1) point in standard or cartesian-exc mode.\n"
        );
        return;
    }
    let _ = writeln!(
        md,
        "| n | reachable states | standard | standard states | standard s | cartesian-exc | cartesian-exc states | cartesian-exc s |\n|---|---|---|---|---|---|---|---|"
    );
    for n in ns {
        let mut row = format!("| {n} | {} |", fmt_big(lock_states(n, 1)));
        for mode in [Mode::Standard, Mode::CartesianExc] {
            match at(mode, n) {
                None => row.push_str(" not run | | |"),
                Some(r) => {
                    let states = match (r.states, r.status) {
                        (Some(s), st) if st.completed() => fmt_int(s),
                        (Some(s), _) => format!("> {} explored", fmt_int(s)),
                        (None, _) => "–".into(),
                    };
                    let secs = match (r.time_s, r.status) {
                        (Some(t), _) => fmt_secs(t.median),
                        (None, Status::Timeout) => format!("> {timeout_s}"),
                        _ => "–".into(),
                    };
                    row.push_str(&format!(" {} | {states} | {secs} |", r.status.name()));
                }
            }
        }
        md.push_str(&row);
        md.push('\n');
    }
    let _ = writeln!(
        md,
        "\nReachable states: the exact count (m+1)^n + 2nm(m+1)^(n-1), computed independently of any engine. standard's states are concrete states; cartesian-exc's are the thread states (g, l) of its Cartesian part, which is why they grow linearly.\n"
    );
}

/// The computed paragraph.
fn what_this_shows(recs: &[Record], subject: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let lock_only = all_lock(recs);
    for mode in modes(recs) {
        let of: Vec<&Record> = recs.iter().filter(|r| r.point.mode == mode).collect();
        let total = of.len();
        let count = |st: Status| of.iter().filter(|r| r.status == st).count();
        let (safe, unknown, unsafe_) = (
            count(Status::Safe),
            count(Status::Unknown),
            count(Status::Unsafe),
        );
        let (skipped, errors) = (count(Status::Skipped), count(Status::Error));
        let name = mode.name();
        if safe == total {
            let slowest = of.iter().filter(|r| r.time_s.is_some()).max_by(|a, b| {
                a.time_s
                    .unwrap()
                    .median
                    .total_cmp(&b.time_s.unwrap().median)
            });
            let mut s = format!("{name} proved all {total} points");
            if let Some(r) = slowest {
                let t = r.time_s.unwrap().median;
                s.push_str(&format!(
                    "; the slowest took {} s ({})",
                    fmt_secs(t),
                    where_(r)
                ));
                if let (Source::Family(Family::Lock), Some(n), Some(m)) =
                    (&r.point.source, r.point.n, r.point.m)
                    && let Some(p) = paper::fig4_seconds(n, m)
                {
                    s.push_str(&format!(", where the paper reports {} s", fmt_secs(p)));
                }
            }
            out.push(s + ".");
        } else if safe == 0 && unknown > 0 && unsafe_ == 0 {
            let mut s = format!("{name} never proved {subject}: ");
            if unknown == total {
                s.push_str(&format!(
                    "it answered unknown (an alarm) at all {total} points"
                ));
            } else {
                s.push_str(&format!(
                    "it answered unknown (an alarm) at {unknown} of {total} points"
                ));
            }
            out.push(s + ".");
        } else {
            let mut parts = vec![format!("{name} proved {safe} of {total} points")];
            if safe > 0 && safe <= 3 {
                let which: Vec<String> = of
                    .iter()
                    .filter(|r| r.status == Status::Safe)
                    .map(|r| {
                        let states = r
                            .states
                            .map(|s| format!("{} states, ", fmt_int(s)))
                            .unwrap_or_default();
                        let t = r
                            .time_s
                            .map(|t| format!("{} s", fmt_secs(t.median)))
                            .unwrap_or_default();
                        format!("{} with {states}{t}", where_(r))
                    })
                    .collect();
                parts[0].push_str(&format!(" ({})", which.join("; ")));
            }
            if unknown > 0 {
                parts.push(format!("answered unknown at {unknown}"));
            }
            if unsafe_ > 0 {
                parts.push(format!("found an error at {unsafe_}"));
            }
            if errors > 0 {
                parts.push(format!("failed to run at {errors}"));
            }
            out.push(parts.join(", ") + ".");
        }
        if let Some(s) = first_over_budget(&of, lock_only) {
            let mut s = format!("{name} {s}");
            if skipped > 0 {
                s.push_str(&format!(
                    "; the {skipped} larger points of those rows were skipped"
                ));
            }
            out.push(s + ".");
        }
        if let Some(s) = growth(&of, lock_only) {
            out.push(format!("{name}'s time {s}."));
        }
        if mode == Mode::CartesianExc
            && let Some(s) = paper_ratio(&of)
        {
            out.push(s);
        }
    }
    out.join(" ")
}

/// `timed out from n = 20 at m = 1 and from n = 10 at m = 3, 5, 7, 9`.
fn first_over_budget(of: &[&Record], lock_only: bool) -> Option<String> {
    // (status, first n) -> row labels
    let mut groups: Vec<((Status, u32), Vec<String>)> = Vec::new();
    let mut example: Option<&Record> = None;
    for (src, m) in rows(of) {
        let first = of
            .iter()
            .filter(|r| r.point.source == src && r.point.m == m && r.status.over_budget())
            .filter(|r| r.point.n.is_some())
            .min_by_key(|r| r.point.n);
        if let Some(r) = first {
            if example.is_none() {
                example = Some(r);
            }
            let label = match (lock_only, m) {
                (true, Some(m)) => m.to_string(),
                (_, Some(m)) => format!("{} m = {m}", src.label()),
                (_, None) => src.label(),
            };
            let key = (r.status, r.point.n.unwrap());
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push(label),
                None => groups.push((key, vec![label])),
            }
        }
    }
    if groups.is_empty() {
        return None;
    }
    let phrases: Vec<String> = groups
        .iter()
        .enumerate()
        .map(|(i, ((st, n), labels))| {
            let what = match st {
                _ if i > 0 && groups[i - 1].0.0 == *st => "",
                Status::Timeout => "timed out ",
                _ => "ran out of memory ",
            };
            let at = if lock_only {
                format!("m = {}", labels.join(", "))
            } else {
                labels.join(", ")
            };
            format!("{what}from n = {n} at {at}")
        })
        .collect();
    let mut s = phrases.join(" and ");
    if let Some(r) = example
        && let (Source::Family(Family::Lock), Some(n), Some(m), Some(states)) =
            (&r.point.source, r.point.n, r.point.m, r.states)
        && let Some(total) = lock_states(n, m)
    {
        s.push_str(&format!(
            " (at lock({n}, {m}) it had explored {} of the {} reachable states when it stopped)",
            fmt_int(states),
            fmt_big(Some(total))
        ));
    }
    Some(s)
}

/// A log–log fit of time against n per row with at least 3 points above a
/// millisecond (below, timer noise dominates).
fn growth(of: &[&Record], lock_only: bool) -> Option<String> {
    let mut slopes: Vec<(String, f64)> = Vec::new();
    for (src, m) in rows(of) {
        let pts: Vec<(f64, f64)> = of
            .iter()
            .filter(|r| r.point.source == src && r.point.m == m && r.status.completed())
            .filter_map(|r| Some((r.point.n? as f64, r.time_s?.median)))
            .filter(|&(_, t)| t >= 1e-3)
            .collect();
        if pts.len() < 3 {
            continue;
        }
        let xs: Vec<f64> = pts.iter().map(|p| p.0.ln()).collect();
        let ys: Vec<f64> = pts.iter().map(|p| p.1.ln()).collect();
        let k = xs.len() as f64;
        let (mx, my) = (xs.iter().sum::<f64>() / k, ys.iter().sum::<f64>() / k);
        let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
        if sxx == 0.0 {
            continue;
        }
        let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
        let label = match (lock_only, m) {
            (true, Some(m)) => format!("m = {m}"),
            (_, Some(m)) => format!("{} m = {m}", src.label()),
            (_, None) => src.label(),
        };
        slopes.push((label, sxy / sxx));
    }
    if slopes.is_empty() {
        return None;
    }
    let lo = slopes.iter().map(|s| s.1).fold(f64::INFINITY, f64::min);
    let hi = slopes.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
    let rows: Vec<&str> = slopes.iter().map(|s| s.0.as_str()).collect();
    Some(
        if slopes.len() == 1 || format!("{lo:.1}") == format!("{hi:.1}") {
            format!(
                "grows like n^{lo:.1} (least squares on log time against log n, {}; points under 1 ms left out): polynomial",
                rows.join(", ")
            )
        } else {
            format!(
                "grows like n^a with a between {lo:.1} and {hi:.1} (least squares on log time against log n, per row {}; points under 1 ms left out): polynomial",
                rows.join(", ")
            )
        },
    )
}

fn paper_ratio(of: &[&Record]) -> Option<String> {
    let mut ratios: Vec<f64> = of
        .iter()
        .filter(|r| r.status == Status::Safe && r.point.source == Source::Family(Family::Lock))
        .filter_map(|r| {
            let p = paper::fig4_seconds(r.point.n?, r.point.m?)?;
            let t = r.time_s?.median;
            (t > 0.0).then_some(p / t)
        })
        .collect();
    if ratios.is_empty() {
        return None;
    }
    ratios.sort_by(|a, b| a.total_cmp(b));
    let med = ratios[ratios.len() / 2];
    Some(format!(
        "Against the paper's prototype on the {} Fig. 4 points proved here, weft's cartesian-exc is {} to {} times faster (median {}); the paper's machine and implementation (OCaml, 2.8 GHz, ordered sets) differ from ours, so only the shape of the growth is comparable.",
        ratios.len(),
        fmt_ratio(ratios[0]),
        fmt_ratio(*ratios.last().unwrap()),
        fmt_ratio(med)
    ))
}

/// Points that are not on the plot, by curve.
fn not_plotted(md: &mut String, recs: &[Record]) {
    let lock_only = all_lock(recs);
    let mut lines: Vec<String> = Vec::new();
    for s in plot::series(recs) {
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
                plot::series_label(&s.key, lock_only),
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
                " Points without a time are not plotted:\n\n{}",
                lines.join("\n")
            )
        }
    );
}

fn where_(r: &Record) -> String {
    match (&r.point.source, r.point.n, r.point.m) {
        (Source::Family(Family::Lock), Some(n), Some(m)) => format!("lock({n}, {m})"),
        (src, Some(n), _) => format!("{} with n = {n}", src.label()),
        (src, None, _) => src.label(),
    }
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
/// `generate::lock_state_count`), `None` past u128.
fn lock_states(n: u32, m: u32) -> Option<u128> {
    let base = (m as u128) + 1;
    let free = base.checked_pow(n)?;
    let held = (n as u128)
        .checked_mul(2 * m as u128)?
        .checked_mul(base.checked_pow(n.checked_sub(1)?)?)?;
    free.checked_add(held)
}

/// Seconds with three significant digits.
pub fn fmt_secs(t: f64) -> String {
    if t <= 0.0 || !t.is_finite() {
        return "0".into();
    }
    let digits = (2 - t.log10().floor() as i32).max(0) as usize;
    let s = format!("{t:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn fmt_int(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn fmt_big(v: Option<u128>) -> String {
    match v {
        Some(v) if v < 1_000_000_000_000 => fmt_int(v as u64),
        Some(v) => format!("{:.2e}", v as f64),
        None => "–".into(),
    }
}

/// A ratio with three significant digits: `48.2`, `1,230`, `2.13e6`.
fn fmt_ratio(r: f64) -> String {
    if r >= 1e6 {
        format!("{r:.2e}")
    } else if r >= 100.0 {
        let p = 10f64.powi(r.log10().floor() as i32 - 2);
        fmt_int(((r / p).round() * p) as u64)
    } else {
        fmt_secs(r)
    }
}

fn fmt_duration(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.1} s")
    } else {
        format!("{}m {:02.0}s", (s / 60.0).floor() as u64, s % 60.0)
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// `2025-01-31 12:34:56` from Unix seconds (proleptic Gregorian, UTC).
pub fn utc_date_time(unix: u64) -> String {
    let days = (unix / 86_400) as i64;
    let secs = unix % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(fmt_secs(0.000123456), "0.000123");
        assert_eq!(fmt_secs(0.0172), "0.0172");
        assert_eq!(fmt_secs(1.5), "1.5");
        assert_eq!(fmt_secs(0.0000210), "0.000021");
        assert_eq!(fmt_secs(10.0), "10");
        assert_eq!(fmt_secs(7328.0), "7328");
        assert_eq!(fmt_int(22020096), "22,020,096");
        assert_eq!(fmt_ratio(48.23), "48.2");
        assert_eq!(fmt_ratio(123456.0), "123,000");
        assert_eq!(utc_date_time(0), "1970-01-01 00:00:00");
        assert_eq!(utc_date_time(951_782_400), "2000-02-29 00:00:00");
        assert_eq!(lock_states(20, 1), Some(22_020_096));
        assert_eq!(lock_states(10, 1), Some(11_264));
        assert_eq!(lock_states(100, 9), None);
    }
}
