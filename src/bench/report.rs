//! report.json (every record, the machine, the settings) and report.md
//! (what a person reads: Fig. 4 layout tables, the paper's seconds beside
//! ours, a Fig. 1 comparison, and a paragraph computed from the data).

use super::grid::{Family, Source};
use super::harness::{GRACE, Limits, Status};
use super::machine::Machine;
use super::paper;
use super::plot;
use super::record::Record;
use crate::engine::Mode;
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
    /// `--jobs` of standard's children.
    pub jobs: u16,
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
            "max_states": b.limits.max_states,
            "jobs": b.jobs,
            "jobs_note": "--jobs of the standard children (worker threads of its search); the abstract engines are sequential, so their records say 1",
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
        "- Each point is the median of {} of the engine's own time `stats.time_s` (model loading excluded); a run that does not finish is not repeated. Per-run timeout {} s (the harness kills a child {} s later), memory budget {} MiB{}. Min and max are in report.json.",
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
        "- Jobs: standard's search ran on {} worker thread{} (`--jobs`; by default one per core, as for `weft check`); thread-modular and cartesian-exc are sequential.",
        b.jobs,
        if b.jobs == 1 { "" } else { "s" }
    );
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

/// `2–9, 11–19, 30` from ascending numbers.
fn fmt_ranges(ns: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ns.len() {
        let mut j = i;
        while j + 1 < ns.len() && ns[j + 1] == ns[j] + 1 {
            j += 1;
        }
        parts.push(match j - i {
            0 => ns[i].to_string(),
            1 => format!("{}, {}", ns[i], ns[j]),
            _ => format!("{}–{}", ns[i], ns[j]),
        });
        i = j + 1;
    }
    parts.join(", ")
}

