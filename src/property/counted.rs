//! Error predicates on counter states (`standard --symmetry`, the counter
//! representation of `engine/standard/counter.rs`): a count over a
//! template is the sum, over its local stores, of the counter times the
//! body's value there (Pnueli, Xu and Zuck's counter abstraction reads
//! counts off the counters the same way); the body is evaluated once per
//! local store some thread is at, not once per thread. `Symmetry::detect`
//! keeps a block out of the reduction when a property could tell its
//! threads apart (a named instance, a count body reading `tid`, a count
//! over part of the block), so every term sees a block whole.

use super::{ConcreteChecker, Term, holds};
use crate::program::{CExpr, Ctx, EvalError, Explorer, Val};

/// Where the parts of a counter state `[g, solo locals.., counters..]` are.
#[derive(Clone, Debug)]
pub(crate) struct CountedLayout {
    /// The threads outside every block, at positions 1.. in order.
    pub(crate) solo: Vec<usize>,
    /// Per block: first thread, number of threads, position of the counter
    /// of local store 0 (local store d's counter is at base + d).
    pub(crate) blocks: Vec<(usize, usize, usize)>,
}

/// Per term, what of a counter state it reads.
#[derive(Clone, Debug)]
pub(super) struct CountedTerms {
    /// Per term: the solo members as (position, thread).
    solo: Vec<Vec<(usize, usize)>>,
    /// Per term: the blocks whose threads are members.
    blocks: Vec<Vec<usize>>,
    /// Per thread: its position when it is solo.
    pos_of: Vec<Option<usize>>,
    layout: CountedLayout,
}

impl ConcreteChecker {
    /// The same checker, prepared for counter states of this layout.
    pub(crate) fn with_counters(mut self, layout: &CountedLayout) -> ConcreteChecker {
        let threads = layout.solo.len() + layout.blocks.iter().map(|b| b.1).sum::<usize>();
        let mut pos_of = vec![None; threads];
        for (j, &t) in layout.solo.iter().enumerate() {
            pos_of[t] = Some(1 + j);
        }
        let (mut solo, mut blocks) = (Vec::new(), Vec::new());
        for term in &self.split.terms {
            match term {
                Term::Count { member, .. } => {
                    solo.push(
                        layout
                            .solo
                            .iter()
                            .enumerate()
                            .filter(|&(_, &t)| member[t])
                            .map(|(j, &t)| (1 + j, t))
                            .collect(),
                    );
                    blocks.push(
                        (0..layout.blocks.len())
                            .filter(|&k| member[layout.blocks[k].0])
                            .collect(),
                    );
                }
                Term::Inst { .. } => {
                    solo.push(Vec::new());
                    blocks.push(Vec::new());
                }
            }
        }
        self.counted = Some(Box::new(CountedTerms {
            solo,
            blocks,
            pos_of,
            layout: layout.clone(),
        }));
        self
    }

    /// Does the predicate hold in the counter state? As `holds` on any
    /// state of its orbit (`materialise` gives one, for the fallback when
    /// a term fails, so that errors and short-circuits are `holds`'s).
    pub(crate) fn holds_counted(
        &mut self,
        error: &CExpr,
        exp: &Explorer,
        state: &[u32],
        materialise: impl FnOnce() -> Vec<u32>,
    ) -> Result<bool, EvalError> {
        let gs = exp.globals.get(state[0]);
        for k in 0..self.split.terms.len() {
            match self.counted_term(k, exp, gs, state) {
                Some(Ok(v)) => self.values[k] = v,
                _ => {
                    let st = materialise();
                    return holds(error, exp, st[0], &st[1..]);
                }
            }
        }
        let ctx = Ctx {
            terms: &self.values,
            ..Ctx::global(gs, None)
        };
        Ok(self.split.root.eval(&ctx)? != 0)
    }

    /// Term k on a counter state; `None` when the checker was not prepared
    /// for counter states or the term reads a thread inside a block.
    fn counted_term(
        &mut self,
        k: usize,
        exp: &Explorer,
        gs: &[Val],
        state: &[u32],
    ) -> Option<Result<i64, EvalError>> {
        let c = self.counted.as_deref()?;
        let prog = exp.prog;
        let ctx = |t: usize, l: u32| Ctx {
            g: gs,
            tid: prog.threads[t].tid,
            template: prog.threads[t].template as usize,
            l: exp.local(t, l),
            state: None,
            terms: &[],
        };
        let body = match &self.split.terms[k] {
            Term::Inst { thread, value } => {
                let pos = c.pos_of.get(*thread).copied().flatten()?;
                return Some(value.eval(&ctx(*thread, state[pos])));
            }
            Term::Count { body, .. } => body,
        };
        // Each (thread, local store, multiplicity) the count sums over.
        let solo = c.solo[k].iter().map(|&(p, t)| (t, state[p], 1));
        let blocks = c.blocks[k].iter().flat_map(|&b| {
            let (first, _, base) = c.layout.blocks[b];
            let end = c.layout.blocks.get(b + 1).map_or(state.len(), |x| x.2);
            (base..end)
                .filter(|&p| state[p] > 0)
                .map(move |p| (first, (p - base) as u32, i64::from(state[p])))
        });
        let mut n = 0;
        for (t, l, times) in solo.chain(blocks) {
            let v = match &mut self.memo[k] {
                Some(memo) => {
                    let row = &mut memo[prog.threads[t].template as usize];
                    let li = l as usize;
                    if row.len() <= li {
                        row.resize(li + 1, -1);
                    }
                    if row[li] < 0 {
                        row[li] = match body.eval(&ctx(t, l)) {
                            Ok(v) => (v != 0) as i8,
                            Err(e) => return Some(Err(e)),
                        };
                    }
                    i64::from(row[li])
                }
                None => match body.eval(&ctx(t, l)) {
                    Ok(v) => (v != 0) as i64,
                    Err(e) => return Some(Err(e)),
                },
            };
            n += v * times;
        }
        Some(Ok(n))
    }
}
