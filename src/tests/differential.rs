//! Soundness and precision, differentially, on generated small models:
//!
//! * every state `standard` reaches has all its thread projections in the
//!   thread-modular R, and every error it finds is an alarm there;
//! * cartesian-exc with E = ∅ computes exactly the thread-modular R;
//! * cartesian-exc with E = the reachable set computes exactly that set;
//! * cartesian-exc with a random E contains every reachable state.
//!
//! About half the generated models have channels: some transitions are
//! rendezvous (sends with and without values, one of which can put a value
//! out of the receiver's range, and receives into locals and globals).

use super::common;

use crate::engine::cartesian::{Cartesian, Exceptions};
use crate::engine::thread_modular::ThreadModular;
use crate::engine::{self, CheckOptions};
use crate::engine::{Mode, Verdict};
use crate::program::{Program, Val};
use proptest::prelude::*;
use serde_json::{Value, json};

const GUARDS: &[&str] = &[
    "true",
    "g0 == 0",
    "g0 != 1",
    "g1 < 2",
    "g0 == g1",
    "k == 0",
    "k == 1 || g1 == 2",
    "g0 + g1 >= 2",
];
const UPDATES: &[&str] = &[
    "g0 := 1",
    "g0 := g1",
    "g1 := (g0 + 1) % 3",
    "k := 1 - k",
    "g0 := any",
    "g1 := 0",
    "g0 := 2; g1 := g0",
];
const ERRORS: &[&str] = &[
    "count(*: @L1) >= 2",
    "g0 == 2 && exists(*: @L2)",
    "forall(*: @L0) && g1 == 1",
    // Locals are visible in a count over one template only.
    "count(SCOPE: @L1 && k == 1) == 1 && g0 == 1",
    "exists(*: @L2) && exists(*: @L1)",
];

/// Rendezvous on the channels c0 and c1. `c0!g1` can send 2 into the
/// local k (0..1): a run-time model error when it meets `c0?k`. `c1!`
/// sends no value: `c1?g0` then leaves g0 as it was. The sends of `tid`
/// differ between instances of one template (the abstract modes once
/// gave every instance the first one's offer).
const SYNCS: &[&str] = &[
    "c0!",
    "c0!k",
    "c0!g1",
    "c1!",
    "c1!1 - k",
    "c0?",
    "c0?k",
    "c0?k",
    "c1?g0",
    "c1!tid % 3",
    "c0!tid % 2",
];

/// A transition; with `channels`, one in four is a rendezvous.
pub(super) fn transition(channels: bool) -> impl Strategy<Value = Value> {
    let sync = if channels {
        proptest::option::weighted(0.25, 0..SYNCS.len()).boxed()
    } else {
        Just(None).boxed()
    };
    (0..3usize, 0..3usize, 0..GUARDS.len(), proptest::collection::vec(0..UPDATES.len(), 0..3), sync).prop_map(|(f, t, g, us, sync)| {
        let updates: Vec<&str> = us.iter().map(|&u| UPDATES[u]).collect();
        let mut tr = json!({"from": format!("L{f}"), "to": format!("L{t}"), "when": GUARDS[g], "do": updates.join("; ")});
        if let Some(k) = sync {
            tr["sync"] = json!(SYNCS[k]);
        }
        tr
    })
}

/// An unguarded rendezvous, two times in three from L0 (else L1), where
/// threads meet often.
fn meeting() -> impl Strategy<Value = Value> {
    (0..3usize, 0..3usize, 0..SYNCS.len(), proptest::option::of(0..UPDATES.len())).prop_map(|(f, t, k, u)| {
        json!({"from": format!("L{}", f / 2), "to": format!("L{t}"), "sync": SYNCS[k], "do": u.map_or("", |u| UPDATES[u])})
    })
}