/// Fig. 1 of the paper: standard against cartesian-exc at m = 1, by n, and
/// a paragraph computed from the rows: how far each mode got, where
/// standard becomes the slower one, how fast its time grows.
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
        "The paper's Fig. 1 plots the run time of exhaustive search (*) and of thread-modular verification with exception sets (**) against the number of threads for this program; here are both measured.\n"
    );
    let _ = writeln!(
        md,
        "| n | reachable states | standard | standard states | standard s | cartesian-exc | cartesian-exc states | cartesian-exc s | standard / cartesian-exc |\n|---|---|---|---|---|---|---|---|---|"
    );
    let done_time = |r: &Record| match (r.status, r.time_s) {
        (Status::Safe | Status::Unsafe | Status::Unknown, Some(t)) => Some(t.median),
        _ => None,
    };
    for &n in &ns {
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
        let ratio = match (
            at(Mode::Standard, n).and_then(done_time),
            at(Mode::CartesianExc, n).and_then(done_time),
        ) {
            (Some(s), Some(c)) if c > 0.0 => fmt_ratio(s / c),
            (None, Some(c))
                if c > 0.0
                    && at(Mode::Standard, n).is_some_and(|r| r.status == Status::Timeout) =>
            {
                format!("> {}", fmt_ratio(timeout_s / c))
            }
            _ => "–".into(),
        };
        row.push_str(&format!(" {ratio} |"));
        md.push_str(&row);
        md.push('\n');
    }
    let _ = writeln!(
        md,
        "\nReachable states: the exact count (m+1)^n + 2nm(m+1)^(n-1), computed independently of any engine. standard's states are concrete states; cartesian-exc's are the thread states (g, l) of its Cartesian part, which is why they grow linearly. The last column is standard's time over cartesian-exc's (`>` when standard timed out: the timeout over cartesian-exc's time).\n"
    );
    let mut said: Vec<String> = Vec::new();
    let finished = |mode: Mode| -> Vec<(u32, f64, Option<u64>)> {
        ns.iter()
            .filter_map(|&n| {
                let r = at(mode, n)?;
                Some((n, done_time(r)?, r.states))
            })
            .collect()
    };
    let (std_done, cart_done) = (finished(Mode::Standard), finished(Mode::CartesianExc));
    if let Some(&(n, t, states)) = std_done.last() {
        let mut s = format!(
            "standard finished lock(n, 1) up to n = {n} ({} states, {} s)",
            states.map(fmt_int).unwrap_or_else(|| "?".into()),
            fmt_secs(t)
        );
        let first_over = ns
            .iter()
            .filter_map(|&n| at(Mode::Standard, n))
            .find(|r| r.status.over_budget());
        if let Some(r) = first_over {
            s.push_str(&format!(
                " and {} at n = {}",
                r.stop_phrase(),
                r.point.n.unwrap_or(0)
            ));
        }
        said.push(s);
    }
    if let Some(&(n, t, _)) = cart_done.last() {
        let all = ns
            .iter()
            .filter_map(|&n| at(Mode::CartesianExc, n))
            .all(|r| r.status == Status::Safe);
        let slowest = cart_done.iter().map(|p| p.1).fold(0.0, f64::max);
        let slowest = if slowest > t {
            format!(", {} s at the slowest", fmt_secs(slowest))
        } else {
            String::new()
        };
        said.push(format!(
            "cartesian-exc {} up to n = {n} ({} s there{slowest})",
            if all { "proved every n" } else { "finished" },
            fmt_secs(t),
        ));
    }
    // The crossover: from which n on standard is the slower one.
    let both: Vec<(u32, f64)> = ns
        .iter()
        .filter_map(|&n| {
            let s = at(Mode::Standard, n).and_then(done_time)?;
            let c = at(Mode::CartesianExc, n).and_then(done_time)?;
            (c > 0.0).then_some((n, s / c))
        })
        .collect();
    if let Some(&(n_last, r_last)) = both.last() {
        match both.iter().rposition(|p| p.1 <= 1.0) {
            None => said.push(format!(
                "standard is the slower one at every n both finished, {} times slower at n = {n_last}",
                fmt_ratio(r_last)
            )),
            Some(i) if i + 1 < both.len() => said.push(format!(
                "standard is as fast or faster up to n = {} and the slower one from n = {} on (the crossover), {} times slower at n = {n_last}",
                both[i].0,
                both[i + 1].0,
                fmt_ratio(r_last)
            )),
            Some(_) => said.push(format!(
                "standard is not slower than cartesian-exc at n = {n_last}, the largest n both finished"
            )),
        }
    }
    let fit_pts = |v: &[(u32, f64, Option<u64>)]| -> Vec<(f64, f64)> {
        v.iter()
            .filter(|p| p.1 >= MIN_FIT_S)
            .map(|p| (p.0 as f64, p.1))
            .collect()
    };
    if let Some(e) = exp_fit(&fit_pts(&std_done)) {
        said.push(format!(
            "each added thread multiplies standard's time by about {:.2} (least squares on log time against n, n = {}–{}), like its state count, which is about ×(m+1) = ×2 per thread",
            e.slope.exp(),
            e.n_lo,
            e.n_hi
        ));
    }
    if let Some(p) = power_fit(&fit_pts(&cart_done)) {
        said.push(format!(
            "cartesian-exc's time grows like n^{:.1} (n = {}–{})",
            p.slope, p.n_lo, p.n_hi
        ));
    }
    if !said.is_empty() {
        let mut text = said.join("; ");
        if let Some(c) = text.get(..1) {
            text = c.to_uppercase() + &text[1..];
        }
        let _ = writeln!(md, "{text}.\n");
    }
}

/// Below this, a time is mostly timer resolution and fixed costs: fits
/// leave such points out.
const MIN_FIT_S: f64 = 1e-3;

/// Over a few dozen n, c·b^n with b close to 1 and a low power of n are
/// indistinguishable within timing noise (R² differs in the third digit):
/// a row is called exponential only when b^n fits better *and* each added
/// thread multiplies the time by at least this much.
const MIN_EXP_FACTOR: f64 = 1.2;

