use mneme::model::provenance::decision;
use mneme::ops::audit::{diff, diff_by_commit};

use crate::cli::render::diff::{by_commit_markdown, by_commit_text, markdown, text, Links};
use crate::cli::{Cx, ExitStatus, Result};

/// Summarise what a range of commits did to the facts, fact by fact.
///
/// One entry per fact the range touched: its text before and after, and every commit on the way
/// with who proposed and approved it, why, and the evidence. Commits that changed facts without
/// review come first, with what they changed; then rejected proposals with their text, and the
/// proposals still pending. For a pull-request comment use `--format markdown`. Without a range:
/// from the merge-base with the upstream or default branch to HEAD.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme diff origin/main..HEAD
  mneme diff --format markdown >> \"$GITHUB_STEP_SUMMARY\"
  mneme diff \"$BASE..$HEAD\" --format markdown --repo-url https://github.com/acme/app
  mneme diff HEAD~10.. --format json
  mneme diff origin/main..HEAD --by-commit    # one entry per approval, in commit order")]
pub struct Args {
    /// BASE..HEAD (either side may be omitted).
    range: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// The per-commit view: one entry per approval and rejection, in commit order.
    #[arg(long)]
    by_commit: bool,
    /// The repository's web address: markdown links commits to URL/commit/<id> and evidence
    /// files to URL/blob/<head>/<path> (with `--forge gitlab`, URL/-/commit/<id> and
    /// URL/-/blob/<head>/<path>).
    #[arg(long, value_name = "URL")]
    repo_url: Option<String>,
    /// Whose paths the links of `--repo-url` follow.
    #[arg(long, value_enum, default_value_t = Forge::Github)]
    forge: Forge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Forge {
    Github,
    Gitlab,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Markdown,
    Json,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let json = args.format == Format::Json || cx.ui.json;
    if args.by_commit {
        let summary = diff_by_commit(&ws, args.range.as_deref())?;
        match (json, args.format) {
            (true, _) => cx.ui.json(&summary)?,
            (false, Format::Markdown) => cx.ui.out(&by_commit_markdown(&summary))?,
            (false, _) => cx.ui.out(&by_commit_text(&summary))?,
        }
        return Ok(ExitStatus::Success);
    }
    let net = diff(&ws, args.range.as_deref())?;
    match (json, args.format) {
        (true, _) => cx.ui.json(&net)?,
        (false, Format::Markdown) => {
            let forge = match args.forge {
                Forge::Github => decision::Forge::GitHub,
                Forge::Gitlab => decision::Forge::GitLab,
            };
            let links = Links::on(forge, args.repo_url.as_deref(), &net.head);
            cx.ui.out(&markdown(&net, &links))?;
        }
        (false, _) => cx.ui.out(&text(&net))?,
    }
    Ok(ExitStatus::Success)
}
