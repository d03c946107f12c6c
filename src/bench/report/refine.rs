//! refine.md and refine.json, the refine preset's report: per model, the
//! verdict of `standard` beside that of `refine` with each strategy, with
//! refine's refinements and the size of its abstraction (|E|, the exception
//! products, or the classes of the control abstraction) and times; the
//! verdicts that contradict standard's or the model's `expect` (a bug of an
//! engine), and Table 1 of Gupta, Popeea and Rybalchenko beside the control
//! strategies.

use super::Bench;
use super::markdown::preamble;
use crate::bench::format::{fmt_int, fmt_secs};
use crate::bench::grid::{Family, REFINE_BEEM_ERROR, Source, Strategy, mode_label};
use crate::bench::harness::{Status, refusal_message};
use crate::bench::paper::{self, TABLE1_SOURCE, Table1Run};
use crate::bench::record::Record;
use crate::engine::Mode;
use serde_json::{Value, json};
use std::fmt::Write;

/// The longest refusal message a cell shows (refine.json has it whole).
const MESSAGE_CHARS: usize = 60;

/// One configuration: a column group of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Config {
    mode: Mode,
    refine: Option<Strategy>,
}

impl Config {
    fn of(r: &Record) -> Config {
        Config {
            mode: r.point.mode,
            refine: r.point.refine,
        }
    }

    fn label(self) -> String {
        mode_label(self.mode, self.refine)
    }

    /// The column group's headings: the verdict, then per mode what it
    /// counts, then the time.
    fn headings(self) -> Vec<String> {
        let verdict = match self.refine {
            Some(s) => s.name().to_string(),
            None => self.mode.name().to_string(),
        };
        let mut h = vec![verdict];
        match (self.mode, self.refine) {
            (Mode::Standard, _) => h.push("states".into()),
            (Mode::Refine, Some(Strategy::Control | Strategy::ControlMonotonic)) => {
                h.extend(["refinements".into(), "classes".into()]);
            }
            (Mode::Refine, _) => h.extend(["refinements".into(), "\\|E\\|".into()]),
            _ => {}
        }
        h.push("time (s)".into());
        h
    }

    /// The cells under `headings` for one record.
    fn cells(self, r: &Record, standard: Option<&Record>) -> Vec<String> {
        let count = |v: Option<u64>| v.map(fmt_int).unwrap_or_else(|| "-".into());
        let mut c = vec![verdict_cell(r, standard)];
        match (self.mode, self.refine) {
            (Mode::Standard, _) => c.push(count(r.states)),
            (Mode::Refine, Some(Strategy::Control | Strategy::ControlMonotonic)) => {
                c.extend([count(r.stat("refinements")), count(r.stat("classes"))]);
            }
            (Mode::Refine, _) => {
                c.extend([
                    count(r.stat("refinements")),
                    count(r.stat("exception_products")),
                ]);
            }
            _ => {}
        }
        c.push(time_cell(r));
        c
    }
}

