//! `standard`'s run: the search (again in the sorted representation if a
//! counter state left its domain), then the outcomes (verdicts, traces,
//! what to do next), the statistics, and the explorer's stores freed in
//! the background.

use super::super::budget::REBUILD_SLACK;
use super::super::por::Reducer;
use super::super::result::{Coverage, CoverageBasis, Limit, Outcome, RunReport, Stats, Suggestion};
use super::super::result::{format_mib, format_seconds};
use super::super::symmetry::Symmetry;
use super::super::{Budget, CheckOptions, MODEL_ERRORS, Mode, next, selected_properties};
#[cfg(test)]
use super::FORCE_FOR_TESTS;
use super::pass::Passing;
use super::{Found, Repr, Search};
use crate::engine::CheckError;
use crate::program::blocks::Boundaries;
use crate::program::{Explorer, Program};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// After a search of this many states, the interned stores are freed on
/// a thread of their own.
const BACKGROUND_FREE: usize = 100_000;

/// Hands the explorer's interned stores (two allocations per store, the
/// bulk of what a run of millions of global stores frees) to a thread that
/// frees them, so that the report is not held back by it: freeing them
/// took 0.4 s of a 5 s `--timeout` on BEEM's peg_solitaire.3. The binary
/// exits after printing without waiting for it.
fn free_in_background(states: usize, exp: &mut Explorer) {
    if states < BACKGROUND_FREE {
        return;
    }
    let globals = std::mem::take(&mut exp.globals);
    let locals = std::mem::take(&mut exp.locals);
    // If no thread can be started, they are freed here, with the explorer.
    let _ = std::thread::Builder::new()
        .name("weft-free".into())
        .spawn(move || drop((globals, locals)));
}

