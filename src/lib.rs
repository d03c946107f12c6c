//! weft: a model checker for finite multithreaded programs.
//!
//! The pipeline: `model` (JSON text -> compiled `program::Program`), then one
//! of the engines in `engine` over that program, then `report` for output.
//! See docs/ARCHITECTURE.md for the code map.

pub mod bench;
pub mod cli;
pub mod engine;
pub mod model;
pub mod program;
pub mod promela;
pub mod property;
pub mod regress;
pub mod report;
pub mod trace;
