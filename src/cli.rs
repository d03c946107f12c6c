//! The command line: `weft check`, `weft replay`, `weft simulate`,
//! `weft convert`, `weft test`, `weft gen`, `weft bench`.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(name = "weft", version, about = "A model checker for finite multithreaded programs", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check a model's properties: exit 0 safe, 1 unsafe, 3 unknown, 2 bad input.
    Check(CheckArgs),
    /// Re-execute a saved counterexample step by step: exit 0 it replays to
    /// its error state, 1 it does not, 2 bad input.
    ///
    /// TRACE is what `weft check --format json` or `weft simulate --format
    /// json` printed. Each step is printed once confirmed. Exit 0: every step re-executes and the trace ends in an error state
    /// of its property (or a run-time error, for `model-errors`); 1: a step
    /// is not enabled or leads to other values than the trace says (the
    /// first such step is named), or the trace ends in no error state; 2:
    /// bad input (an unreadable model or trace file, no trace in it, an
    /// unknown property).
    Replay(ReplayArgs),
    /// Random simulation: exit 1 a run reached an error, 0 none did (which
    /// proves nothing), 2 bad input.
    ///
    /// Runs of random steps (each picked uniformly among all the moves of
    /// the state), checking every state; stops at the first error and prints
    /// its trace as `weft check` does.
    ///
    /// Exit 1: a run reached an error state or a run-time error; 0: no run
    /// did (which proves nothing: use `weft check`); 2: bad input.
    Simulate(SimulateArgs),
    /// Print a model (weft/1 JSON or DVE) as weft/1 JSON, or as a SPIN
    /// (Promela) model for cross-checking (docs/promela.md).
    Convert {
        /// The model file (.json or .dve).
        model: PathBuf,
        /// The error states to include as the property (weft's predicate language).
        #[arg(long, value_name = "EXPR")]
        error: Option<String>,
        /// Output language: weft/1 JSON, or Promela for SPIN.
        #[arg(long, value_enum, default_value = "json")]
        to: ConvertTo,
        /// Override a model parameter: --param n=5 (repeatable).
        #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
        params: Vec<(String, i64)>,
        /// With --to promela: export only this property (repeatable); default
        /// all. Run-time model errors are always checked.
        #[arg(long = "property", value_name = "NAME")]
        properties: Vec<String>,
    },
    /// Check a model file, or every model in a folder, against its `expect`
    /// (for CI): one line per run (a mode, with the options its `expect`
    /// entry gives), then `N passed, N failed`.
    ///
    /// Exit 0 when all passed, 1 on any wrong verdict or model that does
    /// not load, 2 when nothing could be checked (every file skipped) or
    /// PATH cannot be read.
    ///
    /// In a folder, every *.json is a candidate except *.exceptions.json
    /// (the naming convention for exception sets used with --exceptions).
    /// A JSON file that is not a weft/1 model (an array, an object without
    /// `threads`, `properties` or `format`, another tool's `format`) is
    /// skipped and listed; a model without `expect` is skipped too. A weft/1
    /// model that does not load fails.
    Test {
        /// A model file (.json, or .dve, which has no `expect`), or a folder
        /// of models (its *.json files).
        #[arg(value_name = "PATH")]
        path: PathBuf,
        /// Per run: stop with `unknown` after this many states.
        #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        max_states: Option<usize>,
        /// Per run: stop with `unknown` after this many seconds
        /// (an `unknown` where `expect` says safe or unsafe fails).
        #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
        timeout: Option<f64>,
        /// Per run: stop with `unknown` when resident memory reaches this
        /// many MiB (default: 80% of physical memory).
        #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..))]
        max_memory: Option<u64>,
        /// Worker threads for standard's search (default: one per core).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        jobs: Option<u16>,
        /// Also write the results as JUnit XML to FILE (one testsuite, one
        /// testcase per run: classname the file, name the mode and the
        /// run's options from `expect`).
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// Output format: text lines, or JSON Lines (one object per (model,
        /// mode), then a summary object).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Print a generated model (the papers' families) as weft/1 JSON.
    Gen {
        #[command(subcommand)]
        family: GenFamily,
    },
    /// Run a grid of models x parameters x modes, each run a child
    /// `weft check` under a timeout and a memory budget, and write
    /// report.json, report.md and time_vs_threads.svg to --out.
    ///
    /// Points of one curve run with n ascending; once one times out or runs
    /// out of memory, the larger n of that curve are recorded as skipped.
    /// Exit 0 when every point has a record (timeouts included), 1 when some
    /// run failed (an error or a crash of the child; in --preset refine a
    /// check that `weft check` refuses is a cell of the table instead) or,
    /// in --preset refine, a verdict contradicts standard's or the model's
    /// `expect`; 2 on bad usage.
    Bench(BenchArgs),
}

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// A preset grid. fig4: the precise thread-modular paper's Fig. 4 (lock,
    /// n = 10..100 step 10, m in {1,3,5,7,9}) for cartesian-exc,
    /// thread-modular and standard. refine: standard beside refine with
    /// each --refine strategy on the shipped models, the BEEM mutex
    /// instances and lock(n, m) without its exception set; writes
    /// refine.json and refine.md (run from the repository). storage:
    /// standard on lock(n, 3), n = 6..11 (states/s, bytes per state).
    /// symmetry: standard --symmetry on lock(n, 1) up to n = 100000 and
    /// lock(n, 3) up to n = 100, beside the full search where it finishes.
    #[arg(long, value_enum, conflicts_with_all = ["family", "models", "threads", "sections", "modes"])]
    pub preset: Option<Preset>,
    /// With --preset refine: run only the models whose name contains NAME
    /// (the file name, or `lock(20, 3)`; repeatable).
    #[arg(long, value_name = "NAME", requires = "preset")]
    pub only: Vec<String>,
    /// Generated model families (comma list).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "FAMILY")]
    pub family: Vec<FamilyArg>,
    /// Model files (repeatable); with --threads, each is run with --param n=N.
    #[arg(long = "model", value_name = "FILE", num_args = 1..)]
    pub models: Vec<PathBuf>,
    /// Thread counts n (comma list), e.g. 10,20,30.
    #[arg(long, value_delimiter = ',', value_name = "N,...", value_parser = at_least_one)]
    pub threads: Vec<u32>,
    /// Critical sections per thread m (comma list; lock only; default 1).
    #[arg(long, value_delimiter = ',', value_name = "M,...", value_parser = at_least_one)]
    pub sections: Vec<u32>,
    /// Modes (comma list); default all three.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "MODE,...")]
    pub modes: Vec<ModeArg>,
    /// Run standard's points with `--symmetry` (with --family/--model; the
    /// symmetry preset has its own).
    #[arg(long, conflicts_with = "preset")]
    pub symmetry: bool,
    /// Runs per point; the report gives min, median and max.
    #[arg(long, default_value_t = 3, value_parser = at_least_one)]
    pub repeat: u32,
    /// Per-run timeout in seconds (the harness kills a child one second
    /// later); default 10, and 60 for --preset refine, storage and symmetry.
    #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
    pub timeout: Option<f64>,
    /// Per-run memory budget in MiB.
    #[arg(long, default_value_t = 4096, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory: u64,
    /// Per-run state budget (`weft check --max-states`); default none.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_states: Option<u64>,
    /// Worker threads of standard's search in each run (`weft check
    /// --jobs`; default: one per core, as for `weft check`). Recorded in the
    /// report.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Output folder for report.json, report.md and time_vs_threads.svg.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// No progress on stderr (also quiet when CI is set or stderr is not a
    /// terminal).
    #[arg(long)]
    pub quiet: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvertTo {
    /// weft/1 JSON.
    Json,
    /// Promela, for SPIN.
    Promela,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    Fig4,
    Refine,
    Storage,
    Symmetry,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FamilyArg {
    Lock,
    Simple,
    SimpleBool,
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The model file (weft/1 JSON or DVE).
    pub model: PathBuf,
    /// standard (exact), thread-modular (Flanagan-Qadeer), cartesian-exc
    /// (Malkis-Podelski-Rybalchenko) or refine (cartesian-exc refined
    /// automatically until it proves or refutes).
    #[arg(long, value_enum, default_value = "standard")]
    pub mode: ModeArg,
    /// Override a model parameter: --param n=5 (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, i64)>,
    /// Check only this property (repeatable); default all.
    #[arg(long = "property", value_name = "NAME")]
    pub properties: Vec<String>,
    /// Output format: human text, or JSON Lines (one object per property).
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Stop with `unknown` after this many states.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_states: Option<u64>,
    /// Stop with `unknown` after this many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
    pub timeout: Option<f64>,
    /// Stop with `unknown` when resident memory reaches this many MiB
    /// (default: 80% of physical memory).
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory: Option<u64>,
    /// Symmetry reduction of interchangeable threads (standard only).
    #[arg(long)]
    pub symmetry: bool,
    /// Partial-order reduction (standard only): expand each state by a
    /// persistent set of threads, with a cycle proviso (only where a thread
    /// left out may still change the property or fail at run time); a
    /// state whose reduced expansion is one step is passed through, checked
    /// but not stored. Verdicts are unchanged; traces are real but no
    /// longer necessarily shortest.
    #[arg(long, conflicts_with = "symmetry")]
    pub por: bool,
    /// Lipton reduction (standard and thread-modular): a step runs a thread
    /// through a whole reducible block of movers (acquire … release).
    /// Verdicts are unchanged; only states where every thread is outside a
    /// block are stored. `--show blocks` prints the blocks.
    #[arg(long, conflicts_with_all = ["symmetry", "por"])]
    pub blocks: bool,
    /// Internal: with --symmetry, keep the sorted representation rather
    /// than counters (for comparisons).
    #[arg(long, hide = true, requires = "symmetry")]
    pub symmetry_sorted: bool,
    /// Standard only: expand no state more than N steps from an initial
    /// state. A property with no error within the bound is `unknown` when
    /// the bound cut off states (`safe` when every state lies within it).
    #[arg(long, value_name = "N")]
    pub max_depth: Option<u64>,
    /// Standard only: keep searching after every property is violated (as
    /// TLC's -continue, SPIN's -c0): every state is checked, model errors
    /// too, and each violated property reports its count of error states
    /// beside its shortest trace.
    #[arg(long = "continue")]
    pub keep_going: bool,
    /// Worker threads for standard's search (default: one per core). The
    /// verdict, the state count and the trace length do not depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Print the abstract fixpoint (abstract modes), the reducible blocks
    /// (`blocks`), or the transitions never taken (`coverage`).
    #[arg(long, value_enum)]
    pub show: Option<Show>,
    /// The error states, in weft's predicate language (replaces the model's
    /// properties; the way to give a property to a DVE model).
    #[arg(long, value_name = "EXPR")]
    pub error: Option<String>,
    /// DVE models: a transition that fails at run time (a value out of
    /// its type, an index out of bounds) leads to DiVinE's error state, as
    /// in BEEM's published counts, instead of having no successor; still
    /// reported by `model-errors`. Mode standard only (docs/beem.md).
    #[arg(long)]
    pub divine_errors: bool,
    /// Exception set for cartesian-exc from a separate JSON file.
    #[arg(long, value_name = "FILE")]
    pub exceptions: Option<PathBuf>,
    /// With --mode refine: write the exception set it computed to FILE, in
    /// the --exceptions format (cartesian-exc then re-proves in one pass).
    #[arg(long, value_name = "FILE")]
    pub save_exceptions: Option<PathBuf>,
    /// With --mode refine: what a spurious alarm refines. exceptions
    /// (default): the global stores where thread states were glued become
    /// exact. control: each thread sees the others' locations up to a
    /// partition, re-solved for the fewest classes (non-monotonic);
    /// control-monotonic: the split-only baseline.
    #[arg(long, value_enum, value_name = "STRATEGY")]
    pub refine: Option<RefineArg>,
}

#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// The model file (weft/1 JSON or DVE).
    pub model: PathBuf,
    /// The trace: the JSON Lines output of `weft check --format json` (the
    /// first line with a trace is used), one such line, or a trace object
    /// `{"initial", "trace"}`.
    pub trace: PathBuf,
    /// Replay the trace of this property's line (and expect its error
    /// state at the end).
    #[arg(long, value_name = "NAME")]
    pub property: Option<String>,
    /// Override a model parameter: --param n=5 (repeatable); give the
    /// values the trace was made with.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, i64)>,
    /// The error states, as given to `weft check --error` (DVE models).
    #[arg(long, value_name = "EXPR")]
    pub error: Option<String>,
    /// As given to `weft check --divine-errors` (DVE models).
    #[arg(long)]
    pub divine_errors: bool,
    /// Stop (exit 3) after this many seconds, counted from the start.
    #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
    pub timeout: Option<f64>,
    /// Stop (exit 3) when resident memory passes this many MiB (default:
    /// 80% of physical memory); a trace's JSON takes many times its file.
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory: Option<u64>,
}

