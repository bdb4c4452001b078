//! `context`: what an agent reads at session start.

use crate::model::views::Context;
use crate::ops::{now, tasks, Notes, Result, Workspace};

pub fn context(ws: &Workspace, notes: &dyn Notes) -> Result<Context> {
    let ledger = ws.store.load()?;
    let loaded = ws.store.load_proposals()?;
    let limits = ledger.limits();
    // Only valid proposals are shown to agents; the others are counted.
    let proposals: Vec<_> = loaded
        .iter()
        .filter_map(|p| p.proposal.as_ref().ok())
        .filter(|p| p.validate(&limits).is_ok())
        .collect();
    let invalid = loaded.len() - proposals.len();
    let tasks = tasks::load(ws, notes)?;
    Ok(Context::build(&ledger, &proposals, invalid, &tasks, now()))
}
