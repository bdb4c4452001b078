//! Proposals: the JSON files agents write under `.ledger/proposals/`, and the pure planning step
//! that validates a request against the ledger and turns it into a proposal.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::facts::STATE_SUPERSEDED;
use crate::model::ids::{mint, sha256_hex};
use crate::model::ledger::Ledger;
use crate::model::text::{most_similar, normalize};
use crate::model::time::Timestamp;

/// Version of the proposal file format; bumped on incompatible changes.
pub const SCHEMA: u32 = 1;
/// Prefix of fact ids.
pub const FACT_PREFIX: &str = "f";
/// Longest reason accepted, in characters.
const MAX_REASON: usize = 4000;
/// Longest evidence reference accepted, in characters.
const MAX_EVIDENCE: usize = 500;
/// How many similar facts are reported per operation.
const SIMILAR_LIMIT: usize = 3;

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

impl Operation {
    pub fn kind(&self) -> &'static str {
        match self {
            Operation::Add { .. } => "add",
            Operation::Update { .. } => "update",
            Operation::Remove { .. } => "remove",
            Operation::Supersede { .. } => "supersede",
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
            _ => format!("{} {}{text}", self.kind(), self.fact_id()),
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
    pub fn parse(json: &str) -> std::result::Result<Proposal, ProposalError> {
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

/// What an agent asks for, from the command line or `--from-json`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub evidence: Vec<String>,
    #[serde(default)]
    pub agent: Option<String>,
    pub operations: Vec<RequestOp>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
pub enum RequestOp {
    Add { file: String, text: String },
    Update { fact_id: String, text: String },
    Remove { fact_id: String },
    Supersede { fact_id: String, text: String },
}

/// Everything outside the ledger that shapes a proposal.
#[derive(Debug, Clone)]
pub struct PlanContext {
    pub now: Timestamp,
    pub author: Option<String>,
    /// Mixed into the ids so that identical requests made at once get distinct ids.
    pub nonce: u64,
}

/// A validated proposal, with the existing facts most similar to each proposed text.
#[derive(Debug, Clone)]
pub struct Planned {
    pub proposal: Proposal,
    pub similar: Vec<Similar>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Similar {
    /// Index of the operation in the proposal.
    pub operation: usize,
    pub fact_id: String,
    pub file: String,
    pub text: String,
    pub score: f64,
}

/// Validates `req` against the ledger and the pending proposals and builds the proposal.
pub fn plan(
    ledger: &Ledger,
    pending: &[Proposal],
    req: Request,
    ctx: &PlanContext,
) -> Result<Planned> {
    let reason = clean_line("reason", req.reason.as_deref().unwrap_or(""), MAX_REASON)?;
    if reason.is_empty() {
        return Err(Error::MissingReason);
    }
    let agent = match req.agent.as_deref().map(str::trim) {
        Some(a) if !a.is_empty() => Some(clean_line("agent name", a, 100)?),
        _ => None,
    };
    let evidence = req
        .evidence
        .iter()
        .map(|e| check_evidence(e))
        .collect::<Result<Vec<_>>>()?;
    if evidence.is_empty() && ledger.config.require_evidence {
        return Err(Error::EvidenceRequired);
    }
    if req.operations.is_empty() {
        return Err(Error::InvalidInput(
            "a proposal needs at least one operation".into(),
        ));
    }

    let created_at = ctx.now.rfc3339();
    let seed = format!(
        "{created_at}\0{reason}\0{:?}\0{}\0{}",
        req.operations,
        ctx.nonce,
        std::process::id()
    );
    let mut taken: BTreeSet<String> = ledger.ids().map(str::to_owned).collect();
    taken.extend(pending.iter().flat_map(|p| {
        p.operations
            .iter()
            .filter_map(|o| o.new_id().map(str::to_owned))
    }));
    let existing = taken.len();
    let mint_id = |taken: &mut BTreeSet<String>, salt: usize| {
        let id = mint(
            FACT_PREFIX,
            format!("{seed}\0{salt}").as_bytes(),
            existing,
            |id| taken.contains(id),
        );
        taken.insert(id.clone());
        id
    };

    let mut operations = Vec::with_capacity(req.operations.len());
    let mut touched_facts = BTreeSet::new();
    for (index, op) in req.operations.into_iter().enumerate() {
        let op = match op {
            RequestOp::Add { file, text } => {
                let file = ledger.resolve_file(&file)?.name.clone();
                let text = check_text(&text, ledger.config.max_fact_chars)?;
                let fact_id = mint_id(&mut taken, index);
                Operation::Add {
                    file,
                    fact_id,
                    text,
                }
            }
            RequestOp::Update { fact_id, text } => {
                let (file, fact) = target(ledger, &fact_id, false)?;
                let text = check_text(&text, ledger.config.max_fact_chars)?;
                if normalize(&text) == normalize(&fact.text) {
                    return Err(Error::NoChange { id: fact_id });
                }
                Operation::Update {
                    file,
                    before: fact.text.clone(),
                    fact_id,
                    text,
                }
            }
            RequestOp::Remove { fact_id } => {
                let (file, fact) = target(ledger, &fact_id, true)?;
                Operation::Remove {
                    file,
                    before: fact.text.clone(),
                    fact_id,
                }
            }
            RequestOp::Supersede { fact_id, text } => {
                let (file, fact) = target(ledger, &fact_id, false)?;
                let text = check_text(&text, ledger.config.max_fact_chars)?;
                let new_fact_id = mint_id(&mut taken, index);
                Operation::Supersede {
                    file,
                    before: fact.text.clone(),
                    fact_id,
                    new_fact_id,
                    text,
                }
            }
        };
        if op.new_id().is_none() && !touched_facts.insert(op.fact_id().to_owned()) {
            return Err(Error::InvalidInput(format!(
                "fact `{}` is named by more than one operation; combine them into one",
                op.fact_id()
            )));
        }
        operations.push(op);
    }
    check_duplicates(ledger, pending, &operations)?;

    let similar = operations
        .iter()
        .enumerate()
        .flat_map(|(index, op)| similar_to(ledger, index, op))
        .collect();
    let base = operations
        .iter()
        .map(|op| {
            let file = ledger.file(op.file()).expect("resolved above");
            (file.name.clone(), file.sha256.clone())
        })
        .collect();
    let hash = &sha256_hex(format!("{seed}\0{}", operations.len()).as_bytes())[..8];
    let proposal = Proposal {
        schema: SCHEMA,
        id: format!("{}-{hash}", ctx.now.compact()),
        created_at,
        agent,
        author: ctx.author.clone(),
        reason,
        evidence,
        operations,
        base,
    };
    Ok(Planned { proposal, similar })
}

/// The file of an existing fact that an operation targets.
fn target<'l>(
    ledger: &'l Ledger,
    id: &str,
    allow_superseded: bool,
) -> Result<(String, &'l crate::model::facts::Fact)> {
    let (file, fact) = ledger.get(id.trim())?;
    if !allow_superseded && fact.meta.state() == STATE_SUPERSEDED {
        return Err(Error::SupersededFact {
            id: id.to_owned(),
            by: fact
                .meta
                .by
                .clone()
                .unwrap_or_else(|| "another fact".into()),
        });
    }
    Ok((file.name.clone(), fact))
}

fn check_duplicates(ledger: &Ledger, pending: &[Proposal], ops: &[Operation]) -> Result<()> {
    let mut seen = BTreeSet::new();
    for op in ops {
        let Some(text) = op.text() else { continue };
        let norm = normalize(text);
        if !seen.insert(norm.clone()) {
            return Err(Error::InvalidInput(
                "two operations of this proposal have the same text".into(),
            ));
        }
        if let Some((file, fact)) = ledger.same_statement(text, op.fact_id()) {
            return Err(Error::DuplicateFact {
                id: Ledger::label(fact),
                file: file.name.clone(),
            });
        }
        let proposed = pending.iter().find(|p| {
            p.operations
                .iter()
                .filter_map(Operation::text)
                .any(|t| normalize(t) == norm)
        });
        if let Some(p) = proposed {
            return Err(Error::DuplicateProposal {
                proposal: p.id.clone(),
            });
        }
    }
    Ok(())
}

pub fn similar_to(ledger: &Ledger, index: usize, op: &Operation) -> Vec<Similar> {
    let Some(text) = op.text() else {
        return Vec::new();
    };
    let candidates = ledger.facts().filter(|(_, f)| {
        f.meta.state() != STATE_SUPERSEDED && f.id.as_deref() != Some(op.fact_id())
    });
    most_similar(
        text,
        candidates.map(|(file, f)| (f.text.as_str(), (file, f))),
        SIMILAR_LIMIT,
    )
    .into_iter()
    .map(|(score, (file, f))| Similar {
        operation: index,
        fact_id: f.id.clone().unwrap_or_default(),
        file: file.name.clone(),
        text: f.one_line(),
        score: (score * 100.0).round() / 100.0,
    })
    .collect()
}

/// A fact statement: trimmed, `\n` line endings, no control characters, no HTML comment markers
/// (they would be read as metadata), within the size limit.
pub fn check_text(text: &str, max_chars: usize) -> Result<String> {
    let text = text.replace("\r\n", "\n");
    let text = text
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n");
    let text = text.trim();
    if text.is_empty() {
        return Err(Error::EmptyText);
    }
    let len = text.chars().count();
    if len > max_chars {
        return Err(Error::TextTooLong {
            len,
            max: max_chars,
        });
    }
    if text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(Error::InvalidText {
            what: "fact text",
            why: "it contains control characters".into(),
        });
    }
    if text.contains("<!--") || text.contains("-->") {
        return Err(Error::InvalidText {
            what: "fact text",
            why: "HTML comments (`<!--`, `-->`) are reserved for fact metadata".into(),
        });
    }
    Ok(text.to_owned())
}

fn clean_line(what: &'static str, s: &str, max: usize) -> Result<String> {
    let s = s.trim();
    if s.chars().count() > max {
        return Err(Error::InvalidText {
            what,
            why: format!("longer than {max} characters"),
        });
    }
    if s.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return Err(Error::InvalidText {
            what,
            why: "it contains control characters".into(),
        });
    }
    Ok(s.to_owned())
}

/// An evidence reference (`src/db.rs:12`, a commit id, a URL): one token, stored in fact
/// metadata, so no spaces, `;` or comment markers.
fn check_evidence(e: &str) -> Result<String> {
    let e = e.trim();
    let why = if e.is_empty() {
        Some("it is empty".to_owned())
    } else if e.chars().count() > MAX_EVIDENCE {
        Some(format!("longer than {MAX_EVIDENCE} characters"))
    } else if e
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == ';')
    {
        Some("use one reference per --evidence, without spaces or `;`".to_owned())
    } else if e.contains("<!--") || e.contains("-->") {
        Some("it contains an HTML comment marker".to_owned())
    } else {
        None
    };
    match why {
        Some(why) => Err(Error::InvalidText {
            what: "evidence reference",
            why: format!("`{e}`: {why}"),
        }),
        None => Ok(e.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ledger::tests::ledger;

    fn ctx() -> PlanContext {
        PlanContext {
            now: Timestamp::parse("2026-11-22T10:00:00Z").unwrap(),
            author: Some("Ada <ada@example.com>".into()),
            nonce: 7,
        }
    }

    fn req(ops: Vec<RequestOp>) -> Request {
        Request {
            reason: Some("because".into()),
            operations: ops,
            ..Request::default()
        }
    }

    fn sample() -> Ledger {
        ledger(&[
            (
                "architecture.md",
                "# A\n- **f-aaaa** We use PostgreSQL 16, not SQLite.\n- **f-old1** Old. <!-- state: superseded; by: f-aaaa -->\n",
            ),
            ("pitfalls.md", "- **f-bbbb** Never block the executor.\n"),
        ])
    }

    #[test]
    fn plans_every_operation_with_bases_and_new_ids() {
        let l = sample();
        let planned = plan(
            &l,
            &[],
            req(vec![
                RequestOp::Add {
                    file: "pitfalls".into(),
                    text: " We use PostgreSQL 16 for analytics, not SQLite. ".into(),
                },
                RequestOp::Update {
                    fact_id: "f-aaaa".into(),
                    text: "We use PostgreSQL 17.".into(),
                },
                RequestOp::Supersede {
                    fact_id: "f-bbbb".into(),
                    text: "Use spawn_blocking.".into(),
                },
            ]),
            &ctx(),
        )
        .unwrap();
        let p = &planned.proposal;
        assert!(p.id.starts_with("20261122T100000Z-"), "{}", p.id);
        assert_eq!(p.operations.len(), 3);
        match &p.operations[0] {
            Operation::Add {
                file,
                fact_id,
                text,
            } => {
                assert_eq!(file, "pitfalls.md");
                assert!(fact_id.starts_with("f-"));
                assert_eq!(text, "We use PostgreSQL 16 for analytics, not SQLite.");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(p.base.len(), 2);
        assert_eq!(p.base["architecture.md"], l.files[0].sha256);
        assert_eq!(planned.similar.len(), 1);
        assert_eq!(
            (
                planned.similar[0].operation,
                planned.similar[0].fact_id.as_str()
            ),
            (0, "f-aaaa")
        );
        let json = p.to_json();
        assert_eq!(&Proposal::parse(&json).unwrap(), p);
    }

    #[test]
    fn refusals() {
        let l = sample();
        let run = |ops| plan(&l, &[], req(ops), &ctx()).map(|_| ()).unwrap_err();
        assert!(matches!(
            run(vec![RequestOp::Remove {
                fact_id: "f-nope".into()
            }]),
            Error::UnknownFact { .. }
        ));
        assert!(matches!(
            run(vec![RequestOp::Add {
                file: "../x".into(),
                text: "t".into()
            }]),
            Error::InvalidFileName { .. }
        ));
        assert!(matches!(
            run(vec![RequestOp::Add {
                file: "pitfalls".into(),
                text: "  ".into()
            }]),
            Error::EmptyText
        ));
        assert!(matches!(
            run(vec![RequestOp::Add {
                file: "pitfalls".into(),
                text: "x".repeat(1001)
            }]),
            Error::TextTooLong { .. }
        ));
        assert!(matches!(
            run(vec![RequestOp::Add { file: "pitfalls".into(), text: "we use postgresql 16 NOT sqlite".into() }]),
            Error::DuplicateFact { id, .. } if id == "f-aaaa"
        ));
        assert!(matches!(
            run(vec![RequestOp::Update {
                fact_id: "f-aaaa".into(),
                text: "We use PostgreSQL 16 not SQLite".into()
            }]),
            Error::NoChange { .. }
        ));
        assert!(matches!(
            run(vec![RequestOp::Update {
                fact_id: "f-old1".into(),
                text: "x".into()
            }]),
            Error::SupersededFact { .. }
        ));
        assert!(matches!(
            run(vec![RequestOp::Add {
                file: "pitfalls".into(),
                text: "a <!-- b".into()
            }]),
            Error::InvalidText { .. }
        ));
        assert!(matches!(run(vec![]), Error::InvalidInput(_)));
        assert!(matches!(
            run(vec![
                RequestOp::Remove {
                    fact_id: "f-aaaa".into()
                },
                RequestOp::Remove {
                    fact_id: "f-aaaa".into()
                }
            ]),
            Error::InvalidInput(_)
        ));
        let no_reason = Request {
            reason: None,
            ..req(vec![RequestOp::Remove {
                fact_id: "f-aaaa".into(),
            }])
        };
        assert!(matches!(
            plan(&l, &[], no_reason, &ctx()),
            Err(Error::MissingReason)
        ));
        let bad_evidence = Request {
            evidence: vec!["a b".into()],
            ..req(vec![RequestOp::Remove {
                fact_id: "f-aaaa".into(),
            }])
        };
        assert!(matches!(
            plan(&l, &[], bad_evidence, &ctx()),
            Err(Error::InvalidText { .. })
        ));
    }

    #[test]
    fn evidence_can_be_required() {
        let mut l = sample();
        l.config.require_evidence = true;
        let r = req(vec![RequestOp::Remove {
            fact_id: "f-aaaa".into(),
        }]);
        assert!(matches!(
            plan(&l, &[], r.clone(), &ctx()),
            Err(Error::EvidenceRequired)
        ));
        let with = Request {
            evidence: vec!["src/db.rs:3".into()],
            ..r
        };
        assert_eq!(
            plan(&l, &[], with, &ctx()).unwrap().proposal.evidence,
            ["src/db.rs:3"]
        );
    }

    #[test]
    fn pending_proposals_block_duplicates_and_reserve_ids() {
        let l = sample();
        let first = plan(
            &l,
            &[],
            req(vec![RequestOp::Add {
                file: "pitfalls".into(),
                text: "Cache keys include the tenant.".into(),
            }]),
            &ctx(),
        )
        .unwrap()
        .proposal;
        let again = plan(
            &l,
            std::slice::from_ref(&first),
            req(vec![RequestOp::Add {
                file: "architecture".into(),
                text: "cache keys include the tenant".into(),
            }]),
            &ctx(),
        );
        assert!(
            matches!(again, Err(Error::DuplicateProposal { proposal }) if proposal == first.id)
        );
        let other = plan(
            &l,
            std::slice::from_ref(&first),
            req(vec![RequestOp::Add {
                file: "pitfalls".into(),
                text: "Something else.".into(),
            }]),
            &ctx(),
        )
        .unwrap()
        .proposal;
        assert_ne!(other.operations[0].new_id(), first.operations[0].new_id());
    }

    #[test]
    fn request_json_is_strict() {
        let ok: Request = serde_json::from_str(
            r#"{"reason":"r","operations":[{"op":"remove","fact_id":"f-aaaa"}]}"#,
        )
        .unwrap();
        assert_eq!(
            ok.operations,
            [RequestOp::Remove {
                fact_id: "f-aaaa".into()
            }]
        );
        assert!(serde_json::from_str::<Request>(
            r#"{"operations":[{"op":"remove","fact_id":"f-a","x":1}]}"#
        )
        .is_err());
        assert!(serde_json::from_str::<Request>(
            r#"{"operations":[{"op":"rename","fact_id":"f-a"}]}"#
        )
        .is_err());
    }
}
