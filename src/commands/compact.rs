use mneme::ops::status::compact;
use mneme::ops::tasks::actor;

use crate::cli::ui::{esc1, paint, GOOD, WARN};
use crate::cli::{Cx, ExitStatus, Result};

/// What to do before your context is compacted or your session ends.
///
/// Lists your tasks in progress without a note from the last two hours (add one: where the work
/// stands, what is next), your proposals still waiting for review, and task or proposal files not
/// committed yet (commit them with your work). Prints "nothing to do" when all is in order.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  mneme compact\n  mneme compact --agent claude-code --json")]
pub struct Args {
    /// Who you are [default: $MNEME_AGENT, else git user.name].
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let me = actor(&ws, args.agent.as_deref());
    let list = compact(&ws, cx.ui, &me)?;
    if cx.ui.json {
        cx.ui.json(&list)?;
        return Ok(ExitStatus::Success);
    }
    let mut out = String::new();
    for id in &list.tasks_without_recent_note {
        out.push_str(&format!(
            "{} {id}: note where it stands: `mneme update {id} --notes \"…\"`\n",
            paint(WARN, "task")
        ));
    }
    for id in &list.pending_proposals {
        out.push_str(&format!(
            "{} {id} waits for a human review (`mneme review`); do not repeat it\n",
            paint(WARN, "proposal")
        ));
    }
    for path in &list.uncommitted {
        out.push_str(&format!(
            "{} {}: commit it with your work\n",
            paint(WARN, "uncommitted"),
            esc1(path)
        ));
    }
    if out.is_empty() {
        out = format!(
            "{} for {}\n",
            paint(GOOD, "nothing to do"),
            esc1(&list.agent)
        );
    }
    cx.ui.out(&out)?;
    Ok(ExitStatus::Success)
}
