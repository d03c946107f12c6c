//! Builds a model in Rust, a lock shared by `n` threads, and checks mutual
//! exclusion exactly and with Cartesian abstraction.
//!
//! ```sh
//! cargo run --example build_and_check -- 6
//! ```

use weft::{CheckOptions, Mode, ModelBuilder, TemplateBuilder, Verdict};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: i64 = match std::env::args().nth(1) {
        Some(arg) => arg.parse()?,
        None => 4,
    };
    let model = ModelBuilder::new("lock")
        .description("n threads take turns in a critical section guarded by one lock")
        .param("n", n)
        .int_global("lck", 0, 1, 0)
        .template(
            TemplateBuilder::new("p", "idle")
                .count("n")
                .group("crit", &["cs"])
                .transition("idle", "cs", Some("lck == 0"), Some("lck := 1"), "acquire")
                .transition("cs", "idle", None, Some("lck := 0"), "release"),
        )
        .error("mutex", "count(p: @crit) >= 2")
        // The paper's exception set: when the lock is held, exactly one
        // thread is in its critical section.
        .exception(serde_json::json!({"when": "lck != 0", "one": "@crit", "others": "!@crit"}))
        .build()?;
    for mode in [Mode::Standard, Mode::CartesianExc] {
        let report = model.check(mode, &CheckOptions::default())?;
        let mutex = report.outcome("mutex").expect("the model has it");
        println!(
            "{:<14} {:<7} {} (states: {})",
            mode.name(),
            mutex.verdict.name(),
            mutex.reason,
            report.stats.states()
        );
        assert_eq!(report.verdict(), Verdict::Safe);
    }
    Ok(())
}
