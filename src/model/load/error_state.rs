//! `"error-state": {"thread": T, "location": L}` (program/error_state.rs):
//! a transition that fails at run time leads to the error state, where
//! every variable is 0, every thread is at its first location and thread
//! `T` at `L`, which no transition leaves (DiVinE's semantics; the DVE
//! translation writes it under `--divine-errors`).

use super::{Loader, did_you_mean};
use crate::model::json::{LResult, Node};
use crate::program::{ErrorState, Layout, Template, Thread};

impl<'a> Loader<'a> {
    pub(super) fn error_state(
        &self,
        root: &Node<'a>,
        globals: &Layout,
        templates: &[Template],
        threads: &[Thread],
    ) -> LResult<Option<ErrorState>> {
        let Some(node) = root.get("error-state") else {
            return Ok(None);
        };
        node.check_keys(&["thread", "location"], "the error state")?;
        let tnode = node.req("thread", "the thread the error state stops")?;
        let name = tnode.str("a thread name")?;
        let Some(thread) = threads.iter().position(|t| t.name == name) else {
            let names = threads.iter().map(|t| t.name.as_str());
            let mut d = tnode.err(format!("the model has no thread `{name}`"));
            if let Some(h) = did_you_mean(name, names) {
                d = Box::new(d.note(format!("did you mean `{h}`?")));
            }
            return Err(d);
        };
        let tpl = &templates[threads[thread].template as usize];
        let lnode = node.req(
            "location",
            "a location of that thread that no transition leaves",
        )?;
        let loc = lnode.str("a location name")?;
        let Some(location) = tpl.locations.iter().position(|l| l == loc) else {
            return Err(lnode.err(format!("thread `{name}` has no location `{loc}`")));
        };
        if !tpl.outgoing[location].is_empty() {
            return Err(lnode.err(format!(
                "the error state's location must be one no transition leaves, and `{loc}` has {} outgoing",
                tpl.outgoing[location].len()
            )));
        }
        // Every variable is 0 there: 0 must be a value of each.
        let layouts = std::iter::once(globals).chain(templates.iter().map(|t| &t.locals));
        for layout in layouts {
            if let Some(v) = layout.vars.iter().find(|v| !v.domain.contains(0)) {
                return Err(node.err(format!(
                    "the error state sets every variable to 0, which is outside `{}`'s domain {}",
                    v.name,
                    v.domain.describe()
                )));
            }
        }
        Ok(Some(ErrorState {
            thread,
            location: location as crate::program::Val,
        }))
    }
}
