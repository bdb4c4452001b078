//! Planning a proposal: validating what an agent asks for against the ledger and the pending
//! proposals, and turning it into a proposal file's contents.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::model::base::ids::{mint, sha256_hex};
use crate::model::base::paths;
use crate::model::base::text::{first_chars, most_similar, normalize, Words};
use crate::model::base::time::Timestamp;
use crate::model::facts::fields::{
    check_evidence, check_line, check_reason, check_scopes, check_text, TextError, MAX_NAME,
};
use crate::model::facts::file::{Fact, Relations, State, FACT_PREFIX};
use crate::model::facts::ledger::{Ledger, LookupError, Position};
use crate::model::proposals::proposal::{
    Operation, Proposal, ProposalError, MAX_OPERATIONS, SCHEMA,
};
use crate::model::proposals::queue::{targets, PendingRef, Queue, TextRef};
use crate::model::proposals::secrets::Secret;

/// How many similar facts are reported per operation.
const SIMILAR_LIMIT: usize = 3;

/// Why a request cannot become a proposal. Nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Lookup(#[from] LookupError),
    #[error("fact `{id}` is superseded by `{by}`; propose the change against `{by}` instead")]
    SupersededFact { id: String, by: String },
    #[error("fact `{id}` is archived; restore it first with `mneme propose state {id} active`")]
    ArchivedFact { id: String },
    #[error("`{state}` is not a state a proposal sets; use active, stale, contested or archived")]
    UnknownState { state: String },
    #[error("fact `{id}` is already {state}; nothing to propose")]
    SameState { id: String, state: String },
    #[error("a fact cannot be related to `{id}`: {why}")]
    RelationTarget { id: String, why: String },
    #[error("fact `{id}` has no `{relation}` relation to `{other}` to remove")]
    NoSuchRelation {
        id: String,
        relation: &'static str,
        other: String,
    },
    #[error(transparent)]
    Text(#[from] TextError),
    #[error("this fact already exists as `{id}` in {file}; propose an update to it if it needs to change")]
    DuplicateFact { id: String, file: String },
    #[error("pending proposal `{proposal}` already proposes this text; wait for its review or propose something else")]
    DuplicateProposal { proposal: String },
    #[error("fact `{id}` already says exactly this; nothing to propose")]
    NoChange { id: String },
    #[error(
        "this ledger requires at least one --evidence REF per proposal (require_evidence in {})",
        paths::CONFIG
    )]
    EvidenceRequired,
    #[error("a proposal needs --reason: say why the ledger should change")]
    MissingReason,
    #[error("a proposal needs at least one operation")]
    NoOperations,
    #[error("{count} operations; one proposal makes at most {MAX_OPERATIONS} changes: split it")]
    TooManyOperations { count: usize },
    #[error("fact `{id}` is named by more than one operation; combine them into one")]
    SameFactTwice { id: String },
    #[error("two operations of this proposal have the same text")]
    SameTextTwice,
    #[error(
        "{} holds what looks like {secret}; mneme never stores credentials: remove it",
        field_in_words(field, *operations)
    )]
    Secret {
        field: String,
        secret: Secret,
        /// How many operations the proposal has: one text is "the fact text".
        operations: usize,
    },
    /// The planned proposal breaks a rule the checks above do not cover.
    #[error(transparent)]
    Invalid(#[from] ProposalError),
}

/// A proposal's field (`reason`, `evidence`, `operations[1].text`) as a person names it.
fn field_in_words(field: &str, operations: usize) -> String {
    let index = field
        .strip_prefix("operations[")
        .and_then(|rest| rest.strip_suffix("].text"))
        .and_then(|n| n.parse::<usize>().ok());
    match index {
        Some(_) if operations == 1 => "the fact text".to_owned(),
        Some(n) => format!("the text of operation {}", n + 1),
        None => format!("the {field}"),
    }
}

