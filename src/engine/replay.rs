//! `weft replay`: re-executes a saved counterexample on the compiled
//! program. The trace's initial state must be one of the model's; at each
//! step, the named thread's transition (with the named partner, for a
//! rendezvous) must be enabled and lead to exactly the recorded globals and
//! locals. The first step that does not is reported with why (a location or
//! guard that does not hold, a run-time error, or the values it leads to);
//! at the end, the error predicates that hold in the last state and its
//! run-time error, if any.
//!
//! The recorded stores are read against the program's layouts here (names
//! and values as `Layout::render` writes them), so a trace of another model
//! or a hand-edited one fails at the step where it stops fitting.

use super::concrete;
use super::result::{ReplayFailure, ReplayReport, Store, Trace, TraceStep};
use super::trace::{StateIds, StepIds};
use super::{CheckError, MODEL_ERRORS, check_property_names};
use crate::program::explore::execute;
use crate::program::{Ctx, Explorer, Layout, Program, SyncOp, Template, Val};
use serde_json::Value;

/// Replays `trace`; `property` is the property it claims to violate
/// (checked to exist; `model-errors` for a run-time error).
pub(crate) fn replay(
    prog: &Program,
    trace: &Trace,
    property: Option<&str>,
) -> Result<ReplayReport, CheckError> {
    if let Some(p) = property.filter(|p| *p != MODEL_ERRORS) {
        check_property_names(prog, &[p.to_string()])?;
    }
    let mut r = Replayer {
        exp: Explorer::new(prog),
        steps: Vec::new(),
    };
    let mut report = ReplayReport {
        model: prog.name.clone(),
        property: property.map(str::to_string),
        steps: trace.steps.len(),
        replayed: None,
        failure: None,
        error_properties: Vec::new(),
        model_error: None,
        recorded_failure: trace.failure.clone(),
    };
    let initial = match r.initial(trace) {
        Ok(s) => s,
        Err(reason) => {
            report.failure = Some(ReplayFailure { step: 0, reason });
            return Ok(report);
        }
    };
    let mut state = initial.clone();
    for (k, step) in trace.steps.iter().enumerate() {
        match r.step(&state, step) {
            Ok(next) => state = next,
            Err(reason) => {
                report.failure = Some(ReplayFailure {
                    step: k + 1,
                    reason,
                });
                break;
            }
        }
    }
    report.replayed = Some(Trace::build(&r.exp, &initial, &r.steps));
    if report.failure.is_none() {
        let (g, ls) = (state.0, &state.1);
        let all: Vec<usize> = (0..prog.properties.len()).collect();
        let (holds, eval_error) = concrete::violated(&r.exp, &all, g, ls);
        report.error_properties = holds
            .into_iter()
            .map(|p| prog.properties[p].name.clone())
            .collect();
        let mut moves = Vec::new();
        let step_error = concrete::moves(&mut r.exp, g, ls, &mut moves);
        report.model_error = eval_error.or(step_error);
    }
    Ok(report)
}

struct Replayer<'p> {
    exp: Explorer<'p>,
    /// The steps confirmed so far.
    steps: Vec<StepIds>,
}

/// What the trace says one thread's side of a step leads to.
struct Side<'a> {
    thread: usize,
    label: &'a str,
    locals: Vec<Val>,
}

