//! Which next step fits an `unknown` (`result::NextStep`): the engines call
//! these with what they know (the mode, the budget that ran out, the
//! model's symmetry and exception set). The choice is data; `report`
//! words it with the command line's flags, so no engine names a flag.

use super::result::{Limit, NextStep, RunReport, Suggestion};
use super::symmetry::Symmetry;
use super::{CheckError, CheckOptions, MODEL_ERRORS, Mode, Refinement, Verdict};
use crate::program::Program;

/// `--symmetry` is suggested when the reduction can divide the state space
/// by at least this much (∏ k! over the blocks of k interchangeable
/// threads): three threads of one template, or three pairs.
const MIN_SYMMETRY_GAIN: u128 = 6;

impl NextStep {
    /// `first`, then each of `rest` not already there.
    fn of(first: Suggestion, rest: impl IntoIterator<Item = Suggestion>) -> NextStep {
        rest.into_iter().fold(NextStep::new(first), NextStep::or)
    }
}

/// An abstract alarm (thread-modular, cartesian-exc): refine it
/// automatically, or search concretely; cartesian-exc on a model without
/// an exception set can also be given one.
pub(crate) fn alarm(prog: &Program, mode: Mode) -> NextStep {
    let step = NextStep::of(
        Suggestion::Mode(Mode::Refine),
        [Suggestion::Mode(Mode::Standard)],
    );
    if mode == Mode::CartesianExc && prog.exceptions.is_empty() {
        step.or(Suggestion::Exceptions)
    } else {
        step
    }
}

/// A property that cannot be evaluated in some state of an abstract
/// mode's fixpoint: `standard` decides it, and reports the failing
/// evaluation as a model error.
pub(crate) fn unevaluable() -> NextStep {
    NextStep::new(Suggestion::Mode(Mode::Standard))
}

/// A run that stopped before its answer: raise the budget that ran out
/// (the state store's capacity cannot be raised), then `alternatives`. No
/// budget ran out: the stop was an internal error, to be reported, and
/// `standard` decides without the engine that failed.
pub(crate) fn stopped(limit: Option<Limit>, alternatives: &[Suggestion]) -> NextStep {
    let mut all = Vec::new();
    match limit {
        None => all.extend([Suggestion::Report, Suggestion::Mode(Mode::Standard)]),
        Some(Limit::Store(_)) => {}
        Some(l) => all.push(Suggestion::Raise(l)),
    }
    all.extend(alternatives.iter().cloned());
    let mut all = all.into_iter();
    match all.next() {
        Some(first) => NextStep::of(first, all),
        // Only the store was full and nothing else was offered.
        None => NextStep::new(Suggestion::Mode(Mode::Refine)),
    }
}

/// `standard` stopped by a budget: `--symmetry` first when the model's
/// threads are interchangeable enough for it to matter and it is off, then
/// the budget, then an abstract mode (polynomial in the number of threads).
pub(crate) fn standard_budget(
    prog: &Program,
    opts: &CheckOptions,
    limit: Option<Limit>,
) -> NextStep {
    let rest = stopped(limit, &[Suggestion::Mode(Mode::Refine)]);
    match symmetric_threads(prog, opts) {
        Some(threads) => NextStep::of(
            Suggestion::Symmetry { threads },
            rest.suggestions().iter().cloned(),
        ),
        None => rest,
    }
}

/// `standard` stopped once every other property was violated, before
/// `model-errors` was fully checked: check it alone, or search on. Alone,
/// it evaluates no property, so where a checked property may fail to
/// evaluate (`fallible`) only searching on checks the same thing.
pub(crate) fn model_errors_alone(fallible: bool) -> NextStep {
    if fallible {
        return NextStep::new(Suggestion::Continue);
    }
    NextStep::new(Suggestion::Alone(MODEL_ERRORS.into())).or(Suggestion::Continue)
}

/// `refine` stopped by a budget (or an internal error): raise it, try the
/// other strategy, or search concretely.
pub(crate) fn refine_stopped(limit: Option<Limit>, strategy: Refinement) -> NextStep {
    let other = match strategy {
        Refinement::Exceptions => Refinement::Control,
        Refinement::Control | Refinement::ControlMonotonic => Refinement::Exceptions,
    };
    stopped(
        limit,
        &[
            Suggestion::Refinement(other),
            Suggestion::Mode(Mode::Standard),
        ],
    )
}

/// The report as it is when every `unknown` has a next step and nothing
/// else has one; otherwise an internal error. The constructors of `Outcome`
/// make an `unknown` without a next step impossible; this guards the rule
/// in release builds too (the test suite runs them, and every test that
/// gets an `unknown` walks it), where a debug assertion would be compiled
/// out. `engine::check`, the one entry point, calls it.
pub(crate) fn every_unknown_has_one(report: RunReport) -> Result<RunReport, CheckError> {
    match report
        .outcomes
        .iter()
        .find(|o| (o.verdict == Verdict::Unknown) != o.next_step.is_some())
    {
        Some(o) => Err(CheckError::Internal(format!(
            "internal error: the outcome of `{}` is {} but has {} next step; please report this model",
            o.property,
            o.verdict.name(),
            if o.next_step.is_some() { "a" } else { "no" }
        ))),
        None => Ok(report),
    }
}

