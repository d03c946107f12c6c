//! The DVE front end against BEEM's published figures (tests/data/beem,
//! a copy of shared/beem and five instances of lann and lamport_nonatomic
//! with their published figures from the same source, the public BEEM
//! copy plug-obp/beem-benchmark): exact state and transition counts, verdicts of
//! the reachability goals, `weft convert` round trips, clear refusals.

use super::common;

use crate::engine::{self, CheckOptions};
use crate::engine::{Mode, Verdict};
use assert_cmd::Command;
use std::path::{Path, PathBuf};

pub(super) fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/beem")
}

pub(super) struct Row {
    pub(super) file: String,
    pub(super) states: u64,
    pub(super) transitions: Option<u64>,
    pub(super) levels: Option<u64>,
    pub(super) channels: bool,
    pub(super) error: String,
    pub(super) reachable: Option<bool>,
    pub(super) trace_len: Option<usize>,
    /// States without a successor: BEEM's `*.stat.xml`, degree 0 `out`.
    pub(super) deadlocks: Option<u64>,
}

/// counts.csv; the params column is quoted and may hold commas.
pub(super) fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(data().join("counts.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let mut fields = Vec::new();
            let (mut cur, mut quoted) = (String::new(), false);
            for c in line.chars() {
                match c {
                    '"' => quoted = !quoted,
                    ',' if !quoted => fields.push(std::mem::take(&mut cur)),
                    c => cur.push(c),
                }
            }
            fields.push(cur);
            let num = |s: &str| s.parse::<u64>().ok();
            Row {
                file: fields[0].clone(),
                states: num(&fields[3]).unwrap(),
                transitions: num(&fields[4]),
                levels: num(&fields[5]),
                channels: fields[6] == "yes",
                error: fields[7].clone(),
                reachable: match fields[8].as_str() {
                    "yes" => Some(true),
                    "no" => Some(false),
                    _ => None,
                },
                trace_len: fields[9].parse().ok(),
                deadlocks: fields.get(10).and_then(|s| num(s)),
            }
        })
        .collect()
}

pub(super) fn stat(r: &crate::RunReport, k: &str) -> u64 {
    r.stats.get(k).and_then(|v| v.as_u64()).unwrap()
}

#[test]
fn published_state_and_transition_counts_are_reproduced() {
    let rows = rows();
    assert_eq!(rows.len(), 41);
    let mut checked = 0;
    for row in &rows {
        let path = data().join(&row.file);
        // The whole state space and its deadlocks, as DiVinE reports them
        // (no `--error`: nothing stops the search).
        let prog = common::load_path(&path, None);
        let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        assert_eq!(stat(&r, "states"), row.states, "{} states", row.file);
        if let Some(t) = row.transitions {
            assert_eq!(stat(&r, "transitions"), t, "{} transitions", row.file);
        }
        if let Some(l) = row.levels {
            assert_eq!(stat(&r, "depth") + 1, l, "{} BFS levels", row.file);
        }
        if let Some(d) = row.deadlocks {
            assert_eq!(stat(&r, "deadlocks"), d, "{} deadlocks", row.file);
            let deadlock = r
                .outcome("deadlock")
                .expect("DVE checks deadlocks by default");
            let want = if d > 0 {
                Verdict::Unsafe
            } else {
                Verdict::Safe
            };
            assert_eq!(deadlock.verdict, want, "{} deadlock", row.file);
        }
        // `weft convert` output loads and gives the same count.
        let (json, _) = crate::model::load::to_json(&path, None, false).unwrap();
        let again = common::load_value(&json);
        let r2 = engine::check(&again, Mode::Standard, &CheckOptions::default()).unwrap();
        assert_eq!(
            stat(&r2, "states"),
            row.states,
            "{} after convert",
            row.file
        );
        checked += 1;
    }
    assert_eq!(checked, 41);
    assert_eq!(
        rows.iter().filter(|r| r.channels).count(),
        16,
        "elevator, gear, lann, lamport_nonatomic, lup, collision, pgm_protocol, brp2 and train-gate use channels"
    );
}