/// What an agent asks for, from the command line, `--from-json` or the MCP `propose` tool.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// Why the ledger should change.
    #[serde(default)]
    pub reason: Option<String>,
    /// Where the claim can be checked, such as `src/db.rs:42` or a commit.
    #[serde(default)]
    pub evidence: Vec<String>,
    /// Who proposes it (default: `MNEME_AGENT`).
    #[serde(default)]
    pub agent: Option<String>,
    /// One or more changes, reviewed and approved together.
    pub operations: Vec<RequestOp>,
}

/// One change to the facts.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
pub enum RequestOp {
    /// A new fact in a fact file (`architecture`, `pitfalls`, ...).
    Add {
        file: String,
        text: String,
        /// Relations to other facts: `{"depends_on": ["f-k2a9"]}`.
        #[serde(default)]
        relations: Relations,
        /// Evidence for this fact alone (`src/db.rs:42`, a commit, a URL); without it, a
        /// proposal of one operation gives it the proposal's evidence.
        #[serde(default)]
        evidence: Vec<String>,
        /// Globs of the files the fact is about besides those its evidence cites
        /// (`src/db/**`): agents get it when they read or edit one of them.
        #[serde(default)]
        scope: Vec<String>,
    },
    /// New text for a fact, keeping its id.
    Update {
        fact_id: String,
        text: String,
        /// Relations to add to the fact's own.
        #[serde(default)]
        relations: Relations,
        /// Evidence for this fact alone (`src/db.rs:42`, a commit, a URL); without it, the fact keeps its
        /// own (a proposal of one operation gives it the proposal's).
        #[serde(default)]
        evidence: Vec<String>,
        /// Globs of the files the fact is about (`src/db/**`), in place of its own; without
        /// them, it keeps its own.
        #[serde(default)]
        scope: Vec<String>,
    },
    /// Take a fact out.
    Remove { fact_id: String },
    /// Replace a fact by a new one; the old one stays, marked superseded.
    Supersede {
        fact_id: String,
        text: String,
        /// Relations the new fact starts with.
        #[serde(default)]
        relations: Relations,
        /// Evidence for this fact alone (`src/db.rs:42`, a commit, a URL); without it, the new fact
        /// cites what the old one did (a proposal of one operation gives it the proposal's).
        #[serde(default)]
        evidence: Vec<String>,
        /// Globs of the files the new fact is about (`src/db/**`); without them, the old
        /// fact's.
        #[serde(default)]
        scope: Vec<String>,
    },
    /// Confirm a fact as still true: approval sets its `verified` date (and evidence).
    Verify {
        fact_id: String,
        /// Evidence for this fact alone (`src/db.rs:42`, a commit, a URL); without it, the fact keeps its
        /// own (a proposal of one operation gives it the proposal's).
        #[serde(default)]
        evidence: Vec<String>,
    },
    /// Move a fact to another state: `active`, `stale`, `contested` or `archived`.
    State { fact_id: String, state: String },
    /// Add and remove relations between a fact and others.
    Relate {
        fact_id: String,
        #[serde(default)]
        add: Relations,
        #[serde(default)]
        remove: Relations,
    },
}

/// Everything outside the ledger that shapes a proposal.
#[derive(Debug, Clone)]
pub struct PlanContext {
    pub now: Timestamp,
    pub author: Option<String>,
    /// Mixed into the ids so that identical requests made at once (by other processes too) get
    /// distinct ids.
    pub nonce: u64,
}

/// A validated proposal, with the existing facts most similar to each proposed text.
#[derive(Debug, Clone)]
pub struct Planned {
    pub proposal: Proposal,
    pub similar: Vec<Similar>,
    /// Pending proposals that already act on a fact this one acts on.
    pub competing: Vec<Competing>,
}

/// A pending proposal that acts on the same fact as another: approving one may make the other
/// conflict, so the reviewer should weigh them together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Competing {
    pub fact_id: String,
    pub proposal: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// The valid pending proposals of `pending` (other than `own`) that act on the facts `targets`.
