//! `weft test`'s records as text lines (for people and CI logs) and as
//! JSON Lines (`--format json`, docs/output.md).

use super::{Record, Run, Status};
use serde_json::{Value, json};

/// The text for one record: the model's load warnings, if any, each on a
/// `warning: ` line; then `ok`, `FAIL` or `skip`, the file and the mode; a
/// wrong verdict is followed by every property's verdict, indented.
pub(crate) fn text_line(r: &Record) -> String {
    let warnings: String = r
        .warnings
        .iter()
        .map(|w| format!("warning: {w}\n"))
        .collect();
    warnings + &verdict_line(r)
}

fn verdict_line(r: &Record) -> String {
    let file = &r.file;
    let secs = r.time.as_secs_f64();
    let (Some(mode), Some(want)) = (r.run_name(), r.expected) else {
        // A whole file: skipped, or it does not load.
        let tag = if r.status == Status::Skipped {
            "skip"
        } else {
            "FAIL"
        };
        return format!("{tag:<4}  {file}: {}", r.reason);
    };
    let want = want.name();
    match (r.status, r.got) {
        (Status::Passed, _) => format!("ok    {file} [{mode}] {want} ({secs:.3} s)"),
        (_, Some(got)) => {
            let mut out = format!(
                "FAIL  {file} [{mode}] expected {want}, got {} ({secs:.3} s)",
                got.name()
            );
            for p in &r.properties {
                out.push_str(&format!(
                    "\n        {}: {} — {}",
                    p.property,
                    p.verdict.name(),
                    p.reason
                ));
                if let Some(next) = &p.next {
                    out.push_str(&format!("\n          next: {next}"));
                }
            }
            out
        }
        (_, None) => format!("FAIL  {file} [{mode}] expected {want}, but {}", r.reason),
    }
}

/// The closing line: `N passed, N failed` (failed counts the errors too),
/// then `, N skipped` when some were.
pub(crate) fn closing_line(run: &Run) -> String {
    let s = &run.summary;
    let skip = if s.skipped > 0 {
        format!(", {} skipped", s.skipped)
    } else {
        String::new()
    };
    format!("{} passed, {} failed{skip}", s.passed, s.failed())
}

/// One JSON Lines record.
pub(crate) fn json_line(r: &Record) -> String {
    let properties: Vec<Value> = r
        .properties
        .iter()
        .map(|p| json!({"property": p.property, "verdict": p.verdict.name(), "reason": p.reason, "next_step": p.next}))
        .collect();
    json!({
        "file": r.file,
        "model": r.model,
        "mode": r.mode.map(|m| m.name()),
        "options": r.options,
        "expected": r.expected.map(|v| v.name()),
        "got": r.got.map(|v| v.name()),
        "passed": r.status == Status::Passed,
        "status": r.status.name(),
        "time_s": r.time.as_secs_f64(),
        "reason": r.reason,
        "properties": properties,
        "warnings": r.warnings,
    })
    .to_string()
}

/// The last JSON Lines record: the counts of the closing line, and more.
pub(crate) fn json_summary(run: &Run) -> String {
    let s = &run.summary;
    json!({"summary": {
        "passed": s.passed,
        "failed": s.failed(),
        "skipped": s.skipped,
        "errors": s.errors,
        "total": s.total(),
        "time_s": run.time.as_secs_f64(),
    }})
    .to_string()
}
