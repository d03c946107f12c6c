//! `--show blocks`: the reducible blocks `--blocks` inferred, per thread
//! template, as Popeea, Rybalchenko and Wilhelm print them (§V, Examples
//! 3–5): the Out locations, the locks held and the phases at each
//! location, and the mover class of each transition (`rm`, `lm`, `bm`,
//! `nm`) with why a non-mover is one.

use crate::engine::result::{BlockReport, TemplateBlockReport};

pub(super) fn blocks(b: &BlockReport) -> String {
    let mut out = String::from(
        "  blocks (a block is R* [N] L*: right movers, at most one non-mover, left movers; only Out locations are states):\n",
    );
    for t in &b.templates {
        out.push_str(&template(t));
    }
    out
}

fn template(t: &TemplateBlockReport) -> String {
    let names = |inside: bool| {
        t.locations
            .iter()
            .filter(|l| l.inside == inside && !l.phases.is_empty())
            .map(|l| l.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = format!(
        "    {}: Out {{{}}}, In {{{}}}\n",
        t.name,
        names(false),
        names(true)
    );
    for (class, label) in [("rm", "rm"), ("lm", "lm"), ("nm", "nm"), ("bm", "bm")] {
        let members: Vec<String> = t
            .transitions
            .iter()
            .filter(|tr| tr.mover == class)
            .map(|tr| format!("({}, {})", tr.from.join("|"), tr.to))
            .collect();
        out.push_str(&format!("      {label} = {{{}}}\n", members.join(", ")));
    }
    for l in &t.locations {
        if l.phases.is_empty() {
            continue; // unreachable
        }
        let place = if l.inside { "In" } else { "Out" };
        let why = l
            .why_out
            .as_ref()
            .map(|w| format!(" ({w})"))
            .unwrap_or_default();
        out.push_str(&format!(
            "      {}: {place}{why}, holds {{{}}}, phase {}\n",
            l.name,
            l.held.join(", "),
            l.phases.join("+")
        ));
    }
    for tr in t.transitions.iter().filter(|tr| tr.why.is_some()) {
        out.push_str(&format!(
            "      `{}` is {}: {}\n",
            tr.label,
            tr.mover,
            tr.why.as_deref().unwrap_or_default()
        ));
    }
    out
}
