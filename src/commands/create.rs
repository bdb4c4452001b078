use mneme::model::tasks::{check_title, parse_priority, Board, Dep, DepKind, Kind, Status, Task};
use mneme::model::time::Timestamp;
use mneme::store::tasks::actor;
use mneme::store::Workspace;
use mneme::Result;

use super::{load_tasks, Cx};

/// Create a task (for agents: never interactive).
///
/// Tasks are mid-term state agents write directly: one JSON file under `.ledger/tasks/` with a
/// hash-based id (`t-` + base36), so tasks created on different branches never collide.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme create \"Fix cache invalidation\" -t bug -p 1 -d \"Stale entries after deploy\"
  mneme create \"Write migration\" --parent t-a3f8 --depends-on t-9k2m
  mneme create \"Investigate flaky test\" --discovered-from t-a3f8 --json")]
pub struct Args {
    /// Short title.
    title: String,
    /// Longer description.
    #[arg(short, long)]
    description: Option<String>,
    /// Type.
    #[arg(short = 't', long = "type", value_enum, default_value_t = Kind::Task)]
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
}

pub fn run(cx: &Cx, args: &Args) -> Result<()> {
    let ws = Workspace::discover(&cx.cwd)?;
    ws.check_ledger()?;
    let title = check_title(&args.title)?;
    let _lock = ws.lock_tasks()?;
    let existing = load_tasks(&ws)?;
    let board = Board::new(existing.iter());
    let mut deps = Vec::new();
    let mut link = |kind, id: &str| -> Result<()> {
        deps.push(Dep {
            kind,
            id: board.resolve(id)?.id.clone(),
        });
        Ok(())
    };
    if let Some(p) = &args.parent {
        link(DepKind::ParentChild, p)?;
    }
    for d in &args.depends_on {
        link(DepKind::Blocks, d)?;
    }
    if let Some(d) = &args.discovered_from {
        link(DepKind::DiscoveredFrom, d)?;
    }
    let now = Timestamp::now().rfc3339();
    let mut task = Task {
        id: String::new(),
        title: title.clone(),
        description: args
            .description
            .clone()
            .unwrap_or_default()
            .trim()
            .to_owned(),
        kind: args.kind,
        priority: args.priority,
        status: Status::Open,
        assignee: args.assignee.clone(),
        labels: args.labels.clone(),
        deps,
        notes: Vec::new(),
        created_at: now.clone(),
        updated_at: now.clone(),
        closed_at: None,
        close_reason: None,
    };
    let seed = format!(
        "{now}\0{title}\0{}\0{}",
        std::process::id(),
        actor(None, &ws)
    );
    ws.create_task(&mut task, &existing, &seed)?;
    super::print_task(cx, "created", &task);
    Ok(())
}
