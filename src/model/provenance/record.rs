//! Decision records: the proof of each review decision that lives in the tree, one file per
//! decision under `.ledger/decisions/`, committed with the fact change it explains. A squash, a
//! rebase merge or a cherry-pick rewrites commits and drops their trailers; it carries these
//! files. Replaying the records gives the facts the tree must hold (docs/format.md).
//!
//! ```json
//! {"mneme_decision": 1, "verdict": "approve", "proposal": "20261122T135300Z-3f9a1c2b",
//!  "by": "Grace <grace@example.com>", "at": "2026-11-24T18:30:00Z",
//!  "facts": [{"id": "f-7f3c", "before": null, "after": "sha256:…"}]}
//! ```
//!
//! Pure: values in, values out. Every record read back is untrusted input.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::base::ids::{is_sha256_hex, sha256_hex};
use crate::model::base::paths;
use crate::model::base::text::{first_chars, first_hidden};
use crate::model::base::time::Timestamp;
use crate::model::facts::change::{ChangeKind, FactChange};
use crate::model::facts::fields::{check_evidence, check_line, check_reason, TextError, MAX_NAME};
use crate::model::facts::file::{self, is_fact_id};
use crate::model::proposals::proposal::{is_proposal_id, OpKind, Proposal};
use crate::model::provenance::decision::{
    body, ForgeReviewer, Recorded, RecordedOp, Verdict, UNKNOWN_AGENT,
};
use crate::model::provenance::factdiff::{fact_map, FactState, Files};
use crate::model::provenance::signing::{AllowedSigners, SignatureProblem};

/// The `allowed_signers` principal of the key a forge workflow signs its decisions with.
pub const FORGE_PRINCIPAL: &str = "mneme-forge";
/// The format version a record declares.
pub const VERSION: u32 = 1;
/// Largest record read: a decision on a large import stays far below.
pub const MAX_BYTES: usize = 256 * 1024;
/// Largest signature read: an SSH signature by an RSA key of 16,384 bits is under 6 KiB.
const MAX_SIGNATURE: usize = 16 * 1024;

/// One fact a decision changed: its content hash before and after (`None`: absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactHashes {
    pub id: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// A decision, as its record file holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub mneme_decision: u32,
    pub verdict: Verdict,
    pub proposal: String,
    /// `Name <email>` of the reviewer.
    pub by: String,
    /// RFC 3339, UTC, in microseconds: decisions of one second stay in order.
    pub at: String,
    pub facts: Vec<FactHashes>,
    /// The decision's account, for `why` and `log` where history lacks its commit (a squash
    /// drops the commit's body and trailers): the agent that proposed, the person it worked for,
    /// the proposal's reason and evidence, and the reviewer's note. Absent from records written
    /// before these fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Where `.ledger/allowed_signers` requires signed decisions: the reviewer's SSH signature
    /// (armored, namespace `git`) over the record without this field ([`Record::payload`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Written by `mneme migrate`: the decision commit this record was converted from. Where
    /// signed decisions are required, that commit's own signature proves an unsigned record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// A decision made on a forge: who commented it. `by` is then the account's forge address,
    /// and where decisions are signed, the repository's forge key signs (see
    /// [`Record::check_signature`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forge: Option<ForgeReviewer>,
}

impl Record {
    /// The record with the account the decision commit `r` gives (`migrate`): its body split
    /// back into reason and note. An account that breaks the rules a record's does is left out.
    pub fn with_commit_account(self, r: &Recorded) -> Record {
        let (reason, note) = match r.verdict {
            Verdict::Approve => (Some(r.reason.clone()), None),
            Verdict::Reject => (
                r.reason
                    .split_once("\n\nProposal reason: ")
                    .map(|(_, reason)| reason.trim().to_owned()),
                r.rejection_reason(),
            ),
        };
        let with = Record {
            agent: r.proposed_by.clone().filter(|a| a != UNKNOWN_AGENT),
            author: r.proposal_author.clone(),
            reason: reason.filter(|s| !s.is_empty()),
            evidence: r.evidence.clone(),
            note,
            ..self.clone()
        };
        match with.validate_account() {
            Ok(()) => with,
            Err(_) => self,
        }
    }

