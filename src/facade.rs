//! The library's front door: load a model (weft/1 JSON or DVE, from a file
//! or a string), check it in a mode, and read the typed result. The command
//! line is a thin layer over these calls.

use crate::engine::result::{ReplayReport, RunReport, SimulationReport, Trace};
use crate::engine::{self, CheckError, CheckOptions, Mode, ReplayOptions, SimulateOptions};
use crate::model::Expectation;
use crate::model::{Diagnostic, Model};
pub use crate::promela::Error as PromelaError;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How to read a model file: parameter overrides, a replacement property,
/// a separate exception set.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// `--param name=value` overrides of the model's `params`.
    pub params: Vec<(String, i64)>,
    /// `--error EXPR`: replaces the model's properties with one named
    /// `error` whose error states are `EXPR` (needed for DVE files, which
    /// carry no property).
    pub error: Option<String>,
    /// `--exceptions FILE`: an exception set for `cartesian-exc`, replacing
    /// the model's own.
    pub exceptions: Option<PathBuf>,
    /// `--divine-errors`: in a DVE model, a transition that fails at run
    /// time leads to DiVinE's error state (every variable 0, the first
    /// process at a location of its own), as in BEEM's published counts,
    /// instead of having no successor. Only [`Mode::Standard`] without
    /// reductions explores it.
    ///
    /// [`Mode::Standard`]: crate::Mode::Standard
    pub divine_errors: bool,
    /// `--timeout`: loading stops with a diagnostic whose
    /// [`Diagnostic::budget_exhausted`] says so once this much time has
    /// passed since `started`.
    pub timeout: Option<Duration>,
    /// `--max-memory`: loading stops, as for `timeout`, once the process's
    /// resident memory passes this many bytes.
    pub max_memory_bytes: Option<u64>,
    /// Where the time budget counts from (the command line: when the
    /// process started); `None`: when the load starts.
    pub started: Option<Instant>,
}

impl LoadOptions {
    /// The budgets in force while a file loads: a model, an exception set,
    /// or a trace (`SavedTrace::load_with`).
    pub(crate) fn limits(&self) -> crate::model::load::budget::LoadLimits {
        let started = self.started.unwrap_or_else(Instant::now);
        crate::model::load::budget::LoadLimits {
            deadline: self
                .timeout
                .and_then(|t| Some((started.checked_add(t)?, t))),
            max_memory_bytes: self.max_memory_bytes,
        }
    }
}

impl Model {
    /// Whether `load` reads `path` as DVE: its extension is `.dve`, in any
    /// case (`phils.1.DVE` too).
    ///
    /// ```
    /// assert!(weft::Model::is_dve_path("BEEM/PHILS.1.DVE"));
    /// assert!(!weft::Model::is_dve_path("models/peterson.json"));
    /// ```
    pub fn is_dve_path(path: impl AsRef<Path>) -> bool {
        crate::model::load::is_dve_path(path.as_ref())
    }

    /// Loads a model file: weft/1 JSON, or DVE by the `.dve` extension.
    ///
    /// ```
    /// let model = weft::Model::load("models/peterson.json").unwrap();
    /// assert_eq!(model.name(), "peterson");
    /// ```
    pub fn load(path: impl AsRef<Path>) -> Result<Model, Box<Diagnostic>> {
        Model::load_with(path, &LoadOptions::default())
    }

    /// Loads a model file with parameter overrides, a replacement property
    /// or an exception set.
    ///
    /// ```
    /// use weft::{LoadOptions, Model};
    /// let opts = LoadOptions {
    ///     error: Some("count(*: @CS) >= 2".into()),
    ///     ..LoadOptions::default()
    /// };
    /// let model = Model::load_with("tests/data/beem/dve/peterson.1.dve", &opts).unwrap();
    /// assert_eq!(model.property_names(), ["error", "model-errors"]);
    /// ```
    pub fn load_with(path: impl AsRef<Path>, opts: &LoadOptions) -> Result<Model, Box<Diagnostic>> {
        let path = path.as_ref();
        crate::model::load::budget::with_limits(opts.limits(), || match &opts.exceptions {
            Some(exc) => crate::model::load::load_with_exceptions(
                path,
                &opts.params,
                opts.error.as_deref(),
                opts.divine_errors,
                exc,
            ),
            None => crate::model::load_any_with(
                path,
                &opts.params,
                opts.error.as_deref(),
                opts.divine_errors,
            ),
        })
    }

