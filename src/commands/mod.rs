//! The command line: one file per verb (an `Args` struct whose doc comments are the `--help`
//! text, and a `run` that parses, calls `mneme::ops`, and renders), the parser over them, the
//! dispatch and the exit status. Errors are rendered once, in [`main`].

pub mod blocked;
pub mod check;
pub mod claims;
pub mod close;
pub mod compact;
pub mod completions;
pub mod context;
pub mod create;
pub mod dep;
pub mod diff;
pub mod doctor;
pub mod export;
pub mod facts;
pub mod forge;
pub mod hook;
pub mod hooks;
pub mod import;
pub mod init;
pub mod list;
pub mod log;
pub mod man;
pub mod mcp;
pub mod merge_file;
pub mod migrate;
pub mod propose;
pub mod ready;
pub mod reopen;
pub mod review;
pub mod setup;
pub mod show;
pub mod stale;
pub mod status;
pub mod update;
pub mod verify;
pub mod why;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::TypedValueParser;
use clap::{Parser, Subcommand};
use mneme::model::tasks::task::{DepKind, Kind, Status, Task};

use crate::cli::ui::{paint, task_line, Ui, GOOD};
use crate::cli::{error, names, panic, CliError, Cx, ExitStatus, Result};

/// Durable, human-approved memory for AI coding agents, kept as plain files in git.
///
/// Facts live in `.ledger/facts/*.md`. Agents read them with `mneme context` and propose changes
/// with `mneme propose`; a human reviews the proposals.
#[derive(Debug, Parser)]
#[command(
    name = "mneme",
    // `0.1.0 (3f2a1c9e0b7d x86_64-unknown-linux-gnu)`: which build a hook or a bug report ran.
    version = concat!(
        env!("CARGO_PKG_VERSION"),
        " (",
        env!("MNEME_COMMIT"),
        " ",
        env!("MNEME_TARGET"),
        ")"
    ),
    propagate_version = true,
    max_term_width = 100
)]
#[command(
    after_help = "Exit codes: 0 success; 1 an error (bad input, refused operation), or problems found by `check`, `verify` or `merge-file`; 2 usage error; 70 an internal error (a bug in mneme: please report it)."
)]
pub struct Cli {
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
    Init(init::Args),
    Propose(propose::Args),
    Context(context::Args),
    Facts(facts::Args),
    Show(show::Args),
    Review(review::Args),
    Log(log::Args),
    Why(why::Args),
    Stale(stale::Args),
    Check(check::Args),
    Verify(verify::Args),
    Migrate(migrate::Args),
    Diff(diff::Args),
    Forge(forge::Args),
    Export(export::Args),
    Import(import::Args),
    MergeFile(merge_file::Args),
    Hooks(hooks::Args),
    Setup(setup::Args),
    Status(status::Args),
    Compact(compact::Args),
    Doctor(doctor::Args),
    Mcp(mcp::Args),
    Create(create::Args),
    Update(update::Args),
    Close(close::Args),
    Reopen(reopen::Args),
    List(list::Args),
    Ready(ready::Args),
    Blocked(blocked::Args),
    Claims(claims::Args),
    Dep(dep::Args),
    Completions(completions::Args),
    Man(man::Args),
}

