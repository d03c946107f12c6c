//! The weft/1 model format: JSON walking, the expression language, name
//! resolution and the loader that produces a compiled `Program`.

pub(crate) mod diag;
pub(crate) mod dve;
pub(crate) mod expect;
pub(crate) mod expr;
pub(crate) mod json;
pub(crate) mod load;
pub(crate) mod read;
pub(crate) mod resolve;

pub use diag::Diagnostic;
pub use expect::Expectation;
#[cfg(test)]
pub(crate) use load::load_any;
#[cfg(test)]
pub(crate) use load::load_file;
pub(crate) use load::{load_any_with, load_str};

use crate::program::Program;

/// A loaded model: the compiled program, and what the model file says
/// besides it (its `expect` table, the loader's warnings).
#[derive(Clone, Debug)]
pub struct Model {
    pub(crate) program: Program,
    /// `expect`: the runs `weft test` makes and the verdict of each.
    pub(crate) expect: Vec<Expectation>,
    /// What the loader had to say that does not stop the load (shown on
    /// stderr by `weft check`).
    pub(crate) warnings: Vec<String>,
}

impl Model {
    /// The compiled program the engines run on.
    pub(crate) fn program(&self) -> &Program {
        &self.program
    }

    /// The compiled program, for tests that drive the engines directly.
    #[cfg(test)]
    pub(crate) fn into_program(self) -> Program {
        self.program
    }
}
