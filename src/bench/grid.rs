//! What a bench runs: model sources × thread counts × section counts ×
//! modes, as an ordered list of points, and the presets.

use super::error::BenchError;
use super::paper;
use crate::engine::Mode;
use crate::families as generate;
use serde_json::Value;
use std::path::PathBuf;

/// A generated model family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// lock(n, m): n threads, m critical sections each.
    Lock,
    /// Simple(n) of the thread-modular paper.
    Simple,
    /// Simple(n) with a boolean mutex.
    SimpleBool,
}

impl Family {
    /// The family's name, as `weft gen` and the report write it.
    pub fn name(self) -> &'static str {
        match self {
            Family::Lock => "lock",
            Family::Simple => "simple",
            Family::SimpleBool => "simple-bool",
        }
    }

    /// The model for n threads (and m sections, lock only).
    pub fn generate(self, n: u32, m: Option<u32>) -> Value {
        match self {
            Family::Lock => generate::lock(n, m.unwrap_or(1)),
            Family::Simple => generate::simple(n, false),
            Family::SimpleBool => generate::simple(n, true),
        }
    }
}

/// Where a point's model comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Source {
    Family(Family),
    /// A model file; with a thread count, run with `--param n=N`.
    File(PathBuf),
}

impl Source {
    /// `lock`, `simple`, `simple-bool` or `file`.
    pub(crate) fn family_name(&self) -> &'static str {
        match self {
            Source::Family(f) => f.name(),
            Source::File(_) => "file",
        }
    }

    /// For people: the family name or the file path.
    pub(crate) fn label(&self) -> String {
        match self {
            Source::Family(f) => f.name().to_string(),
            Source::File(p) => p.display().to_string(),
        }
    }
}

/// One (model, parameters, mode) point of the grid.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Point {
    pub(crate) source: Source,
    /// Number of threads (`n`), if the grid has a thread axis.
    pub(crate) n: Option<u32>,
    /// Critical sections per thread (`m`), lock only.
    pub(crate) m: Option<u32>,
    pub(crate) mode: Mode,
}

impl Point {
    /// For people: `lock n=10 m=1 cartesian-exc`.
    pub(crate) fn label(&self) -> String {
        let mut s = self.source.label();
        if let Some(n) = self.n {
            s.push_str(&format!(" n={n}"));
        }
        if let Some(m) = self.m {
            s.push_str(&format!(" m={m}"));
        }
        format!("{s} {}", self.mode.name())
    }

    /// The point with its thread count dropped: the points of one curve.
    pub(crate) fn series(&self) -> SeriesKey {
        SeriesKey {
            source: self.source.clone(),
            m: self.m,
            mode: self.mode,
        }
    }
}

/// One curve of the plot: everything but the thread count.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SeriesKey {
    pub(crate) source: Source,
    pub(crate) m: Option<u32>,
    pub(crate) mode: Mode,
}

/// One rectangular part of a grid: every source with every thread count,
/// section count (lock only) and mode.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub(crate) sources: Vec<Source>,
    /// Ascending, without duplicates; empty means no thread axis (files only).
    pub(crate) threads: Vec<u32>,
    /// Ascending, without duplicates; used for the lock family only.
    pub(crate) sections: Vec<u32>,
    pub(crate) modes: Vec<Mode>,
}

impl Block {
    /// The block's points: by source, then m, then mode, then n ascending.
    fn points(&self) -> Vec<Point> {
        let mut out = Vec::new();
        for source in &self.sources {
            let ms: Vec<Option<u32>> = match source {
                Source::Family(Family::Lock) => self.sections.iter().map(|&m| Some(m)).collect(),
                _ => vec![None],
            };
            let ns: Vec<Option<u32>> = if self.threads.is_empty() {
                vec![None]
            } else {
                self.threads.iter().map(|&n| Some(n)).collect()
            };
            for &m in &ms {
                for &mode in &self.modes {
                    for &n in &ns {
                        out.push(Point {
                            source: source.clone(),
                            n,
                            m,
                            mode,
                        });
                    }
                }
            }
        }
        out
    }
}

/// The small-n strip of the fig4 preset: lock(n, 1) for n = 2..20 in
/// standard and cartesian-exc, where the exhaustive search still finishes
/// and its exponential growth shows (the paper's Fig. 1).
pub(crate) const FIG1_STRIP_THREADS: std::ops::RangeInclusive<u32> = 2..=20;

/// The grid: the union of its blocks (a point in two blocks runs once).
#[derive(Clone, Debug)]
pub struct Grid {
    pub(crate) blocks: Vec<Block>,
}

impl Grid {
    /// A grid from the command line's lists, validated.
    pub fn new(
        families: &[Family],
        files: &[PathBuf],
        threads: &[u32],
        sections: &[u32],
        modes: &[Mode],
    ) -> Result<Grid, BenchError> {
        if families.is_empty() && files.is_empty() {
            return Err(BenchError::NoSource);
        }
        let mut sources: Vec<Source> = Vec::new();
        for s in families
            .iter()
            .map(|&f| Source::Family(f))
            .chain(files.iter().map(|p| Source::File(p.clone())))
        {
            if !sources.contains(&s) {
                sources.push(s);
            }
        }
        let threads = sorted(threads);
        let sections = sorted(sections);
        if !families.is_empty() && threads.is_empty() {
            return Err(BenchError::NoThreads);
        }
        if threads.contains(&0) {
            return Err(BenchError::ZeroThreads);
        }
        if sections.contains(&0) {
            return Err(BenchError::ZeroSections);
        }
        if !sections.is_empty() && !families.contains(&Family::Lock) {
            return Err(BenchError::SectionsWithoutLock);
        }
        let sections = if sections.is_empty() && families.contains(&Family::Lock) {
            vec![1]
        } else {
            sections
        };
        let mut unique_modes: Vec<Mode> = Vec::new();
        for &m in modes {
            if !unique_modes.contains(&m) {
                unique_modes.push(m);
            }
        }
        if unique_modes.is_empty() {
            unique_modes = vec![Mode::Standard, Mode::ThreadModular, Mode::CartesianExc];
        }
        Ok(Grid {
            blocks: vec![Block {
                sources,
                threads,
                sections,
                modes: unique_modes,
            }],
        })
    }

