//! The weft/1 model format: JSON walking, the expression language, name
//! resolution and the loader that produces a compiled `Program`.

pub mod diag;
pub mod dve;
pub mod expr;
pub mod json;
pub mod load;
pub mod resolve;

pub use diag::Diagnostic;
pub use load::{load_any, load_file, load_str};

use crate::engine::{Mode, Verdict};
use crate::program::Program;

/// A loaded model: the compiled program, and what the model file says
/// besides it (its `expect` table, the loader's warnings).
#[derive(Clone, Debug)]
pub struct Model {
    pub(crate) program: Program,
    /// `expect`: the verdict each mode should give (for `weft test`).
    pub(crate) expect: Vec<(Mode, Verdict)>,
    /// What the loader had to say that does not stop the load (shown on
    /// stderr by `weft check`).
    pub(crate) warnings: Vec<String>,
}

impl std::ops::Deref for Model {
    type Target = Program;
    fn deref(&self) -> &Program {
        &self.program
    }
}
