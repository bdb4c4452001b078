use mneme::model::tasks::{Board, NotReady, Status};
use mneme::store::Workspace;
use mneme::Result;
use serde_json::json;

use super::{load_tasks, Cx};
use crate::cli::ui::{self, paint, DIM};

/// List blocked tasks and what blocks each.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  mneme blocked\n  mneme blocked --json")]
pub struct Args {}

pub fn run(cx: &Cx, _args: &Args) -> Result<()> {
    let ws = Workspace::discover(&cx.cwd)?;
    let tasks = load_tasks(&ws)?;
    let board = Board::new(tasks.iter());
    let mut blocked: Vec<_> = tasks
        .iter()
        .filter(|t| t.is_open())
        .filter_map(|t| {
            let mut reasons: Vec<NotReady> = board.open_blockers(t);
            if t.status == Status::Blocked {
                reasons.insert(
                    0,
                    NotReady::Status {
                        status: Status::Blocked,
                    },
                );
            }
            (!reasons.is_empty()).then_some((t, reasons))
        })
        .collect();
    blocked.sort_by(|a, b| (a.0.priority, &a.0.created_at).cmp(&(b.0.priority, &b.0.created_at)));
    if cx.ui.json {
        let rows: Vec<_> = blocked
            .iter()
            .map(|(t, r)| {
                let by: Vec<&str> = r
                    .iter()
                    .filter_map(|x| match x {
                        NotReady::BlockedBy { id, .. } => Some(id.as_str()),
                        _ => None,
                    })
                    .collect();
                json!({ "task": t, "blocked_by": by, "reasons": r })
            })
            .collect();
        cx.ui.json(&rows);
        return Ok(());
    }
    if blocked.is_empty() {
        cx.ui.out("No blocked tasks.\n");
        return Ok(());
    }
    let mut out = String::new();
    for (t, reasons) in &blocked {
        out.push_str(&ui::task_line(t));
        for r in reasons {
            out.push_str(&format!("    {}\n", paint(DIM, r.to_string())));
        }
    }
    cx.ui.out(&out);
    Ok(())
}
