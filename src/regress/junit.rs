//! `weft test --junit FILE`: the run as JUnit XML, the format GitLab,
//! Jenkins and most CI systems show as a test report (written with
//! `quick-junit`, nextest's writer).
//!
//! One `<testsuite>` for the whole run, named after the path given to
//! `weft test` (CI systems list suites side by side, and one run is one
//! folder or file). One `<testcase>` per record: `classname` is the model
//! file, `name` the mode, with the run's options from `expect` after it
//! (`standard --por`). A wrong verdict is a `<failure>`; a model that
//! does not load, or a check the mode refused, is an `<error>` (its
//! `name` is `load` for a file that does not load); a skipped file is a
//! `<skipped>` case named `not checked`.

use super::{Record, Run, Status};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use std::path::Path;

/// Writes the report of `run` (of `path`) to `out`.
pub(crate) fn write_junit(out: &Path, path: &Path, run: &Run) -> Result<(), String> {
    let xml = to_xml(path, run)?;
    std::fs::write(out, xml).map_err(|e| format!("cannot write {}: {e}", out.display()))
}

/// The report as XML text.
fn to_xml(path: &Path, run: &Run) -> Result<String, String> {
    let mut suite = TestSuite::new(path.display().to_string());
    suite.set_time(run.time);
    suite.add_test_cases(run.records.iter().map(test_case));
    let mut report = Report::new("weft test");
    report.set_time(run.time);
    report.add_test_suite(suite);
    report
        .to_string()
        .map_err(|e| format!("cannot write the JUnit report: {e}"))
}

/// One record as a test case.
fn test_case(r: &Record) -> TestCase {
    let status = match r.status {
        Status::Passed => TestCaseStatus::success(),
        Status::Skipped => {
            let mut s = TestCaseStatus::skipped();
            s.set_message(r.reason.as_str());
            s
        }
        Status::Failed => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let (want, got) = (r.expected.map(|v| v.name()), r.got.map(|v| v.name()));
            s.set_message(format!(
                "expected {}, got {}",
                want.unwrap_or("?"),
                got.unwrap_or("?")
            ));
            s.set_type("wrong verdict");
            let lines: Vec<String> = r
                .properties
                .iter()
                .map(|p| format!("{}: {} — {}", p.property, p.verdict.name(), p.reason))
                .collect();
            s.set_description(lines.join("\n"));
            s
        }
        Status::Error => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
            s.set_message(r.reason.as_str());
            s.set_type(if r.mode.is_some() {
                "refused"
            } else {
                "does not load"
            });
            if let Some(detail) = &r.detail {
                s.set_description(detail.as_str());
            }
            s
        }
    };
    let name = match (r.run_name(), r.status) {
        (Some(run), _) => run,
        (None, Status::Skipped) => "not checked".to_string(),
        (None, _) => "load".to_string(),
    };
    let mut case = TestCase::new(name, status);
    if !r.warnings.is_empty() {
        case.set_system_err(r.warnings.join("\n"));
    }
    case.set_classname(r.file.as_str());
    case.set_time(r.time);
    case
}
