//! The task verbs: each change is a read-modify-write of one task file under the tasks lock.

use std::path::PathBuf;

use crate::model::tasks::claims::{ClaimRecord, RemoteHold};
use crate::model::tasks::task::{
    check_title, cycle_with, full_id, resolve_id, Changes, Dep, DepKind, Kind, Status, Task,
    TaskError,
};
use crate::ops::claims::{self, Reach};
use crate::ops::{now, Error, Notes, Result, Workspace};
use crate::store::Keep;

/// Tasks that parse; a file that does not is reported and skipped, so one corrupt file does not
/// stop work on the rest (`mneme check` reports it as an error).
pub fn load(ws: &Workspace, notes: &dyn Notes) -> Result<Vec<Task>> {
    load_where(ws, notes, &|_| true)
}

/// The tasks whose heads `keep` keeps (see [`Store::load_tasks_where`]).
pub fn load_where(ws: &Workspace, notes: &dyn Notes, keep: &Keep<'_>) -> Result<Vec<Task>> {
    let loaded = ws.store.load_tasks_where(keep)?;
    warn_broken(ws, notes, &loaded.broken);
    Ok(loaded.tasks)
}

/// Warns of the task files that do not parse.
pub fn warn_broken(ws: &Workspace, notes: &dyn Notes, broken: &[(PathBuf, String)]) {
    for (path, why) in broken {
        notes.warn(&format!(
            "warning: skipping {}: {why} (see `mneme check`)",
            ws.store.relative(path).display()
        ));
    }
}

/// The agent named by `$MNEME_AGENT`, when it is set and not blank.
pub fn env_agent() -> Option<String> {
    std::env::var("MNEME_AGENT")
        .ok()
        .filter(|s| !s.trim().is_empty())
}

