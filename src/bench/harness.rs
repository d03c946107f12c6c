//! Running one `weft check` as a child process under budgets, and reading
//! its JSON Lines. A run over budget is the child's problem: the child
//! stops itself (`--timeout`, `--max-memory`), and if it does not, the
//! harness kills it after the timeout plus a grace second, or when its
//! resident memory overshoots the budget.

use super::grid::Strategy;
use crate::engine::Mode;
use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Per-run budgets, passed to the child and enforced by the harness.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// `--timeout` of the child, in seconds; the harness kills it one
    /// grace second later.
    pub timeout_s: f64,
    /// `--max-memory` of the child, in MiB; the harness kills it past a
    /// margin above.
    pub max_memory_mib: u64,
    /// `--max-states` of the child (the harness does not enforce it).
    pub max_states: Option<u64>,
}

/// Extra time the child gets to stop itself before the harness kills it.
pub(crate) const GRACE: Duration = Duration::from_secs(1);

/// How a run (or a point) ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The child proved every property.
    Safe,
    /// The child found an error state.
    Unsafe,
    /// The child finished with `unknown` for a reason other than a budget
    /// (an alarm of an abstract mode).
    Unknown,
    /// Out of time: the child's time budget ran out, or the harness killed it.
    Timeout,
    /// The child stopped on its memory (or state) budget, or the harness
    /// killed it for overshooting the memory budget.
    Budget,
    /// Not run: a smaller n of the same curve timed out or went over its
    /// memory or state budget.
    Skipped,
    /// The child could not run the model (exit 2, a crash, unreadable output).
    Error,
}

impl Status {
    /// The status as report.json writes it.
    pub fn name(self) -> &'static str {
        match self {
            Status::Safe => "safe",
            Status::Unsafe => "unsafe",
            Status::Unknown => "unknown",
            Status::Timeout => "timeout",
            Status::Budget => "budget",
            Status::Skipped => "skipped",
            Status::Error => "error",
        }
    }

    /// The child ran to the end and gave a verdict.
    pub fn completed(self) -> bool {
        matches!(self, Status::Safe | Status::Unsafe | Status::Unknown)
    }

    /// Out of time or memory: larger instances will be too.
    pub fn over_budget(self) -> bool {
        matches!(self, Status::Timeout | Status::Budget)
    }
}

/// Which budget stopped a run (`Status::Timeout` is `Time`,
/// `Status::Budget` is `Memory` or `States`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopCause {
    /// The time budget.
    Time,
    /// The memory budget.
    Memory,
    /// The state budget.
    States,
}

impl StopCause {
    /// report.json's `stop`.
    pub fn name(self) -> &'static str {
        match self {
            StopCause::Time => "time",
            StopCause::Memory => "memory",
            StopCause::States => "states",
        }
    }

    /// The status of a run stopped by this budget.
    pub fn status(self) -> Status {
        match self {
            StopCause::Time => Status::Timeout,
            StopCause::Memory | StopCause::States => Status::Budget,
        }
    }

    /// `timed out`, `went over its memory budget`, ...: what the run did.
    pub fn phrase(self) -> &'static str {
        match self {
            StopCause::Time => "timed out",
            StopCause::Memory => "went over its memory budget",
            StopCause::States => "went over its state budget",
        }
    }
}

/// Which budget, if any, a child's `reason` says stopped it.
///
/// `weft check --format json` has no structured field for a budget stop:
/// the verdict is `unknown` (exit 3) and only the free-text `reason` names
/// the budget (docs/output.md asks scripts not to parse it; we are the same
/// program and pin the wording with tests in tests/bench.rs, which run real
/// children into each budget). The phrases come from `engine::Budget`:
/// `time budget of T s exhausted`, `memory budget of M MiB exhausted`,
/// `state budget of N states exhausted`, `the state store is full (N
/// states)`; the model-errors line of a stopped run says `budget` without
/// naming it. This is the one place that reads them.
pub(crate) fn stop_cause(reason: &str) -> Option<StopCause> {
    if reason.contains("time budget") {
        Some(StopCause::Time)
    } else if reason.contains("memory budget") {
        Some(StopCause::Memory)
    } else if reason.contains("state budget") || reason.contains("state store is full") {
        Some(StopCause::States)
    } else {
        None
    }
}

