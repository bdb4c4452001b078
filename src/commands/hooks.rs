use std::path::PathBuf;

use mneme::store::{self, Workspace};
use mneme::{git::commit as git, model::factdiff as verify, model::templates, Error, Result};

use super::Cx;
use crate::cli::ui::{paint, GOOD};

/// Install or run mneme's git hook.
///
/// `mneme hooks install` writes a `commit-msg` hook that refuses a commit which changes facts in
/// `.ledger/facts/` unless it is a mneme review decision (changes to the text around the facts,
/// and the safe repairs of `mneme check --fix`, pass). `git commit --no-verify` skips it.
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
    Install {
        /// Replace a commit-msg hook that mneme did not write.
        #[arg(long)]
        force: bool,
    },
    /// What the hook runs: checks the commit being made (git passes the message file).
    #[command(name = "commit-msg")]
    CommitMsg { message_file: PathBuf },
}

const MARKER: &str = "mneme hooks commit-msg";

pub fn run(cx: &Cx, args: &Args) -> Result<()> {
    let ws = Workspace::discover(&cx.cwd)?;
    match &args.action {
        Action::Install { force } => install(cx, &ws, *force),
        Action::CommitMsg { message_file } => commit_msg(&ws, &cx.cwd.join(message_file)),
    }
}

fn install(cx: &Cx, ws: &Workspace, force: bool) -> Result<()> {
    let dir = git::hooks_dir_of(&ws.location)?;
    let path = dir.join("commit-msg");
    if let Ok(existing) = std::fs::read_to_string(&path) {
        if !existing.contains(MARKER) && !force {
            return Err(Error::InvalidInput(format!(
                "{} exists and was not written by mneme; add `mneme hooks commit-msg \"$1\"` to it, or rerun with --force to replace it",
                path.display()
            )));
        }
    }
    std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
    store::write_atomic(&path, templates::COMMIT_MSG_HOOK.as_bytes())?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .map_err(Error::io(&path))?;
    if cx.ui.json {
        cx.ui.json(&serde_json::json!({ "hook": path }));
    } else {
        cx.ui.out(&format!(
            "{} {}\n",
            paint(GOOD, "installed"),
            path.display()
        ));
    }
    Ok(())
}

fn commit_msg(ws: &Workspace, message_file: &std::path::Path) -> Result<()> {
    let message = std::fs::read_to_string(message_file).map_err(Error::io(message_file))?;
    let is_decision = message
        .lines()
        .any(|l| l.starts_with(&format!("{}: ", mneme::model::decision::DECISION)));
    if is_decision {
        return Ok(());
    }
    let (before, after) = git::staged_under(&ws.location, ".ledger/facts")?;
    let changes = verify::changes(&before, &after);
    if changes.is_empty() {
        return Ok(());
    }
    let facts: Vec<String> = changes.iter().map(|c| c.fact.clone()).collect();
    Err(Error::InvalidInput(format!(
        "this commit changes facts directly ({}); propose the change with `mneme propose` and approve it with `mneme review`, or commit with --no-verify",
        facts.join(", ")
    )))
}
