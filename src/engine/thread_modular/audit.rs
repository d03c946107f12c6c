//! Tests only: every fact's packed first derivation is a real rule
//! application of Flanagan and Qadeer §2.2 between facts of R: (AG INIT)
//! an initial thread state, (AG STEP) a successor of the parent by the
//! named transition, (AG ENV) the parent's local store moved along an edge
//! of another thread's guarantee, and the rendezvous' versions of both.

use super::ThreadModular;
use super::facts::Origin;

impl ThreadModular<'_> {
    /// Checks every fact's derivation link; the first bad one, described.
    pub(crate) fn audit_derivations(&mut self) -> Result<(), String> {
        let all = self.facts.all.clone();
        for (i, f) in all.iter().enumerate() {
            let u = f.unit as usize;
            let t = self.units.members[u][0];
            let k = self.units.members[u].len();
            let bad = |why: &str| Err(format!("fact {i} {f:?}: {why}"));
            if !self.rows[u].contains(f.g, f.l) {
                return bad("not in its row");
            }
            let parent = |p: u32| -> Result<(u32, u32), String> {
                match all.get(p as usize) {
                    Some(q) if (p as usize) < i && q.unit == f.unit => Ok((q.g, q.l)),
                    _ => Err(format!(
                        "fact {i} {f:?}: parent {p} is no earlier fact of it"
                    )),
                }
            };
            match self.facts.origin(f) {
                Origin::Init => {
                    if !self.exp.initial_thread_states(t).contains(&(f.g, f.l)) {
                        return bad("not initial");
                    }
                }
                Origin::Step { parent: p, trans } => {
                    let (g, l) = parent(p)?;
                    let succs = self.exp.successors(t, g, l);
                    if !succs
                        .steps
                        .iter()
                        .any(|s| (s.g, s.l, s.trans) == (f.g, f.l, trans))
                    {
                        return bad("not a successor of its parent");
                    }
                }
                Origin::Env { parent: p, by } => {
                    let (g, l) = parent(p)?;
                    self.env_link(i, f.g, f.l, g, l, u, by, k)?;
                }
                Origin::EnvAt { g, by } => self.env_link(i, f.g, f.l, g, f.l, u, by, k)?,
                Origin::Sync { g, l, partner, .. } => {
                    if !self.rows[u].contains(g, l) || partner as usize == t {
                        return bad("no rendezvous from a fact of R with another thread");
                    }
                }
                Origin::EnvPair { g, by, with } => {
                    let (a, b) = (by.min(with), by.max(with));
                    if !self.rows[u].contains(g, f.l)
                        || !self.pair_guarantee.contains(&(a, b, g, f.g))
                        || a as usize == t
                        || b as usize == t
                    {
                        return bad("no rendezvous edge of two other threads");
                    }
                }
            }
        }
        Ok(())
    }

    /// (AG ENV) from (g, l) to (g2, l2) by component `by`'s guarantee.
    #[allow(clippy::too_many_arguments)]
    fn env_link(
        &self,
        i: usize,
        g2: u32,
        l2: u32,
        g: u32,
        l: u32,
        u: usize,
        by: u32,
        k: usize,
    ) -> Result<(), String> {
        let by = by as usize;
        if l != l2 || g == g2 || !self.rows[u].contains(g, l) {
            return Err(format!("fact {i}: no environment step from a fact of R"));
        }
        if !self.guarantee[by].contains(&(g, g2)) {
            return Err(format!("fact {i}: the edge is not in G of component {by}"));
        }
        if by == u && k < 2 {
            return Err(format!("fact {i}: moved by its own thread's guarantee"));
        }
        Ok(())
    }
}