fn configs(recs: &[Record]) -> Vec<Config> {
    let mut out: Vec<Config> = Vec::new();
    for r in recs {
        let c = Config::of(r);
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// A row: one model (source, n, m).
type RowKey = (Source, Option<u32>, Option<u32>);

fn row_of(r: &Record) -> RowKey {
    (r.point.source.clone(), r.point.n, r.point.m)
}

fn row_keys(recs: &[Record]) -> Vec<RowKey> {
    let mut out: Vec<RowKey> = Vec::new();
    for r in recs {
        let k = row_of(r);
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// The sections of refine.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Group {
    Table1,
    Shipped,
    Beem,
    Lock,
    Other,
}

impl Group {
    const ALL: [Group; 5] = [
        Group::Table1,
        Group::Shipped,
        Group::Beem,
        Group::Lock,
        Group::Other,
    ];

    fn of(src: &Source) -> Group {
        match src {
            Source::File(p) => {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if paper::table1_row(name).is_some() {
                    Group::Table1
                } else {
                    Group::Shipped
                }
            }
            Source::WithError { error, .. } if error == REFINE_BEEM_ERROR => Group::Beem,
            Source::Family(Family::LockWithoutExceptions) => Group::Lock,
            _ => Group::Other,
        }
    }

    fn title(self) -> String {
        match self {
            Group::Table1 => {
                "Table 1 of Gupta, Popeea and Rybalchenko: its programs as shipped models".into()
            }
            Group::Shipped => {
                "The other shipped models (models/ whose `expect` names refine)".into()
            }
            Group::Beem => format!(
                "BEEM mutual-exclusion instances (tests/data/beem/dve, `--error '{REFINE_BEEM_ERROR}'`)"
            ),
            Group::Lock => "lock(n, m) without its exception set".into(),
            Group::Other => "Other models".into(),
        }
    }
}

/// A definite verdict that contradicts standard's (in the same row) or
/// the model's `expect` for its mode.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Disagreement {
    model: String,
    config: String,
    verdict: &'static str,
    /// `standard: safe`, `expect: safe`.
    against: Vec<String>,
}

impl Disagreement {
    /// For stderr: `bluetooth.json: refine (control) says unsafe, but
    /// standard: safe`.
    pub(crate) fn sentence(&self) -> String {
        format!(
            "{}: {} says {}, but {}",
            self.model,
            self.config,
            self.verdict,
            self.against.join(" and ")
        )
    }

    fn to_json(&self) -> Value {
        json!({
            "model": self.model,
            "configuration": self.config,
            "verdict": self.verdict,
            "contradicts": self.against,
        })
    }
}

fn definite(st: Status) -> bool {
    matches!(st, Status::Safe | Status::Unsafe)
}

/// What `r`'s verdict contradicts: standard's definite verdict in the same
/// row (`standard: safe`), the model's expectation for its mode (`expect:
/// safe`). Empty when `r` is not definite.
fn contradicts(r: &Record, standard: Option<&Record>) -> Vec<String> {
    let mut out = Vec::new();
    if !definite(r.status) {
        return out;
    }
    if let Some(s) = standard
        && r.point.mode != Mode::Standard
        && definite(s.status)
        && s.status != r.status
    {
        out.push(format!("standard: {}", s.status.name()));
    }
    if let Some(e) = r.expected()
        && matches!(e, "safe" | "unsafe")
        && e != r.status.name()
    {
        out.push(format!("expect: {e}"));
    }
    out
}

fn standard_of<'a>(recs: &'a [Record], row: &RowKey) -> Option<&'a Record> {
    recs.iter()
        .find(|r| r.point.mode == Mode::Standard && row_of(r) == *row)
}

/// Every verdict that contradicts standard's or the model's `expect`.
pub(crate) fn disagreements(recs: &[Record]) -> Vec<Disagreement> {
    recs.iter()
        .filter_map(|r| {
            let against = contradicts(r, standard_of(recs, &row_of(r)));
            (!against.is_empty()).then(|| Disagreement {
                model: r.point.model_label(),
                config: Config::of(r).label(),
                verdict: r.status.name(),
                against,
            })
        })
        .collect()
}

