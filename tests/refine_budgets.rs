//! refine stops at its memory budget by itself, with what it found (fuzz
//! F3). One post of a product of simple-bool(3000)'s 3000 threads adds
//! thousands of products: the budget read once per work item let the run
//! pass `--max-memory 100` by 70 MiB, where the watchdog stopped it and
//! what it found was lost. It is read within a post now.

mod cli;

use cli::weft;

#[test]
fn refine_on_thousands_of_threads_stops_at_its_memory_budget_by_itself() {
    let dir = std::env::temp_dir().join(format!("weft-refine-budgets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("simple-bool-3000.json");
    let generated = weft(&["gen", "simple-bool", "--threads", "3000"]);
    assert_eq!(generated.code, Some(0), "{}", generated.stderr);
    std::fs::write(&model, generated.stdout).unwrap();
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
    let lines: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
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
