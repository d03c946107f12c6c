//! BEEM's bakery (bakery.1, bakery.3) in the abstract modes: ranges
//! narrowed to what the model bounds keep the published counts, and an
//! exception set (hand-written for models/bakery.json, generated for N
//! threads here) lets cartesian-exc prove mutual exclusion where
//! thread-modular and an empty exception set cannot.

use super::beem::{data, rows, stat};
use super::common;
use crate::engine::{self, CheckOptions};
use crate::engine::{Mode, Verdict};
use assert_cmd::Command;

/// models/bakery.json is bakery.1 with its ranges narrowed to what the model
/// bounds (number, max ≤ MAX = 9) and a hand-written exception set: the
/// narrowing keeps BEEM's published counts, and the exception set makes
/// cartesian-exc prove what thread-modular and E = ∅ cannot.
#[test]
fn bakery_with_narrowed_ranges_keeps_the_published_counts_and_its_exception_set_proves_it() {
    let row = rows()
        .into_iter()
        .find(|r| r.file == "dve/bakery.1.dve")
        .expect("bakery.1 in counts.csv");
    let prog = common::load("bakery.json");
    let opts = CheckOptions {
        properties: vec!["mutex".into()],
        ..CheckOptions::default()
    };
    let exact = engine::check(&prog, Mode::Standard, &opts).unwrap();
    assert_eq!(stat(&exact, "states"), row.states);
    assert_eq!(Some(stat(&exact, "transitions")), row.transitions);
    assert_eq!(exact.verdict(), Verdict::Safe);

    assert_eq!(
        engine::check(&prog, Mode::ThreadModular, &opts)
            .unwrap()
            .verdict(),
        Verdict::Unknown
    );
    let no_e = common::without_exceptions(prog.clone());
    assert_eq!(
        engine::check(&no_e, Mode::CartesianExc, &opts)
            .unwrap()
            .verdict(),
        Verdict::Unknown
    );
    let proved = engine::check(&prog, Mode::CartesianExc, &CheckOptions::default()).unwrap();
    assert_eq!(proved.verdict(), Verdict::Safe, "mutex and model-errors");
    assert!(stat(&proved, "exception_products") > 0);

    // The DVE file itself declares bytes (256^4 global stores), but the
    // ranges weft infers from its guards and assignments are those of
    // models/bakery.json (number, max ≤ 9): the same entries prove it.
    let dir = common::temp_dir("bakery-exc");
    let exc = dir.join("bakery.exceptions.json");
    let model: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(common::models_dir().join("bakery.json")).unwrap(),
    )
    .unwrap();
    std::fs::write(&exc, model["exceptions"].to_string()).unwrap();
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args([
            "check",
            data().join(&row.file).to_str().unwrap(),
            "--mode",
            "cartesian-exc",
            "--error",
            "count(*: @CS) >= 2",
            "--exceptions",
        ])
        .arg(&exc)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("error: safe"), "{text}");
}

