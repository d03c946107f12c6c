//! Lipton reduction with reducible blocks (Popeea, Rybalchenko and Wilhelm,
//! "Reduction for compositional verification of multi-threaded programs",
//! §V: inference of reducible blocks; §IV, Fig. 2, RULESAFETY: how the
//! engines use them).
//!
//! The inference, per thread template:
//! 1. the locks held at each location, the thread alone (§V-A, HC1:
//!    `program/locks.rs`);
//! 2. a mover class per transition (§V-A, Example 4: `movers.rs`): an
//!    acquire is a right mover, a release a left mover, a transition that
//!    races with another thread's (a common global, one of them writing,
//!    no lock held by both) a non-mover, any other a both-mover, unless
//!    the race commutes on every pair of thread states where both can be
//!    taken (`commute.rs`: the semantic check over a thread-modular
//!    pre-pass); and, beyond the paper, a transition that can change what
//!    a checked property reads is a non-mover (its visibility);
//! 3. the phases (§V-B, HC2) and the In and Out locations (`phases.rs`):
//!    a block is R* [N] L*, a location is In when it is inside one.
//!
//! `--blocks` then makes a step of a thread a whole block (Out location to
//! Out location, `program/blocks.rs`): `standard` stores only states where
//! every thread is at an Out location, `thread-modular` keeps only such
//! thread states in R and whole blocks in G (the paper's IR and IStep).
//!
//! Why the verdict is unchanged (Lipton; Flanagan and Qadeer's transactions;
//! the paper's Theorem 1). Take a run to an error state s. A thread in the
//! middle of a block at s is either before its commit (it has fired right
//! and both movers only since its last Out location: these commute to the
//! end of the run and are dropped) or after it (it can fire left and both
//! movers to an Out location: these never block (`phases.rs` checks that a
//! post-commit In location always has an enabled transition and that no
//! cycle stays inside a block) and commute back into place). Dropping or
//! completing them leaves the error state an error state when the moved
//! transitions cannot change what the property reads: a property that pins
//! a thread to some locations (`T@L && …`) makes those locations Out for
//! that thread, and for every other thread the transitions that can change
//! an atom of the property are non-movers (`movers.rs`). The rearranged run
//! is a sequence of whole blocks, which the reduced search explores. A
//! run-time model error is a step of its own thread that reads what its
//! transition reads, so it commutes as the transition does.

mod commute;
mod movers;
mod phases;

pub(crate) use movers::Mover;

use super::result::{BlockLocation, BlockReport, BlockTransition, TemplateBlockReport};
use super::{CheckError, CheckOptions, Mode, selected_properties};
use crate::program::Program;
use crate::program::access::Accesses;
use crate::program::blocks::Boundaries;
use crate::program::locks::{self, Locks};

/// The inferred blocks of one template.
#[derive(Clone, Debug)]
pub(crate) struct TemplateBlocks {
    /// Per transition: its mover class, and why it is a non-mover.
    pub(crate) movers: Vec<(Mover, Option<String>)>,
    /// Per location: which phases reach it (`phases::PRE`, `phases::POST`).
    pub(crate) phases: Vec<u8>,
    /// Per location: outside every block.
    pub(crate) out: Vec<bool>,
    /// Per location: why it is Out besides the phase rule (start, final,
    /// pinned by a property, a rendezvous, a cycle).
    pub(crate) why_out: Vec<Option<String>>,
}

/// The reducible blocks of a program, for the properties checked.
#[derive(Clone, Debug)]
pub(crate) struct Blocks {
    pub(crate) locks: Locks,
    pub(crate) templates: Vec<TemplateBlocks>,
}

impl Blocks {
    /// Where steps end.
    pub(crate) fn boundaries(&self) -> Boundaries {
        Boundaries {
            out: self.templates.iter().map(|t| t.out.clone()).collect(),
        }
    }
}

