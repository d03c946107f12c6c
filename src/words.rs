//! Counts in prose: "1 step", "2 steps". Users read the reasons and
//! summaries aloud to each other; "in 1 steps" reads as a bug.

use std::fmt::Display;

/// `n` and `noun`, plural unless `n` is one (`noun` is the singular; the
/// plurals the messages need are regular: `-es` after an `s`, else `-s`).
pub(crate) fn count(n: impl Display, noun: &str) -> String {
    let n = n.to_string();
    let ending = match (n == "1", noun.ends_with('s')) {
        (true, _) => "",
        (false, true) => "es",
        (false, false) => "s",
    };
    format!("{n} {noun}{ending}")
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_and_the_rest_plural() {
        assert_eq!(count(1, "step"), "1 step");
        assert_eq!(count(0usize, "step"), "0 steps");
        assert_eq!(count(2u64, "global store"), "2 global stores");
        assert_eq!(count(3, "class"), "3 classes");
        assert_eq!(count(1, "class"), "1 class");
    }
}