/// One child run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// How the run ended.
    pub status: Status,
    /// The child's reason (of its worst property), or the harness's.
    pub reason: String,
    /// The engine's own time, `stats.time_s` (model loading excluded).
    pub time_s: Option<f64>,
    /// Spawn to exit, measured by the harness.
    pub wall_s: f64,
    /// `stats.states`: on a budget stop, the states explored until then.
    pub states: Option<u64>,
    /// `stats.peak_memory_bytes`, else the harness's last sample of the
    /// child's peak resident set.
    pub peak_memory_bytes: Option<u64>,
    /// The harness had to kill the child.
    pub killed: bool,
    /// Which budget stopped the run (`Timeout` and `Budget` only).
    pub stop: Option<StopCause>,
    /// `stats.jobs`: worker threads of standard's search, as the child
    /// reports them.
    pub jobs: Option<u64>,
    /// The child's whole `stats` object (refine's `refinements`,
    /// `exception_products`, `classes`, ...), when it printed one.
    pub stats: Option<Value>,
    /// `weft check` refused the check (exit 2: the model does not load, or
    /// the check returned an error such as an unsupported mode); `reason`
    /// has its message.
    pub refused: bool,
}

impl RunResult {
    fn failed(status: Status, reason: String, wall_s: f64) -> RunResult {
        RunResult {
            status,
            reason,
            time_s: None,
            wall_s,
            states: None,
            peak_memory_bytes: None,
            killed: false,
            stop: None,
            jobs: None,
            stats: None,
            refused: false,
        }
    }
}

/// What a child checks besides the model file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChildArgs<'a> {
    pub(crate) mode: Mode,
    /// `--refine` (mode refine).
    pub(crate) refine: Option<Strategy>,
    /// `--error`.
    pub(crate) error: Option<&'a str>,
    /// `--param`s.
    pub(crate) params: &'a [(String, i64)],
    /// `--symmetry`.
    pub(crate) symmetry: bool,
}

/// Runs `exe check MODEL --mode M --format json --timeout T --max-memory MB
/// [--max-states N] [--jobs J] [--param k=v]...` and classifies the
/// outcome. `jobs` is passed to `standard` only (the abstract engines are
/// sequential and have no `--jobs`).
pub fn run_check(
    exe: &Path,
    model: &Path,
    mode: Mode,
    params: &[(String, i64)],
    limits: Limits,
    jobs: Option<u16>,
) -> RunResult {
    let args = ChildArgs {
        mode,
        refine: None,
        error: None,
        params,
        symmetry: false,
    };
    run_child(exe, model, &args, limits, jobs)
}