pub(super) fn template(name: String, count: usize, channels: bool) -> impl Strategy<Value = Value> {
    let meetings = proptest::collection::vec(meeting(), if channels { 1..4 } else { 0..1 });
    (proptest::collection::vec(transition(channels), 1..6), meetings).prop_map(move |(ts, ms)| {
        let ts: Vec<Value> = ts.into_iter().chain(ms).collect();
        json!({
            "name": name, "count": count, "start": "L0",
            "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": 0}},
            // Every template has L0..L2, so `@L2` is always defined.
            "transitions": ts.into_iter().chain([json!({"from": "L2", "to": "L1", "when": "false"})]).collect::<Vec<_>>()
        })
    })
}

/// Small models: 2-4 threads (one replicated template, or one template per
/// thread), two globals over 0..2, random guards and updates, and in about
/// half of them rendezvous on two channels.
pub(super) fn model() -> impl Strategy<Value = Value> {
    model_where(any::<bool>())
}

/// As `model`, never with channels (for `--refine control`, which refuses
/// them).
pub(super) fn model_without_channels() -> impl Strategy<Value = Value> {
    model_where(Just(false))
}

fn model_where(channels: impl Strategy<Value = bool>) -> impl Strategy<Value = Value> {
    (2..=4usize, any::<bool>(), 0..3i64, 0..3i64, 0..ERRORS.len(), channels).prop_flat_map(|(n, replicated, i0, i1, e, channels)| {
        let templates: BoxedStrategy<Vec<Value>> = if replicated {
            template("p".into(), n, channels).prop_map(|t| vec![t]).boxed()
        } else {
            (0..n).map(|i| template(format!("t{i}"), 1, channels)).collect::<Vec<_>>().boxed()
        };
        templates.prop_map(move |threads| {
            json!({
                "name": "generated",
                "channels": if channels { json!(["c0", "c1"]) } else { json!([]) },
                "globals": {"g0": {"type": "int", "min": 0, "max": 2, "init": i0}, "g1": {"type": "int", "min": 0, "max": 2, "init": i1}},
                "threads": threads,
                "properties": [{"name": "bad", "error": if replicated { ERRORS[e].replace("SCOPE", "p") } else { ERRORS[e].replace("SCOPE", "*").replace(" && k == 1", "") }}]
            })
        })
    })
}

/// Every state of the full product space (small models only).
pub(super) fn all_states(prog: &Program) -> Vec<(Vec<Val>, Vec<Vec<Val>>)> {
    let mut out = Vec::new();
    let n = prog.threads.len();
    let locals: Vec<Vec<Vec<Val>>> = (0..n)
        .map(|t| {
            let locs = prog.template_of(t).locations.len() as Val;
            (0..locs)
                .flat_map(|pc| (0..2).map(move |k| vec![pc, k]))
                .collect()
        })
        .collect();
    for g0 in 0..3 {
        for g1 in 0..3 {
            let mut combos: Vec<Vec<Vec<Val>>> = vec![vec![]];
            for ls in &locals {
                combos = combos
                    .into_iter()
                    .flat_map(|c| {
                        ls.iter()
                            .map(move |l| [c.clone(), vec![l.clone()]].concat())
                    })
                    .collect();
            }
            out.extend(combos.into_iter().map(|c| (vec![g0, g1], c)));
        }
    }
    out
}

fn verdict(prog: &Program, mode: Mode) -> Verdict {
    let r = engine::check(prog, mode, &CheckOptions::default()).unwrap();
    r.outcomes[0].verdict
}

