use mneme::model::evidence::drift::{Drifted, EvidenceDrift};
use mneme::ops::stale::{stale, Stale};

use crate::cli::ui::{day, esc1, paint, short, DIM, GOOD, ID, WARN};
use crate::cli::{Cx, ExitStatus, Result};

/// List facts whose evidence changed since a person last vouched for them.
///
/// A fact's evidence that names a repository file (`src/db.rs`, `src/db.rs:12`,
/// `src/db.rs:12-40`, `src/db.rs#L12`, a directory) ties it to that code. This lists the current
/// facts whose cited files changed in commits after the approval that last added, updated or
/// verified them (for a fact no approval is found for: after the date in its metadata): the file
/// changed, a cited line changed, the cited lines moved, or the file was deleted or renamed. Each
/// comes with the commits. Re-check such a fact, then confirm it with `mneme propose verify` (its
/// approval clears the listing) or propose an update. `check` warns about the same facts
/// (`evidence_drift`). Exit code 0 either way.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme stale
  mneme stale --since v1.4.0
  mneme stale --json
  mneme propose verify f-7f3cq --reason \"re-read the pool code\" --evidence src/db.rs:14-42")]
pub struct Args {
    /// Only count commits after REV (commits in REV..HEAD).
    #[arg(long, value_name = "REV")]
    since: Option<String>,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let report = stale(&ws, args.since.as_deref())?;
    if cx.ui.json {
        cx.ui.json(&report)?;
    } else {
        cx.ui.out(&render(&report))?;
    }
    Ok(ExitStatus::Success)
}

fn render(r: &Stale) -> String {
    let mut out = String::new();
    for f in &r.facts {
        out.push_str(&fact(f));
    }
    let scope = match &r.since {
        Some(range) => format!(" in {range}"),
        None => String::new(),
    };
    let tally = format!(
        "{} of {} fact(s) citing files drifted{scope}\n",
        r.facts.len(),
        r.watched
    );
    if r.shallow {
        out.push_str(&paint(
            WARN,
            "note: this clone is shallow; changes older than its history are not seen (git fetch --unshallow)\n",
        ));
    }
    if r.facts.is_empty() {
        out.push_str(&paint(GOOD, tally));
    } else {
        out.push_str(&paint(WARN, tally));
        out.push_str(&paint(
            DIM,
            "Re-check each; if it still holds: mneme propose verify <fact-id> --reason \"…\" --evidence <file:lines>\n",
        ));
    }
    out
}

/// The fact, what it is measured from, and each drifted citation with its commits.
pub fn fact(f: &Drifted) -> String {
    let since = match &f.since.commit {
        Some(c) => format!(
            "approved or verified in {} ({})",
            short(c),
            day(&f.since.date)
        ),
        None => format!(
            "dated {} (no approval among the commits examined)",
            f.since.date
        ),
    };
    let mut out = format!(
        "{} {} {}\n  {}\n",
        paint(ID, esc1(&f.fact)),
        paint(DIM, esc1(&f.file)),
        paint(DIM, format!("· {since}")),
        esc1(first_line(&f.text)),
    );
    for e in &f.evidence {
        out.push_str(&format!("  {}\n", citation(e)));
        for c in &e.commits {
            out.push_str(&format!(
                "    {} {} {}\n",
                paint(ID, short(&c.id)),
                esc1(&c.subject),
                paint(DIM, format!("({})", day(&c.date)))
            ));
        }
    }
    out
}

/// `src/db.rs:12 moved to src/db.rs:14 in 2 commit(s)`.
fn citation(e: &EvidenceDrift) -> String {
    let to = match &e.now {
        Some(now) => format!(" to {}", esc1(now)),
        None => String::new(),
    };
    format!(
        "{} {}{to} in {} commit(s):",
        esc1(&e.evidence),
        paint(WARN, e.kind.as_str()),
        e.commits.len()
    )
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}
