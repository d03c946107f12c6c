//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use weft::program::Program;

pub fn models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models")
}

pub fn load(name: &str) -> Program {
    let path = models_dir().join(name);
    weft::model::load_file(&path, &[]).unwrap_or_else(|d| panic!("{}", d.render()))
}

pub fn load_value(v: &serde_json::Value) -> Program {
    weft::model::load_str(&v.to_string(), "generated.json", &[])
        .unwrap_or_else(|d| panic!("{}", d.render()))
}

/// A shipped model with its exception set removed.
pub fn without_exceptions(mut p: Program) -> Program {
    p.exceptions.clear();
    p
}
