//! The storage and symmetry presets of `weft bench` (issue 17): how
//! `standard` scales in states per second and bytes per state as the state
//! space grows (`--preset storage`), and what `--symmetry` does as the
//! thread count grows (`--preset symmetry`). Both run lock(n, m), whose
//! state count is known by formula, so a report can be checked by hand.

use super::grid::{Block, Family, Grid, Source};
use crate::engine::Mode;

/// `--preset storage`: lock(n, 3) for these n, `standard` without
/// symmetry: 58,368 states at n = 6 to 73.4 M at n = 11 (the exact store's
/// growth, states/s and bytes per state as the table no longer fits in
/// the caches).
pub(crate) const STORAGE_THREADS: &[u32] = &[6, 7, 8, 9, 10, 11];

/// `--preset symmetry`: lock(n, 1) with `--symmetry` for these n, up to
/// lock(100000, 1).
pub(crate) const SYMMETRY_LOCK1_THREADS: &[u32] = &[100, 400, 1600, 3200, 12800, 100_000];

/// `--preset symmetry`: lock(n, 3) with `--symmetry`; the first three also
/// without it, to show the reduction where the full search still finishes.
pub(crate) const SYMMETRY_LOCK3_THREADS: &[u32] = &[6, 8, 10, 25, 50, 100];
pub(crate) const SYMMETRY_LOCK3_FULL: &[u32] = &[6, 8, 10];

fn lock_block(threads: &[u32], m: u32, symmetry: bool) -> Block {
    Block {
        sources: vec![Source::Family(Family::Lock)],
        threads: threads.to_vec(),
        sections: vec![m],
        modes: vec![Mode::Standard],
        strategies: Vec::new(),
        symmetry,
    }
}

impl Grid {
    /// `--preset storage`.
    pub fn storage() -> Grid {
        Grid {
            blocks: vec![lock_block(STORAGE_THREADS, 3, false)],
        }
    }

    /// The same grid with every `standard` point run under `--symmetry`
    /// (`weft bench --symmetry`; the abstract modes have no such option).
    pub fn with_symmetry(mut self) -> Grid {
        for b in &mut self.blocks {
            b.symmetry = true;
        }
        self
    }

    /// `--preset symmetry`.
    pub fn symmetry() -> Grid {
        Grid {
            blocks: vec![
                lock_block(SYMMETRY_LOCK1_THREADS, 1, true),
                lock_block(SYMMETRY_LOCK3_THREADS, 3, true),
                lock_block(SYMMETRY_LOCK3_FULL, 3, false),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_symmetry_preset_runs_symmetric_and_full_curves_apart() {
        let pts = Grid::symmetry().points();
        assert_eq!(pts.len(), 6 + 6 + 3);
        let sym: Vec<_> = pts.iter().filter(|p| p.symmetry).collect();
        assert_eq!(sym.len(), 12);
        // lock(10, 3) with and without symmetry are two points of two
        // curves: a timeout of one must not skip the other's larger n.
        let l10: Vec<_> = pts
            .iter()
            .filter(|p| p.n == Some(10) && p.m == Some(3))
            .collect();
        assert_eq!(l10.len(), 2);
        assert_ne!(l10[0].series(), l10[1].series());
        assert_eq!(l10[0].label(), "lock n=10 m=3 standard --symmetry");
    }

    #[test]
    fn the_storage_preset_is_standard_on_lock_n_3() {
        let pts = Grid::storage().points();
        assert_eq!(pts.len(), STORAGE_THREADS.len());
        assert!(
            pts.iter()
                .all(|p| p.mode == Mode::Standard && !p.symmetry && p.m == Some(3))
        );
    }
}
