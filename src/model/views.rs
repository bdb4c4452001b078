//! Serializable views of the ledger for `--json` output and human rendering. The JSON shapes are
//! documented in docs/json.md and are stable.
//!
//! Uses `provenance`, `proposals`, `tasks`, `evidence`, `merge`, `facts` and `base`.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use serde::Serialize;

use crate::model::base::codec::{Reader, Writer};
use crate::model::base::paths;
use crate::model::base::textdiff::unified;
use crate::model::base::time::{human_age, Timestamp};
use crate::model::evidence::cited::Cited;
use crate::model::facts::file::{conflict_marker_line, fact_key, Fact, Relations, State};
use crate::model::facts::ledger::{FactFileEntry, Ledger, LookupError};
use crate::model::facts::standing::{effective_state, Flags, Incoming, Standings};
use crate::model::proposals::plan::{Competing, Planned, Similar};
use crate::model::proposals::preview::{BudgetAfter, EvidenceChange, Preview, Status};
use crate::model::proposals::proposal::{Operation, Proposal, ProposalError};
use crate::model::proposals::queue::QueuedLine;
use crate::model::provenance::decision::Recorded;
use crate::model::tasks::task::{
    is_task_id, Board, DepKind, Kind as TaskKind, NotReady, Status as TaskStatus, Task,
};

#[derive(Debug, Clone, Serialize)]
pub struct FactView {
    pub id: Option<String>,
    /// Shared by the views of one file's facts.
    pub file: Arc<str>,
    pub line: usize,
    /// The state a reader should act on: the recorded one, except that an `active` fact with a
    /// contradiction reads `contested` and one overdue for re-verification `stale`.
    pub state: State,
    /// The state the fact file records.
    pub recorded_state: State,
    pub text: String,
    pub superseded_by: Option<String>,
    pub since: Option<String>,
    pub verified: Option<String>,
    pub evidence: Vec<String>,
    /// Globs of the files the fact is about besides those its evidence cites (left out when
    /// none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scope: Vec<String>,
    /// The relations the fact holds: `{"depends_on": ["f-k2a9"]}`.
    pub relations: Relations,
    /// The relations other facts hold to this one.
    pub related_from: Vec<Incoming>,
    /// The tasks that cite this fact (`show` and `why` only; left out when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cited_by_tasks: Vec<String>,
    #[serde(flatten)]
    pub flags: Flags,
}

impl FactView {
    pub fn new(file: &FactFileEntry, fact: &Fact, standings: &Standings) -> FactView {
        FactView::owned(&Arc::from(file.name.as_str()), fact.clone(), standings)
    }

    /// The view of `fact` of the fact file `file`, which it takes its text and metadata from
    /// rather than copying them.
    pub fn owned(file: &Arc<str>, fact: Fact, standings: &Standings) -> FactView {
        let flags = standings.flags(&fact);
        let meta = fact.meta;
        let recorded_state = meta.state.unwrap_or(State::Active);
        FactView {
            related_from: fact
                .id
                .as_deref()
                .map(|id| standings.incoming(id).to_vec())
                .unwrap_or_default(),
            id: fact.id,
            file: Arc::clone(file),
            line: fact.line,
            state: effective_state(&recorded_state, &flags),
            recorded_state,
            text: fact.text,
            superseded_by: meta.by,
            since: meta.since,
            verified: meta.verified,
            evidence: meta.evidence,
            scope: meta.scope,
            relations: meta.relations,
            cited_by_tasks: Vec::new(),
            flags,
        }
    }

    /// Part of what the ledger holds true now: not superseded or archived.
    pub fn is_current(&self) -> bool {
        self.recorded_state.is_current()
    }

