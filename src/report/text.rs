//! The text report of `weft check`: a line per property, traces as one line
//! per step, witnesses with their derivations, the invariant grouped the
//! way the papers print it, and the statistics.

use super::{compact, show_global, show_local};
use crate::engine::Verdict;
use crate::engine::result::{
    Invariant, InvariantForm, Outcome, RunReport, Stats, Store, Trace, Witness,
};
use crate::program::{Layout, Val};
use serde_json::Value;

/// The widest a trace step's `thread "transition"` column is padded to.
const MAX_STEP_WIDTH: usize = 120;

pub(super) fn run(r: &RunReport) -> String {
    let mut out = format!("weft: model {}, mode {}\n", r.model, r.mode.name());
    if let Some(b) = &r.blocks {
        out.push_str(&super::blocks::blocks(b));
    }
    for o in &r.outcomes {
        out.push_str(&outcome(o));
        if let Some(w) = &o.witness {
            out.push_str(&witness(w));
        }
        if let Some(n) = &o.next_step {
            out.push_str(&format!("    next: {n}\n"));
        }
    }
    if let Some(inv) = &r.invariant {
        out.push_str(&invariant(inv));
    }
    if let Some(c) = &r.coverage {
        out.push_str(&super::coverage::coverage(c));
    }
    out.push_str(&stats(&r.stats));
    out
}

/// A property's line, `  mutex: UNSAFE — reason`, and its trace if any.
pub(super) fn outcome(o: &Outcome) -> String {
    let v = match o.verdict {
        Verdict::Safe => "safe",
        Verdict::Unsafe => "UNSAFE",
        Verdict::Unknown => "unknown",
    };
    let mut out = format!("  {}: {v} — {}\n", o.property, o.reason);
    if let Some(t) = &o.trace {
        out.push_str(&trace(t));
    }
    out
}

/// The `  stats: …` line.
pub(super) fn stats(stats: &Stats) -> String {
    let stats: Vec<String> = stats
        .entries
        .iter()
        .map(|(k, v)| match (*k, v.as_u64()) {
            ("peak_memory_bytes", Some(b)) => {
                format!("peak memory {:.1} MiB", b as f64 / 1048576.0)
            }
            ("time_s", _) => format!("time {} s", seconds(v)),
            (k, _) if k.ends_with("_s") && v.is_f64() => {
                format!(
                    "{} {} s",
                    k.trim_end_matches("_s").replace('_', " "),
                    seconds(v)
                )
            }
            // A string statistic (a count past 2^64, a note) unquoted.
            _ => format!("{} {}", k.replace('_', " "), plain(v)),
        })
        .collect();
    format!("  stats: {}\n", stats.join(", "))
}

/// Seconds in plain decimals to the microsecond (JSON's own rendering
/// writes `9e-6`), without trailing zeros.
fn seconds(v: &serde_json::Value) -> String {
    match v.as_f64() {
        Some(x) => {
            let s = format!("{x:.6}");
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        }
        None => plain(v),
    }
}

fn witness(w: &Witness) -> String {
    let mut out = format!(
        "    abstract error state: {}  | {}\n",
        w.globals
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
        w.threads
            .iter()
            .map(|t| format!("{}:{}", t.thread, show_local(&t.local)))
            .collect::<Vec<_>>()
            .join(" ")
    );
    for t in &w.threads {
        if !t.derivation.is_empty() {
            let lines: Vec<String> = t
                .derivation
                .iter()
                .map(super::json::derivation_line)
                .collect();
            out.push_str(&format!(
                "    how {} gets there: {}\n",
                t.thread,
                lines.join(" ; ")
            ));
        }
    }
    out
}

