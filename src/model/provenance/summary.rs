//! The summary behind `mneme diff`: what a range of commits did to the facts, fact by fact.
//! Pure over examined commits.

use serde::Serialize;

use crate::model::base::paths;
use crate::model::base::textdiff::unified;
use crate::model::facts::ledger::Ledger;
use crate::model::proposals::plan::{competing, Competing, Similar};
use crate::model::proposals::preview::{preview, Status};
use crate::model::proposals::proposal::{OpKind, Operation, Proposal};
use crate::model::proposals::queue::{targets, Queue};
use crate::model::proposals::secrets;
use crate::model::provenance::audit::{Audit, Examined};
use crate::model::provenance::decision::{Recorded, Verdict};

/// What happened to a fact in a summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    Added,
    Updated,
    Removed,
    Superseded,
    /// Confirmed as still true.
    Verified,
    /// Moved to another state.
    State,
    /// Relations added or removed.
    Related,
}

/// One fact-level entry of a range summary.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub kind: EntryKind,
    pub fact: String,
    pub file: String,
    pub old: Option<String>,
    pub new: Option<String>,
    /// With `superseded`: the replacement's id.
    pub replaced_by: Option<String>,
    pub proposed_by: Option<String>,
    pub approved_by: Option<String>,
    pub reason: String,
    pub commit: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Rejection {
    pub proposal: String,
    pub subject: String,
    pub proposed_by: Option<String>,
    pub rejected_by: Option<String>,
    pub reason: String,
    pub commit: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PendingLine {
    pub id: String,
    pub agent: Option<String>,
    pub operations: Vec<String>,
    /// Added to the repository within the range.
    pub opened_in_range: bool,
    /// What approving it would do to the range's head (`diff` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<PendingReview>,
}

/// The operation's summary, its text withheld when it holds what looks like a credential: the
/// summary goes to pull-request comments and CI logs, which reach more people than the branch.
fn withheld_summary(op: &Operation) -> String {
    match op.text().and_then(secrets::withheld) {
        Some(withheld) => format!("{} {} {withheld}", op.kind().as_str(), op.text_fact_id()),
        None => op.summary(),
    }
}

/// What a reviewer of a pull request needs of a pending proposal: what approving it would do
/// to the facts at the pull request's head, and what else says the same.
#[derive(Debug, Clone, Serialize)]
pub struct PendingReview {
    /// [`Proposal::pin`]: the summary's commands name it, so that an approval by comment is of
    /// the text the summary showed.
    pub pin: String,
    pub reason: String,
    /// Every citation of the proposal and its operations, each once.
    pub evidence: Vec<String>,
    pub status: Status,
    /// Why it cannot be approved as it is (a conflict, a refused text); `null` when it can.
    pub problem: Option<String>,
    /// The fact files' unified diff once approved; empty when it cannot be.
    pub diff: String,
    /// Facts and pending proposals that read alike.
    pub similar: Vec<Similar>,
    /// Other pending proposals that act on a fact this one acts on.
    pub competing: Vec<Competing>,
}

impl PendingReview {
    /// `proposal` judged against `ledger` and the pending `queue` as `review` would judge it.
    pub fn of(ledger: &Ledger, queue: &Queue, proposal: &Proposal, today: &str) -> PendingReview {
        let mut evidence = proposal.evidence.clone();
        for op in &proposal.operations {
            for e in proposal.evidence_of(op) {
                if !evidence.contains(e) {
                    evidence.push(e.clone());
                }
            }
        }
        let competing = competing(&targets(proposal), &proposal.id, queue.parsed());
        if let Err(e) = proposal.validate(&ledger.limits()) {
            return PendingReview {
                pin: proposal.pin(),
                reason: proposal.reason.clone(),
                evidence,
                status: Status::Invalid,
                problem: Some(e.to_string()),
                diff: String::new(),
                similar: Vec::new(),
                competing,
            };
        }
        let p = preview(ledger, queue, proposal, today);
        let secret = proposal.secrets().into_iter().next();
        let (problem, diff) = match &p.outcome {
            // The diff would show the credential: the reason alone is shown.
            _ if secret.is_some() => (
                secret.map(|(field, secret)| {
                    let field = match field.strip_prefix("operations[") {
                        Some(rest) => {
                            let n: usize = rest.split(']').next().and_then(|n| n.parse().ok()).unwrap_or(0);
                            format!("the text of operation {}", n + 1)
                        }
                        None => format!("its {field}"),
                    };
                    format!("{field} holds what looks like {secret}: reject it, and rotate the credential")
                }),
                String::new(),
            ),
            Ok(applied) => (
                None,
                applied
                    .files
                    .iter()
                    .map(|f| unified(&paths::fact_file(&f.name), &f.old, &f.new, 1))
                    .collect(),
            ),
            Err(conflict) => (Some(conflict.to_string()), String::new()),
        };
        PendingReview {
            pin: proposal.pin(),
            reason: proposal.reason.clone(),
            evidence,
            status: p.status(),
            problem,
            diff,
            // The proposal reads like itself in the queue it belongs to; another's credential
            // is not repeated.
            similar: p
                .similar
                .into_iter()
                .filter(|s| s.proposal.as_deref() != Some(proposal.id.as_str()))
                .map(|mut s| {
                    if let Some(withheld) = secrets::withheld(&s.text) {
                        s.text = withheld;
                    }
                    s
                })
                .collect(),
            competing,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub range: String,
    pub added: Vec<Entry>,
    pub updated: Vec<Entry>,
    pub removed: Vec<Entry>,
    pub superseded: Vec<Entry>,
    /// Facts verified, moved to another state or re-related: the text stays.
    pub reexamined: Vec<Entry>,
    pub rejected: Vec<Rejection>,
    pub pending: Vec<PendingLine>,
    /// Commits that changed facts without review (details from `mneme verify`).
    pub unreviewed_commits: usize,
    /// Where the facts at the head are not what its decision records approved, a line each.
    pub record_problems: Vec<String>,
}

impl Summary {
    /// The fact sections in display order: added, updated, superseded, removed, re-examined.
    pub fn sections(&self) -> [(&'static str, &[Entry]); 5] {
        [
            ("Added", &self.added),
            ("Updated", &self.updated),
            ("Superseded", &self.superseded),
            ("Removed", &self.removed),
            ("Verified, state or relations changed", &self.reexamined),
        ]
    }
}

/// The fact-level summary of `commits`, as `audit` judged them; `pending` are the proposals in
/// the head commit.
pub fn summarize(
    range: &str,
    commits: &[Examined],
    audit: &Audit,
    pending: &[Proposal],
) -> Summary {
    let mut s = Summary {
        range: range.to_owned(),
        added: Vec::new(),
        updated: Vec::new(),
        removed: Vec::new(),
        superseded: Vec::new(),
        reexamined: Vec::new(),
        rejected: Vec::new(),
        pending: Vec::new(),
        unreviewed_commits: audit.violations.len(),
        record_problems: Vec::new(),
    };
    for c in commits {
        match &c.decision {
            Some(d) if d.verdict == Verdict::Approve => s.add_approval(c, d),
            Some(d) => s.rejected.push(Rejection {
                proposal: d.proposal.clone(),
                subject: c.subject.clone(),
                proposed_by: d.proposed_by.clone(),
                rejected_by: d.reviewer_name(),
                reason: d.reason.clone(),
                commit: c.id.clone(),
            }),
            None => {}
        }
    }
    s.pending = pending
        .iter()
        .map(|p| PendingLine::new(p, commits))
        .collect();
    s
}

impl Summary {
    /// One entry per operation of an approval, with the text before and after from the commit.
    fn add_approval(&mut self, c: &Examined, d: &Recorded) {
        let found = c.change.found();
        let text = |id: &str| found.iter().find(|f| f.fact == id);
        let old = |id: &str| text(id).and_then(|f| f.old.clone());
        let new = |id: &str| text(id).and_then(|f| f.new.clone());
        for op in &d.operations {
            let Some(id) = op.fact_ids.first() else {
                continue;
            };
            let entry = |kind, old, new, replaced_by| Entry {
                kind,
                fact: id.clone(),
                file: op.file.clone(),
                old,
                new,
                replaced_by,
                proposed_by: d.proposed_by.clone(),
                approved_by: d.reviewer_name(),
                reason: d.reason.clone(),
                commit: c.id.clone(),
            };
            match op.op {
                OpKind::Add => self
                    .added
                    .push(entry(EntryKind::Added, None, new(id), None)),
                OpKind::Update => {
                    self.updated
                        .push(entry(EntryKind::Updated, old(id), new(id), None));
                }
                OpKind::Remove => self
                    .removed
                    .push(entry(EntryKind::Removed, old(id), None, None)),
                OpKind::Supersede => {
                    let new_id = op.fact_ids.get(1).cloned();
                    let new_text = new_id.as_deref().and_then(new);
                    self.superseded
                        .push(entry(EntryKind::Superseded, old(id), new_text, new_id));
                }
                OpKind::Verify | OpKind::State | OpKind::Relate => {
                    let kind = match op.op {
                        OpKind::Verify => EntryKind::Verified,
                        OpKind::State => EntryKind::State,
                        _ => EntryKind::Related,
                    };
                    self.reexamined.push(entry(kind, old(id), new(id), None));
                }
            }
        }
    }
}

impl PendingLine {
    /// A proposal pending at the head; opened in the range when a commit of `commits` added it.
    pub fn new(p: &Proposal, commits: &[Examined]) -> PendingLine {
        let name = p.file_name();
        PendingLine {
            id: p.id.clone(),
            agent: p.agent.clone(),
            operations: p.operations.iter().map(withheld_summary).collect(),
            opened_in_range: commits.iter().any(|c| c.added_proposals.contains(&name)),
            review: None,
        }
    }
}
