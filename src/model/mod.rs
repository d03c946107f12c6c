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
    /// For a model translated from DVE: where its synchronising
    /// transitions come from in the DVE text ("line L, column C"), by JSON
    /// path, so that a message about one (the Promela export's refusal)
    /// names the DVE line, not the translation's path.
    pub(crate) places: Vec<(String, String)>,
}

impl Model {
    /// The compiled program the engines run on.
    pub(crate) fn program(&self) -> &Program {
        &self.program
    }

    /// Where the part of the model at the JSON path `path` comes from in
    /// the file it was translated from, if it was (else `path` itself).
    pub(crate) fn place(&self, path: &str) -> String {
        self.places.iter().find(|(p, _)| p == path).map_or_else(
            || path.to_string(),
            |(_, at)| format!("the transition at {at}"),
        )
    }

    /// Records where the synchronising transitions come from in the DVE
    /// text `map` translated.
    pub(crate) fn locate_syncs(&mut self, map: &dve::SourceMap) {
        self.places = self
            .program
            .templates
            .iter()
            .flat_map(|t| &t.transitions)
            .filter(|tr| tr.sync.is_some())
            .filter_map(|tr| Some((tr.path.clone(), map.place(&tr.path)?)))
            .collect();
    }

    /// The compiled program, for tests that drive the engines directly.
    #[cfg(test)]
    pub(crate) fn into_program(self) -> Program {
        self.program
    }
}
