use mneme::model::tasks::task::{parse_priority, Kind};
use mneme::ops::tasks::{create, NewTask};

use super::{kind_parser, print_task};
use crate::cli::{Cx, ExitStatus, Result};

/// Create a task (for agents: never interactive).
///
/// Tasks are mid-term state agents write directly: one JSON file under `.ledger/tasks/` with a
/// hash-based id (`t-` + base36), so tasks created on different branches never collide.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme create \"Fix cache invalidation\" -t bug -p 1 -d \"Stale entries after deploy\"
  mneme create \"Write migration\" --parent t-a3f8 --depends-on t-9k2m
  mneme create \"Investigate flaky test\" --discovered-from t-a3f8 --json
  mneme create \"Move the pool to pgbouncer\" --cites f-7f3cq")]
pub struct Args {
    /// Short title.
    title: String,
    /// Longer description.
    #[arg(short, long)]
    description: Option<String>,
    /// Type.
    #[arg(short = 't', long = "type", value_parser = kind_parser(), default_value = "task")]
    kind: Kind,
    /// Priority, P0 (most urgent) to P4.
    #[arg(short, long, default_value = "2", value_parser = parse_priority)]
    priority: u8,
    /// Parent task (a parent-child dependency).
    #[arg(long, value_name = "ID")]
    parent: Option<String>,
    /// Tasks that must be closed before this one is ready (repeatable).
    #[arg(long = "depends-on", value_name = "ID", num_args = 1..)]
    depends_on: Vec<String>,
    /// The task whose work surfaced this one.
    #[arg(long, value_name = "ID")]
    discovered_from: Option<String>,
    /// Labels (repeatable).
    #[arg(short, long = "label", value_name = "LABEL")]
    labels: Vec<String>,
    /// Assignee.
    #[arg(long)]
    assignee: Option<String>,
    /// A fact the task relies on or must respect (repeatable; `mneme show` lists it both ways).
    #[arg(long = "cites", value_name = "FACT_ID")]
    cites: Vec<String>,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let task = create(
        &ws,
        NewTask {
            title: args.title.clone(),
            description: args.description.clone().unwrap_or_default(),
            kind: args.kind,
            priority: args.priority,
            assignee: args.assignee.clone(),
            labels: args.labels.clone(),
            parent: args.parent.clone(),
            depends_on: args.depends_on.clone(),
            discovered_from: args.discovered_from.clone(),
            cites: args.cites.clone(),
        },
    )?;
    print_task(cx, "created", &task)
}
