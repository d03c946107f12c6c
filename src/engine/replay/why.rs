//! Why a step of a saved trace does not re-execute, in words: the thread
//! is elsewhere, a guard is false (shown with the state it is false in), a
//! run-time error, or the values the step leads to instead.

use super::stores::{differences, show};
use super::{Replayer, Side};
use crate::engine::trace::StateIds;
use crate::program::fire::execute;
use crate::program::{Ctx, Program, SyncOp, Template, Thread, Transition, Val};

impl Replayer<'_> {
    /// Why none of `candidates` (the side's transitions by its label) fires
    /// from `state`.
    pub(super) fn not_enabled(&self, state: &StateIds, side: &Side, candidates: &[u32]) -> String {
        let prog = self.exp.prog;
        let t = side.thread;
        let th = &prog.threads[t];
        let tpl = prog.template_of(t);
        let gs = self.exp.globals.get(state.0);
        let ls = self.exp.local(t, state.1[t]);
        let here = show_state(prog, tpl, &th.name, gs, ls);
        let reasons: Vec<String> = candidates
            .iter()
            .map(|&i| {
                let tr = &tpl.transitions[i as usize];
                if !tr.from.contains(&(ls[0] as u16)) {
                    let from: Vec<String> = tr
                        .from
                        .iter()
                        .map(|&f| format!("`{}`", tpl.locations[f as usize]))
                        .collect();
                    return format!(
                        "{} is at `{}`, and \"{}\" leaves {}",
                        th.name,
                        tpl.locations[ls[0] as usize],
                        tr.label,
                        from.join(" or ")
                    );
                }
                let ctx = Ctx::thread(th, gs, ls);
                let guard = tr.guard_source.as_deref().unwrap_or("(compiled)");
                match tr.guard.as_ref().map(|e| e.eval(&ctx)) {
                    Some(Ok(0)) => format!("its guard `{guard}` is false in {here}"),
                    Some(Err(e)) => format!("evaluating its guard `{guard}` fails: {}", e.0),
                    _ => self.fails(tr, th, gs, ls, &here),
                }
            })
            .collect();
        let head = format!("{} is not enabled", mover(prog, side));
        match reasons.as_slice() {
            [one] => format!("{head}: {one}"),
            _ => format!(
                "{head}: none of the {} transitions so labelled fires: {}",
                reasons.len(),
                reasons.join("; ")
            ),
        }
    }

    /// Why a transition whose guard holds made no step: its value or its
    /// assignments fail at run time.
    fn fails(&self, tr: &Transition, th: &Thread, gs: &[Val], ls: &[Val], here: &str) -> String {
        let ctx = Ctx::thread(th, gs, ls);
        if let Some(SyncOp::Send { value: Some(e), .. }) = &tr.sync
            && let Err(e) = e.eval(&ctx)
        {
            return format!("the value it sends cannot be computed: {}", e.0);
        }
        let mut out = Vec::new();
        let (mut g2, mut l2) = (gs.to_vec(), ls.to_vec());
        match execute(
            &tr.actions,
            th.tid,
            th.template as usize,
            &mut g2,
            &mut l2,
            &mut out,
        ) {
            Err(e) => format!("it fails at run time in {here}: {}: {}", tr.path, e.0),
            Ok(()) => format!("it makes no step in {here}"),
        }
    }

    /// The step fires but leads elsewhere: the differences between the
    /// closest of its outcomes and what the trace says.
    pub(super) fn elsewhere(
        &self,
        head: &str,
        outcomes: &[After],
        want_g: &[Val],
        wanted: &[(usize, Vec<Val>)],
    ) -> String {
        let prog = self.exp.prog;
        let diffs = |o: &After| {
            let mut d = differences(&prog.globals.render(&o.0), &prog.globals.render(want_g), "");
            for ((t, got), (_, want)) in o.1.iter().zip(wanted) {
                let tpl = prog.template_of(*t);
                let prefix = format!("{}.", prog.threads[*t].name);
                d.extend(differences(
                    &tpl.render_local(got),
                    &tpl.render_local(want),
                    &prefix,
                ));
            }
            d
        };
        let all: Vec<Vec<(String, String, String)>> = outcomes.iter().map(diffs).collect();
        let closest = all
            .iter()
            .min_by_key(|d| d.len())
            .cloned()
            .unwrap_or_default();
        let of = if outcomes.len() > 1 {
            format!(" (the closest of its {} possible outcomes)", outcomes.len())
        } else {
            String::new()
        };
        match closest.as_slice() {
            [(name, got, want)] => {
                format!("{head} leads to {name}={got}, the trace says {want}{of}")
            }
            _ => {
                let got: Vec<String> = closest.iter().map(|(n, g, _)| format!("{n}={g}")).collect();
                let want: Vec<String> =
                    closest.iter().map(|(n, _, w)| format!("{n}={w}")).collect();
                format!(
                    "{head} leads to {}; the trace says {}{of}",
                    got.join(", "),
                    want.join(", ")
                )
            }
        }
    }
}

/// One outcome of a step: the globals after it and the moved threads'
/// locals after it.
pub(super) type After = (Vec<Val>, Vec<(usize, Vec<Val>)>);

/// `p[2] "enter"`.
pub(super) fn mover(prog: &Program, side: &Side) -> String {
    format!("{} \"{}\"", prog.threads[side.thread].name, side.label)
}

/// `x=1 y=0, p[2]: wait my=1`: the globals and one thread's local store.
pub(super) fn show_state(
    prog: &Program,
    tpl: &Template,
    name: &str,
    gs: &[Val],
    ls: &[Val],
) -> String {
    let local = show(&tpl.render_local(ls));
    let local = local.trim_start_matches("pc=");
    if prog.globals.vars.is_empty() {
        format!("{name}: {local}")
    } else {
        format!("{}, {name}: {local}", show(&prog.globals.render(gs)))
    }
}
