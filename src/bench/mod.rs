//! Benchmarks: generators for the papers' scaled model families, and
//! `weft bench`, which runs a grid of (model, parameters, mode) points, each
//! as a child `weft check` process, and writes report.json, report.md and
//! time_vs_threads.svg (the refine preset: refine.json and refine.md).
//!
//! | module | job |
//! |---|---|
//! | `grid` | sources × n × m × modes (× refine strategies) as ordered points; the fig4 and refine presets |
//! | `scaling` | the storage and symmetry presets (standard's states/s and bytes per state; `--symmetry` as n grows) |
//! | `harness` | one child run under a timeout and a memory budget |
//! | `record` | repeats of a point folded into one record |
//! | `report` | report.json and report.md |
//! | `plot` | time_vs_threads.svg |
//! | `series` | the curves, for the plot and report.md |
//! | `format` | numbers and dates as the report prints them |
//! | `error` | why a bench could not run |
//! | `paper` | the published Fig. 4 seconds and Table 1 of the control-abstraction paper |
//! | `machine` | CPU, cores, memory, OS |
//! | `progress` | progress on stderr |

pub(crate) mod error;
pub(crate) mod format;
pub(crate) mod grid;
pub(crate) mod harness;
pub(crate) mod machine;
pub(crate) mod paper;
pub(crate) mod plot;
pub(crate) mod progress;
pub(crate) mod record;
pub(crate) mod report;
pub(crate) mod scaling;
pub(crate) mod series;

pub use error::BenchError;
pub use grid::{Family, Grid, Strategy};
pub use harness::{Limits, RunResult, Status, StopCause, run_check};
pub use progress::shown as progress_shown;
pub use record::Record;

use grid::{Point, SeriesKey, Source};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// A bench to run.
pub struct BenchConfig {
    /// The points to run.
    pub grid: Grid,
    /// Runs per point (a run that does not complete is not repeated).
    pub repeat: u32,
    /// Each run's budgets.
    pub limits: Limits,
    /// `--jobs` of standard's children (the default of `weft check` is one
    /// per core; the command line resolves it so the report can say it).
    pub jobs: u16,
    /// Where the report goes (created if missing).
    pub out: PathBuf,
    /// No progress on stderr.
    pub quiet: bool,
    /// `fig4` or `refine`, for the report; `refine` writes refine.json and
    /// refine.md instead of report.json, report.md and the plot.
    pub preset: Option<String>,
    /// Run only the models whose row label (the file name, or `lock(20,
    /// 3)`) contains one of these; empty: all.
    pub only: Vec<String>,
    /// The command line, for the report.
    pub command: String,
    /// The weft binary to run as `exe check ...` (normally current_exe()).
    pub exe: PathBuf,
}

/// What `run` produced.
pub struct BenchOutcome {
    /// One record per point, in the grid's order.
    pub records: Vec<Record>,
    /// Wall-clock seconds of the whole bench.
    pub wall_s: f64,
    /// report.json, report.md, time_vs_threads.svg (refine.json and
    /// refine.md for the refine preset).
    pub files: Vec<PathBuf>,
    /// Verdicts that contradict standard's or the model's `expect`, one
    /// sentence each (the refine preset; a bug of an engine).
    pub disagreements: Vec<String>,
    refine_preset: bool,
}

impl BenchOutcome {
    /// The points whose run failed: an error or a crash of the child. In the
    /// refine preset a check that `weft check` refused (exit 2, e.g. a
    /// strategy not built yet) is a cell of the table, not a failure.
    pub fn failures(&self) -> Vec<&Record> {
        self.records
            .iter()
            .filter(|r| r.status() == Status::Error && !(self.refine_preset && r.refused))
            .collect()
    }
}

