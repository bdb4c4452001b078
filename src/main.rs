//! The `mneme` command line: argument parsing, dispatch, and rendering errors once.

mod cli;
mod commands;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Durable, human-approved memory for AI coding agents, kept as plain files in git.
///
/// Facts live in `.ledger/facts/*.md`. Agents read them with `mneme context` and propose changes
/// with `mneme propose`; a human reviews the proposals.
#[derive(Debug, Parser)]
#[command(
    name = "mneme",
    version,
    propagate_version = true,
    max_term_width = 100
)]
#[command(
    after_help = "Exit codes: 0 success, 1 error (bad input, refused operation), 2 usage error."
)]
struct Cli {
    /// Print machine-readable JSON; errors are printed as JSON on stderr.
    #[arg(long, global = true)]
    json: bool,

    /// Run as if mneme was started in DIR.
    #[arg(short = 'C', global = true, value_name = "DIR")]
    directory: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Init(commands::init::Args),
    Propose(commands::propose::Args),
    Context(commands::context::Args),
    Facts(commands::facts::Args),
    Show(commands::show::Args),
    Review(commands::review::Args),
    Log(commands::log::Args),
    Why(commands::why::Args),
    Check(commands::check::Args),
    Verify(commands::verify::Args),
    Diff(commands::diff::Args),
    MergeFile(commands::merge_file::Args),
    Hooks(commands::hooks::Args),
    Create(commands::create::Args),
    Update(commands::update::Args),
    Close(commands::close::Args),
    Reopen(commands::reopen::Args),
    List(commands::list::Args),
    Ready(commands::ready::Args),
    Blocked(commands::blocked::Args),
    Dep(commands::dep::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let ui = cli::ui::Ui::new(cli.json);
    let result = std::env::current_dir()
        .map_err(|source| mneme::Error::Io {
            path: PathBuf::from("."),
            source,
        })
        .map(|cwd| match &cli.directory {
            Some(dir) => cwd.join(dir),
            None => cwd,
        })
        .and_then(|cwd| {
            let cx = commands::Cx { cwd, ui: &ui };
            match &cli.command {
                Command::Init(args) => commands::init::run(&cx, args),
                Command::Propose(args) => commands::propose::run(&cx, args),
                Command::Context(args) => commands::context::run(&cx, args),
                Command::Facts(args) => commands::facts::run(&cx, args),
                Command::Show(args) => commands::show::run(&cx, args),
                Command::Review(args) => commands::review::run(&cx, args),
                Command::Log(args) => commands::log::run(&cx, args),
                Command::Why(args) => commands::why::run(&cx, args),
                Command::Check(args) => commands::check::run(&cx, args),
                Command::Verify(args) => commands::verify::run(&cx, args),
                Command::Diff(args) => commands::diff::run(&cx, args),
                Command::MergeFile(args) => commands::merge_file::run(&cx, args),
                Command::Hooks(args) => commands::hooks::run(&cx, args),
                Command::Create(args) => commands::create::run(&cx, args),
                Command::Update(args) => commands::update::run(&cx, args),
                Command::Close(args) => commands::close::run(&cx, args),
                Command::Reopen(args) => commands::reopen::run(&cx, args),
                Command::List(args) => commands::list::run(&cx, args),
                Command::Ready(args) => commands::ready::run(&cx, args),
                Command::Blocked(args) => commands::blocked::run(&cx, args),
                Command::Dep(args) => commands::dep::run(&cx, args),
            }
        });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            ui.error(&e);
            ExitCode::FAILURE
        }
    }
}
