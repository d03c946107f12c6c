//! `--continue` (`CheckOptions::keep_going`): the search goes on after
//! every property is violated. Against an oracle (every reachable state,
//! each property's predicate evaluated on it): the count of error states
//! per property; and against the run without it: the same verdicts and
//! trace lengths, with `model-errors` now decided.

use super::common;
use super::differential;
use crate::engine::{self, CheckOptions, Mode, Verdict};
use crate::program::Explorer;
use proptest::prelude::*;

/// The number in "…; N error states among …".
fn counted(reason: &str) -> Option<u64> {
    let (_, rest) = reason.split_once("; ")?;
    rest.split_whitespace().next()?.parse().ok()
}

fn check_against_oracle(prog: &crate::program::Program, jobs: usize) -> Result<(), TestCaseError> {
    let go = CheckOptions {
        keep_going: true,
        jobs: Some(jobs),
        ..CheckOptions::default()
    };
    let with = engine::check(prog, Mode::Standard, &go).unwrap();
    let without = engine::check(prog, Mode::Standard, &CheckOptions::default()).unwrap();
    let mut exp = Explorer::new(prog);
    let reach = engine::standard::reachable(prog).unwrap();
    for (o, plain) in with.outcomes.iter().zip(&without.outcomes) {
        prop_assert_eq!(&o.property, &plain.property);
        if o.property == engine::MODEL_ERRORS {
            // Every state was checked: never "stopped at the first violations".
            prop_assert_ne!(o.verdict, Verdict::Unknown, "{}", o.reason);
            if plain.verdict != Verdict::Unknown {
                prop_assert_eq!(o.verdict, plain.verdict);
            }
            continue;
        }
        prop_assert_eq!(o.verdict, plain.verdict);
        prop_assert_eq!(
            o.trace.as_ref().map(|t| t.steps.len()),
            plain.trace.as_ref().map(|t| t.steps.len())
        );
        if o.verdict == Verdict::Unsafe {
            let p = prog
                .properties
                .iter()
                .find(|p| p.name == o.property)
                .unwrap();
            let mut oracle = 0;
            for (g, ls) in &reach {
                let g = exp.globals.intern(g);
                let ls: Vec<u32> = ls
                    .iter()
                    .enumerate()
                    .map(|(t, l)| exp.intern_local(t, l))
                    .collect();
                if crate::property::holds(&p.error, &exp, g, &ls).unwrap_or(false) {
                    oracle += 1;
                }
            }
            prop_assert_eq!(counted(&o.reason), Some(oracle), "{}", o.reason);
        }
    }
    Ok(())
}

#[test]
fn the_ticket_lock_race_has_its_error_states_counted() {
    check_against_oracle(&common::load("bug-ticket-lock.json"), 2).unwrap();
    // Refused outside standard.
    let go = CheckOptions {
        keep_going: true,
        ..CheckOptions::default()
    };
    let prog = common::load("bug-ticket-lock.json");
    assert!(engine::check(&prog, Mode::CartesianExc, &go).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn every_error_state_is_counted(m in differential::model(), jobs in 1usize..=2) {
        check_against_oracle(&common::load_value(&m), jobs)?;
    }
}
