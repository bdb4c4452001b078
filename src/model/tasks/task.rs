//! Tasks: mid-term state agents write directly, one JSON file per task under `.ledger/tasks/`.
//! Types, transitions and the pure logic (readiness, blocking, cycles, id lookup); the files
//! live in `store::tasks`.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::model::base::codec::{Reader, Writer};
use crate::model::facts::file::{is_fact_id, is_valid_id};

/// Why a task request cannot be carried out. Nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TaskError {
    #[error("unknown task `{id}`{}", if near.is_empty() { String::new() } else { format!("; did you mean {}?", near.join(", ")) })]
    Unknown { id: String, near: Vec<String> },
    #[error("task id `{id}` is ambiguous: {}", matches.join(", "))]
    Ambiguous { id: String, matches: Vec<String> },
    #[error("task {id} is already claimed by {by}")]
    AlreadyClaimed { id: String, by: String },
    #[error("task {id} is not claimed")]
    NotClaimed { id: String },
    #[error("task {id} is claimed by {by}, not by you; only its holder can unclaim it")]
    NotYourClaim { id: String, by: String },
    #[error("that dependency would make a cycle: {}", cycle.join(" → "))]
    Cycle { cycle: Vec<String> },
    #[error("the title must be one non-empty line")]
    InvalidTitle,
    #[error("task id `{id}` is too short: give the id, or at least {MIN_PREFIX} characters of it after `t-`")]
    TooShort { id: String },
    #[error("{id} is closed; reopen it first")]
    Closed { id: String },
    #[error("{id} already has a parent; remove it first")]
    HasParent { id: String },
    #[error("{id} does not depend on {on}")]
    NotADependency { id: String, on: String },
    #[error("{id} does not cite {fact}")]
    NotCited { id: String, fact: String },
    #[error("claim or unclaim, not both")]
    ClaimAndUnclaim,
    #[error("close tasks with `mneme close ID --reason TEXT`")]
    CloseWithClose,
    #[error("--reason must say why the task is closed")]
    MissingCloseReason,
}

pub const TASK_PREFIX: &str = "t";

/// `t-…`: a well-formed task id.
pub fn is_task_id(id: &str) -> bool {
    is_valid_id(id) && id.starts_with("t-")
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub description: String,
    #[serde(rename = "type")]
    pub kind: Kind,
    /// 0 (most urgent) to 4.
    pub priority: u8,
    pub status: Status,
    pub assignee: Option<String>,
    #[serde(default)]
    pub labels: Vec<String>,
    #[serde(default)]
    pub deps: Vec<Dep>,
    #[serde(default)]
    pub notes: Vec<Note>,
    /// The facts the task cites (`f-…` ids, sorted): what the work relies on or must respect.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<String>,
    pub created_at: String,
    pub updated_at: String,
    pub closed_at: Option<String>,
    pub close_reason: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Task,
    Bug,
    Feature,
    Chore,
    Epic,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Open,
    InProgress,
    Blocked,
    Deferred,
    Closed,
}

/// A dependency of the task that holds it: `{"type": "blocks", "id": "t-b2c1"}` means t-b2c1
/// blocks this task.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dep {
    #[serde(rename = "type")]
    pub kind: DepKind,
    pub id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DepKind {
    /// The other task must be closed before this one is ready.
    Blocks,
    /// The other task is this one's parent.
    ParentChild,
    Related,
    DiscoveredFrom,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Note {
    pub at: String,
    pub author: String,
    pub text: String,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Open,
        Status::InProgress,
        Status::Blocked,
        Status::Deferred,
        Status::Closed,
    ];

    /// The statuses `update --status` sets: closing has its own verb, which asks for a reason.
    pub const SETTABLE: [Status; 4] = [
        Status::Open,
        Status::InProgress,
        Status::Blocked,
        Status::Deferred,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::InProgress => "in_progress",
            Status::Blocked => "blocked",
            Status::Deferred => "deferred",
            Status::Closed => "closed",
        }
    }
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Task,
        Kind::Bug,
        Kind::Feature,
        Kind::Chore,
        Kind::Epic,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Task => "task",
            Kind::Bug => "bug",
            Kind::Feature => "feature",
            Kind::Chore => "chore",
            Kind::Epic => "epic",
        }
    }
}

