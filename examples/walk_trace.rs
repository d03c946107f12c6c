//! Loads a model file, checks it with `standard`, and walks the
//! counterexample step by step: which thread moved, by which transition,
//! and what changed.
//!
//! ```sh
//! cargo run --example walk_trace -- models/bug-nonatomic-lock.json
//! ```

use weft::{CheckOptions, Mode, Model, Store, Verdict};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "models/bug-nonatomic-lock.json".into());
    let model = Model::load(&path)?;
    let report = model.check(Mode::Standard, &CheckOptions::default())?;
    if report.verdict() != Verdict::Unsafe {
        println!("{path}: {} — no trace to walk", report.verdict().name());
        return Ok(());
    }
    for outcome in report.outcomes.iter().filter(|o| o.trace.is_some()) {
        let trace = outcome.trace.as_ref().expect("filtered");
        println!(
            "{}: {} steps to an error state",
            outcome.property,
            trace.steps.len()
        );
        let mut globals = trace.initial_globals.clone();
        println!("  start      {}", show(&globals));
        for (i, step) in trace.steps.iter().enumerate() {
            let changed: Vec<String> = step
                .globals
                .iter()
                .zip(&globals)
                .filter(|(after, before)| after.1 != before.1)
                .map(|((name, v), _)| format!("{name} := {v}"))
                .collect();
            println!(
                "  {:>2}. {} \"{}\" -> {}{}",
                i + 1,
                step.thread,
                step.transition,
                step.locals[0].1,
                if changed.is_empty() {
                    String::new()
                } else {
                    format!("  ({})", changed.join(", "))
                }
            );
            globals = step.globals.clone();
        }
        if let Some(failure) = &trace.failure {
            println!("  then: {failure}");
        }
    }
    Ok(())
}

fn show(store: &Store) -> String {
    store
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}
