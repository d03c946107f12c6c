//! What a bench runs: model sources × thread counts × section counts ×
//! modes, as an ordered list of points, and the presets.

use super::error::BenchError;
use super::paper;
use crate::engine::Mode;
use crate::families as generate;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A generated model family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// lock(n, m): n threads, m critical sections each.
    Lock,
    /// Simple(n) of the thread-modular paper.
    Simple,
    /// Simple(n) with a boolean mutex.
    SimpleBool,
    /// lock(n, m) with its exception set removed: what `refine` has to find
    /// by itself (the refine preset).
    LockWithoutExceptions,
}

impl Family {
    /// The family's name, as `weft gen` and the report write it.
    pub fn name(self) -> &'static str {
        match self {
            Family::Lock => "lock",
            Family::Simple => "simple",
            Family::SimpleBool => "simple-bool",
            Family::LockWithoutExceptions => "lock-without-exceptions",
        }
    }

    /// lock(n, m) has a section count m; the other families do not.
    pub(crate) fn has_sections(self) -> bool {
        matches!(self, Family::Lock | Family::LockWithoutExceptions)
    }

    /// The model for n threads (and m sections, lock only).
    pub fn generate(self, n: u32, m: Option<u32>) -> Value {
        match self {
            Family::Lock => generate::lock(n, m.unwrap_or(1)),
            Family::Simple => generate::simple(n, false),
            Family::SimpleBool => generate::simple(n, true),
            Family::LockWithoutExceptions => {
                let mut v = generate::lock(n, m.unwrap_or(1));
                if let Some(o) = v.as_object_mut() {
                    o.remove("exceptions");
                    let name = format!(
                        "{}-without-exceptions",
                        o["name"].as_str().unwrap_or("lock")
                    );
                    o.insert("name".into(), name.into());
                    // Without its set, cartesian-exc raises an alarm.
                    if let Some(e) = o.get_mut("expect").and_then(Value::as_object_mut) {
                        e.insert("cartesian-exc".into(), "unknown".into());
                    }
                }
                v
            }
        }
    }
}

/// What `--mode refine` refines (`weft check --refine`): a point of mode
/// refine with a strategy runs its child with `--refine NAME`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// The glued global stores become exact (the computed exception set).
    Exceptions,
    /// Non-monotonic refinement of the control abstraction (Gupta, Popeea
    /// and Rybalchenko).
    Control,
    /// Its monotonic baseline.
    ControlMonotonic,
}

impl Strategy {
    /// All three, in the order the refine preset tabulates them.
    pub(crate) const ALL: [Strategy; 3] = [
        Strategy::Exceptions,
        Strategy::Control,
        Strategy::ControlMonotonic,
    ];

    /// The value of `weft check --refine`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Exceptions => "exceptions",
            Strategy::Control => "control",
            Strategy::ControlMonotonic => "control-monotonic",
        }
    }
}

/// Where a point's model comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Source {
    Family(Family),
    /// A model file; with a thread count, run with `--param n=N`.
    File(PathBuf),
    /// A model file checked for the error states `error` (`weft check
    /// --error`): the BEEM instances, whose DVE text has no property.
    WithError {
        file: PathBuf,
        error: String,
    },
}

impl Source {
    /// `lock`, `simple`, `simple-bool` or `file`.
    pub(crate) fn family_name(&self) -> &'static str {
        match self {
            Source::Family(f) => f.name(),
            Source::File(_) | Source::WithError { .. } => "file",
        }
    }

    /// For people: the family name or the file path.
    pub(crate) fn label(&self) -> String {
        match self {
            Source::Family(f) => f.name().to_string(),
            Source::File(p) | Source::WithError { file: p, .. } => p.display().to_string(),
        }
    }

    /// The model file, if the source is one.
    pub(crate) fn file(&self) -> Option<&std::path::Path> {
        match self {
            Source::Family(_) => None,
            Source::File(p) | Source::WithError { file: p, .. } => Some(p),
        }
    }

    /// The family of generated models with a section count m.
    fn has_sections(&self) -> bool {
        matches!(self, Source::Family(f) if f.has_sections())
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
    /// `--refine` of a refine point; `None`: the child's default.
    pub(crate) refine: Option<Strategy>,
    /// The child runs with `--symmetry` (standard only: the symmetry
    /// preset).
    pub(crate) symmetry: bool,
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
        format!("{s} {}", self.mode_label())
    }

    /// The model, as a table's row names it: the file name, or
    /// `lock(20, 3)`.
    pub(crate) fn model_label(&self) -> String {
        match (&self.source, self.n, self.m) {
            (Source::Family(f), Some(n), Some(m)) if f.has_sections() => {
                let without = if *f == Family::LockWithoutExceptions {
                    ", no exception set"
                } else {
                    ""
                };
                format!("lock({n}, {m}){without}")
            }
            (Source::Family(f), Some(n), _) => format!("{}({n})", f.name()),
            (src, n, _) => {
                let name = src
                    .file()
                    .and_then(|p| p.file_name())
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| src.label());
                match n {
                    Some(n) => format!("{name} n={n}"),
                    None => name,
                }
            }
        }
    }

    /// `standard`, `standard --symmetry`, `refine`, `refine (control)`.
    pub(crate) fn mode_label(&self) -> String {
        let label = mode_label(self.mode, self.refine);
        if self.symmetry {
            format!("{label} --symmetry")
        } else {
            label
        }
    }

    /// The point with its thread count dropped: the points of one curve.
    pub(crate) fn series(&self) -> SeriesKey {
        SeriesKey {
            source: self.source.clone(),
            m: self.m,
            mode: self.mode,
            refine: self.refine,
            symmetry: self.symmetry,
        }
    }
}

