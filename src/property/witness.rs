//! The witness search of the Cartesian decision procedure (the module
//! header of `property.rs`): a dynamic programme over the threads that
//! tracks the reachable vectors of term values at one global store.
//!
//! refine asks it once per product of every round (simple-bool, at.1:
//! millions of times), so its buffers live in a `WitnessScratch` the caller
//! keeps: the vectors of a layer are one flat array, found through a hash
//! table of their indexes, with no allocation per vector.

use super::{Decider, MAX_VECTORS, Term};
use crate::program::{Ctx, EvalError, Explorer};
use hashbrown::HashTable;
use rustc_hash::FxHashMap;
use std::hash::BuildHasher;

/// `Decider::witness`'s buffers, reused from call to call.
#[derive(Default)]
pub(crate) struct WitnessScratch {
    /// The current layer's vectors, `width` values each, one after another.
    vectors: Vec<i64>,
    /// The next layer's, and their indexes hashed by value.
    next: Vec<i64>,
    next_index: HashTable<u32>,
    /// Back-pointers per layer: (vector of the previous layer, local store).
    back: Vec<(usize, u32)>,
    /// Where each layer starts in `back`.
    starts: Vec<usize>,
    relevant: Vec<usize>,
    contrib: Vec<i64>,
    w: Vec<i64>,
}

fn hash(v: &[i64]) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(v)
}

impl Decider {
    /// Is there `(g, l_1..l_n)` with `l_t ∈ cands[t]` satisfying the
    /// predicate? Returns one such choice of local stores.
    pub(crate) fn witness(
        &self,
        exp: &Explorer,
        g: u32,
        cands: &[&[u32]],
    ) -> Result<Option<Vec<u32>>, EvalError> {
        self.witness_with(exp, g, cands, &mut WitnessScratch::default())
    }

    /// `witness` with the caller's buffers.
    pub(crate) fn witness_with(
        &self,
        exp: &Explorer,
        g: u32,
        cands: &[&[u32]],
        s: &mut WitnessScratch,
    ) -> Result<Option<Vec<u32>>, EvalError> {
        let prog = exp.prog;
        let gs = exp.globals.get(g);
        if cands.iter().any(|c| c.is_empty()) {
            return Ok(None);
        }
        // Layered DP: vectors of term values (`width` each, all zero at
        // first); back-pointers per layer, all layers in one array
        // (`back[starts[t]..starts[t + 1]]`).
        let width = self.terms.len();
        s.vectors.clear();
        s.vectors.resize(width, 0);
        let mut count = 1;
        s.back.clear();
        s.starts.clear();
        // The previous thread's layer: its template, relevant terms,
        // candidates, contribution types, and whether it left the vectors
        // as they were. A thread of the same template with the same
        // candidates has the same types when no term reads `tid`; after a
        // layer that changed nothing, the same types change nothing again
        // and its back-pointers are the previous layer's.
        let mut prev: Option<(usize, Vec<usize>, &[u32])> = None;
        let mut types: FxHashMap<Vec<i64>, u32> = FxHashMap::default();
        let mut stable = false;
        // Where the last layer with relevant terms lies in `back`.
        let mut last_layer = 0..0;
        for (t, cand) in cands.iter().enumerate() {
            s.starts.push(s.back.len());
            s.relevant.clear();
            s.relevant
                .extend((0..width).filter(|&k| match &self.terms[k] {
                    Term::Count { member, .. } => member[t],
                    Term::Inst { thread, .. } => *thread == t,
                }));
            if s.relevant.is_empty() {
                // Any choice will do: keep the vectors, remember one local.
                s.back.extend((0..count).map(|i| (i, cand[0])));
                continue;
            }
            let template = prog.threads[t].template as usize;
            let same = self.tid_free
                && prev.as_ref().is_some_and(|(tpl, rel, c)| {
                    *tpl == template && *rel == s.relevant && *c == *cand
                });
            if same && stable {
                let at = s.back.len();
                s.back.extend_from_within(last_layer.clone());
                last_layer = at..s.back.len();
                continue;
            }
            if !same {
                // Distinct contributions of this thread's candidates (a
                // fresh map: its iteration order picks the witness).
                types = FxHashMap::default();
                for &l in cand.iter() {
                    let ctx = Ctx {
                        g: gs,
                        tid: prog.threads[t].tid,
                        template,
                        l: exp.local(t, l),
                        state: None,
                        terms: &[],
                    };
                    s.contrib.clear();
                    for &k in &s.relevant {
                        s.contrib.push(match &self.terms[k] {
                            Term::Count { body, .. } => (body.eval(&ctx)? != 0) as i64,
                            Term::Inst { value, .. } => value.eval(&ctx)?,
                        });
                    }
                    if !types.contains_key(s.contrib.as_slice()) {
                        types.insert(s.contrib.clone(), l);
                    }
                }
                prev = Some((template, s.relevant.clone(), cand));
            }
            s.next.clear();
            s.next_index.clear();
            let mut next_count = 0;
            let at = s.back.len();
            for i in 0..count {
                for (contrib, &l) in &types {
                    s.w.clear();
                    s.w.extend_from_slice(&s.vectors[i * width..(i + 1) * width]);
                    for (j, &k) in s.relevant.iter().enumerate() {
                        s.w[k] = match &self.terms[k] {
                            Term::Count { cap, .. } => (s.w[k] + contrib[j]).min(*cap),
                            Term::Inst { .. } => contrib[j],
                        };
                    }
                    let h = hash(&s.w);
                    let (w, next) = (&s.w, &s.next);
                    let present = s
                        .next_index
                        .find(h, |&x| {
                            let x = x as usize;
                            next[x * width..(x + 1) * width] == w[..]
                        })
                        .is_some();
                    if !present {
                        if next_count >= MAX_VECTORS {
                            return Err(EvalError::new(format!(
                                "the property's decision procedure tracked more than {MAX_VECTORS} combinations of count(...) and named-instance values at one global store; split the property, or use --mode standard"
                            )));
                        }
                        let next = &s.next;
                        s.next_index.insert_unique(h, next_count as u32, |&x| {
                            let x = x as usize;
                            hash(&next[x * width..(x + 1) * width])
                        });
                        s.next.extend_from_slice(&s.w);
                        next_count += 1;
                        s.back.push((i, l));
                    }
                }
            }
            last_layer = at..s.back.len();
            stable = next_count == count && s.next == s.vectors;
            std::mem::swap(&mut s.vectors, &mut s.next);
            count = next_count;
        }
        s.starts.push(s.back.len());
        for i in 0..count {
            let ctx = Ctx {
                terms: &s.vectors[i * width..(i + 1) * width],
                ..Ctx::global(gs, None)
            };
            if self.root.eval(&ctx)? != 0 {
                // Rebuild the choice of local stores.
                let mut choice = vec![0u32; cands.len()];
                let mut at = i;
                for t in (0..cands.len()).rev() {
                    let (prev, l) = s.back[s.starts[t] + at];
                    choice[t] = l;
                    at = prev;
                }
                return Ok(Some(choice));
            }
        }
        Ok(None)
    }
}