impl DepKind {
    pub const ALL: [DepKind; 4] = [
        DepKind::Blocks,
        DepKind::ParentChild,
        DepKind::Related,
        DepKind::DiscoveredFrom,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DepKind::Blocks => "blocks",
            DepKind::ParentChild => "parent-child",
            DepKind::Related => "related",
            DepKind::DiscoveredFrom => "discovered-from",
        }
    }

    /// How a task stands to one it depends on this way, read from the task: it waits for it,
    /// is part of it, is related to it, or was found while working on it.
    pub fn from_the_task(self) -> &'static str {
        match self {
            DepKind::Blocks => "waits for",
            DepKind::ParentChild => "part of",
            DepKind::Related => "related to",
            DepKind::DiscoveredFrom => "found during",
        }
    }
}

/// Where `v` is in `all`: how the task index writes an enum.
fn position<T: PartialEq + Copy>(all: &[T], v: T) -> u8 {
    all.iter()
        .position(|x| *x == v)
        .expect("every value is in ALL") as u8
}

/// `FromStr` by the names `as_str` gives, for the enums a command line names.
macro_rules! from_name {
    ($($t:ty),*) => {$(
        impl std::str::FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> Result<$t, String> {
                <$t>::ALL
                    .into_iter()
                    .find(|v| v.as_str() == s)
                    .ok_or_else(|| format!("`{s}` is not one of {}", <$t>::ALL.map(<$t>::as_str).join(", ")))
            }
        }
    )*};
}
from_name!(Status, Kind, DepKind);

/// What `mneme update` changes; `None` and empty fields leave the task as it is.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    pub status: Option<Status>,
    /// Take the task: in progress, assigned to the actor.
    pub claim: bool,
    /// Give the task back: open again, assigned to nobody. Only its holder can.
    pub unclaim: bool,
    pub title: Option<String>,
    pub description: Option<String>,
    pub priority: Option<u8>,
    /// An empty name unassigns.
    pub assignee: Option<String>,
    pub labels: Vec<String>,
    /// A note to append, by the actor.
    pub note: Option<String>,
    /// Fact ids to cite, and to stop citing.
    pub cite: Vec<String>,
    pub uncite: Vec<String>,
}

impl Task {
    /// Applies `changes` made by `actor` at `now` (RFC 3339). A claim is a compare-and-swap:
    /// only an unclaimed task, or one the actor already holds, can be taken.
    pub fn apply(&mut self, changes: &Changes, actor: &str, now: &str) -> Result<(), TaskError> {
        if changes.status == Some(Status::Closed) {
            return Err(TaskError::CloseWithClose);
        }
        if changes.claim && changes.unclaim {
            return Err(TaskError::ClaimAndUnclaim);
        }
        if changes.claim {
            self.claim(actor)?;
        }
        if changes.unclaim {
            self.unclaim(actor)?;
        }
        if let Some(s) = changes.status {
            self.status = s;
        }
        if let Some(title) = &changes.title {
            self.title = check_title(title)?;
        }
        if let Some(d) = &changes.description {
            self.description = d.trim().to_owned();
        }
        if let Some(p) = changes.priority {
            self.priority = p;
        }
        if let Some(a) = &changes.assignee {
            self.assignee = Some(a.clone()).filter(|a| !a.is_empty());
        }
        for l in &changes.labels {
            if !self.labels.contains(l) {
                self.labels.push(l.clone());
            }
        }
        if let Some(f) = changes.uncite.iter().find(|f| !self.facts.contains(f)) {
            return Err(TaskError::NotCited {
                id: self.id.clone(),
                fact: f.clone(),
            });
        }
        self.cite(&changes.cite);
        self.facts.retain(|f| !changes.uncite.contains(f));
        if let Some(text) = &changes.note {
            self.notes.push(Note {
                at: now.to_owned(),
                author: actor.to_owned(),
                text: text.trim().to_owned(),
            });
        }
        self.updated_at = now.to_owned();
        Ok(())
    }

    /// Adds fact citations, keeping them sorted and each once.
    pub fn cite(&mut self, facts: &[String]) {
        self.facts.extend(facts.iter().cloned());
        self.facts.sort_unstable();
        self.facts.dedup();
    }

    fn claim(&mut self, me: &str) -> Result<(), TaskError> {
        match (&self.assignee, self.status) {
            (_, Status::Closed) => Err(TaskError::Closed {
                id: self.id.clone(),
            }),
            (Some(who), _) if who != me => Err(TaskError::AlreadyClaimed {
                id: self.id.clone(),
                by: who.clone(),
            }),
            (None, Status::InProgress) => Err(TaskError::AlreadyClaimed {
                id: self.id.clone(),
                by: "someone (no assignee)".into(),
            }),
            _ => {
                self.status = Status::InProgress;
                self.assignee = Some(me.to_owned());
                Ok(())
            }
        }
    }