    /// What a reader should know of the fact's standing, unless it is plainly active:
    /// `contested by f-9x2b`, `stale: not verified for 400 days`, `superseded by f-m3v8`.
    /// What a reader must know before relying on the fact: that it is not as approved, and
    /// its state when that is not plainly `active`.
    pub fn standing_note(&self) -> Option<String> {
        if !self.is_marked() {
            return None;
        }
        let mut parts = Vec::new();
        if self.flags.unapproved {
            parts.push("unapproved".to_owned());
        }
        if self.flags.drifted {
            parts.push("stale: its cited code changed".to_owned());
        }
        parts.extend(self.state_note());
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// Whether there is a [`FactView::standing_note`].
    pub fn is_marked(&self) -> bool {
        self.flags.unapproved || self.flags.drifted || self.state != State::Active
    }

    fn state_note(&self) -> Option<String> {
        let mut note = self.state.as_str().to_owned();
        match &self.state {
            State::Active => return None,
            State::Superseded => {
                if let Some(by) = &self.superseded_by {
                    note.push_str(&format!(" by {by}"));
                }
            }
            _ => {}
        }
        if !self.flags.contested_by.is_empty() {
            let by = if self.state == State::Contested {
                " by "
            } else {
                "; contested by "
            };
            note.push_str(&format!("{by}{}", self.flags.contested_by.join(", ")));
        }
        if !self.flags.disputed_in.is_empty() {
            let sep = if note == "contested" { ": " } else { "; " };
            note.push_str(&format!(
                "{sep}contradicted by pending proposal {}",
                self.flags.disputed_in.join(", ")
            ));
        }
        if let Some(days) = self.flags.overdue_days {
            let sep = if note == "stale" { ": " } else { "; " };
            note.push_str(&format!("{sep}not verified for {days} days"));
        }
        Some(note)
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
    /// Every file of `ledger`, or only the one named `only` (`architecture` or
    /// `architecture.md`).
    pub fn select(
        ledger: &Ledger,
        only: Option<&str>,
        standings: &Standings,
    ) -> Result<Vec<FileView>, LookupError> {
        Ok(match only {
            Some(name) => vec![FileView::new(ledger.resolve_file(name)?, standings)],
            None => ledger
                .files()
                .iter()
                .map(|f| FileView::new(f, standings))
                .collect(),
        })
    }

    pub fn new(file: &FactFileEntry, standings: &Standings) -> FileView {
        FileView::owned(file.clone(), standings)
    }

    /// The view of `file`, which it takes its facts from rather than copying them.
    pub fn owned(file: FactFileEntry, standings: &Standings) -> FileView {
        let title = file.title().to_owned();
        let lines = file.lines();
        let (name, file) = file.into_parsed();
        // Sized first: views are large, and a growing list would copy them.
        let mut facts = Vec::with_capacity(file.facts().count());
        let description = file.front_matter.description.clone();
        let shared = Arc::from(name.as_str());
        facts.extend(
            file.into_facts()
                .map(|f| FactView::owned(&shared, f, standings)),
        );
        FileView {
            path: paths::fact_file(&name),
            name,
            title,
            description,
            lines,
            facts,
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
        ProposalLine::queued(p.id.clone(), QueuedLine::of(p), now)
    }

    /// The line of the proposal `id` as the queue index keeps it.
    pub fn queued(id: String, line: QueuedLine, now: Timestamp) -> ProposalLine {
        ProposalLine {
            id,
            age: Timestamp::parse(&line.created_at)
                .map(|t| human_age(t, now))
                .unwrap_or_default(),
            created_at: line.created_at,
            agent: line.agent,
            reason: line.reason,
            operations: line.operations,
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

/// What an agent reads at session start: current facts, pending proposals, budget.
#[derive(Debug, Clone, Serialize)]
pub struct Context {
    /// Current facts only: active, stale and contested ones.
    pub files: Vec<FileView>,
    /// Superseded and archived facts are history: counted, not listed.
    pub superseded: usize,
    pub archived: usize,
    pub facts_without_id: usize,
    /// Fact files that still hold git conflict markers: their facts are not presented.
    pub unresolved: Vec<String>,
    /// Facts that are not what the decision records approved (edited outside review), marked
    /// so: ids, sorted.
    pub unapproved: Vec<String>,
    /// Facts whose cited code changed in commits after a person last vouched for them (as
    /// `mneme stale` finds them), marked so: ids, sorted.
    pub drifted: Vec<String>,
    /// Why `.ledger/config.yaml` cannot be used, when it cannot: the context then follows the
    /// defaults.
    pub config_error: Option<String>,
    pub proposals: Proposals,
    pub budget: Budget,
    pub tasks: TaskSummary,
    /// For facts citing files changed in the newest commits: how many commits back the newest
    /// such change is (0: HEAD). Found only when the facts do not all fit a budget, to choose
    /// those shown; not part of the JSON.
    #[serde(skip)]
    pub code_changed: HashMap<String, usize>,
    /// With `scoped_delivery`, in a runtime's session start: the facts left out because they
    /// are about files, counted by the directory of the first file each cites or scope glob
    /// names. They come when the agent reads or edits one of those files.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scoped: Vec<ScopedDir>,
    /// Whether the runtime's tool hooks bring the facts about a file when the agent touches it:
    /// then a fact about no file has only the start, and ranks ahead of them when not all fit.
    #[serde(skip)]
    pub file_hooks: bool,
}

/// Facts about files in one directory, left out of a session's start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScopedDir {
    /// `src/db/`, or `./` for the repository's root.
    pub dir: String,
    pub facts: usize,
}

impl Context {
    /// The context with the facts whose keys ([`Fact::key`]) are `keys` marked unapproved: a
    /// fact not as approved is never shown as verified, id or no id.
    pub fn mark_unapproved(mut self, keys: &BTreeSet<String>) -> Context {
        self.unapproved = self.mark(keys, |flags| flags.unapproved = true);
        self
    }

    /// The context with the facts `ids` marked stale: their cited code changed since approval.
    pub fn mark_drifted(mut self, ids: &BTreeSet<String>) -> Context {
        self.drifted = self.mark(ids, |flags| flags.drifted = true);
        self
    }

    /// Sets `flag` on the facts shown whose keys ([`Fact::key`]) are `keys`; those facts named
    /// (their ids, or `(no id, <file> line N)`), sorted.
    fn mark(&mut self, keys: &BTreeSet<String>, flag: impl Fn(&mut Flags)) -> Vec<String> {
        let mut marked = Vec::new();
        if keys.is_empty() {
            return marked;
        }
        for fact in self.files.iter_mut().flat_map(|f| &mut f.facts) {
            // A fact's key is its id where it has one ([`fact_key`]).
            let hit = match fact.id.as_deref() {
                Some(id) => keys.contains(id),
                None => keys.contains(&fact_key(None, &fact.text)),
            };
            if hit {
                marked.push(match &fact.id {
                    Some(id) => id.clone(),
                    None => format!("(no id, {} line {})", fact.file, fact.line),
                });
                flag(&mut fact.flags);
            }
        }
        marked.sort();
        marked
    }
}

/// How many ready tasks `mneme context` lists.
const CONTEXT_READY: usize = 5;
/// How many tasks in progress `mneme context` lists: enough for the agents of one team, few
/// enough that a board with a thousand claimed tasks does not crowd out the facts.
const CONTEXT_IN_PROGRESS: usize = 10;

/// The task state an agent needs at session start.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TaskSummary {
    pub open: usize,
    /// The most urgent tasks in progress (at most ten).
    pub in_progress: Vec<TaskLine>,
    pub in_progress_total: usize,
    /// The most urgent ready tasks (at most five).
    pub ready: Vec<TaskLine>,
    pub ready_total: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskLine {
    pub id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub priority: u8,
    pub status: &'static str,
    pub assignee: Option<String>,
    /// The text of the task's newest note, for a task in progress: where the work stands.
    pub latest_note: Option<String>,
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
            latest_note: (t.status == TaskStatus::InProgress)
                .then(|| t.notes.last().map(|n| n.text.clone()))
                .flatten(),
        }
    }
}

impl TaskLine {
    fn write(&self, w: &mut Writer) {
        w.str(&self.id);
        w.str(&self.title);
        w.str(self.kind);
        w.u8(self.priority);
        w.str(self.status);
        w.opt(self.assignee.as_deref(), Writer::str);
        w.opt(self.latest_note.as_deref(), Writer::str);
    }

    fn read(r: &mut Reader) -> Option<TaskLine> {
        let text = |r: &mut Reader| r.str().map(str::to_owned);
        let id = text(r).filter(|id| is_task_id(id))?;
        let title = text(r)?;
        let kind = text(r)?;
        let priority = r.u8()?;
        let status = text(r)?;
        Some(TaskLine {
            id,
            title,
            kind: TaskKind::ALL
                .into_iter()
                .find(|k| k.as_str() == kind)?
                .as_str(),
            priority,
            status: TaskStatus::ALL
                .into_iter()
                .find(|s| s.as_str() == status)?
                .as_str(),
            assignee: r.opt(text)?,
            latest_note: r.opt(text)?,
        })
    }
}

impl TaskSummary {
    /// The summary as the task index keeps it.
    pub(crate) fn write(&self, w: &mut Writer) {
        w.u32(self.open);
        w.u32(self.in_progress_total);
        w.u32(self.ready_total);
        for lines in [&self.in_progress, &self.ready] {
            w.u32(lines.len());
            for line in lines {
                line.write(w);
            }
        }
    }

    /// The summary [`TaskSummary::write`] wrote; `None` unless `bytes` are exactly that.
    pub(crate) fn read(bytes: &[u8]) -> Option<TaskSummary> {
        let mut r = Reader::new(bytes);
        let open = r.u32()? as usize;
        let in_progress_total = r.u32()? as usize;
        let ready_total = r.u32()? as usize;
        let mut lists = [Vec::new(), Vec::new()];
        for list in &mut lists {
            for _ in 0..r.u32()? {
                list.push(TaskLine::read(&mut r)?);
            }
        }
        let [in_progress, ready] = lists;
        r.is_empty().then_some(TaskSummary {
            open,
            in_progress,
            in_progress_total,
            ready,
            ready_total,
        })
    }

    pub fn of(tasks: &[Task]) -> TaskSummary {
        let board = Board::new(tasks.iter());
        let ready = board.ready();
        let mut in_progress: Vec<&Task> = tasks
            .iter()
            .filter(|t| t.status == TaskStatus::InProgress)
            .collect();
        in_progress.sort_by(|a, b| (a.priority, &a.created_at).cmp(&(b.priority, &b.created_at)));
        TaskSummary {
            open: tasks.iter().filter(|t| t.is_open()).count(),
            in_progress_total: in_progress.len(),
            in_progress: in_progress
                .into_iter()
                .take(CONTEXT_IN_PROGRESS)
                .map(TaskLine::new)
                .collect(),
            ready_total: ready.len(),
            ready: ready
                .into_iter()
                .take(CONTEXT_READY)
                .map(TaskLine::new)
                .collect(),
        }
    }
}

/// How many pending proposals `mneme context` lists: the newest, which are most likely what an
/// agent was doing before its context was compacted. The rest are counted.
pub const CONTEXT_PROPOSALS: usize = 20;

#[derive(Debug, Clone, Default, Serialize)]
pub struct Proposals {
    /// Valid pending proposals.
    pub count: usize,
    /// Proposal files that do not parse or are invalid (`mneme check` says why).
    pub invalid: usize,
    /// The newest valid ones (at most [`CONTEXT_PROPOSALS`]), newest first.
    pub items: Vec<ProposalLine>,
}

impl Context {
    pub fn build(
        ledger: Ledger,
        standings: &Standings,
        proposals: Proposals,
        tasks: TaskSummary,
    ) -> Context {
        let (mut superseded, mut archived) = (0, 0);
        let budget = Budget::of(&ledger);
        let (conflicted, clean): (Vec<_>, Vec<_>) = ledger
            .into_files()
            .into_iter()
            .partition(|f| conflict_marker_line(&f.raw).is_some());
        let files = clean
            .into_iter()
            .map(|f| {
                let mut view = FileView::owned(f, standings);
                for fact in &view.facts {
                    match fact.recorded_state {
                        State::Superseded => superseded += 1,
                        State::Archived => archived += 1,
                        _ => {}
                    }
                }
                view.facts.retain(FactView::is_current);
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
            archived,
            facts_without_id,
            unresolved: conflicted.into_iter().map(|f| f.name).collect(),
            unapproved: Vec::new(),
            drifted: Vec::new(),
            config_error: None,
            proposals,
            budget,
            tasks,
            code_changed: HashMap::new(),
            scoped: Vec::new(),
            file_hooks: false,
        }
    }
}

/// `mneme propose --json`.
#[derive(Debug, Serialize)]
pub struct ProposedView<'a> {
    pub id: &'a str,
    /// Work-tree relative path of the proposal file.
    pub path: String,
    pub proposal: &'a Proposal,
    pub similar: &'a [Similar],
    /// Pending proposals that already act on a fact this one acts on.
    pub competing: &'a [Competing],
    pub budget: Budget,
    /// Evidence that points at nothing: a missing file, lines past its end, a path outside the
    /// repository. The proposal is written all the same; the reviewer sees the same.
    pub evidence_problems: Vec<EvidenceProblem>,
}

/// A citation that points at nothing, and why.
#[derive(Debug, Clone, Serialize)]
pub struct EvidenceProblem {
    pub evidence: String,
    pub problem: String,
}

impl EvidenceProblem {
    pub fn of(cited: &[Cited]) -> Vec<EvidenceProblem> {
        cited
            .iter()
            .filter_map(|c| {
                Some(EvidenceProblem {
                    evidence: c.evidence().to_owned(),
                    problem: c.problem()?,
                })
            })
            .collect()
    }
}

impl<'a> ProposedView<'a> {
    /// The proposal just written at `path` (work-tree relative), against the ledger it was
    /// planned on, with its evidence as the work tree has it.
    pub fn new(
        planned: &'a Planned,
        path: String,
        ledger: &Ledger,
        cited: &[Cited],
    ) -> ProposedView<'a> {
        ProposedView {
            id: &planned.proposal.id,
            path,
            proposal: &planned.proposal,
            similar: &planned.similar,
            competing: &planned.competing,
            budget: Budget::of(ledger),
            evidence_problems: EvidenceProblem::of(cited),
        }
    }
}

/// One row of `mneme review list --json`. An invalid proposal has only its id, `status:
/// "invalid"` and why.
#[derive(Debug, Serialize)]
pub struct ReviewRow<'a> {
    pub id: &'a str,
    pub created_at: Option<&'a str>,
    pub age: Option<String>,
    pub agent: Option<&'a str>,
    pub reason: Option<&'a str>,
    pub evidence: &'a [String],
    pub operations: Vec<String>,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
}

impl<'a> ReviewRow<'a> {
    pub fn new(p: &'a Proposal, status: Status, now: Timestamp) -> ReviewRow<'a> {
        ReviewRow {
            id: &p.id,
            created_at: Some(&p.created_at),
            age: p.created().map(|t| human_age(t, now)),
            agent: p.agent.as_deref(),
            reason: Some(&p.reason),
            evidence: &p.evidence,
            operations: p.operations.iter().map(Operation::summary).collect(),
            status,
            invalid: None,
        }
    }

    pub fn invalid(id: &'a str, why: &ProposalError) -> ReviewRow<'a> {
        ReviewRow {
            id,
            created_at: None,
            age: None,
            agent: None,
            reason: None,
            evidence: &[],
            operations: Vec::new(),
            status: Status::Invalid,
            invalid: Some(why.to_string()),
        }
    }
}

/// `mneme review show --json`. An invalid proposal has no `proposal`, only why it is invalid.
#[derive(Debug, Serialize)]
pub struct ReviewShow<'a> {
    pub id: &'a str,
    pub status: Status,
    pub conflict: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
    pub proposal: Option<&'a Proposal>,
    pub similar: &'a [Similar],
    /// Lines of all fact files once approved, and the budget (absent on a conflict).
    pub budget: Option<BudgetAfter>,
    /// The unified diff of each file the approval would change (none on a conflict).
    pub files: Vec<FileDiff>,
    /// Each evidence reference as the work tree has it: the cited lines, or what is wrong.
    pub cited: Vec<Cited>,
    /// Other pending proposals that act on a fact this one acts on.
    pub competing: Vec<Competing>,
    /// The existing facts whose evidence the approval replaces, before and after.
    pub evidence_changes: &'a [EvidenceChange],
}

#[derive(Debug, Serialize)]
pub struct FileDiff {
    pub name: String,
    pub path: String,
    pub diff: String,
}

impl<'a> ReviewShow<'a> {
    pub fn new(
        p: &'a Proposal,
        preview: &'a Preview,
        cited: Vec<Cited>,
        competing: Vec<Competing>,
    ) -> ReviewShow<'a> {
        let files = match &preview.outcome {
            Ok(applied) => applied
                .files
                .iter()
                .map(|f| {
                    let path = paths::fact_file(&f.name);
                    FileDiff {
                        diff: unified(&path, &f.old, &f.new, 3),
                        name: f.name.clone(),
                        path,
                    }
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        ReviewShow {
            id: &p.id,
            status: preview.status(),
            conflict: preview.outcome.as_ref().err().map(ToString::to_string),
            invalid: None,
            proposal: Some(p),
            similar: &preview.similar,
            budget: preview.budget,
            files,
            cited,
            competing,
            evidence_changes: &preview.evidence,
        }
    }

    pub fn invalid(id: &'a str, why: &ProposalError) -> ReviewShow<'a> {
        ReviewShow {
            id,
            status: Status::Invalid,
            conflict: None,
            invalid: Some(why.to_string()),
            proposal: None,
            similar: &[],
            budget: None,
            files: Vec::new(),
            cited: Vec::new(),
            competing: Vec::new(),
            evidence_changes: &[],
        }
    }
}

/// One decision of `mneme review approve|reject --json`.
#[derive(Debug, Serialize)]
pub struct Decided {
    pub proposal: String,
    pub commit: String,
    pub branch: String,
    pub summary: String,
}

/// `mneme review approve --all --json`.
#[derive(Debug, Serialize)]
pub struct ApprovedAll {
    pub approved: Vec<Decided>,
    pub left: Vec<LeftPending>,
}

/// A proposal `approve --all` left pending, with the error code and message approving it gave.
#[derive(Debug, Serialize)]
pub struct LeftPending {
    pub proposal: String,
    pub code: &'static str,
    pub message: String,
}

/// `mneme why --json`.
#[derive(Debug, Serialize)]
pub struct Why<'a> {
    pub fact: Option<FactView>,
    pub decisions: &'a [Recorded],
}

/// `mneme ready --explain --json`.
#[derive(Debug, Serialize)]
pub struct ReadyExplained<'a> {
    pub ready: &'a [&'a Task],
    pub not_ready: Vec<NotReadyView<'a>>,
}

#[derive(Debug, Serialize)]
pub struct NotReadyView<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub reasons: &'a [NotReady],
}

/// One row of `mneme blocked --json`.
#[derive(Debug, Serialize)]
pub struct BlockedView<'a> {
    pub task: &'a Task,
    pub blocked_by: Vec<&'a str>,
    pub reasons: &'a [NotReady],
}