/// Runs the grid and writes the report. Points of one curve run with n
/// ascending; once a point times out or goes over its memory (or state)
/// budget, the larger n of that curve (same source, m and mode) are
/// recorded as `skipped` without running.
pub fn run(cfg: &BenchConfig) -> Result<BenchOutcome, BenchError> {
    if cfg.repeat == 0 {
        return Err(BenchError::ZeroRepeat);
    }
    if !(cfg.limits.timeout_s.is_finite() && cfg.limits.timeout_s > 0.0) {
        return Err(BenchError::BadTimeout);
    }
    if cfg.limits.max_memory_mib == 0 {
        return Err(BenchError::ZeroMaxMemory);
    }
    if cfg.limits.max_states == Some(0) {
        return Err(BenchError::ZeroMaxStates);
    }
    if cfg.jobs == 0 {
        return Err(BenchError::ZeroJobs);
    }
    std::fs::create_dir_all(&cfg.out).map_err(|source| BenchError::CreateDir {
        path: cfg.out.clone(),
        source,
    })?;
    let tmp = TempDir::new()?;
    let started_unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let load_at_start = crate::sys::load_average();
    let t0 = Instant::now();
    let mut points = cfg.grid.points();
    if !cfg.only.is_empty() {
        points.retain(|p| {
            let label = p.model_label();
            cfg.only.iter().any(|o| label.contains(o.as_str()))
        });
        if points.is_empty() {
            return Err(BenchError::NoMatch {
                only: cfg.only.clone(),
            });
        }
    }
    let mut progress = progress::Progress::new(points.len(), cfg.quiet);
    let mut over_budget: HashMap<SeriesKey, (u32, Option<StopCause>)> = HashMap::new();
    let mut records = Vec::with_capacity(points.len());
    for point in points {
        progress.start(&point.label());
        let prepared = prepare(&point, &tmp.0)?;
        let model = prepared.name.clone();
        let blocked = match (point.n, over_budget.get(&point.series())) {
            (Some(n), Some(&(n0, why))) if n > n0 => Some((n0, why)),
            _ => None,
        };
        let mut rec = match blocked {
            Some((n0, why)) => Record::skipped(point, model, n0, why),
            None => {
                let mut runs = Vec::new();
                let args = harness::ChildArgs {
                    mode: point.mode,
                    refine: point.refine,
                    error: match &point.source {
                        Source::WithError { error, .. } => Some(error.as_str()),
                        _ => None,
                    },
                    params: &prepared.params,
                    symmetry: point.symmetry,
                };
                for _ in 0..cfg.repeat {
                    let r = harness::run_child(
                        &cfg.exe,
                        &prepared.path,
                        &args,
                        cfg.limits,
                        Some(cfg.jobs),
                    );
                    let stop = !r.status.completed();
                    runs.push(r);
                    if stop {
                        break;
                    }
                }
                let rec = Record::from_runs(point, model, &runs, Some(cfg.jobs));
                if rec.status.over_budget()
                    && let Some(n) = rec.point.n
                {
                    over_budget
                        .entry(rec.point.series())
                        .or_insert((n, rec.stop));
                }
                rec
            }
        };
        rec.expect = prepared.expect;
        progress.done(&rec);
        records.push(rec);
    }
    progress.finish();
    let wall_s = t0.elapsed().as_secs_f64();

    let bench = report::Bench {
        machine: machine::Machine {
            load_at_start,
            ..machine::Machine::detect()
        },
        command: cfg.command.clone(),
        preset: cfg.preset.clone(),
        repeat: cfg.repeat,
        limits: cfg.limits,
        jobs: cfg.jobs,
        started_unix,
        wall_s,
        records,
    };
    if bench.preset.as_deref() == Some(REFINE_PRESET) {
        let json_path = cfg.out.join("refine.json");
        let md_path = cfg.out.join("refine.md");
        let json = serde_json::to_string_pretty(&report::refine_json(&bench))?;
        write(&json_path, &(json + "\n"))?;
        write(&md_path, &report::refine_markdown(&bench))?;
        return Ok(BenchOutcome {
            disagreements: report::disagreements(&bench.records)
                .iter()
                .map(|d| d.sentence())
                .collect(),
            records: bench.records,
            wall_s,
            files: vec![json_path, md_path],
            refine_preset: true,
        });
    }
    let json_path = cfg.out.join("report.json");
    let md_path = cfg.out.join("report.md");
    let svg_path = cfg.out.join(report::SVG_NAME);
    let json = serde_json::to_string_pretty(&report::to_json(&bench))?;
    write(&json_path, &(json + "\n"))?;
    write(&md_path, &report::to_markdown(&bench))?;
    let title = if bench.preset.as_deref() == Some("fig4") {
        "lock(n, m): engine time against threads (Fig. 1 / Fig. 4)".to_string()
    } else {
        "engine time against threads".to_string()
    };
    plot::time_vs_threads(&bench.records, &title, cfg.limits.timeout_s, &svg_path)?;
    Ok(BenchOutcome {
        records: bench.records,
        wall_s,
        files: vec![json_path, md_path, svg_path],
        disagreements: Vec::new(),
        refine_preset: false,
    })
}

/// The name of the refine preset (`--preset refine`, report.json's `preset`).
pub const REFINE_PRESET: &str = "refine";

/// What a child run of a point needs: the model's name, the file to check
/// and the `--param`s; and the model's `expect`, for the record.
struct Prepared {
    name: String,
    path: PathBuf,
    params: Vec<(String, i64)>,
    expect: Option<serde_json::Value>,
}

/// A generated model is written to the temporary folder (once per name).
fn prepare(point: &Point, tmp: &Path) -> Result<Prepared, BenchError> {
    match &point.source {
        Source::Family(f) => {
            let value = f.generate(point.n.unwrap_or(1), point.m);
            let name = value["name"].as_str().unwrap_or(f.name()).to_string();
            let path = tmp.join(format!("{name}.json"));
            if !path.exists() {
                let text = serde_json::to_string_pretty(&value)?;
                write(&path, &text)?;
            }
            Ok(Prepared {
                name,
                path,
                params: Vec::new(),
                expect: value.get("expect").cloned(),
            })
        }
        Source::File(file) | Source::WithError { file, .. } => {
            // A weft/1 file says its name and expectations; a DVE file does not.
            // Only a regular file of a sane size is read here: the child's
            // loader reads the rest under its budgets and size cap (read
            // here, `--model /dev/zero` filled the memory).
            let small = std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.len() <= 64 << 20);
            let value = small
                .then(|| std::fs::read_to_string(file).ok())
                .flatten()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
            let name = value
                .as_ref()
                .and_then(|v| v["name"].as_str().map(str::to_string))
                .or_else(|| file.file_stem().map(|s| s.to_string_lossy().into_owned()))
                .unwrap_or_else(|| file.display().to_string());
            let params = point
                .n
                .map(|n| vec![("n".to_string(), n as i64)])
                .unwrap_or_default();
            // With --error the model's own properties (and their
            // expectations) are replaced.
            let expect = match &point.source {
                Source::File(_) => value.and_then(|v| v.get("expect").cloned()),
                _ => None,
            };
            Ok(Prepared {
                name,
                path: file.clone(),
                params,
                expect,
            })
        }
    }
}

fn write(path: &Path, text: &str) -> Result<(), BenchError> {
    std::fs::write(path, text).map_err(|source| BenchError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// A private temporary folder, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, BenchError> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!("weft-bench-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|source| BenchError::CreateDir {
            path: dir.clone(),
            source,
        })?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
