//! Proposals: the JSON files agents write under `.ledger/proposals/` (docs/format.md). Planning
//! one from a request lives in `plan`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::base::ids::{is_sha256_hex, sha256_hex};
use crate::model::base::text::{escape_controls, first_chars};
use crate::model::base::time::Timestamp;
use crate::model::facts::fields::{
    check_evidence, check_line, check_reason, check_scopes, check_text, has_control,
    is_fact_file_name, TextError, MAX_NAME,
};
use crate::model::facts::file::{is_fact_id, Relations, State};
use crate::model::facts::ledger::Limits;
use crate::model::proposals::secrets::{self, Secret};

/// Version of the proposal file format; bumped on incompatible changes.
pub const SCHEMA: u32 = 1;

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
        /// Relations the new fact starts with.
        #[serde(default, skip_serializing_if = "Relations::is_empty")]
        relations: Relations,
        /// Evidence for this fact alone, in place of the proposal's ([`Proposal::evidence_of`]):
        /// an import cites the line each fact came from.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        evidence: Vec<String>,
        /// Globs of the files the fact is about besides those its evidence cites; on an
        /// update or supersession, none keeps the fact's own.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        scope: Vec<String>,
        /// The state the fact starts in, when not `active`: an import keeps the source's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        state: Option<State>,
        /// With `state: superseded`, the fact that replaces it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    Update {
        file: String,
        fact_id: String,
        /// The fact's text when proposed: a review compares it to detect a conflicting change.
        before: String,
        text: String,
        /// Relations added to the fact's own.
        #[serde(default, skip_serializing_if = "Relations::is_empty")]
        relations: Relations,
        /// Evidence for this fact alone ([`Proposal::evidence_of`]).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        evidence: Vec<String>,
        /// Globs of the files the fact is about ([`Operation::Add`]).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        scope: Vec<String>,
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
        /// Relations the new fact starts with.
        #[serde(default, skip_serializing_if = "Relations::is_empty")]
        relations: Relations,
        /// Evidence for this fact alone ([`Proposal::evidence_of`]).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        evidence: Vec<String>,
        /// Globs of the files the fact is about ([`Operation::Add`]).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        scope: Vec<String>,
    },
    /// Confirms the fact as still true: approval sets `verified` (and the evidence, when the
    /// proposal gives some for it) and clears a `stale` state; the text stays.
    Verify {
        file: String,
        fact_id: String,
        before: String,
        /// Evidence for this fact alone ([`Proposal::evidence_of`]).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        evidence: Vec<String>,
    },
    /// Moves the fact to another state (`active`, `stale`, `contested`, `archived`).
    State {
        file: String,
        fact_id: String,
        before: String,
        state: State,
    },
    /// Adds and removes relations to other facts.
    Relate {
        file: String,
        fact_id: String,
        before: String,
        #[serde(default, skip_serializing_if = "Relations::is_empty")]
        add: Relations,
        #[serde(default, skip_serializing_if = "Relations::is_empty")]
        remove: Relations,
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
    Verify,
    State,
    Relate,
}