pub fn competing<'a>(
    targets: &[String],
    own: &str,
    pending: impl IntoIterator<Item = PendingRef<'a>>,
) -> Vec<Competing> {
    let mut out = Vec::new();
    if targets.is_empty() {
        return out;
    }
    for p in pending.into_iter().filter(|p| p.valid && p.id() != own) {
        for fact in p.targets().filter(|f| targets.iter().any(|t| t == f)) {
            out.push(Competing {
                fact_id: fact.to_owned(),
                proposal: p.id().to_owned(),
                agent: p.agent().map(str::to_owned),
            });
        }
    }
    out
}

#[derive(Debug, Clone, Serialize)]
pub struct Similar {
    /// Index of the operation in the proposal.
    pub operation: usize,
    pub fact_id: String,
    pub file: String,
    pub text: String,
    pub score: f64,
    /// The pending proposal that proposes this text; absent for an existing fact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposal: Option<String>,
}

/// Validates `req` against the ledger and the pending proposals and builds the proposal.
pub fn plan(
    ledger: &Ledger,
    pending: &Queue,
    req: Request,
    ctx: &PlanContext,
) -> Result<Planned, PlanError> {
    let header = check_header(ledger, &req)?;
    let created_at = ctx.now.rfc3339();
    let seed = format!(
        "{created_at}\0{}\0{:?}\0{}",
        header.reason, req.operations, ctx.nonce
    );
    let mut ids = IdMinter::new(ledger, pending, &seed);
    let removed: Vec<String> = req
        .operations
        .iter()
        .filter_map(|op| match op {
            RequestOp::Remove { fact_id } => Some(fact_id.trim().to_owned()),
            _ => None,
        })
        .collect();
    let mut operations = Vec::with_capacity(req.operations.len());
    for (index, op) in req.operations.into_iter().enumerate() {
        operations.push(plan_op(ledger, op, &removed, || ids.mint(index))?);
    }
    check_each_fact_once(&operations)?;
    check_duplicates(ledger, pending, &operations)?;
    let similar = operations
        .iter()
        .enumerate()
        .flat_map(|(index, op)| similar_to(ledger, pending.parsed(), index, op))
        .collect();
    let proposal = assemble(ledger, ctx, &seed, header, operations)?;
    let competing = competing(&targets(&proposal), &proposal.id, pending.parsed());
    Ok(Planned {
        proposal,
        similar,
        competing,
    })
}

/// The proposal of `operations`: its id (the time and a hash of `seed`), the hashes of the fact
/// files it touches, validated as review will validate it, and refused if it holds a secret.
pub(crate) fn assemble(
    ledger: &Ledger,
    ctx: &PlanContext,
    seed: &str,
    header: Header,
    operations: Vec<Operation>,
) -> Result<Proposal, PlanError> {
    let base = operations
        .iter()
        .filter_map(|op| ledger.file(op.file()))
        .map(|file| (file.name.clone(), file.sha256().to_owned()))
        .collect();
    let hash = sha256_hex(format!("{seed}\0{}", operations.len()).as_bytes());
    let hash = first_chars(&hash, 8);
    let proposal = Proposal {
        schema: SCHEMA,
        id: format!("{}-{hash}", ctx.now.compact()),
        created_at: ctx.now.rfc3339(),
        agent: header.agent,
        author: ctx.author.clone(),
        reason: header.reason,
        evidence: header.evidence,
        operations,
        base,
    };
    // The one definition of a valid proposal, which review, check and verify apply to files.
    proposal.validate(&ledger.limits())?;
    if let Some((field, secret)) = proposal.secrets().into_iter().next() {
        return Err(PlanError::Secret {
            field,
            secret,
            operations: proposal.operations.len(),
        });
    }
    Ok(proposal)
}

fn check_all_evidence(evidence: &[String]) -> Result<Vec<String>, TextError> {
    evidence.iter().map(|e| check_evidence(e)).collect()
}

