//! Proposals: the JSON files agents write under `.ledger/proposals/` (docs/format.md). Planning
//! one from a request lives in `plan`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::ids::sha256_hex;
use crate::model::time::Timestamp;

/// Version of the proposal file format; bumped on incompatible changes.
pub const SCHEMA: u32 = 1;
/// Prefix of fact ids.
pub const FACT_PREFIX: &str = "f";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Proposal {
    pub schema: u32,
    pub id: String,
    pub created_at: String,
    pub agent: Option<String>,
    /// The git identity (`Name <email>`) of whoever ran the agent, when configured.
    pub author: Option<String>,
    pub reason: String,
    pub evidence: Vec<String>,
    pub operations: Vec<Operation>,
    /// SHA-256 of each fact file the proposal touches, as it was when proposed.
    pub base: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
pub enum Operation {
    Add {
        file: String,
        fact_id: String,
        text: String,
    },
    Update {
        file: String,
        fact_id: String,
        /// The fact's text when proposed: a review compares it to detect a conflicting change.
        before: String,
        text: String,
    },
    Remove {
        file: String,
        fact_id: String,
        before: String,
    },
    Supersede {
        file: String,
        fact_id: String,
        before: String,
        new_fact_id: String,
        text: String,
    },
}

/// What an operation does to the facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Add,
    Update,
    Remove,
    Supersede,
}

impl OpKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Add => "add",
            OpKind::Update => "update",
            OpKind::Remove => "remove",
            OpKind::Supersede => "supersede",
        }
    }

    pub fn parse(s: &str) -> Option<OpKind> {
        [
            OpKind::Add,
            OpKind::Update,
            OpKind::Remove,
            OpKind::Supersede,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

impl Operation {
    pub fn kind(&self) -> OpKind {
        match self {
            Operation::Add { .. } => OpKind::Add,
            Operation::Update { .. } => OpKind::Update,
            Operation::Remove { .. } => OpKind::Remove,
            Operation::Supersede { .. } => OpKind::Supersede,
        }
    }

    /// Ids of the facts the operation names: the target, and for a supersede the new fact.
    pub fn fact_ids(&self) -> Vec<String> {
        match self {
            Operation::Supersede {
                fact_id,
                new_fact_id,
                ..
            } => vec![fact_id.clone(), new_fact_id.clone()],
            _ => vec![self.fact_id().to_owned()],
        }
    }

    pub fn file(&self) -> &str {
        match self {
            Operation::Add { file, .. }
            | Operation::Update { file, .. }
            | Operation::Remove { file, .. }
            | Operation::Supersede { file, .. } => file,
        }
    }

    /// The fact the operation creates or changes.
    pub fn fact_id(&self) -> &str {
        match self {
            Operation::Add { fact_id, .. }
            | Operation::Update { fact_id, .. }
            | Operation::Remove { fact_id, .. }
            | Operation::Supersede { fact_id, .. } => fact_id,
        }
    }

    /// Ids of facts the operation brings into existence.
    pub fn new_id(&self) -> Option<&str> {
        match self {
            Operation::Add { fact_id, .. } => Some(fact_id),
            Operation::Supersede { new_fact_id, .. } => Some(new_fact_id),
            _ => None,
        }
    }

    /// The targeted fact's text when the proposal was made (not for `add`).
    pub fn before(&self) -> Option<&str> {
        match self {
            Operation::Update { before, .. }
            | Operation::Remove { before, .. }
            | Operation::Supersede { before, .. } => Some(before),
            Operation::Add { .. } => None,
        }
    }

    /// Replaces the proposed text (a human edit during review).
    pub fn set_text(&mut self, new: String) {
        match self {
            Operation::Add { text, .. }
            | Operation::Update { text, .. }
            | Operation::Supersede { text, .. } => *text = new,
            Operation::Remove { .. } => {}
        }
    }

    /// Re-targets the operation at the fact's current text (a human resolved a conflict).
    pub fn set_before(&mut self, new: String) {
        match self {
            Operation::Update { before, .. }
            | Operation::Remove { before, .. }
            | Operation::Supersede { before, .. } => *before = new,
            Operation::Add { .. } => {}
        }
    }

    pub fn text(&self) -> Option<&str> {
        match self {
            Operation::Add { text, .. }
            | Operation::Update { text, .. }
            | Operation::Supersede { text, .. } => Some(text),
            Operation::Remove { .. } => None,
        }
    }

    /// `add f-k3x9q to architecture.md: We use …` on one line.
    pub fn summary(&self) -> String {
        let text = self
            .text()
            .map(|t| format!(": {}", t.split_whitespace().collect::<Vec<_>>().join(" ")))
            .unwrap_or_default();
        match self {
            Operation::Add { file, fact_id, .. } => format!("add {fact_id} to {file}{text}"),
            Operation::Supersede {
                fact_id,
                new_fact_id,
                ..
            } => format!("supersede {fact_id} with {new_fact_id}{text}"),
            _ => format!("{} {}{text}", self.kind().as_str(), self.fact_id()),
        }
    }
}

/// Why a proposal file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProposalError {
    /// Not readable as UTF-8 JSON at all.
    #[error("{0}")]
    Syntax(String),
    /// JSON, but not a proposal of the supported schema.
    #[error("{0}")]
    Schema(String),
}

impl Proposal {
    pub fn parse(json: &str) -> Result<Proposal, ProposalError> {
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(|e| ProposalError::Syntax(e.to_string()))?;
        let p: Proposal =
            serde_json::from_value(value).map_err(|e| ProposalError::Schema(e.to_string()))?;
        if p.schema != SCHEMA {
            return Err(ProposalError::Schema(format!(
                "schema {} is not supported (this mneme reads schema {SCHEMA}); upgrade mneme",
                p.schema
            )));
        }
        Ok(p)
    }

    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("proposals serialize");
        s.push('\n');
        s
    }

    pub fn file_name(&self) -> String {
        format!("{}.json", self.id)
    }

    pub fn created(&self) -> Option<Timestamp> {
        Timestamp::parse(&self.created_at)
    }

    /// Picks a new random-looking suffix for the id, after a name collision.
    pub fn rehash_id(&mut self) {
        let (stamp, hash) = self.id.rsplit_once('-').unwrap_or((&self.id, ""));
        let next = &sha256_hex(format!("{}{hash}", self.id).as_bytes())[..8];
        self.id = format!("{stamp}-{next}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_kinds_round_trip() {
        for k in [
            OpKind::Add,
            OpKind::Update,
            OpKind::Remove,
            OpKind::Supersede,
        ] {
            assert_eq!(OpKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(OpKind::parse("rename"), None);
    }
}
