//! `weft bench` end to end (child processes, report.json, report.md, the
//! SVG) and `weft gen peterson`.

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

fn weft() -> Command {
    let mut c = Command::cargo_bin("weft").unwrap();
    c.env("CI", "1");
    c
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()))
}

fn record<'a>(records: &'a [Value], mode: &str, n: u64) -> &'a Value {
    records
        .iter()
        .find(|r| r["mode"] == mode && r["params"]["n"] == n)
        .unwrap_or_else(|| panic!("no record for {mode} n={n}"))
}

/// `weft bench ARGS --out OUT --quiet`, which must exit 0.
fn bench_ok(args: &str, out: &Path) -> std::process::Output {
    let run = weft()
        .arg("bench")
        .args(args.split_whitespace())
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    run
}

#[test]
fn bench_writes_json_markdown_and_svg_for_a_small_lock_grid() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("report");
    let run = bench_ok(
        "--family lock --threads 2,3 --sections 1 --modes standard,cartesian-exc,thread-modular --repeat 1",
        &dir,
    );
    assert!(
        run.stderr.is_empty(),
        "--quiet printed: {}",
        String::from_utf8_lossy(&run.stderr)
    );

    // report.json: one record per (params, mode), with the right verdicts.
    let report = read_json(&dir.join("report.json"));
    let records = report["records"].as_array().expect("records");
    assert_eq!(records.len(), 6, "{records:#?}");
    for n in [2u64, 3] {
        let standard = record(records, "standard", n);
        assert_eq!(standard["verdict"], "safe", "{standard}");
        assert_eq!(standard["family"], "lock");
        assert_eq!(standard["params"]["m"], 1);
        assert_eq!(standard["runs"], 1);
        // lock(n, 1) has (m+1)^n + 2nm(m+1)^(n-1) states: 12 for n = 2, 32 for n = 3.
        let expected_states = if n == 2 { 12 } else { 32 };
        assert_eq!(standard["states"], expected_states, "{standard}");
        let t = &standard["time_s"];
        let (min, med, max) = (
            t["min"].as_f64().unwrap(),
            t["median"].as_f64().unwrap(),
            t["max"].as_f64().unwrap(),
        );
        assert!(min <= med && med <= max && min >= 0.0, "{t}");
        assert!(standard["peak_memory_bytes"].as_u64().unwrap() > 0);
        assert_eq!(record(records, "cartesian-exc", n)["verdict"], "safe");
        let tm = record(records, "thread-modular", n);
        assert_eq!(tm["verdict"], "unknown", "{tm}");
        assert!(tm["time_s"]["median"].is_number(), "{tm}");
    }
    let machine = &report["machine"];
    assert!(machine["cores"].as_u64().unwrap() >= 1);
    assert_eq!(machine["weft_version"], env!("CARGO_PKG_VERSION"));
    assert!(machine["os"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(
        report["command"]
            .as_str()
            .unwrap()
            .starts_with("weft bench --family lock")
    );

    // report.md: the Fig. 4 layout tables, Fig. 1 and the computed paragraph.
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for mode in ["standard", "cartesian-exc", "thread-modular"] {
        assert!(
            md.contains(&format!(
                "## {mode}: median seconds (Fig. 4 layout: rows m, columns n)"
            )),
            "{md}"
        );
    }
    assert!(md.contains("| m \\ n | 2 | 3 |"), "{md}");
    assert!(md.contains("| 1 | unknown ("), "{md}");
    assert!(
        md.contains("| 2 | 12 | safe | 12 |"),
        "Fig. 1 row for n = 2:\n{md}"
    );
    assert!(
        md.contains(
            "thread-modular never proved lock(n, m): it answered unknown (an alarm) at all 2 points"
        ),
        "{md}"
    );
    assert!(md.contains("cartesian-exc proved all 2 points"), "{md}");
    assert!(md.contains("Every point is plotted."), "{md}");

    // The SVG is well-formed XML with one legend entry per (mode, m).
    let svg = std::fs::read_to_string(dir.join("time_vs_threads.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("the SVG is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(|t| t.trim().to_string())
        .collect();
    let mut legend: Vec<&str> = texts
        .iter()
        .map(String::as_str)
        .filter(|t| t.contains(", m = "))
        .collect();
    legend.sort_unstable();
    assert_eq!(
        legend,
        [
            "cartesian-exc, m = 1",
            "standard, m = 1",
            "thread-modular, m = 1 (unknown)"
        ],
        "{texts:?}"
    );
    // Each curve has two points: a data polyline of two vertices per series.
    let two_point_lines = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .filter(|n| {
            n.attribute("stroke-width") == Some("2") || n.attribute("stroke-width") == Some("3")
        })
        .filter(|n| {
            n.attribute("points")
                .is_some_and(|p| p.split_whitespace().count() == 2)
        })
        .count();
    // 3 data lines + 3 legend samples.
    assert_eq!(two_point_lines, 6, "{svg}");
}

#[test]
fn bench_records_a_timeout_and_still_succeeds() {
    let out = tempfile::tempdir().unwrap();
    bench_ok(
        "--family lock --threads 30 --sections 3 --modes standard --timeout 0.5",
        out.path(),
    );
    let report = read_json(&out.path().join("report.json"));
    let records = report["records"].as_array().unwrap();
    assert_eq!(records.len(), 1);
    let r = &records[0];
    let verdict = r["verdict"].as_str().unwrap();
    assert!(verdict == "timeout" || verdict == "budget", "{r}");
    assert_eq!(r["runs"], 1, "a run that timed out is not repeated: {r}");
    assert!(r["time_s"].is_null(), "{r}");
    assert_eq!(r["params"], serde_json::json!({"n": 30, "m": 3}));
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains(&format!("| 3 | {verdict} |")), "{md}");
    assert!(
        md.contains(&format!("- standard, m = 3: n = 30 {verdict}")),
        "not-plotted note:\n{md}"
    );
    let svg = std::fs::read_to_string(out.path().join("time_vs_threads.svg")).unwrap();
    roxmltree::Document::parse(&svg).expect("well-formed SVG");
}

#[test]
fn bench_skips_larger_n_after_a_timeout() {
    let out = tempfile::tempdir().unwrap();
    bench_ok(
        "--family lock --threads 4,30,40 --sections 3 --modes standard --timeout 0.3 --repeat 2",
        out.path(),
    );
    let report = read_json(&out.path().join("report.json"));
    let records = report["records"].as_array().unwrap();
    let verdicts: Vec<&str> = [4, 30, 40]
        .iter()
        .map(|&n| record(records, "standard", n)["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts[0], "safe");
    assert!(matches!(verdicts[1], "timeout" | "budget"), "{verdicts:?}");
    assert_eq!(verdicts[2], "skipped");
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        md.contains(&format!(
            "- standard, m = 3: n = 30 {}; n = 40 skipped",
            verdicts[1]
        )),
        "{md}"
    );
    let small = record(records, "standard", 4);
    assert_eq!(small["runs"], 2);
    assert_eq!(record(records, "standard", 40)["runs"], 0);
    assert!(
        record(records, "standard", 40)["reason"]
            .as_str()
            .unwrap()
            .starts_with("skipped (smaller n timed out)")
    );
}

#[test]
fn bench_usage_errors_exit_2() {
    let out = tempfile::tempdir().unwrap();
    let run = weft()
        .args(["bench", "--family", "lock", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--threads"));
    let run = weft()
        .args(["bench", "--preset", "fig4", "--threads", "10", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    for args in [
        ["gen", "lock", "--threads", "0", "--sections", "1"],
        ["gen", "lock", "--threads", "2", "--sections", "0"],
        ["gen", "simple", "--threads", "0", "", ""],
    ] {
        let args: Vec<&str> = args.into_iter().filter(|a| !a.is_empty()).collect();
        let run = weft().args(&args).output().unwrap();
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(err.contains("must be at least 1"), "{args:?}: {err}");
        assert!(run.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn gen_peterson_is_the_shipped_model_and_has_20_states() {
    let run = weft().args(["gen", "peterson"]).output().unwrap();
    assert!(run.status.success());
    let text = String::from_utf8(run.stdout).unwrap();
    let generated: Value = serde_json::from_str(&text).unwrap();
    let shipped_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/peterson.json");
    let shipped = read_json(&shipped_path);
    assert_eq!(generated, shipped);

    // It loads, and `weft check` finds the same 20 states in both.
    weft::Model::from_json(&text, "peterson.json").unwrap_or_else(|d| panic!("{}", d.render()));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("peterson.json");
    std::fs::write(&path, &text).unwrap();
    let states = |p: &Path| -> (u64, String) {
        let out = weft()
            .args(["check", p.to_str().unwrap(), "--format", "json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let first: Value =
            serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap())
                .unwrap();
        (
            first["stats"]["states"].as_u64().unwrap(),
            first["verdict"].as_str().unwrap().to_string(),
        )
    };
    assert_eq!(states(&path), (20, "safe".to_string()));
    assert_eq!(states(&path), states(&shipped_path));
}

#[test]
fn bench_records_a_state_budget_and_skips_larger_n_naming_it() {
    let out = tempfile::tempdir().unwrap();
    // lock(2, 1) has 12 states and lock(3, 1) 32: a budget of 20 states
    // stops n = 3, and n = 4 is not run.
    bench_ok(
        "--family lock --threads 2,3,4 --modes standard --max-states 20 --jobs 1 --repeat 1",
        out.path(),
    );
    let report = read_json(&out.path().join("report.json"));
    assert_eq!(report["settings"]["max_states"], 20, "{report}");
    assert_eq!(report["settings"]["jobs"], 1, "{report}");
    let records = report["records"].as_array().unwrap();
    let (n2, n3, n4) = (
        record(records, "standard", 2),
        record(records, "standard", 3),
        record(records, "standard", 4),
    );
    assert_eq!(
        (n2["verdict"].as_str(), n2["stop"].as_str()),
        (Some("safe"), None),
        "{n2}"
    );
    assert_eq!(
        n2["jobs"], 1,
        "the child reports the --jobs it was given: {n2}"
    );
    assert_eq!(n3["verdict"], "budget", "{n3}");
    assert_eq!(n3["stop"], "states", "{n3}");
    assert!(!n3["killed_by_harness"].as_bool().unwrap(), "{n3}");
    assert_eq!(n4["verdict"], "skipped", "{n4}");
    assert_eq!(n4["stop"], "states", "{n4}");
    assert!(
        n4["reason"]
            .as_str()
            .unwrap()
            .starts_with("skipped (smaller n went over the state budget): n = 3"),
        "{n4}"
    );
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains("state budget 20"), "{md}");
    assert!(
        md.contains("standard's search ran on 1 worker thread "),
        "{md}"
    );
    assert!(md.contains("went over its state budget from n = 3"), "{md}");
}

/// A stand-in for `weft` at `dir/name`: a shell script running `body`
/// with the harness's arguments (`check MODEL --mode ...`).
fn stand_in(dir: &Path, name: &str, body: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn the_harness_kills_a_child_that_runs_past_its_timeout() {
    use weft::bench::{Limits, Status, StopCause, run_check};
    let dir = tempfile::tempdir().unwrap();
    // Ignores --timeout: only the harness can stop it.
    let exe = stand_in(dir.path(), "sleeper", "exec sleep 60");
    let limits = Limits {
        timeout_s: 0.2,
        max_memory_mib: 4096,
        max_states: None,
    };
    let r = run_check(
        &exe,
        Path::new("unused.json"),
        weft::Mode::Standard,
        &[],
        limits,
        None,
    );
    assert_eq!(r.status, Status::Timeout, "{r:?}");
    assert_eq!(r.stop, Some(StopCause::Time), "{r:?}");
    assert!(r.killed, "{r:?}");
    assert!(r.reason.starts_with("killed by the harness after"), "{r:?}");
    assert!(r.time_s.is_none());
    // Timeout 0.2 s plus the grace second, and not the child's 60 s.
    assert!(r.wall_s >= 1.2 && r.wall_s < 10.0, "{r:?}");
}

#[test]
fn the_harness_kills_a_child_that_overshoots_its_memory_budget() {
    use weft::bench::{Limits, Status, StopCause, run_check};
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("lock.json");
    let generated = weft()
        .args(["gen", "lock", "--threads", "30", "--sections", "3"])
        .output()
        .unwrap();
    assert!(generated.status.success());
    std::fs::write(&model, generated.stdout).unwrap();
    // The real checker, but without the budget flags the harness passes:
    // lock(30, 3) has 4^30 states, so its store grows until it is killed.
    let exe = stand_in(
        dir.path(),
        "greedy",
        &format!(
            "exec '{}' check \"$2\" --mode standard --jobs 1 --format json",
            env!("CARGO_BIN_EXE_weft")
        ),
    );
    let limits = Limits {
        timeout_s: 60.0,
        max_memory_mib: 16,
        max_states: None,
    };
    let r = run_check(&exe, &model, weft::Mode::Standard, &[], limits, None);
    assert_eq!(r.status, Status::Budget, "{r:?}");
    assert_eq!(r.stop, Some(StopCause::Memory), "{r:?}");
    assert!(r.killed, "{r:?}");
    assert!(r.reason.starts_with("killed by the harness at"), "{r:?}");
    // Killed past the budget plus its margin (64 MiB at this size).
    let peak = r.peak_memory_bytes.expect("sampled");
    assert!(peak >= (16 + 64) << 20, "{r:?}");
}

/// `--preset refine` on two models (`--only`): refine.md's tables have one
/// cell per heading, every model's four configurations are recorded, and
/// each verdict that is not a refusal (control, until it is built) is
/// standard's.
#[test]
fn the_refine_preset_tabulates_standard_beside_each_strategy() {
    let out = tempfile::tempdir().unwrap();
    bench_ok(
        "--preset refine --only bakery-fig2 --only bug-mozilla --timeout 5 --repeat 1",
        out.path(),
    );
    let report = read_json(&out.path().join("refine.json"));
    assert_eq!(report["preset"], "refine");
    assert_eq!(report["settings"]["timeout_s"], 5.0);
    assert_eq!(report["disagreements"], serde_json::json!([]), "{report}");
    let configs: Vec<(String, Value)> = report["configurations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["mode"].as_str().unwrap().to_string(), c["refine"].clone()))
        .collect();
    assert_eq!(
        configs,
        [
            ("standard".into(), Value::Null),
            ("refine".into(), "exceptions".into()),
            ("refine".into(), "control".into()),
            ("refine".into(), "control-monotonic".into()),
        ]
    );
    let records = report["records"].as_array().unwrap();
    let files = [
        "models/bakery-fig2.json",
        "models/bug-bakery-fig2-no-tiebreak.json",
        "models/bug-mozilla-order.json",
    ];
    assert_eq!(records.len(), 4 * files.len(), "{records:#?}");
    for file in files {
        let of: Vec<&Value> = records.iter().filter(|r| r["file"] == file).collect();
        assert_eq!(of.len(), 4, "{file}");
        let standard = of.iter().find(|r| r["mode"] == "standard").unwrap();
        let verdict = standard["verdict"].as_str().unwrap();
        assert!(verdict == "safe" || verdict == "unsafe", "{standard}");
        assert_eq!(standard["expect"]["standard"], verdict, "{standard}");
        for r in &of {
            if r["refused"] == true {
                assert_eq!(r["verdict"], "error", "{r}");
                assert_ne!(r["refine"], "exceptions", "exceptions is built: {r}");
            } else {
                assert_eq!(r["verdict"], verdict, "{r}");
            }
        }
        let exceptions = of.iter().find(|r| r["refine"] == "exceptions").unwrap();
        assert!(exceptions["stats"]["exception_products"].as_u64().is_some());
    }

    let md = std::fs::read_to_string(out.path().join("refine.md")).unwrap();
    for heading in [
        "## Disagreements",
        "## Summary",
        "## Table 1 of Gupta, Popeea and Rybalchenko",
        "### Beside the paper's Table 1",
        "## The other shipped models",
    ] {
        assert!(md.contains(heading), "{heading}:\n{md}");
    }
    assert!(
        md.contains("None: every safe or unsafe verdict agrees"),
        "{md}"
    );
    assert!(
        !md.contains("≠ standard") && !md.contains("≠ expect"),
        "{md}"
    );
    // Each table: as many cells in every row as in its heading.
    let cells = |l: &str| l.trim().trim_matches('|').split(" | ").count();
    let mut tables = 0;
    let lines: Vec<&str> = md.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("| model | expect |") {
            tables += 1;
            assert_eq!(cells(l), 2 + 3 + 3 * 4, "{l}");
            let rows: Vec<&&str> = lines[i + 2..]
                .iter()
                .take_while(|r| r.starts_with("| "))
                .collect();
            assert!(!rows.is_empty());
            for r in rows {
                assert_eq!(cells(r), cells(l), "{r}");
            }
        }
    }
    assert_eq!(tables, 2, "{md}");
    assert!(
        md.contains("| bakery-fig2.json | safe | safe | 126 |"),
        "{md}"
    );
    assert!(
        md.contains("| Bakery | bakery-fig2.json | 54 (48.4 + 5.6) | 14 |"),
        "{md}"
    );
}

#[test]
fn the_refine_preset_refuses_an_only_that_matches_nothing() {
    let out = tempfile::tempdir().unwrap();
    let run = weft()
        .args([
            "bench",
            "--preset",
            "refine",
            "--only",
            "no-such-model",
            "--out",
        ])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("--only no-such-model: no model of the grid matches"),
        "{err}"
    );
    let run = weft()
        .args(["bench", "--preset", "fig4", "--only", "lock", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("--only applies to --preset refine"), "{err}");
}

#[test]
fn bench_symmetry_runs_standard_with_symmetry_and_tabulates_throughput() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("report");
    bench_ok(
        "--family lock --threads 4 --sections 1 --modes standard,cartesian-exc --symmetry --repeat 1",
        &dir,
    );
    let report = read_json(&dir.join("report.json"));
    let records = report["records"].as_array().unwrap();
    // Under --symmetry the reduced states of lock(4, 1) stand for
    // (m+1)^n + 2nm(m+1)^(n-1) = 2^4 + 2·4·2^3 = 80 states (the lock
    // formula); cartesian-exc has no --symmetry and runs as it is.
    let std = record(records, "standard", 4);
    assert_eq!(std["stats"]["full_states"], 80, "{std}");
    assert!(std["states"].as_u64().unwrap() < 80, "{std}");
    let cart = record(records, "cartesian-exc", 4);
    assert!(cart["stats"]["full_states"].is_null(), "{cart}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        !md.contains("states per second"),
        "the throughput table is the presets' only"
    );
}
