//! cartesian-exc's derivations: every element of the fixpoint has a chain
//! of links from an initial state (or a state of E), each a real step of
//! the thread or a real step of the thread the link names, between
//! elements of the fixpoint. Checked link by link against the explorer's
//! successor function, on every element, not only witnesses.

use super::common;
use crate::engine::cartesian::origin::Link;
use crate::engine::cartesian::{Cartesian, Exceptions};
use crate::engine::{CheckOptions, Mode, Verdict, check};
use crate::program::Program;

/// Is (g, l) in thread t's component of some product of E at g?
fn in_e(c: &Cartesian, t: usize, g: u32, l: u32) -> bool {
    c.exceptions
        .by_global
        .get(&g)
        .is_some_and(|ps| ps.iter().any(|p| p[t].contains(l)))
}

/// Thread u's local stores at g in X or E.
fn at(c: &Cartesian, u: usize, g: u32) -> Vec<u32> {
    let mut ls: Vec<u32> =
        c.x.get(&g)
            .map(|p| p[u].iter().collect())
            .unwrap_or_default();
    if let Some(ps) = c.exceptions.by_global.get(&g) {
        ls.extend(ps.iter().flat_map(|p| p[u].iter()));
    }
    ls
}

/// Checks the chain of every element of the fixpoint; returns how many
/// links of each kind it saw (init, E, step, env).
fn check_all_chains(c: &mut Cartesian) -> [usize; 4] {
    let prog = c.exp.prog;
    let mut seen = [0; 4];
    let init_g: Vec<u32> = prog
        .init_globals
        .iter()
        .map(|g| c.exp.globals.intern(g))
        .collect();
    let mut elements: Vec<(u32, usize, u32)> =
        c.x.iter()
            .flat_map(|(g, p)| {
                p.iter()
                    .enumerate()
                    .flat_map(move |(t, comp)| comp.iter().map(move |l| (*g, t, l)))
            })
            .collect();
    elements.sort_unstable();
    for (g, t, l) in elements {
        let chain = c.chain(t, g, l);
        let what = format!("{}: ({g}, {t}, {l}): {chain:?}", prog.name);
        assert_eq!(chain.last().map(|c| (c.1, c.2)), Some((g, l)), "{what}");
        let (first, g0, l0) = chain[0];
        match first {
            Link::Init => {
                seen[0] += 1;
                let init_l: Vec<u32> = prog
                    .template_of(t)
                    .init
                    .iter()
                    .map(|s| c.exp.intern_local(t, s))
                    .collect();
                assert!(init_g.contains(&g0) && init_l.contains(&l0), "{what}");
            }
            Link::Exception => {
                seen[1] += 1;
                assert!(in_e(c, t, g0, l0), "{what}");
            }
            _ => panic!("a chain starts at an initial state or in E: {what}"),
        }
        for w in chain.windows(2) {
            let ((_, pg, pl), (link, g2, l2)) = (w[0], w[1]);
            // Every link but the first is an element of X.
            assert!(c.x[&g2][t].contains(l2), "{what}");
            match link {
                Link::Step {
                    l: from,
                    trans,
                    partner: None,
                } => {
                    seen[2] += 1;
                    assert_eq!(from, pl, "{what}");
                    let succs = c.exp.successors(t, pg, pl);
                    assert!(
                        succs
                            .steps
                            .iter()
                            .any(|s| (s.g, s.l, s.trans) == (g2, l2, trans)),
                        "not a step of thread {t}: {what}"
                    );
                }
                Link::Step {
                    l: from,
                    partner: Some(u),
                    ..
                } => {
                    seen[2] += 1;
                    assert_eq!(from, pl, "{what}");
                    assert_ne!(u as usize, t, "{what}");
                }
                Link::Env { by, with } => {
                    seen[3] += 1;
                    assert_eq!(pl, l2, "an env step keeps the local store: {what}");
                    assert_ne!(by as usize, t, "{what}");
                    if with.is_none() {
                        let by = by as usize;
                        let moves = at(c, by, pg)
                            .into_iter()
                            .any(|lb| c.exp.successors(by, pg, lb).steps.iter().any(|s| s.g == g2));
                        assert!(moves, "thread {by} cannot move {pg} -> {g2}: {what}");
                    }
                }
                Link::Init | Link::Exception => panic!("only a chain's start: {what}"),
            }
        }
    }
    seen
}

fn fixpoint<'p>(prog: &'p Program) -> Cartesian<'p> {
    Cartesian::compute(prog, Exceptions::Model, &CheckOptions::default()).unwrap()
}

#[test]
fn every_element_of_the_shipped_models_fixpoints_has_a_real_derivation() {
    let mut totals = [0; 4];
    for entry in std::fs::read_dir(common::models_dir()).unwrap() {
        let path = entry.unwrap().path();
        let Ok(model) = crate::model::load_file(&path, &[]) else {
            continue;
        };
        let prog = model.into_program();
        // With the model's exception set, and without it.
        for prog in [prog.clone(), common::without_exceptions(prog)] {
            let Ok(mut c) = Cartesian::compute(&prog, Exceptions::Model, &CheckOptions::default())
            else {
                continue;
            };
            for (k, n) in check_all_chains(&mut c).into_iter().enumerate() {
                totals[k] += n;
            }
        }
    }
    // Every kind of link occurs: initial, E, own steps, env steps.
    assert!(totals.iter().all(|&n| n > 0), "{totals:?}");
}

#[test]
fn rendezvous_links_name_both_threads() {
    // gear.1: the clutch and the controller move together.
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/beem/dve/gear.1.dve");
    let text = std::fs::read_to_string(&path).unwrap();
    let model = crate::Model::from_dve(&text, "gear.1.dve", Some("Clutch@error_open")).unwrap();
    let prog = model.program();
    let mut c = fixpoint(prog);
    check_all_chains(&mut c);
    let pairs = c.x.iter().any(|(g, p)| {
        (0..p.len()).any(|t| {
            p[t].iter().any(|l| {
                c.chain(t, *g, l).iter().any(|(link, ..)| {
                    matches!(
                        link,
                        Link::Step {
                            partner: Some(_),
                            ..
                        } | Link::Env { with: Some(_), .. }
                    )
                })
            })
        })
    });
    assert!(pairs);
}

#[test]
fn the_witness_of_peterson_with_too_small_an_exception_set_starts_in_e() {
    // Only (110, B, D) of the paper's E: the alarm stays, and P2's part of
    // the error state is derived from that state of E.
    let mut prog = common::load("peterson.json");
    prog.exceptions.truncate(1);
    let r = check(&prog, Mode::CartesianExc, &CheckOptions::default()).unwrap();
    assert_eq!(r.outcomes[0].verdict, Verdict::Unknown);
    let w = r.outcomes[0].witness.as_ref().unwrap();
    let p2 = &w.threads[1].derivation;
    assert_eq!(p2[0].by, crate::Derived::Exception, "{p2:?}");
    assert_eq!(p2.last().unwrap().local, w.threads[1].local);
    assert!(w.threads.iter().all(|t| !t.derivation.is_empty()));
}
