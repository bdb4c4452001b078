use mneme::model::tasks::{Board, Status};
use mneme::model::time::Timestamp;
use mneme::store::Workspace;
use mneme::{Error, Result};

use super::{load_tasks, Cx};
use crate::cli::ui::{self, paint, GOOD};

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

pub fn run(cx: &Cx, args: &Args) -> Result<()> {
    let reason = args.reason.trim();
    if reason.is_empty() {
        return Err(Error::InvalidInput(
            "--reason must say why the task is closed".into(),
        ));
    }
    let ws = Workspace::discover(&cx.cwd)?;
    let tasks = load_tasks(&ws)?;
    let board = Board::new(tasks.iter());
    let ids = args
        .ids
        .iter()
        .map(|i| board.resolve(i).map(|t| t.id.clone()))
        .collect::<Result<Vec<_>>>()?;
    let mut done = Vec::new();
    for id in ids {
        let (task, ()) = ws.modify_task(&id, |t| {
            let now = Timestamp::now().rfc3339();
            t.status = Status::Closed;
            t.closed_at = Some(now.clone());
            t.close_reason = Some(reason.to_owned());
            t.updated_at = now;
            Ok(())
        })?;
        if !cx.ui.json {
            cx.ui.out(&format!(
                "{} {}",
                paint(GOOD, "closed"),
                ui::task_line(&task)
            ));
        }
        done.push(task);
    }
    if cx.ui.json {
        cx.ui.json(&done);
    }
    Ok(())
}
