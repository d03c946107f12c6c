//! Numbers and dates as report.md and time_vs_threads.svg print them.

/// Seconds with three significant digits.
pub(crate) fn fmt_secs(t: f64) -> String {
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

pub(super) fn fmt_int(v: u64) -> String {
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

pub(super) fn fmt_big(v: Option<u128>) -> String {
    match v {
        Some(v) if v < 1_000_000_000_000 => fmt_int(v as u64),
        Some(v) => format!("{:.2e}", v as f64),
        None => "–".into(),
    }
}

/// A ratio with three significant digits: `48.2`, `1,230`, `2.13e6`.
pub(super) fn fmt_ratio(r: f64) -> String {
    if r >= 1e6 {
        format!("{r:.2e}")
    } else if r >= 100.0 {
        let p = 10f64.powi(r.log10().floor() as i32 - 2);
        fmt_int(((r / p).round() * p) as u64)
    } else {
        fmt_secs(r)
    }
}

pub(super) fn fmt_duration(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.1} s")
    } else {
        format!("{}m {:02.0}s", (s / 60.0).floor() as u64, s % 60.0)
    }
}

pub(super) fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// `2025-01-31 12:34:56` from Unix seconds (proleptic Gregorian, UTC).
pub(crate) fn utc_date_time(unix: u64) -> String {
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

/// `2–9, 11–19, 30` from ascending numbers.
pub(super) fn fmt_ranges(ns: &[u32]) -> String {
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
        assert_eq!(fmt_ranges(&[2, 3, 4, 5, 7, 9, 10]), "2–5, 7, 9, 10");
    }
}