impl RequestOp {
    /// The evidence the operation gives for its own fact.
    pub fn evidence(&self) -> &[String] {
        match self {
            RequestOp::Add { evidence, .. }
            | RequestOp::Update { evidence, .. }
            | RequestOp::Supersede { evidence, .. }
            | RequestOp::Verify { evidence, .. } => evidence,
            RequestOp::Remove { .. } | RequestOp::State { .. } | RequestOp::Relate { .. } => &[],
        }
    }

    /// Its evidence, for the command line to rewrite (paths given from a subdirectory).
    pub fn evidence_mut(&mut self) -> Option<&mut Vec<String>> {
        match self {
            RequestOp::Add { evidence, .. }
            | RequestOp::Update { evidence, .. }
            | RequestOp::Supersede { evidence, .. }
            | RequestOp::Verify { evidence, .. } => Some(evidence),
            RequestOp::Remove { .. } | RequestOp::State { .. } | RequestOp::Relate { .. } => None,
        }
    }
}

/// The request's reason, agent and evidence, checked.
pub(crate) struct Header {
    pub reason: String,
    pub agent: Option<String>,
    pub evidence: Vec<String>,
}

fn check_header(ledger: &Ledger, req: &Request) -> Result<Header, PlanError> {
    let reason = check_reason(req.reason.as_deref().unwrap_or(""))?;
    if reason.is_empty() {
        return Err(PlanError::MissingReason);
    }
    let agent = match req.agent.as_deref().map(str::trim) {
        Some(a) if !a.is_empty() => Some(check_line("agent name", a, MAX_NAME)?),
        _ => None,
    };
    let evidence = check_all_evidence(&req.evidence)?;
    let any_evidence =
        !evidence.is_empty() || req.operations.iter().any(|op| !op.evidence().is_empty());
    if !any_evidence && ledger.config.require_evidence {
        return Err(PlanError::EvidenceRequired);
    }
    if req.operations.is_empty() {
        return Err(PlanError::NoOperations);
    }
    // Before any operation is planned: planning compares each with the ledger.
    if req.operations.len() > MAX_OPERATIONS {
        return Err(PlanError::TooManyOperations {
            count: req.operations.len(),
        });
    }
    Ok(Header {
        reason,
        agent,
        evidence,
    })
}

/// New fact ids, unique among the ledger's and the pending proposals'.
pub(crate) struct IdMinter<'s> {
    /// Looked up in its index, which planning builds anyway, rather than gathered into a set.
    ledger: &'s Ledger,
    /// Looked up by a scan for each id minted, not gathered: a queue can hold thousands.
    pending: &'s Queue,
    minted: Vec<String>,
    existing: usize,
    seed: &'s str,
}