    fn unclaim(&mut self, me: &str) -> Result<(), TaskError> {
        match (&self.assignee, self.status) {
            (Some(who), _) if who != me => Err(TaskError::NotYourClaim {
                id: self.id.clone(),
                by: who.clone(),
            }),
            (None, _) | (_, Status::Closed) => Err(TaskError::NotClaimed {
                id: self.id.clone(),
            }),
            _ => {
                if self.status == Status::InProgress {
                    self.status = Status::Open;
                }
                self.assignee = None;
                Ok(())
            }
        }
    }

    /// Takes the task from whoever held it (a stale claim taken over), noting `why`.
    pub fn take_over(&mut self, me: &str, why: &str, now: &str) -> Result<(), TaskError> {
        if self.status == Status::Closed {
            return Err(TaskError::Closed {
                id: self.id.clone(),
            });
        }
        self.status = Status::InProgress;
        self.assignee = Some(me.to_owned());
        self.notes.push(Note {
            at: now.to_owned(),
            author: me.to_owned(),
            text: why.to_owned(),
        });
        self.updated_at = now.to_owned();
        Ok(())
    }

    /// Closes the task with `reason` at `now`.
    pub fn close(&mut self, reason: &str, now: &str) -> Result<(), TaskError> {
        let reason = reason.trim();
        if reason.is_empty() {
            return Err(TaskError::MissingCloseReason);
        }
        self.status = Status::Closed;
        self.closed_at = Some(now.to_owned());
        self.close_reason = Some(reason.to_owned());
        self.updated_at = now.to_owned();
        Ok(())
    }

    /// Opens the task again, unclaimed: whoever closed it is not working on it any more.
    pub fn reopen(&mut self, now: &str) {
        self.status = Status::Open;
        self.assignee = None;
        self.closed_at = None;
        self.close_reason = None;
        self.updated_at = now.to_owned();
    }

    /// Records that this task depends on `dep.id`. A task has at most one parent.
    pub fn add_dep(&mut self, dep: Dep, now: &str) -> Result<(), TaskError> {
        if dep.kind == DepKind::ParentChild && self.parent().is_some_and(|p| p != dep.id) {
            return Err(TaskError::HasParent {
                id: self.id.clone(),
            });
        }
        if !self.deps.contains(&dep) {
            self.deps.push(dep);
        }
        self.updated_at = now.to_owned();
        Ok(())
    }

    /// Drops every dependency on `on`, of any type.
    pub fn remove_dep(&mut self, on: &str, now: &str) -> Result<(), TaskError> {
        let before = self.deps.len();
        self.deps.retain(|d| d.id != on);
        if self.deps.len() == before {
            return Err(TaskError::NotADependency {
                id: self.id.clone(),
                on: on.to_owned(),
            });
        }
        self.updated_at = now.to_owned();
        Ok(())
    }

    pub fn parse(json: &str) -> Result<Task, String> {
        let t: Task = serde_json::from_str(json).map_err(|e| e.to_string())?;
        t.check()?;
        Ok(t)
    }

    /// What a task file must hold beyond its JSON shape.
    fn check(&self) -> Result<(), String> {
        if !is_task_id(&self.id) {
            return Err(format!("invalid task id `{}`", self.id));
        }
        if self.priority > 4 {
            return Err(format!("priority {} is not 0-4", self.priority));
        }
        if let Some(bad) = self.facts.iter().find(|f| !is_fact_id(f)) {
            return Err(format!("`{bad}` in facts is not a fact id"));
        }
        Ok(())
    }

    /// What the task index keeps of a task beside its head (see [`Task::write_head`]): the rest,
    /// so that verbs that list every task need not read the task files.
    pub(crate) fn write_rest(&self, w: &mut Writer) {
        w.str(&self.description);
        w.u32(self.labels.len());
        for label in &self.labels {
            w.str(label);
        }
        w.u32(self.notes.len());
        for n in &self.notes {
            w.str(&n.at);
            w.str(&n.author);
            w.str(&n.text);
        }
        w.u32(self.facts.len());
        for f in &self.facts {
            w.str(f);
        }
        w.str(&self.updated_at);
        w.opt(self.closed_at.as_deref(), Writer::str);
        w.opt(self.close_reason.as_deref(), Writer::str);
    }