/// `run_check` with a refine strategy (`--refine`) and an error property
/// (`--error`).
pub(crate) fn run_child(
    exe: &Path,
    model: &Path,
    args: &ChildArgs<'_>,
    limits: Limits,
    jobs: Option<u16>,
) -> RunResult {
    let ChildArgs {
        mode,
        refine,
        error,
        params,
        symmetry,
    } = *args;
    let mut cmd = Command::new(exe);
    cmd.arg("check")
        .arg(model)
        .args(["--mode", mode.name(), "--format", "json"])
        .arg("--timeout")
        .arg(limits.timeout_s.to_string())
        .arg("--max-memory")
        .arg(limits.max_memory_mib.to_string());
    if let Some(n) = limits.max_states {
        cmd.arg("--max-states").arg(n.to_string());
    }
    if let (Mode::Standard, Some(j)) = (mode, jobs) {
        cmd.arg("--jobs").arg(j.to_string());
    }
    if let Some(s) = refine {
        cmd.arg("--refine").arg(s.name());
    }
    if symmetry {
        cmd.arg("--symmetry");
    }
    if let Some(e) = error {
        cmd.arg("--error").arg(e);
    }
    for (k, v) in params {
        cmd.arg("--param").arg(format!("{k}={v}"));
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return RunResult::failed(
                Status::Error,
                format!("cannot start {}: {e}", exe.display()),
                0.0,
            );
        }
    };
    // Drain both pipes on their own threads: a child blocked on a full pipe
    // would otherwise look like a timeout.
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let watched = watch(&mut child, start, limits);
    let wall_s = start.elapsed().as_secs_f64();
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    match watched {
        Watched::Exited(status, peak) => {
            let mut r = classify(status, &stdout, &stderr, wall_s);
            if r.peak_memory_bytes.is_none() {
                r.peak_memory_bytes = peak;
            }
            r
        }
        Watched::Killed(cause, reason, peak) => RunResult {
            status: cause.status(),
            reason,
            time_s: None,
            wall_s,
            states: None,
            peak_memory_bytes: peak,
            killed: true,
            stop: Some(cause),
            jobs: None,
            stats: None,
            refused: false,
        },
        Watched::Lost(e) => RunResult::failed(Status::Error, e, wall_s),
    }
}

enum Watched {
    /// The child exited by itself; the harness's peak memory sample.
    Exited(ExitStatus, Option<u64>),
    /// The harness killed it: the budget, why, and the peak memory sample.
    Killed(StopCause, String, Option<u64>),
    Lost(String),
}

/// Polls the child until it exits, killing it when it runs past the
/// timeout plus `GRACE` or its resident memory passes the budget by a
/// margin (the child gets the first chance to stop itself).
fn watch(child: &mut Child, start: Instant, limits: Limits) -> Watched {
    let deadline = start + Duration::from_secs_f64(limits.timeout_s.max(0.0)) + GRACE;
    let budget_kib = limits.max_memory_mib.saturating_mul(1024);
    let kill_kib = budget_kib.saturating_add((budget_kib / 10).max(64 * 1024));
    let mut peak_kib: Option<u64> = None;
    let mut pause = Duration::from_micros(500);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Watched::Exited(status, peak_kib.map(|k| k * 1024)),
            Ok(None) => {}
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Watched::Lost(format!("lost the child process: {e}"));
            }
        }
        if let Some((rss, hwm)) = memory_kib(child.id()) {
            peak_kib = Some(peak_kib.unwrap_or(0).max(hwm));
            if rss >= kill_kib {
                let _ = child.kill();
                let _ = child.wait();
                return Watched::Killed(
                    StopCause::Memory,
                    format!(
                        "killed by the harness at {} MiB resident (memory budget {} MiB)",
                        rss / 1024,
                        limits.max_memory_mib
                    ),
                    peak_kib.map(|k| k * 1024),
                );
            }
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Watched::Killed(
                StopCause::Time,
                format!(
                    "killed by the harness after {:.1} s (timeout {} s plus {} s grace)",
                    start.elapsed().as_secs_f64(),
                    limits.timeout_s,
                    GRACE.as_secs()
                ),
                peak_kib.map(|k| k * 1024),
            );
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut p) = pipe {
            let mut bytes = Vec::new();
            let _ = p.read_to_end(&mut bytes);
            s = String::from_utf8_lossy(&bytes).into_owned();
        }
        s
    })
}

/// (VmRSS, VmHWM) of a process in KiB.
fn memory_kib(pid: u32) -> Option<(u64, u64)> {
    crate::sys::process_memory_kib(pid)
}