impl<'s> IdMinter<'s> {
    pub(crate) fn new(ledger: &'s Ledger, pending: &'s Queue, seed: &'s str) -> IdMinter<'s> {
        IdMinter {
            existing: ledger.id_count()
                + pending.parsed().map(|p| p.new_ids().count()).sum::<usize>(),
            ledger,
            pending,
            minted: Vec::new(),
            seed,
        }
    }

    pub(crate) fn mint(&mut self, salt: usize) -> String {
        let seed = format!("{}\0{salt}", self.seed);
        let (ledger, pending, minted) = (&self.ledger, self.pending, &self.minted);
        let id = mint(FACT_PREFIX, seed.as_bytes(), self.existing, |id| {
            ledger.find(id).is_some() || pending.reserves(id) || minted.iter().any(|m| m == id)
        });
        self.minted.push(id.clone());
        id
    }
}

/// One requested operation, checked against the ledger. `new_id` mints the id of a new fact.
/// Plans one operation of a request whose `remove` operations take out the facts `removed`.
fn plan_op(
    ledger: &Ledger,
    op: RequestOp,
    removed: &[String],
    new_id: impl FnOnce() -> String,
) -> Result<Operation, PlanError> {
    let max = ledger.config.max_fact_chars;
    Ok(match op {
        RequestOp::Add {
            file,
            text,
            relations,
            evidence,
            scope,
        } => Operation::Add {
            file: ledger.resolve_file(&file)?.name.clone(),
            text: check_text(&text, max)?,
            relations: check_related(ledger, None, relations)?,
            fact_id: new_id(),
            evidence: check_all_evidence(&evidence)?,
            scope: check_scopes(&scope)?,
            state: None,
            by: None,
        },
        RequestOp::Update {
            fact_id,
            text,
            relations,
            evidence,
            scope,
        } => {
            let (file, fact) = target(ledger, &fact_id, Allow::Current)?;
            let text = check_text(&text, max)?;
            let relations = check_related(ledger, Some(fact), relations)?;
            if normalize(&text) == normalize(&fact.text) {
                return Err(PlanError::NoChange { id: fact_id });
            }
            Operation::Update {
                file,
                before: fact.text.clone(),
                fact_id,
                text,
                relations,
                evidence: check_all_evidence(&evidence)?,
                scope: check_scopes(&scope)?,
            }
        }
        RequestOp::Remove { fact_id } => {
            let (file, fact) = target(ledger, &fact_id, Allow::Any)?;
            Operation::Remove {
                file,
                before: fact.text.clone(),
                fact_id,
            }
        }
        RequestOp::Supersede {
            fact_id,
            text,
            relations,
            evidence,
            scope,
        } => {
            let (file, fact) = target(ledger, &fact_id, Allow::Current)?;
            Operation::Supersede {
                file,
                before: fact.text.clone(),
                text: check_text(&text, max)?,
                relations: check_related(ledger, None, relations)?,
                fact_id,
                new_fact_id: new_id(),
                evidence: check_all_evidence(&evidence)?,
                scope: check_scopes(&scope)?,
            }
        }
        RequestOp::Verify { fact_id, evidence } => {
            let (file, fact) = target(ledger, &fact_id, Allow::Current)?;
            Operation::Verify {
                file,
                before: fact.text.clone(),
                fact_id,
                evidence: check_all_evidence(&evidence)?,
            }
        }
        RequestOp::State { fact_id, state } => {
            // A superseded fact comes back only with its successor gone (a supersession undone):
            // the ledger never holds two current versions of one fact.
            let (file, fact) = match target(ledger, &fact_id, Allow::Archived) {
                Err(PlanError::SupersededFact { by, .. }) if removed.contains(&by) => {
                    target(ledger, &fact_id, Allow::Any)?
                }
                found => found?,
            };
            let state = State::parse(state.trim());
            if !State::SETTABLE.contains(&state) {
                return Err(PlanError::UnknownState {
                    state: state.as_str().to_owned(),
                });
            }
            if *fact.meta.state() == state {
                return Err(PlanError::SameState {
                    id: fact_id,
                    state: state.as_str().to_owned(),
                });
            }
            Operation::State {
                file,
                before: fact.text.clone(),
                fact_id,
                state,
            }
        }
        RequestOp::Relate {
            fact_id,
            add,
            remove,
        } => {
            let (file, fact) = target(ledger, &fact_id, Allow::Any)?;
            let add = check_related(ledger, Some(fact), add)?;
            let remove = check_unrelated(fact, remove)?;
            if add.is_empty() && remove.is_empty() {
                return Err(PlanError::NoChange { id: fact_id });
            }
            Operation::Relate {
                file,
                before: fact.text.clone(),
                fact_id,
                add,
                remove,
            }
        }
    })
}

/// Which facts an operation may target besides current ones.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Allow {
    Current,
    /// Current or archived (a state change can restore an archived fact).
    Archived,
    Any,
}

/// The file of an existing fact that an operation targets.
fn target<'l>(ledger: &'l Ledger, id: &str, allow: Allow) -> Result<(String, &'l Fact), PlanError> {
    let (file, fact) = ledger.get(id.trim())?;
    match fact.meta.state() {
        State::Superseded if allow != Allow::Any => {
            return Err(PlanError::SupersededFact {
                id: id.to_owned(),
                by: fact
                    .meta
                    .by
                    .clone()
                    .unwrap_or_else(|| "another fact".into()),
            })
        }
        State::Archived if allow == Allow::Current => {
            return Err(PlanError::ArchivedFact { id: id.to_owned() })
        }
        _ => {}
    }
    Ok((file.name.clone(), fact))
}

