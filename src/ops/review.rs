//! Reviewing proposals: previews (pure, over the model) and decisions, recorded as commits.

use std::path::PathBuf;

use crate::git::commit::{self, Committed, FileWrite, LedgerCommit};
use crate::model::apply::apply;
use crate::model::decision::{Decision, Verdict};
use crate::model::paths;
use crate::model::proposal::Proposal;
use crate::model::templates;
use crate::ops::{now, Error, Result, Workspace};

/// A pending proposal and where its file is.
#[derive(Debug, Clone)]
pub struct Pending {
    pub path: PathBuf,
    pub proposal: Proposal,
    /// The text was changed by the reviewer.
    pub edited: bool,
}

/// Today's date, stamped as `since` on the facts an approval writes.
pub fn today() -> String {
    now().date()
}

/// Pending proposals, oldest first; files that do not parse are skipped (`mneme check` reports
/// them).
pub fn pending(ws: &Workspace) -> Result<Vec<Pending>> {
    Ok(ws
        .store
        .load_proposals()?
        .into_iter()
        .filter_map(|l| {
            l.proposal.ok().map(|proposal| Pending {
                path: l.path,
                proposal,
                edited: false,
            })
        })
        .collect())
}

/// The pending proposal named by `id`: its full id, its file name, or a unique prefix.
pub fn find<'p>(pending: &'p [Pending], id: &str) -> Result<&'p Pending> {
    let id = id.trim().trim_end_matches(".json");
    if let Some(p) = pending.iter().find(|p| p.proposal.id == id) {
        return Ok(p);
    }
    let matches: Vec<_> = pending
        .iter()
        .filter(|p| !id.is_empty() && p.proposal.id.starts_with(id))
        .collect();
    match matches.as_slice() {
        [one] => Ok(one),
        _ => Err(Error::UnknownProposal {
            id: id.to_owned(),
            known: pending.iter().map(|p| p.proposal.id.clone()).collect(),
        }),
    }
}

/// Finishes a decision an earlier run was interrupted in; says what it did, if anything.
pub fn recover(ws: &Workspace) -> Result<Option<String>> {
    ws.store.check_ledger()?;
    Ok(commit::recover(&ws.repo)?)
}

/// Applies and commits `item` against the ledger as it is now. `note` is added to the message
/// body.
pub fn approve(
    ws: &Workspace,
    item: &Pending,
    note: Option<String>,
    no_verify: bool,
) -> Result<Committed> {
    let ledger = ws.store.load()?;
    let applied = apply(&ledger, &item.proposal, &today()).map_err(|conflict| Error::Conflict {
        id: item.proposal.id.clone(),
        conflict,
    })?;
    let writes = applied
        .files
        .iter()
        .map(|f| FileWrite {
            path: paths::fact_file(&f.name),
            old: f.old.clone().into_bytes(),
            new: f.new.clone().into_bytes(),
            pristine: templates::FACT_FILES
                .iter()
                .find(|(n, _)| *n == f.name)
                .map(|(_, t)| *t),
        })
        .collect();
    let decision = Decision {
        verdict: Verdict::Approve,
        proposal: &item.proposal,
        reviewer: ws.repo.reviewer()?,
        note,
        rebased: applied.rebased,
        edited: item.edited,
    };
    record(ws, item, decision, writes, no_verify)
}

/// Records the rejection of `item` as a commit that removes its file.
pub fn reject(
    ws: &Workspace,
    item: &Pending,
    reason: Option<String>,
    no_verify: bool,
) -> Result<Committed> {
    let decision = Decision {
        verdict: Verdict::Reject,
        proposal: &item.proposal,
        reviewer: ws.repo.reviewer()?,
        note: reason.filter(|r| !r.trim().is_empty()),
        rebased: false,
        edited: item.edited,
    };
    record(ws, item, decision, Vec::new(), no_verify)
}

fn record(
    ws: &Workspace,
    item: &Pending,
    decision: Decision,
    writes: Vec<FileWrite>,
    no_verify: bool,
) -> Result<Committed> {
    let change = LedgerCommit {
        writes,
        deletes: vec![ws.store.git_path(&item.path)],
        message: decision.message(),
    };
    Ok(commit::commit(&ws.repo, &change, no_verify)?)
}
