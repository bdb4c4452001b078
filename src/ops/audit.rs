//! `verify` and `diff`: what a range of commits did to the facts.

use serde::Serialize;

use crate::git::history::{examine, facts_of, fork_point, proposals_at, resolve_range};
use crate::model::audit::{audit, Violation};
use crate::model::net::{net_summary, NetSummary, RangeEnds};
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

/// The net change of `range` (or the default range), fact by fact.
pub fn diff(ws: &Workspace, range: Option<&str>) -> Result<NetSummary> {
    let range = resolve_range(&ws.repo, range)?;
    let commits = examine(&ws.repo, &range)?;
    let pending = proposals_at(&ws.repo, range.head)?;
    let fork = fork_point(&ws.repo, &range)?;
    let before = facts_of(&ws.repo, fork)?;
    let after = facts_of(&ws.repo, Some(range.head))?;
    let ends = RangeEnds {
        label: &range.label,
        base: fork.map(|id| id.to_string()),
        head: range.head.to_string(),
        before: &before,
        after: &after,
    };
    Ok(net_summary(&ends, &commits, &pending))
}

/// What each commit of `range` (or the default range) did to the facts (`diff --by-commit`).
pub fn diff_by_commit(ws: &Workspace, range: Option<&str>) -> Result<Summary> {
    let range = resolve_range(&ws.repo, range)?;
    let commits = examine(&ws.repo, &range)?;
    let pending = proposals_at(&ws.repo, range.head)?;
    Ok(summarize(&range.label, &commits, &pending))
}