    /// The account is held to the rules a proposal's fields are: it reaches `why` and `log`.
    fn validate_account(&self) -> Result<(), RecordError> {
        let as_proposed =
            |name: &'static str, value: &str, checked: Result<String, TextError>| match checked {
                Ok(v) if v == value => Ok(()),
                Ok(_) => Err(field(name, "not in the form `propose` writes")),
                Err(e) => Err(field(name, e.to_string())),
            };
        for (name, value) in [("agent", &self.agent), ("author", &self.author)] {
            if let Some(v) = value {
                as_proposed(name, v, check_line("name", v, MAX_NAME))?;
            }
        }
        for (name, value) in [("reason", &self.reason), ("note", &self.note)] {
            if let Some(v) = value {
                as_proposed(name, v, check_reason(v))?;
            }
        }
        for e in &self.evidence {
            as_proposed("evidence", e, check_evidence(e))?;
        }
        Ok(())
    }
}

/// Why a record file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("larger than {MAX_BYTES} bytes")]
    TooLarge,
    #[error("not a decision record: {0}")]
    Json(String),
    #[error("`{field}`: {why}")]
    Field { field: &'static str, why: String },
    #[error("named `{name}`, but its content makes it `{id}`")]
    Name { name: String, id: String },
}

fn field(field: &'static str, why: impl Into<String>) -> RecordError {
    RecordError::Field {
        field,
        why: why.into(),
    }
}

/// The hash a record keeps of a fact: what it means (file, statement, metadata), not how it is
/// formatted.
pub fn fact_hash(state: &FactState) -> String {
    let canonical = format!("{}\0{}\0{}", state.file, state.text, state.meta.render());
    format!("sha256:{}", sha256_hex(canonical.as_bytes()))
}

fn is_hash(s: &str) -> bool {
    s.strip_prefix("sha256:").is_some_and(is_sha256_hex)
}

impl Record {
    /// The record of `verdict` on `proposal`, whose approval turned the fact files `before` into
    /// `after` (only the files it touched; empty for a rejection).
    pub fn new(
        verdict: Verdict,
        proposal: &str,
        by: &str,
        at: Timestamp,
        before: &Files,
        after: &Files,
    ) -> Record {
        let old = fact_map(before);
        let new = fact_map(after);
        let hash = |states: Option<&Vec<FactState>>| states.and_then(|s| s.first()).map(fact_hash);
        let mut ids: Vec<&String> = old.keys().chain(new.keys()).collect();
        ids.sort();
        ids.dedup();
        let facts = ids
            .into_iter()
            .filter(|id| is_fact_id(id))
            .filter_map(|id| {
                let (b, a) = (hash(old.get(id)), hash(new.get(id)));
                (b != a).then(|| FactHashes {
                    id: id.clone(),
                    before: b,
                    after: a,
                })
            })
            .collect();
        Record {
            mneme_decision: VERSION,
            verdict,
            proposal: proposal.to_owned(),
            by: by.to_owned(),
            at: at.rfc3339(),
            facts,
            agent: None,
            author: None,
            reason: None,
            evidence: Vec::new(),
            note: None,
            signature: None,
            commit: None,
            forge: None,
        }
    }

    /// The record with the decision's account: `proposal`'s agent, author, reason and evidence,
    /// and the reviewer's `note`.
    pub fn with_account(self, proposal: &Proposal, note: Option<&str>) -> Record {
        Record {
            agent: proposal.agent.clone(),
            author: proposal.author.clone(),
            reason: Some(proposal.reason.clone()),
            evidence: proposal.evidence.clone(),
            note: note.map(str::to_owned),
            ..self
        }
    }

    /// The record's file contents: pretty JSON, one key order, a final newline.
    pub fn render(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a record serializes");
        text.push('\n');
        text
    }

    /// What a signature covers: the record rendered without its signature. Rendering is
    /// canonical, so a record read back gives the bytes its reviewer signed.
    pub fn payload(&self) -> String {
        match self.signature {
            None => self.render(),
            Some(_) => Record {
                signature: None,
                ..self.clone()
            }
            .render(),
        }
    }

    /// The record's id, and its file's name without `.json`: when it was decided and a hash of
    /// what, so two decisions never share a file and a merge of two branches' records is clean.
    /// The signature is not part of what was decided.
    pub fn id(&self) -> String {
        let at = Timestamp::parse(&self.at).map_or_else(String::new, Timestamp::compact);
        let hash = sha256_hex(self.payload().as_bytes());
        format!("{at}-{}", first_chars(&hash, 8))
    }

    /// The reviewer's email, from `by` (`Name <email>`).
    pub fn email(&self) -> Option<&str> {
        let (_, rest) = self.by.rsplit_once('<')?;
        rest.strip_suffix('>')
    }

