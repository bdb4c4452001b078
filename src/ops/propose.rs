//! `propose`: plan a request against the ledger and write it as one new proposal file.

use std::path::PathBuf;

use crate::model::ledger::Ledger;
use crate::model::plan::{plan, PlanContext, Planned, Request};
use crate::ops::{now, Result, Workspace};

/// A written proposal, where it is, and the ledger it was planned against.
pub struct Proposed {
    pub planned: Planned,
    pub path: PathBuf,
    pub ledger: Ledger,
}

/// Validates `request` and writes it. Checking for duplicates and writing happen under the
/// ledger lock, so two agents cannot propose the same statement at once.
pub fn propose(ws: &Workspace, request: Request) -> Result<Proposed> {
    ws.store.check_ledger()?;
    let now = now();
    let ctx = PlanContext {
        now,
        author: ws.repo.author(),
        nonce: u64::from(now.subsec_nanos()) ^ u64::from(std::process::id()) << 32,
    };
    let lock = ws.store.lock()?;
    let ledger = ws.store.load()?;
    let pending = ws.store.queue(&ledger.limits())?;
    let mut planned = plan(&ledger, &pending, request, &ctx)?;
    let path = ws.store.write_proposal(&mut planned.proposal)?;
    drop(lock);
    Ok(Proposed {
        planned,
        path,
        ledger,
    })
}
