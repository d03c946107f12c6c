//! refine stops at its memory budget by itself, with what it found (fuzz
//! F3). One post of a product of simple-bool(3000)'s 3000 threads adds
//! thousands of products: the budget read once per work item let the run
//! pass `--max-memory 100` by 70 MiB, where the watchdog stopped it and
//! what it found was lost. It is read within a post now.

mod cli;

use cli::{generated, json_lines, weft};

#[test]
fn refine_on_thousands_of_threads_stops_at_its_memory_budget_by_itself() {
    let model = generated(
        "simple-bool-3000.json",
        &["simple-bool", "--threads", "3000"],
    );
    let run = weft(&[
        "check",
        model.to_str().unwrap(),
        "--mode",
        "refine",
        "--max-memory",
        "100",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    let lines = json_lines(&run.stdout);
    let (summary, properties) = lines.split_last().unwrap();
    assert_eq!(properties.len(), 4, "{}", run.stdout);
    for p in properties {
        let reason = p["reason"].as_str().unwrap_or_default();
        assert_eq!(p["verdict"], "unknown", "{p}");
        assert!(
            reason.contains("memory budget of 100 MiB exhausted (") && !reason.contains("lost"),
            "{reason}"
        );
    }
    let peak = summary["summary"]["stats"]["peak_memory_bytes"]
        .as_u64()
        .unwrap();
    assert!(peak < 164 << 20, "{peak}");
}