/// A markdown table cell: `|` escaped, on one line.
fn escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The verdict, `error: MESSAGE` for a check `weft check` refused (or a run
/// that failed), and in bold with what it contradicts.
fn verdict_cell(r: &Record, standard: Option<&Record>) -> String {
    let base = match r.status {
        Status::Error => format!("error: {}", refusal_message(&r.reason, MESSAGE_CHARS)),
        st => st.name().to_string(),
    };
    let against = contradicts(r, standard);
    if against.is_empty() {
        escape(&base)
    } else {
        format!("**{} ≠ {}**", escape(&base), against.join(", "))
    }
}

fn time_cell(r: &Record) -> String {
    match r.time_s {
        Some(t) if r.status.completed() => fmt_secs(t.median),
        _ => "-".into(),
    }
}

/// The expectation a row's model states (standard's, else refine's).
fn expect_cell(recs: &[&Record]) -> String {
    recs.iter()
        .find_map(|r| {
            let e = r.expect.as_ref()?;
            e.get(Mode::Standard.name())
                .or_else(|| e.get(Mode::Refine.name()))?
                .as_str()
                .map(str::to_string)
        })
        .unwrap_or_else(|| "-".into())
}

/// The table of some rows: model, expect, then each configuration's group.
fn table(md: &mut String, recs: &[Record], rows: &[RowKey], configs: &[Config]) {
    let mut head = vec!["model".to_string(), "expect".to_string()];
    for c in configs {
        head.extend(c.headings());
    }
    let _ = writeln!(md, "| {} |", head.join(" | "));
    let _ = writeln!(md, "|{}", "---|".repeat(head.len()));
    for row in rows {
        let of: Vec<&Record> = recs.iter().filter(|r| row_of(r) == *row).collect();
        let Some(first) = of.first() else { continue };
        let standard = standard_of(recs, row);
        let mut cells = vec![escape(&first.point.model_label()), expect_cell(&of)];
        for &c in configs {
            match of.iter().find(|r| Config::of(r) == c) {
                Some(r) => cells.extend(c.cells(r, standard)),
                None => cells.extend(c.headings().iter().map(|_| "-".to_string())),
            }
        }
        let _ = writeln!(md, "| {} |", cells.join(" | "));
    }
    md.push('\n');
}

/// Per configuration: how many models it decided, and in what time.
fn summary(md: &mut String, recs: &[Record], configs: &[Config]) {
    let _ = writeln!(md, "## Summary\n");
    let _ = writeln!(
        md,
        "| configuration | models | safe | unsafe | unknown | timeout or budget | skipped | error | total time of the decided (s) |\n|---|---|---|---|---|---|---|---|---|"
    );
    for &c in configs {
        let of: Vec<&Record> = recs.iter().filter(|r| Config::of(r) == c).collect();
        let count = |f: &dyn Fn(Status) -> bool| of.iter().filter(|r| f(r.status)).count();
        let decided_s: f64 = of
            .iter()
            .filter(|r| definite(r.status))
            .filter_map(|r| r.time_s.map(|t| t.median))
            .sum();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.label(),
            of.len(),
            count(&|s| s == Status::Safe),
            count(&|s| s == Status::Unsafe),
            count(&|s| s == Status::Unknown),
            count(&|s| s.over_budget()),
            count(&|s| s == Status::Skipped),
            count(&|s| s == Status::Error),
            fmt_secs(decided_s)
        );
    }
    md.push('\n');
    // One line per configuration whose every run was refused with one message.
    for &c in configs {
        let of: Vec<&Record> = recs.iter().filter(|r| Config::of(r) == c).collect();
        let mut messages: Vec<String> = of
            .iter()
            .map(|r| refusal_message(&r.reason, usize::MAX))
            .collect();
        messages.dedup();
        if !of.is_empty()
            && of.iter().all(|r| r.status == Status::Error && r.refused)
            && let [m] = messages.as_slice()
        {
            let _ = writeln!(
                md,
                "`{}` was refused on every model: `{}`. Its columns fill in once it is built: rerun the preset.\n",
                c.label(),
                escape(m)
            );
        }
    }
}

