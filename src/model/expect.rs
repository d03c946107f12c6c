//! A model's `expect` (docs/model-format.md, `expect`): the runs `weft
//! test` makes of it and the verdict each should give. An entry is a mode
//! and a verdict (`"standard": "safe"`), or, for a model that needs
//! options to be checked as intended, the verdict with the options of that
//! run (`{"verdict": "safe", "por": true}`), or a list of such runs of one
//! mode (with and without `--por`, at two values of a parameter). A TLC
//! user keeps such settings in the spec's `.cfg` beside it; here they stay
//! in the model, so that a folder of models is its own regression suite.

use super::diag::did_you_mean;
use super::json::{LResult, Node};
use crate::engine::{CheckOptions, Mode, Verdict};

/// One run of `weft test`: a mode with its options, and the verdict
/// expected of it (the worst over the run's properties, as `weft check`'s
/// exit code says).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Expectation {
    /// The mode to run.
    pub mode: Mode,
    /// The verdict it should give.
    pub verdict: Verdict,
    /// `--symmetry`.
    pub symmetry: bool,
    /// `--por`.
    pub por: bool,
    /// `--blocks`.
    pub blocks: bool,
    /// `--property NAME` for each: the properties checked (empty: all).
    pub properties: Vec<String>,
    /// `--param NAME=VALUE` for each: the model loaded with these.
    pub params: Vec<(String, i64)>,
}

impl Expectation {
    /// A run of `mode` with default options.
    pub fn new(mode: Mode, verdict: Verdict) -> Expectation {
        Expectation {
            mode,
            verdict,
            symmetry: false,
            por: false,
            blocks: false,
            properties: Vec::new(),
            params: Vec::new(),
        }
    }

    /// The run's options as `weft check` takes them, after the mode:
    /// `["--por", "--param", "n=4"]` (empty for default options).
    pub fn flags(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (on, flag) in [
            (self.symmetry, "--symmetry"),
            (self.por, "--por"),
            (self.blocks, "--blocks"),
        ] {
            if on {
                out.push(flag.to_string());
            }
        }
        for p in &self.properties {
            out.extend(["--property".to_string(), p.clone()]);
        }
        for (name, value) in &self.params {
            out.extend(["--param".to_string(), format!("{name}={value}")]);
        }
        out
    }

    /// `base` with this run's options (its budgets and the rest kept).
    /// The parameters are the model's, not the check's: load the model
    /// with them (`LoadOptions::params`).
    pub fn options(&self, base: &CheckOptions) -> CheckOptions {
        CheckOptions {
            symmetry: self.symmetry,
            por: self.por,
            blocks: self.blocks,
            properties: self.properties.clone(),
            ..base.clone()
        }
    }
}

/// The keys of an entry given as an object.
const KEYS: [&str; 6] = [
    "verdict",
    "symmetry",
    "por",
    "blocks",
    "properties",
    "params",
];

/// The runs `expect` asks for, in the order written; `declared` are the
/// model's `params`, the only names a run's `params` may set.
pub(super) fn parse(node: &Node, declared: &[(String, i64)]) -> LResult<Vec<Expectation>> {
    let mut out = Vec::new();
    for (k, v) in node.entries("expect (mode -> verdict)")? {
        let mode = Mode::parse(k).ok_or_else(|| {
            let hint = did_you_mean(k, Mode::ALL.map(Mode::name))
                .map(|h| format!(" (did you mean `{h}`?)"))
                .unwrap_or_default();
            v.err(format!(
                "unknown mode `{k}`{hint}: expected standard, thread-modular, cartesian-exc or refine"
            ))
        })?;
        if v.value.is_array() {
            let runs = v.array("a list of runs")?;
            if runs.is_empty() {
                return Err(v.err("an empty list of runs: give at least one verdict"));
            }
            for r in runs {
                out.push(run(mode, &r, declared)?);
            }
        } else {
            out.push(run(mode, &v, declared)?);
        }
    }
    Ok(out)
}

/// One run of `mode`: a verdict, or an object with one and options.
fn run(mode: Mode, node: &Node, declared: &[(String, i64)]) -> LResult<Expectation> {
    if !node.value.is_object() {
        return Ok(Expectation::new(mode, verdict(node)?));
    }
    node.check_keys(&KEYS, "an expected run")?;
    let mut e = Expectation::new(
        mode,
        verdict(&node.req("verdict", "safe, unsafe or unknown")?)?,
    );
    let flag = |key: &str| -> LResult<bool> {
        match node.get(key) {
            None => Ok(false),
            Some(n) => n
                .value
                .as_bool()
                .ok_or_else(|| n.err(format!("`{key}` must be true or false"))),
        }
    };
    e.symmetry = flag("symmetry")?;
    e.por = flag("por")?;
    e.blocks = flag("blocks")?;
    if let Some(ps) = node.get("properties") {
        for p in ps.array("property names")? {
            e.properties.push(p.str("a property name")?.to_string());
        }
    }
    if let Some(ps) = node.get("params") {
        for (name, v) in ps.entries("params (name -> integer)")? {
            if !declared.iter().any(|(p, _)| p == name) {
                let hint = did_you_mean(name, declared.iter().map(|(p, _)| p.as_str()))
                    .map(|h| format!(" (did you mean `{h}`?)"))
                    .unwrap_or_default();
                return Err(v.err(format!(
                    "unknown parameter `{name}`{hint}: the model's `params` declare the names a run may set"
                )));
            }
            let value = v.value.as_i64().ok_or_else(|| {
                v.err(format!(
                    "the value of parameter `{name}` must be an integer"
                ))
            })?;
            e.params.push((name.to_string(), value));
        }
    }
    Ok(e)
}

fn verdict(node: &Node) -> LResult<Verdict> {
    let s = node.str("a verdict (safe, unsafe or unknown), or a run as an object")?;
    Verdict::parse(s).ok_or_else(|| {
        node.err(format!(
            "unknown verdict `{s}`: expected safe, unsafe or unknown"
        ))
    })
}