/// One line per step, the initial state first.
pub(super) fn trace(t: &Trace) -> String {
    let show = |vars: &Store| {
        vars.iter()
            .map(|(k, v)| format!("{k}={}", plain(v)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = String::new();
    let locals: Vec<String> = t
        .initial_locals
        .iter()
        .map(|(n, v)| format!("{n}:{}", show(v).trim_start_matches("pc=")))
        .collect();
    let width = t
        .steps
        .iter()
        .map(|s| s.thread.len() + s.transition.len() + 3)
        .max()
        .unwrap_or(0)
        // Past a line's width, aligning is no help (and Rust's formatter
        // refuses a width over 65,535: a long label panicked here).
        .clamp(13, MAX_STEP_WIDTH);
    out.push_str(&format!(
        "    0  {:<width$} {}  | {}\n",
        "initial state",
        show(&t.initial_globals),
        locals.join(" ")
    ));
    for (i, s) in t.steps.iter().enumerate() {
        let head = format!("{} {}", s.thread, quote(&s.transition));
        let mut movers = format!(
            "{}: {}",
            s.thread,
            show(&s.locals).trim_start_matches("pc=")
        );
        if let Some(p) = &s.partner {
            movers.push_str(&format!(
                ", with {} {}: {}",
                p.thread,
                quote(&p.transition),
                show(&p.locals).trim_start_matches("pc=")
            ));
        }
        out.push_str(&format!(
            "    {:<2} {:<width$} {}  | {movers}\n",
            i + 1,
            head,
            show(&s.globals)
        ));
    }
    if let Some(f) = &t.failure {
        out.push_str(&format!("       then: {f}\n"));
    }
    out
}

fn quote(s: &str) -> String {
    format!("\"{s}\"")
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn invariant(inv: &Invariant) -> String {
    match &inv.form {
        InvariantForm::ThreadModular(threads) => {
            let mut text = String::from(
                "  invariant (per thread: R as local stores and the global stores they occur with; then G as the writes it allows and the global stores they leave from):\n",
            );
            if inv.blocks {
                text.push_str("  (--blocks: R at the Out locations only, G the effect of whole blocks, from Out location to Out location; `--show blocks` lists them)\n");
            }
            for t in threads {
                // R is ordered by global store: collect each store's local
                // stores, then group the stores seen with the same locals.
                let mut by_global: Vec<(&Store, Vec<&Store>)> = Vec::new();
                for f in &t.reach {
                    match by_global.last_mut() {
                        Some((g, ls)) if *g == &f.global => ls.push(&f.local),
                        _ => by_global.push((&f.global, vec![&f.local])),
                    }
                }
                let mut groups: Vec<(Vec<&Store>, Vec<Vec<Val>>)> = Vec::new();
                for (g, ls) in by_global {
                    let raw = raw_store(&inv.globals, g);
                    match groups.iter_mut().find(|(k, _)| *k == ls) {
                        Some((_, stores)) => stores.push(raw),
                        None => groups.push((ls, vec![raw])),
                    }
                }
                text.push_str(&format!("    {}: R\n", t.thread));
                for (ls, stores) in &groups {
                    let shown: Vec<String> = ls.iter().map(|l| show_local(l)).collect();
                    text.push_str(&format!(
                        "      {{{}}}  with  {}\n",
                        shown.join(", "),
                        compact::describe(&inv.globals, stores)
                    ));
                }
                text.push_str(&format!("    {}: G\n", t.thread));
                let edges: Vec<(Vec<Val>, Vec<Val>)> = t
                    .guarantee
                    .iter()
                    .map(|e| {
                        (
                            raw_store(&inv.globals, &e.from),
                            raw_store(&inv.globals, &e.to),
                        )
                    })
                    .collect();
                for line in compact::describe_edges(&inv.globals, &edges) {
                    text.push_str(&format!("      {line}\n"));
                }
            }
            text
        }
        InvariantForm::Cartesian {
            products,
            exceptions,
        } => {
            let mut text = String::from(
                "  invariant (Cartesian part per global store, then the exception set E):\n",
            );
            for p in products {
                text.push_str(&format!("    {}\n", product(p)));
            }
            for p in exceptions {
                text.push_str(&format!("    E: {}\n", product(p)));
            }
            text
        }
        InvariantForm::CartesianClasses {
            classes,
            products,
            exceptions,
        } => {
            let mut text = String::from(
                "  invariant (Cartesian part per global store, then the exception set E; one component per class of interchangeable threads, `name×k {…}` for k threads of the class taking that set, E one product per orbit):\n",
            );
            for c in classes {
                let (first, last) = (c.threads.first(), c.threads.last());
                if let (Some(first), Some(last), true) = (first, last, c.threads.len() > 1) {
                    text.push_str(&format!(
                        "    class {}: {} threads, {first} … {last}\n",
                        c.name,
                        c.threads.len()
                    ));
                }
            }
            let names: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
            for p in products {
                text.push_str(&format!("    {}\n", class_product(&names, p)));
            }
            for p in exceptions {
                text.push_str(&format!("    E: {}\n", class_product(&names, p)));
            }
            text
        }
        InvariantForm::Control {
            classes,
            data_locations,
            products,
        } => {
            let mut text = String::from(
                "  invariant (the classes of locations each thread sees the others up to, then one product per global store and vector of classes):\n",
            );
            for (template, cs) in classes {
                let cs: Vec<String> = cs.iter().map(|c| format!("{{{}}}", c.join(","))).collect();
                text.push_str(&format!("    classes of {template}: {}\n", cs.join(" ")));
            }
            if !data_locations.is_empty() {
                text.push_str(&format!(
                    "    local stores seen at: {}\n",
                    data_locations.join(", ")
                ));
            }
            for p in products {
                text.push_str(&format!("    {}\n", product(p)));
            }
            text
        }
        InvariantForm::NotShown(reason) => format!("  invariant not shown: {reason}\n"),
    }
}

/// One product: `[globals] {locals} × {locals} …`.
fn product(p: &crate::engine::result::AbstractProduct) -> String {
    format!(
        "[{}] {}",
        show_global(&p.global),
        p.threads
            .iter()
            .map(|c| format!(
                "{{{}}}",
                c.iter().map(show_local).collect::<Vec<_>>().join(",")
            ))
            .collect::<Vec<_>>()
            .join(" × ")
    )
}

/// One product over classes: `[globals] p×1 {locals} × p×2 {locals} …`.
fn class_product(names: &[&str], p: &crate::engine::result::ClassProduct) -> String {
    let groups: Vec<String> = p
        .classes
        .iter()
        .zip(names)
        .flat_map(|(groups, name)| {
            groups.iter().map(move |(k, ls)| {
                format!(
                    "{name}×{k} {{{}}}",
                    ls.iter().map(show_local).collect::<Vec<_>>().join(",")
                )
            })
        })
        .collect();
    format!("[{}] {}", show_global(&p.global), groups.join(" × "))
}

/// A rendered store back as slot values, in the layout's slot order
/// (booleans as 0/1, arrays cell by cell), for `compact`.
fn raw_store(layout: &Layout, store: &Store) -> Vec<Val> {
    let mut out = Vec::with_capacity(layout.slots as usize);
    let mut push = |v: &Value| {
        out.push(match v {
            Value::Bool(b) => Val::from(*b),
            other => other.as_i64().unwrap_or(0) as Val,
        })
    };
    for (_, v) in store {
        match v {
            Value::Array(cells) => cells.iter().for_each(&mut push),
            other => push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::stats;
    use crate::engine::result::Stats;

    #[test]
    fn the_stats_line_writes_seconds_as_decimals() {
        // JSON writes 9e-6 with an exponent; a reader of the text should
        // not have to.
        let mut s = Stats::default();
        s.push("search_s", 9e-6);
        s.push("time_s", 0.25);
        s.push("states", 3u64);
        assert_eq!(
            stats(&s),
            "  stats: search 0.000009 s, time 0.25 s, states 3\n"
        );
    }
}
