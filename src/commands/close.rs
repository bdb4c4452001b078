use mneme::ops::tasks::close;

use crate::cli::ui::{paint, task_line, GOOD};
use crate::cli::{Cx, ExitStatus, Result};

/// Close tasks, with the reason.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme close t-a3f8 --reason \"fixed in 4f2a1c\"\n  mneme close t-a3f8 t-9k2m --reason duplicate --json"
)]
pub struct Args {
    /// Task ids or unique prefixes.
    #[arg(required = true)]
    ids: Vec<String>,
    /// Why it is done (required).
    #[arg(long)]
    reason: String,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let done = close(&ws, &args.ids, &args.reason, cx.ui)?;
    if cx.ui.json {
        cx.ui.json(&done)?;
    } else {
        let lines: String = done
            .iter()
            .map(|t| format!("{} {}", paint(GOOD, "closed"), task_line(t)))
            .collect();
        cx.ui.out(&lines)?;
    }
    Ok(ExitStatus::Success)
}
