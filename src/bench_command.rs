//! `weft bench`: the command line's presets and options turned into a
//! grid (`weft::bench`), run, and written as tables, plots and JSON.

use super::cli::{BenchArgs, FamilyArg, Preset};
use super::{Failure, mode_of};
use std::path::Path;
use weft::Mode;

pub(super) fn bench(args: BenchArgs) -> Result<u8, Failure> {
    use weft::bench::{Family, Grid};
    if !args.only.is_empty() && args.preset != Some(Preset::Refine) {
        return Err(Failure::Message(
            "error: --only applies to --preset refine".into(),
        ));
    }
    let grid = match args.preset {
        Some(Preset::Fig4) => Grid::fig4(),
        Some(Preset::Storage) => Grid::storage(),
        Some(Preset::Symmetry) => Grid::symmetry(),
        Some(Preset::Refine) => {
            Grid::refine(&refine_root()).map_err(|e| Failure::Message(e.to_string()))?
        }
        None => {
            let families: Vec<Family> = args
                .family
                .iter()
                .map(|f| match f {
                    FamilyArg::Lock => Family::Lock,
                    FamilyArg::Simple => Family::Simple,
                    FamilyArg::SimpleBool => Family::SimpleBool,
                })
                .collect();
            let modes: Vec<Mode> = args.modes.iter().map(|&m| mode_of(m)).collect();
            Grid::new(
                &families,
                &args.models,
                &args.threads,
                &args.sections,
                &modes,
            )
            .map_err(|e| Failure::Message(e.to_string()))?
        }
    };
    let grid = if args.symmetry {
        grid.with_symmetry()
    } else {
        grid
    };
    let exe = std::env::current_exe()
        .map_err(|e| Failure::Message(format!("error: cannot find the weft binary to run: {e}")))?;
    let command = std::iter::once("weft".to_string())
        .chain(std::env::args().skip(1).map(|a| {
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'') {
                format!("'{}'", a.replace('\'', "'\\''"))
            } else {
                a
            }
        }))
        .collect::<Vec<_>>()
        .join(" ");
    let cfg = weft::bench::BenchConfig {
        grid,
        repeat: args.repeat,
        limits: weft::bench::Limits {
            timeout_s: args.timeout.unwrap_or(match args.preset {
                Some(Preset::Refine | Preset::Storage | Preset::Symmetry) => 60.0,
                _ => 10.0,
            }),
            max_memory_mib: args.max_memory,
            max_states: args.max_states,
        },
        // The default of `weft check --jobs`: one worker per core.
        jobs: args.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| u16::try_from(n.get()).unwrap_or(u16::MAX))
                .unwrap_or(1)
        }),
        out: args.out,
        quiet: args.quiet,
        preset: args.preset.map(|p| {
            match p {
                Preset::Fig4 => "fig4",
                Preset::Refine => weft::bench::REFINE_PRESET,
                Preset::Storage => "storage",
                Preset::Symmetry => "symmetry",
            }
            .to_string()
        }),
        only: args.only,
        command,
        exe,
    };
    let outcome = weft::bench::run(&cfg).map_err(|e| Failure::Message(e.to_string()))?;
    let errors = outcome.failures();
    if weft::bench::progress_shown(args.quiet) {
        let files: Vec<String> = outcome
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        eprintln!(
            "{} points in {:.1} s; wrote {}",
            outcome.records.len(),
            outcome.wall_s,
            files.join(", ")
        );
    }
    for r in &errors {
        eprintln!("error: {}: {}", r.label(), r.reason());
    }
    for d in &outcome.disagreements {
        eprintln!("error: verdict disagreement: {d}");
    }
    Ok(if errors.is_empty() && outcome.disagreements.is_empty() {
        0
    } else {
        1
    })
}

/// Where the refine preset finds models/ and tests/data/beem/dve/: the
/// current folder when it has them (paths in the report stay relative),
/// else the repository this binary was built from.
fn refine_root() -> std::path::PathBuf {
    let here = Path::new(".");
    if here.join("models").is_dir() && here.join("tests/data/beem/dve").is_dir() {
        std::path::PathBuf::new()
    } else {
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }
}