/// The threads `--symmetry` would reduce, when it is off, applies (no
/// channels) and can divide the state space by `MIN_SYMMETRY_GAIN` or more.
fn symmetric_threads(prog: &Program, opts: &CheckOptions) -> Option<usize> {
    // `--por` does not combine with `--symmetry` (yet).
    if opts.symmetry || opts.por || !prog.channels.is_empty() {
        return None;
    }
    let sym = Symmetry::detect(prog).ok()?;
    let gain = sym.blocks.iter().try_fold(1u128, |acc, b| {
        (2..=b.len() as u128).try_fold(acc, |a, k| a.checked_mul(k))
    });
    // Past u128 the gain is certainly large enough.
    let enough = gain.is_none_or(|g| g >= MIN_SYMMETRY_GAIN);
    enough.then(|| sym.blocks.iter().map(ExactSizeIterator::len).sum())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::common::load;
    use std::time::Duration;

    fn opts() -> CheckOptions {
        CheckOptions::default()
    }

    #[test]
    fn cartesian_alarm_without_exceptions_suggests_writing_some() {
        let ticket = load("ticket-lock.json");
        assert!(ticket.exceptions.is_empty());
        let s = alarm(&ticket, Mode::CartesianExc);
        assert_eq!(
            s.suggestions(),
            [
                Suggestion::Mode(Mode::Refine),
                Suggestion::Mode(Mode::Standard),
                Suggestion::Exceptions
            ]
        );
        // thread-modular has no exception set to give.
        assert!(
            !alarm(&ticket, Mode::ThreadModular)
                .suggestions()
                .contains(&Suggestion::Exceptions)
        );
        // peterson has one: only refine or standard.
        let peterson = load("peterson.json");
        assert_eq!(alarm(&peterson, Mode::CartesianExc).suggestions().len(), 2);
    }

    #[test]
    fn a_symmetric_model_gets_symmetry_before_the_budget() {
        let lock = load("lock.json"); // n = 3 interchangeable threads
        let t = Limit::Time(Duration::from_secs(20));
        let s = standard_budget(&lock, &opts(), Some(t));
        assert_eq!(
            s.suggestions(),
            [
                Suggestion::Symmetry { threads: 3 },
                Suggestion::Raise(t),
                Suggestion::Mode(Mode::Refine)
            ]
        );
        // Already on: the budget comes first.
        let on = CheckOptions {
            symmetry: true,
            ..opts()
        };
        assert_eq!(
            standard_budget(&lock, &on, Some(t)).suggestions()[0],
            Suggestion::Raise(t)
        );
    }

    #[test]
    fn two_templates_of_one_thread_each_are_not_symmetric() {
        let peterson = load("peterson.json");
        let m = Limit::Memory(1 << 30);
        assert_eq!(
            standard_budget(&peterson, &opts(), Some(m)).suggestions(),
            [Suggestion::Raise(m), Suggestion::Mode(Mode::Refine)]
        );
    }

    #[test]
    fn two_interchangeable_threads_gain_too_little() {
        let path = crate::tests::common::models_dir().join("lock.json");
        let with = |n: i64| {
            crate::model::load_file(&path, &[("n".to_string(), n)])
                .map(crate::model::Model::into_program)
                .unwrap_or_else(|d| panic!("{}", d.render()))
        };
        assert_eq!(symmetric_threads(&with(2), &opts()), None);
        assert_eq!(symmetric_threads(&with(3), &opts()), Some(3));
    }

    #[test]
    fn a_full_store_is_not_raised_and_an_internal_stop_is_reported() {
        let s = stopped(Some(Limit::Store(10)), &[Suggestion::Mode(Mode::Standard)]);
        assert_eq!(s.suggestions(), [Suggestion::Mode(Mode::Standard)]);
        assert_eq!(stopped(Some(Limit::Store(10)), &[]).suggestions().len(), 1);
        let s = stopped(None, &[Suggestion::Mode(Mode::Standard)]);
        assert_eq!(
            s.suggestions(),
            [Suggestion::Report, Suggestion::Mode(Mode::Standard)]
        );
        assert_eq!(stopped(None, &[]).suggestions().len(), 2);
    }

    #[test]
    fn the_entry_point_refuses_an_unknown_without_next_step() {
        let prog = load("ticket-lock.json");
        let report = |mode| super::super::check(&prog, mode, &opts()).unwrap();
        // A real report passes: its unknown has a next step.
        let mut r = report(Mode::CartesianExc);
        assert_eq!(r.outcomes[0].verdict, Verdict::Unknown);
        assert!(every_unknown_has_one(r.clone()).is_ok());
        // Without it, or a safe outcome with one: refused.
        let step = r.outcomes[0].next_step.take();
        assert!(matches!(
            every_unknown_has_one(r.clone()),
            Err(CheckError::Internal(_))
        ));
        r.outcomes[1].next_step = step;
        r.outcomes[0].next_step = r.outcomes[1].next_step.clone();
        assert_eq!(r.outcomes[1].verdict, Verdict::Safe);
        assert!(every_unknown_has_one(r).is_err());
    }

    #[test]
    fn refine_suggests_the_other_strategy() {
        let t = Limit::States(5);
        assert_eq!(
            refine_stopped(Some(t), Refinement::Exceptions).suggestions(),
            [
                Suggestion::Raise(t),
                Suggestion::Refinement(Refinement::Control),
                Suggestion::Mode(Mode::Standard)
            ]
        );
        assert_eq!(
            refine_stopped(Some(t), Refinement::ControlMonotonic).suggestions()[1],
            Suggestion::Refinement(Refinement::Exceptions)
        );
    }
}