/// Reads a finished child's exit status and JSON Lines.
fn classify(status: ExitStatus, stdout: &str, stderr: &str, wall_s: f64) -> RunResult {
    match status.code() {
        Some(0 | 1 | 3) => {}
        Some(code) => {
            let msg = first_lines(&without_warnings(stderr));
            let mut r = RunResult::failed(
                Status::Error,
                format!("weft check exited with code {code}: {msg}"),
                wall_s,
            );
            r.refused = code == 2;
            return r;
        }
        None => {
            use std::os::unix::process::ExitStatusExt;
            let sig = status.signal().unwrap_or(0);
            return RunResult::failed(
                Status::Error,
                format!("weft check was killed by signal {sig} (not by the harness)"),
                wall_s,
            );
        }
    }
    let lines: Result<Vec<Value>, _> = stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str::<Value>)
        .collect();
    let lines = match lines {
        Ok(l) if !l.is_empty() => l,
        _ => {
            return RunResult::failed(
                Status::Error,
                format!(
                    "unreadable output of weft check (exit {:?}): {}",
                    status.code(),
                    first_lines(stdout)
                ),
                wall_s,
            );
        }
    };
    let verdict = |l: &Value| l["verdict"].as_str().unwrap_or("").to_string();
    let rank = |v: &str| match v {
        "unsafe" => 2,
        "unknown" => 1,
        _ => 0,
    };
    let top = lines.iter().map(|l| rank(&verdict(l))).max().unwrap_or(0);
    let worst = lines
        .iter()
        .find(|l| rank(&verdict(l)) == top)
        .expect("non-empty");
    let overall = verdict(worst);
    let reason = worst["reason"].as_str().unwrap_or("").to_string();
    // A budget stop is an `unknown` verdict whose reason names the budget
    // (on the properties' lines; see `stop_cause`).
    let stop = lines
        .iter()
        .filter(|l| verdict(l) == "unknown")
        .filter_map(|l| l["reason"].as_str())
        .find_map(stop_cause);
    let status = match (overall.as_str(), stop) {
        ("safe", _) => Status::Safe,
        ("unsafe", _) => Status::Unsafe,
        ("unknown", Some(cause)) => cause.status(),
        ("unknown", None) => Status::Unknown,
        (other, _) => {
            return RunResult::failed(
                Status::Error,
                format!("weft check printed an unknown verdict `{other}`"),
                wall_s,
            );
        }
    };
    let stats = &lines[0]["stats"];
    RunResult {
        status,
        reason,
        time_s: if status.completed() {
            stats["time_s"].as_f64()
        } else {
            None
        },
        wall_s,
        states: stats["states"].as_u64(),
        peak_memory_bytes: stats["peak_memory_bytes"].as_u64(),
        killed: false,
        stop: if status.over_budget() { stop } else { None },
        jobs: stats["jobs"].as_u64(),
        stats: stats.is_object().then(|| stats.clone()),
        refused: false,
    }
}

/// The message of a refused check, short: `weft check exited with code 2:
/// error: models/x.json: --refine control is not built yet` becomes
/// `--refine control is not built yet` (its first line, at most `max`
/// characters).
pub(crate) fn refusal_message(reason: &str, max: usize) -> String {
    let mut m = reason;
    for prefix in ["weft check exited with code 2: ", "error: "] {
        m = m.strip_prefix(prefix).unwrap_or(m);
    }
    // `weft check` names the model file first: `PATH: message`.
    if let Some((head, rest)) = m.split_once(": ")
        && (head.ends_with(".json") || head.ends_with(".dve"))
    {
        m = rest;
    }
    let m = m.split(" / ").next().unwrap_or(m).trim();
    if m.chars().count() > max {
        let cut: String = m.chars().take(max.saturating_sub(1)).collect();
        format!("{}…", cut.trim_end())
    } else {
        m.to_string()
    }
}

/// stderr without the loader's `warning: …` lines (a DVE file's, say), so
/// that the error itself comes first; all of it if that leaves nothing.
fn without_warnings(stderr: &str) -> String {
    let rest: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("warning:"))
        .collect();
    if rest.iter().all(|l| l.trim().is_empty()) {
        stderr.to_string()
    } else {
        rest.join("\n")
    }
}

