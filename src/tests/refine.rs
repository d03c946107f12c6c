//! `refine` against `standard` and against its own claims, checked
//! independently of the engine:
//!
//! * on random small models its verdict is standard's whenever it decides,
//!   and it never says `safe` where standard says `unsafe`;
//! * an `unsafe` carries a trace that replays step by step;
//! * a `safe` comes with an invariant that, enumerated state by state,
//!   contains the initial states, is closed under every thread's step and
//!   every rendezvous, and holds no error state (inductiveness checked
//!   here, not by the engine);
//! * the exception set it saves lets cartesian-exc prove the model alone.

use super::common;
use super::differential::{all_states, model};
use crate::engine::result::{AbstractProduct, InvariantForm, RunReport, Store};
use crate::engine::{self, CheckOptions, Mode, Refinement, Verdict};
use crate::program::{Explorer, Program, Val};
use proptest::prelude::*;

fn check(prog: &Program, mode: Mode) -> RunReport {
    check_with(prog, mode, Refinement::Exceptions)
}

pub(super) fn check_with(prog: &Program, mode: Mode, refinement: Refinement) -> RunReport {
    let opts = CheckOptions {
        show_invariant: true,
        refinement,
        ..CheckOptions::default()
    };
    engine::check(prog, mode, &opts).unwrap()
}

/// Is the concrete state in `{global} × Π threads`?
fn in_product(prog: &Program, p: &AbstractProduct, g: &Store, ls: &[Store]) -> bool {
    p.global == *g && (0..prog.threads.len()).all(|t| p.threads[t].contains(&ls[t]))
}

/// Checks, by enumerating every state of the model, that the invariant of
/// a `safe` report is inductive and excludes the error states of every
/// property.
pub(super) fn assert_inductive(prog: &Program, report: &RunReport) {
    let Some(inv) = &report.invariant else {
        panic!("no invariant")
    };
    // Either form is a union of products.
    let products: Vec<&AbstractProduct> = match &inv.form {
        InvariantForm::Cartesian {
            products,
            exceptions,
        } => products.iter().chain(exceptions).collect(),
        InvariantForm::Control { products, .. } => products.iter().collect(),
        _ => panic!("refine's invariant is a union of products"),
    };
    let mut exp = Explorer::new(prog);
    let render = |exp: &Explorer, g: u32, ls: &[u32]| -> (Store, Vec<Store>) {
        (
            prog.globals.render(exp.globals.get(g)),
            (0..prog.threads.len())
                .map(|t| prog.template_of(t).render_local(exp.local(t, ls[t])))
                .collect(),
        )
    };
    let contains = |g: &Store, ls: &[Store]| products.iter().any(|p| in_product(prog, p, g, ls));
    for (g, ls) in exp.initial_states() {
        let (gs, lss) = render(&exp, g, &ls);
        assert!(
            contains(&gs, &lss),
            "an initial state is outside: {gs:?} {lss:?}"
        );
    }
    for (gv, lv) in all_states(prog) {
        let g = exp.globals.intern(&gv);
        let ls: Vec<u32> = lv
            .iter()
            .enumerate()
            .map(|(t, l): (usize, &Vec<Val>)| exp.intern_local(t, l))
            .collect();
        let (gs, lss) = render(&exp, g, &ls);
        if !contains(&gs, &lss) {
            continue;
        }
        for p in &prog.properties {
            assert!(
                !crate::property::holds(&p.error, &exp, g, &ls).unwrap_or(true),
                "the invariant holds an error state of `{}`: {gs:?} {lss:?}",
                p.name
            );
        }
        for t in 0..prog.threads.len() {
            let succs = exp.successors(t, g, ls[t]);
            assert!(succs.error.is_none(), "a step fails inside the invariant");
            for s in &succs.steps {
                let mut next = ls.clone();
                next[t] = s.l;
                let (gs2, lss2) = render(&exp, s.g, &next);
                assert!(
                    contains(&gs2, &lss2),
                    "not closed: {gs:?} {lss:?} -> {gs2:?} {lss2:?}"
                );
            }
        }
        let (steps, error) = exp.sync_steps(g, &ls);
        assert!(error.is_none(), "a rendezvous fails inside the invariant");
        for st in steps {
            let mut next = ls.clone();
            next[st.sender] = st.l_send;
            next[st.receiver] = st.l_recv;
            let (gs2, lss2) = render(&exp, st.g, &next);
            assert!(
                contains(&gs2, &lss2),
                "not closed under a rendezvous: {gs:?} {lss:?} -> {gs2:?} {lss2:?}"
            );
        }
    }
}