/// `standard`, `refine`, `refine (control)`.
pub(crate) fn mode_label(mode: Mode, refine: Option<Strategy>) -> String {
    match refine {
        Some(s) => format!("{} ({})", mode.name(), s.name()),
        None => mode.name().to_string(),
    }
}

/// One curve of the plot: everything but the thread count.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SeriesKey {
    pub(crate) source: Source,
    pub(crate) m: Option<u32>,
    pub(crate) mode: Mode,
    pub(crate) refine: Option<Strategy>,
    pub(crate) symmetry: bool,
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
    /// The strategies of mode refine, one point each; empty: one point with
    /// the child's default.
    pub(crate) strategies: Vec<Strategy>,
    /// Every point of the block runs with `--symmetry`.
    pub(crate) symmetry: bool,
}

impl Block {
    /// The block's points: by source, then m, then mode, then n ascending.
    fn points(&self) -> Vec<Point> {
        let mut out = Vec::new();
        for source in &self.sources {
            let ms: Vec<Option<u32>> = if source.has_sections() {
                self.sections.iter().map(|&m| Some(m)).collect()
            } else {
                vec![None]
            };
            let refines: Vec<Option<Strategy>> = if self.strategies.is_empty() {
                vec![None]
            } else {
                self.strategies.iter().map(|&s| Some(s)).collect()
            };
            let ns: Vec<Option<u32>> = if self.threads.is_empty() {
                vec![None]
            } else {
                self.threads.iter().map(|&n| Some(n)).collect()
            };
            for &m in &ms {
                for &mode in &self.modes {
                    let refines = if mode == Mode::Refine {
                        refines.as_slice()
                    } else {
                        &[None]
                    };
                    for &refine in refines {
                        for &n in &ns {
                            out.push(Point {
                                source: source.clone(),
                                n,
                                m,
                                mode,
                                refine,
                                symmetry: self.symmetry && mode == Mode::Standard,
                            });
                        }
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

/// The refine preset's lock(n, m) points, without the exception set: (the
/// thread counts, m). Curves run with n ascending, so once standard runs
/// out of time at one n, the larger n of the same m are skipped.
pub(crate) const REFINE_LOCK_POINTS: &[(&[u32], u32)] = &[(&[8, 20], 3), (&[100, 200], 9)];

/// The error states of the refine preset's BEEM instances: two processes in
/// their critical section.
pub(crate) const REFINE_BEEM_ERROR: &str = "count(*: @CS) >= 2";

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
        let with_sections = families.iter().any(|f| f.has_sections());
        if !sections.is_empty() && !with_sections {
            return Err(BenchError::SectionsWithoutLock);
        }
        let sections = if sections.is_empty() && with_sections {
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
                strategies: Vec::new(),
                symmetry: false,
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
                    strategies: Vec::new(),
                    symmetry: false,
                },
                Block {
                    sources: vec![Source::Family(Family::Lock)],
                    threads: FIG1_STRIP_THREADS.collect(),
                    sections: vec![1],
                    modes: vec![Mode::CartesianExc, Mode::Standard],
                    strategies: Vec::new(),
                    symmetry: false,
                },
            ],
        }
    }

    /// The refine preset: `standard` beside `refine` with each strategy
    /// (exceptions, control, control-monotonic), on the models of Table 1
    /// of Gupta, Popeea and Rybalchenko, every other model in `models/`
    /// whose `expect` names refine, the BEEM mutual-exclusion instances of
    /// `tests/data/beem/counts.csv` (those with a state `CS`; error: two
    /// processes in it) and lock(n, m) without its exception set at
    /// `REFINE_LOCK_POINTS`. `root` holds `models/` and `tests/`.
    pub fn refine(root: &Path) -> Result<Grid, BenchError> {
        let models = root.join("models");
        let beem = root.join("tests/data/beem/dve");
        let listed = |dir: &Path, ext: &str| -> Result<Vec<PathBuf>, BenchError> {
            let entries = std::fs::read_dir(dir).map_err(|source| BenchError::Read {
                path: dir.to_path_buf(),
                source,
            })?;
            let mut files: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().and_then(|e| e.to_str()) == Some(ext))
                .collect();
            files.sort();
            Ok(files)
        };
        let read = |path: &Path| {
            std::fs::read_to_string(path).map_err(|source| BenchError::Read {
                path: path.to_path_buf(),
                source,
            })
        };
        let mut table1: Vec<Source> = Vec::new();
        for row in paper::TABLE1 {
            let path = models.join(row.file);
            read(&path)?;
            table1.push(Source::File(path));
        }
        let mut shipped: Vec<Source> = Vec::new();
        for path in listed(&models, "json")? {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if paper::table1_row(name).is_some() {
                continue;
            }
            let expects_refine = serde_json::from_str::<Value>(&read(&path)?)
                .ok()
                .is_some_and(|v| v["expect"].get(Mode::Refine.name()).is_some());
            if expects_refine {
                shipped.push(Source::File(path));
            }
        }
        // The instances of tests/data/beem/counts.csv (the curated ones with
        // their goals), not every file of the directory: it also holds the
        // whole suite's small instances (suite.csv), most of them no mutex.
        let curated = read(&beem.join("../counts.csv"))?;
        let curated: Vec<&str> = curated
            .lines()
            .skip(1)
            .filter_map(|l| l.split(',').next())
            .filter_map(|f| f.strip_prefix("dve/"))
            .collect();
        let mut dve: Vec<Source> = Vec::new();
        for path in listed(&beem, "dve")? {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !curated.contains(&name) {
                continue;
            }
            let text = read(&path)?;
            let has_cs = text
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == "CS");
            if has_cs {
                dve.push(Source::WithError {
                    file: path,
                    error: REFINE_BEEM_ERROR.to_string(),
                });
            }
        }
        let block = |sources: Vec<Source>, threads: Vec<u32>, sections: Vec<u32>| Block {
            sources,
            threads,
            sections,
            modes: vec![Mode::Standard, Mode::Refine],
            strategies: Strategy::ALL.to_vec(),
            symmetry: false,
        };
        let mut blocks = vec![
            block(table1, Vec::new(), Vec::new()),
            block(shipped, Vec::new(), Vec::new()),
            block(dve, Vec::new(), Vec::new()),
        ];
        for &(ns, m) in REFINE_LOCK_POINTS {
            blocks.push(block(
                vec![Source::Family(Family::LockWithoutExceptions)],
                ns.to_vec(),
                vec![m],
            ));
        }
        Ok(Grid { blocks })
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
                        refine: None,
                        symmetry: false,
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
    fn the_refine_preset_runs_four_configurations_per_model() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let pts = Grid::refine(root).unwrap().points();
        assert_eq!(pts.len() % 4, 0);
        let mut models: Vec<String> = Vec::new();
        for p in &pts {
            if !models.contains(&p.model_label()) {
                models.push(p.model_label());
            }
        }
        assert_eq!(models.len() * 4, pts.len(), "{models:?}");
        // Table 1 first, in the paper's order.
        let files: Vec<&str> = paper::TABLE1.iter().map(|r| r.file).collect();
        assert_eq!(models[..5], files);
        assert!(models.contains(&"peterson.json".to_string()));
        // The 23 BEEM instances with a CS state (18, then lann.1-2 and
        // lamport_nonatomic.1-3), and the lock points.
        let dve = pts
            .iter()
            .filter(|p| matches!(&p.source, Source::WithError { error, .. } if error == REFINE_BEEM_ERROR))
            .count();
        assert_eq!(dve, 23 * 4);
        assert!(!models.iter().any(|m| m.starts_with("phils")));
        assert_eq!(
            models.iter().filter(|m| m.starts_with("lock(")).count(),
            REFINE_LOCK_POINTS
                .iter()
                .map(|(ns, _)| ns.len())
                .sum::<usize>()
        );
        assert!(models.contains(&"lock(100, 9), no exception set".to_string()));
        // Each model: standard, then refine with each strategy.
        for p in &pts {
            assert_eq!(p.refine.is_some(), p.mode == Mode::Refine, "{}", p.label());
        }
        let lock = Family::LockWithoutExceptions.generate(3, Some(2));
        assert!(lock.get("exceptions").is_none());
        assert_eq!(lock["expect"]["cartesian-exc"], "unknown");
        assert_eq!(lock["name"], "lock-3-2-without-exceptions");
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