    /// This task, as [`Task::read_head`] gave it, whole with what [`Task::write_rest`] wrote;
    /// `None` unless `rest` is exactly that and the task is one a task file could hold.
    pub(crate) fn read_rest(mut self, rest: &[u8]) -> Option<Task> {
        let t = &mut self;
        let mut r = Reader::new(rest);
        let text = |r: &mut Reader| r.str().map(str::to_owned);
        let list = |r: &mut Reader, item: &dyn Fn(&mut Reader) -> Option<String>| {
            (0..r.u32()?).map(|_| item(r)).collect::<Option<Vec<_>>>()
        };
        t.description = text(&mut r)?;
        t.labels = list(&mut r, &text)?;
        let count = r.u32()?;
        t.notes = (0..count)
            .map(|_| {
                Some(Note {
                    at: text(&mut r)?,
                    author: text(&mut r)?,
                    text: text(&mut r)?,
                })
            })
            .collect::<Option<_>>()?;
        t.facts = list(&mut r, &text)?;
        t.updated_at = text(&mut r)?;
        t.closed_at = r.opt(text)?;
        t.close_reason = r.opt(text)?;
        (r.is_empty() && t.check().is_ok()).then_some(self)
    }

    /// What the task index keeps of a task: what `context` shows of it and what readiness
    /// depends on (the latest note only while it is in progress).
    pub(crate) fn write_head(&self, w: &mut Writer) {
        w.str(&self.id);
        w.str(&self.title);
        w.u8(position(&Kind::ALL, self.kind));
        w.u8(self.priority);
        w.u8(position(&Status::ALL, self.status));
        w.opt(self.assignee.as_deref(), Writer::str);
        w.u32(self.deps.len());
        for d in &self.deps {
            w.u8(position(&DepKind::ALL, d.kind));
            w.str(&d.id);
        }
        let note = (self.status == Status::InProgress)
            .then(|| self.notes.last())
            .flatten();
        w.opt(note, |w, n| w.str(&n.text));
        w.str(&self.created_at);
    }

    /// The task [`Task::write_head`] wrote, without what it leaves out; `None` unless `bytes`
    /// are exactly that.
    pub(crate) fn read_head(bytes: &[u8]) -> Option<Task> {
        let mut r = Reader::new(bytes);
        let text = |r: &mut Reader| r.str().map(str::to_owned);
        let id = text(&mut r).filter(|id| is_task_id(id))?;
        let title = text(&mut r)?;
        let kind = *Kind::ALL.get(usize::from(r.u8()?))?;
        let priority = r.u8()?;
        let status = *Status::ALL.get(usize::from(r.u8()?))?;
        let assignee = r.opt(text)?;
        let mut deps = Vec::new();
        for _ in 0..r.u32()? {
            let kind = *DepKind::ALL.get(usize::from(r.u8()?))?;
            deps.push(Dep {
                kind,
                id: text(&mut r)?,
            });
        }
        let notes = r
            .opt(text)?
            .map(|text| Note {
                at: String::new(),
                author: String::new(),
                text,
            })
            .into_iter()
            .collect();
        let created_at = text(&mut r)?;
        r.is_empty().then_some(Task {
            id,
            title,
            description: String::new(),
            kind,
            priority,
            status,
            assignee,
            labels: Vec::new(),
            deps,
            notes,
            facts: Vec::new(),
            created_at,
            updated_at: String::new(),
            closed_at: None,
            close_reason: None,
        })
    }

    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("tasks serialize");
        s.push('\n');
        s
    }

    pub fn parent(&self) -> Option<&str> {
        self.deps
            .iter()
            .find(|d| d.kind == DepKind::ParentChild)
            .map(|d| d.id.as_str())
    }

    pub fn blockers(&self) -> impl Iterator<Item = &str> {
        self.deps
            .iter()
            .filter(|d| d.kind == DepKind::Blocks)
            .map(|d| d.id.as_str())
    }

    pub fn is_open(&self) -> bool {
        self.status != Status::Closed
    }
}

/// Which tasks `mneme list` shows; `None` matches any.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub status: Option<Status>,
    pub kind: Option<Kind>,
    pub priority: Option<u8>,
    pub assignee: Option<String>,
    pub label: Option<String>,
    /// Closed tasks too (without a `status`).
    pub all: bool,
}

impl Filter {
    pub fn matches(&self, t: &Task) -> bool {
        self.matches_head(t) && self.label.as_ref().is_none_or(|l| t.labels.contains(l))
    }

