//! Every `unknown` says what to do next. Every mode runs on every shipped
//! model and BEEM instance (with its error predicate from counts.csv), with
//! a small and a moderate budget so that some runs stop on a budget and
//! others on an alarm; each unknown's next step must name a flag that
//! `weft check --help` lists. Then the rendering: the text's `next:` line,
//! the JSON's `next_step`, the summary line, the witness's locals, and the
//! cases the next steps were made for.

use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;
use weft::{
    CheckOptions, Limit, LoadOptions, Mode, Model, Refinement, Suggestion, Verdict, serde_json,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn weft() -> Command {
    Command::cargo_bin("weft").unwrap()
}

/// The long flags of `weft check --help`.
fn check_flags() -> BTreeSet<String> {
    let out = weft().args(["check", "--help"]).output().unwrap();
    flags_in(&String::from_utf8(out.stdout).unwrap())
}

/// Every `--flag` in a text.
fn flags_in(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(str::to_string)
        .collect()
}

/// The shipped models, and the BEEM instances with their error predicate.
fn models() -> Vec<(String, Model)> {
    let mut out = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join("models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for p in paths {
        let m = Model::load(&p).unwrap_or_else(|d| panic!("{}", d.render()));
        out.push((p.display().to_string(), m));
    }
    let beem = root().join("tests/data/beem");
    let csv = std::fs::read_to_string(beem.join("counts.csv")).unwrap();
    for line in csv.lines().skip(1) {
        // file,model,"params",states,transitions,bfs_levels,channels,error,…
        let cells = csv_cells(line);
        let (file, error) = (&cells[0], &cells[7]);
        // Rows without an error predicate check model-errors only.
        let opts = LoadOptions {
            error: (!error.is_empty()).then(|| error.clone()),
            ..Default::default()
        };
        let m =
            Model::load_with(beem.join(file), &opts).unwrap_or_else(|d| panic!("{}", d.render()));
        out.push((file.clone(), m));
    }
    out
}

/// The cells of a CSV line; a quoted cell may hold commas.
fn csv_cells(line: &str) -> Vec<String> {
    let (mut cells, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => cells.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    cells.push(cur);
    cells
}

#[test]
fn every_unknown_of_every_mode_names_a_flag_weft_has() {
    let flags = check_flags();
    for f in [
        "--mode",
        "--symmetry",
        "--timeout",
        "--max-states",
        "--exceptions",
        "--property",
    ] {
        assert!(flags.contains(f), "{f} not in weft check --help: {flags:?}");
    }
    let budgets = [
        CheckOptions {
            max_states: Some(300),
            ..Default::default()
        },
        CheckOptions {
            max_states: Some(30_000),
            timeout: Some(Duration::from_millis(500)),
            ..Default::default()
        },
    ];
    let strategies = [
        (Mode::Standard, Refinement::Exceptions),
        (Mode::ThreadModular, Refinement::Exceptions),
        (Mode::CartesianExc, Refinement::Exceptions),
        (Mode::Refine, Refinement::Exceptions),
        (Mode::Refine, Refinement::Control),
    ];
    // What kinds of next step the sweep met (each must occur).
    let mut kinds: BTreeSet<&str> = BTreeSet::new();
    let mut unknowns = 0;
    for (name, model) in models() {
        for opts in &budgets {
            for (mode, refinement) in strategies {
                let opts = CheckOptions {
                    refinement,
                    ..opts.clone()
                };
                // A refusal (a property or model the mode cannot handle) is
                // no run.
                let Ok(report) = model.check(mode, &opts) else {
                    continue;
                };
                let lines: Vec<Value> = report
                    .to_json_lines()
                    .lines()
                    .map(|l| serde_json::from_str(l).unwrap())
                    .collect();
                for (o, line) in report.outcomes.iter().zip(&lines) {
                    let what = format!(
                        "{name} [{mode} {refinement:?}] {}: {}",
                        o.property, o.reason
                    );
                    if o.verdict != Verdict::Unknown {
                        assert!(o.next_step.is_none(), "{what}");
                        assert!(line["next_step"].is_null(), "{what}");
                        continue;
                    }
                    unknowns += 1;
                    let step = o.next_step.as_ref().unwrap_or_else(|| panic!("{what}"));
                    let text = line["next_step"]
                        .as_str()
                        .unwrap_or_else(|| panic!("{what}"));
                    assert_eq!(text, step.to_string());
                    let named = flags_in(text);
                    assert!(!named.is_empty(), "names no flag: {what}: {text}");
                    for f in &named {
                        assert!(
                            flags.contains(f),
                            "{f} is no flag of weft check: {what}: {text}"
                        );
                    }
                    for s in step.suggestions() {
                        kinds.insert(match s {
                            Suggestion::Mode(_) => "mode",
                            Suggestion::Refinement(_) => "refinement",
                            Suggestion::Raise(Limit::States(_)) => "raise states",
                            Suggestion::Raise(Limit::Time(_)) => "raise time",
                            Suggestion::Raise(_) => "raise other",
                            Suggestion::Symmetry { .. } => "symmetry",
                            Suggestion::Exceptions => "exceptions",
                            Suggestion::Alone(_) => "alone",
                            Suggestion::Continue => "continue",
                            Suggestion::Report => "report",
                            _ => "other",
                        });
                    }
                }
            }
        }
    }
    // (A time budget is met or not depending on the machine's speed: the
    // test below meets one for sure.)
    for k in [
        "mode",
        "refinement",
        "raise states",
        "symmetry",
        "exceptions",
        "alone",
        "continue",
    ] {
        assert!(kinds.contains(k), "no next step of kind {k} met: {kinds:?}");
    }
    assert!(unknowns > 100, "{unknowns}");
}

/// `weft check ARGS`: (exit code, stdout).
fn run(args: &[&str]) -> (i32, String) {
    let out = weft().args(["check"]).args(args).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

fn model(name: &str) -> String {
    root().join("models").join(name).display().to_string()
}

/// The lines of the property `name` in a text report: its own line and
/// those under it, up to the next property or the stats.
fn block<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let head = format!("  {name}: ");
    text.lines()
        .skip_while(|l| !l.starts_with(&head))
        .enumerate()
        .take_while(|(i, l)| *i == 0 || l.starts_with("    "))
        .map(|(_, l)| l)
        .collect()
}

#[test]
fn a_cartesian_alarm_ends_with_refine_standard_and_the_exception_docs() {
    // ticket-lock is correct, and has no exception set.
    let (code, text) = run(&[&model("ticket-lock.json"), "--mode", "cartesian-exc"]);
    assert_eq!(code, 3);
    let b = block(&text, "mutex");
    let next = b.last().unwrap();
    assert!(next.starts_with("    next: run `--mode refine`"), "{text}");
    assert!(next.contains("`--mode standard`"), "{next}");
    assert!(next.contains("`--exceptions FILE`"), "{next}");
    assert!(next.contains("\"What an exception set means\""), "{next}");
    // The section it names exists.
    let docs = std::fs::read_to_string(root().join("docs/model-format.md")).unwrap();
    assert!(docs.contains("\n### What an exception set means\n"));
    // cartesian-exc now derives every thread's part of the error state.
    for t in ["p[1]", "p[2]", "p[3]"] {
        let how = format!("    how {t} gets there: init ");
        assert!(b.iter().any(|l| l.starts_with(&how)), "{text}");
    }
    // With an exception set (peterson's), no --exceptions.
    let (_, text) = run(&[&model("peterson.json"), "--mode", "thread-modular"]);
    let next = *block(&text, "mutex").last().unwrap();
    assert!(
        next.contains("`--mode refine`") && !next.contains("--exceptions"),
        "{next}"
    );
}

#[test]
fn a_budget_in_standard_suggests_symmetry_first_then_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lock4.json");
    let out = weft()
        .args(["gen", "lock", "--threads", "4", "--sections", "1"])
        .output()
        .unwrap();
    std::fs::write(&path, out.stdout).unwrap();
    let p = path.to_str().unwrap();
    let (code, text) = run(&[p, "--max-states", "10"]);
    assert_eq!(code, 3);
    let next = *block(&text, "mutex").last().unwrap();
    assert_eq!(
        next,
        "    next: add `--symmetry` (4 interchangeable threads), or raise `--max-states` (10 states ran out), or run `--mode refine` (refines the abstraction automatically)"
    );
    // The user's case: a timeout on lock(n, 1), which --symmetry decides.
    let (code, text) = run(&[p, "--timeout", "0.2", "--param", "n=22"]);
    assert_eq!(code, 3);
    let next = *block(&text, "mutex").last().unwrap();
    assert!(
        next.starts_with("    next: add `--symmetry` (22 interchangeable threads), or raise `--timeout` (0.2 s ran out)"),
        "{text}"
    );
    // Already on: the budget first.
    let (_, text) = run(&[p, "--max-states", "3", "--symmetry"]);
    let next = *block(&text, "mutex").last().unwrap();
    assert!(
        next.starts_with("    next: raise `--max-states` (3 states ran out)"),
        "{text}"
    );
}

#[test]
fn model_errors_not_fully_checked_can_be_checked_alone() {
    let m = model("bug-nonatomic-lock.json");
    let (code, text) = run(&[&m]);
    assert_eq!(code, 1);
    let b = block(&text, "model-errors");
    assert_eq!(
        b,
        [
            "  model-errors: unknown — not fully checked: the search stopped at the first property violations",
            "    next: check it alone with `--property model-errors`, or add `--continue` (searches on after the first violations)"
        ]
    );
    // And that works: only model-errors, checked to the end.
    let (code, text) = run(&[&m, "--property", "model-errors"]);
    assert_eq!(code, 0, "{text}");
    assert!(block(&text, "mutex").is_empty(), "{text}");
    assert!(text.contains("  model-errors: safe — "), "{text}");
    // So does the other: every property, every state checked.
    let (code, text) = run(&[&m, "--continue"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("  model-errors: safe — "), "{text}");
}

#[test]
fn refine_out_of_budget_names_the_budget_and_the_other_strategy() {
    let (code, text) = run(&[
        &model("szymanski.json"),
        "--mode",
        "refine",
        "--max-states",
        "5",
    ]);
    assert_eq!(code, 3, "{text}");
    let next = *block(&text, "mutex").last().unwrap();
    assert!(
        next.starts_with("    next: raise `--max-states` (5 states ran out), or try `--mode refine --refine control`, or run `--mode standard`"),
        "{text}"
    );
    // The reason no longer carries the advice.
    assert!(!text.contains("Next:"), "{text}");
}

/// The JSON lines of a run.
fn json_lines(args: &[&str]) -> Vec<Value> {
    let (_, out) = run(&[args, &["--format", "json"]].concat());
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn json_ends_with_a_summary_of_the_run() {
    let lines = json_lines(&[&model("bug-nonatomic-lock.json")]);
    assert_eq!(lines.len(), 3, "mutex, model-errors, summary");
    let summary = &lines[2];
    assert!(summary.get("property").is_none());
    assert_eq!(summary["verdict"], "unsafe");
    let s = &summary["summary"];
    assert_eq!(
        (
            &s["properties"],
            &s["safe"],
            &s["unsafe"],
            &s["unknown"],
            &s["exit_code"]
        ),
        (&2.into(), &0.into(), &1.into(), &1.into(), &1.into())
    );
    assert_eq!(s["model"], "bug-nonatomic-lock");
    assert_eq!(s["mode"], "standard");
    assert_eq!(s["stats"], lines[0]["stats"]);
    // next_step: a sentence on the unknown line, null on the others.
    assert!(lines[0]["next_step"].is_null());
    assert!(
        lines[1]["next_step"]
            .as_str()
            .unwrap()
            .contains("`--property model-errors`")
    );
    // A safe run: all safe, exit code 0.
    let lines = json_lines(&[&model("peterson.json")]);
    let s = &lines.last().unwrap()["summary"];
    assert_eq!(
        (&s["safe"], &s["unknown"], &s["exit_code"]),
        (&2.into(), &0.into(), &0.into())
    );
    assert_eq!(lines.last().unwrap()["verdict"], "safe");
    // An alarm: one unknown, no unsafe, exit code 3.
    let lines = json_lines(&[&model("ticket-lock.json"), "--mode", "cartesian-exc"]);
    let s = &lines.last().unwrap()["summary"];
    assert_eq!(
        (&s["safe"], &s["unsafe"], &s["unknown"], &s["exit_code"]),
        (&1.into(), &0.into(), &1.into(), &3.into())
    );
    assert_eq!(lines.last().unwrap()["verdict"], "unknown");
}

#[test]
fn witness_locals_are_objects_as_in_a_trace() {
    let lines = json_lines(&[&model("ticket-lock.json"), "--mode", "cartesian-exc"]);
    let threads = lines[0]["witness"]["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 3);
    for t in threads {
        assert!(t.get("local").is_none(), "{t}");
        // `pc` first, then the locals, with JSON numbers: as trace steps.
        let locals = t["locals"].as_object().unwrap();
        assert_eq!(locals.keys().collect::<Vec<_>>(), ["pc", "my"]);
        assert!(locals["pc"].is_string() && locals["my"].is_number(), "{t}");
        assert!(!t["derivation"].as_array().unwrap().is_empty(), "{t}");
    }
    let trace = json_lines(&[&model("bug-ticket-lock.json")]);
    let step = &trace[0]["trace"][0]["locals"];
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(step), keys(&threads[0]["locals"]));
}

#[test]
fn the_text_report_quotes_no_numbers() {
    // lock(100, 1) under --symmetry: the unreduced count is past 2^64 and
    // is a string in JSON; the text prints it as a number.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lock100.json");
    let out = weft()
        .args(["gen", "lock", "--threads", "100", "--sections", "1"])
        .output()
        .unwrap();
    std::fs::write(&path, out.stdout).unwrap();
    let p = path.to_str().unwrap();
    let (code, text) = run(&[p, "--symmetry"]);
    assert_eq!(code, 0);
    let stats = text.lines().find(|l| l.starts_with("  stats: ")).unwrap();
    let full = stats
        .split(", ")
        .find_map(|s| s.strip_prefix("full states "))
        .unwrap();
    assert!(
        full.len() > 20 && full.chars().all(|c| c.is_ascii_digit()),
        "{stats}"
    );
    let json = json_lines(&[p, "--symmetry"]);
    assert_eq!(json[0]["stats"]["full_states"], full);
    // Nowhere in the texts of the shipped models is a number quoted.
    for m in ["peterson.json", "bug-ticket-lock.json", "bakery.json"] {
        for mode in ["standard", "thread-modular", "cartesian-exc"] {
            let (_, text) = run(&[&model(m), "--mode", mode]);
            let quoted_number = text.split('"').skip(1).step_by(2).find(|q| {
                !q.is_empty()
                    && q.chars()
                        .all(|c| c.is_ascii_digit() || c == '-' || c == '.')
            });
            assert_eq!(quoted_number, None, "{m} {mode}:\n{text}");
        }
    }
}

/// The section "What an exception set means" of docs/model-format.md shows
/// weft's output for each exception file it gives: every shown line is
/// what weft prints.
#[test]
fn the_exception_set_section_shows_what_weft_prints() {
    let docs = std::fs::read_to_string(root().join("docs/model-format.md")).unwrap();
    let start = docs.find("### What an exception set means").unwrap();
    let section = &docs[start..];
    let section = &section[..section.find("\n## ").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    let mut last_json = None;
    let mut checked = 0;
    for block in section.split("```").skip(1).step_by(2) {
        if let Some(json) = block.strip_prefix("json\n") {
            last_json = Some(json.to_string());
            continue;
        }
        let Some(text) = block.strip_prefix("text\n") else {
            continue;
        };
        let mut lines = text.lines();
        let cmd = lines.next().unwrap().strip_prefix("$ weft check ").unwrap();
        let args: Vec<&str> = cmd.split_whitespace().collect();
        let file = args.last().unwrap();
        std::fs::write(dir.path().join(file), last_json.take().unwrap()).unwrap();
        let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        args[0] = root().join(&args[0]).display().to_string();
        *args.last_mut().unwrap() = dir.path().join(file).display().to_string();
        let out = weft().arg("check").args(&args).output().unwrap();
        let printed = String::from_utf8(out.stdout).unwrap();
        for shown in lines {
            assert!(
                printed.lines().any(|l| l == shown),
                "{cmd}: not printed:\n{shown}\nprinted:\n{printed}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 3);
}

/// `--save-exceptions` after a run with a counterexample: the set written
/// is E where the run stopped, which here does not re-prove P0 although
/// the run proved it (found by fuzzing, 2026-11-28). The run says so, and
/// following its advice saves a set that does.
#[test]
fn a_partial_exception_set_is_said_and_the_advice_works() {
    let model = root().join("tests/data/refine/mixed-verdicts.json");
    let model = model.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("e.json");
    let saved = saved.to_str().unwrap();
    let save = |model: &str, extra: &[&str]| {
        weft()
            .args([
                "check",
                model,
                "--mode",
                "refine",
                "--save-exceptions",
                saved,
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = save(model, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains("P0: safe") && stdout.contains("P2: UNSAFE"),
        "{stdout}"
    );
    let advice = "run them alone (`--property P0 --property P1`)";
    assert!(
        stderr.contains("the run did not prove every property (P2: unsafe)")
            && stderr.contains(advice),
        "{stderr}"
    );
    let reprove = |args: &[&str]| {
        let out = weft()
            .args([
                "check",
                model,
                "--mode",
                "cartesian-exc",
                "--exceptions",
                saved,
            ])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // The warning is needed: this set does not re-prove P0.
    assert!(reprove(&[]).contains("P0: unknown"));
    let out = save(model, &["--property", "P0", "--property", "P1"]);
    assert!(String::from_utf8_lossy(&out.stderr).is_empty());
    let text = reprove(&["--property", "P0", "--property", "P1"]);
    assert!(
        text.contains("P0: safe") && text.contains("P1: safe"),
        "{text}"
    );
    // Where model-errors is what was not proved, the proved properties
    // alone stop at the same run-time error: no advice to run them alone.
    let failing = dir.path().join("failing.json");
    std::fs::write(
        &failing,
        r#"{"name": "me", "globals": {"x": {"type": "int", "min": 0, "max": 3, "init": 0},
             "y": {"type": "int", "min": 0, "max": 3, "init": 0}},
            "threads": [{"name": "p", "count": 2, "start": "a", "transitions": [
              {"from": "a", "to": "b", "do": "x := x + 1"},
              {"from": "b", "to": "c", "do": "y := 2 / (x - 2)"}]}],
            "properties": [{"name": "P0", "error": "y == 3"}]}"#,
    )
    .unwrap();
    let out = save(failing.to_str().unwrap(), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("(model-errors: unsafe)") && !stderr.contains("run them alone"),
        "{stderr}"
    );
}
