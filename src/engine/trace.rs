//! Builds counterexample traces (`result::Trace`) from the state ids an
//! engine recorded: a concrete run from an initial state, step by step, in
//! terms a user recognises (thread instance, transition label, variable
//! values after the step).

use super::result::{Partner, Trace, TraceStep};
use crate::program::Explorer;
use crate::program::blocks::block_path;

/// One step as ids: moving thread, its transition, the receiver of a
/// rendezvous (thread, transition), and the state after.
pub(crate) struct StepIds {
    pub(crate) thread: usize,
    pub(crate) trans: u32,
    pub(crate) partner: Option<(usize, u32)>,
    pub(crate) state: StateIds,
}

/// One concrete state: global store id and one local store id per thread.
pub(crate) type StateIds = (u32, Vec<u32>);

impl Trace {
    /// Builds a trace from the initial state and the `(thread, transition,
    /// state after)` steps.
    pub(crate) fn build(exp: &Explorer, initial: &StateIds, steps: &[StepIds]) -> Trace {
        let prog = exp.prog;
        let initial_locals = (0..prog.threads.len())
            .map(|t| {
                let tpl = prog.template_of(t);
                (
                    prog.threads[t].name.clone(),
                    tpl.render_local(exp.local(t, initial.1[t])),
                )
            })
            .collect();
        let mut out = Vec::with_capacity(steps.len());
        let mut before: &StateIds = initial;
        for st in steps {
            let (t, (g, ls)) = (st.thread, &st.state);
            let tpl = prog.template_of(t);
            if let (Some(b), None) = (exp.blocks(), st.partner) {
                // A block step: the transitions inside it, each a step.
                let from = (exp.globals.get(before.0), exp.local(t, before.1[t]));
                let to = (exp.globals.get(*g), exp.local(t, ls[t]));
                if let Some(path) = block_path(exp, b, t, from, to, st.trans) {
                    for inner in path {
                        out.push(TraceStep {
                            thread: prog.threads[t].name.clone(),
                            transition: tpl.transitions[inner.trans as usize].label.clone(),
                            globals: prog.globals.render(&inner.g),
                            locals: tpl.render_local(&inner.l),
                            partner: None,
                        });
                    }
                    before = &st.state;
                    continue;
                }
            }
            out.push(TraceStep {
                thread: prog.threads[t].name.clone(),
                transition: tpl.transitions[st.trans as usize].label.clone(),
                globals: prog.globals.render(exp.globals.get(*g)),
                locals: tpl.render_local(exp.local(t, ls[t])),
                partner: st.partner.map(|(u, tr)| {
                    let tu = prog.template_of(u);
                    Partner {
                        thread: prog.threads[u].name.clone(),
                        transition: tu.transitions[tr as usize].label.clone(),
                        locals: tu.render_local(exp.local(u, ls[u])),
                    }
                }),
            });
            before = &st.state;
        }
        let steps = out;
        Trace {
            initial_globals: prog.globals.render(exp.globals.get(initial.0)),
            initial_locals,
            steps,
            failure: None,
        }
    }
}