/// A least-squares line through (x, y) points.
#[derive(Clone, Copy, Debug)]
struct Fit {
    slope: f64,
    /// Coefficient of determination of the fit (1 = exact).
    r2: f64,
    /// The points fitted: how many, and the smallest and largest n.
    count: usize,
    n_lo: u32,
    n_hi: u32,
}

fn least_squares(xs: &[f64], ys: &[f64]) -> Option<(f64, f64)> {
    let k = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / k, ys.iter().sum::<f64>() / k);
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    if sxx.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let syy: f64 = ys.iter().map(|y| (y - my).powi(2)).sum();
    let slope = sxy / sxx;
    let r2 = if syy > 0.0 {
        (sxy * sxy) / (sxx * syy)
    } else {
        1.0
    };
    Some((slope, r2))
}

/// time ≈ c·n^k: least squares on log time against log n, over (n,
/// seconds) points with at least 3 distinct n.
fn power_fit(pts: &[(f64, f64)]) -> Option<Fit> {
    fit_with(pts, |n| n.ln())
}

/// time ≈ c·b^n: least squares on log time against n (b = e^slope).
fn exp_fit(pts: &[(f64, f64)]) -> Option<Fit> {
    fit_with(pts, |n| n)
}

fn fit_with(pts: &[(f64, f64)], x: impl Fn(f64) -> f64) -> Option<Fit> {
    let pts: Vec<(f64, f64)> = pts
        .iter()
        .copied()
        .filter(|&(n, t)| n > 0.0 && t > 0.0 && t.is_finite())
        .collect();
    let mut distinct: Vec<f64> = pts.iter().map(|p| p.0).collect();
    distinct.sort_by(|a, b| a.total_cmp(b));
    distinct.dedup();
    if distinct.len() < 3 {
        return None;
    }
    let xs: Vec<f64> = pts.iter().map(|p| x(p.0)).collect();
    let ys: Vec<f64> = pts.iter().map(|p| p.1.ln()).collect();
    let (slope, r2) = least_squares(&xs, &ys)?;
    Some(Fit {
        slope,
        r2,
        count: pts.len(),
        n_lo: distinct[0] as u32,
        n_hi: *distinct.last().unwrap() as u32,
    })
}

/// The exponent k of time ≈ c·n^k fitted to the paper's Fig. 4 row m (all
/// ten n), if Fig. 4 has that row.
fn paper_exponent(m: u32) -> Option<Fit> {
    let row = paper::FIG4_SECTIONS.iter().position(|&x| x == m)?;
    let pts: Vec<(f64, f64)> = paper::FIG4_THREADS
        .iter()
        .zip(paper::FIG4_SECONDS[row])
        .map(|(&n, t)| (n as f64, t))
        .collect();
    power_fit(&pts)
}

