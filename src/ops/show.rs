//! `show`: one fact or one task, by id.

use crate::model::standing::Standings;
use crate::model::tasks::{Board, Task};
use crate::model::views::FactView;
use crate::ops::{now, tasks, Notes, Result, Workspace};

/// What an id names.
pub enum Shown {
    Fact(Box<FactView>),
    Task(Box<Task>),
}

/// The fact (`f-…`) or task (`t-…`, or a unique prefix of one) named by `id`.
pub fn show(ws: &Workspace, notes: &dyn Notes, id: &str) -> Result<Shown> {
    let id = id.trim();
    if !id.starts_with("t-") {
        let ledger = ws.store.load()?;
        match ledger.get(id) {
            Ok((file, fact)) => {
                let standings = Standings::of(&ledger, now());
                return Ok(Shown::Fact(Box::new(FactView::new(file, fact, &standings))));
            }
            Err(e) if id.starts_with("f-") => return Err(e.into()),
            // Not a fact: perhaps a task prefix without its `t-`.
            Err(_) => {}
        }
    }
    let tasks = tasks::load(ws, notes)?;
    let task = Board::new(tasks.iter()).resolve(id)?.clone();
    Ok(Shown::Task(Box::new(task)))
}
