//! The R facts in the order they were derived, 20 bytes each: the fact
//! (component, g, l) and its first derivation (Flanagan and Qadeer §2.2:
//! which of AG INIT, AG STEP, AG ENV gave it, and from which fact). The
//! array is also the worklist: facts are processed in the order they were
//! added, by a cursor, with no queue of their own.
//!
//! A derivation names its parent fact by index where the rule that made it
//! knew the index (a step, or an environment step taken while its parent
//! was processed), and by (g, l) otherwise (an environment step of a new
//! guarantee edge over the facts a row holds, a rendezvous with a partner
//! found in a row): rows hold bits, not indexes. A parent is always
//! derived before its child, so one backward pass over the array follows
//! every chain a witness needs (`chains`).

use rustc_hash::FxHashMap;

/// Kinds of derivation, in the top bits of `Fact::info`.
const INIT: u32 = 0;
/// (AG STEP): `from` is the parent's index, the payload the transition.
const STEP: u32 = 1;
/// (AG ENV) while the parent was processed: `from` is its index, the
/// payload the component whose guarantee edge moved it.
const ENV: u32 = 2;
/// (AG ENV) of a new guarantee edge: `from` is the parent's global store
/// (its local store is the fact's), the payload the component.
const ENV_AT: u32 = 3;
/// (AG STEP) of a rendezvous: the payload indexes `Facts::syncs`.
const SYNC: u32 = 4;
/// (AG ENV) of a rendezvous of two other threads: `from` is the parent's
/// global store, the payload indexes `Facts::pairs`.
const PAIR_AT: u32 = 5;

const KIND_SHIFT: u32 = 29;
/// Payloads (transitions, components, side-table indexes) fit below this.
pub(crate) const PAYLOAD_LIMIT: usize = 1 << KIND_SHIFT;

/// One R fact with its packed first derivation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fact {
    /// The component (a thread, or a class of interchangeable threads).
    pub(crate) unit: u32,
    pub(crate) g: u32,
    pub(crate) l: u32,
    from: u32,
    info: u32,
}

/// A derivation, unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// (AG INIT)
    Init,
    /// (AG STEP) from fact `parent` by transition `trans`.
    Step { parent: u32, trans: u32 },
    /// (AG ENV) from fact `parent` by a guarantee edge of component `by`.
    Env { parent: u32, by: u32 },
    /// (AG ENV) from (g, the same l) by a guarantee edge of component `by`.
    EnvAt { g: u32, by: u32 },
    /// (AG STEP) of a rendezvous: from (g, l) by transition `trans`,
    /// together with thread `partner`.
    Sync {
        g: u32,
        l: u32,
        trans: u32,
        partner: u32,
    },
    /// (AG ENV) from (g, the same l) by a rendezvous of threads `by` and
    /// `with`.
    EnvPair { g: u32, by: u32, with: u32 },
}

/// The facts, and the side tables of the rare derivations that need more
/// than two words.
#[derive(Default)]
pub(crate) struct Facts {
    pub(crate) all: Vec<Fact>,
    /// (g, l, transition, partner) of each rendezvous step.
    syncs: Vec<[u32; 4]>,
    /// (thread, thread) of each environment step of a rendezvous.
    pairs: Vec<[u32; 2]>,
}

impl Facts {
    /// Appends a fact; `None` if its derivation does not fit the packing
    /// (more than 2^29 rendezvous facts: the caller stops the run).
    pub(crate) fn push(&mut self, unit: u32, g: u32, l: u32, origin: Origin) -> Option<()> {
        let (kind, from, payload) = match origin {
            Origin::Init => (INIT, 0, 0),
            Origin::Step { parent, trans } => (STEP, parent, trans as usize),
            Origin::Env { parent, by } => (ENV, parent, by as usize),
            Origin::EnvAt { g, by } => (ENV_AT, g, by as usize),
            Origin::Sync {
                g,
                l,
                trans,
                partner,
            } => {
                self.syncs.push([g, l, trans, partner]);
                (SYNC, 0, self.syncs.len() - 1)
            }
            Origin::EnvPair { g, by, with } => {
                self.pairs.push([by, with]);
                (PAIR_AT, g, self.pairs.len() - 1)
            }
        };
        if payload >= PAYLOAD_LIMIT || self.all.len() >= u32::MAX as usize {
            return None;
        }
        self.all.push(Fact {
            unit,
            g,
            l,
            from,
            info: kind << KIND_SHIFT | payload as u32,
        });
        Some(())
    }