    /// Whether `t` matches but for its labels: what the head of a task (as the task index keeps
    /// it) can answer, so that the rest of the others need not be read.
    pub fn matches_head(&self, t: &Task) -> bool {
        self.status
            .map_or(self.all || t.is_open(), |s| t.status == s)
            && self.kind.is_none_or(|k| t.kind == k)
            && self.priority.is_none_or(|p| t.priority == p)
            && self
                .assignee
                .as_ref()
                .is_none_or(|a| t.assignee.as_ref() == Some(a))
    }

    /// The matching tasks, most urgent first, then oldest.
    pub fn select<'t>(&self, tasks: &'t [Task]) -> Vec<&'t Task> {
        let mut chosen: Vec<&Task> = tasks.iter().filter(|t| self.matches(t)).collect();
        chosen.sort_by(|a, b| {
            (a.priority, &a.created_at, &a.id).cmp(&(b.priority, &b.created_at, &b.id))
        });
        chosen
    }
}

/// All tasks by id, for graph questions.
pub struct Board<'t> {
    pub tasks: BTreeMap<&'t str, &'t Task>,
}

/// Why an open task is not ready.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum NotReady {
    Status {
        status: Status,
    },
    BlockedBy {
        id: String,
        status: Option<Status>,
    },
    Ancestor {
        id: String,
        status: Status,
    },
    AncestorBlockedBy {
        ancestor: String,
        id: String,
    },
    /// Claimed on the claims remote (by another clone, or one not yet merged here).
    Claimed {
        remote: String,
        by: String,
    },
}

impl std::fmt::Display for NotReady {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotReady::Status { status } => write!(f, "it is {}", status.as_str()),
            NotReady::BlockedBy {
                id,
                status: Some(s),
            } => write!(f, "blocked by {id} ({})", s.as_str()),
            NotReady::BlockedBy { id, status: None } => {
                write!(f, "blocked by {id}, which does not exist")
            }
            NotReady::Ancestor { id, status } => {
                write!(f, "its ancestor {id} is {}", status.as_str())
            }
            NotReady::AncestorBlockedBy { ancestor, id } => {
                write!(f, "its ancestor {ancestor} is blocked by {id}")
            }
            NotReady::Claimed { remote, by } => write!(f, "claimed on `{remote}` by {by}"),
        }
    }
}

impl<'t> Board<'t> {
    pub fn new(tasks: impl IntoIterator<Item = &'t Task>) -> Board<'t> {
        Board {
            tasks: tasks.into_iter().map(|t| (t.id.as_str(), t)).collect(),
        }
    }

    /// Unclosed `blocks` dependencies of `task` (missing tasks count as unclosed).
    pub fn open_blockers(&self, task: &Task) -> Vec<NotReady> {
        task.blockers()
            .filter_map(|id| match self.tasks.get(id) {
                Some(b) if b.status == Status::Closed => None,
                Some(b) => Some(NotReady::BlockedBy {
                    id: id.to_owned(),
                    status: Some(b.status),
                }),
                None => Some(NotReady::BlockedBy {
                    id: id.to_owned(),
                    status: None,
                }),
            })
            .collect()
    }

    /// Why `task` counts as blocked: its own `blocked` status, then its unclosed blockers.
    pub fn blocked_by(&self, task: &Task) -> Vec<NotReady> {
        let mut reasons = self.open_blockers(task);
        if task.status == Status::Blocked {
            reasons.insert(
                0,
                NotReady::Status {
                    status: Status::Blocked,
                },
            );
        }
        reasons
    }

    /// Every reason `task` is not ready; empty when it is.
    pub fn not_ready(&self, task: &Task) -> Vec<NotReady> {
        let mut reasons = Vec::new();
        if task.status != Status::Open {
            reasons.push(NotReady::Status {
                status: task.status,
            });
        }
        reasons.extend(self.open_blockers(task));
        let mut seen = BTreeSet::new();
        let mut parent = task.parent();
        while let Some(id) = parent {
            if !seen.insert(id) {
                break;
            }
            let Some(p) = self.tasks.get(id) else { break };
            if matches!(p.status, Status::Blocked | Status::Deferred) {
                reasons.push(NotReady::Ancestor {
                    id: id.to_owned(),
                    status: p.status,
                });
            } else if let Some(NotReady::BlockedBy { id: blocker, .. }) =
                self.open_blockers(p).into_iter().next()
            {
                reasons.push(NotReady::AncestorBlockedBy {
                    ancestor: id.to_owned(),
                    id: blocker,
                });
            }
            parent = p.parent();
        }
        reasons
    }

    /// Ready tasks, most urgent first, then oldest.
    pub fn ready(&self) -> Vec<&'t Task> {
        let mut ready: Vec<&Task> = self
            .tasks
            .values()
            .copied()
            .filter(|t| self.not_ready(t).is_empty())
            .collect();
        ready.sort_by(|a, b| {
            (a.priority, &a.created_at, &a.id).cmp(&(b.priority, &b.created_at, &b.id))
        });
        ready
    }

