//! The "What this shows" paragraph of report.md, computed from the
//! records: per mode, what it proved, where it ran out of budget, how its
//! time grows with n, and how it compares with the paper's seconds.

use super::fit::{Fit, MIN_EXP_FACTOR, exp_fit, fit_points, paper_exponent, power_fit};
use super::{all_lock, lock_states, modes, rows};
use crate::bench::format::{fmt_big, fmt_int, fmt_ratio, fmt_secs};
use crate::bench::grid::{Family, Source};
use crate::bench::harness::Status;
use crate::bench::paper;
use crate::bench::record::Record;
use crate::engine::Mode;

/// The computed paragraph.
pub(super) fn what_this_shows(recs: &[Record], subject: &str) -> String {
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

fn where_(r: &Record) -> String {
    match (&r.point.source, r.point.n, r.point.m) {
        (Source::Family(Family::Lock), Some(n), Some(m)) => format!("lock({n}, {m})"),
        (src, Some(n), _) => format!("{} with n = {n}", src.label()),
        (src, None, _) => src.label(),
    }
}
