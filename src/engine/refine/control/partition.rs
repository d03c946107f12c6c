//! Partitions of control locations and how a spurious path changes them:
//! Gupta, Popeea and Rybalchenko, "Non-monotonic refinement of control
//! abstraction for concurrent programs", §5, Fig. 4 (NONMONCONTROLREFINE:
//! the fewest classes that separate at least one mismatch of every spurious
//! path seen so far, solved with a SAT solver), and the monotonic baseline
//! of §2 and Table 1 (each path splits two locations off for good).
//!
//! Classes are per template: a thread only ever compares another thread's
//! location with that thread's own locations, so a class never needs to
//! span two templates (the paper's PC_1 and PC_2 are separate classes too).
//! Instances of one template share its partition.

use crate::program::Program;
use rustc_hash::FxHashSet;
use splr::Certificate;
use std::collections::BTreeSet;

/// A control location: (template, location index).
pub(crate) type Key = (u32, u16);

/// ℓ ≢ ℓ′: one root cause of a spurious path (Fig. 4, line 14), with the
/// smaller key first. Both keys belong to one template.
pub(crate) type Mismatch = (Key, Key);

/// Ψ for one spurious path: separating any one of its mismatches excludes it.
pub(crate) type Clause = Vec<Mismatch>;

/// An equivalence of control locations: a class per location, per template,
/// and the locations whose local stores are told apart as well (data).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Partition {
    class: Vec<Vec<u16>>,
    /// Locations at which the others also see the thread's own variables:
    /// the data refinement that the paper's tool does with predicates,
    /// monotonically, for paths no partition of locations excludes (§6).
    exploded: BTreeSet<Key>,
}

impl Partition {
    /// One class per template: plain thread-modular reasoning.
    pub(crate) fn coarsest(prog: &Program) -> Partition {
        Partition {
            class: prog
                .templates
                .iter()
                .map(|t| vec![0; t.locations.len()])
                .collect(),
            exploded: BTreeSet::new(),
        }
    }

    /// A partition given class by class (tests draw random ones).
    #[cfg(test)]
    pub(crate) fn from_classes(class: Vec<Vec<u16>>, exploded: BTreeSet<Key>) -> Partition {
        Partition { class, exploded }
    }

    pub(crate) fn class(&self, template: usize, location: u16) -> u16 {
        self.class[template][location as usize]
    }

    /// Are local stores at this location told apart?
    pub(crate) fn exploded(&self, template: usize, location: u16) -> bool {
        self.exploded.contains(&(template as u32, location))
    }

    /// How many locations have their local stores told apart.
    pub(crate) fn data_locations(&self) -> usize {
        self.exploded.len()
    }

    /// |≡|: the classes of all templates together.
    pub(crate) fn count(&self) -> usize {
        self.class
            .iter()
            .map(|c| c.iter().collect::<BTreeSet<_>>().len())
            .sum()
    }

    /// Does the partition separate at least one mismatch of `clause`?
    #[cfg(test)]
    pub(crate) fn excludes(&self, clause: &Clause) -> bool {
        clause
            .iter()
            .any(|&((t, a), (_, b))| self.class(t as usize, a) != self.class(t as usize, b))
    }

    /// The classes as location names, per template.
    pub(crate) fn describe(&self, prog: &Program) -> Vec<(String, Vec<Vec<String>>)> {
        prog.templates
            .iter()
            .zip(&self.class)
            .map(|(tpl, class)| {
                let ids: BTreeSet<u16> = class.iter().copied().collect();
                let classes = ids
                    .iter()
                    .map(|&c| {
                        (0..class.len())
                            .filter(|&l| class[l] == c)
                            .map(|l| tpl.locations[l].clone())
                            .collect()
                    })
                    .collect();
                (tpl.name.clone(), classes)
            })
            .collect()
    }

    /// The exploded locations as `template@location`.
    pub(crate) fn describe_data(&self, prog: &Program) -> Vec<String> {
        self.exploded
            .iter()
            .map(|&(t, l)| {
                let tpl = &prog.templates[t as usize];
                let at = crate::program::location_ref(&tpl.locations[l as usize]);
                format!("{}@{at}", tpl.name)
            })
            .collect()
    }

    /// Renumbers each template's classes 0.. in order of first location.
    fn normalised(mut self) -> Partition {
        for class in &mut self.class {
            let mut seen: Vec<u16> = Vec::new();
            for c in class.iter_mut() {
                let id = match seen.iter().position(|s| s == c) {
                    Some(i) => i,
                    None => {
                        seen.push(*c);
                        seen.len() - 1
                    }
                };
                *c = id as u16;
            }
        }
        self
    }
}

