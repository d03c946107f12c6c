//! Promela names: every global, template pc, local array, proctype and
//! parameter gets a name no Promela, C or pan.c identifier takes; and the
//! Promela text of a reference to a pc, a local (a cell of a global array
//! indexed by instance) or a global.

use super::{Error, Exporter, TplNames, Who};
use crate::program::Program;
use std::cell::Cell;
use std::collections::HashSet;

/// Promela keywords, C keywords and identifiers of SPIN's generated
/// verifier (pan.c) that a model name must not take (space-separated).
const RESERVED: &[&str] = &[
    // Promela
    "active assert atomic bit bool break byte chan d_step D_proctype do else empty",
    "enabled eval false fi for full get_priority goto hidden if in init inline int len",
    "local ltl mtype nempty never nfull notrace np_ od of pc_value pid print printf",
    "printm priority proctype provided run select set_priority short show skip timeout",
    "trace true typedef unless unsigned xr xs c_code c_decl c_expr c_state c_track end",
    "accept progress always eventually until weak stronger implies equivalent release",
    "STDIN _ _pid _nr_pr _last _priority _p",
    // C
    "auto case char const continue default double enum extern float long register",
    "restrict return signed sizeof static struct switch union void volatile while main",
    // pan.c
    "now uchar ushort uint ulong VECTORSZ MEMLIM SAFETY NOREDUCE BFS MAXPROC MAXQ NCORE",
    "BASE HASH COLLAPSE BITSTATE VERI SYNC ASYNC GLOBAL LOCAL VERBOSE DEBUG NOCOMP NOFAIR",
    "NFAIR FULLSTACK CNTRSTACK MA W_XPT HC HC4 PMAX QMAX WS TRANSITIONS Index cas",
    "enter_critical leave_critical final mix rot max wasnew pptr qptr q_sz grab_state",
    "getframe iam_alive onstack_now onstack_put onstack_zap get16bits get_permuted",
    "Offsetof Addproc INRANGE BAD CHECK QUIT CONTINUE DELTA MERGED NTRANS LONG_T SHORT_T",
    "OFFT Pinit Pclaim Uerror uerror depth trpt tt ot II JJ From To",
];

/// Allocates Promela names: the wanted name if it is free, else `name_1`,
/// `name_2`, ...
#[derive(Default)]
struct Names {
    used: HashSet<String>,
}

impl Names {
    fn new() -> Names {
        Names {
            used: RESERVED
                .iter()
                .flat_map(|s| s.split_whitespace())
                .map(str::to_string)
                .collect(),
        }
    }
    fn fresh(&mut self, want: &str) -> String {
        // Leading underscores are SPIN's and the C compiler's.
        let base = if want.starts_with('_') {
            format!("w{want}")
        } else {
            want.to_string()
        };
        let mut name = base.clone();
        let mut k = 1;
        while self.used.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.used.insert(name.clone());
        name
    }
    /// A proctype name: pan also defines `P<name>` as a macro.
    fn fresh_proc(&mut self, want: &str) -> String {
        loop {
            let name = self.fresh(want);
            if self.used.insert(format!("P{name}")) {
                return name;
            }
        }
    }
}

/// Per slot of a layout: (variable index, offset in the variable). Slot 0
/// of a local layout (the pc) belongs to no variable.
fn slots_of(vars: &[crate::program::Var], slots: u32) -> Vec<(usize, u32)> {
    let mut out = vec![(usize::MAX, 0); slots as usize];
    for (vi, v) in vars.iter().enumerate() {
        for k in 0..v.len.unwrap_or(1) {
            out[(v.slot + k) as usize] = (vi, k);
        }
    }
    out
}