/// Who is acting: `explicit` (`--agent`), else `$MNEME_AGENT`, else the git user name.
pub fn actor(ws: &Workspace, explicit: Option<&str>) -> String {
    explicit
        .map(str::to_owned)
        .or_else(env_agent)
        .or_else(|| {
            ws.repo
                .author()
                .map(|a| a.split(" <").next().unwrap_or(&a).to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// A task to create; dependencies are ids or unique prefixes.
#[derive(Debug, Clone)]
pub struct NewTask {
    pub title: String,
    pub description: String,
    pub kind: Kind,
    pub priority: u8,
    pub assignee: Option<String>,
    pub labels: Vec<String>,
    pub parent: Option<String>,
    pub depends_on: Vec<String>,
    pub discovered_from: Option<String>,
    /// Fact ids the task cites.
    pub cites: Vec<String>,
}

pub fn create(ws: &Workspace, new: NewTask) -> Result<Task> {
    ws.store.check_ledger()?;
    let title = check_title(&new.title)?;
    let cites = known_facts(ws, &new.cites)?;
    let _lock = ws.store.lock_tasks()?;
    let links = new
        .parent
        .iter()
        .map(|id| (DepKind::ParentChild, id))
        .chain(new.depends_on.iter().map(|id| (DepKind::Blocks, id)))
        .chain(
            new.discovered_from
                .iter()
                .map(|id| (DepKind::DiscoveredFrom, id)),
        );
    let mut deps = Vec::new();
    for (kind, id) in links {
        deps.push(Dep {
            kind,
            id: resolve(ws, id)?,
        });
    }
    let now = now().rfc3339();
    let seed = format!(
        "{now}\0{title}\0{}\0{}",
        std::process::id(),
        actor(ws, None)
    );
    let mut task = Task {
        id: String::new(),
        title,
        description: new.description.trim().to_owned(),
        kind: new.kind,
        priority: new.priority,
        status: Status::Open,
        assignee: new.assignee,
        labels: new.labels,
        deps,
        notes: Vec::new(),
        facts: Vec::new(),
        created_at: now.clone(),
        updated_at: now,
        closed_at: None,
        close_reason: None,
    };
    task.cite(&cites);
    // How many tasks there are sizes the new id; the file's no-clobber creation makes it unique.
    ws.store
        .create_task(&mut task, ws.store.task_count()?, &seed)?;
    Ok(task)
}

/// Resolves a task id or unique prefix by the task files' names, reading none of them: a verb
/// on one task costs the same with 10 tasks or 10,000.
pub fn resolve(ws: &Workspace, id: &str) -> Result<String> {
    let wanted = full_id(id);
    // A full id needs no listing; the verb reads the file itself.
    if ws.store.has_task(&wanted) {
        return Ok(wanted);
    }
    let ids = ws.store.task_ids()?;
    Ok(resolve_id(ids.iter().map(String::as_str), id)?.to_owned())
}

/// Applies `changes` made by `actor`; a claim is made where `reach` says.
pub fn update(
    ws: &Workspace,
    id: &str,
    changes: &Changes,
    actor: &str,
    reach: &Reach,
    notes: &dyn Notes,
) -> Result<Task> {
    let id = resolve(ws, id)?;
    if changes.status == Some(Status::Closed) {
        return Err(TaskError::CloseWithClose.into());
    }
    if let Some(title) = &changes.title {
        check_title(title)?;
    }
    let changes = &Changes {
        cite: known_facts(ws, &changes.cite)?,
        ..changes.clone()
    };
    let claim = changes.claim.then_some(reach);
    change(ws, &id, Some(actor), claim, notes, |t| {
        t.apply(changes, actor, &now().rfc3339())
    })
}

/// The fact ids `ids` names, each checked against the ledger: a task cites only facts it has.
fn known_facts(ws: &Workspace, ids: &[String]) -> Result<Vec<String>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let ledger = ws.store.load()?;
    ids.iter()
        .map(|id| Ok(ledger.get(id.trim())?.1.id.clone().unwrap_or_default()))
        .collect()
}

/// Changes task `id` under the tasks lock and keeps the claim record, shared by the work trees
/// of the repository, and the remote claim in step.
///
/// With `claim` the actor takes the task: refused when another work tree's claim holds it, and
/// claimed on the remote too when `claim` says so, after the local checks and before anything
/// is written. An `update` by the holder renews the remote claim's lease. A change that ends the
/// claim (closing, reopening, unclaiming, reassigning, leaving `in_progress`) releases the
/// record and the remote claim; a claim made elsewhere is left alone.
fn change(
    ws: &Workspace,
    id: &str,
    actor: Option<&str>,
    claim: Option<&Reach>,
    notes: &dyn Notes,
    edit: impl FnOnce(&mut Task) -> std::result::Result<(), TaskError>,
) -> Result<Task> {
    let _lock = ws.store.lock_tasks()?;
    let record = ws.store.claim_record(id)?;
    let holder = record.as_ref().map(|r| r.who.clone());
    let claim_for = actor.filter(|_| claim.is_some());
    // The remote claim as it stands after this change, when it was taken or renewed by it.
    let mut hold: Option<RemoteHold> = None;
    let mut took = false;
    let changed = ws.store.modify_task(id, |t| {
        // A claim recorded here but not in this work tree's file was made in another one.
        if let (Some(me), Some(h)) = (claim_for, &holder) {
            if h != me && t.assignee.as_ref() != Some(h) {
                return Err(Error::from(TaskError::AlreadyClaimed {
                    id: t.id.clone(),
                    by: format!("{h} (in another work tree)"),
                }));
            }
        }
        let before = t.assignee.clone();
        edit(t).map_err(Error::from)?;
        let mine = record
            .as_ref()
            .filter(|r| Some(r.who.as_str()) == actor)
            .and_then(|r| r.remote.clone());
        let holds =
            |who: &str| t.status == Status::InProgress && t.assignee.as_deref() == Some(who);
        match (claim_for, claim, mine) {
            (
                Some(me),
                Some(Reach::Remote {
                    remote,
                    lease_seconds,
                }),
                held,
            ) => {
                hold = Some(match held.filter(|h| h.remote == *remote) {
                    Some(held) => claims::renew_held(ws, &held, id, notes)?,
                    None => {
                        took = true;
                        claims::take(ws, remote, id, me, *lease_seconds)?
                    }
                });
            }
            (_, _, Some(held)) if actor.is_some_and(holds) => {
                hold = Some(claims::renew_held(ws, &held, id, notes)?);
            }
            _ => {}
        }
        Ok(before)
    });
    let (task, before) = match changed {
        Ok(done) => done,
        Err(e) => {
            if let Some(h) = hold.as_ref().filter(|_| took) {
                claims::release(ws, h, id, notes);
            }
            return Err(e);
        }
    };
    let holds = task.status == Status::InProgress && task.assignee == holder;
    if let Some(me) = claim_for {
        let remote = hold.or_else(|| record.and_then(|r| r.remote.filter(|_| r.who == me)));
        let record = ClaimRecord {
            who: me.to_owned(),
            remote,
        };
        ws.store.set_claim_record(id, Some(&record))?;
    } else if let Some(hold) = hold {
        let record = ClaimRecord {
            who: holder.unwrap_or_default(),
            remote: Some(hold),
        };
        ws.store.set_claim_record(id, Some(&record))?;
    } else if holder.is_some() && holder == before && !holds {
        ws.store.set_claim_record(id, None)?;
        if let Some(held) = record.and_then(|r| r.remote) {
            claims::release(ws, &held, id, notes);
        }
    }
    Ok(task)
}

/// Closes each task with `reason`; stops at the first that cannot be closed.
pub fn close(ws: &Workspace, ids: &[String], reason: &str, notes: &dyn Notes) -> Result<Vec<Task>> {
    if reason.trim().is_empty() {
        return Err(TaskError::MissingCloseReason.into());
    }
    let ids = ids
        .iter()
        .map(|i| resolve(ws, i))
        .collect::<Result<Vec<_>>>()?;
    let mut done = Vec::new();
    for id in ids {
        done.push(change(ws, &id, None, None, notes, |t| {
            t.close(reason, &now().rfc3339())
        })?);
    }
    // Closed all the same (the work may be done another way), but said: a task that waited for
    // another is rarely done before it.
    for task in &done {
        for dep in task.deps.iter().filter(|d| d.kind == DepKind::Blocks) {
            if ws.store.read_task(&dep.id)?.is_some_and(|d| d.is_open()) {
                notes.warn(&format!(
                    "warning: {} is closed, but {} it waits for is still open",
                    task.id, dep.id
                ));
            }
        }
    }
    Ok(done)
}

pub fn reopen(ws: &Workspace, id: &str, notes: &dyn Notes) -> Result<Task> {
    let id = resolve(ws, id)?;
    change(ws, &id, None, None, notes, |t| {
        t.reopen(&now().rfc3339());
        Ok(())
    })
}

/// Records that `id` depends on `on`. The cycle check and the write happen under one lock, so
/// two agents cannot close a cycle together.
pub fn add_dep(ws: &Workspace, id: &str, on: &str, kind: DepKind) -> Result<Task> {
    let _lock = ws.store.lock_tasks()?;
    let (from, to) = (resolve(ws, id)?, resolve(ws, on)?);
    if matches!(kind, DepKind::Blocks | DepKind::ParentChild) {
        // Only the tasks reachable from `to` are read.
        let cycle = cycle_with(&from, &to, |id| {
            ws.store.read_task(id).map(|t| t.map(|t| t.deps))
        })?;
        if let Some(cycle) = cycle {
            return Err(TaskError::Cycle { cycle }.into());
        }
    }
    let (task, ()) = ws.store.modify_task(&from, |t| {
        t.add_dep(Dep { kind, id: to }, &now().rfc3339())
            .map_err(Error::from)
    })?;
    Ok(task)
}

/// Drops the dependency of `id` on `on` (of any type); `on` may name a task that no longer
/// exists.
pub fn remove_dep(ws: &Workspace, id: &str, on: &str) -> Result<Task> {
    let _lock = ws.store.lock_tasks()?;
    let from = resolve(ws, id)?;
    let to = resolve(ws, on).unwrap_or_else(|_| on.to_owned());
    let (task, ()) = ws.store.modify_task(&from, |t| {
        t.remove_dep(&to, &now().rfc3339()).map_err(Error::from)
    })?;
    Ok(task)
}