#[test]
fn published_reachability_answers_are_reproduced_with_shortest_traces() {
    for row in rows().iter().filter(|r| !r.error.is_empty()) {
        let path = data().join(&row.file);
        let prog = common::load_path(&path, Some(&row.error));
        let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        let o = &r.outcomes[0];
        let want = if row.reachable == Some(true) {
            Verdict::Unsafe
        } else {
            Verdict::Safe
        };
        assert_eq!(o.verdict, want, "{}", row.file);
        if let Some(len) = row.trace_len {
            // BEEM's length counts states (steps + 1) and is an upper bound.
            let steps = o.trace.as_ref().unwrap().steps.len();
            assert!(
                steps < len,
                "{}: {steps} steps, published {len} states",
                row.file
            );
        }
    }
}

#[test]
fn rendezvous_models_are_checked_by_every_mode_and_traces_name_both_threads() {
    let gear = data().join("dve/gear.1.dve");
    // The abstract modes take rendezvous: an alarm (exit code 3) here.
    for mode in ["thread-modular", "cartesian-exc"] {
        let out = Command::cargo_bin("weft")
            .unwrap()
            .args(["check", gear.to_str().unwrap(), "--mode", mode])
            .args(["--error", "Clutch@error_open"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{mode}");
    }
    // refine finds the error, and its trace (rendezvous included) replays.
    let prog = common::load_path(&gear, Some("Clutch@error_open"));
    let r = engine::check(&prog, Mode::Refine, &CheckOptions::default()).unwrap();
    assert_eq!(r.outcomes[0].verdict, Verdict::Unsafe);
    let trace = r.outcomes[0].trace.as_ref().unwrap();
    assert!(trace.steps.iter().any(|s| s.partner.is_some()));
    let line = r.to_json_lines();
    let line: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    common::replay_line(&prog, &line, "gear.1");
    // A rendezvous step names both threads in the JSON trace.
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args([
            "check",
            gear.to_str().unwrap(),
            "--error",
            "Clutch@error_open",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let line: serde_json::Value = serde_json::from_str(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let first = &line["trace"][0];
    assert_eq!(
        (
            first["thread"].as_str(),
            first["partner"]["thread"].as_str()
        ),
        (Some("Interface"), Some("GearControl")),
        "{first}"
    );
}

#[test]
fn a_buffered_channel_is_a_fifo_of_its_capacity() {
    // S sends 0, 1, 2 into a channel of capacity 2; R receives into `got`.
    // With v sent and k received (0 <= k <= v <= 3, at most 2 in the
    // buffer) the state is fixed by (v, k): 1 + 2 + 3 + 3 = 9 states.
    let src = "channel {byte} c[2];\n\
        process S { byte v; state s; init s; trans s -> s { guard v < 3; sync c!v; effect v = v + 1; }; }\n\
        process R { byte got; state r; init r; trans r -> r { sync c?got; }; }\n\
        system async;\n";
    let dir = common::temp_dir("fifo");
    let path = dir.join("fifo.dve");
    std::fs::write(&path, src).unwrap();
    let check = |error: &str| {
        let prog = common::load_path(&path, Some(error));
        engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap()
    };
    let r = check("false");
    assert_eq!(stat(&r, "states"), 9);
    // In order: 2 arrives last, after all three sends (6 steps at least).
    let r = check("R.got == 2");
    assert_eq!(r.outcomes[0].verdict, Verdict::Unsafe);
    assert_eq!(r.outcomes[0].trace.as_ref().unwrap().steps.len(), 6);
    assert_eq!(
        check("S.v < 3 && R.got == 2").outcomes[0].verdict,
        Verdict::Safe
    );
    // Never more than the capacity in flight.
    assert_eq!(
        check("S.v - 2 > 0 && R.got == 0 && c_len == 0").outcomes[0].verdict,
        Verdict::Safe
    );
    // Buffered channels are plain globals, so the abstract modes take them.
    let prog = common::load_path(&path, Some("R.got == 2"));
    assert!(engine::check(&prog, Mode::CartesianExc, &CheckOptions::default()).is_ok());
}

/// `weft check` on the DVE text `src` written to `path`: its exit code and
/// what it printed on stderr.
fn check_dve(path: &std::path::Path, src: &str) -> (Option<i32>, String) {
    std::fs::write(path, src).unwrap();
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args(["check", path.to_str().unwrap()])
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

/// `weft check` on the DVE text `src` written to `path`: must exit 2; the
/// message.
fn refused(path: &std::path::Path, src: &str) -> String {
    let (code, err) = check_dve(path, src);
    assert_eq!(code, Some(2), "{}: {err}", path.display());
    err
}

#[test]
fn unsupported_constructs_are_refused_with_line_and_column() {
    let dir = common::temp_dir("dve-unsupported");
    for (name, src, expected) in [
        (
            "tuple.dve",
            "channel {byte, byte} c[2];\nprocess P { state s; init s; }\nsystem async;\n",
            "unsupported: channels that carry several values (line 1, column 14)",
        ),
        (
            "sync.dve",
            "byte x;\nprocess P { state s; init s; }\nsystem sync;\n",
            "unsupported: `system sync` (synchronous systems) (line 3, column 8)",
        ),
        (
            "commit.dve",
            "process P { state s, t; init s;\n commit t; trans s -> t {}; }\nsystem async;\n",
            "unsupported: `commit` declarations (line 2, column 2)",
        ),
        (
            "remote.dve",
            "byte x;\nprocess P { state s; init s; trans s -> s { guard R.x == 0; }; }\nprocess Q { byte x; state s; init s; }\nsystem async;\n",
            "there is no process `R` (in `R.x`)",
        ),
        (
            "member.dve",
            "byte x;\nprocess P { state s; init s; trans s -> s { guard Q.y == 0; }; }\nprocess Q { byte x; state s; init s; }\nsystem async;\n",
            "process `Q` has no state or variable `y`",
        ),
    ] {
        let err = refused(&dir.join(name), src);
        assert!(err.contains(expected), "{name}: {err}");
    }
}

#[test]
fn dve_errors_found_after_translation_point_at_the_dve_source() {
    let dir = common::temp_dir("dve-sem");
    for (name, src, expected, at) in [
        // An unknown variable in a guard: the guard's line and column.
        (
            "unknown.dve",
            "byte x;\nprocess P { state s, t; init s;\n trans s -> t { guard y == 0; }; }\nsystem async;\n",
            "unknown name `y`",
            "unknown.dve:3:17",
        ),
        // A transition to an undeclared state.
        (
            "state.dve",
            "byte x;\nprocess P { state s, t; init s;\n trans s -> u {}; }\nsystem async;\n",
            "`u`",
            "state.dve:3:8",
        ),
        // An undeclared initial state.
        (
            "init.dve",
            "byte x;\nprocess P { state s, t; init q;\n trans s -> t {}; }\nsystem async;\n",
            "`q`",
            "init.dve:2:30",
        ),
        // Declared twice.
        (
            "twice.dve",
            "byte x;\nint x;\nprocess P { state s; init s; }\nsystem async;\n",
            "`x` is declared twice at the top level (first at line 1, column 6)",
            "twice.dve:2:5",
        ),
        (
            "states.dve",
            "process P { state s, s; init s; }\nsystem async;\n",
            "`s` is declared twice in process `P`",
            "states.dve:1:22",
        ),
    ] {
        let err = refused(&dir.join(name), src);
        assert!(err.contains(expected) && err.contains(at), "{name}: {err}");
        assert!(
            !err.contains("threads["),
            "{name} names the translation, not the DVE text: {err}"
        );
    }
}

#[test]
fn check_shows_the_translation_warnings() {
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args(["check", data().join("dve/anderson.2.dve").to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("warning: ")
            && err.contains("anderson.2.dve:4:")
            && err.contains("initial values for 3 cells"),
        "{err}"
    );
}

#[test]
fn a_rendezvous_passes_the_value_and_moves_both_threads_at_once() {
    // Sender offers x+1 on c; the receiver stores it in y. Sender effects
    // run first, then the receive and the receiver's effects.
    let m = serde_json::json!({
        "name": "rv", "channels": ["c"],
        "globals": {"x": {"type": "int", "min": 0, "max": 9, "init": 4}, "y": {"type": "int", "min": 0, "max": 9}},
        "threads": [
            {"name": "s", "start": "a", "transitions": [{"from": "a", "to": "b", "sync": "c!x + 1", "do": "x := 0"}]},
            {"name": "r", "start": "a", "transitions": [{"from": "a", "to": "b", "sync": "c?y", "do": "x := x + y"}]}
        ],
        "properties": [{"name": "done", "error": "s@b && r@b && x == 5 && y == 5"}]
    });
    let prog = common::load_value(&m);
    let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    // Two states: before and after; neither thread can move alone.
    assert_eq!(stat(&r, "states"), 2);
    assert_eq!(r.outcomes[0].verdict, Verdict::Unsafe);
    let step = &r.outcomes[0].trace.as_ref().unwrap().steps[0];
    assert_eq!(step.partner.as_ref().map(|p| p.thread.as_str()), Some("r"));
}

fn dve_states(src: &str) -> (u64, Verdict) {
    let dir = common::temp_dir("dve");
    let path = dir.join(format!("m{}.dve", src.len()));
    std::fs::write(&path, src).unwrap();
    let prog = common::load_path(&path, None);
    let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
    (stat(&r, "states"), r.outcomes.last().unwrap().verdict)
}

#[test]
fn an_out_of_range_assignment_is_a_model_error_as_in_divines_interpreter() {
    // 250, 251, ..., 255, and then `x = 256` is refused: 6 states, and
    // `model-errors` reports it (the transition has no successor).
    let (n, model_errors) = dve_states(
        "byte x = 250; process P { state s; init s; trans s -> s { effect x = x + 1; }; } system async;",
    );
    assert_eq!((n, model_errors), (6, Verdict::Unsafe));
    // An int below -32768 likewise: one state.
    let (n, model_errors) = dve_states(
        "int y = -32768; process P { state s; init s; trans s -> s { effect y = y - 1; }; } system async;",
    );
    assert_eq!((n, model_errors), (1, Verdict::Unsafe));
    // Booleans used as numbers, `and`/`not`, nested indexing, a long initialiser.
    let (n, model_errors) = dve_states(
        "byte a[2] = {1, 0, 7}; byte i; process P { state s, t; init s; trans s -> t { guard not (a[a[i]] == 1) and (i < 2); effect i = i + (a[0] == 1) * 1; }, t -> s {}; } system async;",
    );
    assert_eq!((n, model_errors), (3, Verdict::Safe));
}

#[test]
fn anderson_1_overflows_and_divines_error_state_gives_its_published_count() {
    // anderson.1 (N = 2, ERROR = 1): `next = next + 1` passes 255. BEEM
    // publishes 347,039 states. Wrap-around would give 352,664 (5,625
    // more). weft's model error drops the transition: 347,036, and
    // `model-errors` reports it. DiVinE's interpreter goes to its error
    // state instead (every variable 0, P_0 nowhere), from which P_1 still
    // takes two steps: 3 more states, the published count
    // (docs/beem.md, "Overflow").
    let path = data().join("dve/anderson.1.dve");
    let run = |divine_errors| {
        let prog = crate::model::load_any_with(&path, &[], None, divine_errors)
            .map(crate::model::Model::into_program)
            .unwrap_or_else(|d| panic!("{}", d.render()));
        engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap()
    };
    let dropped = run(false);
    assert_eq!(stat(&dropped, "states"), 347_036);
    let o = dropped
        .outcome("model-errors")
        .expect("model-errors is checked");
    assert_eq!(o.verdict, Verdict::Unsafe);
    assert!(o.reason.contains("`next` gets 256"), "{}", o.reason);
    let divine = run(true);
    assert_eq!(stat(&divine, "states"), 347_039);
    let o = divine
        .outcome("model-errors")
        .expect("model-errors is checked");
    assert_eq!(o.verdict, Verdict::Unsafe, "the overflow is still reported");
    assert!(o.reason.contains("goes to the error state"), "{}", o.reason);
}

#[test]
fn another_process_state_and_locals_are_read_as_divine_reads_them() {
    // Q counts x up to 3; P may move from a to b only while Q is at `busy`
    // and Q's x is 2, which holds in exactly one state of Q's: so the
    // states are Q's 4 (x = 0, 1, 2 at busy, then done) times P at a,
    // plus P at b beside (busy, x = 2) and what follows it: (done, 3).
    let src = "process P { state a, b; init a; trans a -> b { guard Q.busy && Q.x == 2; }; }\n\
               process Q { byte x; state busy, done; init busy;\n\
               trans busy -> busy { guard x < 2; effect x = x + 1; }, busy -> done { guard x == 2; effect x = 3; }; }\n\
               system async;";
    let (n, _) = dve_states(src);
    assert_eq!(n, 4 + 2);
    // The reads take the state of the moment: with `Q.done` instead, P moves
    // only after Q's last step.
    let (n, _) = dve_states(&src.replace("Q.busy && Q.x == 2", "Q.done"));
    assert_eq!(n, 4 + 1);
    // A reference to a location of the process itself is its own state.
    let (n, _) = dve_states(
        "process P { state a, b, c; init a; trans a -> b { guard P.a; }, b -> c { guard P.a; }; } system async;",
    );
    assert_eq!(n, 2);
}

#[test]
fn another_process_state_is_a_global_to_the_abstract_modes() {
    // lup.1's processors read each other's location (`lup0.load_data |
    // ...`). The location mirrors are globals, so the abstract modes keep
    // them exactly: CAM's mutual exclusion is proved without refinement,
    // and a reachable pair of locations is an alarm (never `safe`), which
    // refine turns into a replayable trace of standard's length.
    let path = data().join("dve/lup.1.dve");
    let load = |error: &str| common::load_path(&path, Some(error));
    let verdict = |prog: &crate::program::Program, mode| {
        let r = engine::check(prog, mode, &CheckOptions::default()).unwrap();
        (
            r.outcomes[0].verdict,
            r.outcomes[0].trace.as_ref().map(|t| t.steps.len()),
        )
    };
    let mutex = load("count(*: @load_data) >= 2");
    for mode in [
        Mode::Standard,
        Mode::ThreadModular,
        Mode::CartesianExc,
        Mode::Refine,
    ] {
        assert_eq!(verdict(&mutex, mode).0, Verdict::Safe, "{mode:?}");
    }
    let reachable = load("lup0@latency2 && lup1@load_data");
    let (v, steps) = verdict(&reachable, Mode::Standard);
    assert_eq!((v, steps), (Verdict::Unsafe, Some(9)));
    for mode in [Mode::ThreadModular, Mode::CartesianExc] {
        assert_eq!(verdict(&reachable, mode).0, Verdict::Unknown, "{mode:?}");
    }
    assert_eq!(
        verdict(&reachable, Mode::Refine),
        (Verdict::Unsafe, Some(9))
    );
}

#[test]
fn an_array_named_as_a_value_is_its_first_cell_with_a_warning() {
    // train-gate's `e = 1` and `e == 1` on `byte e[3]`: DiVinE's published
    // counts (train-gate.1, .2 in counts.csv) are reproduced this way.
    let (n, _) = dve_states(
        "byte e[2]; process P { state s, t; init s; trans s -> t { guard e == 0; effect e = 7; }, t -> s { guard e[0] == 7 && e[1] == 0; effect e[1] = 1; }; } system async;",
    );
    assert_eq!(n, 3);
    let dir = common::temp_dir("dve-array-value");
    let (_, err) = check_dve(
        &dir.join("a.dve"),
        "byte e[2]; process P { state s; init s; trans s -> s { effect e = 1; }; } system async;",
    );
    assert!(
        err.contains("uses the array `e` as a value; it is read and written as `e[0]`"),
        "{err}"
    );
}

#[test]
fn dve_syntax_errors_name_line_and_column() {
    let dir = common::temp_dir("dve-err");
    let path = dir.join("bad.dve");
    std::fs::write(&path, "byte x;\nprocess P {\n state s;\n init s;\n trans s -> s { guard x == ; };\n}\nsystem async;\n").unwrap();
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args(["check", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("bad.dve:5:") && err.contains("expected an expression"),
        "{err}"
    );
}

#[test]
fn a_declaration_after_the_state_line_says_where_it_belongs() {
    let dir = common::temp_dir("dve-late-decl");
    let cases = [
        (
            "after-state.dve",
            "process P {\n state s;\n byte y;\n init s;\n}\nsystem async;\n",
            "after-state.dve:3:2",
            "byte",
        ),
        (
            "after-init.dve",
            "process P {\n state s;\n init s;\n int y;\n}\nsystem async;\n",
            "after-init.dve:4:2",
            "int",
        ),
        (
            "after-trans.dve",
            "process P {\n state s;\n init s;\n trans s -> s {};\n const byte k = 1;\n}\nsystem async;\n",
            "after-trans.dve:5:2",
            "const",
        ),
    ];
    for (name, src, place, word) in cases {
        let err = refused(&dir.join(name), src);
        assert!(err.contains(place), "{name}: {err}");
        assert!(
            err.contains(&format!("`{word}` declaration after the `state` line")),
            "{name}: {err}"
        );
        assert!(
            err.contains("move this declaration above `state`"),
            "{name}: {err}"
        );
    }
}