    /// Fig. 4 of the precise thread-modular paper: lock, n = 10..100 step
    /// 10, m ∈ {1, 3, 5, 7, 9}, for cartesian-exc, thread-modular and
    /// standard; and for its Fig. 1, lock(n, 1) for n = 2..20 in standard
    /// and cartesian-exc.
    pub fn fig4() -> Grid {
        Grid {
            blocks: vec![
                Block {
                    sources: vec![Source::Family(Family::Lock)],
                    threads: paper::FIG4_THREADS.to_vec(),
                    sections: paper::FIG4_SECTIONS.to_vec(),
                    modes: vec![Mode::CartesianExc, Mode::ThreadModular, Mode::Standard],
                },
                Block {
                    sources: vec![Source::Family(Family::Lock)],
                    threads: FIG1_STRIP_THREADS.collect(),
                    sections: vec![1],
                    modes: vec![Mode::CartesianExc, Mode::Standard],
                },
            ],
        }
    }

    /// The points in run order: curve by curve (a curve is a source, m and
    /// mode; in the order the curves first appear in the blocks), each with
    /// its n ascending (so that a curve's smaller n run first), without
    /// duplicates.
    pub(crate) fn points(&self) -> Vec<Point> {
        let mut curves: Vec<(SeriesKey, Vec<Point>)> = Vec::new();
        for p in self.blocks.iter().flat_map(Block::points) {
            let key = p.series();
            match curves.iter_mut().find(|(k, _)| *k == key) {
                Some((_, pts)) => {
                    if !pts.contains(&p) {
                        pts.push(p);
                    }
                }
                None => curves.push((key, vec![p])),
            }
        }
        let mut out = Vec::new();
        for (_, mut pts) in curves {
            pts.sort_by_key(|p| p.n);
            out.extend(pts);
        }
        out
    }
}

fn sorted(v: &[u32]) -> Vec<u32> {
    let mut v = v.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fig4_has_the_papers_150_points_and_the_strip_in_curve_order() {
        let pts = Grid::fig4().points();
        // 150 of Fig. 4, and n = 2..20 at m = 1 in two modes less the four
        // points (n = 10, 20) Fig. 4 already has.
        assert_eq!(pts.len(), 150 + 2 * 19 - 4);
        let unique: std::collections::HashSet<&Point> = pts.iter().collect();
        assert_eq!(unique.len(), pts.len(), "no point twice");
        for n in paper::FIG4_THREADS {
            for m in paper::FIG4_SECTIONS {
                for mode in [Mode::CartesianExc, Mode::ThreadModular, Mode::Standard] {
                    let p = Point {
                        source: Source::Family(Family::Lock),
                        n: Some(n),
                        m: Some(m),
                        mode,
                    };
                    assert!(unique.contains(&p), "{}", p.label());
                }
            }
        }
        assert_eq!(pts[0].label(), "lock n=2 m=1 cartesian-exc");
        let cart1: Vec<u32> = pts
            .iter()
            .filter(|p| p.mode == Mode::CartesianExc && p.m == Some(1))
            .filter_map(|p| p.n)
            .collect();
        let mut want: Vec<u32> = FIG1_STRIP_THREADS.chain(paper::FIG4_THREADS).collect();
        want.sort_unstable();
        want.dedup();
        assert_eq!(cart1, want, "a curve runs with n ascending");
        // Curves are contiguous: a curve's points are not interleaved with another's.
        let mut seen: Vec<SeriesKey> = Vec::new();
        for w in pts.windows(2) {
            if w[0].series() != w[1].series() {
                assert!(!seen.contains(&w[1].series()), "{}", w[1].label());
                seen.push(w[0].series());
            }
        }
        assert_eq!(pts.last().unwrap().label(), "lock n=100 m=9 standard");
        assert!(
            !pts.iter()
                .any(|p| p.mode == Mode::ThreadModular && p.n < Some(10))
        );
    }

    #[test]
    fn validation() {
        let lock = [Family::Lock];
        assert!(Grid::new(&[], &[], &[1], &[], &[]).is_err());
        assert!(Grid::new(&lock, &[], &[], &[], &[]).is_err());
        assert!(Grid::new(&[Family::Simple], &[], &[3], &[2], &[]).is_err());
        let g = Grid::new(&lock, &[], &[3, 2, 3], &[], &[]).unwrap();
        assert_eq!(g.blocks.len(), 1);
        assert_eq!(g.blocks[0].threads, vec![2, 3]);
        assert_eq!(g.blocks[0].sections, vec![1]);
        assert_eq!(g.blocks[0].modes.len(), 3);
        assert_eq!(g.points().len(), 6);
    }
}
