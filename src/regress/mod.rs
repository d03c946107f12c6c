//! `weft test PATH`: the regression runner. Checks a model file, or every
//! model of a folder, in every run its `expect` names (a mode, with options
//! when the entry gives them), and says per run whether the verdict was
//! the expected one. `collect` finds
//! and sorts the files, `render` writes the text and JSON Lines records,
//! `junit` the JUnit XML report; this module runs the checks and keeps the
//! records as data.

mod collect;
mod junit;
mod render;

pub(crate) use junit::write_junit;
pub(crate) use render::{closing_line, json_line, json_summary, text_line};

use collect::Candidate;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use weft::{CheckOptions, Expectation, LoadOptions, Mode, Model, Verdict};

/// Why a path could not be run at all (exit 2, nothing checked).
#[derive(Debug, thiserror::Error)]
pub(crate) enum RegressError {
    /// The path does not exist, or the folder cannot be listed.
    #[error("cannot read {}: {source}", path.display())]
    Unreadable {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The folder holds no candidate file.
    #[error(
        "no model files (*.json, other than *.exceptions.json) in {}",
        dir.display()
    )]
    Empty {
        /// The folder.
        dir: PathBuf,
    },
}

/// What became of one (model, mode), or of a file that got no further
/// than loading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// The verdict is the expected one.
    Passed,
    /// The verdict is not the expected one.
    Failed,
    /// No verdict: the model does not load, or the mode refused the check.
    Error,
    /// Not checked: no `expect`, or not a weft/1 model.
    Skipped,
}

impl Status {
    /// The name in the JSON records.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Error => "error",
            Status::Skipped => "skipped",
        }
    }
}

/// One property's result in a checked (model, mode).
#[derive(Clone, Debug)]
pub(crate) struct PropertyResult {
    pub(crate) property: String,
    pub(crate) verdict: Verdict,
    pub(crate) reason: String,
    /// What to try next, for an `unknown` (as `weft check`'s `next:`).
    pub(crate) next: Option<String>,
}

/// One line of the report: a (model, mode), or a whole file when it was
/// skipped or does not load (`mode` is then `None`).
#[derive(Clone, Debug)]
pub(crate) struct Record {
    /// The file as the user named it (the folder joined with its name).
    pub(crate) file: String,
    /// The model's `name`, once it loaded.
    pub(crate) model: Option<String>,
    pub(crate) mode: Option<Mode>,
    /// The run's options as `weft check` flags (`--por`), from `expect`.
    pub(crate) options: Vec<String>,
    pub(crate) expected: Option<Verdict>,
    pub(crate) got: Option<Verdict>,
    pub(crate) status: Status,
    /// The check's wall time (for a file-level record, the loading's).
    pub(crate) time: Duration,
    /// For people, one line: the deciding properties, why it erred or why
    /// it was skipped.
    pub(crate) reason: String,
    /// Every property's verdict, for a (model, mode) that ran.
    pub(crate) properties: Vec<PropertyResult>,
    /// Longer text for the JUnit report: the rendered diagnostic of a model
    /// that does not load.
    pub(crate) detail: Option<String>,
    /// The model's load warnings (a start location no transition leaves, a
    /// DVE initialiser too long), on the file's first record only: a typo
    /// that still loads must not pass CI silently.
    pub(crate) warnings: Vec<String>,
}

impl Record {
    /// The run's name: its mode and options, `standard --por` (`None` for
    /// a whole file).
    pub(crate) fn run_name(&self) -> Option<String> {
        let mode = self.mode?.name();
        Some(
            std::iter::once(mode.to_string())
                .chain(self.options.iter().cloned())
                .collect::<Vec<_>>()
                .join(" "),
        )
    }
}

/// The counts of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Summary {
    pub(crate) passed: usize,
    /// Wrong verdicts.
    pub(crate) mismatched: usize,
    /// Files that do not load and checks a mode refused.
    pub(crate) errors: usize,
    pub(crate) skipped: usize,
}

impl Summary {
    /// What the closing line calls failed: wrong verdicts and errors.
    pub(crate) fn failed(&self) -> usize {
        self.mismatched + self.errors
    }
    /// Every record.
    pub(crate) fn total(&self) -> usize {
        self.passed + self.failed() + self.skipped
    }
    fn count(&mut self, status: Status) {
        match status {
            Status::Passed => self.passed += 1,
            Status::Failed => self.mismatched += 1,
            Status::Error => self.errors += 1,
            Status::Skipped => self.skipped += 1,
        }
    }
}

/// A finished run.
pub(crate) struct Run {
    pub(crate) records: Vec<Record>,
    pub(crate) summary: Summary,
    /// Wall time of the whole run.
    pub(crate) time: Duration,
}

/// Runs `path` (a model file or a folder of them). Each record goes to
/// `emit` as soon as it is known, so a long run shows its progress.
pub(crate) fn run(
    path: &Path,
    opts: &CheckOptions,
    mut emit: impl FnMut(&Record),
) -> Result<Run, RegressError> {
    let start = Instant::now();
    let files = collect::files(path)?;
    let mut records = Vec::new();
    let mut summary = Summary::default();
    for file in &files {
        for record in run_file(file, opts, &mut emit) {
            summary.count(record.status);
            records.push(record);
        }
    }
    Ok(Run {
        records,
        summary,
        time: start.elapsed(),
    })
}

