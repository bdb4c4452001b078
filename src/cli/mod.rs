//! The command line: argument parsing, dispatch to one file per verb, and the exit status.
//! Verbs parse, call `mneme::ops`, and render; errors are rendered once, in `main`.

pub mod editor;
pub mod error;
pub mod panic;
pub mod prompt;
pub mod render;
pub mod ui;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand};
use mneme::ops::Notes as _;
use mneme::ops::Workspace;

use crate::commands;
pub use error::{CliError, Result};
use ui::Ui;

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
    Init(commands::init::Args),
    Propose(commands::propose::Args),
    Context(commands::context::Args),
    Facts(commands::facts::Args),
    Show(commands::show::Args),
    Review(commands::review::Args),
    Log(commands::log::Args),
    Why(commands::why::Args),
    Stale(commands::stale::Args),
    Check(commands::check::Args),
    Verify(commands::verify::Args),
    Migrate(commands::migrate::Args),
    Diff(commands::diff::Args),
    Forge(commands::forge::Args),
    Export(commands::export::Args),
    Import(commands::import::Args),
    MergeFile(commands::merge_file::Args),
    Hooks(commands::hooks::Args),
    Setup(commands::setup::Args),
    Status(commands::status::Args),
    Compact(commands::compact::Args),
    Doctor(commands::doctor::Args),
    Mcp(commands::mcp::Args),
    Create(commands::create::Args),
    Update(commands::update::Args),
    Close(commands::close::Args),
    Reopen(commands::reopen::Args),
    List(commands::list::Args),
    Ready(commands::ready::Args),
    Blocked(commands::blocked::Args),
    Claims(commands::claims::Args),
    Dep(commands::dep::Args),
    Completions(commands::completions::Args),
    Man(commands::man::Args),
}

/// How a verb that ran to the end went: outcomes such as "check found errors" are not errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Success,
    /// The verb worked and found problems (`check`, `verify`, `merge-file`).
    Failure,
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> ExitCode {
        match status {
            ExitStatus::Success => ExitCode::SUCCESS,
            ExitStatus::Failure => ExitCode::FAILURE,
        }
    }
}

/// What every verb gets: where it runs and where it prints.
pub struct Cx<'a> {
    pub cwd: PathBuf,
    pub ui: &'a Ui,
}

impl Cx<'_> {
    /// The repository and ledger this run works in, found once. An approval a crash
    /// interrupted is finished first, so that nothing reads or writes a half-made state; a
    /// recovery that cannot run now (another git process holds the index) is only told.
    pub fn workspace(&self) -> Result<Workspace> {
        let ws = self.workspace_as_found()?;
        match mneme::ops::review::recover(&ws) {
            Ok(Some(note)) => self.ui.warn(&format!("note: {note}")),
            Ok(None) => {}
            Err(e) => self.ui.warn(&format!(
                "note: an interrupted approval could not be finished yet: {}",
                mneme::error_chain(&e)
            )),
        }
        Ok(ws)
    }

    /// The workspace, without finishing an interrupted approval (the commit-msg hook does that
    /// itself, and stops the commit).
    pub fn workspace_as_found(&self) -> Result<Workspace> {
        Ok(Workspace::discover(&self.cwd)?)
    }
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
        Command::Init(args) => commands::init::run(&cx, args),
        Command::Propose(args) => commands::propose::run(&cx, args),
        Command::Context(args) => commands::context::run(&cx, args),
        Command::Facts(args) => commands::facts::run(&cx, args),
        Command::Show(args) => commands::show::run(&cx, args),
        Command::Review(args) => commands::review::run(&cx, args),
        Command::Log(args) => commands::log::run(&cx, args),
        Command::Why(args) => commands::why::run(&cx, args),
        Command::Stale(args) => commands::stale::run(&cx, args),
        Command::Export(args) => commands::export::run(&cx, args),
        Command::Import(args) => commands::import::run(&cx, args),
        Command::Check(args) => commands::check::run(&cx, args),
        Command::Verify(args) => commands::verify::run(&cx, args),
        Command::Migrate(args) => commands::migrate::run(&cx, args),
        Command::Diff(args) => commands::diff::run(&cx, args),
        Command::Forge(args) => commands::forge::run(&cx, args),
        Command::MergeFile(args) => commands::merge_file::run(&cx, args),
        Command::Hooks(args) => commands::hooks::run(&cx, args),
        Command::Setup(args) => commands::setup::run(&cx, args),
        Command::Status(args) => commands::status::run(&cx, args),
        Command::Compact(args) => commands::compact::run(&cx, args),
        Command::Doctor(args) => commands::doctor::run(&cx, args),
        Command::Mcp(args) => commands::mcp::run(&cx, args),
        Command::Create(args) => commands::create::run(&cx, args),
        Command::Update(args) => commands::update::run(&cx, args),
        Command::Close(args) => commands::close::run(&cx, args),
        Command::Reopen(args) => commands::reopen::run(&cx, args),
        Command::List(args) => commands::list::run(&cx, args),
        Command::Ready(args) => commands::ready::run(&cx, args),
        Command::Blocked(args) => commands::blocked::run(&cx, args),
        Command::Claims(args) => commands::claims::run(&cx, args),
        Command::Dep(args) => commands::dep::run(&cx, args),
        Command::Completions(args) => commands::completions::run(&cx, args),
        Command::Man(args) => commands::man::run(&cx, args),
    }
}

/// An argument as UTF-8, or a clear error naming it.
pub fn utf8(what: &str, value: &OsString) -> Result<String> {
    value
        .to_str()
        .map(str::to_owned)
        .ok_or_else(|| CliError::invalid_utf8(what))
}

/// A value parser over the names of a library enum (`Status::ALL`, …), which stays free of clap.
/// `aliases` are other spellings accepted for a name, such as `in-progress` for `in_progress`.
pub fn names<T>(
    all: &'static [T],
    name: fn(&T) -> &'static str,
    aliases: &'static [(&'static str, &'static str)],
) -> impl TypedValueParser<Value = T>
where
    T: Clone + Send + Sync + 'static,
{
    let values = all.iter().map(move |v| {
        let n = name(v);
        let alias = aliases
            .iter()
            .filter(move |(_, of)| *of == n)
            .map(|(a, _)| *a);
        PossibleValue::new(n).aliases(alias)
    });
    PossibleValuesParser::new(values).map(move |chosen: String| {
        let canonical = aliases
            .iter()
            .find(|(alias, _)| *alias == chosen)
            .map_or(chosen.as_str(), |(_, of)| of);
        all.iter()
            .find(|v| name(v) == canonical)
            .cloned()
            .expect("clap only passes listed names")
    })
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
