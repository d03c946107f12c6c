//! `--max-depth` against the unbounded search, on generated models: a
//! property whose shortest error is within the bound is `unsafe` with a
//! trace of the same length; one whose error lies beyond is `unknown`; a
//! model whose whole state space lies within the bound gets the unbounded
//! verdicts; `safe` never comes from a cut search.

use super::common;
use super::differential::model;
use crate::engine::{self, CheckOptions, Mode, Verdict};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_depth_bound_agrees_with_the_full_search(m in model(), bound in 0..8usize) {
        let prog = common::load_value(&m);
        let full = engine::check(&prog, Mode::Standard, &CheckOptions::default()).unwrap();
        let opts = CheckOptions { max_depth: Some(bound), ..CheckOptions::default() };
        let cut = engine::check(&prog, Mode::Standard, &opts).unwrap();
        let depth = full.stats.count("depth").unwrap() as usize;
        let p = &prog.properties[0].name;
        let (f, c) = (full.outcome(p).unwrap(), cut.outcome(p).unwrap());
        match f.trace.as_ref().map(|t| t.steps.len()) {
            Some(len) if len <= bound => {
                prop_assert_eq!(c.verdict, Verdict::Unsafe);
                prop_assert_eq!(c.trace.as_ref().map(|t| t.steps.len()), Some(len));
            }
            Some(_) => prop_assert_eq!(c.verdict, Verdict::Unknown, "{}", c.reason),
            None if f.verdict == Verdict::Safe && depth <= bound => {
                prop_assert_eq!(c.verdict, Verdict::Safe, "{}", c.reason);
                prop_assert_eq!(cut.stats.states(), full.stats.states());
            }
            None => {
                prop_assert_ne!(c.verdict, Verdict::Unsafe);
                if depth > bound {
                    prop_assert_eq!(c.verdict, Verdict::Unknown, "{}", c.reason);
                    prop_assert!(cut.stats.states() < full.stats.states());
                }
            }
        }
    }
}
