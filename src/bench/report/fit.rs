//! Least-squares fits of time against the number of threads: c·n^k
//! (polynomial) and c·b^n (exponential), and the same fit to the paper's
//! Fig. 4 seconds.

use crate::bench::grid::Source;
use crate::bench::paper;
use crate::bench::record::Record;

/// Below this, a time is mostly timer resolution and fixed costs: fits
/// leave such points out.
pub(super) const MIN_FIT_S: f64 = 1e-3;

/// Over a few dozen n, c·b^n with b close to 1 and a low power of n are
/// indistinguishable within timing noise (R² differs in the third digit):
/// a row is called exponential only when b^n fits better *and* each added
/// thread multiplies the time by at least this much.
pub(super) const MIN_EXP_FACTOR: f64 = 1.2;

/// A least-squares line through (x, y) points.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fit {
    pub(super) slope: f64,
    /// Coefficient of determination of the fit (1 = exact).
    pub(super) r2: f64,
    /// The points fitted: how many, and the smallest and largest n.
    pub(super) count: usize,
    pub(super) n_lo: u32,
    pub(super) n_hi: u32,
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
pub(super) fn power_fit(pts: &[(f64, f64)]) -> Option<Fit> {
    fit_with(pts, |n| n.ln())
}

/// time ≈ c·b^n: least squares on log time against n (b = e^slope).
pub(super) fn exp_fit(pts: &[(f64, f64)]) -> Option<Fit> {
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
pub(super) fn paper_exponent(m: u32) -> Option<Fit> {
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
pub(super) fn fit_points(of: &[&Record], src: &Source, m: Option<u32>) -> Vec<(f64, f64)> {
    of.iter()
        .filter(|r| r.point.source == *src && r.point.m == m && r.status.completed())
        .filter_map(|r| Some((r.point.n? as f64, r.time_s?.median)))
        .filter(|&(_, t)| t >= MIN_FIT_S)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