/// How the partition follows the spurious paths.
pub(crate) struct Refiner {
    scheme: Scheme,
    /// Locations whose local stores are told apart (only ever grows).
    exploded: BTreeSet<Key>,
}

enum Scheme {
    /// Fig. 4: every clause seen so far, re-solved for the fewest classes.
    NonMonotonic {
        clauses: Vec<Clause>,
        /// The class bound m of the last solution (§5: tried first).
        bound: usize,
    },
    /// Split-only: the locations of each path's first mismatch get classes
    /// of their own; every other location of a template shares one class.
    Monotonic { tracked: FxHashSet<Key> },
}

impl Refiner {
    pub(crate) fn new(monotonic: bool) -> Refiner {
        let scheme = match monotonic {
            true => Scheme::Monotonic {
                tracked: FxHashSet::default(),
            },
            false => Scheme::NonMonotonic {
                clauses: Vec::new(),
                bound: 1,
            },
        };
        Refiner {
            scheme,
            exploded: BTreeSet::new(),
        }
    }

    /// The partition after learning `new` (clauses of spurious paths found
    /// with the current partition, so each has at least one mismatch) and
    /// `data` (locations of spurious paths whose gaps are all data);
    /// `Ok(None)` when `stop` (asked before each SAT call) stops it.
    pub(crate) fn refine(
        &mut self,
        prog: &Program,
        new: Vec<Clause>,
        data: Vec<Key>,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Option<Partition>, String> {
        self.exploded.extend(data);
        let Some(mut part) = self.locations(prog, new, stop)? else {
            return Ok(None);
        };
        part.exploded = self.exploded.clone();
        Ok(Some(part))
    }

    fn locations(
        &mut self,
        prog: &Program,
        new: Vec<Clause>,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Option<Partition>, String> {
        match &mut self.scheme {
            Scheme::Monotonic { tracked } => {
                for clause in &new {
                    let &(a, b) = clause.first().ok_or("a spurious path without a mismatch")?;
                    tracked.insert(a);
                    tracked.insert(b);
                }
                Ok(Some(split(prog, tracked)))
            }
            Scheme::NonMonotonic { clauses, bound } => {
                clauses.extend(new);
                let most = prog.templates.iter().map(|t| t.locations.len()).max();
                // Fig. 4's repeat loop, starting from the last bound (§5's
                // optimisation): the finest partition separates everything,
                // so some m up to the largest template's location count works.
                for m in (*bound).max(1)..=most.unwrap_or(1).max(1) {
                    // The SAT calls are the refinement's cost (splr checks
                    // no budget of ours): the budget is asked before each.
                    if stop() {
                        return Ok(None);
                    }
                    if let Some(p) = solve(prog, clauses, m)? {
                        *bound = m;
                        return Ok(Some(p));
                    }
                }
                Err("no partition separates the spurious paths (a path whose only mismatches are between equal locations)".into())
            }
        }
    }
}

/// The monotonic partition: tracked locations alone, the rest together.
fn split(prog: &Program, tracked: &FxHashSet<Key>) -> Partition {
    let class = prog
        .templates
        .iter()
        .enumerate()
        .map(|(t, tpl)| {
            let mut next = 1;
            (0..tpl.locations.len() as u16)
                .map(|l| match tracked.contains(&(t as u32, l)) {
                    true => {
                        next += 1;
                        next - 1
                    }
                    false => 0,
                })
                .collect()
        })
        .collect();
    Partition {
        class,
        exploded: BTreeSet::new(),
    }
    .normalised()
}

/// A partition with at most `m` classes per template that separates one
/// mismatch of every clause, if there is one. Propositional encoding: x(k, c)
/// "location k is in class c" (exactly one c per k); d(a, b) "a and b are in
/// different classes" (d → ¬(x(a, c) ∧ x(b, c)) for every c); every clause is
/// the disjunction of its d's. Locations no clause mentions stay in class 0.
fn solve(prog: &Program, clauses: &[Clause], m: usize) -> Result<Option<Partition>, String> {
    let keys: Vec<Key> = clauses
        .iter()
        .flatten()
        .flat_map(|&(a, b)| [a, b])
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let pairs: Vec<Mismatch> = clauses
        .iter()
        .flatten()
        .copied()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let key_ix = |k: &Key| keys.binary_search(k).map_err(|_| "a key left out");
    let x = |k: usize, c: usize| (1 + k * m + c) as i32;
    let d = |p: usize| (1 + keys.len() * m + p) as i32;
    let mut cnf: Vec<Vec<i32>> = Vec::new();
    for k in 0..keys.len() {
        cnf.push((0..m).map(|c| x(k, c)).collect());
        for c1 in 0..m {
            for c2 in c1 + 1..m {
                cnf.push(vec![-x(k, c1), -x(k, c2)]);
            }
        }
    }
    for (p, (a, b)) in pairs.iter().enumerate() {
        let (a, b) = (key_ix(a)?, key_ix(b)?);
        for c in 0..m {
            cnf.push(vec![-d(p), -x(a, c), -x(b, c)]);
        }
    }
    for clause in clauses {
        let lits = clause
            .iter()
            .map(|mm| pairs.binary_search(mm).map(d))
            .collect::<Result<Vec<i32>, _>>()
            .map_err(|_| "a pair left out")?;
        if lits.is_empty() {
            return Ok(None);
        }
        cnf.push(lits);
    }
    let assignment = match cnf.is_empty() {
        true => Vec::new(),
        false => match Certificate::try_from(cnf) {
            Ok(Certificate::SAT(a)) => a,
            Ok(Certificate::UNSAT) => return Ok(None),
            Err(e) => return Err(format!("the SAT solver failed: {e:?}")),
        },
    };
    let mut part = Partition::coarsest(prog);
    for (k, &(t, l)) in keys.iter().enumerate() {
        let c = (0..m)
            .find(|&c| assignment.get(x(k, c) as usize - 1).is_some_and(|&v| v > 0))
            .ok_or("the SAT solver's model has no class for a location")?;
        part.class[t as usize][l as usize] = c as u16;
    }
    Ok(Some(part.normalised()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fig. 2's bakery, as in models/bakery-fig2.json: template 1 is thr2,
    /// whose locations L11..L20 have indices 0..9.
    fn bakery() -> Program {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/bakery-fig2.json");
        crate::model::load_file(&path, &[])
            .expect("the shipped model loads")
            .into_program()
    }

    fn loc(line: u16) -> Key {
        (1, line - 11)
    }

    fn ne(a: u16, b: u16) -> Mismatch {
        (loc(a.min(b)), loc(a.max(b)))
    }

    /// §2's three spurious paths: 11 ≢ 13 ∨ 14 ≢ 17, then 12 ≢ 16, then
    /// 11 ≢ 12. The monotonic scheme has split off 4 singletons of thr2
    /// (§2's last paragraph: {11}, {12}, {13}, {16}, the rest, and PC_1).
    /// The non-monotonic one re-partitions thr2 into 2 classes, e.g.
    /// {11, 14, 16, …} and {12, 13, 17}: §2 draws {11, 16}, {12, 13} and the
    /// rest, but Fig. 4 with m = 2 gives the unconstrained rest one of the
    /// two classes, as here.
    #[test]
    fn section_2_bakery_repartitions() {
        let prog = bakery();
        let paths = [
            vec![ne(11, 13), ne(14, 17)],
            vec![ne(12, 16)],
            vec![ne(11, 12)],
        ];
        let mut nonmon = Refiner::new(false);
        let mut mon = Refiner::new(true);
        let (mut p, mut q) = (Partition::coarsest(&prog), Partition::coarsest(&prog));
        for clause in &paths {
            p = nonmon
                .refine(&prog, vec![clause.clone()], vec![], &mut || false)
                .unwrap()
                .unwrap();
            q = mon
                .refine(&prog, vec![clause.clone()], vec![], &mut || false)
                .unwrap()
                .unwrap();
            assert!(p.excludes(clause) && q.excludes(clause));
        }
        // Every clause seen so far stays excluded (progress, Theorem 1).
        assert!(paths.iter().all(|c| p.excludes(c)));
        // thr1 untouched: one class; thr2: 2.
        assert_eq!(p.count(), 1 + 2);
        // Monotonic: {11}, {13}, {12}, {16}, the rest of thr2, and thr1
        // (the paper's 6 classes at this point, §2's last paragraph).
        assert_eq!(q.count(), 1 + 5);
    }

    #[test]
    fn unconstrained_partition_is_the_coarsest() {
        let prog = bakery();
        let p = Refiner::new(false)
            .refine(&prog, vec![], vec![], &mut || false)
            .unwrap()
            .unwrap();
        assert_eq!(p, Partition::coarsest(&prog));
        assert_eq!(p.count(), prog.templates.len());
    }

    /// A triangle of pairwise mismatches needs 3 classes, not 2.
    #[test]
    fn fewest_classes_are_found() {
        let prog = bakery();
        let clauses = vec![vec![ne(11, 12)], vec![ne(12, 13)], vec![ne(11, 13)]];
        let p = Refiner::new(false)
            .refine(&prog, clauses.clone(), vec![], &mut || false)
            .unwrap()
            .unwrap();
        assert!(clauses.iter().all(|c| p.excludes(c)));
        assert_eq!(p.count(), 1 + 3);
        assert_eq!(solve(&prog, &clauses, 2).unwrap(), None);
    }
}