/// E = the reachable set of a model whose maximized antichain at g = (1, 0)
/// is too large to build (CI found it): the fixpoint must stay exact there,
/// by exact cover checks instead of Prop. 8.
#[test]
fn exact_with_an_exception_set_too_large_to_maximize() {
    let step = |from: &str, to: &str, when: &str, act: &str| json!({"from": from, "to": to, "when": when, "do": act});
    let m = json!({
        "name": "generated",
        "globals": {"g0": {"type": "int", "min": 0, "max": 2, "init": 0}, "g1": {"type": "int", "min": 0, "max": 2, "init": 0}},
        "threads": [{"name": "p", "count": 4, "start": "L0",
            "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": 0}},
            "transitions": [step("L1", "L2", "g1 < 2", ""), step("L0", "L0", "true", ""), step("L0", "L1", "true", ""),
                step("L1", "L1", "true", "g0 := 1; k := 1 - k"), step("L2", "L1", "false", "")]}],
        "properties": [{"name": "bad", "error": "count(*: @L1) >= 2"}]
    });
    let prog = common::load_value(&m);
    let reach = engine::standard::reachable(&prog).unwrap();
    let c =
        Cartesian::compute(&prog, Exceptions::States(&reach), &CheckOptions::default()).unwrap();
    assert!(
        !c.exceptions.unmaximized.is_empty(),
        "the case needs an unmaximized exception set"
    );
    assert_exact(&prog, &c, &reach);
}

/// γ_cart(X) ∪ E is exactly `reach` over the whole product space.
fn assert_exact(prog: &Program, c: &Cartesian, reach: &[(Vec<Val>, Vec<Vec<Val>>)]) {
    let reach_set: std::collections::HashSet<_> = reach.iter().cloned().collect();
    for (g, ls) in all_states(prog) {
        let inside = c.contains_values(&g, &ls);
        assert_eq!(
            inside,
            reach_set.contains(&(g.clone(), ls.clone())),
            "state {g:?} {ls:?}"
        );
    }
}

// No locals: `"*"` and one/others span templates, where locals are not visible.
const EXC_PREDICATES: &[&str] = &[
    "@L0",
    "@L1",
    "@L1 && g1 == 0",
    "@L2 || g0 == 1",
    "!@L1",
    "true",
];
/// Some narrow the stores an entry is instantiated at (a conjunction of
/// comparisons of a global with a constant, `exceptions/admitted.rs`), some
/// do not (a disjunction).
const EXC_WHENS: &[Option<&str>] = &[
    None,
    Some("g0 == 0"),
    Some("g1 != 2"),
    Some("g0 == 1 && 0 == g1"),
    Some("2 > g1 && g0 != 0 && g0 <= 1"),
    Some("1 < g0 || g1 >= 2"),
];

/// Exception entries drawn from a small pool, so that predicates repeat
/// across entries and threads: `(when, threads-"*" or one/others)`.
fn exception_entries() -> impl Strategy<Value = Vec<(usize, usize, Option<usize>)>> {
    proptest::collection::vec(
        (
            0..EXC_WHENS.len(),
            0..EXC_PREDICATES.len(),
            proptest::option::of(0..EXC_PREDICATES.len()),
        ),
        1..6,
    )
}

/// The entries as JSON; with `disguise`, every predicate occurrence is
/// made textually unique (`(P) && g0 <= 2 + i`, true for every g0 in 0..2)
/// so that no two can share an evaluation.
fn entries_json(entries: &[(usize, usize, Option<usize>)], disguise: bool) -> Value {
    let mut uses = 0;
    let mut pred = |i: usize| {
        uses += 1;
        if disguise {
            format!("({}) && g0 <= {}", EXC_PREDICATES[i], 2 + uses)
        } else {
            EXC_PREDICATES[i].to_string()
        }
    };
    let list: Vec<Value> = entries
        .iter()
        .map(|&(w, a, b)| {
            let mut e = match b {
                None => json!({"threads": {"*": pred(a)}}),
                Some(b) => json!({"one": pred(a), "others": pred(b)}),
            };
            if let Some(w) = EXC_WHENS[w] {
                e["when"] = json!(w);
            }
            e
        })
        .collect();
    Value::Array(list)
}

/// EXC_PREDICATES[i] at globals (g0, g1) for a thread at `pc`.
fn exc_predicate(i: usize, g: &[Val], pc: &str) -> bool {
    match EXC_PREDICATES[i] {
        "@L0" => pc == "L0",
        "@L1" => pc == "L1",
        "@L1 && g1 == 0" => pc == "L1" && g[1] == 0,
        "@L2 || g0 == 1" => pc == "L2" || g[0] == 1,
        "!@L1" => pc != "L1",
        "true" => true,
        other => unreachable!("{other}"),
    }
}

