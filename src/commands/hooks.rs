use std::path::PathBuf;

use mneme::ops::hooks::{check_commit, install, Installed};

use crate::cli::ui::{paint, GOOD};
use crate::cli::{Cx, ExitStatus, Result};

/// Install or run mneme's git hook.
///
/// `mneme hooks install` (which `mneme init` runs) writes a `commit-msg` hook that refuses a
/// commit which changes facts in `.ledger/facts/` unless it is a mneme review decision (changes
/// to the text around the facts, and the safe repairs of `mneme check --fix`, pass), and one
/// made while an interrupted approval is unfinished. A commit-msg hook that was there is kept
/// and runs first (moved to `commit-msg.pre-mneme`). `git commit --no-verify` skips it.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme hooks install\n  mneme hooks install --force   # replace an existing commit-msg hook"
)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Write the commit-msg hook (in core.hooksPath or .git/hooks).
    #[command(after_help = "Examples:
  mneme hooks install
  mneme hooks install --force   # replace a commit-msg hook mneme did not write, not chain it")]
    Install {
        /// Replace a commit-msg hook that mneme did not write, rather than keep it and run it
        /// first.
        #[arg(long)]
        force: bool,
    },
    /// What the hook runs: checks the commit being made (git passes the message file).
    #[command(
        name = "commit-msg",
        after_help = "Examples:
  mneme hooks commit-msg .git/COMMIT_EDITMSG   # what the hook runs; git passes the file"
    )]
    CommitMsg {
        /// The file holding the commit message being made.
        message_file: PathBuf,
    },
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace_as_found()?;
    match &args.action {
        Action::Install { force } => {
            let installed = install(&ws, *force)?;
            if cx.ui.json {
                cx.ui.json(&installed)?;
            } else {
                let done = match installed {
                    Installed::Unchanged { .. } => "unchanged",
                    Installed::Replaced { .. } => "replaced",
                    Installed::Tracked { .. } => "not written",
                    Installed::Written { .. } | Installed::Chained { .. } => "installed",
                };
                let mut out = format!("{} {}\n", paint(GOOD, done), installed.hook().display());
                if let Some(note) = installed.note() {
                    out.push_str(&format!("note: {note}\n"));
                }
                cx.ui.out(&out)?;
            }
        }
        Action::CommitMsg { message_file } => check_commit(&ws, &cx.cwd.join(message_file))?,
    }
    Ok(ExitStatus::Success)
}
