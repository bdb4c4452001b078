//! What approving a proposal would do now: the diff, or the conflict, and similar facts.

use serde::Serialize;

use crate::model::facts::file::line_count;
use crate::model::facts::ledger::Ledger;
use crate::model::proposals::apply::{apply, Applied, Conflict};
use crate::model::proposals::plan::{similar_to, Similar};
use crate::model::proposals::proposal::{OpKind, Proposal};
use crate::model::proposals::queue::Queue;

/// What approving a proposal would do now.
#[derive(Debug, Clone)]
pub struct Preview {
    pub outcome: Result<Applied, Conflict>,
    pub similar: Vec<Similar>,
    /// The budget once approved; absent when it does not apply.
    pub budget: Option<BudgetAfter>,
    /// The facts whose citations the approval would change.
    pub evidence: Vec<EvidenceChange>,
}

/// A fact's evidence before and after an approval: a reviewer sees a citation dropped or
/// replaced, not only a text changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvidenceChange {
    pub fact: String,
    pub before: Vec<String>,
    pub after: Vec<String>,
}

/// The facts of `proposal` that already exist and whose evidence it would replace.
fn evidence_changes(ledger: &Ledger, proposal: &Proposal) -> Vec<EvidenceChange> {
    proposal
        .operations
        .iter()
        .filter(|op| op.kind() != OpKind::Add)
        .filter_map(|op| {
            let (_, fact) = ledger.find(op.fact_id())?;
            let after = proposal.evidence_of(op);
            (!after.is_empty() && after != fact.meta.evidence.as_slice()).then(|| EvidenceChange {
                fact: op.text_fact_id().to_owned(),
                before: fact.meta.evidence.clone(),
                after: after.to_vec(),
            })
        })
        .collect()
}

/// Lines of all fact files after an approval, against `budget_lines`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BudgetAfter {
    pub lines: usize,
    pub limit: usize,
}

impl BudgetAfter {
    /// The budget of `ledger` once `applied` is written.
    pub fn of(ledger: &Ledger, applied: &Applied) -> BudgetAfter {
        let lines = applied.files.iter().fold(ledger.total_lines(), |total, f| {
            total + line_count(&f.new) - line_count(&f.old)
        });
        BudgetAfter {
            lines,
            limit: ledger.config.budget_lines,
        }
    }

    pub fn over(&self) -> bool {
        self.lines > self.limit
    }
}

impl Preview {
    pub fn status(&self) -> Status {
        Status::of(&self.outcome)
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
    /// The proposal file breaks the rules `propose` enforces: only reject.
    Invalid,
}

impl Status {
    pub fn of(outcome: &Result<Applied, Conflict>) -> Status {
        Status::checked(outcome.as_ref().map(|a| a.rebased))
    }

    /// From [`check`](crate::model::proposals::apply::check): `Ok(rebased)` or the conflict.
    pub fn checked<E>(rebased: Result<bool, E>) -> Status {
        match rebased {
            Ok(true) => Status::Rebased,
            Ok(false) => Status::Clean,
            Err(_) => Status::Conflict,
        }
    }
}

/// What approving `proposal` would do now, with the facts and the `others` pending proposals
/// that say something similar.
pub fn preview(ledger: &Ledger, others: &Queue, proposal: &Proposal, today: &str) -> Preview {
    let outcome = apply(ledger, proposal, today);
    let budget = outcome.as_ref().ok().map(|a| BudgetAfter::of(ledger, a));
    Preview {
        outcome,
        similar: proposal
            .operations
            .iter()
            .enumerate()
            .flat_map(|(i, op)| similar_to(ledger, others.parsed(), i, op))
            .collect(),
        budget,
        evidence: evidence_changes(ledger, proposal),
    }
}