/// Is the state in the union of the entries (spec: `threads` with `"*"`
/// is one product; one/others is the family of n products)?
fn in_entries(entries: &[(usize, usize, Option<usize>)], g: &[Val], pcs: &[String]) -> bool {
    entries.iter().any(|&(w, a, b)| {
        let when = match EXC_WHENS[w] {
            None => true,
            Some("g0 == 0") => g[0] == 0,
            Some("g1 != 2") => g[1] != 2,
            Some("g0 == 1 && 0 == g1") => g[0] == 1 && g[1] == 0,
            Some("2 > g1 && g0 != 0 && g0 <= 1") => g[1] < 2 && g[0] != 0 && g[0] <= 1,
            Some("1 < g0 || g1 >= 2") => g[0] > 1 || g[1] >= 2,
            Some(other) => unreachable!("{other}"),
        };
        when && match b {
            None => pcs.iter().all(|pc| exc_predicate(a, g, pc)),
            Some(b) => (0..pcs.len()).any(|i| {
                exc_predicate(a, g, &pcs[i])
                    && pcs
                        .iter()
                        .enumerate()
                        .all(|(j, pc)| j == i || exc_predicate(b, g, pc))
            }),
        }
    })
}

const RANGE_GUARDS: &[&str] = &[
    "x < 3",
    "y <= x",
    "x > y",
    "y >= 2",
    "x == 4",
    "x < y && y < 6",
    "x != 1",
    "!(x < 2)",
    "x < 2 || y > 5",
    "k == 1",
    "x + y < 5",
];
const RANGE_UPDATES: &[&str] = &[
    "x := x + 1",
    "y := x",
    "x := (x + 3) % 8",
    "y := y * 2 % 8",
    "x := y - 1",
    "k := 1 - k",
    "y := x / 2 + 1",
    "x := 7 - y",
    "k := x % 2",
    "y := (x & 3) | 1",
];

/// Rendezvous between the two instances in `range_model`: the receiver's
/// guard may narrow a global that the sender's effects then change.
const RANGE_SYNCS: &[&str] = &["c!", "c!x % 2", "c!y", "c?", "c?k", "c?y"];