/// Relations to add to `fact` (`None`: a new fact): each to another current fact of the
/// ledger; those the fact already has are dropped.
fn check_related(
    ledger: &Ledger,
    fact: Option<&Fact>,
    relations: Relations,
) -> Result<Relations, PlanError> {
    let mut out = Relations::new();
    for (relation, ids) in relations {
        for id in ids {
            let id = id.trim().to_owned();
            let (_, other) = ledger.get(&id)?;
            let why = if fact.is_some_and(|f| f.id.as_deref() == Some(id.as_str())) {
                "it is the fact itself"
            } else if !other.meta.is_current() {
                "it is superseded or archived"
            } else {
                ""
            };
            if !why.is_empty() {
                return Err(PlanError::RelationTarget {
                    id,
                    why: why.into(),
                });
            }
            let known = fact.is_some_and(|f| {
                f.meta
                    .relations
                    .get(&relation)
                    .is_some_and(|s| s.contains(&id))
            });
            if !known {
                out.entry(relation).or_default().insert(id);
            }
        }
    }
    Ok(out)
}

/// Relations to remove from `fact`: each one it has.
fn check_unrelated(fact: &Fact, relations: Relations) -> Result<Relations, PlanError> {
    let mut out = Relations::new();
    for (relation, ids) in relations {
        for id in ids {
            let id = id.trim().to_owned();
            if !fact
                .meta
                .relations
                .get(&relation)
                .is_some_and(|s| s.contains(&id))
            {
                return Err(PlanError::NoSuchRelation {
                    id: Ledger::label(fact),
                    relation: relation.key(),
                    other: id,
                });
            }
            out.entry(relation).or_default().insert(id);
        }
    }
    Ok(out)
}

fn check_each_fact_once(ops: &[Operation]) -> Result<(), PlanError> {
    let mut touched = BTreeSet::new();
    for op in ops.iter().filter(|op| op.new_id().is_none()) {
        if !touched.insert(op.fact_id()) {
            return Err(PlanError::SameFactTwice {
                id: op.fact_id().to_owned(),
            });
        }
    }
    Ok(())
}

fn check_duplicates(ledger: &Ledger, pending: &Queue, ops: &[Operation]) -> Result<(), PlanError> {
    let mut seen = BTreeSet::new();
    for op in ops {
        let Some(text) = op.text() else { continue };
        let norm = normalize(text);
        if let Some((file, fact)) = ledger.same_statement(&norm, op.fact_id()) {
            return Err(PlanError::DuplicateFact {
                id: Ledger::label(fact),
                file: file.name.clone(),
            });
        }
        if let Some(p) = pending.proposing(&norm) {
            return Err(PlanError::DuplicateProposal {
                proposal: p.id().to_owned(),
            });
        }
        if !seen.insert(norm) {
            return Err(PlanError::SameTextTwice);
        }
    }
    Ok(())
}

