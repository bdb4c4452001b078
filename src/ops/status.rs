//! `status` and `compact`: what stands in the ledger, and what an agent should do before its
//! context is compacted.

use serde::Serialize;

use crate::git::index::uncommitted_in;
use crate::model::base::paths;
use crate::model::base::time::Timestamp;
use crate::model::tasks::task::Status as TaskStatus;
use crate::ops::{context, now, tasks, Notes, Result, Workspace};

/// `mneme status` (the `--json` shape, docs/json.md).
#[derive(Debug, Serialize)]
pub struct Status {
    pub facts: usize,
    pub superseded: usize,
    pub pending_proposals: usize,
    pub invalid_proposals: usize,
    pub budget_used: usize,
    pub budget_limit: usize,
    pub tasks_open: usize,
    /// The most urgent tasks in progress, as `context` lists them.
    pub tasks_in_progress: Vec<String>,
    pub tasks_in_progress_total: usize,
}

pub fn status(ws: &Workspace, notes: &dyn Notes) -> Result<Status> {
    let c = context::context(ws, notes, None)?;
    Ok(Status {
        facts: c.files.iter().map(|f| f.facts.len()).sum(),
        superseded: c.superseded,
        pending_proposals: c.proposals.count,
        invalid_proposals: c.proposals.invalid,
        budget_used: c.budget.used,
        budget_limit: c.budget.limit,
        tasks_open: c.tasks.open,
        tasks_in_progress: c
            .tasks
            .in_progress
            .iter()
            .map(|t| format!("{} {}", t.id, t.title))
            .collect(),
        tasks_in_progress_total: c.tasks.in_progress_total,
    })
}

/// How long a task in progress may go without a note before `compact` asks for one.
const NOTE_HOURS: i64 = 2;

/// `mneme compact`: what an agent should do before its context is compacted or its session ends.
#[derive(Debug, Serialize)]
pub struct Checklist {
    pub agent: String,
    /// Its tasks in progress whose newest note is older than two hours, or missing.
    pub tasks_without_recent_note: Vec<String>,
    /// Its proposals still waiting for a review.
    pub pending_proposals: Vec<String>,
    /// Task and proposal files not committed yet.
    pub uncommitted: Vec<String>,
}

pub fn compact(ws: &Workspace, notes: &dyn Notes, agent: &str) -> Result<Checklist> {
    let now = now();
    let stale = |at: &str| {
        Timestamp::parse(at)
            .is_none_or(|t| now.unix_seconds() - t.unix_seconds() > NOTE_HOURS * 3600)
    };
    let tasks_without_recent_note = tasks::load(ws, notes)?
        .into_iter()
        .filter(|t| t.status == TaskStatus::InProgress && t.assignee.as_deref() == Some(agent))
        .filter(|t| t.notes.last().is_none_or(|n| stale(&n.at)))
        .map(|t| t.id)
        .collect();
    let limits = ws.store.load()?.limits();
    let pending_proposals = ws
        .store
        .queue(&limits)?
        .parsed()
        .filter(|p| p.agent() == Some(agent))
        .map(|p| p.id().to_owned())
        .collect();
    let mut uncommitted = uncommitted_in(&ws.repo, paths::TASKS)?;
    uncommitted.extend(
        uncommitted_in(&ws.repo, paths::PROPOSALS)?
            .into_iter()
            .filter(|p| p.ends_with(".json")),
    );
    Ok(Checklist {
        agent: agent.to_owned(),
        tasks_without_recent_note,
        pending_proposals,
        uncommitted,
    })
}
