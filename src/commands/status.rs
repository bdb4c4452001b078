use mneme::ops::status::status;

use crate::cli::ui::{paint, HEADER};
use crate::cli::{Cx, ExitStatus, Result};

/// Summarise the ledger: facts, pending proposals, the line budget, tasks in progress.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  mneme status\n  mneme status --json")]
pub struct Args {}

pub fn run(cx: &Cx, _args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let s = status(&ws, cx.ui)?;
    if cx.ui.json {
        cx.ui.json(&s)?;
        return Ok(ExitStatus::Success);
    }
    let mut out = format!(
        "{}\n{} fact(s) ({} superseded), {} line(s) of a budget of {}\n{} pending proposal(s){}\n{} open task(s), {} in progress\n",
        paint(HEADER, "Ledger"),
        s.facts,
        s.superseded,
        s.budget_used,
        s.budget_limit,
        s.pending_proposals,
        if s.invalid_proposals > 0 {
            format!(", {} invalid (`mneme check`)", s.invalid_proposals)
        } else {
            String::new()
        },
        s.tasks_open,
        s.tasks_in_progress_total
    );
    for t in &s.tasks_in_progress {
        out.push_str(&format!("  {}\n", crate::cli::ui::esc1(t)));
    }
    let unlisted = s
        .tasks_in_progress_total
        .saturating_sub(s.tasks_in_progress.len());
    if unlisted > 0 {
        out.push_str(&format!(
            "  … and {unlisted} more (`mneme list --status in_progress`)\n"
        ));
    }
    cx.ui.out(&out)?;
    Ok(ExitStatus::Success)
}