    /// Compiles a weft/1 model from its JSON text; `file` names it in
    /// messages.
    ///
    /// ```
    /// let text = r#"{
    ///   "name": "counter",
    ///   "globals": {"x": {"type": "int", "min": 0, "max": 2, "init": 0}},
    ///   "threads": [{"name": "t", "start": "a",
    ///     "transitions": [{"from": "a", "to": "b", "do": "x := x + 1"}]}],
    ///   "properties": [{"name": "bounded", "invariant": "x <= 1"}]
    /// }"#;
    /// let model = weft::Model::from_json(text, "counter.json").unwrap();
    /// assert_eq!(model.thread_names(), ["t"]);
    /// ```
    pub fn from_json(text: &str, file: &str) -> Result<Model, Box<Diagnostic>> {
        crate::model::load_str(text, file, &[])
    }

    /// As [`Model::from_json`], with `params` overriding the model's.
    pub fn from_json_with_params(
        text: &str,
        file: &str,
        params: &[(String, i64)],
    ) -> Result<Model, Box<Diagnostic>> {
        crate::model::load_str(text, file, params)
    }

    /// Compiles a DVE model (DiVinE's language, as the BEEM benchmark
    /// writes it) from its text; `file` names it in messages. DVE carries no
    /// property: `error` gives one (named `error`), as [`LoadOptions::error`].
    ///
    /// ```
    /// let text = "byte x = 0; process P { state a, b; init a; trans a -> b { effect x = x + 1; }; } system async;";
    /// let model = weft::Model::from_dve(text, "tiny.dve", Some("x == 1")).unwrap();
    /// let report = model.check(weft::Mode::Standard, &weft::CheckOptions::default()).unwrap();
    /// assert_eq!(report.verdict(), weft::Verdict::Unsafe);
    /// ```
    pub fn from_dve(text: &str, file: &str, error: Option<&str>) -> Result<Model, Box<Diagnostic>> {
        crate::model::load::load_dve_str(text, file, &[], error)
    }

    /// Translates a DVE model (DiVinE's language, as the BEEM benchmark
    /// writes it) to weft/1 JSON, with the translator's warnings. `error`
    /// becomes the model's property, as with [`LoadOptions::error`].
    pub fn dve_to_json(
        path: impl AsRef<Path>,
        error: Option<&str>,
    ) -> Result<(serde_json::Value, Vec<String>), Box<Diagnostic>> {
        crate::model::load::to_json(path.as_ref(), error, false)
    }

    /// Checks the model in `mode`.
    ///
    /// ```
    /// use weft::{CheckOptions, Mode, Model, Verdict};
    /// let model = Model::load("models/bug-nonatomic-lock.json").unwrap();
    /// let report = model.check(Mode::Standard, &CheckOptions::default()).unwrap();
    /// assert_eq!(report.verdict(), Verdict::Unsafe);
    /// let trace = report.outcomes[0].trace.as_ref().unwrap();
    /// assert!(!trace.steps.is_empty());
    /// ```
    pub fn check(&self, mode: Mode, opts: &CheckOptions) -> Result<RunReport, CheckError> {
        engine::check(self.program(), mode, opts)
    }

    /// Re-executes a saved counterexample (`weft replay`): from its
    /// initial state, which must be one of the model's, each step must be
    /// enabled and lead to exactly the recorded values. `property` is what
    /// the trace claims to violate (`model-errors`: a run-time error); an
    /// unknown name is an error.
    ///
    /// ```
    /// use weft::{CheckOptions, Mode, Model};
    /// let model = Model::load("models/bug-ticket-lock.json").unwrap();
    /// let report = model.check(Mode::Standard, &CheckOptions::default()).unwrap();
    /// let trace = report.outcomes[0].trace.as_ref().unwrap();
    /// let replay = model.replay(trace, Some("mutex")).unwrap();
    /// assert!(replay.confirmed());
    /// assert_eq!(replay.error_properties, ["mutex"]);
    /// ```
    pub fn replay(
        &self,
        trace: &Trace,
        property: Option<&str>,
    ) -> Result<ReplayReport, CheckError> {
        self.replay_with(trace, property, &ReplayOptions::default())
    }