impl Replayer<'_> {
    /// The trace's initial state, if it is one of the model's.
    fn initial(&mut self, trace: &Trace) -> Result<StateIds, String> {
        let prog = self.exp.prog;
        let g = globals(&prog.globals, &trace.initial_globals)
            .map_err(|e| format!("the initial state: {e}"))?;
        for (name, _) in &trace.initial_locals {
            self.thread(name)
                .map_err(|e| format!("the initial state: {e}"))?;
        }
        if !prog.init_globals.iter().any(|i| **i == *g) {
            return Err(format!(
                "the initial state is not one of the model's: {}",
                not_initial(&prog.init_globals, &g, |s| prog.globals.render(s), "")
            ));
        }
        let mut ls = Vec::new();
        for (t, th) in prog.threads.iter().enumerate() {
            let tpl = prog.template_of(t);
            let Some((_, store)) = trace.initial_locals.iter().find(|(n, _)| *n == th.name) else {
                return Err(format!(
                    "the initial state gives no local store for {}",
                    th.name
                ));
            };
            let l = locals(tpl, &th.name, store).map_err(|e| format!("the initial state: {e}"))?;
            if !tpl.init.iter().any(|i| **i == *l) {
                return Err(format!(
                    "the initial state is not one of the model's: {}",
                    not_initial(
                        &tpl.init,
                        &l,
                        |s| tpl.render_local(s),
                        &format!("{}.", th.name)
                    )
                ));
            }
            ls.push(self.exp.intern_local(t, &l));
        }
        Ok((self.exp.globals.intern(&g), ls))
    }

    /// The thread named `name`.
    fn thread(&self, name: &str) -> Result<usize, String> {
        let prog = self.exp.prog;
        prog.threads
            .iter()
            .position(|t| t.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = prog.threads.iter().map(|t| t.name.as_str()).collect();
                format!(
                    "the model has no thread `{name}` (its threads: {})",
                    names.join(", ")
                )
            })
    }

    /// Re-executes one step from `state`: the state after it, or why not.
    fn step(&mut self, state: &StateIds, step: &TraceStep) -> Result<StateIds, String> {
        let prog = self.exp.prog;
        let t = self.thread(&step.thread)?;
        let g = globals(&prog.globals, &step.globals)?;
        let mover = Side {
            thread: t,
            label: &step.transition,
            locals: locals(prog.template_of(t), &step.thread, &step.locals)?,
        };
        match &step.partner {
            None => self.single(state, &mover, &g),
            Some(p) => {
                let u = self.thread(&p.thread)?;
                if u == t {
                    return Err(format!(
                        "{} cannot be its own partner in a rendezvous",
                        step.thread
                    ));
                }
                let partner = Side {
                    thread: u,
                    label: &p.transition,
                    locals: locals(prog.template_of(u), &p.thread, &p.locals)?,
                };
                self.joint(state, &mover, &partner, &g)
            }
        }
    }

    /// A step of one thread alone.
    fn single(
        &mut self,
        state: &StateIds,
        side: &Side,
        want_g: &[Val],
    ) -> Result<StateIds, String> {
        let prog = self.exp.prog;
        let (g, ls) = (state.0, &state.1);
        let t = side.thread;
        let tpl = prog.template_of(t);
        let named = self.labelled(state, side)?;
        let candidates: Vec<u32> = named
            .iter()
            .copied()
            .filter(|&i| tpl.transitions[i as usize].sync.is_none())
            .collect();
        if candidates.is_empty() {
            return Err(format!(
                "{} is a rendezvous (a send or receive on a channel), and the trace names no partner",
                mover(prog, side)
            ));
        }
        let succs = self.exp.successors(t, g, ls[t]);
        let steps: Vec<_> = succs
            .steps
            .iter()
            .filter(|s| candidates.contains(&s.trans))
            .copied()
            .collect();
        if steps.is_empty() {
            return Err(self.not_enabled(state, side, &candidates));
        }
        let found = steps.iter().find(|s| {
            self.exp.globals.get(s.g) == want_g && self.exp.local(t, s.l) == &side.locals[..]
        });
        let Some(s) = found else {
            let outcomes: Vec<After> = steps
                .iter()
                .map(|s| {
                    let got_g = self.exp.globals.get(s.g).to_vec();
                    (got_g, vec![(t, self.exp.local(t, s.l).to_vec())])
                })
                .collect();
            let wanted = vec![(t, side.locals.clone())];
            return Err(self.elsewhere(&mover(prog, side), &outcomes, want_g, &wanted));
        };
        let mut next = ls.clone();
        next[t] = s.l;
        self.steps.push(StepIds {
            thread: t,
            trans: s.trans,
            partner: None,
            state: (s.g, next.clone()),
        });
        Ok((s.g, next))
    }

    /// A rendezvous: `send` sends, `recv` receives.
    fn joint(
        &mut self,
        state: &StateIds,
        send: &Side,
        recv: &Side,
        want_g: &[Val],
    ) -> Result<StateIds, String> {
        let prog = self.exp.prog;
        let (g, ls) = (state.0, &state.1);
        let (t, u) = (send.thread, recv.thread);
        let (tt, tu) = (prog.template_of(t), prog.template_of(u));
        let sends: Vec<u32> = self
            .labelled(state, send)?
            .into_iter()
            .filter(|&i| matches!(tt.transitions[i as usize].sync, Some(SyncOp::Send { .. })))
            .collect();
        if sends.is_empty() {
            return Err(format!(
                "{} is not a send on a channel, but the trace gives it a partner ({})",
                mover(prog, send),
                prog.threads[u].name
            ));
        }
        let recvs: Vec<u32> = self
            .labelled(state, recv)?
            .into_iter()
            .filter(|&i| matches!(tu.transitions[i as usize].sync, Some(SyncOp::Recv { .. })))
            .collect();
        if recvs.is_empty() {
            return Err(format!(
                "{}, the partner, is not a receive on a channel",
                mover(prog, recv)
            ));
        }
        let offered = self.exp.offers(t, g, ls[t]);
        let accepted = self.exp.offers(u, g, ls[u]);
        let mut results = Vec::new();
        let mut failures = Vec::new();
        for &tr1 in &sends {
            let Some(&(_, c, value)) = offered.sends.iter().find(|s| s.0 == tr1) else {
                continue;
            };
            for &tr2 in &recvs {
                if !accepted.recvs.iter().any(|&(tr, c2)| tr == tr2 && c2 == c) {
                    continue;
                }
                match self.exp.fire(g, (t, ls[t], tr1, value), (u, ls[u], tr2)) {
                    Ok(steps) => results.extend(steps),
                    Err(m) => failures.push(m),
                }
            }
        }
        if results.is_empty() {
            if let Some(m) = failures.first() {
                return Err(format!(
                    "the rendezvous of {} with {} fails at run time: {m}",
                    mover(prog, send),
                    mover(prog, recv)
                ));
            }
            let offered_any = sends
                .iter()
                .any(|tr| offered.sends.iter().any(|s| s.0 == *tr));
            let accepted_any = recvs
                .iter()
                .any(|tr| accepted.recvs.iter().any(|r| r.0 == *tr));
            return Err(match (offered_any, accepted_any) {
                (false, _) => self.not_enabled(state, send, &sends),
                (true, false) => self.not_enabled(state, recv, &recvs),
                (true, true) => format!(
                    "{} and {} do not use the same channel",
                    mover(prog, send),
                    mover(prog, recv)
                ),
            });
        }
        let found = results.iter().find(|s| {
            self.exp.globals.get(s.g) == want_g
                && self.exp.local(t, s.l_send) == &send.locals[..]
                && self.exp.local(u, s.l_recv) == &recv.locals[..]
        });
        let Some(s) = found else {
            let outcomes: Vec<After> = results
                .iter()
                .map(|s| {
                    (
                        self.exp.globals.get(s.g).to_vec(),
                        vec![
                            (t, self.exp.local(t, s.l_send).to_vec()),
                            (u, self.exp.local(u, s.l_recv).to_vec()),
                        ],
                    )
                })
                .collect();
            let wanted = vec![(t, send.locals.clone()), (u, recv.locals.clone())];
            let head = format!("{} with {}", mover(prog, send), mover(prog, recv));
            return Err(self.elsewhere(&head, &outcomes, want_g, &wanted));
        };
        let mut next = ls.clone();
        next[t] = s.l_send;
        next[u] = s.l_recv;
        self.steps.push(StepIds {
            thread: t,
            trans: s.send_trans,
            partner: Some((u, s.recv_trans)),
            state: (s.g, next.clone()),
        });
        Ok((s.g, next))
    }

    /// The thread's transitions labelled as the side says, or why none is.
    fn labelled(&self, state: &StateIds, side: &Side) -> Result<Vec<u32>, String> {
        let prog = self.exp.prog;
        let tpl = prog.template_of(side.thread);
        let named: Vec<u32> = tpl
            .transitions
            .iter()
            .filter(|tr| tr.label == side.label)
            .map(|tr| tr.index)
            .collect();
        if !named.is_empty() {
            return Ok(named);
        }
        let l = self.exp.local(side.thread, state.1[side.thread]);
        let here = &tpl.locations[l[0] as usize];
        let mut leaving: Vec<String> = tpl.outgoing[l[0] as usize]
            .iter()
            .map(|&i| format!("\"{}\"", tpl.transitions[i as usize].label))
            .collect();
        leaving.dedup();
        let name = &prog.threads[side.thread].name;
        Err(if leaving.is_empty() {
            format!(
                "{name} has no transition \"{}\" (and none leaves `{here}`, where it is)",
                side.label
            )
        } else {
            format!(
                "{name} has no transition \"{}\" (from `{here}`, where it is, it has {})",
                side.label,
                leaving.join(", ")
            )
        })
    }

    /// Why none of `candidates` (the side's transitions by its label) fires
    /// from `state`.
    fn not_enabled(&self, state: &StateIds, side: &Side, candidates: &[u32]) -> String {
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
                let ctx = Ctx {
                    g: gs,
                    tid: th.tid,
                    template: th.template as usize,
                    l: ls,
                    state: None,
                    terms: &[],
                };
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
    fn fails(
        &self,
        tr: &crate::program::Transition,
        th: &crate::program::Thread,
        gs: &[Val],
        ls: &[Val],
        here: &str,
    ) -> String {
        let ctx = Ctx {
            g: gs,
            tid: th.tid,
            template: th.template as usize,
            l: ls,
            state: None,
            terms: &[],
        };
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
    fn elsewhere(
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
type After = (Vec<Val>, Vec<(usize, Vec<Val>)>);

/// `p[2] "enter"`.
fn mover(prog: &Program, side: &Side) -> String {
    format!("{} \"{}\"", prog.threads[side.thread].name, side.label)
}

/// `x=1 y=0, p[2]: wait my=1`: the globals and one thread's local store.
fn show_state(prog: &Program, tpl: &Template, name: &str, gs: &[Val], ls: &[Val]) -> String {
    let local = show(&tpl.render_local(ls));
    let local = local.trim_start_matches("pc=");
    if prog.globals.vars.is_empty() {
        format!("{name}: {local}")
    } else {
        format!("{}, {name}: {local}", show(&prog.globals.render(gs)))
    }
}

fn show(store: &Store) -> String {
    store
        .iter()
        .map(|(k, v)| format!("{k}={}", plain(v)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The variables whose values differ: (prefixed name, got, wanted).
fn differences(got: &Store, want: &Store, prefix: &str) -> Vec<(String, String, String)> {
    got.iter()
        .zip(want)
        .filter(|((_, a), (_, b))| a != b)
        .map(|((n, a), (_, b))| (format!("{prefix}{n}"), plain(a), plain(b)))
        .collect()
}

/// Why a recorded store is not among the model's initial ones: the
/// differences from the closest.
fn not_initial(
    inits: &[Box<[Val]>],
    got: &[Val],
    render: impl Fn(&[Val]) -> Store,
    prefix: &str,
) -> String {
    let mine = render(got);
    let closest = inits
        .iter()
        .map(|i| differences(&mine, &render(i), prefix))
        .min_by_key(Vec::len)
        .unwrap_or_default();
    let has: Vec<String> = closest.iter().map(|(n, g, _)| format!("{n}={g}")).collect();
    let model: Vec<String> = closest.iter().map(|(n, _, w)| format!("{n}={w}")).collect();
    format!(
        "it has {}, the model starts with {}",
        has.join(", "),
        model.join(", ")
    )
}

/// A recorded global store as slot values.
fn globals(layout: &Layout, store: &Store) -> Result<Vec<Val>, String> {
    let mut out = vec![0; layout.slots as usize];
    fill(layout, store, &mut out, "global", &[])?;
    Ok(out)
}

/// A recorded local store (`pc` first) of thread `name` as slot values.
fn locals(tpl: &Template, name: &str, store: &Store) -> Result<Vec<Val>, String> {
    let mut out = vec![0; tpl.locals.slots as usize];
    let pc = store.iter().find(|(k, _)| k == "pc").map(|(_, v)| v);
    let Some(pc) = pc else {
        return Err(format!("the trace gives no location (`pc`) for {name}"));
    };
    let at = pc
        .as_str()
        .and_then(|p| tpl.locations.iter().position(|l| l == p));
    let Some(at) = at else {
        return Err(format!(
            "{name} is at {} in the trace, which is not one of its locations ({})",
            pc,
            tpl.locations.join(", ")
        ));
    };
    out[0] = at as Val;
    let what = format!("local of {name}");
    fill(&tpl.locals, store, &mut out, &what, &["pc"])?;
    Ok(out)
}

/// Writes the store's values into `out` by the layout, checking names,
/// types and domains; `skip` names keys handled by the caller.
fn fill(
    layout: &Layout,
    store: &Store,
    out: &mut [Val],
    what: &str,
    skip: &[&str],
) -> Result<(), String> {
    for (name, _) in store {
        if !skip.contains(&name.as_str()) && layout.find(name).is_none() {
            let known: Vec<&str> = layout.vars.iter().map(|v| v.name.as_str()).collect();
            return Err(format!(
                "the trace has a {what} `{name}` that the model does not have (it has: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        }
    }
    for var in &layout.vars {
        let Some((_, v)) = store.iter().find(|(k, _)| *k == var.name) else {
            return Err(format!(
                "the trace gives no value for the {what} `{}`",
                var.name
            ));
        };
        let cells: Vec<&Value> = match (var.len, v) {
            (None, v) => vec![v],
            (Some(n), Value::Array(a)) if a.len() == n as usize => a.iter().collect(),
            (Some(n), _) => {
                return Err(format!(
                    "the {what} `{}` is {v} in the trace, not an array of {n} values",
                    var.name
                ));
            }
        };
        for (i, cell) in cells.into_iter().enumerate() {
            let x = match (var.domain.is_bool, cell) {
                (true, Value::Bool(b)) => Some(i64::from(*b)),
                (false, Value::Number(n)) => n.as_i64(),
                _ => None,
            };
            let x = x.filter(|x| var.domain.contains(*x));
            let Some(x) = x else {
                return Err(format!(
                    "the {what} `{}` is {cell} in the trace, not a value of its type {}",
                    var.name,
                    var.domain.describe()
                ));
            };
            out[(var.slot as usize) + i] = x as Val;
        }
    }
    Ok(())
}