/// `blocks`: where steps end under `--blocks` (`lipton::for_options`).
pub(crate) fn run(
    prog: &Program,
    opts: &CheckOptions,
    blocks: Option<Arc<Boundaries>>,
) -> Result<RunReport, CheckError> {
    let start = Instant::now();
    let props = selected_properties(prog, &opts.properties);
    let sym = if opts.symmetry {
        Some(Symmetry::detect(prog)?)
    } else {
        None
    };
    // The counter representation where it pays (`counter.rs`); the
    // sorted ids when forced, or when a counter state left its domain.
    let repr = if opts.symmetry_sorted {
        Repr::Sorted
    } else {
        Repr::Auto
    };
    #[cfg(test)]
    let repr = FORCE_FOR_TESTS.with(|f| f.get()).unwrap_or(repr);
    let search = |repr| -> Result<(Search, Found, Budget), CheckError> {
        let mut s = Search::new(prog, sym.clone(), repr, &props, opts.jobs, opts.max_states)?;
        s.exp.set_blocks(blocks.clone());
        if opts.show_coverage {
            s.exp.track_taken();
        }
        s.max_depth = opts.max_depth;
        s.keep_going = opts.keep_going;
        if opts.por {
            s.reducer = Some(Reducer::new(prog, &props));
            // Depth counts stored states when states are passed through.
            if opts.max_depth.is_none() {
                s.passing = Some(Passing::new(&props));
            }
        }
        let budget = Budget::new(opts);
        s.exp.set_step_budget(Some(budget.for_steps()));
        let f = s.bfs(&props, &budget);
        // The traces are rebuilt within a budget of their own: a rebuild
        // that cannot finish drops its trace rather than lose the result.
        let rebuild = Budget::for_rebuilding(opts);
        s.exp.set_step_budget(Some(rebuild.for_steps()));
        s.rebuild = Some(rebuild);
        Ok((s, f, budget))
    };
    let (mut s, f, budget) = match search(repr)? {
        (s, _, _) if s.escaped.load(Ordering::Relaxed) => search(Repr::Sorted)?,
        done => done,
    };
    // The search has stopped: rebuilding the traces (a pass over the
    // visited set per eight levels) is assembling the result, which the
    // watchdog gives its finishing grace rather than cutting at --timeout.
    crate::phase::enter(crate::Phase::Finishing);
    // With --max-depth, the states found beyond the bound are not explored.
    let explored = f.cut.unwrap_or_else(|| s.visited.len());
    let states = crate::words::count(explored, "state");
    let reachable = crate::words::count(explored, "reachable state");
    let depth = f.depth;
    // What to do when a budget stopped the search.
    let next = || next::standard_budget(prog, opts, budget.hit());
    // What to do when --max-depth cut the search: search deeper, or prove
    // abstractly.
    let deeper = || next::stopped(Some(Limit::Depth(depth)), &[Suggestion::Mode(Mode::Refine)]);
    // How far a trace is from a shortest one, where a reduction made it.
    let trace_note = || {
        let mut note = String::new();
        if opts.por {
            note += " (--por: a real trace, not necessarily a shortest one)";
        }
        if opts.blocks {
            note += " (--blocks: a real trace, shortest in whole blocks)";
        }
        note
    };
    // The states passed through, where any was (`pass/`): checked, not
    // stored.
    let passed = match s.passing.as_ref().map_or(0, |p| p.count) {
        0 => String::new(),
        n => format!(
            " and {} through states with one reduced step, checked but not stored",
            crate::words::count(n as usize, "pass")
        ),
    };
    let mut outcomes: Vec<Outcome> = props
        .iter()
        .zip(&f.violations)
        .enumerate()
        .map(|(k, (&p, v))| {
            let property = prog.properties[p].name.clone();
            match (v, &f.budget_hit) {
                (Some(at), _) => {
                    let trace = s.trace(at);
                    let what = if prog.properties[p].only_in_deadlocks {
                        "a deadlock (no thread can move, and one rests at a location that is not final)"
                    } else {
                        "an error state"
                    };
                    let mut reason = match &trace {
                        Ok(trace) => format!(
                            "{what} is reachable in {}{}",
                            crate::words::count(trace.steps.len(), "step"),
                            trace_note()
                        ),
                        Err(_) => format!("{what} is reachable (found at depth {})", at.depth),
                    };
                    if opts.keep_going {
                        let among = match (&f.budget_hit, f.cut) {
                            (None, None) if opts.por => {
                                format!("the {states} of the reduced state space")
                            }
                            (None, None) if opts.blocks => {
                                format!("the {states} outside every block")
                            }
                            (None, None) => format!("all {reachable}"),
                            _ => format!("the {states} explored"),
                        };
                        let n = f.errors[k];
                        let states = if n == 1 { "state" } else { "states" };
                        reason += &format!("; {n} error {states} among {among}");
                    }
                    match trace {
                        Ok(trace) => Outcome::violated(property, reason, trace),
                        Err(limit) => untraced(property, reason, limit, opts),
                    }
                }
                (None, Some(why)) => Outcome::unknown(
                    property,
                    format!(
                        "{why}; no error among the {states} explored (to depth {depth})"
                    ),
                    next(),
                ),
                (None, None) if f.cut.is_some() => Outcome::unknown(
                    property,
                    format!("no error within depth {depth} ({states} explored)"),
                    deeper(),
                ),
                (None, None) if opts.por => Outcome::safe(
                    property,
                    format!(
                        "no error state among the {states} of the reduced state space{passed} (--por keeps an error state and a deadlock reachable wherever one is)"
                    ),
                ),
                (None, None) if opts.blocks => Outcome::safe(
                    property,
                    format!(
                        "no error state among the {reachable} where every thread is outside a block (--blocks keeps an error state reachable wherever one is)"
                    ),
                ),
                (None, None) => Outcome::safe(
                    property,
                    format!("no error state among all {reachable}"),
                ),
            }
        })
        .collect();
    outcomes.push(match f.model_error {
        Some((at, msg)) => match s.trace(&at).and_then(|mut trace| {
            if let Some(b) = blocks.as_deref() {
                // The error is inside a block from the state found: the
                // trace goes on into the block, to the failing transition.
                let mut st = Vec::new();
                s.visited.packer.unpack(&at.key, &mut st);
                into_failing_block(&s.exp, b, &st, &mut trace);
            }
            s.rebuild_hit().map_or(Ok(trace), Err)
        }) {
            Ok(mut trace) => {
                trace.failure = Some(msg.clone());
                Outcome::violated(
                    MODEL_ERRORS,
                    format!("a run-time error is reachable{}: {msg}", trace_note()),
                    trace,
                )
            }
            Err(limit) => {
                let found = format!("a run-time error is reachable (found at depth {}): {msg}", at.depth);
                untraced(MODEL_ERRORS.to_string(), found, limit, opts)
            }
        },
        None if f.budget_hit.is_some() => Outcome::unknown(
            MODEL_ERRORS,
            format!(
                "{}; no run-time error among the {states} explored (to depth {depth})",
                f.budget_hit.as_deref().unwrap_or_default()
            ),
            next(),
        ),
        None if f.cut.is_some() => Outcome::unknown(
            MODEL_ERRORS,
            format!("no run-time error within depth {depth} ({states} explored)"),
            deeper(),
        ),
        None if f.stopped_early => Outcome::unknown(
            MODEL_ERRORS,
            "not fully checked: the search stopped at the first property violations",
            next::model_errors_alone(props.iter().any(|&p| s.fallible[p])),
        ),
        None => {
            let mut why =
                "no run-time error (division by zero, index or range violation) is reachable"
                    .to_string();
            // Failures of a property's predicate count only where it is checked.
            if let Some(p) = (0..prog.properties.len())
                .find(|p| !props.contains(p) && s.fallible[*p])
                .map(|p| &prog.properties[p].name)
            {
                why.push_str(&format!(
                    " (the steps and the checked properties; `{p}`, not checked, may fail to evaluate)"
                ));
            }
            Outcome::safe(MODEL_ERRORS, why)
        }
    });
    let mut stats = Stats::default();
    stats.push("states", explored as u64);
    stats.push("transitions", f.transitions);
    if let Some(d) = f.deadlocks {
        stats.push("deadlocks", d);
    }
    stats.push("depth", depth as u64);
    if opts.por {
        stats.push("por_reduced_states", s.reduced_states);
        if let Some(p) = &s.passing {
            stats.push("por_passed_states", p.count);
        }
    }
    stats.push("jobs", s.pool.current_num_threads() as u64);
    stats.push("packed_state_bytes", s.visited.packed_bytes() as u64);
    stats.push(
        "bytes_per_state",
        (s.visited.bytes_per_state() * 10.0).round() / 10.0,
    );
    if let Some(sym) = &s.sym {
        // Which representation the reduced states were kept in.
        let repr = if s.ctr.is_some() {
            "counters"
        } else {
            "sorted"
        };
        stats.push("symmetry", repr);
        // The unreduced count, computed from the orbits (not enumerated),
        // of the states `states` counts: under a --max-depth cut, not the
        // level stored below it (its tag; past the tags' period the level
        // cannot be told from a shallower one, and no count is given).
        let cut_tag = match (f.cut, s.max_depth) {
            (Some(_), Some(d)) if d + 1 < s.visited.period() => {
                Some(Some(s.visited.tag_of_depth(d + 1)))
            }
            (Some(_), _) => None,
            (None, _) => Some(None),
        };
        let mut full = cut_tag.map(|_| 0u128);
        let mut st = Vec::new();
        s.visited.for_each(|_, key, tag| {
            // Past u128 the sum is not computed on (the multinomials cost
            // more than the search on lock(100, 3)).
            let Some(sum) = full else {
                return;
            };
            if cut_tag == Some(Some(tag)) {
                return;
            }
            s.visited.packer.unpack(key, &mut st);
            let orbit = match &s.ctr {
                Some(ctr) => ctr.orbit_size(&st),
                None => sym.orbit_size(&st),
            };
            full = orbit.and_then(|o| sum.checked_add(o));
        });
        if cut_tag.is_some() {
            stats.push(
                "full_states",
                match full {
                    Some(f) if f <= u64::MAX as u128 => Value::from(f as u64),
                    Some(f) => Value::from(f.to_string()),
                    None => Value::from("more than 2^128"),
                },
            );
        }
    }
    // Every reachable state's steps were fired, unless the search stopped
    // or was reduced.
    let whole = f.budget_hit.is_none() && f.cut.is_none() && !f.stopped_early;
    let basis = if whole && !opts.por && blocks.is_none() {
        CoverageBasis::Exhaustive
    } else {
        CoverageBasis::Partial
    };
    let coverage = s.exp.taken().map(|t| Coverage::of(prog, t, basis));
    stats.finish(start.elapsed());
    free_in_background(s.visited.len(), &mut s.exp);
    Ok(RunReport {
        coverage,
        blocks: None,
        model: prog.name.clone(),
        mode: crate::engine::Mode::Standard,
        outcomes,
        stats,
        invariant: None,
        exceptions: None,
    })
}

