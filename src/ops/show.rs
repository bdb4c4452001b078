//! `show`: one fact or one task, by id.

use crate::model::tasks::task::{citing, TaskError};
use crate::model::views::{FactView, TaskView};
use crate::ops::{now, standings, tasks, Notes, Result, Workspace};

/// What an id names.
pub enum Shown {
    Fact(Box<FactView>),
    Task(Box<TaskView>),
}

/// The fact (`f-…`) or task (`t-…`, or a unique prefix of one) named by `id`, with what cites
/// it the other way: the tasks citing a fact, the facts whose evidence cites a task.
pub fn show(ws: &Workspace, notes: &dyn Notes, id: &str) -> Result<Shown> {
    let id = id.trim();
    let ledger = ws.store.load()?;
    if !id.starts_with("t-") {
        match ledger.get(id) {
            Ok((file, fact)) => {
                let standings = standings(ws, &ledger, now())?;
                let mut view = FactView::new(file, fact, &standings);
                view.cited_by_tasks = citing_tasks(ws, notes, id)?;
                return Ok(Shown::Fact(Box::new(view)));
            }
            Err(e) if id.starts_with("f-") => return Err(e.into()),
            // Not a fact: perhaps a task prefix without its `t-`.
            Err(_) => {}
        }
    }
    let id = tasks::resolve(ws, id)?;
    // Removed since it was resolved: as if it never was.
    let task = ws.store.read_task(&id)?.ok_or_else(|| TaskError::Unknown {
        id: id.clone(),
        near: Vec::new(),
    })?;
    Ok(Shown::Task(Box::new(TaskView::new(task, &ledger))))
}

/// The ids of the tasks that cite the fact `id`.
pub fn citing_tasks(ws: &Workspace, notes: &dyn Notes, id: &str) -> Result<Vec<String>> {
    Ok(citing(&tasks::load(ws, notes)?, id))
}
