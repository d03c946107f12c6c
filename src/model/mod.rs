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
