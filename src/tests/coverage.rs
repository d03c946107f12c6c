//! `--show coverage` on generated models: run to the end, `standard` leaves
//! out exactly the transitions that no reachable state takes (computed here
//! from the reachable states, each transition fired on its own); the
//! abstract modes' fixpoints hold every reachable state, so they leave out
//! none that standard takes (a transition they never take is dead), refine
//! included (its last abstraction, in one more complete round).

use super::{common, differential};
use crate::engine::result::{Coverage, CoverageBasis};
use crate::engine::{self, CheckOptions, Mode, Refinement};
use crate::program::fire::fire_one;
use crate::program::{Ctx, Program, SyncOp, Transition, Val};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn coverage(prog: &Program, mode: Mode, opts: CheckOptions) -> Coverage {
    let opts = CheckOptions {
        show_coverage: true,
        ..opts
    };
    let r = engine::check(prog, mode, &opts).unwrap();
    r.coverage.expect("--show coverage gives a coverage")
}

/// `template: path` of each transition not taken.
fn not_taken(c: &Coverage) -> BTreeSet<String> {
    c.templates
        .iter()
        .flat_map(|t| {
            t.not_taken
                .iter()
                .map(move |u| format!("{}: {}", t.name, u.path))
        })
        .collect()
}

/// The labels of the transitions not taken, over every template.
fn labels_not_taken(c: &Coverage) -> Vec<&str> {
    c.templates
        .iter()
        .flat_map(|t| &t.not_taken)
        .map(|u| u.label.as_str())
        .collect()
}

/// The transitions that no reachable state takes: none of the reachable
/// states has the transition's thread at its source with the transition
/// giving a step or failing, or, for a rendezvous side, with its guard
/// true and another thread's matching side enabled too.
fn never_taken_in_reachable_states(prog: &Program) -> BTreeSet<String> {
    let reach = engine::standard::reachable(prog).unwrap();
    let threads_of = |ti: usize| -> Vec<usize> {
        (0..prog.threads.len())
            .filter(|&t| prog.threads[t].template as usize == ti)
            .collect()
    };
    // Thread `t` at `tr`'s source with its guard true (the generated
    // guards never fail to evaluate).
    let enabled = |t: usize, tr: &Transition, g: &[Val], l: &[Val]| {
        tr.from.contains(&(l[0] as u16))
            && tr
                .guard
                .as_ref()
                .is_none_or(|e| e.eval(&Ctx::thread(&prog.threads[t], g, l)).unwrap() != 0)
    };
    let channel = |tr: &Transition| match &tr.sync {
        Some(SyncOp::Send { channel, .. }) => Some((*channel, true)),
        Some(SyncOp::Recv { channel, .. }) => Some((*channel, false)),
        None => None,
    };
    let mut out = BTreeSet::new();
    for (ti, tpl) in prog.templates.iter().enumerate() {
        let threads = threads_of(ti);
        if threads.is_empty() {
            continue;
        }
        for tr in &tpl.transitions {
            let taken = reach.iter().any(|(g, ls)| {
                threads.iter().any(|&t| match channel(tr) {
                    None => {
                        tr.from.contains(&(ls[t][0] as u16))
                            && fire_one(prog, t, tr.index, g, &ls[t])
                                .map_or(true, |r| !r.is_empty())
                    }
                    Some((c, sends)) => {
                        enabled(t, tr, g, &ls[t])
                            && (0..prog.threads.len()).filter(|&u| u != t).any(|u| {
                                prog.template_of(u).transitions.iter().any(|other| {
                                    channel(other) == Some((c, !sends))
                                        && enabled(u, other, g, &ls[u])
                                })
                            })
                    }
                })
            });
            if !taken {
                out.insert(format!("{}: {}", tpl.name, tr.path));
            }
        }
    }
    out
}

fn refine_control() -> CheckOptions {
    CheckOptions {
        refinement: Refinement::Control,
        ..CheckOptions::default()
    }
}