/// Two globals x, y in 0..7 and a local k, moved by comparisons and
/// arithmetic that the range inference has to bound; some steps are
/// rendezvous on a channel c.
pub(super) fn range_model() -> impl Strategy<Value = Value> {
    let step = (
        0..3usize,
        0..3usize,
        0..RANGE_GUARDS.len(),
        proptest::collection::vec(0..RANGE_UPDATES.len(), 1..3),
        proptest::option::weighted(0.3, 0..RANGE_SYNCS.len()),
    );
    (proptest::collection::vec(step, 1..7), 0..4i64).prop_map(|(steps, x0)| {
        let ts: Vec<Value> = steps
            .into_iter()
            .map(|(f, t, g, us, sync)| {
                let updates: Vec<&str> = us.iter().map(|&u| RANGE_UPDATES[u]).collect();
                let mut tr = json!({"from": format!("L{f}"), "to": format!("L{t}"), "when": RANGE_GUARDS[g], "do": updates.join("; ")});
                if let Some(k) = sync {
                    tr["sync"] = json!(RANGE_SYNCS[k]);
                }
                tr
            })
            .chain([json!({"from": "L2", "to": "L1", "when": "false"})])
            .collect();
        json!({
            "name": "ranges",
            "channels": ["c"],
            "globals": {"x": {"type": "int", "min": 0, "max": 7, "init": x0}, "y": {"type": "int", "min": 0, "max": 7, "init": 0}},
            "threads": [{"name": "p", "count": 2, "start": "L0",
                "locals": {"k": {"type": "int", "min": 0, "max": 1, "init": 0}}, "transitions": ts}],
            "properties": [{"name": "bad", "error": "x == 7 && y == 7"}]
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Range inference over comparisons and arithmetic: every reachable
    /// state is inside, and cartesian-exc (whose universe the ranges build)
    /// still over-approximates standard.
    #[test]
    fn inferred_ranges_bound_guarded_arithmetic(m in range_model()) {
        let prog = common::load_value(&m);
        let outside = common::reachable_outside_ranges(&prog);
        prop_assert!(outside.is_none(), "{}", outside.unwrap_or_default());
        let c = Cartesian::compute(&prog, Exceptions::Empty, &CheckOptions::default()).unwrap();
        prop_assert!(c.stopped.is_none(), "{:?}", c.stopped);
        let tm = ThreadModular::compute(&prog);
        for t in 0..prog.threads.len() {
            prop_assert_eq!(c.thread_states(t), tm.reach_values(t), "thread {}", t);
        }
    }

    /// Instantiating entries evaluates each distinct predicate once per
    /// global store; E must not depend on that sharing.
    #[test]
    fn exception_entries_give_the_same_set_with_shared_or_distinct_predicates(m in model(), entries in exception_entries()) {
        let with = |disguise: bool| {
            let mut model = m.clone();
            model["exceptions"] = entries_json(&entries, disguise);
            common::load_value(&model)
        };
        let (shared, distinct) = (with(false), with(true));
        let ranges = crate::program::ranges::Ranges::infer(&shared);
        let a = Cartesian::compute(&shared, Exceptions::Model, &CheckOptions::default()).unwrap();
        let b = Cartesian::compute(&distinct, Exceptions::Model, &CheckOptions::default()).unwrap();
        for (g, ls) in all_states(&shared) {
            let (x, y) = (a.exceptions_contain_values(&g, &ls), b.exceptions_contain_values(&g, &ls));
            prop_assert_eq!(x, y, "state {:?} {:?}", g, ls);
            // And both are the entries' meaning, evaluated here directly.
            let pcs: Vec<String> = ls
                .iter()
                .enumerate()
                .map(|(t, l)| shared.template_of(t).locations[l[0] as usize].clone())
                .collect();
            // E is instantiated inside the inferred ranges only.
            let inside = ranges.contain(&g, &ls, &shared);
            prop_assert_eq!(x, inside && in_entries(&entries, &g, &pcs), "state {:?} {:?}", g, pcs);
        }
    }

    #[test]
    fn thread_modular_over_approximates_standard(m in model()) {
        let prog = common::load_value(&m);
        let reach = engine::standard::reachable(&prog).unwrap();
        let tm = ThreadModular::compute(&prog);
        for t in 0..prog.threads.len() {
            let r = tm.reach_values(t);
            for (g, ls) in &reach {
                prop_assert!(r.contains(&(g.clone(), ls[t].clone())), "state {g:?} {ls:?} missing from R of thread {t}");
            }
        }
        // Per property (model-errors included): an abstract mode never
        // says unsafe, and never safe where standard says unsafe.
        let exact = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        for mode in [Mode::ThreadModular, Mode::CartesianExc] {
            let r = engine::check(&prog, mode, &CheckOptions::default()).unwrap();
            for (e, a) in exact.outcomes.iter().zip(&r.outcomes) {
                prop_assert_eq!(&e.property, &a.property);
                prop_assert!(a.verdict != Verdict::Unsafe, "{:?} says unsafe", mode);
                if e.verdict == Verdict::Unsafe {
                    prop_assert_eq!(a.verdict, Verdict::Unknown, "{:?} {}: {}", mode, a.property, a.reason);
                }
            }
        }
    }

    /// Every value a reachable state holds lies in the inferred ranges
    /// (the abstract modes' states are checked by cartesian-exc itself,
    /// which stops with an internal error on a step outside them).
    #[test]
    fn inferred_ranges_contain_every_reachable_value(m in model()) {
        let prog = common::load_value(&m);
        let outside = common::reachable_outside_ranges(&prog);
        prop_assert!(outside.is_none(), "{}", outside.unwrap_or_default());
    }

    #[test]
    fn cartesian_without_exceptions_equals_thread_modular(m in model()) {
        let prog = common::load_value(&m);
        let tm = ThreadModular::compute(&prog);
        let c = Cartesian::compute(&prog, Exceptions::Empty, &CheckOptions::default()).unwrap();
        for t in 0..prog.threads.len() {
            prop_assert_eq!(c.thread_states(t), tm.reach_values(t), "thread {}", t);
        }
        // And the two decide the property alike.
        let no_exc = common::without_exceptions(prog.clone());
        prop_assert_eq!(verdict(&no_exc, Mode::CartesianExc), verdict(&prog, Mode::ThreadModular));
    }

    #[test]
    fn cartesian_with_the_reachable_set_as_exceptions_is_exact(m in model()) {
        let prog = common::load_value(&m);
        let reach = engine::standard::reachable(&prog).unwrap();
        let c = Cartesian::compute(&prog, Exceptions::States(&reach), &CheckOptions::default()).unwrap();
        assert_exact(&prog, &c, &reach);
    }

    #[test]
    fn cartesian_with_random_exceptions_contains_every_reachable_state(m in model(), picks in proptest::collection::vec((any::<prop::sample::Index>(), any::<bool>()), 0..12)) {
        let prog = common::load_value(&m);
        let reach = engine::standard::reachable(&prog).unwrap();
        let everything = all_states(&prog);
        // E: some reachable states and some arbitrary (often unreachable) ones.
        let e: Vec<_> = picks.iter().map(|(i, from_reach)| if *from_reach { i.get(&reach).clone() } else { i.get(&everything).clone() }).collect();
        let c = Cartesian::compute(&prog, Exceptions::States(&e), &CheckOptions::default()).unwrap();
        for (g, ls) in &reach {
            prop_assert!(c.contains_values(g, ls), "reachable state {:?} {:?} missing", g, ls);
        }
    }
}

/// The generator's channel models exercise rendezvous: in many of them a
/// rendezvous fires from a reachable state, and some of those fail at
/// run time or reach the property's error only through one.
#[test]
fn generated_models_exercise_rendezvous() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut with_channels, mut firing, mut failing, mut unsafe_by_sync) = (0, 0, 0, 0);
    for _ in 0..300 {
        let m = model().new_tree(&mut runner).unwrap().current();
        let prog = common::load_value(&m);
        if prog.channels.is_empty() {
            continue;
        }
        with_channels += 1;
        let mut exp = crate::program::Explorer::new(&prog);
        let reach = engine::standard::reachable(&prog).unwrap();
        let (mut fires, mut fails) = (false, false);
        for (g, ls) in &reach {
            let g = exp.globals.intern(g);
            let ls: Vec<u32> = ls
                .iter()
                .enumerate()
                .map(|(t, l)| exp.intern_local(t, l))
                .collect();
            let (steps, error) = exp.sync_steps(g, &ls);
            fires |= !steps.is_empty();
            fails |= error.is_some();
        }
        firing += fires as u32;
        failing += fails as u32;
        let r = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        unsafe_by_sync += r.outcomes.iter().any(|o| {
            o.trace
                .as_ref()
                .is_some_and(|t| t.steps.iter().any(|s| s.partner.is_some()))
        }) as u32;
    }
    eprintln!(
        "channels {with_channels}, firing {firing}, failing {failing}, unsafe through a rendezvous {unsafe_by_sync}"
    );
    assert!(
        with_channels >= 100 && firing * 3 >= with_channels,
        "{with_channels} {firing}"
    );
    assert!(
        failing >= 5 && unsafe_by_sync >= 10,
        "{failing} {unsafe_by_sync}"
    );
}
