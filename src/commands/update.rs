use mneme::model::tasks::{check_title, parse_priority, Board, Note, Status};
use mneme::model::time::Timestamp;
use mneme::store::tasks::actor;
use mneme::store::Workspace;
use mneme::{Error, Result};

use super::{load_tasks, Cx};

/// Update a task: status, claim, notes, title, description, priority, assignee, labels.
///
/// `--notes` appends a timestamped note (never replaces); `--claim` atomically sets the task in
/// progress and assigns it to you, and fails with "already claimed by …" if someone else has it.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme update t-a3f8 --claim
  mneme update t-a3f8 --notes \"Root cause: TTL not refreshed\"
  mneme update a3f8 --status blocked --priority P0")]
pub struct Args {
    /// Task id or unique prefix.
    id: String,
    /// New status (use `mneme close` to close).
    #[arg(long, value_enum)]
    status: Option<Status>,
    /// Take the task: in progress, assigned to you.
    #[arg(long)]
    claim: bool,
    /// Append a note.
    #[arg(long, value_name = "TEXT")]
    notes: Option<String>,
    #[arg(long)]
    title: Option<String>,
    #[arg(long)]
    description: Option<String>,
    /// P0 (most urgent) to P4.
    #[arg(long, value_parser = parse_priority)]
    priority: Option<u8>,
    #[arg(long)]
    assignee: Option<String>,
    /// Add a label (repeatable).
    #[arg(long = "label", value_name = "LABEL")]
    labels: Vec<String>,
    /// Who you are [default: $MNEME_AGENT, else git user.name].
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
}

pub fn run(cx: &Cx, args: &Args) -> Result<()> {
    let ws = Workspace::discover(&cx.cwd)?;
    let tasks = load_tasks(&ws)?;
    let id = Board::new(tasks.iter()).resolve(&args.id)?.id.clone();
    if args.status == Some(Status::Closed) {
        return Err(Error::InvalidInput(
            "close tasks with `mneme close ID --reason TEXT`".into(),
        ));
    }
    let title = args.title.as_deref().map(check_title).transpose()?;
    let me = actor(args.agent.as_deref(), &ws);
    let (task, ()) = ws.modify_task(&id, |t| {
        let now = Timestamp::now().rfc3339();
        if args.claim {
            // Compare-and-swap under the lock: only an unclaimed task (or our own) can be taken.
            match (&t.assignee, t.status) {
                (_, Status::Closed) => {
                    return Err(Error::InvalidInput(format!(
                        "{} is closed; reopen it first",
                        t.id
                    )))
                }
                (Some(who), _) if *who != me => {
                    return Err(Error::AlreadyClaimed {
                        id: t.id.clone(),
                        by: who.clone(),
                    })
                }
                (None, Status::InProgress) => {
                    return Err(Error::AlreadyClaimed {
                        id: t.id.clone(),
                        by: "someone (no assignee)".into(),
                    })
                }
                _ => {}
            }
            t.status = Status::InProgress;
            t.assignee = Some(me.clone());
        }
        if let Some(s) = args.status {
            t.status = s;
        }
        if let Some(title) = &title {
            t.title = title.clone();
        }
        if let Some(d) = &args.description {
            t.description = d.trim().to_owned();
        }
        if let Some(p) = args.priority {
            t.priority = p;
        }
        if let Some(a) = &args.assignee {
            t.assignee = Some(a.clone()).filter(|a| !a.is_empty());
        }
        for l in &args.labels {
            if !t.labels.contains(l) {
                t.labels.push(l.clone());
            }
        }
        if let Some(text) = &args.notes {
            t.notes.push(Note {
                at: now.clone(),
                author: me.clone(),
                text: text.trim().to_owned(),
            });
        }
        t.updated_at = now;
        Ok(())
    })?;
    super::print_task(cx, "updated", &task);
    Ok(())
}
