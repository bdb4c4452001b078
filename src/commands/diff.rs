use std::fmt::Write as _;

use mneme::model::paths;
use mneme::model::summary::{Entry, EntryKind, Summary};
use mneme::ops::audit::diff;

use crate::cli::ui::{esc1, paint, DIM, HEADER, ID, WARN};
use crate::cli::{Cx, ExitStatus, Result};

/// Summarise what a range of commits did to the facts.
///
/// Facts added, updated (old → new), removed and superseded, with who proposed and approved
/// each and why; rejected proposals; proposals opened in the range or still pending. For a pull
/// request comment use `--format markdown`. Without a range: from the merge-base with the
/// upstream or default branch to HEAD.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme diff origin/main..HEAD\n  mneme diff --format markdown >> \"$GITHUB_STEP_SUMMARY\"\n  mneme diff HEAD~10.. --format json"
)]
pub struct Args {
    /// BASE..HEAD (either side may be omitted).
    range: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Markdown,
    Json,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let summary = diff(&ws, args.range.as_deref())?;
    match (args.format, cx.ui.json) {
        (Format::Json, _) | (_, true) => cx.ui.json(&summary)?,
        (Format::Markdown, false) => cx.ui.out(&markdown(&summary))?,
        (Format::Text, false) => cx.ui.out(&text(&summary))?,
    }
    Ok(ExitStatus::Success)
}

/// A statement from history on one line, control characters escaped.
fn one_line(s: &Option<String>) -> String {
    let folded = s
        .as_deref()
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    esc1(&folded).into_owned()
}

fn who(e: &Entry) -> String {
    format!(
        "proposed by {}, approved by {}",
        esc1(e.proposed_by.as_deref().unwrap_or("unknown")),
        esc1(e.approved_by.as_deref().unwrap_or("unknown"))
    )
}

fn text(s: &Summary) -> String {
    let mut out = format!(
        "{}\n",
        paint(HEADER, format!("Fact changes in {}", esc1(&s.range)))
    );
    for (title, entries) in s.sections() {
        if entries.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{}", paint(HEADER, title));
        for e in entries {
            let _ = writeln!(
                out,
                "  {} {}",
                paint(ID, esc1(&e.fact)),
                paint(DIM, format!("({}; {})", esc1(&e.file), who(e)))
            );
            match e.kind {
                EntryKind::Added => {
                    let _ = writeln!(out, "    + {}", one_line(&e.new));
                }
                EntryKind::Removed => {
                    let _ = writeln!(out, "    - {}", one_line(&e.old));
                }
                _ => {
                    let _ = writeln!(
                        out,
                        "    - {}\n    + {}{}",
                        one_line(&e.old),
                        one_line(&e.new),
                        e.replaced_by
                            .as_ref()
                            .map(|r| format!(" ({})", esc1(r)))
                            .unwrap_or_default()
                    );
                }
            }
            let _ = writeln!(
                out,
                "    {}",
                paint(DIM, format!("why: {}", first_line(&e.reason)))
            );
        }
    }
    if !s.rejected.is_empty() {
        let _ = writeln!(out, "\n{}", paint(HEADER, "Rejected"));
        for r in &s.rejected {
            let _ = writeln!(
                out,
                "  {} {}",
                paint(ID, esc1(&r.proposal)),
                paint(DIM, first_line(&r.reason))
            );
        }
    }
    if !s.pending.is_empty() {
        let _ = writeln!(out, "\n{}", paint(HEADER, "Pending proposals"));
        for p in &s.pending {
            let _ = writeln!(
                out,
                "  {} {}{}",
                paint(ID, esc1(&p.id)),
                esc1(&p.operations.join("; ")),
                if p.opened_in_range {
                    paint(DIM, " (opened here)")
                } else {
                    String::new()
                }
            );
        }
    }
    if s.added.len()
        + s.updated.len()
        + s.superseded.len()
        + s.removed.len()
        + s.rejected.len()
        + s.pending.len()
        == 0
    {
        out.push_str("\nNo fact changes.\n");
    }
    if s.unreviewed_commits > 0 {
        let _ = writeln!(
            out,
            "\n{}",
            paint(
                WARN,
                format!(
                    "{} commit(s) changed facts without review; run `mneme verify`",
                    s.unreviewed_commits
                )
            )
        );
    }
    out
}

/// The first line of a reason from history, control characters escaped.
fn first_line(s: &str) -> String {
    esc1(s.lines().next().unwrap_or("")).into_owned()
}

/// Markdown for a pull-request comment or a CI job summary.
fn markdown(s: &Summary) -> String {
    let mut out = format!(
        "## Ledger changes ({})\n\n",
        esc1(&s.range).replace('`', "")
    );
    let _ = writeln!(
        out,
        "**{} added · {} updated · {} superseded · {} removed · {} rejected · {} pending**\n",
        s.added.len(),
        s.updated.len(),
        s.superseded.len(),
        s.removed.len(),
        s.rejected.len(),
        s.pending.len()
    );
    if s.unreviewed_commits > 0 {
        let _ = writeln!(
            out,
            "> [!WARNING]\n> {} commit(s) changed `{}/` without review. Run `mneme verify`.\n",
            s.unreviewed_commits,
            paths::FACTS
        );
    }
    for (title, entries) in s.sections() {
        if entries.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### {title}\n");
        for e in entries {
            let _ = write!(out, "- `{}` in `{}`", esc1(&e.fact), esc1(&e.file));
            match e.kind {
                EntryKind::Added => {
                    let _ = writeln!(out, ": {}", md(&one_line(&e.new)));
                }
                EntryKind::Removed => {
                    let _ = writeln!(out, ": ~~{}~~", md(&one_line(&e.old)));
                }
                _ => {
                    let by = e
                        .replaced_by
                        .as_ref()
                        .map(|r| format!(" → `{}`", esc1(r)))
                        .unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "{by}\n  - before: {}\n  - after: {}",
                        md(&one_line(&e.old)),
                        md(&one_line(&e.new))
                    );
                }
            }
            let _ = writeln!(
                out,
                "  - _{}_ — {}",
                md(&first_line(&e.reason)),
                md(&who(e))
            );
        }
        out.push('\n');
    }
    if !s.rejected.is_empty() {
        out.push_str("### Rejected\n\n");
        for r in &s.rejected {
            let _ = writeln!(
                out,
                "- `{}`: {}",
                esc1(&r.proposal),
                md(&first_line(&r.reason))
            );
        }
        out.push('\n');
    }
    if !s.pending.is_empty() {
        out.push_str("### Pending proposals\n\n");
        for p in &s.pending {
            let opened = if p.opened_in_range {
                " _(opened in this range)_"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "- `{}` {}{opened}",
                esc1(&p.id),
                md(&esc1(&p.operations.join("; ")))
            );
        }
        out.push('\n');
    }
    out
}

/// Escapes the characters that would change Markdown rendering of a fact.
fn md(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