/// The rows of Table 1 beside the control strategies' verdicts, times and
/// classes.
fn table1(md: &mut String, recs: &[Record]) {
    let at = |file: &str, refine: Strategy| {
        recs.iter().find(|r| {
            r.point.refine == Some(refine)
                && r.point
                    .source
                    .file()
                    .and_then(|p| p.file_name())
                    .and_then(|n| n.to_str())
                    == Some(file)
        })
    };
    let rows: Vec<&paper::Table1Row> = paper::TABLE1
        .iter()
        .filter(|t| {
            recs.iter().any(|r| {
                r.point
                    .source
                    .file()
                    .and_then(|p| p.file_name())
                    .and_then(|n| n.to_str())
                    == Some(t.file)
            })
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "### Beside the paper's Table 1\n\n{TABLE1_SOURCE}: total seconds (abstract reachability + refinement) and the number of equivalence classes |≡| of control locations, monotonic and non-monotonic refinement; beside them weft's `--refine control-monotonic` and `--refine control` (verdict, seconds, classes). The paper's programs are C with data abstraction as well; weft's models are finite (each model's description says how it was translated), so the times compare the shape, not the machines.\n"
    );
    let _ = writeln!(
        md,
        "| program | model | paper monotonic: s (reach + refine) | \\|≡\\| | weft control-monotonic | s | classes | paper non-monotonic: s (reach + refine) | \\|≡\\| | weft control | s | classes |\n|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    let paper_cells = |p: Table1Run| {
        [
            format!(
                "{} ({} + {})",
                fmt_secs(p.total_s),
                fmt_secs(p.reach_s),
                fmt_secs(p.refine_s)
            ),
            p.classes.to_string(),
        ]
    };
    let weft_cells = |r: Option<&Record>| match r {
        Some(r) => {
            let standard = standard_of(recs, &row_of(r));
            [
                verdict_cell(r, standard),
                time_cell(r),
                r.stat("classes")
                    .map(|c| c.to_string())
                    .unwrap_or_else(|| "-".into()),
            ]
        }
        None => ["-".into(), "-".into(), "-".into()],
    };
    for t in rows {
        let mut cells = vec![t.program.to_string(), t.file.to_string()];
        cells.extend(paper_cells(t.monotonic));
        cells.extend(weft_cells(at(t.file, Strategy::ControlMonotonic)));
        cells.extend(paper_cells(t.non_monotonic));
        cells.extend(weft_cells(at(t.file, Strategy::Control)));
        let _ = writeln!(md, "| {} |", cells.join(" | "));
    }
    md.push('\n');
}

/// refine.md.
pub(crate) fn to_markdown(b: &Bench) -> String {
    let recs = &b.records;
    let mut md = String::new();
    preamble(&mut md, b, "refine against standard", "refine.json");
    let configs = configs(recs);
    let _ = writeln!(
        md,
        "- A point is one model in one configuration: {}. `refine` without `--refine` is `exceptions`: the glued global stores become exact, and the exception set E it computes is the union of products at them (docs/refine.md). `control` refines the control abstraction non-monotonically (each thread sees the others' locations up to a partition, re-solved for the fewest classes over all spurious paths so far); `control-monotonic` only ever splits classes (the paper's baseline).",
        configs
            .iter()
            .map(|c| format!("`{}`", c.label()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        md,
        "- Columns per configuration: its verdict; for standard the states it explored; for refine its refinements (stat `refinements`) and the size of its abstraction, \\|E\\| (`exception_products`) for exceptions and the classes of control locations (`classes`) for the control strategies; its time. `-`: not reported (the run did not finish, or the engine has no such statistic). `expect` is the model's own expectation.\n- Verdicts: `safe`, `unsafe`, `unknown` (an alarm), `timeout`, `budget` (memory or states), `skipped` (a smaller n of the same lock row ran out of budget), `error: …` (`weft check` refused the check; refine.json has the whole message). **Bold with ≠**: the verdict contradicts standard's or the model's `expect`, which is a bug.\n"
    );

    let _ = writeln!(md, "## Disagreements\n");
    let ds = disagreements(recs);
    if ds.is_empty() {
        let _ = writeln!(
            md,
            "None: every safe or unsafe verdict agrees with standard's verdict on the same model and with the model's `expect`.\n"
        );
    } else {
        let _ = writeln!(
            md,
            "**{} verdict{} contradict{} standard or the model's `expect`: a bug in an engine.**\n",
            ds.len(),
            if ds.len() == 1 { "" } else { "s" },
            if ds.len() == 1 { "s" } else { "" }
        );
        for d in &ds {
            let _ = writeln!(md, "- {}", escape(&d.sentence()));
        }
        md.push('\n');
    }

    summary(&mut md, recs, &configs);

    let rows = row_keys(recs);
    for g in Group::ALL {
        let of: Vec<RowKey> = rows
            .iter()
            .filter(|k| Group::of(&k.0) == g)
            .cloned()
            .collect();
        if of.is_empty() {
            continue;
        }
        let _ = writeln!(md, "## {}\n", g.title());
        table(&mut md, recs, &of, &configs);
        if g == Group::Table1 {
            table1(&mut md, recs);
        }
    }
    md
}

/// refine.json: report.json's settings, machine and records (with each
/// record's `refine`, `stats` and `expect`), the configurations and the
/// disagreements.
pub(crate) fn to_json(b: &Bench) -> Value {
    let mut v = super::to_json(b);
    if let Some(o) = v.as_object_mut() {
        o.insert(
            "configurations".into(),
            configs(&b.records)
                .iter()
                .map(|c| json!({"mode": c.mode.name(), "refine": c.refine.map(Strategy::name)}))
                .collect(),
        );
        o.insert(
            "disagreements".into(),
            disagreements(&b.records)
                .iter()
                .map(Disagreement::to_json)
                .collect(),
        );
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::grid::Point;
    use crate::bench::harness::RunResult;
    use std::path::PathBuf;

    fn rec(file: &str, mode: Mode, refine: Option<Strategy>, status: Status) -> Record {
        let run = RunResult {
            status,
            reason: match status {
                Status::Error => {
                    "weft check exited with code 2: error: models/x.json: --refine control is not built yet".into()
                }
                _ => "why".into(),
            },
            time_s: status.completed().then_some(0.25),
            wall_s: 0.3,
            states: Some(42),
            peak_memory_bytes: None,
            killed: false,
            stop: None,
            jobs: None,
            stats: (status != Status::Error)
                .then(|| json!({"refinements": 3, "exception_products": 7, "classes": 4})),
            refused: status == Status::Error,
        };
        let point = Point {
            source: Source::File(PathBuf::from(format!("models/{file}"))),
            n: None,
            m: None,
            mode,
            refine,
            symmetry: false,
        };
        let mut r = Record::from_runs(point, file.into(), &[run], None);
        r.expect = Some(json!({"standard": "safe", "refine": "safe"}));
        r
    }

    #[test]
    fn a_list_of_runs_expects_its_plain_verdict() {
        // A run with options is not the bench's run: its verdict is not
        // the point's expectation.
        let mut r = rec("m.json", Mode::Refine, None, Status::Safe);
        r.expect = Some(json!({"refine": [{"verdict": "unsafe", "params": {"n": 1}}, "safe"]}));
        assert_eq!(r.expected(), Some("safe"));
        r.expect = Some(json!({"refine": [{"verdict": "unsafe", "params": {"n": 1}}]}));
        assert_eq!(r.expected(), None);
    }

    fn row(file: &str, verdicts: [Status; 4]) -> Vec<Record> {
        let [s, e, c, cm] = verdicts;
        vec![
            rec(file, Mode::Standard, None, s),
            rec(file, Mode::Refine, Some(Strategy::Exceptions), e),
            rec(file, Mode::Refine, Some(Strategy::Control), c),
            rec(file, Mode::Refine, Some(Strategy::ControlMonotonic), cm),
        ]
    }

    #[test]
    fn a_wrong_verdict_is_bold_and_listed_and_a_refusal_is_a_cell() {
        let mut recs = row(
            "bakery-fig2.json",
            [Status::Safe, Status::Safe, Status::Error, Status::Timeout],
        );
        recs.extend(row(
            "peterson.json",
            [Status::Safe, Status::Unsafe, Status::Unknown, Status::Safe],
        ));
        let ds = disagreements(&recs);
        assert_eq!(ds.len(), 1, "{ds:?}");
        assert_eq!(
            ds[0].sentence(),
            "peterson.json: refine (exceptions) says unsafe, but standard: safe and expect: safe"
        );
        let configs = configs(&recs);
        let mut md = String::new();
        table(&mut md, &recs, &row_keys(&recs), &configs);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(
            lines[0],
            "| model | expect | standard | states | time (s) | exceptions | refinements | \\|E\\| | time (s) | control | refinements | classes | time (s) | control-monotonic | refinements | classes | time (s) |"
        );
        assert_eq!(
            lines[2],
            "| bakery-fig2.json | safe | safe | 42 | 0.25 | safe | 3 | 7 | 0.25 | error: --refine control is not built yet | - | - | - | timeout | 3 | 4 | - |"
        );
        assert!(
            lines[3].contains("| **unsafe ≠ standard: safe, expect: safe** | 3 | 7 | 0.25 |"),
            "{}",
            lines[3]
        );
        // Every row has as many cells as the heading.
        let cells = |l: &str| l.matches(" | ").count();
        assert!(lines[2..4].iter().all(|l| cells(l) == cells(lines[0])));
    }

    #[test]
    fn the_groups_follow_the_sources() {
        let f = |name: &str| Source::File(PathBuf::from(format!("models/{name}")));
        assert_eq!(Group::of(&f("time-var-mutex.json")), Group::Table1);
        assert_eq!(Group::of(&f("dekker.json")), Group::Shipped);
        let dve = Source::WithError {
            file: PathBuf::from("tests/data/beem/dve/at.1.dve"),
            error: REFINE_BEEM_ERROR.into(),
        };
        assert_eq!(Group::of(&dve), Group::Beem);
        assert_eq!(
            Group::of(&Source::Family(Family::LockWithoutExceptions)),
            Group::Lock
        );
    }
}