/// Every unsafe outcome's trace replays.
pub(super) fn assert_traces_replay(prog: &Program, report: &RunReport) {
    for line in report.to_json_lines().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["verdict"] == "unsafe" && v.get("property").is_some() {
            common::replay_line(prog, &v, "generated");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// refine decides as standard does; its unsafe traces replay; its safe
    /// invariants are inductive.
    #[test]
    fn refine_agrees_with_standard(m in model()) {
        let prog = common::load_value(&m);
        let exact = check(&prog, Mode::Standard);
        let refined = check(&prog, Mode::Refine);
        for (e, r) in exact.outcomes.iter().zip(&refined.outcomes) {
            prop_assert_eq!(&e.property, &r.property);
            // standard's `unknown` here is model-errors after it stopped at
            // the first violation; otherwise it decides, and on models this
            // small refine always decides too.
            if e.verdict != Verdict::Unknown {
                prop_assert_eq!(r.verdict, e.verdict, "{}: {}", r.property, r.reason);
            }
        }
        assert_traces_replay(&prog, &refined);
        if refined.verdict() == Verdict::Safe {
            assert_inductive(&prog, &refined);
        }
    }
}

/// The saved exception set, given to cartesian-exc, proves the model alone.
fn assert_saved_set_proves(path: &std::path::Path) {
    assert_saved_set_proves_with(path, &[]);
}

/// As `assert_saved_set_proves`, both runs given `args` too.
fn assert_saved_set_proves_with(path: &std::path::Path, args: &[&str]) {
    let dir = common::temp_dir("refine-save");
    let saved = dir.join(format!(
        "{}.exceptions.json",
        path.file_stem().unwrap().to_str().unwrap()
    ));
    for (mode, flag) in [
        ("refine", "--save-exceptions"),
        ("cartesian-exc", "--exceptions"),
    ] {
        let out = assert_cmd::Command::cargo_bin("weft")
            .unwrap()
            .args(["check", path.to_str().unwrap(), "--mode", mode, flag])
            .arg(&saved)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{mode} {flag}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn shipped_safe_models_are_proved_and_the_saved_set_reproves_them() {
    for name in ["lock.json", "peterson.json", "bakery.json", "simple.json"] {
        let prog = common::load(name);
        let r = check(&prog, Mode::Refine);
        assert_eq!(r.verdict(), Verdict::Safe, "{name}: {}", r.to_text());
        assert_saved_set_proves(&common::models_dir().join(name));
    }
}

/// A saved set pins every global of each entry's store (`x == 1 && t[0]
/// == 2 && ...`), and cartesian-exc instantiates each entry at that store
/// only. These two were refused before (the BEEM globals' ranges hold more
/// than 2^20 stores, and every store was enumerated whatever the `when`).
#[test]
fn saved_sets_of_beem_instances_reprove_them() {
    for name in ["mcs.2.dve", "mcs.4.dve"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/beem/dve")
            .join(name);
        assert_saved_set_proves_with(&path, &["--error", "count(*: @CS) >= 2"]);
    }
}

/// A location may be any string; the saved set names `l2.1 it's` as
/// `@'l2.1 it''s'`, which `--exceptions` reads back (it wrote `@l2.1 it's`
/// before, which no expression could parse).
#[test]
fn a_saved_set_names_locations_that_are_not_identifiers() {
    let text = std::fs::read_to_string(common::models_dir().join("lock.json")).unwrap();
    let mut model: serde_json::Value = serde_json::from_str(&text).unwrap();
    let object = model.as_object_mut().unwrap();
    object.remove("exceptions");
    object.remove("expect");
    let renamed = serde_json::to_string(&model)
        .unwrap()
        .replace("l2_1", "l2.1 it's")
        .replace("l1_2", "1 2");
    let dir = common::temp_dir("refine-save-locations");
    let path = dir.join("lock-locations.json");
    std::fs::write(&path, renamed).unwrap();
    assert_saved_set_proves(&path);
    let saved = common::temp_dir("refine-save").join("lock-locations.exceptions.json");
    let saved = std::fs::read_to_string(saved).unwrap();
    assert!(saved.contains("@'l2.1 it''s'"), "{saved}");
}

#[test]
fn shipped_buggy_models_are_refuted_with_traces_that_replay() {
    for name in [
        "bug-nonatomic-lock.json",
        "bug-peterson-swapped-turn.json",
        "bug-simple-no-acquire.json",
    ] {
        let path = common::models_dir().join(name);
        let prog = common::load(name);
        let r = check(&prog, Mode::Refine);
        assert_eq!(r.verdict(), Verdict::Unsafe, "{name}");
        for o in r.outcomes.iter().filter(|o| o.verdict == Verdict::Unsafe) {
            common::replay(&path, &o.property, &["--mode", "refine"]);
        }
    }
}

/// lock(n, m) with no exception set, which cartesian-exc cannot prove:
/// refine makes the lock's held store precise and proves it.
#[test]
fn the_lock_schema_is_proved_without_an_exception_set() {
    for (n, m) in [(3, 2), (20, 3)] {
        let mut model = crate::families::lock(n, m);
        model.as_object_mut().unwrap().remove("exceptions");
        let prog = common::load_value(&model);
        assert_eq!(check(&prog, Mode::CartesianExc).verdict(), Verdict::Unknown);
        let r = check(&prog, Mode::Refine);
        assert_eq!(r.verdict(), Verdict::Safe, "lock({n},{m}): {}", r.to_text());
        assert_eq!(
            r.stats.get("precise_globals").and_then(|v| v.as_u64()),
            Some(1)
        );
    }
}

/// The first pass takes the class path where cartesian-exc does, and
/// reads E back per thread: lock(n, 9)'s n products, in milliseconds where
/// the per-thread path met n components of n products at every post
/// (lock(2000, 9): 50 s).
#[test]
fn the_first_pass_takes_the_class_path() {
    for n in [3, 300] {
        let r = check(
            &common::load_value(&crate::families::lock(n, 9)),
            Mode::Refine,
        );
        assert_eq!(r.verdict(), Verdict::Safe, "{}", r.to_text());
        assert_eq!(r.stats.count("refinements"), Some(0));
        assert_eq!(r.stats.count("thread_classes"), Some(1), "{}", r.to_text());
        let e = r.exceptions.expect("the model's set");
        assert_eq!(e.len(), n as usize);
        // Each product: one thread in a critical section, the others not.
        for p in e.products() {
            let inside = p.threads.iter().filter(|c| c.len() == 9 * 2).count();
            assert_eq!(inside, 1, "{p:?}");
        }
    }
}

/// Step 1 of the loop uses the model's own exception set: lock(3, 2) with
/// its set is proved in one cartesian-exc pass, no store made precise; with
/// a set that is too weak, refine computes its own and still proves it.
#[test]
fn the_models_own_exception_set_is_tried_first() {
    let model = crate::families::lock(3, 2);
    let r = check(&common::load_value(&model), Mode::Refine);
    assert_eq!(r.verdict(), Verdict::Safe);
    assert_eq!(r.stats.count("refinements"), Some(0));
    assert_eq!(r.stats.get("precise_globals"), None);
    assert_eq!(
        r.stats.get("first_pass_s"),
        None,
        "the first pass is the run"
    );
    assert!(!r.exceptions.expect("the model's set").is_empty());
    let mut weak = model;
    weak["exceptions"][0]["when"] = serde_json::json!("false");
    let prog = common::load_value(&weak);
    assert_eq!(check(&prog, Mode::CartesianExc).verdict(), Verdict::Unknown);
    let r = check(&prog, Mode::Refine);
    assert_eq!(r.verdict(), Verdict::Safe, "{}", r.to_text());
    assert!(r.stats.count("refinements").is_some_and(|n| n >= 1));
    // The failed first pass is part of refine's time, and shown apart.
    let secs = |key| {
        r.stats
            .get(key)
            .and_then(|v: &serde_json::Value| v.as_f64())
    };
    let first = secs("first_pass_s").expect("the first pass's time");
    let parts = first + secs("fixpoint_s").unwrap_or(0.0) + secs("search_s").unwrap_or(0.0);
    // Each is rounded to the microsecond.
    let total = secs("time_s").unwrap_or(0.0) + 3e-6;
    assert!(first > 0.0 && total >= parts, "{:?}", r.stats);
}

/// Deciding the properties on a fixpoint reads the time budget, and stops
/// past it with why (simple-bool(2000): 3 s there, unread, which took a
/// run past the watchdog's grace and lost what it found).
#[test]
fn deciding_on_a_fixpoint_stops_at_the_time_budget() {
    use crate::engine::Budget;
    use crate::engine::cartesian::Cartesian;
    use crate::engine::exceptions::Product;
    use crate::engine::refine::hybrid::{Extent, Hybrid};
    use crate::engine::refine::{Alarm, decide};
    use crate::program::ranges::Ranges;
    use rustc_hash::FxHashSet;
    use std::time::{Duration, Instant};
    let prog = common::load_value(&crate::families::simple(4, true));
    let ranges = Ranges::infer(&prog);
    let (mut exp, universe) = Cartesian::explorer(&prog, &ranges).unwrap();
    let unbounded = Budget::new(&CheckOptions::default());
    let mut no_alarm = |_: &Explorer, _: u32, _: &Product| false;
    let mut round = |exp: &mut Explorer, precise: &FxHashSet<u32>| {
        Hybrid::round(
            None,
            exp,
            &universe,
            precise,
            &unbounded,
            &mut no_alarm,
            Extent::Complete,
        )
    };
    // Every store precise: D holds a product per thread state or so.
    let cartesian = round(&mut exp, &FxHashSet::default());
    let precise = cartesian.cart.keys().copied().collect();
    let h = round(&mut exp, &precise);
    assert!(h.precise_size() >= 16, "{}", h.precise_size());
    let deciders = engine::deciders(&prog, &[0], Mode::Refine).unwrap();
    let past = Budget::new(&CheckOptions {
        timeout: Some(Duration::from_secs(1)),
        started: Instant::now().checked_sub(Duration::from_secs(2)),
        ..CheckOptions::default()
    });
    match decide(&exp, &h, &deciders[0], &past) {
        Alarm::Stopped(why) => assert!(why.starts_with("time budget of 1 s exhausted"), "{why}"),
        _ => panic!("decided past the time budget"),
    }
    assert!(!matches!(
        decide(&exp, &h, &deciders[0], &unbounded),
        Alarm::Stopped(_)
    ));
}
