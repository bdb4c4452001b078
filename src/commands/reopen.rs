use mneme::ops::tasks::reopen;

use super::print_task;
use crate::cli::{Cx, ExitStatus, Result};

/// Reopen a closed task.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  mneme reopen t-a3f8\n  mneme reopen a3f8 --json")]
pub struct Args {
    /// Task id or unique prefix.
    id: String,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let task = reopen(&ws, &args.id, cx.ui)?;
    print_task(cx, "reopened", &task)
}
