use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::{Cx, ExitStatus, Result};
use crate::commands::Cli;

/// Print a shell completion script for mneme.
///
/// Install it where your shell looks for completions; the script completes verbs, flags and the
/// values of enumerated flags.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme completions bash > ~/.local/share/bash-completion/completions/mneme
  mneme completions zsh > \"${fpath[1]}/_mneme\"
  mneme completions fish > ~/.config/fish/completions/mneme.fish
  mneme completions powershell >> $PROFILE")]
pub struct Args {
    /// The shell: bash, zsh, fish, elvish or powershell.
    shell: Shell,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "mneme", &mut script);
    cx.ui.out(&String::from_utf8_lossy(&script))?;
    Ok(ExitStatus::Success)
}