impl<'a> BlockedView<'a> {
    pub fn new(task: &'a Task, reasons: &'a [NotReady]) -> BlockedView<'a> {
        BlockedView {
            task,
            blocked_by: reasons
                .iter()
                .filter_map(|r| match r {
                    NotReady::BlockedBy { id, .. } => Some(id.as_str()),
                    _ => None,
                })
                .collect(),
            reasons,
        }
    }
}

/// `mneme dep tree --json`: a task and, recursively, what it depends on.
#[derive(Debug, Serialize)]
pub struct DepTree<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub status: TaskStatus,
    pub deps: Vec<DepBranch<'a>>,
}

/// A dependency in a tree: the task, expanded; or only its id when it is missing or would
/// repeat an ancestor (a cycle).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum DepBranch<'a> {
    Task {
        #[serde(rename = "type")]
        kind: DepKind,
        task: DepTree<'a>,
    },
    Id {
        #[serde(rename = "type")]
        kind: DepKind,
        id: &'a str,
    },
}

impl<'a> DepTree<'a> {
    pub fn new(board: &Board<'a>, task: &'a Task) -> DepTree<'a> {
        DepTree::below(board, task, &mut Vec::new())
    }

    fn below(board: &Board<'a>, task: &'a Task, path: &mut Vec<&'a str>) -> DepTree<'a> {
        path.push(&task.id);
        let deps = task
            .deps
            .iter()
            .map(|d| match board.tasks.get(d.id.as_str()) {
                Some(t) if !path.contains(&t.id.as_str()) => DepBranch::Task {
                    kind: d.kind,
                    task: DepTree::below(board, t, path),
                },
                _ => DepBranch::Id {
                    kind: d.kind,
                    id: &d.id,
                },
            })
            .collect();
        path.pop();
        DepTree {
            id: &task.id,
            title: &task.title,
            status: task.status,
            deps,
        }
    }
}

