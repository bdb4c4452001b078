use mneme::model::tasks::{Board, Status};
use mneme::model::time::Timestamp;
use mneme::store::Workspace;
use mneme::Result;

use super::{load_tasks, Cx};

/// Reopen a closed task.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  mneme reopen t-a3f8")]
pub struct Args {
    /// Task id or unique prefix.
    id: String,
}

pub fn run(cx: &Cx, args: &Args) -> Result<()> {
    let ws = Workspace::discover(&cx.cwd)?;
    let tasks = load_tasks(&ws)?;
    let id = Board::new(tasks.iter()).resolve(&args.id)?.id.clone();
    let (task, ()) = ws.modify_task(&id, |t| {
        t.status = Status::Open;
        t.closed_at = None;
        t.close_reason = None;
        t.updated_at = Timestamp::now().rfc3339();
        Ok(())
    })?;
    super::print_task(cx, "reopened", &task);
    Ok(())
}
