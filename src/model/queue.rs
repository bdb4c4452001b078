//! The review queue as `propose`, `context` and `compact` read it: for each pending proposal,
//! only what the duplicate check, the id minter, the similarity search and a listing need. It
//! is built from parsed proposals, or kept between runs in the queue index of the git
//! directory, so these verbs do not re-read thousands of proposal files.

use crate::model::proposal::{Limits, Proposal};
use crate::model::text::{normalize, one_line, Words};
use crate::model::time::Timestamp;

/// The proposal files of `.ledger/proposals/`, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Queue {
    pub entries: Vec<Pending>,
}

/// One proposal file.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// The file name, `<id>.json`.
    pub name: String,
    /// `None` when the file does not parse (or is not named by its id).
    pub proposal: Option<PendingProposal>,
}

/// What the queue keeps of a proposal that parses.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingProposal {
    pub id: String,
    pub created: Option<Timestamp>,
    pub agent: Option<String>,
    /// Whether it passes [`Proposal::validate`] under the limits the queue was built with.
    pub valid: bool,
    /// The ids its operations reserve for new facts.
    pub new_ids: Vec<String>,
    pub texts: Vec<PendingText>,
}

/// A text the proposal would make a fact.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingText {
    /// The operation's fact file.
    pub file: String,
    /// The fact the text is for ([`crate::model::proposal::Operation::text_fact_id`]).
    pub fact_id: String,
    pub one_line: String,
    pub normalized: String,
    pub words: Words,
}

impl PendingProposal {
    /// The file it is in: a proposal file is named after the proposal it holds.
    pub fn file_name(&self) -> String {
        format!("{}.json", self.id)
    }

    pub fn of(p: &Proposal, limits: &Limits) -> PendingProposal {
        PendingProposal {
            id: p.id.clone(),
            created: p.created(),
            agent: p.agent.clone(),
            valid: p.validate(limits).is_ok(),
            new_ids: p
                .operations
                .iter()
                .filter_map(|o| o.new_id())
                .map(str::to_owned)
                .collect(),
            texts: p
                .operations
                .iter()
                .filter_map(|o| {
                    let text = o.text()?;
                    let normalized = normalize(text);
                    Some(PendingText {
                        file: o.file().to_owned(),
                        fact_id: o.text_fact_id().to_owned(),
                        one_line: one_line(text),
                        words: Words::of_normalized(&normalized),
                        normalized,
                    })
                })
                .collect(),
        }
    }
}

impl Queue {
    /// `entries` in review order: oldest first, then by id, then by file name.
    pub fn new(mut entries: Vec<Pending>) -> Queue {
        entries.sort_by(|a, b| {
            let key = |p: &Pending| p.proposal.as_ref().map(|p| (p.created, p.id.clone()));
            key(a).cmp(&key(b)).then_with(|| a.name.cmp(&b.name))
        });
        Queue { entries }
    }

    /// The queue of proposals already parsed, judged under `limits`.
    pub fn of<'p>(proposals: impl IntoIterator<Item = &'p Proposal>, limits: &Limits) -> Queue {
        Queue::new(
            proposals
                .into_iter()
                .map(|p| Pending {
                    name: p.file_name(),
                    proposal: Some(PendingProposal::of(p, limits)),
                })
                .collect(),
        )
    }

    /// The proposals that parse, valid or not, oldest first.
    pub fn parsed(&self) -> impl DoubleEndedIterator<Item = &PendingProposal> {
        self.entries.iter().filter_map(|e| e.proposal.as_ref())
    }

    /// The valid proposals, oldest first.
    pub fn valid(&self) -> impl DoubleEndedIterator<Item = &PendingProposal> {
        self.parsed().filter(|p| p.valid)
    }

    /// Proposal files that do not parse or are not valid.
    pub fn invalid(&self) -> usize {
        self.entries.len() - self.valid().count()
    }

    /// The parsed proposal one of whose texts normalises to `normalized`.
    pub fn proposing(&self, normalized: &str) -> Option<&PendingProposal> {
        self.parsed()
            .find(|p| p.texts.iter().any(|t| t.normalized == normalized))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::proposal::Operation;

    fn proposal(id: &str, created_at: &str, text: &str) -> Proposal {
        Proposal {
            schema: crate::model::proposal::SCHEMA,
            id: id.into(),
            created_at: created_at.into(),
            agent: Some("claude".into()),
            author: None,
            reason: "because".into(),
            evidence: vec![],
            operations: vec![Operation::Add {
                file: "pitfalls.md".into(),
                fact_id: format!("f-{}", &id[id.len() - 4..]),
                text: text.into(),
            }],
            base: Default::default(),
        }
    }

    #[test]
    fn keeps_review_order_ids_texts_and_validity() {
        let limits = Limits {
            max_fact_chars: 40,
            files: vec!["pitfalls.md".into()],
        };
        let newer = proposal(
            "20261122T100001Z-bbbbbbbb",
            "2026-11-22T10:00:01Z",
            "Never  block\nthe **executor**.",
        );
        let older = proposal(
            "20261122T100000Z-aaaaaaaa",
            "2026-11-22T10:00:00Z",
            "A statement far longer than the forty characters allowed.",
        );
        let q = Queue::of([&newer, &older], &limits);
        let ids: Vec<_> = q.parsed().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, [older.id.as_str(), newer.id.as_str()]);
        assert_eq!(q.invalid(), 1, "the older one breaks max_fact_chars");
        let first = q.valid().next().unwrap();
        assert_eq!(first.new_ids, ["f-bbbb"]);
        assert_eq!(first.texts[0].one_line, "Never block the **executor**.");
        assert_eq!(first.texts[0].fact_id, "f-bbbb");
        assert_eq!(
            q.proposing("never block the executor")
                .map(|p| p.id.as_str()),
            Some(newer.id.as_str())
        );
        assert!(q.proposing("never block").is_none());
    }
}
