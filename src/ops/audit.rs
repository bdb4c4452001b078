//! `verify` and `diff`: what a range of commits did to the facts.

use serde::Serialize;

use crate::git::history::{examine, proposals_at, resolve_range};
use crate::model::audit::{audit, Violation};
use crate::model::summary::{summarize, Summary};
use crate::ops::{Result, Workspace};

/// The outcome of `mneme verify` (the `--json` shape, docs/json.md).
#[derive(Debug, Serialize)]
pub struct Verification {
    pub range: String,
    pub commits: usize,
    pub decisions: usize,
    pub violations: Vec<Violation>,
    pub notes: Vec<Violation>,
}

/// Audits `range` (or the default range): every fact change must be a matching decision.
pub fn verify(ws: &Workspace, range: Option<&str>) -> Result<Verification> {
    let range = resolve_range(&ws.repo, range)?;
    let commits = examine(&ws.repo, &range)?;
    let audit = audit(&commits);
    Ok(Verification {
        range: range.label,
        commits: commits.len(),
        decisions: commits.iter().filter(|c| c.decision.is_some()).count(),
        violations: audit.violations,
        notes: audit.notes,
    })
}

/// The fact-level summary of `range` (or the default range).
pub fn diff(ws: &Workspace, range: Option<&str>) -> Result<Summary> {
    let range = resolve_range(&ws.repo, range)?;
    let commits = examine(&ws.repo, &range)?;
    let pending = proposals_at(&ws.repo, range.head)?;
    Ok(summarize(&range.label, &commits, &pending))
}
