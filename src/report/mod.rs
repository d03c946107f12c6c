//! Renders what a run produced (`crate::engine::result`): text for people,
//! JSON Lines for scripts (one object per property, docs/output.md is the
//! contract). Engines never format output; this module never computes a
//! verdict. It also reads its own JSON back: `trace_file.rs` turns a saved
//! trace into a `Trace` for `weft replay`, its JSON read by
//! `trace_values.rs` within the budgets.

mod blocks;
pub(crate) mod compact;
mod coverage;
mod exceptions;
mod invariant_json;
mod json;
mod next;
mod replay;
mod simulate;
mod text;
mod trace_file;
mod trace_values;

pub use exceptions::{exception_entries, write_exception_entries};
pub use trace_file::SavedTrace;

use crate::engine::result::{RunReport, Store};

impl RunReport {
    /// The text report `weft check` prints: a line per property with its
    /// verdict and reason, the trace or witness, the invariant if asked for,
    /// and the statistics.
    pub fn to_text(&self) -> String {
        text::run(self)
    }

    /// One JSON object per property (JSON Lines), as `weft check --format
    /// json` prints them; the fields are documented in docs/output.md.
    pub fn to_json_lines(&self) -> String {
        let mut out = Vec::new();
        // Writing to memory fails only where serializing does: never for
        // these values (string keys, finite numbers).
        let _ = json::run(self, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// As [`RunReport::to_json_lines`], written to `out` line by line:
    /// an invariant shown on every line is held once, not once per line.
    pub fn write_json_lines(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        json::run(self, out)
    }
}

/// `x=1 y=0 turn=1`: a global store in one line.
fn show_global(store: &Store) -> String {
    store
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `loc` or `loc(k=1,j=0)`: a local store (pc first) in compact form.
fn show_local(store: &Store) -> String {
    let loc = match store.first() {
        Some((_, serde_json::Value::String(s))) => s.clone(),
        Some((_, v)) => v.to_string(),
        None => String::new(),
    };
    if store.len() <= 1 {
        return loc;
    }
    let vars: Vec<String> = store[1..].iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{loc}({})", vars.join(","))
}

pub(crate) use crate::engine::result::format_seconds;