    /// `replay` within budgets (`weft replay --timeout --max-memory`): a
    /// budget that runs out stops the replay where it is, and
    /// `ReplayReport::stopped` says where and why.
    ///
    /// ```
    /// use std::time::Duration;
    /// use weft::{CheckOptions, Mode, Model, ReplayOptions};
    /// let model = Model::load("models/bug-ticket-lock.json").unwrap();
    /// let report = model.check(Mode::Standard, &CheckOptions::default()).unwrap();
    /// let trace = report.outcomes[0].trace.as_ref().unwrap();
    /// let opts = ReplayOptions { timeout: Some(Duration::from_secs(60)), ..ReplayOptions::default() };
    /// let replay = model.replay_with(trace, Some("mutex"), &opts).unwrap();
    /// assert!(replay.confirmed() && replay.stopped.is_none());
    /// ```
    pub fn replay_with(
        &self,
        trace: &Trace,
        property: Option<&str>,
        opts: &ReplayOptions,
    ) -> Result<ReplayReport, CheckError> {
        engine::replay::replay(self.program(), trace, property, opts)
    }

    /// Random runs (`weft simulate`): each step picked uniformly among all
    /// the moves of the state, every state checked; stops at the first
    /// error. Deterministic for a given seed. Finding nothing proves
    /// nothing.
    ///
    /// ```
    /// use weft::{Model, SimulateOptions};
    /// let model = Model::load("models/bug-ticket-lock.json").unwrap();
    /// let opts = SimulateOptions { seed: 1, ..SimulateOptions::default() };
    /// let report = model.simulate(&opts).unwrap();
    /// assert!(report.found_error());
    /// ```
    pub fn simulate(&self, opts: &SimulateOptions) -> Result<SimulationReport, CheckError> {
        engine::simulate::run(self.program(), opts)
    }

    /// The model's name.
    pub fn name(&self) -> &str {
        &self.program.name
    }

    /// The model's one-line description (empty if it has none).
    pub fn description(&self) -> &str {
        &self.program.description
    }

    /// The names of the properties a check decides, `model-errors` last.
    pub fn property_names(&self) -> Vec<&str> {
        self.program
            .properties
            .iter()
            .map(|p| p.name.as_str())
            .chain([engine::MODEL_ERRORS])
            .collect()
    }

    /// The thread instances' names (`p[1]`, `p[2]`, …).
    pub fn thread_names(&self) -> Vec<&str> {
        self.program
            .threads
            .iter()
            .map(|t| t.name.as_str())
            .collect()
    }

    /// The model's parameters with their values after overrides.
    pub fn params(&self) -> &[(String, i64)] {
        &self.program.params
    }

    /// The runs the model's `expect` asks for (a mode, its options) and the
    /// verdict each should give, in the order written.
    pub fn expectations(&self) -> &[Expectation] {
        &self.expect
    }

    /// What the loader noticed that did not stop the load.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The model as a SPIN (Promela) model with the same state space
    /// (docs/promela.md); `properties` selects what to export (empty: all).
    pub fn to_promela(&self, properties: &[String]) -> Result<Promela, PromelaError> {
        let out = crate::promela::to_promela(
            self.program(),
            &crate::promela::Options {
                properties: properties.to_vec(),
            },
        )
        .map_err(|e| match e {
            // A DVE model's transition is named by its DVE line.
            PromelaError::Rendezvous { path, label } => PromelaError::Rendezvous {
                path: self.place(&path),
                label,
            },
            e => e,
        })?;
        Ok(Promela {
            text: out.text,
            warnings: out.warnings,
        })
    }
}

/// A Promela export.
#[derive(Clone, Debug)]
pub struct Promela {
    /// The Promela source.
    pub text: String,
    /// What the export could not carry over exactly.
    pub warnings: Vec<String>,
}
