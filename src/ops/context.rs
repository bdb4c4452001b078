//! `context`: what an agent reads at session start.

use crate::model::paths;
use crate::model::standing::Standings;
use crate::model::views::{Context, ProposalLine, Proposals, CONTEXT_PROPOSALS};
use crate::ops::{now, tasks, Notes, Result, Workspace};
use crate::store::{self, write_atomic};

/// Remembers that `runtime` compacted its context, for its next turn to take it back.
pub fn mark_compacted(ws: &Workspace, runtime: &str) -> Result<()> {
    let path = ws.repo.git_dir().join(paths::compacted_marker(runtime));
    write_atomic(&path, b"")?;
    Ok(())
}

/// Whether `runtime` compacted since the last call; the mark is consumed.
pub fn take_compacted(ws: &Workspace, runtime: &str) -> Result<bool> {
    let path = ws.repo.git_dir().join(paths::compacted_marker(runtime));
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(store::Error::io(&path)(e).into()),
    }
}

pub fn context(ws: &Workspace, notes: &dyn Notes) -> Result<Context> {
    let ledger = ws.store.load()?;
    let limits = ledger.limits();
    let summary = ws.store.queue_summary(&limits)?;
    let now = now();
    let standings = Standings::of(&ledger, now).with_pending(&summary.contested);
    // Only valid proposals are shown to agents, the newest few in full; the others are counted.
    let items = ws
        .store
        .read_pending(summary.newest.into_iter().take(CONTEXT_PROPOSALS))?
        .iter()
        .filter(|p| p.validate(&limits).is_ok())
        .map(|p| ProposalLine::new(p, now))
        .collect();
    let proposals = Proposals {
        count: summary.valid,
        invalid: summary.invalid,
        items,
    };
    let tasks = tasks::load(ws, notes)?;
    Ok(Context::build(&ledger, &standings, proposals, &tasks))
}