    /// The decision as `log` and `why` show it where history lacks its commit (a squash, a
    /// rebase merge or a cherry-pick rewrote it): who decided, when, which facts it added,
    /// changed or removed, and the account it carries (older records carry none).
    pub fn as_recorded(&self, id: &str) -> Recorded {
        let mut r = self.recorded_without_operations(id);
        r.operations = self
            .facts
            .iter()
            .map(|f| RecordedOp {
                op: match (&f.before, &f.after) {
                    (None, Some(_)) => OpKind::Add,
                    (Some(_), None) => OpKind::Remove,
                    _ => OpKind::Update,
                },
                fact_ids: vec![f.id.clone()],
                file: String::new(),
            })
            .collect();
        r
    }

    /// Who decided, when and by which record; the operations are for the caller to tell.
    fn recorded_without_operations(&self, id: &str) -> Recorded {
        let mut r = Recorded::new(self.verdict, &self.proposal);
        r.date =
            Timestamp::parse(&self.at).map_or_else(|| self.at.clone(), Timestamp::rfc3339_seconds);
        r.reviewer = Some(self.by.clone());
        r.proposed_by = self.agent.clone();
        r.proposal_author = self.author.clone();
        r.evidence = self.evidence.clone();
        if let Some(reason) = &self.reason {
            r.reason = body(self.verdict, reason, self.note.as_deref())
                .trim()
                .to_owned();
        }
        r.subject = format!("decision record {id} (its decision commit is not in this history)");
        r.record = Some(id.to_owned());
        r.forge = self.forge.clone();
        r
    }

    /// The approval as `review undo` and drift need it, read from `commit`, which brought this
    /// record into history (a squash commit), with the fact files `before` and `after` it: each
    /// fact's texts found by the hashes the record keeps, and each operation's kind told from
    /// the states (a supersession, a verification, a state or relations change). A state no
    /// file matches (two decisions squashed into one commit) leaves its text out, and its
    /// operation an update.
    pub fn landed(&self, id: &str, commit: &str, before: &Files, after: &Files) -> Recorded {
        let (old, new) = (fact_map(before), fact_map(after));
        let state = |map: &BTreeMap<String, Vec<FactState>>, fact: &str, hash: Option<&String>| {
            let hash = hash?;
            map.get(fact)?
                .iter()
                .find(|s| fact_hash(s) == *hash)
                .cloned()
        };
        let added: Vec<&str> = self
            .facts
            .iter()
            .filter(|f| f.before.is_none() && f.after.is_some())
            .map(|f| f.id.as_str())
            .collect();
        let mut r = self.recorded_without_operations(id);
        r.commit = commit.to_owned();
        let mut successors = Vec::new();
        for f in &self.facts {
            let was = state(&old, &f.id, f.before.as_ref());
            let is = state(&new, &f.id, f.after.as_ref());
            let name = is.as_ref().or(was.as_ref()).map(|s| s.file.clone());
            let (op, kind) = match (&f.before, &f.after) {
                (None, _) => (OpKind::Add, ChangeKind::Added),
                (_, None) => (OpKind::Remove, ChangeKind::Removed),
                _ => (OpKind::Update, ChangeKind::Changed),
            };
            let successor = is
                .as_ref()
                .filter(|s| s.meta.state == Some(file::State::Superseded))
                .filter(|_| {
                    was.as_ref()
                        .is_some_and(|w| w.meta.state != Some(file::State::Superseded))
                })
                .and_then(|s| s.meta.by.clone())
                .filter(|by| added.contains(&by.as_str()));
            let mut fact_ids = vec![f.id.clone()];
            let op = match (successor, &was, &is) {
                (Some(by), ..) => {
                    fact_ids.push(by.clone());
                    successors.push(by);
                    OpKind::Supersede
                }
                // The same text: what else changed tells a verification from a state or
                // relations change, which vouch for nothing.
                (None, Some(w), Some(i)) if op == OpKind::Update && w.text == i.text => {
                    if w.meta.verified != i.meta.verified {
                        OpKind::Verify
                    } else if w.meta.state != i.meta.state {
                        OpKind::State
                    } else if w.meta.relations != i.meta.relations {
                        OpKind::Relate
                    } else {
                        OpKind::Update
                    }
                }
                _ => op,
            };
            r.operations.push(RecordedOp {
                op,
                fact_ids,
                file: name.clone().unwrap_or_default(),
            });
            r.changes.push(FactChange {
                fact: f.id.clone(),
                kind,
                file: name.unwrap_or_default(),
                old: was.map(|s| s.text),
                new: is.map(|s| s.text),
            });
        }
        // A successor is part of its supersession, as in a decision commit's trailers.
        r.operations
            .retain(|o| o.op != OpKind::Add || !successors.contains(&o.fact_ids[0]));
        r
    }

