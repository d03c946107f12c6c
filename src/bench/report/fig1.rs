//! The Fig. 1 comparison of report.md: standard against cartesian-exc on
//! lock(n, 1), by n, and the paragraph computed from its rows.

use super::fit::{MIN_FIT_S, exp_fit, power_fit};
use super::lock_states;
use crate::bench::format::{fmt_big, fmt_int, fmt_ratio, fmt_secs};
use crate::bench::grid::{Family, Source};
use crate::bench::harness::Status;
use crate::bench::record::Record;
use crate::engine::Mode;
use std::fmt::Write;

/// Fig. 1 of the paper: standard against cartesian-exc at m = 1, by n, and
/// a paragraph computed from the rows: how far each mode got, where
/// standard becomes the slower one, how fast its time grows.
pub(super) fn fig1(md: &mut String, recs: &[Record], timeout_s: f64) {
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