    /// The cycle adding `from → to` (`from` depends on `to`) would close, as a path of ids.
    pub fn cycle_with(&self, from: &str, to: &str) -> Option<Vec<String>> {
        cycle_with(from, to, |id| {
            Ok::<_, std::convert::Infallible>(self.tasks.get(id).map(|t| t.deps.clone()))
        })
        .unwrap_or_else(|never| match never {})
    }

    /// Resolves a full id or a unique prefix (with or without `t-`).
    pub fn resolve(&self, input: &str) -> Result<&'t Task, TaskError> {
        resolve(self.tasks.values().copied(), input)
    }

    /// Refuses a dependency of `from` on `to` that would close a cycle of blocking or parent
    /// links.
    pub fn check_dep(&self, from: &str, to: &str, kind: DepKind) -> Result<(), TaskError> {
        if !matches!(kind, DepKind::Blocks | DepKind::ParentChild) {
            return Ok(());
        }
        match self.cycle_with(from, to) {
            Some(cycle) => Err(TaskError::Cycle { cycle }),
            None => Ok(()),
        }
    }
}

/// Finds a task by full id or unique prefix, or says which ids come close.
/// Shortest prefix (after `t-`) that may name a task: one character would match by accident.
const MIN_PREFIX: usize = 2;

pub fn resolve<'t>(
    tasks: impl Iterator<Item = &'t Task> + Clone,
    input: &str,
) -> Result<&'t Task, TaskError> {
    let id = resolve_id(tasks.clone().map(|t| t.id.as_str()), input)?;
    Ok(tasks
        .into_iter()
        .find(|t| t.id == id)
        .expect("resolved among them"))
}

/// The id among `ids` that `input` names: the full id (with or without `t-`) or a unique
/// prefix; else which ids come close. Task files are named by id, so their names suffice.
pub fn resolve_id<'i>(
    ids: impl Iterator<Item = &'i str> + Clone,
    input: &str,
) -> Result<&'i str, TaskError> {
    let input = input.trim();
    let wanted = full_id(input);
    if let Some(id) = ids.clone().find(|id| *id == wanted) {
        return Ok(id);
    }
    if wanted.chars().count() < "t-".len() + MIN_PREFIX {
        return Err(TaskError::TooShort {
            id: input.to_owned(),
        });
    }
    let matches: Vec<&str> = ids.clone().filter(|id| id.starts_with(&wanted)).collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => {
            let mut near: Vec<(usize, &str)> = ids
                .map(|id| (common_prefix(id, &wanted), id))
                .filter(|(n, _)| *n > 2)
                .collect();
            near.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
            Err(TaskError::Unknown {
                id: input.to_owned(),
                near: near
                    .into_iter()
                    .take(5)
                    .map(|(_, id)| id.to_owned())
                    .collect(),
            })
        }
        many => Err(TaskError::Ambiguous {
            id: input.to_owned(),
            matches: many.iter().take(10).map(|id| (*id).to_owned()).collect(),
        }),
    }
}

/// The cycle adding `from → to` (`from` depends on `to`) would close, as a path of ids, with
/// each task's dependencies from `deps_of` (`None`: no such task): only the tasks reachable
/// from `to` are asked for, so a check reads a handful of task files, not all of them.
pub fn cycle_with<E>(
    from: &str,
    to: &str,
    mut deps_of: impl FnMut(&str) -> Result<Option<Vec<Dep>>, E>,
) -> Result<Option<Vec<String>>, E> {
    // A path from `to` back to `from` along blocking and parent edges closes a cycle.
    let mut stack = vec![(to.to_owned(), vec![from.to_owned(), to.to_owned()])];
    let mut seen = BTreeSet::new();
    while let Some((id, path)) = stack.pop() {
        if id == from {
            return Ok(Some(path));
        }
        if !seen.insert(id.clone()) {
            continue;
        }
        for d in deps_of(&id)?
            .unwrap_or_default()
            .into_iter()
            .filter(|d| matches!(d.kind, DepKind::Blocks | DepKind::ParentChild))
        {
            let mut next = path.clone();
            next.push(d.id.clone());
            stack.push((d.id, next));
        }
    }
    Ok(None)
}

