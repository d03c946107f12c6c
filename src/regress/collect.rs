//! Which files `weft test` looks at, and which of them are weft/1 models.
//!
//! A folder's candidates are its `*.json` files, sorted by name, except
//! `*.exceptions.json`: by convention (docs/model-format.md) those are
//! exception sets for `--exceptions`, which sit beside the models they
//! belong to and are not tests. A file named on the command line is always
//! a candidate, whatever its name.
//!
//! A candidate that is valid JSON but plainly not a weft/1 model (an array,
//! another tool's document) is skipped, not failed: a folder of models
//! often holds such companions. Anything that could be a model, including
//! a file that is not JSON at all, goes to the loader, so a model with a
//! mistake fails loudly.

use super::RegressError;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The ending of exception-set files, which a folder run leaves out.
const EXCEPTIONS_SUFFIX: &str = ".exceptions.json";

/// The files to run: `path` itself, or the candidates of the folder `path`.
pub(super) fn files(path: &Path) -> Result<Vec<PathBuf>, RegressError> {
    let unreadable = |source| RegressError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    if !std::fs::metadata(path).map_err(unreadable)?.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(unreadable)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        // Subfolders are not entered, whatever their name.
        .filter(|p| is_candidate(p) && !p.is_dir())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(RegressError::Empty {
            dir: path.to_path_buf(),
        });
    }
    Ok(files)
}

/// A folder entry worth running: `*.json`, not `*.exceptions.json`.
fn is_candidate(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    name.ends_with(".json") && !name.ends_with(EXCEPTIONS_SUFFIX)
}

/// What a candidate file is.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Candidate {
    /// A model, or something that may be meant as one: the loader decides.
    Model,
    /// Valid JSON that is not a weft/1 model; says what it is instead.
    NotAModel(String),
}

/// The largest file `classify` reads: any real companion is far smaller.
/// A larger file, or one that is not a regular file (a device, a FIFO, a
/// symbolic link to one), goes to the loader unread, which reads it under
/// the run's budgets and size cap and says what is wrong with it; read
/// here, `/dev/zero` named `x.json` would be read until memory ran out.
const CLASSIFY_MAX_BYTES: u64 = 64 << 20;

/// Sorts `path` without loading it. DVE files and anything unreadable,
/// large, not a regular file or not valid JSON are `Model` (the loader
/// reports their problems).
pub(super) fn classify(path: &Path) -> Candidate {
    classify_up_to(path, CLASSIFY_MAX_BYTES)
}

/// As `classify`, reading files of at most `max` bytes.
fn classify_up_to(path: &Path, max: u64) -> Candidate {
    if weft::Model::is_dve_path(path) {
        return Candidate::Model;
    }
    let readable = std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() <= max);
    if !readable {
        return Candidate::Model;
    }
    // A file grown since `metadata` is read only up to the cap.
    let mut text = String::new();
    let read = std::fs::File::open(path)
        .and_then(|f| std::io::Read::read_to_string(&mut std::io::Read::take(f, max), &mut text));
    match read {
        Ok(_) => classify_text(&text),
        Err(_) => Candidate::Model,
    }
}

/// The top-level keys that only a weft/1 model has (the two required ones
/// that describe the program, and `expect`, which marks a file as meant
/// for `weft test`).
const MODEL_KEYS: [&str; 3] = ["threads", "properties", "expect"];

/// As `classify`, on the file's text.
fn classify_text(text: &str) -> Candidate {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        // Not JSON (or a byte-order mark, which the loader accepts): a model
        // with a syntax error must fail, with the loader's position.
        return Candidate::Model;
    };
    let not_a_model = |what: &str| Candidate::NotAModel(what.to_string());
    let object = match &value {
        Value::Object(o) => o,
        Value::Array(_) => return not_a_model("a JSON array"),
        _ => return not_a_model("a JSON scalar"),
    };
    match object.get("format") {
        // `weft/1`, or a version this weft does not read: the loader says so.
        Some(Value::String(f)) if f.starts_with("weft/") => Candidate::Model,
        Some(Value::String(f)) => Candidate::NotAModel(format!("`format` is `{f}`")),
        // A `format` that is not a string is a mistake in a model.
        Some(_) => Candidate::Model,
        None if MODEL_KEYS.iter().any(|k| object.contains_key(*k)) => Candidate::Model,
        None => not_a_model("a JSON object without `threads`, `properties` or `format`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_and_companions_are_told_apart() {
        let not = |t| matches!(classify_text(t), Candidate::NotAModel(_));
        assert!(not(r#"[{"when": "x == 1", "threads": {"P1": "@B"}}]"#));
        assert!(not(r#"{"exceptions": []}"#));
        assert!(not(r#"{"format": "weft-bench/1", "records": []}"#));
        assert!(not("42"));
        assert_eq!(classify_text(r#"{"format": "weft/1"}"#), Candidate::Model);
        assert_eq!(classify_text(r#"{"format": "weft/2"}"#), Candidate::Model);
        assert_eq!(
            classify_text(r#"{"name": "a", "threads": []}"#),
            Candidate::Model
        );
        assert_eq!(classify_text(r#"{"expect": {}}"#), Candidate::Model);
        assert_eq!(classify_text(r#"{"name": "a", "#), Candidate::Model);
    }

    #[test]
    fn large_files_and_devices_go_to_the_loader_unread() {
        let dir = std::env::temp_dir().join(format!("weft-classify-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let array = dir.join("array.json");
        std::fs::write(&array, format!("[]{}", " ".repeat(100))).unwrap();
        assert!(matches!(
            classify_up_to(&array, 200),
            Candidate::NotAModel(_)
        ));
        assert_eq!(classify_up_to(&array, 50), Candidate::Model);
        // Unread: read, it would never end (and a JSON scalar of zeros
        // is not what it is meant to be).
        assert_eq!(classify(Path::new("/dev/zero")), Candidate::Model);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn exception_files_are_not_candidates() {
        assert!(is_candidate(Path::new("m/peterson.json")));
        assert!(!is_candidate(Path::new("m/peterson.exceptions.json")));
        assert!(!is_candidate(Path::new("m/peterson.dve")));
        assert!(!is_candidate(Path::new("m/notes.txt")));
    }
}