#[derive(clap::Args, Debug)]
pub struct SimulateArgs {
    /// The model file (weft/1 JSON or DVE).
    pub model: PathBuf,
    /// Steps per run at most.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub steps: u64,
    /// Runs at most; the simulation stops at the first error.
    #[arg(long, default_value_t = 1000, value_name = "R", value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: u64,
    /// Seed of the random choices: the same seed gives the same runs
    /// (default: drawn from the clock, and printed).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Override a model parameter: --param n=5 (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, i64)>,
    /// Check only this property (repeatable); default all.
    #[arg(long = "property", value_name = "NAME")]
    pub properties: Vec<String>,
    /// The error states, in weft's predicate language (replaces the model's
    /// properties).
    #[arg(long, value_name = "EXPR")]
    pub error: Option<String>,
    /// Output format: human text, or JSON Lines (one object per property,
    /// as `weft check`; `weft replay` reads it).
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Stop simulating after this many seconds, counted from the start:
    /// the runs so far are reported (exit 0 when none found an error).
    #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
    pub timeout: Option<f64>,
    /// Stop simulating when resident memory reaches this many MiB
    /// (default: 80% of physical memory), as --timeout: the states met are
    /// kept, so a long simulation grows.
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory: Option<u64>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefineArg {
    Exceptions,
    Control,
    ControlMonotonic,
}

#[derive(Subcommand, Debug)]
pub enum GenFamily {
    /// The lock schema: n threads, m critical sections each.
    Lock {
        /// Number of threads n (1 to 100000).
        #[arg(long, value_parser = gen_size)]
        threads: u32,
        /// Critical sections per thread m (1 to 100000).
        #[arg(long, value_parser = gen_size)]
        sections: u32,
    },
    /// Simple(n) of the thread-modular paper.
    Simple {
        /// Number of threads n (1 to 100000).
        #[arg(long, value_parser = gen_size)]
        threads: u32,
    },
    /// Simple(n) with a boolean mutex.
    SimpleBool {
        /// Number of threads n (1 to 100000).
        #[arg(long, value_parser = gen_size)]
        threads: u32,
    },
    /// Peterson's algorithm with the paper's exception set (models/peterson.json).
    Peterson,
    /// ESST's token ring (cooperative): a master and N transmitters.
    TokenRing {
        /// Number of transmitters N (1 to 100000).
        #[arg(long, value_parser = gen_size)]
        threads: u32,
        /// The last transmitter forgets to add one (unsafe).
        #[arg(long)]
        bug: bool,
    },
    /// ESST's producer and consumer over a FIFO (cooperative).
    PcSfifo {
        /// 1: a FIFO of one place; 2: of two.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=2))]
        variant: u32,
    },
    /// P1-x of the reduction paper (Fig. 1 for x = 1): locks mx, my.
    P1 {
        /// Statements x in each reducible block (1 to 100000).
        #[arg(long, value_parser = gen_size)]
        stmts: u32,
    },
    /// P2-x: P1-x where thread-3 also reads y without its lock.
    P2 {
        /// Statements x in each reducible block (1 to 100000).
        #[arg(long, value_parser = gen_size)]
        stmts: u32,
    },
    /// SV-COMP's stack (safe, or unsafe with --bug) of the reduction paper.
    Stack {
        /// Stack size (rounds per thread, 1 to 100000).
        #[arg(long, value_parser = gen_size)]
        size: u32,
        /// The popper pops when a flag says so, not when the stack is non-empty.
        #[arg(long)]
        bug: bool,
    },
    /// Dining philosophers, forks as locks.
    Philosophers {
        /// Number of philosophers (2 to 100000).
        #[arg(long, value_parser = clap::value_parser!(u32).range(2..=GEN_MAX as i64))]
        threads: u32,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModeArg {
    Standard,
    ThreadModular,
    CartesianExc,
    Refine,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    Invariant,
    /// The reducible blocks `--blocks` uses (mover classes, In/Out).
    Blocks,
    /// The transitions the run never took (SPIN's unreached code):
    /// standard exactly, thread-modular and cartesian-exc as dead code.
    Coverage,
}

/// The largest size `weft gen` takes: a model of 100,000 threads (or
/// statements per block) loads in seconds; far beyond it, printing the
/// model alone ran out of memory (`--stmts 4000000000`: a 288 GB
/// allocation, found by fuzzing).
pub const GEN_MAX: u32 = 100_000;

fn gen_size(s: &str) -> Result<u32, String> {
    let v = at_least_one(s)?;
    if v > GEN_MAX {
        return Err(format!("must be at most {GEN_MAX}"));
    }
    Ok(v)
}

/// A count that must be at least 1 (`--threads`, `--sections`,
/// `--repeat`): clap reports `invalid value '0' for '--threads <THREADS>':
/// must be at least 1` and exits 2.
fn at_least_one(s: &str) -> Result<u32, String> {
    let v: u32 = s
        .trim()
        .parse()
        .map_err(|_| format!("expected a whole number of at least 1, found `{s}`"))?;
    if v == 0 {
        return Err("must be at least 1".into());
    }
    Ok(v)
}

/// A positive, finite number of seconds (`--timeout`).
fn positive_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("expected a number of seconds, found `{s}`"))?;
    if !(v.is_finite() && v > 0.0) {
        return Err("must be a positive number of seconds".into());
    }
    Ok(v)
}

fn parse_param(s: &str) -> Result<(String, i64), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, found `{s}`"))?;
    let v: i64 = v
        .trim()
        .parse()
        .map_err(|_| format!("the value of `{k}` must be an integer, found `{v}`"))?;
    Ok((k.trim().to_string(), v))
}
