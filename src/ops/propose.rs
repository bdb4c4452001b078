//! `propose`: plan a request against the ledger and write it as one new proposal file.

use std::path::{Path, PathBuf};

use crate::model::evidence::refs::from_root;
use crate::model::facts::ledger::Ledger;
use crate::model::proposals::plan::{plan, PlanContext, Planned, Request, RequestOp};
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
    let (ledger, pending, refresh) = ws.store.load_with_queue()?;
    let written = (|| -> Result<_> {
        let mut planned = plan(&ledger, &pending, request, &ctx)?;
        let path = ws.store.write_proposal(&mut planned.proposal)?;
        Ok((planned, path))
    })();
    // After the proposal, whose fsync would otherwise wait on the index's blocks; and also when
    // the request is refused, so that the next run need not list the directory again.
    ws.store
        .refresh_queue_index(refresh, &pending, written.is_ok());
    drop(lock);
    let (planned, path) = written?;
    Ok(Proposed {
        planned,
        path,
        ledger,
    })
}

/// Rewrites the file evidence of `request` given from `cwd`, a subdirectory of the work tree, as
/// paths from the work tree's root (where `check` and `stale` look for them).
pub fn evidence_from(ws: &Workspace, cwd: &Path, request: &mut Request) {
    let root = ws.store.root();
    let (Ok(cwd), Ok(top)) = (cwd.canonicalize(), root.canonicalize()) else {
        return;
    };
    let Ok(sub) = cwd.strip_prefix(&top) else {
        return;
    };
    let prefix: Vec<String> = sub
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let prefix = prefix.join("/");
    let per_operation = request
        .operations
        .iter_mut()
        .filter_map(RequestOp::evidence_mut)
        .flatten();
    for e in request.evidence.iter_mut().chain(per_operation) {
        *e = from_root(e, &prefix, |p| root.join(p).exists());
    }
}
