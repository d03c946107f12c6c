//! One weft transition as one option of its proctype's `do` loop: a
//! `d_step` (an `atomic` when it contains `x := any`) guarded by the pc and
//! `when`, with model-error asserts before the assignments and the pc update.

use super::expr::{comment, conj, num};
use super::{Error, Exporter, Who};
use crate::program::{Action, Target};
use std::fmt::Write as _;

/// Above this many values, `x := any` is a loop instead of an `if`.
const MAX_IF_VALUES: u64 = 256;

impl Exporter<'_> {
    /// One weft transition as one option of the process's `do` loop, from
    /// the source locations in `sources` only, followed by `goto then` when
    /// given (the loop of the other kind of location, final or not).
    pub(super) fn transition(
        &self,
        t: usize,
        tr: &crate::program::Transition,
        sources: &[u16],
        then: Option<&str>,
    ) -> Result<String, Error> {
        let who = Who::Proc(t);
        let tpl = &self.prog.templates[t];
        let pc = self.pc(who)?;
        let mut mask = vec![false; tpl.locations.len()];
        for &f in sources {
            mask[f as usize] = true;
        }
        let from = Self::at(&pc, &mask);
        let mut stmts: Vec<String> = Vec::new();
        let cond = match &tr.guard {
            None => from,
            Some(g) => {
                self.range(g, who);
                let gt = self.expr(g, who)?;
                let d = self.def(g, who)?;
                if d.is_empty() {
                    format!("{from} && {gt}")
                } else {
                    let dc = conj(&d);
                    stmts.push(format!("/* model error in the guard */\nassert({dc})"));
                    format!("{from} && ((!{dc}) || {gt})")
                }
            }
        };
        let mut any = false;
        for a in &tr.actions {
            any |= a.rhs.is_none();
            self.action(a, who, &mut stmts)?;
        }
        let to = &tpl.locations[tr.to as usize];
        stmts.push(format!("{pc} = {}", tr.to));
        let froms: Vec<&str> = sources
            .iter()
            .map(|&f| tpl.locations[f as usize].as_str())
            .collect();
        let mut s = format!(
            "\t/* {}: {} -> {} ({}) */\n\t:: {} {{ {cond} ->\n",
            comment(&tr.label),
            comment(&froms.join("|")),
            comment(to),
            comment(&tr.path),
            if any { "atomic" } else { "d_step" }
        );
        let body: Vec<String> = stmts
            .iter()
            .map(|st| format!("\t\t{}", st.replace('\n', "\n\t\t")))
            .collect();
        s.push_str(&body.join(";\n"));
        s.push('\n');
        match then {
            Some(label) => {
                let _ = writeln!(s, "\t}};\n\tgoto {label}");
            }
            None => s.push_str("\t}\n"),
        }
        Ok(s)
    }

    fn action(&self, a: &Action, who: Who, out: &mut Vec<String>) -> Result<(), Error> {
        let target = match &a.target {
            Target::Global(s) => self.global_slot(*s),
            Target::Local(s) => self.local_slot(who, *s)?,
            Target::GlobalCell(base, len, i) | Target::LocalCell(base, len, i) => {
                let mut d = self.def(i, who)?;
                d.extend(self.bound(i, *len, who)?);
                if !d.is_empty() {
                    out.push(format!(
                        "/* model error: index of `{}` */\nassert({})",
                        comment(&a.var),
                        conj(&d)
                    ));
                }
                let it = self.expr(i, who)?;
                match &a.target {
                    Target::GlobalCell(..) => self.global_cell(*base, &it),
                    _ => self.local_cell(who, *base, &it)?,
                }
            }
        };
        let dom = a.domain;
        match &a.rhs {
            Some(e) => {
                let d = self.def(e, who)?;
                if !d.is_empty() {
                    out.push(format!(
                        "/* model error in the value for `{}` */\nassert({})",
                        comment(&a.var),
                        conj(&d)
                    ));
                }
                let v = self.expr(e, who)?;
                let (lo, hi) = self.range(e, who);
                let mut checks = Vec::new();
                if lo < dom.min as i128 {
                    checks.push(format!("({v} >= {})", num(dom.min)));
                }
                if hi > dom.max as i128 {
                    checks.push(format!("({v} <= {})", num(dom.max)));
                }
                if !checks.is_empty() {
                    out.push(format!(
                        "/* model error: `{}` out of range */\nassert({})",
                        comment(&a.var),
                        conj(&checks)
                    ));
                }
                out.push(format!("{target} = {v}"));
            }
            None => {
                if dom.size() <= MAX_IF_VALUES {
                    let opts: Vec<String> = (dom.min..=dom.max)
                        .map(|v| format!(":: {target} = {}", num(v)))
                        .collect();
                    out.push(format!(
                        "if\t/* {} := any */\n{}\nfi",
                        comment(&a.var),
                        opts.join("\n")
                    ));
                } else {
                    out.push(format!(
                        "{target} = {};\t/* {} := any */\ndo\n:: {target} < {} -> {target}++\n:: break\nod",
                        num(dom.min),
                        comment(&a.var),
                        num(dom.max)
                    ));
                }
            }
        }
        Ok(())
    }
}
