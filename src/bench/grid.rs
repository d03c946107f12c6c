//! What a bench runs: model sources × thread counts × section counts ×
//! modes, as an ordered list of points, and the presets.

use super::generate;
use super::paper;
use crate::program::Mode;
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
pub enum Source {
    Family(Family),
    /// A model file; with a thread count, run with `--param n=N`.
    File(PathBuf),
}

impl Source {
    /// `lock`, `simple`, `simple-bool` or `file`.
    pub fn family_name(&self) -> &'static str {
        match self {
            Source::Family(f) => f.name(),
            Source::File(_) => "file",
        }
    }

    /// For people: the family name or the file path.
    pub fn label(&self) -> String {
        match self {
            Source::Family(f) => f.name().to_string(),
            Source::File(p) => p.display().to_string(),
        }
    }
}

/// One (model, parameters, mode) point of the grid.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Point {
    pub source: Source,
    /// Number of threads (`n`), if the grid has a thread axis.
    pub n: Option<u32>,
    /// Critical sections per thread (`m`), lock only.
    pub m: Option<u32>,
    pub mode: Mode,
}

impl Point {
    /// For people: `lock n=10 m=1 cartesian-exc`.
    pub fn label(&self) -> String {
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
    pub fn series(&self) -> SeriesKey {
        SeriesKey {
            source: self.source.clone(),
            m: self.m,
            mode: self.mode,
        }
    }
}

/// One curve of the plot: everything but the thread count.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SeriesKey {
    pub source: Source,
    pub m: Option<u32>,
    pub mode: Mode,
}

/// The grid: every source with every thread count, section count (lock
/// only) and mode.
#[derive(Clone, Debug)]
pub struct Grid {
    pub sources: Vec<Source>,
    /// Ascending, without duplicates; empty means no thread axis (files only).
    pub threads: Vec<u32>,
    /// Ascending, without duplicates; used for the lock family only.
    pub sections: Vec<u32>,
    pub modes: Vec<Mode>,
}

impl Grid {
    /// A grid from the command line's lists, validated.
    pub fn new(
        families: &[Family],
        files: &[PathBuf],
        threads: &[u32],
        sections: &[u32],
        modes: &[Mode],
    ) -> Result<Grid, String> {
        if families.is_empty() && files.is_empty() {
            return Err("error: give --family, --model FILE or --preset".into());
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
            return Err("error: --family needs --threads (e.g. --threads 10,20,30)".into());
        }
        if threads.contains(&0) {
            return Err("error: --threads must be at least 1".into());
        }
        if sections.contains(&0) {
            return Err("error: --sections must be at least 1".into());
        }
        if !sections.is_empty() && !families.contains(&Family::Lock) {
            return Err("error: --sections applies to --family lock only".into());
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
            sources,
            threads,
            sections,
            modes: unique_modes,
        })
    }

    /// Fig. 4 of the precise thread-modular paper: lock, n = 10..100 step
    /// 10, m ∈ {1, 3, 5, 7, 9}, for cartesian-exc, thread-modular and
    /// standard.
    pub fn fig4() -> Grid {
        Grid {
            sources: vec![Source::Family(Family::Lock)],
            threads: paper::FIG4_THREADS.to_vec(),
            sections: paper::FIG4_SECTIONS.to_vec(),
            modes: vec![Mode::CartesianExc, Mode::ThreadModular, Mode::Standard],
        }
    }

    /// The points in run order: by source, then m, then mode, then n
    /// ascending (so that a curve's smaller n run first).
    pub fn points(&self) -> Vec<Point> {
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
    fn fig4_has_the_papers_150_points_in_curve_order() {
        let pts = Grid::fig4().points();
        assert_eq!(pts.len(), 150);
        assert_eq!(pts[0].label(), "lock n=10 m=1 cartesian-exc");
        assert_eq!(pts[9].label(), "lock n=100 m=1 cartesian-exc");
        assert_eq!(pts[10].label(), "lock n=10 m=1 thread-modular");
        assert_eq!(pts[149].label(), "lock n=100 m=9 standard");
    }

    #[test]
    fn validation() {
        let lock = [Family::Lock];
        assert!(Grid::new(&[], &[], &[1], &[], &[]).is_err());
        assert!(Grid::new(&lock, &[], &[], &[], &[]).is_err());
        assert!(Grid::new(&[Family::Simple], &[], &[3], &[2], &[]).is_err());
        let g = Grid::new(&lock, &[], &[3, 2, 3], &[], &[]).unwrap();
        assert_eq!(g.threads, vec![2, 3]);
        assert_eq!(g.sections, vec![1]);
        assert_eq!(g.modes.len(), 3);
    }
}
