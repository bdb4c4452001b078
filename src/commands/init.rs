use mneme::model::base::paths;
use mneme::ops::init::{self, init};

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
    after_help = "Examples:\n  mneme init\n  mneme init --ci github\n  mneme init --ci gitlab\n  mneme init --agents-file CLAUDE.md   # the same block in Claude Code's own file\n  mneme -C path/to/repo init --json"
)]
pub struct Args {
    /// Also write the CI configuration: it runs `mneme check`, `verify` and `diff` on pull or
    /// merge requests and on the default branch, keeps one summary comment on each, and
    /// decides proposals from reviewers' `/mneme approve <id>` comments. `github` writes two
    /// workflows; `gitlab` writes `.gitlab/mneme.gitlab-ci.yml` and includes it from
    /// `.gitlab-ci.yml`, and prints what to set up in the project.
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
    Gitlab,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let ci = args.ci.map(|c| match c {
        Ci::Github => init::Ci::GitHub,
        Ci::Gitlab => init::Ci::GitLab,
    });
    let report = init(&ws, ci, args.agents_file.as_deref())?;
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
    let to_commit = files_to_commit(&report);
    if !to_commit.is_empty() {
        out.push_str(&format!(
            "\nNext: commit {}; agents read facts with `mneme context`; the commit-msg hook stops \
             unreviewed fact edits in this clone.\n\
             To require SSH-signed approvals, list the reviewers' keys in {} (`mneme doctor` checks \
             each clone's setup; docs/ci.md, \"Signed approvals\").\n",
            esc(&and_list(&to_commit)),
            paths::ALLOWED_SIGNERS
        ));
    } else {
        out.push_str(
            "\nThe ledger was already set up: nothing to commit. This clone has the merge driver \
             and the commit-msg hook; agents read facts with `mneme context`.\n",
        );
    }
    if let Some(Ci::Gitlab) = args.ci {
        out.push_str(&gitlab_steps());
    }
    if let Some(Ci::Github) = args.ci {
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

/// What `init` wrote that the repository keeps: the ledger as one directory, then each other
/// file; this clone's own git configuration and hooks are not committed.
fn files_to_commit(report: &init::Report) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for item in report.created.iter().chain(&report.updated) {
        let file = if item.starts_with(&format!("{}/", paths::LEDGER)) {
            format!("{}/", paths::LEDGER)
        } else if item.starts_with("git ") {
            continue;
        } else {
            item.clone()
        };
        if !files.contains(&file) {
            files.push(file);
        }
    }
    files
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// What a GitLab project needs besides the files: a token, a trigger and a webhook.
fn gitlab_steps() -> String {
    format!(
        "\nThe pipeline checks every merge request and push to the default branch ({file}). For \
         the summary note and `/mneme approve <id>` notes, set up in the GitLab project \
         (docs/ci.md, \"GitLab\"):\n\
         \x20 1. Settings > Access tokens: a project access token with the Developer role (or \
         Maintainer, to push to protected branches) and the scopes `api` and `write_repository`; \
         add it under Settings > CI/CD > Variables as MNEME_GITLAB_TOKEN, masked and protected.\n\
         \x20 2. Settings > CI/CD > Pipeline trigger tokens: add a trigger token.\n\
         \x20 3. Settings > Webhooks: a webhook for \"Comments\" and \"Merge request events\" \
         whose URL is <your GitLab>/api/v4/projects/<project id>/ref/<default branch>/trigger/pipeline?token=<trigger token>.\n\
         \x20 4. Where .ledger/allowed_signers requires signed decisions: the forge's private key \
         as MNEME_FORGE_SIGNING_KEY (a protected variable of type File), its public key listed \
         for `mneme-forge` in allowed_signers.\n\
         `mneme doctor` in a pipeline names what is missing.\n",
        file = paths::GITLAB_MNEME_CI
    )
}