/// `input` as a full task id: `t-` added when it lacks it.
pub fn full_id(input: &str) -> String {
    let input = input.trim();
    if input.starts_with("t-") {
        input.to_owned()
    } else {
        format!("t-{input}")
    }
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// A task title: one non-empty line, trimmed.
pub fn check_title(title: &str) -> Result<String, TaskError> {
    let title = title.trim();
    if title.is_empty() || title.contains('\n') {
        return Err(TaskError::InvalidTitle);
    }
    Ok(title.to_owned())
}

/// Parses `P1`, `p1` or `1`.
/// The ids of the tasks that cite `fact`.
pub fn citing(tasks: &[Task], fact: &str) -> Vec<String> {
    tasks
        .iter()
        .filter(|t| t.facts.iter().any(|f| f == fact))
        .map(|t| t.id.clone())
        .collect()
}

pub fn parse_priority(s: &str) -> Result<u8, String> {
    let digits = s.trim().trim_start_matches(['P', 'p']);
    match digits.parse::<u8>() {
        Ok(n) if n <= 4 => Ok(n),
        _ => Err(format!(
            "`{s}` is not a priority; use P0 (most urgent) to P4"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, status: Status, priority: u8, deps: &[(DepKind, &str)]) -> Task {
        Task {
            id: id.into(),
            title: id.into(),
            description: String::new(),
            kind: Kind::Task,
            priority,
            status,
            assignee: None,
            labels: vec![],
            deps: deps
                .iter()
                .map(|(k, i)| Dep {
                    kind: *k,
                    id: (*i).into(),
                })
                .collect(),
            notes: vec![],
            facts: vec![],
            created_at: format!("2026-11-22T10:00:0{priority}Z"),
            updated_at: String::new(),
            closed_at: None,
            close_reason: None,
        }
    }

    #[test]
    fn readiness_follows_blocks_and_ancestors() {
        use DepKind::*;
        let tasks = [
            task("t-a", Status::Open, 2, &[]),
            task("t-b", Status::Open, 1, &[(Blocks, "t-a")]),
            task("t-c", Status::Closed, 0, &[]),
            task("t-d", Status::Open, 3, &[(Blocks, "t-c"), (Related, "t-a")]),
            task("t-e", Status::Deferred, 0, &[]),
            task("t-f", Status::Open, 0, &[(ParentChild, "t-e")]),
            task("t-g", Status::Open, 0, &[(ParentChild, "t-b")]),
            task("t-h", Status::InProgress, 0, &[]),
        ];
        let board = Board::new(tasks.iter());
        let ready: Vec<_> = board.ready().iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ready, ["t-a", "t-d"]);
        assert_eq!(
            board.not_ready(&tasks[1]),
            [NotReady::BlockedBy {
                id: "t-a".into(),
                status: Some(Status::Open)
            }]
        );
        assert_eq!(
            board.not_ready(&tasks[5]),
            [NotReady::Ancestor {
                id: "t-e".into(),
                status: Status::Deferred
            }]
        );
        assert_eq!(
            board.not_ready(&tasks[6]),
            [NotReady::AncestorBlockedBy {
                ancestor: "t-b".into(),
                id: "t-a".into()
            }]
        );
        assert_eq!(
            board.not_ready(&tasks[7])[0].to_string(),
            "it is in_progress"
        );
    }

    #[test]
    fn cycles_are_named() {
        let tasks = [
            task("t-a", Status::Open, 0, &[(DepKind::Blocks, "t-b")]),
            task("t-b", Status::Open, 0, &[(DepKind::ParentChild, "t-c")]),
            task("t-c", Status::Open, 0, &[]),
        ];
        let board = Board::new(tasks.iter());
        assert_eq!(
            board.cycle_with("t-c", "t-a"),
            Some(vec!["t-c".into(), "t-a".into(), "t-b".into(), "t-c".into()])
        );
        assert_eq!(board.cycle_with("t-a", "t-c"), None);
        assert_eq!(
            board.cycle_with("t-a", "t-a"),
            Some(vec!["t-a".into(), "t-a".into()])
        );
    }

    #[test]
    fn ids_resolve_by_unique_prefix() {
        let tasks = [
            task("t-abc1", Status::Open, 0, &[]),
            task("t-abd2", Status::Open, 0, &[]),
        ];
        let board = Board::new(tasks.iter());
        assert_eq!(board.resolve("abc").unwrap().id, "t-abc1");
        assert_eq!(board.resolve("t-abd2").unwrap().id, "t-abd2");
        assert!(matches!(
            board.resolve("t-ab"),
            Err(TaskError::Ambiguous { .. })
        ));
        for short in ["", "t", "t-", "a", "t-a"] {
            assert!(
                matches!(board.resolve(short), Err(TaskError::TooShort { .. })),
                "{short:?}"
            );
        }
        match board.resolve("t-abx") {
            Err(TaskError::Unknown { near, .. }) => assert_eq!(near, ["t-abc1", "t-abd2"]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn transitions() {
        let now = "2026-11-23T00:00:00Z";
        let mut t = task("t-a", Status::Open, 2, &[]);
        let claim = Changes {
            claim: true,
            note: Some(" started ".into()),
            ..Changes::default()
        };
        t.apply(&claim, "ada", now).unwrap();
        assert_eq!(
            (t.status, t.assignee.as_deref()),
            (Status::InProgress, Some("ada"))
        );
        assert_eq!(
            (t.notes[0].author.as_str(), t.notes[0].text.as_str()),
            ("ada", "started")
        );
        assert_eq!(
            t.apply(&claim, "bob", now),
            Err(TaskError::AlreadyClaimed {
                id: "t-a".into(),
                by: "ada".into()
            })
        );
        let close = Changes {
            status: Some(Status::Closed),
            ..Changes::default()
        };
        assert_eq!(t.apply(&close, "ada", now), Err(TaskError::CloseWithClose));
        assert_eq!(t.close("  ", now), Err(TaskError::MissingCloseReason));
        t.close("done", now).unwrap();
        assert_eq!(
            (t.status, t.close_reason.as_deref()),
            (Status::Closed, Some("done"))
        );
        assert!(matches!(
            t.apply(&claim, "ada", now),
            Err(TaskError::Closed { .. })
        ));
        t.reopen(now);
        assert_eq!(
            (t.status, t.closed_at.as_deref(), t.assignee.as_deref()),
            (Status::Open, None, None)
        );
        let unclaim = Changes {
            unclaim: true,
            ..Changes::default()
        };
        assert_eq!(
            t.apply(&unclaim, "ada", now),
            Err(TaskError::NotClaimed { id: "t-a".into() })
        );
        t.apply(&claim, "ada", now).unwrap();
        assert_eq!(
            t.apply(&unclaim, "bob", now),
            Err(TaskError::NotYourClaim {
                id: "t-a".into(),
                by: "ada".into()
            })
        );
        t.apply(&unclaim, "ada", now).unwrap();
        assert_eq!((t.status, t.assignee.as_deref()), (Status::Open, None));
        let parent = |id: &str| Dep {
            kind: DepKind::ParentChild,
            id: id.into(),
        };
        t.add_dep(parent("t-p"), now).unwrap();
        t.add_dep(parent("t-p"), now).unwrap();
        assert_eq!(t.deps.len(), 1, "idempotent");
        assert!(matches!(
            t.add_dep(parent("t-q"), now),
            Err(TaskError::HasParent { .. })
        ));
        t.remove_dep("t-p", now).unwrap();
        assert!(matches!(
            t.remove_dep("t-p", now),
            Err(TaskError::NotADependency { .. })
        ));
        assert_eq!("in_progress".parse::<Status>(), Ok(Status::InProgress));
        assert!("doing".parse::<Status>().is_err());
    }

    #[test]
    fn task_files_are_strict() {
        let t = task(
            "t-abc1",
            Status::InProgress,
            1,
            &[(DepKind::DiscoveredFrom, "t-x")],
        );
        let json = t.to_json();
        assert!(
            json.contains("\"status\": \"in_progress\"")
                && json.contains("\"type\": \"discovered-from\"")
        );
        assert_eq!(Task::parse(&json).unwrap(), t);
        assert!(Task::parse(&json.replace("\"priority\": 1", "\"priority\": 9")).is_err());
        assert!(Task::parse(&json.replace("\"title\"", "\"titel\"")).is_err());
        assert_eq!(parse_priority("P3"), Ok(3));
        assert!(parse_priority("P5").is_err());
    }
}