impl OpKind {
    pub const ALL: [OpKind; 7] = [
        OpKind::Add,
        OpKind::Update,
        OpKind::Remove,
        OpKind::Supersede,
        OpKind::Verify,
        OpKind::State,
        OpKind::Relate,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Add => "add",
            OpKind::Update => "update",
            OpKind::Remove => "remove",
            OpKind::Supersede => "supersede",
            OpKind::Verify => "verify",
            OpKind::State => "state",
            OpKind::Relate => "relate",
        }
    }

    pub fn parse(s: &str) -> Option<OpKind> {
        OpKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

impl Operation {
    pub fn kind(&self) -> OpKind {
        match self {
            Operation::Add { .. } => OpKind::Add,
            Operation::Update { .. } => OpKind::Update,
            Operation::Remove { .. } => OpKind::Remove,
            Operation::Supersede { .. } => OpKind::Supersede,
            Operation::Verify { .. } => OpKind::Verify,
            Operation::State { .. } => OpKind::State,
            Operation::Relate { .. } => OpKind::Relate,
        }
    }

    /// Whether `self` is `other` as a reviewer may have left it: the same kind on the same facts,
    /// its text perhaps edited.
    pub fn acts_as(&self, other: &Operation) -> bool {
        self.kind() == other.kind() && self.fact_ids() == other.fact_ids()
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
            | Operation::Supersede { file, .. }
            | Operation::Verify { file, .. }
            | Operation::State { file, .. }
            | Operation::Relate { file, .. } => file,
        }
    }

    /// The fact the operation creates or changes.
    pub fn fact_id(&self) -> &str {
        match self {
            Operation::Add { fact_id, .. }
            | Operation::Update { fact_id, .. }
            | Operation::Remove { fact_id, .. }
            | Operation::Supersede { fact_id, .. }
            | Operation::Verify { fact_id, .. }
            | Operation::State { fact_id, .. }
            | Operation::Relate { fact_id, .. } => fact_id,
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

    /// The fact the operation's text is for: the new fact of an add or a supersession, else the
    /// targeted one.
    pub fn text_fact_id(&self) -> &str {
        self.new_id().unwrap_or(self.fact_id())
    }

    /// The targeted fact's text when the proposal was made (not for `add`).
    pub fn before(&self) -> Option<&str> {
        match self {
            Operation::Update { before, .. }
            | Operation::Remove { before, .. }
            | Operation::Supersede { before, .. }
            | Operation::Verify { before, .. }
            | Operation::State { before, .. }
            | Operation::Relate { before, .. } => Some(before),
            Operation::Add { .. } => None,
        }
    }

    /// Replaces the proposed text (a human edit during review).
    pub fn set_text(&mut self, new: String) {
        match self {
            Operation::Add { text, .. }
            | Operation::Update { text, .. }
            | Operation::Supersede { text, .. } => *text = new,
            _ => {}
        }
    }

    /// Re-targets the operation at the fact's current text (a human resolved a conflict).
    pub fn set_before(&mut self, new: String) {
        match self {
            Operation::Update { before, .. }
            | Operation::Remove { before, .. }
            | Operation::Supersede { before, .. }
            | Operation::Verify { before, .. }
            | Operation::State { before, .. }
            | Operation::Relate { before, .. } => *before = new,
            Operation::Add { .. } => {}
        }
    }

    pub fn text(&self) -> Option<&str> {
        match self {
            Operation::Add { text, .. }
            | Operation::Update { text, .. }
            | Operation::Supersede { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The evidence the operation gives for its own fact (empty when it gives none).
    pub fn own_evidence(&self) -> &[String] {
        match self {
            Operation::Add { evidence, .. }
            | Operation::Update { evidence, .. }
            | Operation::Supersede { evidence, .. }
            | Operation::Verify { evidence, .. } => evidence,
            _ => &[],
        }
    }

    /// The scope globs the operation gives its fact: none keeps the fact's own.
    pub fn scope(&self) -> &[String] {
        match self {
            Operation::Add { scope, .. }
            | Operation::Update { scope, .. }
            | Operation::Supersede { scope, .. } => scope,
            _ => &[],
        }
    }

    /// Relations the operation gives its fact, and those it takes away.
    pub fn relations(&self) -> (&Relations, &Relations) {
        static NONE: Relations = Relations::new();
        match self {
            Operation::Add { relations, .. }
            | Operation::Update { relations, .. }
            | Operation::Supersede { relations, .. } => (relations, &NONE),
            Operation::Relate { add, remove, .. } => (add, remove),
            _ => (&NONE, &NONE),
        }
    }

    /// `add f-k3x9q to architecture.md: We use …` on one line.
    pub fn summary(&self) -> String {
        let text = self
            .text()
            .map(|t| format!(": {}", t.split_whitespace().collect::<Vec<_>>().join(" ")))
            .unwrap_or_default();
        let (add, remove) = self.relations();
        let mut links: Vec<String> = Vec::new();
        for (sign, relations) in [("", add), ("no longer ", remove)] {
            for (relation, ids) in relations {
                let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
                links.push(format!("{sign}{} {}", relation.key(), ids.join(" ")));
            }
        }
        let links = if links.is_empty() {
            String::new()
        } else {
            format!(" ({})", links.join("; "))
        };
        match self {
            Operation::Add {
                file,
                fact_id,
                state,
                ..
            } => {
                let state = state
                    .as_ref()
                    .map(|s| format!(" [{}]", s.as_str()))
                    .unwrap_or_default();
                format!("add {fact_id} to {file}{state}{links}{text}")
            }
            Operation::Supersede {
                fact_id,
                new_fact_id,
                ..
            } => format!("supersede {fact_id} with {new_fact_id}{links}{text}"),
            Operation::State { fact_id, state, .. } => {
                format!("state {fact_id} {}", state.as_str())
            }
            _ => format!("{} {}{links}{text}", self.kind().as_str(), self.fact_id()),
        }
    }
}

/// Why a proposal file cannot be used. Messages never hold raw control characters: they name
/// parts of a file anyone could have written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProposalError {
    /// Not readable as UTF-8 JSON at all.
    #[error("{0}")]
    Syntax(String),
    /// JSON, but not a proposal of the supported schema.
    #[error("{0}")]
    Schema(String),
    /// A proposal whose fields break the rules `propose` enforces.
    #[error("{field}: {why}")]
    Invalid { field: String, why: String },
}

impl ProposalError {
    fn syntax(e: impl std::fmt::Display) -> ProposalError {
        ProposalError::Syntax(escape_controls(&e.to_string()).into_owned())
    }

    fn schema(e: impl std::fmt::Display) -> ProposalError {
        ProposalError::Schema(escape_controls(&e.to_string()).into_owned())
    }

    fn invalid(field: impl Into<String>, why: impl std::fmt::Display) -> ProposalError {
        ProposalError::Invalid {
            field: escape_controls(&field.into()).into_owned(),
            why: escape_controls(&why.to_string()).into_owned(),
        }
    }
}

/// Longest `before` text accepted: the text of a fact as it was, which a hand-written fact may
/// make longer than `max_fact_chars`.
const MAX_BEFORE: usize = 64 * 1024;

/// Most operations in one proposal: an import of a long instruction file stays far below it, and
/// a reviewer cannot read more in one sitting.
pub const MAX_OPERATIONS: usize = 1000;

/// Operation numbers as a reviewer writes them, counted from 1: `2`, `1-14,18-22`. Each is
/// given once, in order; no number is past [`MAX_OPERATIONS`], so a range cannot run away.
pub fn parse_operation_numbers(text: &str) -> Result<Vec<usize>, String> {
    let number = |s: &str| -> Result<usize, String> {
        match s.trim().parse::<usize>() {
            Ok(n @ 1..=MAX_OPERATIONS) => Ok(n),
            Ok(_) => Err(format!(
                "`{s}`: operations are numbered from 1 to at most {MAX_OPERATIONS}"
            )),
            Err(_) => Err(format!(
                "`{s}` is not an operation number (write 2, or 1-14,18-22)"
            )),
        }
    };
    let mut numbers = Vec::new();
    for part in text.split(',') {
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(part)?, number(part)?),
        };
        if first > last {
            return Err(format!("`{part}`: a range runs from the lower number up"));
        }
        numbers.extend(first..=last);
    }
    numbers.sort_unstable();
    numbers.dedup();
    Ok(numbers)
}

impl Proposal {
    /// A short hash of what the proposal says (the first 8 hex digits of the SHA-256 of its
    /// canonical JSON): a reviewer's command that names it approves exactly the text they read.
    pub fn pin(&self) -> String {
        let json = serde_json::to_vec(self).expect("a proposal serializes");
        sha256_hex(&json).get(..8).unwrap_or_default().to_owned()
    }

    /// Reads a proposal file's JSON; the fields are checked by [`Proposal::validate`].
    pub fn parse(json: &str) -> Result<Proposal, ProposalError> {
        // Straight into the struct: a queue of thousands is read on every listing.
        let p: Proposal = serde_json::from_str(json).map_err(|e| match e.classify() {
            serde_json::error::Category::Data => ProposalError::schema(e),
            _ => ProposalError::syntax(e),
        })?;
        if p.schema != SCHEMA {
            return Err(ProposalError::schema(format!(
                "schema {} is not supported (this mneme reads schema {SCHEMA}); upgrade mneme",
                p.schema
            )));
        }
        Ok(p)
    }

    /// What looks like a credential in the proposal, with the field it is in.
    pub fn secrets(&self) -> Vec<(String, Secret)> {
        let mut fields: Vec<(String, &str)> = vec![("reason".into(), self.reason.as_str())];
        fields.extend(
            self.evidence
                .iter()
                .map(|e| ("evidence".to_owned(), e.as_str())),
        );
        for (i, op) in self.operations.iter().enumerate() {
            if let Some(text) = op.text() {
                fields.push((format!("operations[{i}].text"), text));
            }
        }
        fields
            .into_iter()
            .flat_map(|(field, text)| {
                secrets::find(text)
                    .into_iter()
                    .map(move |s| (field.clone(), s))
            })
            .collect()
    }

    /// Checks every field as strictly as `propose` checks its arguments: an id of the form
    /// `propose` mints, single-line names, a reason, evidence tokens, at least one operation,
    /// known fact files, fact ids, statements in the form `propose` stores them, each fact named
    /// once. A proposal that fails can only be rejected.
    pub fn validate(&self, limits: &Limits) -> Result<(), ProposalError> {
        if !is_proposal_id(&self.id) {
            return Err(ProposalError::invalid(
                "id",
                format!("`{}` is not an id mneme writes (UTC time-hash)", self.id),
            ));
        }
        if self.created().is_none() {
            return Err(ProposalError::invalid("created_at", "not an RFC 3339 time"));
        }
        for (field, value) in [("agent", &self.agent), ("author", &self.author)] {
            if let Some(v) = value {
                unchanged(field, v, check_line("name", v, MAX_NAME))?;
            }
        }
        if self.reason.is_empty() {
            return Err(ProposalError::invalid("reason", "empty"));
        }
        unchanged("reason", &self.reason, check_reason(&self.reason))?;
        for e in &self.evidence {
            unchanged("evidence", e, check_evidence(e))?;
        }
        for (name, hash) in &self.base {
            if !is_fact_file_name(name) || !is_sha256_hex(hash) {
                return Err(ProposalError::invalid("base", format!("`{name}: {hash}`")));
            }
        }
        if self.operations.is_empty() {
            return Err(ProposalError::invalid(
                "operations",
                "none; a proposal changes at least one fact",
            ));
        }
        if self.operations.len() > MAX_OPERATIONS {
            return Err(ProposalError::invalid(
                "operations",
                format!(
                    "{} of them; one proposal makes at most {MAX_OPERATIONS} changes: split it",
                    self.operations.len()
                ),
            ));
        }
        let mut named = std::collections::BTreeSet::new();
        for (i, op) in self.operations.iter().enumerate() {
            let field = |what: &str| format!("operations[{i}].{what}");
            validate_op(op, limits, &field)?;
            for id in op.fact_ids() {
                if !named.insert(id.clone()) {
                    return Err(ProposalError::invalid(
                        field("fact_id"),
                        format!("`{id}` is named twice"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The evidence an approval writes into the metadata of `op`'s fact: the operation's own;
    /// else the proposal's when it adds a fact (which has none yet) or is the only operation.
    /// Otherwise none, and the fact keeps the evidence it has: an update among several never
    /// drops a fact's citations for evidence given for another. Removals, states and relations
    /// write no evidence.
    pub fn evidence_of<'a>(&'a self, op: &'a Operation) -> &'a [String] {
        let own = op.own_evidence();
        if !own.is_empty() {
            return own;
        }
        match op {
            Operation::Remove { .. } | Operation::State { .. } | Operation::Relate { .. } => &[],
            Operation::Add { .. } => &self.evidence,
            _ if self.operations.len() == 1 => &self.evidence,
            _ => &[],
        }
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
        let next = sha256_hex(format!("{}{hash}", self.id).as_bytes());
        self.id = format!("{stamp}-{}", first_chars(&next, 8));
    }
}

/// One operation's fields: a known fact file, fact ids of the `f-` form, and statements that
/// read exactly as `propose` would have stored them.
fn validate_op(
    op: &Operation,
    limits: &Limits,
    field: &dyn Fn(&str) -> String,
) -> Result<(), ProposalError> {
    let file = op.file();
    if !is_fact_file_name(file) || !limits.files.iter().any(|f| f == file) {
        return Err(ProposalError::invalid(
            field("file"),
            format!("`{file}` is not a fact file of this ledger"),
        ));
    }
    for id in op.fact_ids() {
        if !is_fact_id(&id) {
            return Err(ProposalError::invalid(
                field("fact_id"),
                format!("`{id}` is not a fact id"),
            ));
        }
    }
    if let Some(text) = op.text() {
        unchanged(
            &field("text"),
            text,
            check_text(text, limits.max_fact_chars),
        )?;
    }
    validate_relations(op, field)?;
    for e in op.own_evidence() {
        unchanged(&field("evidence"), e, check_evidence(e))?;
    }
    match check_scopes(op.scope()) {
        Ok(checked) if checked == op.scope() => {}
        Ok(_) => {
            return Err(ProposalError::invalid(
                field("scope"),
                "not in the form `propose` writes (spaces, or a glob twice)",
            ))
        }
        Err(e) => return Err(ProposalError::invalid(field("scope"), e)),
    }
    if let Operation::Add {
        state, by, fact_id, ..
    } = op
    {
        match (state, by) {
            (None, None) => {}
            (Some(State::Superseded), Some(by)) if is_fact_id(by) && by != fact_id => {}
            (Some(State::Superseded), _) => {
                return Err(ProposalError::invalid(
                    field("by"),
                    "a fact added as superseded names another fact that replaces it",
                ));
            }
            (Some(s), None) if State::SETTABLE.contains(s) && *s != State::Active => {}
            (Some(s), None) => {
                return Err(ProposalError::invalid(
                    field("state"),
                    format!(
                        "`{}` is not a state a fact is added in (stale, contested, archived, superseded)",
                        s.as_str()
                    ),
                ));
            }
            (_, Some(_)) => {
                return Err(ProposalError::invalid(
                    field("by"),
                    "only a fact added as superseded names a replacement",
                ));
            }
        }
    }
    if let Operation::State { state, .. } = op {
        if !State::SETTABLE.contains(state) {
            return Err(ProposalError::invalid(
                field("state"),
                format!(
                    "`{}` is not a state a proposal sets (active, stale, contested, archived)",
                    state.as_str()
                ),
            ));
        }
    }
    if let Some(before) = op.before() {
        if before.len() > MAX_BEFORE || has_control(before) {
            return Err(ProposalError::invalid(
                field("before"),
                "too long or holds control characters",
            ));
        }
    }
    Ok(())
}

/// Most ids one operation may relate its fact to.
pub const MAX_RELATED: usize = 64;

/// Relations name other facts by id, a bounded number of them; a `relate` changes something.
fn validate_relations(op: &Operation, field: &dyn Fn(&str) -> String) -> Result<(), ProposalError> {
    let (add, remove) = op.relations();
    let related = add.values().chain(remove.values());
    if related
        .clone()
        .map(std::collections::BTreeSet::len)
        .sum::<usize>()
        > MAX_RELATED
    {
        return Err(ProposalError::invalid(
            field("relations"),
            format!("more than {MAX_RELATED} related facts"),
        ));
    }
    let own = op.text_fact_id();
    for id in related.flatten() {
        if !is_fact_id(id) || id == own {
            return Err(ProposalError::invalid(
                field("relations"),
                format!("`{id}` is not the id of another fact"),
            ));
        }
    }
    if let Operation::Relate { add, remove, .. } = op {
        let empty = |r: &Relations| r.values().all(std::collections::BTreeSet::is_empty);
        if empty(add) && empty(remove) {
            return Err(ProposalError::invalid(
                field("add"),
                "a relate operation adds or removes at least one relation",
            ));
        }
    }
    Ok(())
}

/// A field must already be in the form the check gives it: the check passes and changes nothing.
fn unchanged(
    field: &str,
    value: &str,
    checked: Result<String, TextError>,
) -> Result<(), ProposalError> {
    match checked {
        Ok(v) if v == value => Ok(()),
        Ok(_) => Err(ProposalError::invalid(
            field,
            "not in the form `propose` writes (surrounding spaces or \\r)",
        )),
        Err(e) => Err(ProposalError::invalid(field, e)),
    }
}

/// `20261122T135300Z-3f9a1c2b`: what `propose` names a proposal.
pub fn is_proposal_id(id: &str) -> bool {
    let b = id.as_bytes();
    b.len() == 25
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'T'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'Z'
        && b[16] == b'-'
        && b[17..]
            .iter()
            .all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_numbers_take_ranges_and_refuse_what_is_no_number() {
        assert_eq!(parse_operation_numbers("2"), Ok(vec![2]));
        assert_eq!(
            parse_operation_numbers("1-3,18-20, 2"),
            Ok(vec![1, 2, 3, 18, 19, 20])
        );
        for bad in ["0", "3-1", "a", "1-", "", "1,,2", "5-1001", "-2", "1-2-3"] {
            assert!(parse_operation_numbers(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn op_kinds_round_trip() {
        for k in OpKind::ALL {
            assert_eq!(OpKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(OpKind::parse("rename"), None);
    }

    #[test]
    fn an_add_may_carry_its_own_evidence_and_a_starting_state() {
        let limits = Limits {
            max_fact_chars: 500,
            files: vec!["pitfalls.md".into()],
        };
        let with = |evidence: &[&str], state: Option<State>, by: Option<&str>| {
            let p = Proposal {
                schema: SCHEMA,
                id: "20261122T100000Z-00000000".into(),
                created_at: "2026-11-22T10:00:00.000000Z".into(),
                agent: None,
                author: None,
                reason: "imported".into(),
                evidence: Vec::new(),
                operations: vec![Operation::Add {
                    scope: Vec::new(),
                    file: "pitfalls.md".into(),
                    fact_id: "f-new1".into(),
                    text: "A fact.".into(),
                    relations: Relations::new(),
                    evidence: evidence.iter().map(|e| (*e).to_owned()).collect(),
                    state,
                    by: by.map(str::to_owned),
                }],
                base: BTreeMap::new(),
            };
            p.validate(&limits).map_err(|e| e.to_string())
        };
        assert_eq!(with(&["CLAUDE.md:12"], None, None), Ok(()));
        assert_eq!(with(&[], Some(State::Archived), None), Ok(()));
        assert_eq!(with(&[], Some(State::Superseded), Some("f-new2")), Ok(()));
        assert!(with(&["two\nlines"], None, None).is_err());
        assert!(with(&[], Some(State::Superseded), None)
            .unwrap_err()
            .contains("replaces"));
        assert!(with(&[], Some(State::Superseded), Some("f-new1")).is_err());
        assert!(with(&[], Some(State::Active), None)
            .unwrap_err()
            .contains("not a state"));
        assert!(with(&[], Some(State::Other("zombie".into())), None).is_err());
        assert!(with(&[], Some(State::Stale), Some("f-new2"))
            .unwrap_err()
            .contains("only"));
    }
}
