//! Criterion benches of the three engines on the papers' families; the
//! programs are built once, outside the timed closures. Run with
//! `cargo bench --bench engines`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;
use weft::families as generate;
use weft::{CheckOptions, Mode, Model, Verdict};

fn program(model: serde_json::Value) -> Model {
    Model::from_json(&model.to_string(), "generated.json")
        .unwrap_or_else(|d| panic!("{}", d.render()))
}

fn bench_one(c: &mut Criterion, name: &str, prog: &Model, mode: Mode, expect: Verdict) {
    let opts = CheckOptions::default();
    let report = prog.check(mode, &opts).expect("the mode accepts the model");
    assert_eq!(report.verdict(), expect, "{name}");
    c.bench_function(name, |b| {
        b.iter(|| black_box(prog).check(mode, &opts).expect("accepted"))
    });
}

fn engines(c: &mut Criterion) {
    bench_one(
        c,
        "standard lock(10,1)",
        &program(generate::lock(10, 1)),
        Mode::Standard,
        Verdict::Safe,
    );
    bench_one(
        c,
        "thread-modular Simple(200)",
        &program(generate::simple(200, false)),
        Mode::ThreadModular,
        Verdict::Safe,
    );
    bench_one(
        c,
        "cartesian-exc lock(50,5)",
        &program(generate::lock(50, 5)),
        Mode::CartesianExc,
        Verdict::Safe,
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = engines
}
criterion_main!(benches);
