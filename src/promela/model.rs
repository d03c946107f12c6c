//! The whole Promela file: the header comment with the command to check it,
//! the declarations, one proctype per template, the monitor process of the
//! properties, and `init`.

use super::decl::{declare, describe, is_product, pc_type, ptype, slot_sets, store_choice};
use super::expr::{comment, conj};
use super::{Error, Exporter, Options, Who};
use crate::program::{CExpr, Domain, PropertyKind, Val};
use std::fmt::Write as _;

impl Exporter<'_> {
    /// The Promela text of the whole model.
    pub(super) fn model(&mut self, opts: &Options) -> Result<String, Error> {
        let prog = self.prog;
        let mut out = String::new();
        self.header(&mut out);

        // Declarations, and the initial assignments `init` must make.
        let mut init_code: Vec<String> = Vec::new();
        out.push_str("/* Globals. */\n");
        if prog.globals.vars.is_empty() {
            out.push_str("/* (none) */\n");
        }
        let gsets = slot_sets(&prog.init_globals, prog.globals.slots as usize);
        let gproduct = is_product(&gsets, prog.init_globals.len());
        for (vi, v) in prog.globals.vars.iter().enumerate() {
            let cells: Vec<(String, Vec<Val>)> = (0..v.len.unwrap_or(1))
                .map(|k| {
                    let target = match v.len {
                        Some(_) => format!("{}[{k}]", self.globals[vi]),
                        None => self.globals[vi].clone(),
                    };
                    (target, gsets[(v.slot + k) as usize].clone())
                })
                .collect();
            let decl = declare(
                &self.globals[vi],
                &v.domain,
                v.len,
                &cells,
                gproduct,
                &mut init_code,
            );
            let _ = writeln!(out, "{decl}\t/* {} */", describe(&v.domain, v.len));
        }
        if !gproduct {
            init_code.push(store_choice(
                &prog.init_globals,
                &(0..prog.globals.slots)
                    .map(|s| self.global_slot(s))
                    .collect::<Vec<_>>(),
            ));
        }

        for (t, tpl) in prog.templates.iter().enumerate() {
            let names = &self.tpls[t];
            let n = tpl.count;
            if n == 0 {
                let _ = writeln!(
                    out,
                    "\n/* Template {}: no instances, nothing declared. */",
                    comment(&tpl.name)
                );
                continue;
            }
            let _ = writeln!(
                out,
                "\n/* Template {}: {n} instance(s), tid {}..{}; pc and locals are arrays indexed by the 0-based instance. */",
                comment(&tpl.name),
                names.first + 1,
                names.first + n as usize
            );
            let locs: Vec<String> = tpl
                .locations
                .iter()
                .enumerate()
                .map(|(i, l)| format!("{i} = {}", comment(l)))
                .collect();
            let _ = writeln!(out, "/* Locations: {}. */", locs.join(", "));
            let _ = writeln!(
                out,
                "{} {}[{n}] = {};\t/* pc */",
                pc_type(tpl.locations.len()),
                names.pc,
                tpl.start
            );
            let lsets = slot_sets(&tpl.init, tpl.locals.slots as usize);
            let lproduct = is_product(&lsets, tpl.init.len());
            for (vi, v) in tpl.locals.vars.iter().enumerate() {
                let len = v.len.unwrap_or(1);
                let mut cells = Vec::new();
                for k in 0..n {
                    for c in 0..len {
                        let target = match v.len {
                            Some(_) => format!("{}[{}]", names.locals[vi], k * len + c),
                            None => format!("{}[{k}]", names.locals[vi]),
                        };
                        cells.push((target, lsets[(v.slot + c) as usize].clone()));
                    }
                }
                let decl = declare(
                    &names.locals[vi],
                    &v.domain,
                    Some(n * len),
                    &cells,
                    lproduct,
                    &mut init_code,
                );
                let _ = writeln!(
                    out,
                    "{decl}\t/* local {}: {}{} */",
                    comment(&v.name),
                    describe(&v.domain, v.len),
                    if v.len.is_some() {
                        ", cell j of instance k at k*len+j"
                    } else {
                        ""
                    }
                );
            }
            if !lproduct {
                for k in 0..n {
                    let th = names.first + k as usize;
                    let targets: Vec<String> = (0..tpl.locals.slots)
                        .map(|s| self.local_slot(Who::Thread(th), s))
                        .collect::<Result<_, _>>()?;
                    init_code.push(store_choice(&tpl.init, &targets));
                }
            }
        }

        // Processes. With the property `deadlock` exported, pan's own
        // invalid-end-state check decides it: a process rests at an `end`
        // label only while its thread is at a final location, so a state
        // where nothing can move and some thread is elsewhere is an error.
        let selected =
            |name: &str| opts.properties.is_empty() || opts.properties.iter().any(|p| p == name);
        let native_deadlock = prog
            .properties
            .iter()
            .any(|p| selected(&p.name) && p.error == prog.deadlock);
        let mut runs = Vec::new();
        for (t, tpl) in prog.templates.iter().enumerate() {
            if tpl.count == 0 {
                continue;
            }
            let names = &self.tpls[t];
            if tpl.transitions.is_empty() {
                if native_deadlock && !tpl.final_locations[tpl.start as usize] {
                    let _ = writeln!(
                        out,
                        "\n/* Template {} has no transitions and starts at a location that is not final:\n   a process that never moves, resting where pan counts it as an invalid end state. */\nproctype {}(byte {}; byte {}) {{\n\tfalse\n}}",
                        comment(&tpl.name),
                        names.proc,
                        self.p_inst,
                        self.p_tid
                    );
                    runs.extend(self.runs(t));
                } else {
                    let _ = writeln!(
                        out,
                        "\n/* Template {} has no transitions: its threads never move, no process is needed. */",
                        comment(&tpl.name)
                    );
                }
                continue;
            }
            let _ = writeln!(
                out,
                "\nproctype {}(byte {}; byte {}) {{",
                names.proc, self.p_inst, self.p_tid
            );
            let loops = Self::loops(tpl, native_deadlock);
            for (k, (label, locs)) in loops.iter().enumerate() {
                let _ = writeln!(out, "{label}:");
                let mut options = String::new();
                for tr in &tpl.transitions {
                    let from: Vec<u16> = tr
                        .from
                        .iter()
                        .copied()
                        .filter(|f| locs.contains(f))
                        .collect();
                    if from.is_empty() {
                        continue;
                    }
                    let then = loops
                        .iter()
                        .find(|(_, other)| other.contains(&tr.to))
                        .map(|(l, _)| l.as_str())
                        .filter(|l| *l != label);
                    self.wide.set(false);
                    let code = self.transition(t, tr, &from, then)?;
                    if self.wide.get() {
                        self.warnings.push(format!(
                            "{} (`{}`): some value may leave the 32-bit range of SPIN's int; weft computes in 64 bits, so the export is exact only while every intermediate value fits in 32 bits",
                            tr.path, tr.label
                        ));
                    }
                    options.push_str(&code);
                }
                let last = k + 1 == loops.len();
                if options.is_empty() {
                    // Final locations that no transition leaves: rest here.
                    let _ = writeln!(out, "\tfalse{}", if last { "" } else { ";" });
                } else {
                    let _ = write!(out, "\tdo\n{options}\tod{}\n", if last { "" } else { ";" });
                }
            }
            out.push_str("}\n");
            runs.extend(self.runs(t));
        }

        // The monitor.
        let mut options = String::new();
        let mut has_monitor = false;
        for p in &prog.properties {
            if !selected(&p.name) {
                continue;
            }
            self.wide.set(false);
            if native_deadlock && p.error == prog.deadlock {
                let _ = writeln!(
                    options,
                    "\t/* property `{}`: deadlock, checked by pan as invalid end states (no monitor option) */",
                    comment(&p.name)
                );
                continue;
            }
            let what = match p.kind {
                PropertyKind::Error => format!("error {}", p.source),
                PropertyKind::Invariant => format!("invariant {} (error: its negation)", p.source),
                PropertyKind::Assertions => "the transitions' `assert` fields".to_string(),
            };
            let _ = writeln!(
                options,
                "\t/* property `{}`: {} */",
                comment(&p.name),
                comment(&what)
            );
            if let CExpr::Const(0) = p.error {
                options.push_str("\t/* (never violated: nothing to check) */\n");
                continue;
            }
            self.range(&p.error, Who::Global);
            let err = self.expr(&p.error, Who::Global)?;
            let d = self.def(&p.error, Who::Global)?;
            has_monitor = true;
            if d.is_empty() {
                let _ = writeln!(options, "\t:: atomic {{ {err} -> assert(!{err}) }}");
            } else {
                let dc = conj(&d);
                let _ = writeln!(
                    options,
                    "\t:: atomic {{ ((!{dc}) || {err}) ->\n\t\tassert({dc});\t/* model error while evaluating the property */\n\t\tassert(!{err}) }}"
                );
            }
            if self.wide.get() {
                self.warnings.push(format!(
                    "property `{}`: some value may leave the 32-bit range of SPIN's int; weft computes in 64 bits",
                    p.name
                ));
            }
        }
        if has_monitor {
            let _ = write!(
                out,
                "\n/* The properties: enabled exactly in the error states, so pan (which tries every\n   enabled process in every stored state) fails an assert iff an error state is reachable. */\nproctype {}() {{\nend:\n\tdo\n{options}\tod\n}}\n",
                self.monitor
            );
            runs.push(format!("run {}()", self.monitor));
        } else {
            let _ = write!(
                out,
                "\n/* No property to check besides model errors (asserts in the processes), so there is no monitor process. */\n{options}"
            );
        }

        out.push_str("\n/* Initial values chosen by `init` (nondeterministic for \"any\"), then the processes;\n   atomic, so pan stores none of these intermediate states. */\ninit {\n\tatomic {\n");
        let mut stmts = init_code;
        stmts.extend(runs);
        if stmts.is_empty() {
            stmts.push("skip".into());
        }
        let body: Vec<String> = stmts
            .iter()
            .map(|s| format!("\t\t{}", s.replace('\n', "\n\t\t")))
            .collect();
        out.push_str(&body.join(";\n"));
        out.push_str("\n\t}\n}\n");
        Ok(out)
    }

    /// `run` statements for the instances of template `t`.
    fn runs(&self, t: usize) -> Vec<String> {
        let names = &self.tpls[t];
        (0..self.prog.templates[t].count)
            .map(|k| format!("run {}({k}, {})", names.proc, names.first + k as usize + 1))
            .collect()
    }

    /// The `do` loops of a process: one, labelled `end` (every state a
    /// valid end state), unless deadlocks are checked; then one per kind of
    /// location, `moving` (not final) and `end_rest` (final), the start's
    /// kind first, each with the transitions from its locations.
    fn loops(tpl: &crate::program::Template, deadlocks: bool) -> Vec<(String, Vec<u16>)> {
        let all: Vec<u16> = (0..tpl.locations.len() as u16).collect();
        if !deadlocks {
            return vec![("end".into(), all)];
        }
        let (fin, moving): (Vec<u16>, Vec<u16>) = all
            .into_iter()
            .partition(|&l| tpl.final_locations[l as usize]);
        let mut loops = vec![
            ("moving".to_string(), moving),
            ("end_rest".to_string(), fin),
        ];
        loops.retain(|(_, locs)| !locs.is_empty());
        if tpl.final_locations[tpl.start as usize] {
            loops.reverse();
        }
        loops
    }

    /// A rough size of pan's state vector in bytes: the variables, plus
    /// about 8 bytes of bookkeeping and parameters per process (measured:
    /// 204 bytes for lock(20, 1)).
    fn vector_estimate(&self) -> u64 {
        let prog = self.prog;
        let size = |d: &Domain| match ptype(d) {
            "short" => 2,
            "int" => 4,
            _ => 1,
        };
        let mut bytes: u64 = 16;
        for v in &prog.globals.vars {
            bytes += size(&v.domain) * v.len.unwrap_or(1) as u64;
        }
        for t in &prog.templates {
            let n = t.count as u64;
            bytes += n * if t.locations.len() <= 256 { 1 } else { 2 };
            for v in &t.locals.vars {
                bytes += n * size(&v.domain) * v.len.unwrap_or(1) as u64;
            }
            if !t.transitions.is_empty() {
                bytes += 8 * n;
            }
        }
        bytes + 16
    }

    /// The header comment; pan's default `VECTORSZ` is 1024 bytes, so a
    /// larger model gets the flag in the suggested command (and a warning).
    fn header(&mut self, out: &mut String) {
        let prog = self.prog;
        let estimate = self.vector_estimate();
        let vectorsz = if estimate > 900 {
            let n = (estimate * 3 / 2).div_ceil(1024) * 1024;
            self.warnings.push(format!(
                "the state vector is about {estimate} bytes, more than pan's default 1024: compile pan with -DVECTORSZ={n}"
            ));
            format!(" -DVECTORSZ={n}")
        } else {
            String::new()
        };
        let _ = write!(
            out,
            "/* SPIN model of the weft model `{}`, written by `weft convert --to promela`.\n\
             \n   Check it (see docs/promela.md):\n\
             \n       spin -a model.pml && gcc -O2 -DSAFETY -DNOREDUCE{vectorsz} -o pan pan.c && ./pan -m1000000\n\
             \n   errors: 0 means no error state and no run-time model error is reachable (weft: safe);\n\
             \x20  errors: 1 means an assert failed: a property's monitor option (weft: the property is\n\
             \x20  unsafe) or a model-error assert in a process (weft: model-errors is unsafe).\n\
             \x20  Replay the counterexample with `spin -t -p model.pml`.\n\
             \n   \"states, stored\" = weft's state count + 1 (SPIN's initial state, before `init` has run):\n\
             \x20  pan stores no state inside the atomic/d_step sequences. This holds when `spin` keeps\n\
             \x20  every variable: by default it hides variables that are written but never read, which\n\
             \x20  merges states; `spin -o2 -a` keeps them. Large models may need -DVECTORSZ=N (bytes\n\
             \x20  of state vector) or -DMEMLIM=N (MiB) when compiling pan.\n",
            comment(&prog.name)
        );
        if !prog.params.is_empty() {
            let ps: Vec<String> = prog
                .params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let _ = write!(out, "\n   Parameters: {}.\n", comment(&ps.join(", ")));
        }
        out.push_str("*/\n\n");
    }
}
