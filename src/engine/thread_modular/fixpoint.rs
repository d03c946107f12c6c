//! The worklist of Flanagan and Qadeer §2.2 over components: (AG INIT),
//! (AG STEP) and (AG ENV), and their extension to rendezvous. Each new R
//! fact is stepped once and exposed once to the guarantee edges that exist
//! when it is processed; each new guarantee edge is applied once to the
//! facts that exist at its source. No global re-iteration.
//!
//! With components of interchangeable threads (`super::Units`), the rules
//! are the same over the component's shared R and G, except that a
//! component's own guarantee applies to its own R only when it has two or
//! more threads: (AG ENV) moves thread i by a step of thread j ≠ i.

use super::ThreadModular;
use super::facts::Origin;
use super::rows::Bits;
use crate::engine::rendezvous::Offered;

impl ThreadModular<'_> {
    /// Adds R(u, g, l) if it is new (and |R| is under the cap).
    #[inline]
    pub(super) fn add_reach(&mut self, u: usize, g: u32, l: u32, origin: Origin) {
        self.rule_applications += 1;
        if self.reach_count >= self.cap || !self.rows[u].insert(g, l) {
            return;
        }
        self.reach_count += self.units.members[u].len();
        if self.facts.push(u as u32, g, l, origin).is_none() && self.overflow.is_none() {
            self.overflow = Some("more facts or rendezvous than the packed derivations hold");
        }
    }

    /// Processes fact `i`: its steps, its rendezvous, and the guarantee
    /// edges from its global store.
    pub(super) fn process(&mut self, i: u32) {
        let f = self.facts.all[i as usize];
        let (u, g, l) = (f.unit as usize, f.g, f.l);
        let t = self.units.members[u][0];
        // (AG STEP): the component's own steps, and the guarantees they give.
        let succs = self.exp.successors_once(t, g, l);
        if let (Some((_, msg)), None) = (&succs.error, &self.model_error) {
            self.model_error = Some((t, g, l, msg.clone()));
        }
        for s in &succs.steps {
            self.add_reach(
                u,
                s.g,
                s.l,
                Origin::Step {
                    parent: i,
                    trans: s.trans,
                },
            );
            self.add_guarantee(u, g, s.g);
        }
        if !self.exp.prog.channels.is_empty() {
            self.rendezvous(t, g, l);
        }
        // (AG ENV): steps of the other components from this global store
        // (and of the component itself, when it has two threads or more).
        // The edges are taken out while facts are added (adding R facts
        // never adds guarantee edges), to avoid copying them, and put back
        // in place (no rehash).
        let itself = self.units.members[u].len() >= 2;
        if let Some(edges) = self.guar_from.get_mut(&g).map(std::mem::take) {
            for &(d, g2) in &edges {
                if d as usize != u || itself {
                    self.add_reach(u, g2, l, Origin::Env { parent: i, by: d });
                }
            }
            if let Some(slot) = self.guar_from.get_mut(&g) {
                *slot = edges;
            }
        }
        if let Some(edges) = self.pair_from.get_mut(&g).map(std::mem::take) {
            // Rendezvous components are single threads (`Units::new`).
            for &(a, b, g2) in &edges {
                if a as usize != t && b as usize != t {
                    self.add_reach(u, g2, l, Origin::EnvPair { g, by: a, with: b });
                }
            }
            if let Some(slot) = self.pair_from.get_mut(&g) {
                *slot = edges;
            }
        }
    }

    /// (AG STEP) for rendezvous: the joint steps of thread t at l with the
    /// other threads' R facts at g, in either role. Components are single
    /// threads when the program has channels.
    fn rendezvous(&mut self, t: usize, g: u32, l: u32) {
        let mut offered = Offered::new(g);
        if offered.add(&mut self.exp, t, l) {
            for u in (0..self.rows.len()).filter(|&u| u != t) {
                for lu in self.rows[u].locals(g) {
                    offered.add(&mut self.exp, u, lu);
                }
            }
        }
        let joints = offered.joint_steps(&mut self.exp, |s, r| s.0 == t || r.0 == t);
        if let (Some((u, lu, msg)), None) = (offered.errors.first(), &self.model_error) {
            self.model_error = Some((*u, g, *lu, msg.clone()));
        }
        for j in joints {
            let s = j.step;
            let (a, b) = (s.sender as u32, s.receiver as u32);
            let from_send = Origin::Sync {
                g,
                l: j.from_send,
                trans: s.send_trans,
                partner: b,
            };
            self.add_reach(s.sender, s.g, s.l_send, from_send);
            let from_recv = Origin::Sync {
                g,
                l: j.from_recv,
                trans: s.recv_trans,
                partner: a,
            };
            self.add_reach(s.receiver, s.g, s.l_recv, from_recv);
            self.add_pair_guarantee(a.min(b), a.max(b), g, s.g);
        }
    }

    /// A guarantee edge of the rendezvous of threads a < b: (AG ENV) for
    /// the R facts of every other thread that already exist at g.
    fn add_pair_guarantee(&mut self, a: u32, b: u32, g: u32, g2: u32) {
        if !self.pair_guarantee.insert((a, b, g, g2)) || g == g2 {
            return;
        }
        self.pair_from.entry(g).or_default().push((a, b, g2));
        for t in 0..self.rows.len() {
            if t == a as usize || t == b as usize {
                continue;
            }
            self.env_over_row(t, g, g2, Origin::EnvPair { g, by: a, with: b });
        }
    }

    /// A guarantee edge of component d: (AG ENV) for the R facts that
    /// already exist at g (a fact added later meets it in `process`).
    fn add_guarantee(&mut self, d: usize, g: u32, g2: u32) {
        if !self.guarantee[d].insert((g, g2)) || g == g2 {
            return; // a stuttering edge changes nobody's view
        }
        self.guar_from.entry(g).or_default().push((d as u32, g2));
        for u in 0..self.rows.len() {
            if u != d || self.units.members[u].len() >= 2 {
                let by = d as u32;
                self.env_over_row(u, g, g2, Origin::EnvAt { g, by });
            }
        }
    }

    /// Moves every local store of component u at g to g2 ≠ g: a union of
    /// the row's bits (read before any is added: g2's row is another).
    fn env_over_row(&mut self, u: usize, g: u32, g2: u32, origin: Origin) {
        let word = self.rows[u].word(g);
        for l in Bits(word) {
            self.add_reach(u, g2, l, origin);
        }
        if !self.rows[u].high(g).is_empty() {
            // Copied: adding facts borrows the rows mutably.
            let high: Vec<u32> = self.rows[u].high(g).to_vec();
            for l in high {
                self.add_reach(u, g2, l, origin);
            }
        }
    }
}
