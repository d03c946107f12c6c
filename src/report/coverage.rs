//! `--show coverage`: which transitions the run took, per template, and
//! the ones it never took, with what that means for this run (SPIN's
//! "unreached in proctype", TLC's coverage).

use crate::engine::result::{Coverage, CoverageBasis};
use crate::words::count;

pub(super) fn coverage(c: &Coverage) -> String {
    let total: usize = c.templates.iter().map(|t| t.transitions).sum();
    let taken: usize = c.templates.iter().map(|t| t.taken).sum();
    let listed = taken < total;
    let meaning = match (c.basis, listed) {
        (CoverageBasis::Exhaustive, false) => "every reachable state searched",
        (CoverageBasis::Exhaustive, true) => {
            "every reachable state searched: those listed are taken in no reachable state"
        }
        (CoverageBasis::OverApproximation, false) => {
            "in an over-approximation of the reachable states"
        }
        (CoverageBasis::OverApproximation, true) => {
            "in an over-approximation of the reachable states: those listed are dead; one taken may be dead too"
        }
        (CoverageBasis::Partial, false) => "the search stopped early or was reduced",
        (CoverageBasis::Partial, true) => {
            "the search stopped early or was reduced: those listed may still be taken; standard with --continue, without --por or --blocks, gives the exact answer"
        }
    };
    let mut out = format!(
        "  coverage: {taken} of {} taken ({meaning})\n",
        count(total, "transition")
    );
    for t in &c.templates {
        for u in &t.not_taken {
            out.push_str(&format!(
                "    {}: `{}` {} -> {} ({}) never taken\n",
                t.name,
                u.label,
                u.from.join("|"),
                u.to,
                u.path
            ));
        }
    }
    out
}
