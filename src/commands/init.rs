use mneme::model::base::paths;
use mneme::ops::init::init;

use crate::cli::ui::{esc, paint, DIM, GOOD};
use crate::cli::{Cx, ExitStatus, Result};

/// Set up the ledger in this git repository (teammates run it once after cloning).
///
/// Creates `.ledger/facts/` with the seed fact files, `.ledger/proposals/`,
/// `.ledger/config.yaml`, a block in AGENTS.md that tells agents the protocol, and registers the
/// fact-merging git driver (`.gitattributes` plus `merge.mneme.*` in the repository's own git
/// config, which a clone does not carry) and mneme's commit-msg hook (an existing one is kept and
/// runs first). Safe to re-run: existing fact files and config are
/// never overwritten; only the AGENTS.md block is refreshed. Works from any subdirectory.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme init\n  mneme init --ci github\n  mneme init --agents-file CLAUDE.md   # the same block in Claude Code's own file\n  mneme -C path/to/repo init --json"
)]
pub struct Args {
    /// Also write the CI workflows: one runs `mneme check`, `verify` and `diff` and keeps a
    /// summary comment on each pull request; the other decides proposals from reviewers'
    /// `/mneme approve <id>` comments.
    #[arg(long, value_enum, value_name = "PROVIDER")]
    ci: Option<Ci>,
    /// The instructions file that gets the mneme block, relative to the repository root;
    /// remembered in .ledger/config.yaml (`agents_file`, default AGENTS.md), so a teammate's
    /// `mneme init` refreshes the same file.
    #[arg(long, value_name = "FILE")]
    agents_file: Option<String>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Ci {
    Github,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let report = init(
        &ws,
        matches!(args.ci, Some(Ci::Github)),
        args.agents_file.as_deref(),
    )?;
    if cx.ui.json {
        cx.ui.json(&report)?;
        return Ok(ExitStatus::Success);
    }
    let mut out = format!("Ledger ready in {}\n", report.root);
    for (label, items, style) in [
        ("created", &report.created, GOOD),
        ("updated", &report.updated, GOOD),
        ("unchanged", &report.unchanged, DIM),
    ] {
        for item in items {
            out.push_str(&format!(
                "  {} {item}\n",
                paint(style, format!("{label:>9}"))
            ));
        }
    }
    for note in &report.notes {
        out.push_str(&format!("note: {}\n", esc(note)));
    }
    // Files to commit, or only this clone's own set-up (a teammate's init after cloning).
    let to_commit = report
        .created
        .iter()
        .chain(&report.updated)
        .any(|item| !item.starts_with("git "));
    if to_commit {
        out.push_str(&format!(
            "\nNext: commit {}/, {} and {}; agents read facts with `mneme context`; the commit-msg \
             hook stops unreviewed fact edits in this clone.\n\
             To require SSH-signed approvals, list the reviewers' keys in {} (`mneme doctor` checks \
             each clone's setup; docs/ci.md, \"Signed approvals\").\n",
            paths::LEDGER,
            esc(&report.agents_file),
            paths::GITATTRIBUTES,
            paths::ALLOWED_SIGNERS
        ));
    } else {
        out.push_str(
            "\nThe ledger was already set up: nothing to commit. This clone has the merge driver \
             and the commit-msg hook; agents read facts with `mneme context`.\n",
        );
    }
    if args.ci.is_some() {
        out.push_str(&format!(
            "The workflows check every push and pull request, keep one summary comment on each \
             pull request, and let a reviewer with write access decide proposals by commenting \
             `/mneme approve <id>` ({}); where decisions are signed, the secret \
             MNEME_FORGE_SIGNING_KEY signs them (docs/ci.md, \"Deciding in the pull request\").\n",
            paths::GITHUB_DECIDE_WORKFLOW
        ));
    }
    cx.ui.out(&out)?;
    Ok(ExitStatus::Success)
}
