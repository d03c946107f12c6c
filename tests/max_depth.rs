//! `weft check --max-depth N` through the real binary: below the depth of
//! the shortest error the answer is `unknown` (never `safe`), at or above
//! it `unsafe`; a model whose whole state space lies within the bound is
//! `safe`; other modes refuse the option.

mod cli;

use cli::{Run, weft};
use serde_json::Value;

fn check(model: &str, extra: &[&str]) -> Run {
    let mut args = vec!["check", model, "--format", "json"];
    args.extend(extra);
    weft(&args)
}

fn line(r: &Run, property: &str) -> Value {
    r.stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l["property"] == property)
        .unwrap()
}

/// The ticket lock's race needs six steps (both threads read, then each
/// writes and enters: the model's description), and no fewer: entering
/// takes a read, a write and the enter per thread.
#[test]
fn below_the_error_depth_is_unknown_and_at_it_unsafe() {
    let model = "models/bug-ticket-lock.json";
    let full = check(model, &[]);
    let all_states = line(&full, "mutex")["stats"]["states"].as_u64().unwrap();
    for depth in ["0", "3", "5"] {
        let r = check(model, &["--max-depth", depth]);
        assert_eq!(r.code, Some(3), "{}{}", r.stdout, r.stderr);
        let l = line(&r, "mutex");
        assert_eq!(l["verdict"], "unknown");
        let explored = l["stats"]["states"].as_u64().unwrap();
        assert!(explored < all_states, "{l}");
        assert_eq!(
            l["reason"],
            format!(
                "no error within depth {depth} ({explored} {} explored)",
                if explored == 1 { "state" } else { "states" }
            )
        );
        assert_eq!(line(&r, "model-errors")["verdict"], "unknown");
    }
    for depth in ["6", "7", "100"] {
        let r = check(model, &["--max-depth", depth]);
        assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
        let l = line(&r, "mutex");
        assert_eq!(l["verdict"], "unsafe");
        assert_eq!(l["trace"].as_array().unwrap().len(), 6);
    }
}

/// Peterson's algorithm has 20 reachable states, so every one is within
/// 19 steps of the initial state: a bound of 19 or more decides it.
#[test]
fn a_model_within_the_bound_is_decided_safe() {
    for depth in ["19", "1000"] {
        let r = check("models/peterson.json", &["--max-depth", depth]);
        assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
        assert_eq!(line(&r, "mutex")["verdict"], "safe");
        assert_eq!(line(&r, "mutex")["stats"]["states"], 20);
    }
    let r = check("models/peterson.json", &["--max-depth", "1"]);
    assert_eq!(r.code, Some(3), "{}", r.stdout);
    assert_eq!(line(&r, "mutex")["verdict"], "unknown");
}

#[test]
fn other_modes_refuse_max_depth() {
    for mode in ["thread-modular", "cartesian-exc", "refine"] {
        let r = check(
            "models/peterson.json",
            &["--mode", mode, "--max-depth", "5"],
        );
        assert_eq!(r.code, Some(2), "{mode}: {}", r.stdout);
        assert!(r.stdout.is_empty());
        assert!(
            r.stderr
                .contains("--max-depth applies to mode standard only"),
            "{}",
            r.stderr
        );
    }
}