fn to_the_end() -> CheckOptions {
    CheckOptions {
        keep_going: true,
        ..CheckOptions::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn standard_leaves_out_exactly_the_transitions_no_reachable_state_takes(m in differential::model()) {
        let prog = common::load_value(&m);
        let c = coverage(&prog, Mode::Standard, to_the_end());
        prop_assert_eq!(c.basis, CoverageBasis::Exhaustive);
        prop_assert_eq!(not_taken(&c), never_taken_in_reachable_states(&prog));
    }

    #[test]
    fn the_abstract_modes_take_every_transition_standard_takes(m in differential::model()) {
        let prog = common::load_value(&m);
        let exact = coverage(&prog, Mode::Standard, to_the_end());
        prop_assert_eq!(exact.basis, CoverageBasis::Exhaustive);
        let exact = not_taken(&exact);
        let mut modes = vec![
            (Mode::ThreadModular, CheckOptions::default()),
            (Mode::CartesianExc, CheckOptions::default()),
            (Mode::Refine, CheckOptions::default()),
        ];
        // (Control refinement refuses channels.)
        if prog.channels.is_empty() {
            modes.push((Mode::Refine, refine_control()));
        }
        for (mode, opts) in modes {
            let strategy = opts.refinement;
            let c = coverage(&prog, mode, opts);
            prop_assert_eq!(c.basis, CoverageBasis::OverApproximation);
            let dead = not_taken(&c);
            let missing: Vec<_> = dead.difference(&exact).collect();
            prop_assert!(missing.is_empty(), "{:?} ({:?}) never takes {:?}, which standard takes", mode, strategy, missing);
        }
    }
}

/// A transition whose guard no reachable state satisfies is left out by
/// every mode, one that fails where it is taken is not; a reduced or
/// stopped search says its coverage is partial.
#[test]
fn a_dead_transition_is_left_out_and_partial_runs_say_so() {
    let m = serde_json::json!({
        "name": "dead",
        "globals": {
            "lck": {"type": "int", "min": 0, "max": 7, "init": 0},
            "z": {"type": "int", "min": 0, "max": 1, "init": 0}
        },
        "threads": [{
            "name": "p", "count": 2, "start": "idle",
            "transitions": [
                {"from": "idle", "to": "cs", "when": "lck == 0", "do": "lck := 1", "label": "acquire"},
                {"from": "cs", "to": "idle", "do": "lck := 0", "label": "release"},
                {"from": "idle", "to": "cs", "when": "lck == 7", "label": "dead"},
                {"from": "cs", "to": "idle", "do": "z := z + 2", "label": "fails"}
            ]
        }],
        "properties": [{"name": "mutex", "error": "count(p: @cs) >= 2"}]
    });
    let prog = common::load_value(&m);
    let over = CoverageBasis::OverApproximation;
    for (mode, basis, opts) in [
        (Mode::Standard, CoverageBasis::Exhaustive, to_the_end()),
        (Mode::ThreadModular, over, CheckOptions::default()),
        (Mode::CartesianExc, over, CheckOptions::default()),
        (Mode::Refine, over, CheckOptions::default()),
        (Mode::Refine, over, refine_control()),
    ] {
        let c = coverage(&prog, mode, opts);
        assert_eq!(c.basis, basis, "{mode:?}");
        let labels = labels_not_taken(&c);
        // A transition that fails where it is taken (a model error) was
        // taken.
        assert_eq!(labels, ["dead"], "{mode:?}");
    }
    // Reduced, or stopped by a budget.
    let partial = [
        (
            Mode::Standard,
            CheckOptions {
                por: true,
                ..to_the_end()
            },
        ),
        (
            Mode::Standard,
            CheckOptions {
                max_states: Some(2),
                ..to_the_end()
            },
        ),
        (
            Mode::ThreadModular,
            CheckOptions {
                max_states: Some(2),
                ..CheckOptions::default()
            },
        ),
    ];
    for (mode, opts) in partial {
        assert_eq!(
            coverage(&prog, mode, opts).basis,
            CoverageBasis::Partial,
            "{mode:?}"
        );
    }
    // Stopped at the first violation of every property (SPIN's default),
    // or searched to the end (`--continue`).
    let bug = common::load("bug-token-ring-5.json");
    let first = coverage(&bug, Mode::Standard, CheckOptions::default());
    assert_eq!(first.basis, CoverageBasis::Partial);
    assert_eq!(
        coverage(&bug, Mode::Standard, to_the_end()).basis,
        CoverageBasis::Exhaustive
    );
    // refine, stopped by its budget: the final round is cut too.
    for strategy in [CheckOptions::default(), refine_control()] {
        let stopped = CheckOptions {
            max_states: Some(2),
            ..strategy
        };
        let c = coverage(&prog, Mode::Refine, stopped);
        assert_eq!(c.basis, CoverageBasis::Partial);
    }
}

/// A cooperative step fires several transitions (`compute_macro`), a
/// `--blocks` step a whole block (`compute_block`): each is taken. In
/// pc-sfifo-1 (ESST's producer and consumer, safe) every transition but
/// the consumer's `out of order` (to its error location) is taken; in the
/// lock schema every one is, with --blocks too.
#[test]
fn the_transitions_inside_a_step_of_several_are_taken() {
    let fifo = common::load("pc-sfifo-1.json");
    let exact = coverage(&fifo, Mode::Standard, CheckOptions::default());
    assert_eq!(labels_not_taken(&exact), ["out of order"]);
    // The over-approximation takes it too (its alarm), or leaves it out.
    let abstract_ = coverage(&fifo, Mode::ThreadModular, CheckOptions::default());
    assert!(
        labels_not_taken(&abstract_)
            .iter()
            .all(|l| *l == "out of order")
    );
    let lock = common::load("lock.json");
    for mode in [Mode::Standard, Mode::ThreadModular] {
        let blocks = CheckOptions {
            blocks: true,
            ..CheckOptions::default()
        };
        let c = coverage(&lock, mode, blocks);
        assert_eq!(c.basis, CoverageBasis::Partial, "{mode:?}");
        assert_eq!(c.not_taken(), 0, "{mode:?}: {c:?}");
    }
}

/// A rendezvous side that fails before its pair is fired (its sent value
/// divides by zero) is taken: its model error is reachable. Under
/// DiVinE's rule (`--divine-errors`) a receive whose guard fails makes
/// every pair on its channel fail into the error state: all three are
/// taken.
#[test]
fn a_rendezvous_side_that_fails_is_taken() {
    let m = serde_json::json!({
        "name": "sync-fail",
        "globals": {"d": {"type": "int", "min": 0, "max": 1, "init": 0}},
        "channels": ["c"],
        "threads": [
            {"name": "s", "start": "a", "transitions": [
                {"from": "a", "to": "b", "sync": "c!1 / d", "label": "send"}
            ]},
            {"name": "r", "start": "a", "locals": {"v": {"type": "int", "min": 0, "max": 5, "init": 0}}, "transitions": [
                {"from": "a", "to": "b", "sync": "c?v", "label": "recv"}
            ]}
        ],
        "properties": [{"name": "p", "error": "false"}]
    });
    let prog = common::load_value(&m);
    for mode in [Mode::Standard, Mode::ThreadModular, Mode::CartesianExc] {
        let c = coverage(&prog, mode, CheckOptions::default());
        let labels = labels_not_taken(&c);
        // The receive meets no partner that offers.
        assert_eq!(labels, ["recv"], "{mode:?}");
    }
    let dve = "byte a[2]; byte d = 0; channel c;
        process S { state s0, s1; init s0; trans s0 -> s1 { sync c!1; }; }
        process R1 { byte v; state r0, r1; init r0; trans r0 -> r1 { sync c?v; }; }
        process R2 { byte v; state r0, r1; init r0; trans r0 -> r1 { guard a[d+5] == 0; sync c?v; }; }
        system async;";
    let path = common::temp_dir("coverage").join("div.dve");
    std::fs::write(&path, dve).unwrap();
    let opts = crate::LoadOptions {
        error: Some("false".into()),
        divine_errors: true,
        ..crate::LoadOptions::default()
    };
    let model = crate::Model::load_with(&path, &opts).unwrap_or_else(|d| panic!("{}", d.render()));
    let show = CheckOptions {
        show_coverage: true,
        ..CheckOptions::default()
    };
    let c = model
        .check(Mode::Standard, &show)
        .unwrap()
        .coverage
        .unwrap();
    assert_eq!(c.basis, CoverageBasis::Exhaustive);
    assert_eq!(c.not_taken(), 0, "{c:?}");
}
