//! A change to one fact between two versions of the ledger.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Removed,
    Changed,
    /// The ledger now holds the fact more than once (two items with one id): never a reviewed
    /// change, since readers would see two statements under one id.
    Duplicated,
}

impl ChangeKind {
    /// `was added`, for messages.
    pub fn past(self) -> &'static str {
        match self {
            ChangeKind::Added => "was added",
            ChangeKind::Removed => "was removed",
            ChangeKind::Changed => "was changed",
            ChangeKind::Duplicated => "was duplicated",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Changed => "changed",
            ChangeKind::Duplicated => "duplicated",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FactChange {
    /// The fact id, or `(no id) <text>` for a fact without one.
    pub fact: String,
    pub kind: ChangeKind,
    pub file: String,
    pub old: Option<String>,
    pub new: Option<String>,
}