    /// Whether a key `signers` lists for the reviewer signed this record, valid at its time. A
    /// decision made on a forge is signed by a key listed for [`FORGE_PRINCIPAL`] by name (no
    /// pattern), and such a key signs nothing else: the workflow holding it cannot pass for a
    /// person, nor a person for the forge.
    pub fn check_signature(&self, signers: &AllowedSigners) -> Result<(), SignatureProblem> {
        let signature = self
            .signature
            .as_deref()
            .ok_or(SignatureProblem::Unsigned)?;
        let at = Timestamp::parse(&self.at).ok_or(SignatureProblem::Malformed)?;
        let payload = self.payload();
        if self.forge.is_some() {
            return signers
                .verify_exact(signature, payload.as_bytes(), FORGE_PRINCIPAL, at)
                .map(|_| ());
        }
        let email = self.email().unwrap_or(&self.by);
        let signer = signers.verify(signature, payload.as_bytes(), email, at)?;
        if signers.lists_exactly(&signer.key, FORGE_PRINCIPAL) {
            return Err(SignatureProblem::ForgeOnly);
        }
        Ok(())
    }

    /// A record file read back, checked as strictly as mneme writes one; `name` is its file
    /// name without `.json`, which must be the record's id.
    pub fn parse(name: &str, text: &str) -> Result<Record, RecordError> {
        if text.len() > MAX_BYTES {
            return Err(RecordError::TooLarge);
        }
        let record: Record =
            serde_json::from_str(text).map_err(|e| RecordError::Json(e.to_string()))?;
        record.validate()?;
        let id = record.id();
        if id != name {
            return Err(RecordError::Name {
                name: name.to_owned(),
                id,
            });
        }
        Ok(record)
    }

    fn validate(&self) -> Result<(), RecordError> {
        if self.mneme_decision != VERSION {
            return Err(field(
                "mneme_decision",
                format!(
                    "version {} is not known; this mneme reads {VERSION}",
                    self.mneme_decision
                ),
            ));
        }
        if !is_proposal_id(&self.proposal) {
            return Err(field("proposal", "not a proposal id"));
        }
        if self.by.trim().is_empty() || self.by.len() > 512 || self.by.chars().any(char::is_control)
        {
            return Err(field("by", "not a `Name <email>`"));
        }
        if let Some(hidden) = first_hidden(&self.by) {
            return Err(field("by", format!("holds {hidden}")));
        }
        if let Some(sig) = &self.signature {
            if sig.len() > MAX_SIGNATURE || !sig.starts_with("-----BEGIN SSH SIGNATURE-----") {
                return Err(field(
                    "signature",
                    format!("not an armored SSH signature of at most {MAX_SIGNATURE} bytes"),
                ));
            }
        }
        if let Some(commit) = &self.commit {
            if !matches!(commit.len(), 40 | 64) || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(field("commit", "not a commit id"));
            }
        }
        if Timestamp::parse(&self.at).is_none() {
            return Err(field("at", "not an RFC 3339 time"));
        }
        self.validate_account()?;
        if let Some(forge) = &self.forge {
            if let Some(why) = forge.problem() {
                return Err(field("forge", why));
            }
            // Whoever holds the forge key signs for the forge's accounts, and no one else.
            if self.by != forge.by() {
                return Err(field(
                    "by",
                    format!(
                        "a decision made on a forge names its account, `{}`",
                        forge.by()
                    ),
                ));
            }
        }
        for f in &self.facts {
            if !is_fact_id(&f.id) {
                return Err(field(
                    "facts",
                    format!("`{}` is not a fact id", f.id.escape_debug()),
                ));
            }
            let hashes = [&f.before, &f.after];
            if hashes
                .iter()
                .any(|h| h.as_deref().is_some_and(|h| !is_hash(h)))
            {
                return Err(field(
                    "facts",
                    format!("{}: a hash is not `sha256:` and 64 hex digits", f.id),
                ));
            }
            if f.before == f.after {
                return Err(field(
                    "facts",
                    format!("{}: before and after are the same", f.id),
                ));
            }
        }
        Ok(())
    }
}

