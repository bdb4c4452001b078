use mneme::store::Workspace;
use mneme::{git::commit as git, git::history, model::audit as pr, Error, Result};
use serde_json::json;

use super::Cx;
use crate::cli::ui::{paint, DIM, GOOD, ID, WARN};

/// Verify that every change to the facts in a range was approved through mneme (for CI).
///
/// Every commit in the range that changes `.ledger/facts/` must be a mneme approval commit, and
/// its change must be exactly what its trailers (and the proposal file it removed) describe. Any
/// other edit — an agent editing the Markdown directly — is reported with commit, author, files
/// and fact ids, and the exit code is 1. Merge commits may only combine what their parents had.
/// Without a range: from the merge-base with the upstream or default branch to HEAD.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme verify\n  mneme verify origin/main..HEAD\n  mneme verify HEAD~20.. --json"
)]
pub struct Args {
    /// BASE..HEAD (either side may be omitted).
    range: Option<String>,
}

pub fn run(cx: &Cx, args: &Args) -> Result<()> {
    let ws = Workspace::discover(&cx.cwd)?;
    let repo = git::open(&ws.location)?;
    let range = history::resolve_range(&repo, args.range.as_deref())?;
    let commits = history::examine(&repo, &range)?;
    let pr::Audit { violations, notes } = pr::audit(&commits);
    let decisions = commits.iter().filter(|c| c.decision.is_some()).count();
    if cx.ui.json {
        cx.ui.json(&json!({
            "range": range.label,
            "commits": commits.len(),
            "decisions": decisions,
            "violations": violations,
            "notes": notes,
        }));
    } else {
        let mut out = String::new();
        for v in &violations {
            out.push_str(&format!(
                "{} {} {} {}\n",
                paint(WARN, "unreviewed"),
                paint(ID, &v.commit[..10]),
                v.subject,
                paint(DIM, format!("({})", v.author))
            ));
            for p in &v.problems {
                out.push_str(&format!("  {p}\n"));
            }
        }
        for n in &notes {
            out.push_str(&format!(
                "{} {} {} {}\n",
                paint(DIM, "note"),
                paint(ID, &n.commit[..10]),
                n.subject,
                paint(DIM, format!("({}): {}", n.author, n.problems.join("; ")))
            ));
        }
        let tally = format!(
            "{} commit(s) in {}, {decisions} review decision(s), {} unreviewed change(s)",
            commits.len(),
            range.label,
            violations.len()
        );
        out.push_str(&if violations.is_empty() {
            paint(GOOD, tally)
        } else {
            paint(WARN, tally)
        });
        out.push('\n');
        cx.ui.out(&out);
    }
    if !violations.is_empty() {
        return Err(Error::VerifyFailed {
            count: violations.len(),
        });
    }
    Ok(())
}