/// Infers the blocks of `prog` for the properties `props`; an error is a
/// model the reduction does not apply to, in words.
pub(crate) fn infer(prog: &Program, props: &[usize]) -> Result<Blocks, String> {
    if prog.scheduler.is_some() {
        return Err("a cooperative model's steps are already whole macro-steps".into());
    }
    let locks = locks::analyse(prog).map_err(|m| {
        let tr = &prog.templates[m.template].transitions[m.transition];
        format!("{}: {}", tr.path, m.message)
    })?;
    // One access table for both: what properties see, and races.
    let acc = Accesses::new(prog);
    let pins = movers::Pins::of(prog, &acc, props);
    let classes = movers::classify(prog, &acc, &locks, &pins);
    let templates = prog
        .templates
        .iter()
        .enumerate()
        .map(|(ti, tpl)| {
            let movers = classes[ti].clone();
            let kinds: Vec<Mover> = movers.iter().map(|m| m.0).collect();
            let phases = phases::phases(tpl, &kinds);
            let mut why_out = phases::forced_out(tpl, &pins.forced[ti]);
            let out = phases::in_out(tpl, &kinds, &phases, &mut why_out);
            TemplateBlocks {
                movers,
                phases,
                out,
                why_out,
            }
        })
        .collect();
    Ok(Blocks { locks, templates })
}

/// The blocks of a check with `--blocks`, after the refusals: `None`
/// without `--blocks`.
pub(crate) fn for_options(
    prog: &Program,
    mode: Mode,
    opts: &CheckOptions,
) -> Result<Option<Blocks>, CheckError> {
    if !opts.blocks {
        return Ok(None);
    }
    if !matches!(mode, Mode::Standard | Mode::ThreadModular) {
        return Err(CheckError::Unsupported(format!(
            "--blocks applies to modes standard and thread-modular; {} does not use it yet",
            mode.name()
        )));
    }
    if opts.symmetry || opts.por {
        return Err(CheckError::Unsupported(
            "--blocks cannot be combined with --symmetry or --por yet: use one reduction".into(),
        ));
    }
    if prog.scheduler.is_some() {
        return Err(CheckError::Unsupported(
            "--blocks: a cooperative model's steps are already whole macro-steps".into(),
        ));
    }
    let props = selected_properties(prog, &opts.properties);
    if props.iter().any(|&p| prog.properties[p].only_in_deadlocks) {
        return Err(CheckError::Unsupported(
            "--blocks does not preserve deadlocks (a thread stopped inside a block, holding one lock while it waits for another, is never a state of the reduced search): check `deadlock` without --blocks, or with --por".into(),
        ));
    }
    infer(prog, &props)
        .map(Some)
        .map_err(|why| CheckError::Unsupported(format!("--blocks: {why}")))
}

impl Blocks {
    /// The blocks as data for the report (`--show blocks`).
    pub(crate) fn report(&self, prog: &Program) -> BlockReport {
        let templates = prog
            .templates
            .iter()
            .zip(&self.templates)
            .enumerate()
            .map(|(ti, (tpl, tb))| {
                let locations = tpl
                    .locations
                    .iter()
                    .enumerate()
                    .map(|(loc, name)| {
                        let p = tb.phases[loc];
                        let phases = [(phases::PRE, "pre"), (phases::POST, "post")]
                            .iter()
                            .filter(|(bit, _)| p & bit != 0)
                            .map(|(_, n)| n.to_string())
                            .collect();
                        let held = self.locks.held.get(ti).and_then(|h| h[loc]);
                        BlockLocation {
                            name: name.clone(),
                            held: held
                                .map(|h| {
                                    self.locks
                                        .names_of(h)
                                        .iter()
                                        .map(|s| s.to_string())
                                        .collect()
                                })
                                .unwrap_or_default(),
                            phases,
                            inside: !tb.out[loc],
                            why_out: tb.why_out[loc].clone(),
                        }
                    })
                    .collect();
                let transitions = tpl
                    .transitions
                    .iter()
                    .zip(&tb.movers)
                    .map(|(tr, (m, why))| BlockTransition {
                        label: tr.label.clone(),
                        from: tr
                            .from
                            .iter()
                            .map(|&f| tpl.locations[f as usize].clone())
                            .collect(),
                        to: tpl.locations[tr.to as usize].clone(),
                        mover: m.short().to_string(),
                        why: why.clone(),
                    })
                    .collect();
                TemplateBlockReport {
                    name: tpl.name.clone(),
                    locations,
                    transitions,
                }
            })
            .collect();
        BlockReport { templates }
    }
}
