use mneme::model::tasks::task::{parse_priority, Filter, Kind, Status};
use mneme::ops::tasks;

use super::{kind_parser, status_parser};
use crate::cli::ui::task_table;
use crate::cli::{Cx, ExitStatus, Result};

/// List tasks, most urgent first (closed ones only with --all or --status closed).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme list\n  mneme list --status in_progress --assignee claude\n  mneme list --type bug --priority P0 --json"
)]
pub struct Args {
    /// Only tasks with this status.
    #[arg(long, value_parser = status_parser())]
    status: Option<Status>,
    /// Only tasks of this type.
    #[arg(long = "type", value_parser = kind_parser())]
    kind: Option<Kind>,
    /// Only tasks of this priority, P0 to P4.
    #[arg(long, value_parser = parse_priority)]
    priority: Option<u8>,
    /// Only tasks assigned to NAME.
    #[arg(long, value_name = "NAME")]
    assignee: Option<String>,
    /// Only tasks with this label.
    #[arg(long)]
    label: Option<String>,
    /// Include closed tasks.
    #[arg(long)]
    all: bool,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let filter = Filter {
        status: args.status,
        kind: args.kind,
        priority: args.priority,
        assignee: args.assignee.clone(),
        label: args.label.clone(),
        all: args.all,
    };
    let all = tasks::load_where(&ws, cx.ui, &|t| filter.matches_head(t))?;
    let tasks = filter.select(&all);
    if cx.ui.json {
        cx.ui.json(&tasks)?;
    } else if tasks.is_empty() {
        cx.ui.out("No tasks.\n")?;
    } else {
        cx.ui.out(&task_table(tasks.iter().copied()))?;
    }
    // The process ends here: freeing thousands of tasks one by one would only delay it.
    drop(tasks);
    std::mem::forget(all);
    Ok(ExitStatus::Success)
}