fn first_lines(s: &str) -> String {
    let text: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).take(3).collect();
    if text.is_empty() {
        "(no output)".into()
    } else {
        text.join(" / ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Budget, CheckOptions};
    use std::time::Duration;

    fn budget(opts: CheckOptions) -> Budget {
        Budget::new(&opts)
    }

    /// `stop_cause` reads the engine's own messages: each budget, made to
    /// run out, names the cause the harness records.
    #[test]
    fn every_budget_message_of_the_engine_maps_to_its_cause() {
        let states = budget(CheckOptions {
            max_states: Some(3),
            ..CheckOptions::default()
        });
        let why = states.exceeded(3).expect("over the state budget");
        assert_eq!(stop_cause(&why), Some(StopCause::States), "{why}");

        let full = budget(CheckOptions::default());
        let why = full.exceeded_now(5, 5).expect("the store is full");
        assert_eq!(stop_cause(&why), Some(StopCause::States), "{why}");

        let time = budget(CheckOptions {
            timeout: Some(Duration::ZERO),
            ..CheckOptions::default()
        });
        let why = time.time_or_memory_exceeded().expect("out of time");
        assert_eq!(stop_cause(&why), Some(StopCause::Time), "{why}");

        let memory = budget(CheckOptions {
            max_memory_bytes: Some(1024),
            ..CheckOptions::default()
        });
        let why = memory.time_or_memory_exceeded().expect("over 1 KiB");
        assert_eq!(stop_cause(&why), Some(StopCause::Memory), "{why}");

        assert_eq!(stop_cause("the predicate is refused"), None);
    }

    #[test]
    fn a_refusal_is_shortened_to_its_message() {
        let r = "weft check exited with code 2: error: /a/models/x.json: --refine control is not built yet";
        assert_eq!(refusal_message(r, 80), "--refine control is not built yet");
        let r = "weft check exited with code 2: error: t.dve: rendezvous are refused / more";
        assert_eq!(refusal_message(r, 80), "rendezvous are refused");
        assert_eq!(refusal_message("abcdefgh", 5), "abcd…");
    }

    #[test]
    fn a_refusal_after_loader_warnings_gives_the_error() {
        let exit2 = std::process::Command::new("sh")
            .args(["-c", "exit 2"])
            .status()
            .expect("sh runs");
        let stderr = "warning: t.dve:4:6: `Slot` has no initial value\nerror: t.dve: --refine control is not built yet\n";
        let r = classify(exit2, "", stderr, 0.1);
        assert_eq!((r.status, r.refused), (Status::Error, true));
        assert_eq!(
            refusal_message(&r.reason, 80),
            "--refine control is not built yet",
            "{r:?}"
        );
        let r = classify(exit2, "", "warning: only this\n", 0.1);
        assert!(r.reason.ends_with("warning: only this"), "{r:?}");
    }

    #[test]
    fn a_budget_stop_in_the_json_output_is_classified_by_its_cause() {
        let exit3 = std::process::Command::new("sh")
            .args(["-c", "exit 3"])
            .status()
            .expect("sh runs");
        let line = |reason: &str| {
            serde_json::json!({
                "verdict": "unknown",
                "reason": reason,
                "stats": {"time_s": 0.5, "states": 7}
            })
            .to_string()
        };
        let cases = [
            (
                "time budget of 1.0 s exhausted",
                Status::Timeout,
                Some(StopCause::Time),
            ),
            (
                "memory budget of 5 MiB exhausted",
                Status::Budget,
                Some(StopCause::Memory),
            ),
            (
                "state budget of 7 states exhausted",
                Status::Budget,
                Some(StopCause::States),
            ),
            ("an abstract error state", Status::Unknown, None),
        ];
        for (reason, status, stop) in cases {
            let r = classify(exit3, &line(reason), "", 0.6);
            assert_eq!((r.status, r.stop), (status, stop), "{reason}: {r:?}");
            assert!(!r.killed);
        }
    }
}
