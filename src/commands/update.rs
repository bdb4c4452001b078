use mneme::model::tasks::task::{parse_priority, Changes, Status};
use mneme::ops::claims::{reach, Reach};
use mneme::ops::tasks::{actor, update};

use super::{print_task, settable_status_parser};
use crate::cli::{Cx, ExitStatus, Result};

/// Update a task: status, claim, notes, title, description, priority, assignee, labels, cited facts.
///
/// `--notes` appends a timestamped note (never replaces); `--claim` atomically sets the task in
/// progress and assigns it to you, and fails with "already claimed by …" if someone else has it;
/// `--unclaim` gives a task you hold back: open again, assigned to nobody. `mneme reopen` leaves
/// a reopened task unclaimed too.
///
/// With `claims_remote` in .ledger/config.yaml (or `--remote`), `--claim` also claims the task
/// on that git remote in one atomic step (the ref `refs/mneme/claims/<id>`, created only if
/// absent), so that a claim holds across clones: the loser is told who holds it, since when and
/// for how long. Every update by the holder renews the claim's lease; `close`, `--unclaim` and
/// `--status open` release it. When the remote cannot be reached the claim fails and nothing is
/// written; `--local-only` claims in this repository alone.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme update t-a3f8 --claim
  mneme update t-a3f8 --claim --remote origin
  mneme update t-a3f8 --unclaim
  mneme update t-a3f8 --notes \"Root cause: TTL not refreshed\"
  mneme update a3f8 --status blocked --priority P0
  mneme update t-a3f8 --cites f-7f3cq")]
pub struct Args {
    /// Task id or unique prefix.
    id: String,
    /// New status (`mneme close` closes, with a reason).
    #[arg(long, value_parser = settable_status_parser())]
    status: Option<Status>,
    /// Take the task: in progress, assigned to you.
    #[arg(long, conflicts_with = "unclaim")]
    claim: bool,
    /// Give back a task you hold: open again, assigned to nobody.
    #[arg(long, conflicts_with_all = ["status", "assignee"])]
    unclaim: bool,
    /// Append a note.
    #[arg(long, value_name = "TEXT")]
    notes: Option<String>,
    /// New title.
    #[arg(long)]
    title: Option<String>,
    /// New description (replaces the old one).
    #[arg(long)]
    description: Option<String>,
    /// P0 (most urgent) to P4.
    #[arg(long, value_parser = parse_priority)]
    priority: Option<u8>,
    /// Assign the task to NAME (without changing its status).
    #[arg(long, value_name = "NAME")]
    assignee: Option<String>,
    /// Add a label (repeatable).
    #[arg(long = "label", value_name = "LABEL")]
    labels: Vec<String>,
    /// Cite a fact the task relies on or must respect (repeatable).
    #[arg(long = "cites", value_name = "FACT_ID")]
    cites: Vec<String>,
    /// Stop citing a fact (repeatable).
    #[arg(long = "uncite", value_name = "FACT_ID")]
    uncite: Vec<String>,
    /// Claim on this git remote too [default: claims_remote in .ledger/config.yaml].
    #[arg(
        long,
        value_name = "REMOTE",
        requires = "claim",
        conflicts_with = "local_only"
    )]
    remote: Option<String>,
    /// Claim in this repository alone, even with claims_remote set.
    #[arg(long, requires = "claim")]
    local_only: bool,
    /// Who you are [default: $MNEME_AGENT, else git user.name].
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let changes = Changes {
        status: args.status,
        claim: args.claim,
        unclaim: args.unclaim,
        title: args.title.clone(),
        description: args.description.clone(),
        priority: args.priority,
        assignee: args.assignee.clone(),
        labels: args.labels.clone(),
        note: args.notes.clone(),
        cite: args.cites.clone(),
        uncite: args.uncite.iter().map(|f| f.trim().to_owned()).collect(),
    };
    let me = actor(&ws, args.agent.as_deref());
    // Only a claim needs to know where claims go (and so read the config).
    let reach = if args.claim {
        reach(&ws, args.remote.as_deref(), args.local_only)?
    } else {
        Reach::Local
    };
    let task = update(&ws, &args.id, &changes, &me, &reach, cx.ui)?;
    print_task(cx, "updated", &task)
}
