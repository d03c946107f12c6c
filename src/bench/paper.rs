//! The published figures we compare against: Fig. 4 of Malkis, Podelski and
//! Rybalchenko, "Precise thread-modular verification" (Section 6), run times
//! in seconds of their OCaml prototype on a 2.8 GHz CPU for the lock schema
//! lock(n, m), with the exception set of Section 5.

/// Where the numbers come from, for the report.
pub(crate) const FIG4_SOURCE: &str = "Malkis, Podelski and Rybalchenko, \"Precise thread-modular verification\", Fig. 4 (OCaml prototype, 2.8 GHz CPU)";

/// The columns of Fig. 4: the number of threads n.
pub(crate) const FIG4_THREADS: [u32; 10] = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];

/// The rows of Fig. 4: the number of critical sections per thread m.
pub(crate) const FIG4_SECTIONS: [u32; 5] = [1, 3, 5, 7, 9];

/// Fig. 4's table: `FIG4_SECONDS[row][column]` for m = `FIG4_SECTIONS[row]`
/// and n = `FIG4_THREADS[column]`.
pub(crate) const FIG4_SECONDS: [[f64; 10]; 5] = [
    [0.1, 1.2, 5.6, 19.0, 45.0, 88.0, 163.0, 249.0, 452.0, 650.0],
    [
        0.2, 2.8, 13.0, 40.0, 90.0, 184.0, 370.0, 570.0, 920.0, 1423.0,
    ],
    [
        0.3, 5.0, 26.0, 72.0, 186.0, 359.0, 675.0, 1192.0, 1901.0, 3022.0,
    ],
    [
        0.6, 8.7, 36.0, 131.0, 335.0, 642.0, 1158.0, 1907.0, 3374.0, 5170.0,
    ],
    [
        0.9, 13.9, 60.0, 210.0, 498.0, 1052.0, 1889.0, 3160.0, 4836.0, 7328.0,
    ],
];

/// The paper's seconds for lock(n, m), if Fig. 4 has that point.
pub(crate) fn fig4_seconds(n: u32, m: u32) -> Option<f64> {
    let row = FIG4_SECTIONS.iter().position(|&x| x == m)?;
    let col = FIG4_THREADS.iter().position(|&x| x == n)?;
    Some(FIG4_SECONDS[row][col])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_of_the_published_table() {
        assert_eq!(fig4_seconds(10, 1), Some(0.1));
        assert_eq!(fig4_seconds(100, 9), Some(7328.0));
        assert_eq!(fig4_seconds(50, 5), Some(186.0));
        assert_eq!(fig4_seconds(15, 1), None);
        assert_eq!(fig4_seconds(10, 2), None);
    }
}
