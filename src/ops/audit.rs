//! `verify` and `diff`: what a range of commits did to the facts.

use serde::Serialize;

use crate::git::history::{
    examine, facts_of, fork_point, proposals_at, resolve_range, text_at, Range,
};
use crate::git::Repo;
use crate::model::base::config::Config;
use crate::model::base::paths;
use crate::model::evidence::drift::Drifted;
use crate::model::facts::ledger::{FactFileEntry, Ledger};
use crate::model::proposals::queue::Queue;
use crate::model::provenance::annotations::FactLines;
use crate::model::provenance::audit::{audit, Audit, Examined, Violation};
use crate::model::provenance::net::{net_summary, NetSummary, RangeEnds};
use crate::model::provenance::record::State;
use crate::model::provenance::signing::AllowedSigners;
use crate::model::provenance::summary::{summarize, PendingReview, Summary};
use crate::ops::records::state_at;
use crate::ops::review::today;
use crate::ops::stale::{drifted, watched};
use crate::ops::{rules, Result, Workspace};
use crate::store::Kind;

/// The outcome of `mneme verify` (the `--json` shape, docs/json.md).
#[derive(Debug, Serialize)]
pub struct Verification {
    pub range: String,
    pub commits: usize,
    pub decisions: usize,
    pub violations: Vec<Violation>,
    pub notes: Vec<Violation>,
    /// Whether decisions must be signed, and by which keys; `null` without allowed_signers.
    pub signatures: Option<Signatures>,
    /// The facts (at the range's head) whose cited files the range changed after they were last
    /// vouched for: the facts to re-check. They do not fail the verification.
    pub recheck: Vec<Drifted>,
    /// The facts at the range's head against the decision records in its tree; `null` for a
    /// ledger without records.
    pub state: Option<State>,
    /// The rule files compiled from the ledger (`compile:`) that the range's head holds other
    /// than its ledger compiles them: written by hand, or left behind.
    pub compiled: rules::Drift,
    /// Where each fact of the range's head is, for annotations; not part of the JSON.
    #[serde(skip)]
    pub fact_lines: FactLines,
}

impl Verification {
    /// Whether the range passes: no unreviewed change, the facts as the records left them, and
    /// the rule files as the ledger compiles them.
    pub fn passes(&self) -> bool {
        self.violations.is_empty()
            && self.state.as_ref().is_none_or(State::holds)
            && self.compiled.is_empty()
    }
}

/// The `allowed_signers` a verification used.
#[derive(Debug, Serialize)]
pub struct Signatures {
    /// The commit the file was read from: the tip the range is merged into (`A` of `A..B`, or
    /// the upstream of the default range), so a range can neither allow its own keys nor use
    /// one the target has revoked since it forked; the head when the range is all of history.
    pub from: String,
    pub keys: usize,
    /// Lines that allow nobody, with why.
    pub skipped: Vec<String>,
    /// The range's head has another file: its change applies once it is merged.
    pub changed_in_range: bool,
}

/// A range with its commits examined and judged.
struct Judged {
    range: Range,
    fork: Option<gix::ObjectId>,
    /// How many commits the range has; `commits` holds those that decide or change the ledger.
    count: usize,
    commits: Vec<Examined>,
    audit: Audit,
    signatures: Option<Signatures>,
    signers: Option<AllowedSigners>,
}

fn judge(ws: &Workspace, range: Range) -> Result<Judged> {
    let walked = examine(&ws.repo, &range)?;
    let fork = fork_point(&ws.repo, &range, &walked)?;
    // The keys the target trusts now decide, whenever the branch forked: a range cannot allow
    // its own keys, nor sign with one the target has revoked since. All of history is held to
    // the keys it ends with.
    let at_head = text_at(
        &ws.repo,
        range.head,
        paths::ALLOWED_SIGNERS,
        Kind::AllowedSigners,
    )?;
    let (from, at_target) = match range.target {
        Some(t) => (
            t,
            text_at(&ws.repo, t, paths::ALLOWED_SIGNERS, Kind::AllowedSigners)?,
        ),
        None => (range.head, at_head.clone()),
    };
    let signers = at_target.as_deref().map(AllowedSigners::parse);
    let audit = audit(&walked.examined, signers.as_ref());
    let signatures = signers.as_ref().map(|s| Signatures {
        from: from.to_string(),
        keys: s.signers.len(),
        skipped: s.skipped.clone(),
        changed_in_range: at_target != at_head,
    });
    Ok(Judged {
        range,
        fork,
        count: walked.count,
        commits: walked.examined,
        audit,
        signatures,
        signers,
    })
}

