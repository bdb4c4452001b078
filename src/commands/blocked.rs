use mneme::model::tasks::task::{Board, NotReady, Task};
use mneme::model::views::BlockedView;
use mneme::ops::tasks;

use crate::cli::ui::{esc1, paint, task_line, DIM};
use crate::cli::{Cx, ExitStatus, Result};

/// List blocked tasks and what blocks each.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  mneme blocked\n  mneme blocked --json")]
pub struct Args {}

pub fn run(cx: &Cx, _args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let tasks = tasks::load(&ws, cx.ui)?;
    let board = Board::new(tasks.iter());
    let mut blocked: Vec<(&Task, Vec<NotReady>)> = tasks
        .iter()
        .filter(|t| t.is_open())
        .map(|t| (t, board.blocked_by(t)))
        .filter(|(_, reasons)| !reasons.is_empty())
        .collect();
    blocked.sort_by(|a, b| (a.0.priority, &a.0.created_at).cmp(&(b.0.priority, &b.0.created_at)));
    if cx.ui.json {
        let rows: Vec<_> = blocked
            .iter()
            .map(|(t, reasons)| BlockedView::new(t, reasons))
            .collect();
        cx.ui.json(&rows)?;
        return Ok(ExitStatus::Success);
    }
    if blocked.is_empty() {
        cx.ui.out("No blocked tasks.\n")?;
        return Ok(ExitStatus::Success);
    }
    let mut out = String::new();
    for (t, reasons) in &blocked {
        out.push_str(&task_line(t));
        for r in reasons {
            out.push_str(&format!("    {}\n", paint(DIM, esc1(&r.to_string()))));
        }
    }
    cx.ui.out(&out)?;
    Ok(ExitStatus::Success)
}
