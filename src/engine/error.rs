//! Why a check did not run. A budget that runs out is not an error (the
//! run answers `unknown`); these are refusals before or while a mode runs.

/// A check that could not be carried out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// The options name a property the model does not have.
    // `model-errors` is always there to ask for, and said so.
    #[error("unknown property `{name}`; this model has: {known}, model-errors")]
    UnknownProperty {
        /// The name asked for.
        name: String,
        /// The model's properties, comma-separated (`model-errors`, which
        /// every model has, not among them).
        known: String,
    },
    /// The mode cannot check this model or property as it is written (for
    /// example channels in an abstract mode, or a store too wide to pack);
    /// the message says what to use instead.
    #[error("{0}")]
    Unsupported(String),
    /// A property or exception predicate could not be evaluated.
    #[error("evaluating {what}: {message}")]
    Evaluation {
        /// What was being evaluated (`property `mutex``).
        what: String,
        /// The evaluation error.
        message: String,
    },
    /// The exception set's entries cannot be instantiated: the global
    /// stores they are instantiated at (per entry, the stores its `when`'s
    /// comparisons of a global with a constant admit, within the values the
    /// globals can hold) are more than `max`.
    #[error(
        "the exception entries admit more than {max} global stores (the values the globals can hold, as far as weft can bound them, hidden scheduler state included, narrowed by each entry's `when`); pin more globals in the entries' `when` (`x == 1 && y <= 2`), restrict the model's globals, or check it without an exception set"
    )]
    ExceptionsTooWide {
        /// The most global stores instantiated.
        max: usize,
    },
    /// The machine refused a resource (e.g. worker threads).
    #[error("{0}")]
    Internal(String),
}

/// `CheckError::Evaluation`'s `what` for the exception set's predicates.
pub(crate) const EXCEPTION_SET: &str = "the exception set";

impl CheckError {
    /// Did a predicate of the exception set fail to evaluate, or the set
    /// not instantiate? Given with `--exceptions`, its file is the one to
    /// name, not the model's.
    pub fn in_exception_set(&self) -> bool {
        match self {
            CheckError::Evaluation { what, .. } => what == EXCEPTION_SET,
            CheckError::ExceptionsTooWide { .. } => true,
            _ => false,
        }
    }
}
