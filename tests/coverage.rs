//! `weft check --show coverage` through the binary: the transitions never
//! taken, in text and in the JSON summary line (docs/output.md).

mod cli;

use cli::{json_lines, weft};

/// The text output's lines for transitions never taken.
fn never_taken(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.ends_with("never taken"))
        .collect()
}

/// svcomp-peterson's assertion transitions (to `ERROR`) are taken in no
/// reachable state, as the model's `expect` of `safe` says; every other
/// transition is taken.
#[test]
fn the_transitions_never_taken_are_listed_in_text_and_json() {
    let text = weft(&["check", "models/svcomp-peterson.json", "--show", "coverage"]);
    assert_eq!(text.code, Some(0), "{}{}", text.stdout, text.stderr);
    assert!(
        text.stdout.contains("coverage: 22 of 24 transitions taken (every reachable state searched: those listed are taken in no reachable state)"),
        "{}",
        text.stdout
    );
    let never = never_taken(&text.stdout);
    assert_eq!(never.len(), 2, "{}", text.stdout);
    assert!(never.iter().all(|l| l.contains("-> ERROR")), "{never:?}");

    let json = weft(&[
        "check",
        "models/svcomp-peterson.json",
        "--show",
        "coverage",
        "--format",
        "json",
    ]);
    let lines = json_lines(&json.stdout);
    let summary = &lines.last().unwrap()["summary"];
    let c = &summary["coverage"];
    assert_eq!(c["basis"], "exhaustive", "{c}");
    let not_taken: Vec<&serde_json::Value> = c["templates"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["not_taken"].as_array().unwrap())
        .collect();
    assert_eq!(not_taken.len(), 2, "{c}");
    assert!(not_taken.iter().all(|u| u["to"] == "ERROR"), "{c}");
}

/// refine lists them too, both strategies: its coverage comes from one
/// more complete round with the abstraction it ended with, which is
/// precise enough to prove the property, so the assertions' transitions
/// are dead there (its first, coarse rounds took them: the alarms it
/// refined away).
#[test]
fn refine_lists_what_its_final_abstraction_never_takes() {
    for strategy in ["exceptions", "control"] {
        let r = weft(&[
            "check",
            "models/svcomp-peterson.json",
            "--mode",
            "refine",
            "--refine",
            strategy,
            "--show",
            "coverage",
        ]);
        assert_eq!(r.code, Some(0), "{strategy}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stdout.contains("coverage: 22 of 24 transitions taken (in an over-approximation of the reachable states: those listed are dead; one taken may be dead too)"),
            "{strategy}: {}",
            r.stdout
        );
        let never = never_taken(&r.stdout);
        assert_eq!(never.len(), 2, "{strategy}: {}", r.stdout);
        assert!(never.iter().all(|l| l.contains("-> ERROR")), "{never:?}");
    }
}