/// Audits `range` (or the default range): every fact change must be a matching decision, and
/// with `.ledger/allowed_signers`, every decision signed by a listed key.
pub fn verify(ws: &Workspace, range: Option<&str>) -> Result<Verification> {
    let range = resolve_range(&ws.repo, range)?;
    let root = ws.repo.root().to_owned();
    // The drift walk reads other objects than the audit and costs as much: it runs beside it, on
    // its own repository handle (gix's handles are not shared across threads).
    let (j, recheck) = std::thread::scope(|scope| {
        let recheck = scope.spawn(|| recheck(&Repo::discover(&root)?, &range));
        let j = judge(ws, range.clone());
        let recheck = recheck
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (j, recheck)
    });
    let mut j = j?;
    let state = reconcile(ws, &mut j)?;
    let (recheck, fact_lines) = recheck?;
    let compiled = rules::out_of_date_at(&ws.repo, j.range.head)?;
    Ok(Verification {
        compiled,
        recheck,
        fact_lines,
        range: j.range.label,
        commits: j.count,
        decisions: j.commits.iter().filter(|c| c.decision.is_some()).count(),
        violations: j.audit.violations,
        notes: j.audit.notes,
        signatures: j.signatures,
        state,
    })
}

/// The state of the range's head by its decision records (`None` for a ledger without them),
/// with the audit reconciled to it: what the records explain is history that carried approvals
/// (a squash, a rebase merge, a cherry-pick), noted, never unreviewed. Every view of a range
/// (`verify`, `diff`, `diff --by-commit`) judges it so.
fn reconcile(ws: &Workspace, j: &mut Judged) -> Result<Option<State>> {
    let state = state_at(&ws.repo, j.range.head, j.fork, j.signers.as_ref())?;
    if let Some(state) = &state {
        j.audit.explain_by_records(state);
    }
    Ok(state)
}

/// The facts at the head of `range` whose cited files the range changed since they were vouched
/// for, and where each fact of the head is.
fn recheck(repo: &Repo, range: &Range) -> Result<(Vec<Drifted>, FactLines)> {
    let files = facts_of(repo, Some(range.head))?;
    let parsed: Vec<FactFileEntry> = files
        .into_iter()
        .filter_map(|(name, raw)| FactFileEntry::parse(name, raw).ok())
        .collect();
    let mut lines = FactLines::new();
    for entry in &parsed {
        for fact in entry.file().facts() {
            if let Some(id) = &fact.id {
                lines.insert(id.clone(), (paths::fact_file(&entry.name), fact.line));
            }
        }
    }
    Ok((drifted(repo, range, &watched(&parsed))?.facts, lines))
}

/// The net change of `range` (or the default range), fact by fact.
pub fn diff(ws: &Workspace, range: Option<&str>) -> Result<NetSummary> {
    let mut j = judge(ws, resolve_range(&ws.repo, range)?)?;
    let state = reconcile(ws, &mut j)?;
    let Judged {
        range,
        fork,
        commits,
        audit,
        ..
    } = j;
    let pending = proposals_at(&ws.repo, range.head)?;
    let before = facts_of(&ws.repo, fork)?;
    let after = facts_of(&ws.repo, Some(range.head))?;
    let ends = RangeEnds {
        label: &range.label,
        base: fork.map(|id| id.to_string()),
        head: range.head.to_string(),
        before: &before,
        after: &after,
    };
    let mut net = net_summary(&ends, &commits, &audit, &pending);
    if let Some(state) = &state {
        net.judged_by_records(state);
    }
    // Each pending proposal as a reviewer of the head would see it.
    let config = text_at(&ws.repo, range.head, paths::CONFIG, Kind::Config)?
        .and_then(|text| Config::parse(&text).ok())
        .unwrap_or_default();
    let ledger = Ledger::from_texts(after.clone(), config);
    let queue = Queue::of(&pending, &ledger.limits());
    let today = today();
    for (line, p) in net.pending.iter_mut().zip(&pending) {
        line.review = Some(PendingReview::of(&ledger, &queue, p, &today));
    }
    Ok(net)
}

/// What each commit of `range` (or the default range) did to the facts (`diff --by-commit`).
pub fn diff_by_commit(ws: &Workspace, range: Option<&str>) -> Result<Summary> {
    let mut j = judge(ws, resolve_range(&ws.repo, range)?)?;
    let state = reconcile(ws, &mut j)?;
    let pending = proposals_at(&ws.repo, j.range.head)?;
    let mut summary = summarize(&j.range.label, &j.commits, &j.audit, &pending);
    summary.record_problems = state.map(|s| s.problems()).unwrap_or_default();
    Ok(summary)
}