/// The bakery invariant as exception entries for N threads (BEEM bakery,
/// locations NCS, choose, for_loop, wait, CS; locals j, max):
/// - cons(t): P_t's location agrees with choosing[t] and number[t];
/// - R3(i, o): P_i past o's number check and number[o] ≠ 0 implies
///   (number[i], i) < (number[o], o);
/// - R1(i, o): P_i past o's choosing check and P_o choosing with j > i
///   implies max_o ≥ number[i].
///
/// E = the states satisfying all of them in which some thread is past
/// another's choosing check. R1 relates two threads, so each choice of
/// which side of each ordered pair carries its literal is one product:
/// N · 2^(N(N-1)) entries (8 for N = 2, 192 for N = 3).
fn bakery_exceptions(n: usize) -> serde_json::Value {
    let passed_choosing =
        |o: usize| format!("((@for_loop && j > {o}) || (@wait && j >= {o}) || @CS)");
    let passed_number = |o: usize| format!("((@for_loop && j > {o}) || (@wait && j > {o}) || @CS)");
    let cons = |t: usize| {
        format!(
            "((@NCS && choosing[{t}] == 0 && number[{t}] == 0) || \
             (@choose && choosing[{t}] == 1 && number[{t}] == 0 && j <= {n}) || \
             (((@for_loop && j <= {n}) || (@wait && j < {n}) || (@CS && j == {n})) && choosing[{t}] == 0 && number[{t}] > 0))"
        )
    };
    let r3 = |i: usize| {
        (0..n)
            .filter(|&o| o != i)
            .map(|o| {
                let tie = if i < o {
                    format!(" || number[{i}] == number[{o}]")
                } else {
                    String::new()
                };
                format!(
                    "(!{} || number[{o}] == 0 || number[{i}] < number[{o}]{tie})",
                    passed_number(o)
                )
            })
            .collect::<Vec<_>>()
            .join(" && ")
    };
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (0..n).filter(move |&o| o != i).map(move |o| (i, o)))
        .collect();
    let mut entries = Vec::new();
    for past in 0..n {
        for choice in 0..1u32 << pairs.len() {
            let mut lits: Vec<Vec<String>> = (0..n).map(|t| vec![cons(t), r3(t)]).collect();
            let others: Vec<String> = (0..n).filter(|&o| o != past).map(passed_choosing).collect();
            lits[past].push(format!("({})", others.join(" || ")));
            for (k, &(i, o)) in pairs.iter().enumerate() {
                if choice >> k & 1 == 0 {
                    // P_o has read number[i] already, or is not past it.
                    lits[o].push(format!("!(@choose && j > {i} && max < number[{i}])"));
                } else {
                    // P_i is not past o's choosing check.
                    lits[i].push(format!("(choosing[{o}] == 0 || !{})", passed_choosing(o)));
                }
            }
            let threads: serde_json::Map<String, serde_json::Value> = lits
                .iter()
                .enumerate()
                .map(|(t, l)| (format!("P_{t}"), serde_json::Value::from(l.join(" && "))))
                .collect();
            entries.push(serde_json::json!({ "threads": threads }));
        }
    }
    serde_json::Value::Array(entries)
}

/// bakery.1 (N = 2, MAX = 9) and bakery.3 (N = 3, MAX = 4) as `weft
/// convert` prints them, with the ranges the model bounds (a ticket is
/// max + 1 only when max < MAX; j counts to N) and the generated exception
/// set: standard keeps the published counts, cartesian-exc proves mutual
/// exclusion (bakery.3: about a second), thread-modular cannot.
#[test]
fn bakery_is_proved_with_the_generated_invariant_for_two_and_three_threads() {
    for (file, n, max) in [("dve/bakery.1.dve", 2, 9), ("dve/bakery.3.dve", 3, 4)] {
        let out = Command::cargo_bin("weft")
            .unwrap()
            .args(["convert", data().join(file).to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{file}");
        let mut model: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        model["globals"]["choosing"]["of"]["max"] = 1.into();
        model["globals"]["number"]["of"]["max"] = max.into();
        for t in model["threads"].as_array_mut().unwrap() {
            t["locals"]["j"]["max"] = n.into();
            t["locals"]["max"]["max"] = max.into();
        }
        model["properties"] = serde_json::json!([{"name": "mutex", "error": "count(*: @CS) >= 2"}]);
        model["exceptions"] = bakery_exceptions(n);
        let prog = common::load_value(&model);

        let row = rows().into_iter().find(|r| r.file == file).unwrap();
        let exact = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        assert_eq!(
            stat(&exact, "states"),
            row.states,
            "{file}: narrowing kept the state space"
        );
        assert_eq!(
            exact.verdict(),
            Verdict::Safe,
            "{file}: no range violation either"
        );
        let tm = engine::check(&prog, Mode::ThreadModular, &CheckOptions::default()).unwrap();
        assert_eq!(tm.verdict(), Verdict::Unknown, "{file}");
        let cart = engine::check(&prog, Mode::CartesianExc, &CheckOptions::default()).unwrap();
        assert_eq!(cart.verdict(), Verdict::Safe, "{file}: {:?}", cart.outcomes);
        assert_eq!(
            bakery_exceptions(n).as_array().unwrap().len(),
            n << (n * (n - 1))
        );
    }
}
