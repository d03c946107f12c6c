//! The `weft` command: parses the command line (`cli`), calls the library
//! facade, prints the rendered report and sets the exit code.

mod bench_command;
mod cli;
mod regress;
mod watchdog;

use clap::Parser;
use cli::{
    Cli, Command, ConvertTo, Format, GenFamily, ModeArg, RefineArg, ReplayArgs, Show, SimulateArgs,
};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use weft::{CheckOptions, LoadOptions, Mode, Model, Refinement};

/// Why a command did not run: printed on stderr, exit code 2.
enum Failure {
    /// Bad input: the loader's diagnostic, rendered with its source.
    Input(Box<weft::Diagnostic>),
    /// Anything else, as the sentence to print.
    Message(String),
}

impl From<Box<weft::Diagnostic>> for Failure {
    fn from(d: Box<weft::Diagnostic>) -> Failure {
        Failure::Input(d)
    }
}

/// The exit code of an internal error (a panic): a bug in weft, never the
/// input's fault.
const INTERNAL_ERROR: u8 = 4;

fn main() -> ExitCode {
    let started = std::time::Instant::now();
    // Output piped into a reader that stops early (`weft convert m.dve |
    // head`) ends weft quietly, as it ends `cat` or `spin`: Rust ignores
    // SIGPIPE, so without this the first write after the reader left
    // panicked and was reported as an internal error.
    #[cfg(unix)]
    // SAFETY: restores the default disposition before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    // A panic is a bug in weft: say so and ask for a report, instead of
    // leaving a Rust backtrace as the user's only output.
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        eprintln!(
            "weft: internal error: {what}{location}\n  This is a bug in weft, not in your model. Please report it with the command line and the model file."
        );
    }));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // The test suite's way to reach the handler (tests/internal_error.rs).
        if std::env::var_os("WEFT_TEST_INTERNAL_ERROR").is_some() {
            panic!("WEFT_TEST_INTERNAL_ERROR is set");
        }
        run(cli, started)
    }));
    let Ok(outcome) = outcome else {
        return ExitCode::from(INTERNAL_ERROR);
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(failure) => {
            let message = match failure {
                Failure::Input(d) => d.render(),
                Failure::Message(m) => m,
            };
            eprint!("{message}");
            if !message.ends_with('\n') {
                eprintln!();
            }
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli, started: std::time::Instant) -> Result<u8, Failure> {
    match cli.command {
        Command::Check(args) => {
            // One check, then the process exits: what the engine built is
            // left for the system to take back (anderson.4's cartesian-exc
            // spent a third of its run freeing it).
            weft::leave_engine_state_at_exit();
            let budgets = Budgets::new(started, args.timeout, args.max_memory);
            let mode = mode_of(args.mode);
            let json = args.format == Format::Json;
            let heading = format!("mode {}", mode.name());
            let loaded = budgets.watch_and_load(
                &args.model,
                LoadOptions {
                    params: args.params.clone(),
                    error: args.error.clone(),
                    exceptions: args.exceptions.clone(),
                    divine_errors: args.divine_errors,
                    ..LoadOptions::default()
                },
                (&heading, mode.name(), json),
            )?;
            // `watch_and_load` printed its warnings (they came twice).
            let prog = match loaded {
                Ok(prog) => prog,
                Err(code) => return Ok(code),
            };
            // The test suite's way to hold a run between loading and the
            // search, so that only the watchdog can stop it (tests/budgets.rs).
            if let Some(s) = std::env::var_os("WEFT_TEST_STALL_SECONDS")
                .and_then(|s| s.to_str().and_then(|s| s.parse::<u64>().ok()))
            {
                std::thread::sleep(std::time::Duration::from_secs(s));
            }
            if args.exceptions.is_some() && mode != Mode::CartesianExc {
                eprintln!(
                    "warning: --exceptions is used by cartesian-exc only; mode {} ignores it",
                    mode.name()
                );
            }
            if args.show == Some(Show::Invariant) && mode == Mode::Standard {
                eprintln!(
                    "warning: --show invariant shows the abstract modes' fixpoint; mode standard has none (its answer is the reachable states)"
                );
            }
            if args.save_exceptions.is_some() && mode != Mode::Refine {
                return Err(Failure::Message(
                    "error: --save-exceptions applies to --mode refine only".into(),
                ));
            }
            if args.refine.is_some() && mode != Mode::Refine {
                return Err(Failure::Message(
                    "error: --refine applies to --mode refine only".into(),
                ));
            }
            let refinement = match args.refine {
                None | Some(RefineArg::Exceptions) => Refinement::Exceptions,
                Some(RefineArg::Control) => Refinement::Control,
                Some(RefineArg::ControlMonotonic) => Refinement::ControlMonotonic,
            };
            if args.save_exceptions.is_some() && refinement != Refinement::Exceptions {
                return Err(Failure::Message(
                    "error: --save-exceptions needs --refine exceptions (control refinement computes no exception set)".into(),
                ));
            }
            let opts = CheckOptions {
                properties: args.properties,
                max_states: args.max_states.map(|m| m as usize),
                max_memory_bytes: budgets.max_memory_bytes,
                timeout: budgets.timeout,
                started: Some(started),
                show_invariant: args.show == Some(Show::Invariant),
                symmetry: args.symmetry,
                por: args.por,
                blocks: args.blocks,
                show_blocks: args.show == Some(Show::Blocks),
                show_coverage: args.show == Some(Show::Coverage),
                jobs: args.jobs.map(usize::from),
                refinement,
                max_depth: args
                    .max_depth
                    .map(|d| usize::try_from(d).unwrap_or(usize::MAX)),
                keep_going: args.keep_going,
                symmetry_sorted: args.symmetry_sorted,
                progress: true,
            };
            let report = prog.check(mode, &opts).map_err(|e| {
                // An exception set given by --exceptions fails in its file.
                let file = match &args.exceptions {
                    Some(f) if e.in_exception_set() => f,
                    _ => &args.model,
                };
                Failure::Message(format!("error: {}: {e}", file.display()))
            })?;
            weft::phase::enter(weft::Phase::Reporting);
            if let Some(path) = &args.save_exceptions {
                let Some(exceptions) = &report.exceptions else {
                    unreachable!(
                        "refused before the check: refine always sets exceptions, even when a budget stops it"
                    );
                };
                let cannot_write = |e: std::io::Error| {
                    Failure::Message(format!("error: cannot write {}: {e}", path.display()))
                };
                let mut file =
                    std::io::BufWriter::new(std::fs::File::create(path).map_err(cannot_write)?);
                weft::write_exception_entries(exceptions, &mut file)
                    .and_then(|()| file.flush())
                    .map_err(cannot_write)?;
                warn_partial_exceptions(&report);
            }
            match args.format {
                Format::Text => print!("{}", report.to_text()),
                Format::Json => {
                    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                    report
                        .write_json_lines(&mut out)
                        .and_then(|()| out.flush())
                        .map_err(|e| {
                            Failure::Message(format!("error: cannot write the report: {e}"))
                        })?;
                }
            }
            Ok(report.verdict().exit_code() as u8)
        }
        Command::Replay(args) => replay(args, started),
        Command::Simulate(args) => simulate(args, started),
        Command::Convert {
            model,
            error,
            to,
            params,
            properties,
        } => match to {
            ConvertTo::Json => convert_json(&model, error.as_deref(), &params, &properties),
            ConvertTo::Promela => convert_promela(&model, error.as_deref(), &params, properties),
        },
        Command::Test {
            path,
            max_states,
            timeout,
            max_memory,
            jobs,
            junit,
            format,
        } => {
            let opts = CheckOptions {
                max_states,
                progress: true,
                timeout: timeout.map(|s| {
                    std::time::Duration::try_from_secs_f64(s).unwrap_or(std::time::Duration::MAX)
                }),
                max_memory_bytes: max_memory.map(|m| m.saturating_mul(1024 * 1024)),
                jobs: jobs.map(usize::from),
                ..Default::default()
            };
            test(&path, &opts, junit.as_deref(), format)
        }
        Command::Gen { family } => {
            let model = match family {
                // clap refuses 0 threads or sections, or more than GEN_MAX
                // (exit 2); their product is bounded here.
                GenFamily::Lock { threads, sections } => {
                    if threads as u64 * sections as u64 > cli::GEN_MAX as u64 * 100 {
                        return Err(Failure::Message(format!(
                            "error: --threads {threads} --sections {sections} make {} critical sections; at most {} are generated",
                            threads as u64 * sections as u64,
                            cli::GEN_MAX as u64 * 100
                        )));
                    }
                    weft::families::lock(threads, sections)
                }
                GenFamily::Simple { threads } => weft::families::simple(threads, false),
                GenFamily::SimpleBool { threads } => weft::families::simple(threads, true),
                GenFamily::Peterson => weft::families::peterson(),
                GenFamily::TokenRing { threads, bug } => weft::families::token_ring(threads, bug),
                GenFamily::PcSfifo { variant } => weft::families::pc_sfifo(variant),
                GenFamily::P1 { stmts } => weft::families::p1(stmts, false),
                GenFamily::P2 { stmts } => weft::families::p1(stmts, true),
                GenFamily::Stack { size, bug } => weft::families::stack(size, bug),
                GenFamily::Philosophers { threads } => weft::families::philosophers(threads),
            };
            println!(
                "{}",
                serde_json::to_string_pretty(&model)
                    .map_err(|e| Failure::Message(e.to_string()))?
            );
            Ok(0)
        }
        Command::Bench(args) => bench_command::bench(args),
    }
}

/// `weft test PATH`: prints each record as it comes, then the closing line
/// or summary record; writes the JUnit report. Exit 0 when every check
/// passed, 1 when one did not, 2 when none could run.
fn test(
    path: &Path,
    opts: &CheckOptions,
    junit: Option<&Path>,
    format: Format,
) -> Result<u8, Failure> {
    let run = regress::run(path, opts, |r| match format {
        Format::Text => println!("{}", regress::text_line(r)),
        Format::Json => println!("{}", regress::json_line(r)),
    })
    .map_err(|e| Failure::Message(format!("error: {e}")))?;
    match format {
        Format::Text => println!("{}", regress::closing_line(&run)),
        Format::Json => println!("{}", regress::json_summary(&run)),
    }
    if let Some(out) = junit {
        regress::write_junit(out, path, &run)
            .map_err(|e| Failure::Message(format!("error: {e}")))?;
    }
    let s = run.summary;
    if s.passed + s.failed() == 0 {
        // A CI job that checked nothing must not pass silently.
        return Err(Failure::Message(format!(
            "error: nothing to check in {}: no model with an `expect`",
            path.display()
        )));
    }
    Ok(if s.failed() == 0 { 0 } else { 1 })
}

/// A command's `--timeout` and `--max-memory`, counted from the start of
/// the process, and the watchdog that backs them.
struct Budgets {
    started: std::time::Instant,
    timeout: Option<std::time::Duration>,
    /// `--max-memory` in bytes, as given.
    max_memory_bytes: Option<u64>,
    /// The memory budget in force: `--max-memory`, or 80% of physical
    /// memory.
    memory_budget: Option<u64>,
}

impl Budgets {
    fn new(started: std::time::Instant, timeout: Option<f64>, max_memory: Option<u64>) -> Budgets {
        let timeout = timeout
            .map(|s| std::time::Duration::try_from_secs_f64(s).unwrap_or(std::time::Duration::MAX));
        let max_memory_bytes = max_memory.map(|m| m.saturating_mul(1024 * 1024));
        let memory_budget = CheckOptions {
            max_memory_bytes,
            ..CheckOptions::default()
        }
        .memory_budget_bytes();
        Budgets {
            started,
            timeout,
            max_memory_bytes,
            memory_budget,
        }
    }

    /// Starts the watchdog, then loads the model within the budgets, its
    /// warnings on stderr. `run` names the run in what a stop prints: the
    /// heading of its text (`mode standard`, `simulate`), the `mode` of a
    /// JSON summary, and `--format json`. `Ok(Err(3))`: a budget ran out
    /// while loading, and the `unknown` was printed.
    fn watch_and_load(
        &self,
        path: &Path,
        opts: LoadOptions,
        (heading, mode, json): (&str, &'static str, bool),
    ) -> Result<Result<Model, u8>, Failure> {
        let file = path.display().to_string();
        watchdog::start(watchdog::Watch {
            started: self.started,
            timeout: self.timeout,
            max_memory_bytes: self.memory_budget,
            file: file.clone(),
            heading: heading.to_string(),
            mode,
            json,
        });
        let opts = LoadOptions {
            timeout: self.timeout,
            max_memory_bytes: self.memory_budget,
            started: Some(self.started),
            ..opts
        };
        match Model::load_with(path, &opts) {
            Ok(model) => {
                for w in model.warnings() {
                    eprintln!("warning: {w}");
                }
                Ok(Ok(model))
            }
            Err(d) => match d.budget_exhausted() {
                // Not bad input: a budget ran out while loading.
                Some((limit, phase)) => {
                    weft::phase::enter(weft::Phase::Reporting);
                    let reason = format!("{}; nothing was checked", d.message);
                    watchdog::print_stopped(&file, heading, mode, json, limit, phase, &reason);
                    Ok(Err(3))
                }
                None => Err(d.into()),
            },
        }
    }

    /// Reads `weft replay`'s trace file within the budgets (its JSON tree
    /// can take many times the file). `Ok(Err(3))`: a budget ran out while
    /// reading it, and the `unknown` was printed.
    fn read_trace(
        &self,
        model: &Path,
        trace: &Path,
        property: Option<&str>,
    ) -> Result<Result<weft::SavedTrace, u8>, Failure> {
        let opts = LoadOptions {
            timeout: self.timeout,
            max_memory_bytes: self.memory_budget,
            started: Some(self.started),
            ..LoadOptions::default()
        };
        match weft::SavedTrace::load_with(trace, property, &opts) {
            Ok(saved) => Ok(Ok(saved)),
            Err(d) => match d.budget_exhausted() {
                Some((limit, phase)) => {
                    weft::phase::enter(weft::Phase::Reporting);
                    let reason = format!("{}; nothing was replayed", d.message);
                    let file = model.display().to_string();
                    watchdog::print_stopped(
                        &file, "replay", "replay", false, limit, phase, &reason,
                    );
                    Ok(Err(3))
                }
                None => Err(d.into()),
            },
        }
    }
}

/// `weft replay`: exit 0 when the trace re-executes and ends in its error
/// state, 1 when it does not, 3 when a budget ran out before it could tell.
fn replay(args: ReplayArgs, started: std::time::Instant) -> Result<u8, Failure> {
    let budgets = Budgets::new(started, args.timeout, args.max_memory);
    let without_error = args.error.is_none();
    let loaded = budgets.watch_and_load(
        &args.model,
        LoadOptions {
            params: args.params,
            error: args.error,
            divine_errors: args.divine_errors,
            ..LoadOptions::default()
        },
        ("replay", "replay", false),
    )?;
    let model = match loaded {
        Ok(model) => model,
        Err(code) => return Ok(code),
    };
    let saved = match budgets.read_trace(&args.model, &args.trace, args.property.as_deref())? {
        Ok(saved) => saved,
        Err(code) => return Ok(code),
    };
    let opts = weft::ReplayOptions {
        timeout: budgets.timeout,
        max_memory_bytes: budgets.max_memory_bytes,
        started: Some(started),
    };
    let report = model
        .replay_with(&saved.trace, saved.property.as_deref(), &opts)
        .map_err(|e| {
            let unknown = matches!(e, weft::CheckError::UnknownProperty { .. });
            let hint = if unknown && without_error {
                " (was the trace made with `--error`? give it here too)"
            } else {
                ""
            };
            Failure::Message(format!("error: {}: {e}{hint}", args.trace.display()))
        })?;
    weft::phase::enter(weft::Phase::Reporting);
    print!("{}", report.to_text());
    Ok(report.exit_code() as u8)
}

/// `weft simulate`: exit 1 when a run found an error, else 0 (also when a
/// budget stopped the runs), 3 when a budget ran out while loading.
fn simulate(args: SimulateArgs, started: std::time::Instant) -> Result<u8, Failure> {
    let budgets = Budgets::new(started, args.timeout, args.max_memory);
    let json = args.format == Format::Json;
    let loaded = budgets.watch_and_load(
        &args.model,
        LoadOptions {
            params: args.params,
            error: args.error,
            ..LoadOptions::default()
        },
        ("simulate", "simulate", json),
    )?;
    let model = match loaded {
        Ok(model) => model,
        Err(code) => return Ok(code),
    };
    // Without --seed, a seed from the clock, small enough to retype.
    let seed = args.seed.unwrap_or_else(|| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        u64::from(now.subsec_nanos() ^ now.as_secs() as u32)
    });
    let opts = weft::SimulateOptions {
        properties: args.properties,
        runs: args.runs,
        steps: args.steps,
        seed,
        timeout: budgets.timeout,
        max_memory_bytes: budgets.max_memory_bytes,
        started: Some(started),
    };
    let report = model
        .simulate(&opts)
        .map_err(|e| Failure::Message(format!("error: {}: {e}", args.model.display())))?;
    weft::phase::enter(weft::Phase::Reporting);
    match args.format {
        Format::Text => print!("{}", report.to_text()),
        Format::Json => print!("{}", report.to_json_lines()),
    }
    Ok(report.exit_code() as u8)
}

/// `weft convert --to json`: the model (DVE translated) as weft/1 JSON;
/// `--param` overrides become the printed parameter defaults.
fn convert_json(
    model: &Path,
    error: Option<&str>,
    params: &[(String, i64)],
    properties: &[String],
) -> Result<u8, Failure> {
    if !properties.is_empty() {
        return Err(Failure::Message(
            "error: --property applies to --to promela only".into(),
        ));
    }
    let (mut value, warnings) = Model::dve_to_json(model, error)?;
    for w in warnings {
        eprintln!("warning: {w}");
    }
    let file = model.display().to_string();
    if !params.is_empty() {
        // Checks the names and values against the model first.
        Model::from_json_with_params(&value.to_string(), &file, params)?;
        if let Some(ps) = value.get_mut("params").and_then(|p| p.as_object_mut()) {
            for (k, v) in params {
                ps.insert(k.clone(), serde_json::Value::from(*v));
            }
        }
    }
    // Validate what we print: it must load as it is.
    let text = serde_json::to_string_pretty(&value).map_err(|e| Failure::Message(e.to_string()))?;
    Model::from_json(&text, &file)?;
    println!("{text}");
    Ok(0)
}

/// `weft convert --to promela`: the compiled model as a SPIN model.
fn convert_promela(
    model: &Path,
    error: Option<&str>,
    params: &[(String, i64)],
    properties: Vec<String>,
) -> Result<u8, Failure> {
    let prog = Model::load_with(
        model,
        &LoadOptions {
            params: params.to_vec(),
            error: error.map(str::to_string),
            ..LoadOptions::default()
        },
    )?;
    if Model::is_dve_path(model) {
        // The translation's warnings, and the loader's about the
        // translated model (as `weft check` prints them); a weft/1 model's
        // own warnings are left to `weft check`.
        for w in prog.warnings() {
            eprintln!("warning: {w}");
        }
    }
    let out = prog
        .to_promela(&properties)
        .map_err(|e| Failure::Message(format!("error: {}: {e}", model.display())))?;
    for w in out.warnings {
        eprintln!("warning: {w}");
    }
    print!("{}", out.text);
    Ok(0)
}

fn mode_of(m: ModeArg) -> Mode {
    match m {
        ModeArg::Standard => Mode::Standard,
        ModeArg::ThreadModular => Mode::ThreadModular,
        ModeArg::CartesianExc => Mode::CartesianExc,
        ModeArg::Refine => Mode::Refine,
    }
}

/// `--save-exceptions` after a run that did not prove every property: the
/// set written is E where the run stopped (at a counterexample, or a
/// budget), not an invariant, and may not re-prove even the properties the
/// run proved; a run of those alone saves one that does (found by fuzzing,
/// 2026-11-28).
fn warn_partial_exceptions(report: &weft::RunReport) {
    let (proved, other): (Vec<_>, Vec<_>) = report
        .outcomes
        .iter()
        .partition(|o| o.verdict == weft::Verdict::Safe);
    if other.is_empty() {
        return;
    }
    let not: Vec<String> = other
        .iter()
        .map(|o| format!("{}: {}", o.property, o.verdict.name()))
        .collect();
    let alone: Vec<String> = proved
        .iter()
        .filter(|o| o.property != weft::MODEL_ERRORS)
        .map(|o| format!("--property {}", o.property))
        .collect();
    // Every run checks model-errors: where it is what was not proved, the
    // proved properties alone stop at the same place (found in review).
    let errors_unproved = other.iter().any(|o| o.property == weft::MODEL_ERRORS);
    let hint = if alone.is_empty() || errors_unproved {
        String::new()
    } else {
        format!(
            "; to save a set that re-proves the proved properties, run them alone (`{}`)",
            alone.join(" ")
        )
    };
    eprintln!(
        "warning: --save-exceptions: the run did not prove every property ({}), so the set written is where it stopped and may not re-prove even the others{hint}",
        not.join(", ")
    );
}
