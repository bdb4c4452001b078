//! Reviewing proposals: previews (pure) and decisions (recorded as commits through `git`).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::commit::{self as git, Committed, FileWrite, LedgerCommit};
use crate::model::apply::{apply, Applied, Conflict};
use crate::model::decision::{Decision, Verdict};
use crate::model::ledger::Ledger;
use crate::model::proposal::{similar_to, Proposal, Similar};
use crate::model::templates;
use crate::model::time::Timestamp;
use crate::store::{fact_path, Workspace};

/// A pending proposal and where its file is.
#[derive(Debug, Clone)]
pub struct Pending {
    pub path: PathBuf,
    pub proposal: Proposal,
    /// The text was changed by the reviewer.
    pub edited: bool,
}

/// What approving a proposal would do now.
#[derive(Debug, Clone)]
pub struct Preview {
    pub outcome: std::result::Result<Applied, Conflict>,
    pub similar: Vec<Similar>,
}

impl Preview {
    pub fn status(&self) -> Status {
        match &self.outcome {
            Ok(a) if a.rebased => Status::Rebased,
            Ok(_) => Status::Clean,
            Err(_) => Status::Conflict,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Applies to the files it was proposed against.
    Clean,
    /// A target file changed since, but the proposal still applies.
    Rebased,
    /// The targeted fact changed or vanished: only reject or edit.
    Conflict,
}

pub fn today() -> String {
    Timestamp::now().date()
}

pub fn preview(ledger: &Ledger, proposal: &Proposal, today: &str) -> Preview {
    Preview {
        outcome: apply(ledger, proposal, today),
        similar: proposal
            .operations
            .iter()
            .enumerate()
            .flat_map(|(i, op)| similar_to(ledger, i, op))
            .collect(),
    }
}

/// Pending proposals, oldest first; files that do not parse are skipped (`mneme check` reports
/// them).
pub fn pending(ws: &Workspace) -> Result<Vec<Pending>> {
    Ok(ws
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

/// Applies and commits `item`. `note` is added to the message body.
pub fn approve(
    ws: &Workspace,
    ledger: &Ledger,
    item: &Pending,
    note: Option<String>,
    no_verify: bool,
) -> Result<Committed> {
    let applied = apply(ledger, &item.proposal, &today()).map_err(|c| Error::Conflict {
        id: item.proposal.id.clone(),
        message: c.to_string(),
    })?;
    let writes = applied
        .files
        .iter()
        .map(|f| FileWrite {
            path: fact_path(&f.name),
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
        reviewer: git::reviewer(&ws.location)?,
        note,
        rebased: applied.rebased,
        edited: item.edited,
    };
    record(ws, &item.path, decision, writes, no_verify)
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
        reviewer: git::reviewer(&ws.location)?,
        note: reason.filter(|r| !r.trim().is_empty()),
        rebased: false,
        edited: item.edited,
    };
    record(ws, &item.path, decision, Vec::new(), no_verify)
}

fn record(
    ws: &Workspace,
    proposal_path: &Path,
    decision: Decision,
    writes: Vec<FileWrite>,
    no_verify: bool,
) -> Result<Committed> {
    let change = LedgerCommit {
        writes,
        deletes: vec![slash_path(&ws.relative(proposal_path))],
        message: decision.message(),
    };
    git::commit(&ws.location, &change, no_verify)
}

fn slash_path(p: &Path) -> String {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}
