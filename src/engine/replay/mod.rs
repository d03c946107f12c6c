//! `weft replay`: re-executes a saved counterexample on the compiled
//! program. The trace's initial state must be one of the model's; at each
//! step, the named thread's transition (with the named partner, for a
//! rendezvous) must be enabled and lead to exactly the recorded globals and
//! locals. The first step that does not is reported with why (a location or
//! guard that does not hold, a run-time error, or the values it leads to);
//! at the end, the error predicates that hold in the last state and its
//! run-time error, if any.
//!
//! `stores.rs` reads the recorded stores against the program's layouts
//! (names and values as `Layout::render` writes them), so a trace of
//! another model or a hand-edited one fails at the step where it stops
//! fitting; `why.rs` words why a step does not re-execute.

mod error_state;
mod stores;
mod why;

use super::budget::Budget;
use super::concrete;
use super::result::{NextStep, ReplayFailure, ReplayReport, ReplayStopped, Trace, TraceStep};
use super::trace::{StateIds, StepIds};
use super::{CheckError, CheckOptions, MODEL_ERRORS, check_property_names};
use crate::program::{Explorer, Program, SyncOp, Val};
use std::time::{Duration, Instant};
use stores::{globals, locals, not_initial};
use why::{After, mover};

/// The budgets of a replay (`weft replay --timeout --max-memory`): a
/// step of a cooperative model runs its thread until it yields, however
/// many transitions that takes, and re-executing it computes them all.
#[derive(Clone, Debug, Default)]
pub struct ReplayOptions {
    /// Stop after this long, counted from `started`.
    pub timeout: Option<Duration>,
    /// Stop before the resident memory passes this many bytes (default
    /// 80% of physical memory, as `check`).
    pub max_memory_bytes: Option<u64>,
    /// When the process started (budgets count from it); `None`: now.
    pub started: Option<Instant>,
}

/// Replays `trace`; `property` is the property it claims to violate
/// (checked to exist; `model-errors` for a run-time error). A budget that
/// runs out stops the replay where it is (`ReplayReport::stopped`).
pub(crate) fn replay(
    prog: &Program,
    trace: &Trace,
    property: Option<&str>,
    opts: &ReplayOptions,
) -> Result<ReplayReport, CheckError> {
    if let Some(p) = property.filter(|p| *p != MODEL_ERRORS) {
        check_property_names(prog, &[p.to_string()])?;
    }
    crate::phase::enter(crate::Phase::Replaying);
    let budget = Budget::new(&CheckOptions {
        timeout: opts.timeout,
        max_memory_bytes: opts.max_memory_bytes,
        started: opts.started,
        ..CheckOptions::default()
    });
    let mut r = Replayer {
        exp: Explorer::new(prog),
        steps: Vec::new(),
    };
    // A step stops short once a budget is out, and is then neither
    // confirmed nor refuted: the replay stops there.
    r.exp.set_step_budget(Some(budget.for_steps()));
    let mut report = ReplayReport {
        model: prog.name.clone(),
        property: property.map(str::to_string),
        steps: trace.steps.len(),
        replayed: None,
        failure: None,
        error_properties: Vec::new(),
        model_error: None,
        recorded_failure: trace.failure.clone(),
        stopped: None,
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
        if budget.time_or_memory_exceeded().is_some() {
            report.stopped = stopped(&budget, Some(k + 1));
            break;
        }
        match r.step(&state, step) {
            Ok(next) => state = next,
            // The budget was not out before this step: it ran out inside
            // it, and the step, cut short, may have lacked the move named.
            Err(_) if budget.is_out() => {
                report.stopped = stopped(&budget, Some(k + 1));
                break;
            }
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
    if report.failure.is_none() && report.stopped.is_none() {
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
        if budget.is_out() {
            report.stopped = stopped(&budget, None);
        }
    }
    Ok(report)
}

/// Why the budget stopped the replay at `step` (`None`: in the last
/// state's moves), once it has run out.
fn stopped(budget: &Budget, step: Option<usize>) -> Option<ReplayStopped> {
    Some(ReplayStopped {
        step,
        reason: budget.hit_reason()?,
        next_step: NextStep::raise(budget.hit()?),
    })
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
        let partner = match &step.partner {
            None => None,
            Some(p) => {
                let u = self.thread(&p.thread)?;
                Some(Side {
                    thread: u,
                    label: &p.transition,
                    locals: locals(prog.template_of(u), &p.thread, &p.locals)?,
                })
            }
        };
        if let Some(next) = self.error_state_step(state, &mover, partner.as_ref(), &g)? {
            return Ok(next);
        }
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
}
