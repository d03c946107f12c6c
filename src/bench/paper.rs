//! The published figures we compare against: Fig. 4 of Malkis, Podelski and
//! Rybalchenko, "Precise thread-modular verification" (Section 6), run times
//! in seconds of their OCaml prototype on a 2.8 GHz CPU for the lock schema
//! lock(n, m), with the exception set of Section 5; and Table 1 of Gupta,
//! Popeea and Rybalchenko, "Non-monotonic refinement of control abstraction
//! for concurrent programs" (ATVA 2010), for the refine preset.

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

/// Where Table 1 comes from, for the report.
pub(crate) const TABLE1_SOURCE: &str = "Gupta, Popeea and Rybalchenko, \"Non-monotonic refinement of control abstraction for concurrent programs\" (ATVA 2010), Table 1 (their C verifier with Z3; the paper does not name the machine)";

/// One configuration of a Table 1 row: total seconds = abstract
/// reachability + refinement, and the number of equivalence classes |≡| of
/// control locations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Table1Run {
    pub(crate) total_s: f64,
    pub(crate) reach_s: f64,
    pub(crate) refine_s: f64,
    pub(crate) classes: u32,
}

/// A row of Table 1 and the shipped model that encodes its program.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Table1Row {
    /// The program as the paper names it.
    pub(crate) program: &'static str,
    /// Its model in models/.
    pub(crate) file: &'static str,
    pub(crate) monotonic: Table1Run,
    pub(crate) non_monotonic: Table1Run,
}

const fn run(total_s: f64, reach_s: f64, refine_s: f64, classes: u32) -> Table1Run {
    Table1Run {
        total_s,
        reach_s,
        refine_s,
        classes,
    }
}

/// Table 1, in the paper's order.
pub(crate) const TABLE1: [Table1Row; 5] = [
    Table1Row {
        program: "Bakery-atomic",
        file: "bakery-atomic.json",
        monotonic: run(6.6, 5.7, 0.9, 8),
        non_monotonic: run(4.8, 4.1, 0.7, 7),
    },
    Table1Row {
        program: "Bakery",
        file: "bakery-fig2.json",
        monotonic: run(54.0, 48.4, 5.6, 14),
        non_monotonic: run(26.0, 23.1, 2.9, 10),
    },
    Table1Row {
        program: "Bluetooth",
        file: "bluetooth.json",
        monotonic: run(19.5, 16.4, 3.1, 7),
        non_monotonic: run(16.4, 11.3, 5.1, 5),
    },
    Table1Row {
        program: "Mozilla-order-fixed",
        file: "mozilla-order-fixed.json",
        monotonic: run(2.7, 2.1, 0.6, 5),
        non_monotonic: run(1.6, 0.9, 0.7, 3),
    },
    Table1Row {
        program: "TIME-VARYING-MUTEX",
        file: "time-var-mutex.json",
        monotonic: run(9.6, 8.7, 0.9, 10),
        non_monotonic: run(7.1, 6.3, 0.8, 7),
    },
];

/// The Table 1 row of a shipped model file (by its file name).
pub(crate) fn table1_row(file_name: &str) -> Option<&'static Table1Row> {
    TABLE1.iter().find(|r| r.file == file_name)
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

    #[test]
    fn table1_totals_are_the_sum_of_their_parts() {
        for r in TABLE1 {
            for (what, c) in [
                ("monotonic", r.monotonic),
                ("non-monotonic", r.non_monotonic),
            ] {
                assert!(
                    (c.reach_s + c.refine_s - c.total_s).abs() < 0.051,
                    "{} {what}",
                    r.program
                );
            }
            // Non-monotonic refinement never needs more classes.
            assert!(
                r.non_monotonic.classes <= r.monotonic.classes,
                "{}",
                r.program
            );
        }
        assert_eq!(table1_row("bakery-fig2.json").unwrap().program, "Bakery");
        assert!(table1_row("peterson.json").is_none());
    }
}