/// Parses the command line, runs the verb and turns its outcome into the process's exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let ui = Ui::new(cli.json);
    panic::install();
    match panic::catch(|| run(&cli, &ui)) {
        Ok(status) => status.into(),
        Err(e) if e.broken_pipe => ExitCode::SUCCESS,
        Err(e) => {
            ui.error(&e);
            if e.code == error::Code::Internal {
                ExitCode::from(panic::EXIT_INTERNAL)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

fn run(cli: &Cli, ui: &Ui) -> Result<ExitStatus> {
    let cwd = std::env::current_dir().map_err(|e| CliError::input(std::path::Path::new("."), e))?;
    let cwd = match &cli.directory {
        Some(dir) => cwd.join(dir),
        None => cwd,
    };
    let cx = Cx { cwd, ui };
    match &cli.command {
        Command::Init(args) => init::run(&cx, args),
        Command::Propose(args) => propose::run(&cx, args),
        Command::Context(args) => context::run(&cx, args),
        Command::Facts(args) => facts::run(&cx, args),
        Command::Show(args) => show::run(&cx, args),
        Command::Review(args) => review::run(&cx, args),
        Command::Log(args) => log::run(&cx, args),
        Command::Why(args) => why::run(&cx, args),
        Command::Stale(args) => stale::run(&cx, args),
        Command::Export(args) => export::run(&cx, args),
        Command::Import(args) => import::run(&cx, args),
        Command::Check(args) => check::run(&cx, args),
        Command::Verify(args) => verify::run(&cx, args),
        Command::Migrate(args) => migrate::run(&cx, args),
        Command::Diff(args) => diff::run(&cx, args),
        Command::Forge(args) => forge::run(&cx, args),
        Command::MergeFile(args) => merge_file::run(&cx, args),
        Command::Hooks(args) => hooks::run(&cx, args),
        Command::Setup(args) => setup::run(&cx, args),
        Command::Status(args) => status::run(&cx, args),
        Command::Compact(args) => compact::run(&cx, args),
        Command::Doctor(args) => doctor::run(&cx, args),
        Command::Mcp(args) => mcp::run(&cx, args),
        Command::Create(args) => create::run(&cx, args),
        Command::Update(args) => update::run(&cx, args),
        Command::Close(args) => close::run(&cx, args),
        Command::Reopen(args) => reopen::run(&cx, args),
        Command::List(args) => list::run(&cx, args),
        Command::Ready(args) => ready::run(&cx, args),
        Command::Blocked(args) => blocked::run(&cx, args),
        Command::Claims(args) => claims::run(&cx, args),
        Command::Dep(args) => dep::run(&cx, args),
        Command::Completions(args) => completions::run(&cx, args),
        Command::Man(args) => man::run(&cx, args),
    }
}

/// Prints a changed task: as JSON, or as `<verb> <task line>`.
pub fn print_task(cx: &Cx, verb: &str, task: &Task) -> Result<ExitStatus> {
    if cx.ui.json {
        cx.ui.json(task)?;
    } else {
        cx.ui
            .out(&format!("{} {}", paint(GOOD, verb), task_line(task)))?;
    }
    Ok(ExitStatus::Success)
}

/// `--status`: the names the task files and JSON use (`in-progress` is accepted too).
pub fn status_parser() -> impl TypedValueParser<Value = Status> {
    names(&Status::ALL, |s| s.as_str(), STATUS_ALIASES)
}

/// `update --status`: every status but `closed` (`mneme close` closes, with a reason).
pub fn settable_status_parser() -> impl TypedValueParser<Value = Status> {
    names(&Status::SETTABLE, |s| s.as_str(), STATUS_ALIASES)
}

const STATUS_ALIASES: &[(&str, &str)] = &[("in-progress", "in_progress")];

/// `--type` of a task.
pub fn kind_parser() -> impl TypedValueParser<Value = Kind> {
    names(&Kind::ALL, |k| k.as_str(), &[])
}

/// `--type` of a dependency.
pub fn dep_kind_parser() -> impl TypedValueParser<Value = DepKind> {
    names(&DepKind::ALL, |k| k.as_str(), &[])
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every verb and sub-verb, with its full name (`mneme review approve`).
    fn verbs(cmd: &clap::Command, prefix: &str, out: &mut Vec<(String, clap::Command)>) {
        for sub in cmd.get_subcommands() {
            let name = format!("{prefix} {}", sub.get_name());
            out.push((name.clone(), sub.clone()));
            verbs(sub, &name, out);
        }
    }

    #[test]
    fn every_verb_has_examples_and_every_flag_has_help() {
        let mut all = Vec::new();
        verbs(&Cli::command(), "mneme", &mut all);
        let mut missing = Vec::new();
        for (name, cmd) in &all {
            if cmd.is_hide_set() || cmd.get_name() == "help" {
                continue;
            }
            let examples = cmd
                .get_after_help()
                .or(cmd.get_after_long_help())
                .is_some_and(|h| h.to_string().contains("Examples:"));
            if !examples {
                missing.push(format!("{name}: no examples"));
            }
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if ["help", "version"].contains(&id) || arg.is_hide_set() {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{name}: `{id}` has no help"));
                }
            }
        }
        assert!(missing.is_empty(), "{}", missing.join("\n"));
    }
}