/// The active facts (other than the one `op` targets) and the texts of `pending` proposals most
/// like what `op` proposes, best first.
pub fn similar_to<'p>(
    ledger: &Ledger,
    pending: impl IntoIterator<Item = PendingRef<'p>>,
    index: usize,
    op: &Operation,
) -> Vec<Similar> {
    let Some(text) = op.text() else {
        return Vec::new();
    };
    // An added fact's new id is no fact's: then none is left out.
    let target: Vec<Position> = ledger.located(op.fact_id()).collect();
    let words = &Words::of(text);
    let facts = ledger
        .active_words()
        .filter(|(at, _)| !target.contains(at))
        .map(|(at, w)| {
            (
                words.dice_sorted(w.iter().copied(), w.len()),
                Source::Fact(at),
            )
        });
    let proposed = pending.into_iter().flat_map(|p| {
        p.texts()
            .map(move |t| (t.dice(words), Source::Proposed(p, t)))
    });
    // Only the few best candidates are turned into values: a queue can hold thousands.
    most_similar(facts.chain(proposed), SIMILAR_LIMIT)
        .into_iter()
        .filter_map(|(score, source)| {
            let (fact_id, file, text, proposal) = match source {
                Source::Fact(at) => {
                    let (file, f) = ledger.fact_at(at)?;
                    (
                        f.id.clone().unwrap_or_default(),
                        file.name.clone(),
                        f.one_line(),
                        None,
                    )
                }
                Source::Proposed(p, t) => (
                    t.fact_id().to_owned(),
                    t.file().to_owned(),
                    t.one_line().to_owned(),
                    Some(p.id().to_owned()),
                ),
            };
            Some(Similar {
                operation: index,
                fact_id,
                file,
                text,
                score: (score * 100.0).round() / 100.0,
                proposal,
            })
        })
        .collect()
}

