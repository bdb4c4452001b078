//! What approving a proposal would do now: the diff, or the conflict, and similar facts.

use serde::Serialize;

use crate::model::apply::{apply, Applied, Conflict};
use crate::model::ledger::Ledger;
use crate::model::plan::{similar_to, Similar};
use crate::model::proposal::Proposal;

/// What approving a proposal would do now.
#[derive(Debug, Clone)]
pub struct Preview {
    pub outcome: Result<Applied, Conflict>,
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
    /// The proposal file breaks the rules `propose` enforces: only reject.
    Invalid,
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
