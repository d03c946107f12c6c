use clap::Parser;
use std::process::ExitCode;
use weft::cli::{Cli, Command, Format, GenFamily, ModeArg, Show};
use weft::engine::{self, CheckOptions};
use weft::program::Mode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            eprint!("{message}");
            if !message.ends_with('\n') {
                eprintln!();
            }
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<u8, String> {
    match cli.command {
        Command::Check(args) => {
            let prog = match &args.exceptions {
                Some(exc) => {
                    weft::model::load::load_with_exceptions(&args.model, &args.params, exc)
                }
                None => weft::model::load_any(&args.model, &args.params, args.error.as_deref()),
            }
            .map_err(|d| d.render())?;
            let mode = match args.mode {
                ModeArg::Standard => Mode::Standard,
                ModeArg::ThreadModular => Mode::ThreadModular,
                ModeArg::CartesianExc => Mode::CartesianExc,
            };
            let opts = CheckOptions {
                properties: args.properties,
                max_states: args.max_states,
                max_memory_bytes: args.max_memory.map(|m| m * 1024 * 1024),
                timeout: args.timeout.map(std::time::Duration::from_secs_f64),
                show_invariant: args.show == Some(Show::Invariant),
            };
            let report = engine::check(&prog, mode, &opts).map_err(|e| format!("error: {e}"))?;
            match args.format {
                Format::Text => print!("{}", report.to_text()),
                Format::Json => print!("{}", report.to_json_lines()),
            }
            Ok(report.verdict().exit_code() as u8)
        }
        Command::Convert { model, error } => {
            let (value, warnings) = weft::model::load::to_json(&model, error.as_deref()).map_err(|d| d.render())?;
            for w in warnings {
                eprintln!("warning: {w}");
            }
            // Validate what we print: it must load as it is.
            let text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
            weft::model::load_str(&text, &model.display().to_string(), &[]).map_err(|d| d.render())?;
            println!("{text}");
            Ok(0)
        }
        Command::Test { dir, max_states } => {
            let opts = CheckOptions { max_states, ..Default::default() };
            let (text, ok) = weft::regress::run_dir(&dir, &opts).map_err(|e| format!("error: {e}"))?;
            print!("{text}");
            Ok(if ok { 0 } else { 1 })
        }
        Command::Gen { family } => {
            let model = match family {
                GenFamily::Lock { threads, sections } => {
                    if threads == 0 || sections == 0 {
                        return Err("error: --threads and --sections must be at least 1".into());
                    }
                    weft::bench::generate::lock(threads, sections)
                }
                GenFamily::Simple { threads } => weft::bench::generate::simple(threads, false),
                GenFamily::SimpleBool { threads } => weft::bench::generate::simple(threads, true),
            };
            println!(
                "{}",
                serde_json::to_string_pretty(&model).map_err(|e| e.to_string())?
            );
            Ok(0)
        }
    }
}
