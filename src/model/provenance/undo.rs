//! Undoing an approval: the operations that take the facts back to what they were before it,
//! as a new proposal to review. Nothing in history is rewritten. Pure: the decision (with the
//! texts it changed) and the ledger as it is now.

use crate::model::facts::ledger::Ledger;
use crate::model::proposals::plan::RequestOp;
use crate::model::proposals::proposal::OpKind;
use crate::model::provenance::decision::{Recorded, Verdict};

/// Why an approval cannot be undone by a proposal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UndoError {
    #[error("{commit} is a rejection: nothing changed to undo (propose the change again instead)")]
    Rejection { commit: String },
    #[error("{commit} {op} {fact}, which has no inverse mneme can propose: propose the {what} you want (`mneme propose {op} {fact} …`)")]
    NoInverse {
        commit: String,
        op: &'static str,
        fact: String,
        what: &'static str,
    },
    #[error("the text {fact} had before this decision is in no commit of this history ({commit} landed it together with later changes): propose the text you want (`mneme propose update {fact} …`)")]
    Lost { commit: String, fact: String },
    #[error("the facts are already as they were before {commit}: nothing to undo")]
    Nothing { commit: String },
}

/// The operations that undo the approval `d` (read with its `changes`), against the facts as
/// `ledger` holds them now: an added fact is removed, an updated one gets its old text back, a
/// removed one is added again (under a new id), a superseding fact is removed and the fact it
/// replaced made active again. A fact already back as it was is left alone.
pub fn undo(d: &Recorded, ledger: &Ledger) -> Result<Vec<RequestOp>, UndoError> {
    let commit: String = d.commit.chars().take(10).collect();
    if d.verdict == Verdict::Reject {
        return Err(UndoError::Rejection { commit });
    }
    let old_text = |fact: &str| {
        d.changes
            .iter()
            .find(|c| c.fact == fact)
            .and_then(|c| c.old.clone())
    };
    let now = |fact: &str| ledger.find(fact).map(|(_, f)| f.text.clone());
    // The text goes back; what the fact cites stays (the undo's own evidence is its commit).
    let cites = |fact: &str| {
        ledger
            .find(fact)
            .map(|(_, f)| f.meta.evidence.clone())
            .unwrap_or_default()
    };
    let mut ops = Vec::new();
    for op in &d.operations {
        let fact = op.fact_ids.first().cloned().unwrap_or_default();
        // Known only by its record, a decision's old text is read from where it landed: a
        // squash of several decisions keeps only the first one's.
        let needs_old = matches!(op.op, OpKind::Update | OpKind::Remove);
        if d.record.is_some() && needs_old && old_text(&fact).is_none() {
            return Err(UndoError::Lost { commit, fact });
        }
        match op.op {
            OpKind::Add if now(&fact).is_some() => ops.push(RequestOp::Remove { fact_id: fact }),
            OpKind::Update => match (old_text(&fact), now(&fact)) {
                (Some(old), Some(current)) if old != current => ops.push(RequestOp::Update {
                    evidence: cites(&fact),
                    fact_id: fact,
                    text: old,
                    relations: Default::default(),
                    scope: Vec::new(),
                }),
                _ => {}
            },
            OpKind::Remove => {
                if let (Some(old), None) = (old_text(&fact), now(&fact)) {
                    ops.push(RequestOp::Add {
                        file: op.file.trim_end_matches(".md").to_owned(),
                        text: old,
                        relations: Default::default(),
                        evidence: Vec::new(),
                        scope: Vec::new(),
                    });
                }
            }
            OpKind::Supersede => {
                if let Some(new) = op.fact_ids.get(1).filter(|new| now(new).is_some()) {
                    ops.push(RequestOp::Remove {
                        fact_id: new.clone(),
                    });
                }
                if now(&fact).is_some() {
                    ops.push(RequestOp::State {
                        fact_id: fact,
                        state: "active".into(),
                    });
                }
            }
            OpKind::Add => {}
            kind @ (OpKind::Verify | OpKind::State | OpKind::Relate) => {
                let what = match kind {
                    OpKind::Verify => "verification",
                    OpKind::State => "state",
                    _ => "relations",
                };
                return Err(UndoError::NoInverse {
                    commit,
                    op: kind.as_str(),
                    fact,
                    what,
                });
            }
        }
    }
    if ops.is_empty() {
        return Err(UndoError::Nothing { commit });
    }
    Ok(ops)
}