impl<'p> Exporter<'p> {
    pub(super) fn new(prog: &'p Program) -> Exporter<'p> {
        let mut names = Names::new();
        let globals: Vec<String> = prog
            .globals
            .vars
            .iter()
            .map(|v| names.fresh(&v.name))
            .collect();
        let gslot = slots_of(&prog.globals.vars, prog.globals.slots);
        let mut tpls = Vec::new();
        let mut first = 0usize;
        for t in &prog.templates {
            let proc = names.fresh_proc(&t.name);
            let pc = names.fresh(&format!("pc_{}", t.name));
            let locals = t
                .locals
                .vars
                .iter()
                .map(|v| names.fresh(&format!("{}_{}", v.name, t.name)))
                .collect();
            tpls.push(TplNames {
                proc,
                pc,
                locals,
                slot: slots_of(&t.locals.vars, t.locals.slots),
                first,
            });
            first += t.count as usize;
        }
        // Each thread's template and its index among that template's threads.
        let mut seen = vec![0u32; prog.templates.len()];
        let mut inst = Vec::new();
        for th in &prog.threads {
            let t = th.template as usize;
            inst.push((t, seen[t]));
            seen[t] += 1;
        }
        let monitor = names.fresh_proc("monitor");
        let p_inst = names.fresh("i");
        let p_tid = names.fresh("tid");
        Exporter {
            prog,
            globals,
            gslot,
            tpls,
            inst,
            p_inst,
            p_tid,
            monitor,
            wide: Cell::new(false),
            warnings: Vec::new(),
        }
    }
}

impl Exporter<'_> {
    pub(super) fn template_of(&self, who: Who) -> Option<usize> {
        match who {
            Who::Proc(t) => Some(t),
            Who::Thread(th) => Some(self.inst[th].0),
            Who::Global => None,
        }
    }

    /// The instance index as Promela text.
    fn instance(&self, who: Who) -> Result<String, Error> {
        match who {
            Who::Proc(_) => Ok(self.p_inst.clone()),
            Who::Thread(th) => Ok(self.inst[th].1.to_string()),
            Who::Global => Err(Error::Internal(
                "a thread-local expression outside any thread",
            )),
        }
    }

    pub(super) fn pc(&self, who: Who) -> Result<String, Error> {
        let t = self
            .template_of(who)
            .ok_or(Error::Internal("`@L` outside any thread"))?;
        Ok(format!("{}[{}]", self.tpls[t].pc, self.instance(who)?))
    }

    /// A local cell: variable `vi` of template `t`, cell `cell` (text, for
    /// arrays) of instance `inst`.
    fn local_ref(&self, t: usize, vi: usize, inst: &str, cell: Option<&str>) -> String {
        let var = &self.prog.templates[t].locals.vars[vi];
        let name = &self.tpls[t].locals[vi];
        match (var.len, cell) {
            (Some(len), Some(c)) => match (inst.parse::<u64>(), c.parse::<u64>()) {
                (Ok(k), Ok(j)) => format!("{name}[{}]", k * len as u64 + j),
                (Ok(0), Err(_)) => format!("{name}[{c}]"),
                (Ok(k), Err(_)) => format!("{name}[{} + {c}]", k * len as u64),
                (Err(_), _) => format!("{name}[{inst} * {len} + {c}]"),
            },
            (Some(len), None) => format!("{name}[{inst} * {len}]"),
            (None, _) => format!("{name}[{inst}]"),
        }
    }

    pub(super) fn local_slot(&self, who: Who, slot: u32) -> Result<String, Error> {
        let t = self
            .template_of(who)
            .ok_or(Error::Internal("a local outside any thread"))?;
        if slot == 0 {
            return self.pc(who);
        }
        let (vi, off) = self.tpls[t].slot[slot as usize];
        let cell = off.to_string();
        let has_len = self.prog.templates[t].locals.vars[vi].len.is_some();
        Ok(self.local_ref(
            t,
            vi,
            &self.instance(who)?,
            has_len.then_some(cell.as_str()),
        ))
    }

    pub(super) fn local_cell(&self, who: Who, base: u32, idx: &str) -> Result<String, Error> {
        let t = self
            .template_of(who)
            .ok_or(Error::Internal("a local outside any thread"))?;
        let (vi, _) = self.tpls[t].slot[base as usize];
        Ok(self.local_ref(t, vi, &self.instance(who)?, Some(idx)))
    }

    pub(super) fn global_slot(&self, slot: u32) -> String {
        let (vi, off) = self.gslot[slot as usize];
        match self.prog.globals.vars[vi].len {
            Some(_) => format!("{}[{off}]", self.globals[vi]),
            None => self.globals[vi].clone(),
        }
    }

    pub(super) fn global_cell(&self, base: u32, idx: &str) -> String {
        let (vi, _) = self.gslot[base as usize];
        format!("{}[{idx}]", self.globals[vi])
    }
}