    pub(crate) fn len(&self) -> usize {
        self.all.len()
    }

    pub(crate) fn origin(&self, f: &Fact) -> Origin {
        let payload = f.info & (PAYLOAD_LIMIT as u32 - 1);
        match f.info >> KIND_SHIFT {
            STEP => Origin::Step {
                parent: f.from,
                trans: payload,
            },
            ENV => Origin::Env {
                parent: f.from,
                by: payload,
            },
            ENV_AT => Origin::EnvAt {
                g: f.from,
                by: payload,
            },
            SYNC => {
                let [g, l, trans, partner] = self.syncs[payload as usize];
                Origin::Sync {
                    g,
                    l,
                    trans,
                    partner,
                }
            }
            PAIR_AT => {
                let [by, with] = self.pairs[payload as usize];
                Origin::EnvPair {
                    g: f.from,
                    by,
                    with,
                }
            }
            _ => Origin::Init,
        }
    }

    /// For each wanted fact (component, g, l), the indexes of its chain of
    /// first derivations, from the fact back to (AG INIT): one backward
    /// pass over the array (a parent precedes its child). A fact that is
    /// not in R gives an empty chain.
    pub(crate) fn chains(&self, wanted: &[(u32, u32, u32)]) -> Vec<Vec<u32>> {
        let mut chains = vec![Vec::new(); wanted.len()];
        let mut by_key: FxHashMap<(u32, u32, u32), Vec<usize>> = FxHashMap::default();
        let mut by_index: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
        for (c, &key) in wanted.iter().enumerate() {
            by_key.entry(key).or_default().push(c);
        }
        for (i, f) in self.all.iter().enumerate().rev() {
            if by_key.is_empty() && by_index.is_empty() {
                break;
            }
            let mut here = by_index.remove(&(i as u32)).unwrap_or_default();
            if let Some(more) = by_key.remove(&(f.unit, f.g, f.l)) {
                here.extend(more);
            }
            if here.is_empty() {
                continue;
            }
            for &c in &here {
                chains[c].push(i as u32);
            }
            match self.origin(f) {
                Origin::Init => {}
                Origin::Step { parent, .. } | Origin::Env { parent, .. } => {
                    by_index.entry(parent).or_default().extend(here)
                }
                Origin::EnvAt { g, .. } | Origin::EnvPair { g, .. } => {
                    by_key.entry((f.unit, g, f.l)).or_default().extend(here)
                }
                Origin::Sync { g, l, .. } => by_key.entry((f.unit, g, l)).or_default().extend(here),
            }
        }
        chains
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_origin_packs_and_unpacks_to_itself() {
        let origins = [
            Origin::Init,
            Origin::Step {
                parent: 7,
                trans: 3,
            },
            Origin::Env { parent: 9, by: 4 },
            Origin::EnvAt { g: 11, by: 5 },
            Origin::Sync {
                g: 1,
                l: 2,
                trans: 3,
                partner: 4,
            },
            Origin::EnvPair {
                g: 6,
                by: 7,
                with: 8,
            },
        ];
        let mut facts = Facts::default();
        for (i, o) in origins.iter().enumerate() {
            facts.push(1, i as u32, 2, *o).unwrap();
        }
        for (f, o) in facts.all.iter().zip(&origins) {
            assert_eq!(facts.origin(f), *o);
        }
        // A payload beyond 29 bits is refused, not truncated.
        let big = Origin::Step {
            parent: 0,
            trans: PAYLOAD_LIMIT as u32,
        };
        assert!(facts.push(0, 0, 0, big).is_none());
    }
}