/// Where a similar text was found.
// Values of a scan, read in place and dropped at once: boxing would allocate per candidate.
#[allow(clippy::large_enum_variant)]
enum Source<'a> {
    Fact(Position),
    Proposed(PendingRef<'a>, TextRef<'a>),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request to add `text` to `file`, with no relations or evidence of its own.
    fn add_op(file: &str, text: &str) -> RequestOp {
        RequestOp::Add {
            scope: Vec::new(),
            file: file.into(),
            text: text.into(),
            relations: Relations::new(),
            evidence: Vec::new(),
        }
    }

    /// A request for new `text` of `fact_id`.
    fn update_op(fact_id: &str, text: &str) -> RequestOp {
        RequestOp::Update {
            scope: Vec::new(),
            fact_id: fact_id.into(),
            text: text.into(),
            relations: Relations::new(),
            evidence: Vec::new(),
        }
    }
    use crate::model::facts::ledger::tests::ledger;
    use crate::model::proposals::proposal::Operation;

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
            &Queue::default(),
            req(vec![
                add_op(
                    "pitfalls",
                    " We use PostgreSQL 16 for analytics, not SQLite. ",
                ),
                update_op("f-aaaa", "We use PostgreSQL 17."),
                RequestOp::Supersede {
                    scope: Vec::new(),
                    evidence: Vec::new(),
                    fact_id: "f-bbbb".into(),
                    text: "Use spawn_blocking.".into(),
                    relations: Default::default(),
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
                ..
            } => {
                assert_eq!(file, "pitfalls.md");
                assert!(fact_id.starts_with("f-"));
                assert_eq!(text, "We use PostgreSQL 16 for analytics, not SQLite.");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(p.base.len(), 2);
        assert_eq!(p.base["architecture.md"], l.files()[0].sha256());
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
        let run = |ops| {
            plan(&l, &Queue::default(), req(ops), &ctx())
                .map(|_| ())
                .unwrap_err()
        };
        assert!(matches!(
            run(vec![RequestOp::Remove {
                fact_id: "f-nope".into()
            }]),
            PlanError::Lookup(LookupError::UnknownFact { .. })
        ));
        assert!(matches!(
            run(vec![add_op("../x", "t")]),
            PlanError::Lookup(LookupError::InvalidFileName { .. })
        ));
        assert!(matches!(
            run(vec![add_op("pitfalls", "  ")]),
            PlanError::Text(TextError::Empty)
        ));
        assert!(matches!(
            run(vec![RequestOp::Add {
                scope: Vec::new(),
                evidence: Vec::new(),
                file: "pitfalls".into(),
                text: "x".repeat(1001),
                relations: Default::default(),
            }]),
            PlanError::Text(TextError::TooLong { .. })
        ));
        assert!(matches!(
            run(vec![add_op("pitfalls", "we use postgresql 16 NOT sqlite")]),
            PlanError::DuplicateFact { id, .. } if id == "f-aaaa"
        ));
        assert!(matches!(
            run(vec![update_op("f-aaaa", "We use PostgreSQL 16 not SQLite")]),
            PlanError::NoChange { .. }
        ));
        assert!(matches!(
            run(vec![update_op("f-old1", "x")]),
            PlanError::SupersededFact { .. }
        ));
        assert!(matches!(
            run(vec![add_op("pitfalls", "a <!-- b")]),
            PlanError::Text(TextError::Invalid { .. })
        ));
        assert!(matches!(run(vec![]), PlanError::NoOperations));
        assert!(matches!(
            run(vec![
                RequestOp::Remove {
                    fact_id: "f-aaaa".into()
                },
                RequestOp::Remove {
                    fact_id: "f-aaaa".into()
                }
            ]),
            PlanError::SameFactTwice { .. }
        ));
        let no_reason = Request {
            reason: None,
            ..req(vec![RequestOp::Remove {
                fact_id: "f-aaaa".into(),
            }])
        };
        assert!(matches!(
            plan(&l, &Queue::default(), no_reason, &ctx()),
            Err(PlanError::MissingReason)
        ));
        let bad_evidence = Request {
            evidence: vec!["a b".into()],
            ..req(vec![RequestOp::Remove {
                fact_id: "f-aaaa".into(),
            }])
        };
        assert!(matches!(
            plan(&l, &Queue::default(), bad_evidence, &ctx()),
            Err(PlanError::Text(TextError::Invalid { .. }))
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
            plan(&l, &Queue::default(), r.clone(), &ctx()),
            Err(PlanError::EvidenceRequired)
        ));
        let with = Request {
            evidence: vec!["src/db.rs:3".into()],
            ..r
        };
        assert_eq!(
            plan(&l, &Queue::default(), with, &ctx())
                .unwrap()
                .proposal
                .evidence,
            ["src/db.rs:3"]
        );
    }

    #[test]
    fn pending_proposals_block_duplicates_and_reserve_ids() {
        let l = sample();
        let first = plan(
            &l,
            &Queue::default(),
            req(vec![add_op("pitfalls", "Cache keys include the tenant.")]),
            &ctx(),
        )
        .unwrap()
        .proposal;
        let again = plan(
            &l,
            &Queue::of([&first], &l.limits()),
            req(vec![add_op(
                "architecture",
                "cache keys include the tenant",
            )]),
            &ctx(),
        );
        assert!(
            matches!(again, Err(PlanError::DuplicateProposal { proposal }) if proposal == first.id)
        );
        // The id a request would get is not minted again while a pending proposal reserves it.
        let other = || req(vec![add_op("pitfalls", "Something else.")]);
        let alone = plan(&l, &Queue::default(), other(), &ctx())
            .unwrap()
            .proposal;
        let wanted = alone.operations[0].new_id().unwrap().to_owned();
        let mut holder = first.clone();
        if let Operation::Add { fact_id, .. } = &mut holder.operations[0] {
            fact_id.clone_from(&wanted);
        }
        let queued = Queue::of([&holder], &l.limits());
        let minted = plan(&l, &queued, other(), &ctx()).unwrap().proposal;
        let minted = minted.operations[0].new_id().unwrap();
        assert_ne!(minted, wanted);
        assert!(minted.starts_with("f-"));
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

    #[test]
    fn minted_ids_avoid_the_ledgers_ids() {
        let queue = Queue::default();
        let empty = ledger(&[("a.md", "# A\n")]);
        let first = IdMinter::new(&empty, &queue, "seed").mint(0);
        // The same seed against a ledger that already holds that id mints another.
        let taken = ledger(&[("a.md", &format!("# A\n\n- **{first}** Taken.\n"))]);
        let again = IdMinter::new(&taken, &queue, "seed").mint(0);
        assert_ne!(again, first);
        assert!(taken.find(&again).is_none());
        assert!(crate::model::facts::file::is_fact_id(&again), "{again}");
    }
}