/// An error state the search found, whose trace ran out of the rebuild's
/// budget (`limit`, the run's own with `REBUILD_SLACK`): `unsafe` all the
/// same, and the reason says which budget to raise to see the trace.
fn untraced(property: String, found: String, limit: Limit, opts: &CheckOptions) -> Outcome {
    let (time, memory) = REBUILD_SLACK;
    let within = match limit {
        Limit::Time(_) => format!(
            "the time budget of {} s (and {} s more to assemble the result): raise `--timeout` to see it",
            format_seconds(opts.timeout.unwrap_or_default().as_secs_f64()),
            time.as_secs()
        ),
        _ => format!(
            "the memory budget of {} MiB (and {} MiB more to assemble the result): raise `--max-memory` to see it",
            format_mib(opts.memory_budget_bytes().unwrap_or_default()),
            format_mib(memory)
        ),
    };
    Outcome::violated_untraced(
        property,
        format!("{found}; its trace was not rebuilt within {within}"),
    )
}

/// Extends a model error's trace, which ends at the Out state `st` (global
/// id, then a local id per thread), with the steps of the first thread
/// whose block fails from there (`--blocks`).
fn into_failing_block(
    exp: &crate::program::Explorer,
    b: &crate::program::blocks::Boundaries,
    st: &[u32],
    trace: &mut crate::engine::result::Trace,
) {
    let prog = exp.prog;
    let gs = exp.globals.get(st[0]);
    for t in 0..prog.threads.len() {
        let ls = exp.local(t, st[1 + t]);
        if let Some(path) = crate::program::blocks::path_to_error(exp, b, t, gs, ls) {
            let tpl = prog.template_of(t);
            for inner in path {
                trace.steps.push(crate::engine::result::TraceStep {
                    thread: prog.threads[t].name.clone(),
                    transition: tpl.transitions[inner.trans as usize].label.clone(),
                    globals: prog.globals.render(&inner.g),
                    locals: tpl.render_local(&inner.l),
                    partner: None,
                });
            }
            return;
        }
    }
}
