//! The next step of an `unknown` in words: the one place that names the
//! command line's flags for it (the engines choose the step as data,
//! `result::Suggestion`). Both the text report's `next:` line and the JSON
//! `next_step` field are this sentence.

use crate::engine::result::{Limit, NextStep, Suggestion};
use crate::engine::{Mode, Refinement};

/// The section of docs/model-format.md that explains exception sets.
const EXCEPTIONS_DOC: &str = "docs/model-format.md, \"What an exception set means\"";

/// `run `--mode refine` (…), or run `--mode standard` …`: the suggestions
/// joined, best first.
pub(crate) fn sentence(step: &NextStep) -> String {
    step.suggestions()
        .iter()
        .map(suggestion)
        .collect::<Vec<_>>()
        .join(", or ")
}

/// The sentence of `weft check`'s `next:` line (and of JSON's `next_step`).
impl std::fmt::Display for NextStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&sentence(self))
    }
}

fn suggestion(s: &Suggestion) -> String {
    match s {
        Suggestion::Mode(Mode::Refine) => {
            "run `--mode refine` (refines the abstraction automatically)".into()
        }
        Suggestion::Mode(Mode::Standard) => "run `--mode standard` (searches concretely)".into(),
        Suggestion::Mode(m) => format!("run `--mode {}`", m.name()),
        Suggestion::Refinement(r) => format!("try `--mode refine --refine {}`", strategy(*r)),
        Suggestion::Raise(limit) => raise(limit),
        Suggestion::Symmetry { threads } => {
            format!("add `--symmetry` ({threads} interchangeable threads)")
        }
        Suggestion::Exceptions => format!(
            "give the model an exception set (`--exceptions FILE`; `--mode refine --save-exceptions FILE` computes one; see {EXCEPTIONS_DOC})"
        ),
        Suggestion::Alone(p) => format!("check it alone with `--property {p}`"),
        Suggestion::Continue => {
            "add `--continue` (searches on after the first violations)".to_string()
        }
        Suggestion::Search => "search exhaustively with `weft check` (mode standard)".into(),
        Suggestion::Report => {
            "report this model to weft's authors (an internal error stopped the run)".into()
        }
    }
}

fn strategy(r: Refinement) -> &'static str {
    match r {
        Refinement::Exceptions => "exceptions",
        Refinement::Control => "control",
        Refinement::ControlMonotonic => "control-monotonic",
    }
}

fn raise(limit: &Limit) -> String {
    match limit {
        Limit::Time(t) => format!(
            "raise `--timeout` ({} s ran out)",
            super::format_seconds(t.as_secs_f64())
        ),
        Limit::Memory(b) => format!(
            "raise `--max-memory` ({} MiB ran out)",
            crate::engine::result::format_mib(*b)
        ),
        Limit::States(n) => format!("raise `--max-states` ({n} states ran out)"),
        Limit::Store(n) => format!(
            "reduce the model (the state store holds at most {n} states and cannot be raised)"
        ),
        Limit::Depth(d) => format!("raise `--max-depth` (depth {d} reached)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Every flag a next step can name, with the suggestion naming it. The
    /// CLI test `next_steps_name_real_flags` checks them against `weft
    /// check --help`; this checks they are what the sentences say.
    #[test]
    fn each_suggestion_names_its_flag() {
        let cases = [
            (Suggestion::Mode(Mode::Refine), "`--mode refine`"),
            (Suggestion::Mode(Mode::Standard), "`--mode standard`"),
            (
                Suggestion::Mode(Mode::ThreadModular),
                "`--mode thread-modular`",
            ),
            (
                Suggestion::Refinement(Refinement::Control),
                "`--mode refine --refine control`",
            ),
            (
                Suggestion::Raise(Limit::Time(Duration::from_secs(20))),
                "`--timeout` (20 s ran out)",
            ),
            (
                Suggestion::Raise(Limit::Memory(2000 * 1048576)),
                "`--max-memory` (2000 MiB ran out)",
            ),
            (
                Suggestion::Raise(Limit::States(1000)),
                "`--max-states` (1000 states ran out)",
            ),
            (
                Suggestion::Symmetry { threads: 22 },
                "`--symmetry` (22 interchangeable",
            ),
            (Suggestion::Exceptions, "`--exceptions FILE`"),
            (Suggestion::Exceptions, "\"What an exception set means\""),
            (
                Suggestion::Alone("model-errors".into()),
                "`--property model-errors`",
            ),
            (Suggestion::Search, "`weft check`"),
        ];
        for (s, words) in cases {
            let text = suggestion(&s);
            assert!(text.contains(words), "{s:?}: {text}");
        }
    }

    #[test]
    fn suggestions_are_joined_best_first() {
        let step = NextStep::new(Suggestion::Symmetry { threads: 3 })
            .or(Suggestion::Raise(Limit::Time(Duration::from_millis(1500))));
        let text = sentence(&step);
        assert!(text.starts_with("add `--symmetry`"), "{text}");
        assert!(
            text.ends_with(", or raise `--timeout` (1.5 s ran out)"),
            "{text}"
        );
    }
}