/// What the records say a fact may be: the ends of its chain of approvals (`None`: removed),
/// and the record of the latest end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    pub ends: Vec<Option<String>>,
    pub record: String,
}

/// The facts the records leave, by id. A fact's approvals form a chain, each starting from the
/// text the one before left (`before` is the previous `after`); the fact is as the end of its
/// chain left it. Where two branches each changed it, the chain forks: each end is an approved
/// version, and a merge keeps one of them (the person resolving the conflict chose).
pub fn replay(records: &[(String, Record)]) -> BTreeMap<String, Expected> {
    type Step<'a> = (&'a FactHashes, Option<Timestamp>, &'a str);
    let mut by_fact: BTreeMap<&str, Vec<Step<'_>>> = BTreeMap::new();
    for (id, record) in records
        .iter()
        .filter(|(_, r)| r.verdict == Verdict::Approve)
    {
        let at = Timestamp::parse(&record.at);
        for f in &record.facts {
            by_fact
                .entry(f.id.as_str())
                .or_default()
                .push((f, at, id.as_str()));
        }
    }
    let mut out = BTreeMap::new();
    for (fact, steps) in by_fact {
        let consumed = |after: &Option<String>| {
            after.is_some() && steps.iter().any(|(g, _, _)| &g.before == after)
        };
        let mut ends: Vec<&Step<'_>> = steps
            .iter()
            .filter(|(f, _, _)| !consumed(&f.after))
            .collect();
        // A chain that loops back (a fact changed, then changed back) has no end: the latest
        // step counts.
        if ends.is_empty() {
            ends.extend(steps.iter().max_by_key(|(_, at, id)| (*at, *id)));
        }
        let Some((_, _, record)) = ends.iter().max_by_key(|(_, at, id)| (*at, *id)) else {
            continue;
        };
        out.insert(
            fact.to_owned(),
            Expected {
                ends: ends.iter().map(|(f, _, _)| f.after.clone()).collect(),
                record: (*record).to_owned(),
            },
        );
    }
    out
}

/// How the facts in the tree differ from what the records approved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StateIssue {
    /// A fact no approval explains.
    Unapproved { fact: String, file: String },
    /// A fact that no approval left as it is (`record`: the latest), or that one removed.
    Differs {
        fact: String,
        file: String,
        record: String,
    },
    /// An approved fact that is not in the tree, and no record removed it.
    Missing { fact: String, record: String },
}

impl StateIssue {
    /// The fact the issue is about.
    pub fn fact(&self) -> &str {
        match self {
            StateIssue::Unapproved { fact, .. }
            | StateIssue::Differs { fact, .. }
            | StateIssue::Missing { fact, .. } => fact,
        }
    }
}

impl std::fmt::Display for StateIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateIssue::Unapproved { fact, file } => {
                write!(
                    f,
                    "{fact} in {file} was never approved (no decision record explains it)"
                )
            }
            StateIssue::Differs { fact, file, record } => write!(
                f,
                "{fact} in {file} is not as any approval left it (the latest: decision {record})"
            ),
            StateIssue::Missing { fact, record } => write!(
                f,
                "{fact} was approved (decision {record}) but is missing, and no decision removed it"
            ),
        }
    }
}

/// Checks the fact files `files` against the replayed `records`: every fact explained by the
/// latest approval of it, every approved fact present. Empty when the tree is exactly what the
/// decisions made it.
pub fn check_state(records: &[(String, Record)], files: &Files) -> Vec<StateIssue> {
    let expected = replay(records);
    let mut issues = Vec::new();
    let present = fact_map(files);
    for (key, states) in &present {
        for state in states {
            let hash = fact_hash(state);
            match expected.get(key) {
                Some(e) if e.ends.iter().any(|h| h.as_deref() == Some(hash.as_str())) => {}
                Some(e) => issues.push(StateIssue::Differs {
                    fact: key.clone(),
                    file: state.file.clone(),
                    record: e.record.clone(),
                }),
                None => issues.push(StateIssue::Unapproved {
                    fact: key.clone(),
                    file: state.file.clone(),
                }),
            }
        }
    }
    for (fact, e) in &expected {
        if !e.ends.contains(&None) && !present.contains_key(fact) {
            issues.push(StateIssue::Missing {
                fact: fact.clone(),
                record: e.record.clone(),
            });
        }
    }
    issues
}