/// A task as `show` gives it: the task file's fields, and the facts whose evidence cites it.
#[derive(Debug, Clone, Serialize)]
pub struct TaskView {
    #[serde(flatten)]
    pub task: Task,
    pub cited_by_facts: Vec<String>,
}

impl TaskView {
    pub fn new(task: Task, ledger: &Ledger) -> TaskView {
        let cited_by_facts = ledger
            .facts()
            .filter(|(_, f)| f.meta.evidence.contains(&task.id))
            .filter_map(|(_, f)| f.id.clone())
            .collect();
        TaskView {
            task,
            cited_by_facts,
        }
    }
}

/// `mneme export --out DIR --json`.
#[derive(Debug, Serialize)]
pub struct ExportSummary<'a> {
    pub format: &'a str,
    pub out: String,
    /// How many facts the export holds.
    pub facts: usize,
    /// The files written into `out`, besides the manifest.
    pub files: Vec<&'a str>,
    /// Facts the format cannot hold, by id (compiled entries need evidence).
    pub left_out: &'a [String],
}

/// `mneme import --json`.
#[derive(Debug, Serialize)]
pub struct ImportSummary<'a> {
    pub source: &'a str,
    pub dry_run: bool,
    /// Files read, and statements found in them.
    pub files: usize,
    pub statements: usize,
    /// The proposals written: none for a dry run or when nothing is new.
    pub proposals: Vec<WrittenProposal>,
    /// What the proposals add (or, for a dry run, would add).
    pub operations: Vec<ImportedOperation<'a>>,
    pub duplicates: Vec<SourceNote<'a>>,
    pub refused: Vec<SourceNote<'a>>,
    pub unresolved: Vec<SourceNote<'a>>,
    pub skipped_files: Vec<SourceNote<'a>>,
    /// Existing facts like a proposed statement (`operation` indexes `operations`).
    pub similar: &'a [Similar],
}

#[derive(Debug, Serialize)]
pub struct WrittenProposal {
    pub id: String,
    pub path: String,
}

#[derive(Debug, Serialize)]
pub struct ImportedOperation<'a> {
    pub fact_id: &'a str,
    pub file: &'a str,
    pub text: &'a str,
    pub source: &'a str,
    /// The state it starts in, when not active.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<&'a str>,
    /// The files it is about, as the source said (a Cursor rule's globs).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub scope: &'a [String],
}

/// A source location (or file) and what became of it.
#[derive(Debug, Serialize)]
pub struct SourceNote<'a> {
    pub source: &'a str,
    pub note: &'a str,
}