/// A row's (n, median seconds) points that a fit may use: completed, with
/// a time of at least `MIN_FIT_S`.
fn fit_points(of: &[&Record], src: &Source, m: Option<u32>) -> Vec<(f64, f64)> {
    of.iter()
        .filter(|r| r.point.source == *src && r.point.m == m && r.status.completed())
        .filter_map(|r| Some((r.point.n? as f64, r.time_s?.median)))
        .filter(|&(_, t)| t >= MIN_FIT_S)
        .collect()
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
    // (what stopped it, first n) -> row labels
    let mut groups: Vec<((&'static str, u32), Vec<String>)> = Vec::new();
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
            let key = (r.stop_phrase(), r.point.n.unwrap());
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
        .map(|(i, ((what, n), labels))| {
            let what = if i > 0 && groups[i - 1].0.0 == *what {
                String::new()
            } else {
                format!("{what} ")
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

/// How a mode's time grows with n, from the fits of `growth_table`:
/// polynomial rows (n^k fits at least as well as b^n) with their exponents
/// beside the paper's, exponential rows with their factor per thread.
fn growth(of: &[&Record], lock_only: bool) -> Option<String> {
    let mut poly: Vec<(String, Fit, Option<Fit>)> = Vec::new();
    let mut expo: Vec<(String, Fit)> = Vec::new();
    for (src, m) in rows(of) {
        let pts = fit_points(of, &src, m);
        let (Some(p), Some(e)) = (power_fit(&pts), exp_fit(&pts)) else {
            continue;
        };
        let label = match (lock_only, m) {
            (true, Some(m)) => format!("m = {m}"),
            (_, Some(m)) => format!("{} m = {m}", src.label()),
            (_, None) => src.label(),
        };
        let paper = match (&src, m, of.first().map(|r| r.point.mode)) {
            (Source::Family(Family::Lock), Some(m), Some(Mode::CartesianExc)) => paper_exponent(m),
            _ => None,
        };
        if p.r2 >= e.r2 || e.slope.exp() < MIN_EXP_FACTOR {
            poly.push((label, p, paper));
        } else {
            expo.push((label, e));
        }
    }
    let mut parts: Vec<String> = Vec::new();
    if !poly.is_empty() {
        let range = |v: Vec<f64>| {
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if format!("{lo:.1}") == format!("{hi:.1}") {
                format!("n^{lo:.1}")
            } else {
                format!("n^{lo:.1} to n^{hi:.1}")
            }
        };
        let rows: Vec<&str> = poly.iter().map(|p| p.0.as_str()).collect();
        let mut s = format!(
            "grows polynomially, like {} ({})",
            range(poly.iter().map(|p| p.1.slope).collect()),
            rows.join(", ")
        );
        let papers: Vec<f64> = poly.iter().filter_map(|p| p.2.map(|f| f.slope)).collect();
        if !papers.is_empty() {
            s.push_str(&format!(
                "; the paper's Fig. 4 grows like {} on the same rows",
                range(papers)
            ));
        }
        parts.push(s);
    }
    for (label, e) in &expo {
        parts.push(format!(
            "grows exponentially at {label}: about ×{:.2} per added thread (n = {}–{}; c·b^n fits better than c·n^k)",
            e.slope.exp(),
            e.n_lo,
            e.n_hi
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; it ") + " (see Growth with n)")
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
                " Points without a time: the first that timed out or went over budget in a curve is drawn as a ring on the dashed timeout line; skipped and failed points are not drawn:\n\n{}",
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
        assert_eq!(fmt_ranges(&[2, 3, 4, 5, 7, 9, 10]), "2–5, 7, 9, 10");
    }

    #[test]
    fn fits_recover_the_shape_they_are_given() {
        let ns = [10.0, 20.0, 40.0, 80.0];
        let cubic: Vec<(f64, f64)> = ns.iter().map(|&n: &f64| (n, 1e-6 * n.powi(3))).collect();
        let p = power_fit(&cubic).unwrap();
        assert!((p.slope - 3.0).abs() < 1e-9 && p.r2 > 0.999_999, "{p:?}");
        assert_eq!((p.count, p.n_lo, p.n_hi), (4, 10, 80));
        let doubling: Vec<(f64, f64)> = ns.iter().map(|&n: &f64| (n, 1e-9 * n.exp2())).collect();
        let e = exp_fit(&doubling).unwrap();
        assert!((e.slope.exp() - 2.0).abs() < 1e-9, "{e:?}");
        // Two thread counts do not make a fit.
        assert!(power_fit(&cubic[..2]).is_none());
        // The paper's Fig. 4 rows grow like n^3.8 to n^4.0 (its seconds
        // rise about 7000-fold from n = 10 to 100: log(7328/0.9)/log(10)).
        for m in paper::FIG4_SECTIONS {
            let k = paper_exponent(m).unwrap().slope;
            assert!((3.5..4.3).contains(&k), "m = {m}: {k}");
        }
    }
}