/// A record file that cannot be used, and why: it explains nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InvalidRecord {
    pub file: String,
    pub why: String,
}

/// The facts against the decision records: what `verify`, `check` and the commit-msg hook judge.
#[derive(Debug, Clone, Default, Serialize)]
pub struct State {
    /// Record files read.
    pub records: usize,
    /// Where the facts differ from what the records approved.
    pub issues: Vec<StateIssue>,
    /// Record files that cannot be used, with why.
    pub invalid: Vec<InvalidRecord>,
    /// Records an earlier state had that this one lacks: records are only ever added, so a
    /// revert of a decision commit or a deleted record shows here.
    pub removed: Vec<String>,
    /// Where signed decisions are required: the approvals added since the earlier state whose
    /// signature does not hold, with why. They explain nothing.
    pub unproven: Vec<InvalidRecord>,
}

impl State {
    /// The facts not as the decision records approved them (a record of a fact that is gone
    /// aside): what agents see marked `[unapproved]`.
    pub fn unapproved(&self) -> std::collections::BTreeSet<String> {
        self.issues
            .iter()
            .filter(|i| !matches!(i, StateIssue::Missing { .. }))
            .map(|issue| issue.fact().to_owned())
            .collect()
    }

    pub fn holds(&self) -> bool {
        self.issues.is_empty()
            && self.invalid.is_empty()
            && self.removed.is_empty()
            && self.unproven.is_empty()
    }

    /// Every problem, a line each.
    pub fn problems(&self) -> Vec<String> {
        let removed = self
            .removed
            .iter()
            .map(|file| {
                format!("{file} is removed: decision records are only ever added (a reverted decision? propose the change instead)")
            });
        let invalid = self
            .invalid
            .iter()
            .map(|i| format!("{}: {}", i.file, i.why));
        let unproven = self
            .unproven
            .iter()
            .map(|i| format!("{}: the approval does not count: {}", i.file, i.why));
        removed
            .chain(invalid)
            .chain(unproven)
            .chain(self.issues.iter().map(ToString::to_string))
            .collect()
    }
}

/// Record files (file name → text, as a decisions directory holds them) read back: the records
/// by id, and those that cannot be used. Only `.json` files are records.
pub fn parse_all(files: &Files) -> (Vec<(String, Record)>, Vec<InvalidRecord>) {
    let mut records = Vec::new();
    let mut invalid = Vec::new();
    for (name, text) in files {
        let Some(id) = name.strip_suffix(".json") else {
            continue;
        };
        match Record::parse(id, text) {
            Ok(record) => records.push((id.to_owned(), record)),
            Err(why) => invalid.push(InvalidRecord {
                file: paths::decision_file(id),
                why: why.to_string(),
            }),
        }
    }
    (records, invalid)
}

/// What proves the approvals a range adds, where signed decisions are required.
pub struct Proof<'a> {
    /// `allowed_signers` as the range's target has it.
    pub signers: &'a AllowedSigners,
    /// Records already judged (by record id): whether they are proven (`Err`: why not). Those
    /// `migrate` converted ([`needs_commit_proof`]) by their decision commit; others by a
    /// cached signature check. The rest are checked against `signers`.
    pub checked: BTreeMap<String, Result<(), String>>,
}

/// Whether `record`, added since the earlier state, can only be proven by the signed decision
/// commit it was converted from.
pub fn needs_commit_proof(record: &Record) -> bool {
    record.verdict == Verdict::Approve && record.signature.is_none() && record.commit.is_some()
}

/// Judges the fact files `facts` by the record files `records` (file name → text). `earlier`
/// are the names of the record files an earlier state held (the range's base, HEAD): each must
/// still be there. With `proof`, each approval added since must be signed by a key listed for
/// its reviewer (or, converted by `migrate`, come from a decision commit so signed); the
/// earlier ones were checked when they were added.
pub fn judge(
    records: &Files,
    earlier: &[String],
    facts: &Files,
    proof: Option<&Proof<'_>>,
) -> State {
    judge_parsed(records, parse_all(records), earlier, facts, proof)
}