/// The records of one file, each passed to `emit` when known.
fn run_file(path: &Path, opts: &CheckOptions, emit: &mut impl FnMut(&Record)) -> Vec<Record> {
    let file = path.display().to_string();
    let model = match load(path, &file) {
        Ok(model) => model,
        Err(record) => {
            emit(&record);
            return vec![*record];
        }
    };
    let mut records = Vec::new();
    for (k, want) in model.expectations().iter().enumerate() {
        let mut record = if want.params.is_empty() {
            check_one(&file, &model, want, opts)
        } else {
            with_params(path, &file, want, opts)
        };
        if k == 0 {
            record.warnings = model.warnings().to_vec();
        }
        emit(&record);
        records.push(record);
    }
    records
}

/// The model at `path` if it has something to check; otherwise the
/// file's one record: skipped (not a weft/1 model, no `expect`) or an
/// error (does not load).
fn load(path: &Path, file: &str) -> Result<Model, Box<Record>> {
    let start = Instant::now();
    let whole_file = |status, model: Option<&Model>, reason: String, detail| {
        Box::new(Record {
            file: file.to_string(),
            model: model.map(|m| m.name().to_string()),
            mode: None,
            options: Vec::new(),
            expected: None,
            got: None,
            status,
            time: start.elapsed(),
            reason,
            properties: Vec::new(),
            detail,
            warnings: model.map_or_else(Vec::new, |m| m.warnings().to_vec()),
        })
    };
    if let Candidate::NotAModel(why) = collect::classify(path) {
        let reason = format!("not a weft/1 model ({why})");
        return Err(whole_file(Status::Skipped, None, reason, None));
    }
    let model = Model::load(path).map_err(|d| {
        let at = if d.path.is_empty() {
            String::new()
        } else {
            format!(" (at {})", d.path)
        };
        let reason = format!("does not load: {}{at}", d.message);
        whole_file(Status::Error, None, reason, Some(d.render()))
    })?;
    if model.expectations().is_empty() {
        let is_dve = weft::Model::is_dve_path(path);
        // Only a file named on the command line can be DVE: a folder's
        // candidates are its *.json files.
        let reason = if is_dve {
            "no `expect` (a DVE file carries none: check it with `weft check --error`)"
        } else {
            "no `expect`"
        };
        return Err(whole_file(
            Status::Skipped,
            Some(&model),
            reason.to_string(),
            None,
        ));
    }
    Ok(model)
}

/// The run `want` of the model at `path` loaded again with its
/// parameters; a model that does not load with them is an error record.
fn with_params(path: &Path, file: &str, want: &Expectation, opts: &CheckOptions) -> Record {
    let load = LoadOptions {
        params: want.params.clone(),
        ..LoadOptions::default()
    };
    match Model::load_with(path, &load) {
        Ok(model) => check_one(file, &model, want, opts),
        Err(d) => {
            let mut record = record(file, None, want);
            record.reason = format!(
                "does not load with {}: {}",
                want.flags().join(" "),
                d.message
            );
            record.detail = Some(d.render());
            record
        }
    }
}

/// An error record of the run `want`, to be filled in.
fn record(file: &str, model: Option<&Model>, want: &Expectation) -> Record {
    Record {
        file: file.to_string(),
        model: model.map(|m| m.name().to_string()),
        mode: Some(want.mode),
        options: want.flags(),
        expected: Some(want.verdict),
        got: None,
        status: Status::Error,
        time: Duration::ZERO,
        reason: String::new(),
        properties: Vec::new(),
        detail: None,
        warnings: Vec::new(),
    }
}

/// Runs `want` on `model` and compares the overall verdict with its
/// (docs/model-format.md, `expect`: equal verdicts pass, so an `unknown`
/// where `safe` or `unsafe` is expected, from an alarm or from a budget
/// such as `--timeout`, fails).
fn check_one(file: &str, model: &Model, want: &Expectation, opts: &CheckOptions) -> Record {
    let start = Instant::now();
    let result = model.check(want.mode, &want.options(opts));
    let mut record = record(file, Some(model), want);
    record.time = start.elapsed();
    match result {
        Err(e) => record.reason = format!("the mode refused: {e}"),
        Ok(report) => {
            let got = report.verdict();
            record.got = Some(got);
            record.status = if got == want.verdict {
                Status::Passed
            } else {
                Status::Failed
            };
            record.properties = report
                .outcomes
                .iter()
                .map(|o| PropertyResult {
                    property: o.property.clone(),
                    verdict: o.verdict,
                    reason: o.reason.clone(),
                    next: o.next_step.as_ref().map(|n| n.to_string()),
                })
                .collect();
            // The properties that make the overall verdict what it is.
            let deciding: Vec<String> = record
                .properties
                .iter()
                .filter(|p| p.verdict == got)
                .map(|p| format!("{}: {} — {}", p.property, p.verdict.name(), p.reason))
                .collect();
            record.reason = deciding.join("; ");
        }
    }
    record
}
