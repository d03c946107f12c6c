//! Which transitions a run took (`--show coverage`), as data: SPIN's
//! "unreached in proctype" after an exhaustive search, TLC's coverage.
//! What a transition left out means depends on the run (`CoverageBasis`).

use crate::program::Program;
use crate::program::location_ref;
use crate::program::taken::Taken;

/// The transitions a run took, per thread template.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Coverage {
    /// What a transition not taken means in this run.
    pub basis: CoverageBasis,
    /// One entry per template, in the model's order.
    pub templates: Vec<TemplateCoverage>,
}

/// What the run's coverage says of a transition it did not take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CoverageBasis {
    /// `standard` searched every reachable state: a transition not taken
    /// is taken (or fails) in no reachable state.
    Exhaustive,
    /// An abstract mode's complete fixpoint (refine's: one more round with
    /// its final abstraction), which holds every reachable state and more:
    /// a transition not taken is dead; one taken may still be dead.
    OverApproximation,
    /// The run stopped early or reduced its search (a budget, an error
    /// that ended it, `--max-depth`, `--por`, `--blocks`): a transition
    /// not taken may still be taken.
    Partial,
}

/// One template's transitions.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TemplateCoverage {
    /// The template's name.
    pub name: String,
    /// How many transitions it has.
    pub transitions: usize,
    /// How many of them the run took.
    pub taken: usize,
    /// Those it did not take, in the template's order.
    pub not_taken: Vec<UntakenTransition>,
}

/// A transition the run did not take.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct UntakenTransition {
    /// Its label (`from->to` by default).
    pub label: String,
    /// Its source locations, as an expression names them (`@'l.2'` for
    /// `l.2`).
    pub from: Vec<String>,
    /// Its target location, named the same way.
    pub to: String,
    /// Where it is in the model (`threads[0].transitions[2]`).
    pub path: String,
}

impl Coverage {
    /// The coverage of `taken` over `prog`'s templates.
    pub(crate) fn of(prog: &Program, taken: &Taken, basis: CoverageBasis) -> Coverage {
        let templates = prog
            .templates
            .iter()
            .enumerate()
            .filter(|(t, _)| prog.threads.iter().any(|th| th.template as usize == *t))
            .map(|(t, tpl)| {
                let name = |l: u16| location_ref(&tpl.locations[l as usize]).into_owned();
                let not_taken: Vec<UntakenTransition> = tpl
                    .transitions
                    .iter()
                    .filter(|tr| !taken.is_taken(t, tr.index))
                    .map(|tr| UntakenTransition {
                        label: tr.label.clone(),
                        from: tr.from.iter().map(|&l| name(l)).collect(),
                        to: name(tr.to),
                        path: tr.path.clone(),
                    })
                    .collect();
                TemplateCoverage {
                    name: tpl.name.clone(),
                    transitions: tpl.transitions.len(),
                    taken: tpl.transitions.len() - not_taken.len(),
                    not_taken,
                }
            })
            .collect();
        Coverage { basis, templates }
    }

    /// Transitions not taken, over every template.
    pub fn not_taken(&self) -> usize {
        self.templates.iter().map(|t| t.not_taken.len()).sum()
    }
}