/// [`judge`] of the record files `files`, already read back by [`parse_all`] as `parsed`.
pub fn judge_parsed(
    files: &Files,
    parsed: (Vec<(String, Record)>, Vec<InvalidRecord>),
    earlier: &[String],
    facts: &Files,
    proof: Option<&Proof<'_>>,
) -> State {
    let removed = earlier
        .iter()
        .filter(|name| !files.contains_key(*name))
        .filter_map(|name| name.strip_suffix(".json"))
        .map(paths::decision_file)
        .collect();
    let (mut records, invalid) = parsed;
    let mut unproven = Vec::new();
    if let Some(proof) = proof {
        let known: std::collections::BTreeSet<&str> = earlier
            .iter()
            .filter_map(|n| n.strip_suffix(".json"))
            .collect();
        records.retain(|(id, record)| {
            if record.verdict != Verdict::Approve || known.contains(id.as_str()) {
                return true;
            }
            let checked = match proof.checked.get(id) {
                Some(known) => known.clone(),
                None => record
                    .check_signature(proof.signers)
                    .map_err(|e| e.to_string()),
            };
            match checked {
                Ok(()) => true,
                Err(why) => {
                    unproven.push(InvalidRecord {
                        file: paths::decision_file(id),
                        why,
                    });
                    false
                }
            }
        });
    }
    State {
        records: records.len() + unproven.len(),
        issues: check_state(&records, facts),
        invalid,
        removed,
        unproven,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::provenance::decision::Forge;

    fn files(pairs: &[(&str, &str)]) -> Files {
        pairs
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect()
    }

    const P1: &str = "20261124T100000Z-0000000a";
    const P2: &str = "20261124T110000Z-0000000b";

    fn at(h: i64) -> Timestamp {
        Timestamp::from_unix(1_795_500_000 + h * 3600)
    }

    fn approve(p: &str, h: i64, before: &Files, after: &Files) -> (String, Record) {
        let r = Record::new(
            Verdict::Approve,
            p,
            "Grace <g@example.com>",
            at(h),
            before,
            after,
        );
        (r.id(), r)
    }

    /// A record's account reads back as it was written, and is held to a proposal's rules: it
    /// reaches `why` and `log`.
    #[test]
    fn a_record_carries_its_account_under_a_proposal_s_rules() {
        let (_, r) = approve(
            P1,
            0,
            &files(&[]),
            &files(&[("a.md", "- **f-0001** One.\n")]),
        );
        let r = Record {
            agent: Some("codex".into()),
            author: Some("Ada <ada@example.com>".into()),
            reason: Some("found in review\nsecond line".into()),
            evidence: vec!["src/db.rs:12".into()],
            note: Some("checked".into()),
            ..r
        };
        let back = Record::parse(&r.id(), &r.render()).unwrap();
        assert_eq!(back, r);
        let shown = back.as_recorded(&r.id());
        assert_eq!(shown.proposed_by.as_deref(), Some("codex"));
        assert_eq!(shown.reason, "found in review\nsecond line\n\nchecked");
        for bad in [
            Record {
                agent: Some("co\ndex".into()),
                ..r.clone()
            },
            Record {
                reason: Some("esc \u{1b}[2J".into()),
                ..r.clone()
            },
            Record {
                note: Some("hidden\u{e0041}".into()),
                ..r.clone()
            },
            Record {
                evidence: vec!["two words".into()],
                ..r.clone()
            },
        ] {
            assert!(Record::parse(&bad.id(), &bad.render()).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn replaying_approvals_gives_the_facts_and_names_what_differs() {
        let empty = files(&[("a.md", "# A\n")]);
        let one = files(&[("a.md", "# A\n\n- **f-0001** One.\n")]);
        let two = files(&[("a.md", "# A\n\n- **f-0001** One.\n- **f-0002** Two.\n")]);
        let records = vec![approve(P1, 0, &empty, &one), approve(P2, 1, &one, &two)];
        assert_eq!(records[0].1.facts.len(), 1);
        assert_eq!(records[1].1.facts[0].id, "f-0002");
        assert!(check_state(&records, &two).is_empty());
        // A squash or a rebase carries the records: the state is all that is checked.
        let dropped = check_state(&records, &one);
        assert!(matches!(&dropped[..], [StateIssue::Missing { fact, .. }] if fact == "f-0002"));
        let edited = files(&[("a.md", "# A\n\n- **f-0001** One!\n- **f-0002** Two.\n")]);
        assert!(
            matches!(&check_state(&records, &edited)[..], [StateIssue::Differs { fact, .. }] if fact == "f-0001")
        );
        let extra = files(&[(
            "a.md",
            "# A\n\n- **f-0001** One.\n- **f-0002** Two.\n- **f-0003** Three.\n",
        )]);
        assert!(
            matches!(&check_state(&records, &extra)[..], [StateIssue::Unapproved { fact, .. }] if fact == "f-0003")
        );
        // Formatting is not meaning: another marker, the same facts.
        let restyled = files(&[("a.md", "# A\n\n* **f-0001** One.\n* **f-0002** Two.\n")]);
        assert!(check_state(&records, &restyled).is_empty());
        // Decisions of one instant replay in their chain's order, whatever their ids.
        let three = files(&[(
            "a.md",
            "# A\n\n- **f-0001** One, again.\n- **f-0002** Two.\n",
        )]);
        let same = [
            approve(P1, 0, &empty, &one),
            approve(P2, 0, &one, &two),
            approve("20261124T120000Z-0000000d", 0, &two, &three),
        ];
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
            let shuffled: Vec<_> = order.iter().map(|&i| same[i].clone()).collect();
            assert!(check_state(&shuffled, &three).is_empty());
        }
        // A removal approved leaves nothing expected.
        let removed = approve("20261124T120000Z-0000000c", 2, &two, &one);
        let all = [records.clone(), vec![removed]].concat();
        assert!(check_state(&all, &one).is_empty());
    }

    /// Whoever holds the forge key must not sign for anyone the forge did not name: a record of a
    /// forge decision names the forge's account as its reviewer, and no one else.
    #[test]
    fn a_forge_record_names_the_forge_account_or_is_refused() {
        let before = files(&[("a.md", "# A\n")]);
        let after = files(&[("a.md", "# A\n\n- **f-0001** One.\n")]);
        let (_, mut r) = approve(P1, 0, &before, &after);
        let grace = ForgeReviewer {
            kind: Forge::GitHub,
            site: "github.com".into(),
            login: "grace".into(),
            id: 42,
            comment: "https://github.com/o/r/pull/1#issuecomment-1".into(),
        };
        r.forge = Some(grace.clone());
        r.by = grace.by();
        assert_eq!(Record::parse(&r.id(), &r.render()).unwrap(), r);
        r.by = "The CTO <cto@example.com>".into();
        let e = Record::parse(&r.id(), &r.render()).unwrap_err();
        assert!(e.to_string().contains("names its account"), "{e}");
        r.by = "grace <42+grace@users.noreply.github.com.evil>".into();
        assert!(Record::parse(&r.id(), &r.render()).is_err());
        // A GitLab reviewer is named as GitLab's, and GitHub's record never reads as GitLab's.
        let on_gitlab = ForgeReviewer {
            kind: Forge::GitLab,
            site: "gitlab.com".into(),
            comment: "https://gitlab.com/o/r/-/merge_requests/1#note_1".into(),
            ..grace
        };
        r.forge = Some(on_gitlab.clone());
        r.by = on_gitlab.by();
        let text = r.render();
        assert!(text.contains("\"kind\": \"gitlab\""), "{text}");
        assert_eq!(Record::parse(&r.id(), &text).unwrap(), r);
        r.by = "grace <42+grace@users.noreply.gitlab.com>".into();
        assert!(Record::parse(&r.id(), &r.render()).is_err());
    }

    #[test]
    fn records_read_back_as_written_and_anything_else_is_refused() {
        let before = files(&[("a.md", "# A\n")]);
        let after = files(&[("a.md", "# A\n\n- **f-0001** One.\n")]);
        let (id, r) = approve(P1, 0, &before, &after);
        let text = r.render();
        assert_eq!(Record::parse(&id, &text).unwrap(), r);
        assert!(matches!(
            Record::parse("20261124T100000Z-ffffffff", &text),
            Err(RecordError::Name { .. })
        ));
        let bad = text.replace("Grace", "Gr\u{202e}ace");
        let named: Record = serde_json::from_str(&bad).unwrap();
        assert!(Record::parse(&named.id(), &bad).is_err());
        assert!(Record::parse(&id, "{}").is_err());
        assert!(Record::parse(&id, &text.replace("\"approve\"", "\"maybe\"")).is_err());
        let unknown = text.replacen('{', "{\"extra\": 1,", 1);
        assert!(Record::parse(&id, &unknown).is_err());
        let reject = Record::new(
            Verdict::Reject,
            P2,
            "Grace <g@example.com>",
            at(1),
            &Files::new(),
            &Files::new(),
        );
        assert!(reject.facts.is_empty());
        assert_eq!(
            Record::parse(&reject.id(), &reject.render()).unwrap(),
            reject
        );
    }
}
