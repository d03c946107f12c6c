//! `--show invariant` within the budgets: the fixpoint of thread-modular
//! on Simple(400) is 640,800 facts, which rendered took 368 MiB (the search
//! 22 MiB). Under `--max-memory 100` the rendering stops at the budget, the
//! invariant is not shown and says why, and the verdicts stand; before, the
//! watchdog stopped the run past the budget and what it found was lost.

mod cli;

use cli::{generated, json_lines, weft};
use std::path::Path;

fn run(model: &Path, format: &str) -> cli::Run {
    weft(&[
        "check",
        model.to_str().unwrap(),
        "--mode",
        "thread-modular",
        "--show",
        "invariant",
        "--max-memory",
        "100",
        "--format",
        format,
    ])
}

#[test]
fn an_invariant_past_the_memory_budget_is_not_shown_and_the_verdicts_stand() {
    let model = generated("simple-400.json", &["simple", "--threads", "400"]);
    let json = run(&model, "json");
    assert_eq!(json.code, Some(0), "{}", json.stderr);
    let lines = json_lines(&json.stdout);
    let (summary, properties) = lines.split_last().unwrap();
    assert_eq!(properties.len(), 4, "{}", json.stdout);
    for p in properties {
        assert_eq!(p["verdict"], "safe", "{p}");
        let why = p["invariant"]["not_shown"].as_str().unwrap_or_default();
        assert!(
            why.starts_with("rendering it passed the memory budget of 100 MiB")
                && why.contains("--max-memory"),
            "{p}"
        );
    }
    // The peak counts the rendering, and stays within the watchdog's margin.
    let peak = summary["summary"]["stats"]["peak_memory_bytes"]
        .as_u64()
        .unwrap();
    assert!(peak > 100 << 20 && peak < 164 << 20, "{peak}");

    let text = run(&model, "text");
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    assert_eq!(text.stdout.matches(": safe").count(), 4, "{}", text.stdout);
    assert!(
        text.stdout
            .contains("  invariant not shown: rendering it passed the memory budget of 100 MiB"),
        "{}",
        text.stdout
    );
}
