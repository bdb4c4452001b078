//! Serializable views of the ledger for `--json` output and human rendering. The JSON shapes are
//! documented in docs/json.md and are stable.

use serde::Serialize;

use crate::model::facts::Fact;
use crate::model::ledger::{FactFileEntry, Ledger};
use crate::model::proposal::Proposal;
use crate::model::tasks::{Board, Status, Task};
use crate::model::time::{human_age, Timestamp};
use crate::store::fact_path;

#[derive(Debug, Clone, Serialize)]
pub struct FactView {
    pub id: Option<String>,
    pub file: String,
    pub line: usize,
    pub state: String,
    pub text: String,
    pub superseded_by: Option<String>,
    pub since: Option<String>,
    pub verified: Option<String>,
    pub evidence: Vec<String>,
}

impl FactView {
    pub fn new(file: &FactFileEntry, fact: &Fact) -> FactView {
        FactView {
            id: fact.id.clone(),
            file: file.name.clone(),
            line: fact.line,
            state: fact.meta.state().to_owned(),
            text: fact.text.clone(),
            superseded_by: fact.meta.by.clone(),
            since: fact.meta.since.clone(),
            verified: fact.meta.verified.clone(),
            evidence: fact.meta.evidence.clone(),
        }
    }

    pub fn is_active(&self) -> bool {
        self.state == crate::model::facts::STATE_ACTIVE
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct FileView {
    pub name: String,
    pub path: String,
    pub title: String,
    pub description: Option<String>,
    pub lines: usize,
    pub facts: Vec<FactView>,
}

impl FileView {
    pub fn new(file: &FactFileEntry) -> FileView {
        FileView {
            name: file.name.clone(),
            path: fact_path(&file.name),
            title: file.title().to_owned(),
            description: file.file.front_matter.description.clone(),
            lines: file.lines(),
            facts: file.file.facts().map(|f| FactView::new(file, f)).collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ProposalLine {
    pub id: String,
    pub created_at: String,
    pub age: String,
    pub agent: Option<String>,
    pub reason: String,
    pub operations: Vec<String>,
}

impl ProposalLine {
    pub fn new(p: &Proposal, now: Timestamp) -> ProposalLine {
        ProposalLine {
            id: p.id.clone(),
            created_at: p.created_at.clone(),
            age: p.created().map(|t| human_age(t, now)).unwrap_or_default(),
            agent: p.agent.clone(),
            reason: p.reason.clone(),
            operations: p.operations.iter().map(|o| o.summary()).collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Budget {
    pub used: usize,
    pub limit: usize,
    pub over: bool,
}

impl Budget {
    pub fn of(ledger: &Ledger) -> Budget {
        let used = ledger.total_lines();
        let limit = ledger.config.budget_lines;
        Budget {
            used,
            limit,
            over: used > limit,
        }
    }
}

/// What an agent reads at session start: active facts, pending proposals, budget.
#[derive(Debug, Clone, Serialize)]
pub struct Context {
    pub files: Vec<FileView>,
    /// Superseded facts are history: counted, not listed.
    pub superseded: usize,
    pub facts_without_id: usize,
    pub proposals: Proposals,
    pub budget: Budget,
    pub tasks: TaskSummary,
}

/// How many ready tasks `mneme context` lists.
const CONTEXT_READY: usize = 5;

/// The task state an agent needs at session start.
#[derive(Debug, Clone, Serialize)]
pub struct TaskSummary {
    pub open: usize,
    pub in_progress: Vec<TaskLine>,
    /// The most urgent ready tasks (at most five).
    pub ready: Vec<TaskLine>,
    pub ready_total: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct TaskLine {
    pub id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub priority: u8,
    pub status: &'static str,
    pub assignee: Option<String>,
}

impl TaskLine {
    pub fn new(t: &Task) -> TaskLine {
        TaskLine {
            id: t.id.clone(),
            title: t.title.clone(),
            kind: t.kind.as_str(),
            priority: t.priority,
            status: t.status.as_str(),
            assignee: t.assignee.clone(),
        }
    }
}

impl TaskSummary {
    pub fn of(tasks: &[Task]) -> TaskSummary {
        let board = Board::new(tasks.iter());
        let ready = board.ready();
        let mut in_progress: Vec<&Task> = tasks
            .iter()
            .filter(|t| t.status == Status::InProgress)
            .collect();
        in_progress.sort_by(|a, b| (a.priority, &a.created_at).cmp(&(b.priority, &b.created_at)));
        TaskSummary {
            open: tasks.iter().filter(|t| t.is_open()).count(),
            in_progress: in_progress.into_iter().map(TaskLine::new).collect(),
            ready_total: ready.len(),
            ready: ready
                .into_iter()
                .take(CONTEXT_READY)
                .map(TaskLine::new)
                .collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Proposals {
    pub count: usize,
    /// Proposal files that do not parse (`mneme check` says why).
    pub invalid: usize,
    pub items: Vec<ProposalLine>,
}

impl Context {
    pub fn build(
        ledger: &Ledger,
        proposals: &[&Proposal],
        invalid: usize,
        tasks: &[Task],
        now: Timestamp,
    ) -> Context {
        let mut superseded = 0;
        let files = ledger
            .files
            .iter()
            .map(|f| {
                let mut view = FileView::new(f);
                let before = view.facts.len();
                view.facts.retain(FactView::is_active);
                superseded += before - view.facts.len();
                view
            })
            .collect::<Vec<_>>();
        let facts_without_id = files
            .iter()
            .flat_map(|f| &f.facts)
            .filter(|f| f.id.is_none())
            .count();
        Context {
            files,
            superseded,
            facts_without_id,
            proposals: Proposals {
                count: proposals.len(),
                invalid,
                items: proposals
                    .iter()
                    .map(|p| ProposalLine::new(p, now))
                    .collect(),
            },
            budget: Budget::of(ledger),
            tasks: TaskSummary::of(tasks),
        }
    }
}
