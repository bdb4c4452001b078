//! The lint rules behind `mneme check`, one function each. Pure over loaded values; the caller
//! says whether an evidence reference still exists.
//!
//! Uses `provenance`, `proposals`, `tasks`, `evidence`, `facts` and `base`.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::model::base::config::Config;
use crate::model::base::ids::mint;
use crate::model::base::paths;
use crate::model::base::text::{first_chars, first_hidden, normalize, truncate};
use crate::model::base::time::Timestamp;
use crate::model::evidence::drift::Drifted;
use crate::model::evidence::refs::{classify, Evidence};
use crate::model::facts::fields::check_scope;
use crate::model::facts::file::{conflict_marker_line, Fact, Relation, State, FACT_PREFIX};
use crate::model::facts::ledger::{FactFileEntry, Limits};
use crate::model::facts::standing;
use crate::model::proposals::proposal::{Operation, Proposal, ProposalError};
use crate::model::proposals::secrets;
use crate::model::provenance::record::StateIssue;
use crate::model::tasks::task::{is_task_id, Task};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// What a finding is about; stable, documented in docs/check.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    FactFileParse,
    ConflictMarkers,
    Secret,
    ProposalParse,
    ProposalSchema,
    ProposalInvalid,
    ProposalTargetMissing,
    DuplicateId,
    OverBudget,
    Symlink,
    Config,
    TaskParse,
    MissingId,
    MetadataFormat,
    EmptyFact,
    DuplicateText,
    StaleFact,
    MissingSuccessor,
    MissingEvidence,
    InvalidMetadata,
    StaleProposal,
    TaskDepMissing,
    MergeDriverMissing,
    ClaimsRemoteMissing,
    RelationMissing,
    RelationInactive,
    Contradiction,
    EvidenceDrift,
    /// A scope glob matches no file git tracks.
    ScopeUnmatched,
    TaskFactMissing,
    HiddenText,
    InvalidRecord,
    NotAsDecided,
    /// A compiled rule file is not what the ledger compiles to (hand-edited, or left behind).
    CompiledOutOfDate,
}

impl Code {
    pub const ALL: [Code; 34] = [
        Code::FactFileParse,
        Code::ConflictMarkers,
        Code::Secret,
        Code::ProposalParse,
        Code::ProposalSchema,
        Code::ProposalInvalid,
        Code::ProposalTargetMissing,
        Code::DuplicateId,
        Code::OverBudget,
        Code::Symlink,
        Code::Config,
        Code::TaskParse,
        Code::MissingId,
        Code::MetadataFormat,
        Code::EmptyFact,
        Code::DuplicateText,
        Code::StaleFact,
        Code::MissingSuccessor,
        Code::MissingEvidence,
        Code::InvalidMetadata,
        Code::StaleProposal,
        Code::TaskDepMissing,
        Code::MergeDriverMissing,
        Code::ClaimsRemoteMissing,
        Code::RelationMissing,
        Code::RelationInactive,
        Code::Contradiction,
        Code::EvidenceDrift,
        Code::ScopeUnmatched,
        Code::TaskFactMissing,
        Code::HiddenText,
        Code::InvalidRecord,
        Code::NotAsDecided,
        Code::CompiledOutOfDate,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Code::FactFileParse => "fact_file_parse",
            Code::ConflictMarkers => "conflict_markers",
            Code::Secret => "secret",
            Code::ProposalParse => "proposal_parse",
            Code::ProposalSchema => "proposal_schema",
            Code::ProposalInvalid => "proposal_invalid",
            Code::ProposalTargetMissing => "proposal_target_missing",
            Code::DuplicateId => "duplicate_id",
            Code::OverBudget => "over_budget",
            Code::Symlink => "symlink",
            Code::Config => "config",
            Code::TaskParse => "task_parse",
            Code::MissingId => "missing_id",
            Code::MetadataFormat => "metadata_format",
            Code::EmptyFact => "empty_fact",
            Code::DuplicateText => "duplicate_text",
            Code::StaleFact => "stale_fact",
            Code::MissingSuccessor => "missing_successor",
            Code::MissingEvidence => "missing_evidence",
            Code::InvalidMetadata => "invalid_metadata",
            Code::StaleProposal => "stale_proposal",
            Code::TaskDepMissing => "task_dep_missing",
            Code::MergeDriverMissing => "merge_driver_missing",
            Code::ClaimsRemoteMissing => "claims_remote_missing",
            Code::RelationMissing => "relation_missing",
            Code::RelationInactive => "relation_inactive",
            Code::Contradiction => "contradiction",
            Code::EvidenceDrift => "evidence_drift",
            Code::ScopeUnmatched => "scope_unmatched",
            Code::TaskFactMissing => "task_fact_missing",
            Code::HiddenText => "hidden_text",
            Code::InvalidRecord => "invalid_record",
            Code::NotAsDecided => "not_as_decided",
            Code::CompiledOutOfDate => "compiled_out_of_date",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            Code::FactFileParse
            | Code::ConflictMarkers
            | Code::Secret
            | Code::ProposalParse
            | Code::ProposalSchema
            | Code::ProposalInvalid
            | Code::ProposalTargetMissing
            | Code::DuplicateId
            | Code::OverBudget
            | Code::Symlink
            | Code::Config
            | Code::TaskParse
            | Code::RelationMissing
            | Code::InvalidRecord
            | Code::NotAsDecided
            | Code::CompiledOutOfDate => Severity::Error,
            _ => Severity::Warning,
        }
    }

    /// `mneme check --fix` repairs findings of this code.
    pub fn fixable(self) -> bool {
        matches!(
            self,
            Code::MissingId | Code::MetadataFormat | Code::CompiledOutOfDate
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub severity: Severity,
    pub code: Code,
    /// Work-tree relative path.
    pub path: String,
    pub line: Option<usize>,
    pub message: String,
    /// `mneme check --fix` repairs it.
    pub fixable: bool,
}

/// A fact file as loaded: parsed, or the parse error and its line.
pub enum FileInput<'a> {
    Parsed(&'a FactFileEntry),
    Broken {
        name: String,
        line: usize,
        message: String,
    },
}

/// A proposal file as loaded.
pub struct ProposalInput<'a> {
    pub path: String,
    pub raw: Result<&'a Proposal, &'a ProposalError>,
}

pub struct Input<'a> {
    pub files: Vec<FileInput<'a>>,
    pub proposals: Vec<ProposalInput<'a>>,
    pub config: Result<&'a Config, String>,
    pub symlinks: Vec<String>,
    /// Task files that parse, and `(path, why)` of those that do not.
    pub tasks: &'a [Task],
    pub broken_tasks: Vec<(String, String)>,
    /// This clone has the merge driver registered for fact and task files (git config and
    /// `.gitattributes`).
    pub merge_driver: bool,
    /// The config's `claims_remote`, when this clone has no remote of that name.
    pub claims_remote_missing: Option<&'a str>,
    pub now: Timestamp,
    /// Facts whose cited files changed since they were vouched for, found in history.
    pub drift: &'a [Drifted],
    /// With `decision_records` on: record files that cannot be used, `(path, why)`, and where
    /// the facts differ from what the records approved.
    pub broken_records: Vec<(String, String)>,
    pub state: Vec<StateIssue>,
    /// Compiled rule files that are not what the ledger compiles to, and those it no longer
    /// compiles to.
    pub compiled_stale: Vec<String>,
    pub compiled_extra: Vec<String>,
}

/// Findings as the rules report them.
#[derive(Default)]
struct Findings(Vec<Finding>);

impl Findings {
    fn push(&mut self, code: Code, path: &str, line: Option<usize>, message: String) {
        self.0.push(Finding {
            severity: code.severity(),
            code,
            path: path.to_owned(),
            line,
            message,
            fixable: code.fixable(),
        });
    }
}

/// A fact with the work-tree path of its file.
struct Located<'a> {
    path: String,
    fact: &'a Fact,
}

/// Runs every rule. `evidence_exists(path, line)` says whether a repository file (and line)
/// exists; `scope_matches(glob)` whether a valid scope glob matches a file git tracks.
pub fn check(
    input: &Input,
    evidence_exists: impl Fn(&str, Option<usize>) -> bool,
    scope_matches: impl Fn(&str) -> bool,
) -> Vec<Finding> {
    let mut out = Findings::default();
    let default_config = Config::default();
    let config = config_rule(input, &mut out).unwrap_or(&default_config);
    repository_rules(input, &mut out);
    let parsed = parsed_files(input, &mut out);
    for entry in &parsed {
        if let Some(line) = conflict_marker_line(&entry.raw) {
            out.push(
                Code::ConflictMarkers,
                &paths::fact_file(&entry.name),
                Some(line),
                "an unresolved merge conflict: resolve it (keep each fact once), then commit"
                    .into(),
            );
        }
        hidden_text(entry, &mut out);
    }
    let facts: Vec<Located> = parsed
        .iter()
        .flat_map(|e| {
            let path = paths::fact_file(&e.name);
            e.file().facts().map(move |fact| Located {
                path: path.clone(),
                fact,
            })
        })
        .collect();
    let ids = id_rules(&facts, &mut out);
    let states: BTreeMap<&str, &State> = facts
        .iter()
        .filter_map(|f| Some((f.fact.id.as_deref()?, f.fact.meta.state())))
        .collect();
    duplicate_text(&facts, &mut out);
    let task_ids: BTreeSet<&str> = input.tasks.iter().map(|t| t.id.as_str()).collect();
    for f in &facts {
        state_rules(f, &ids, &mut out);
        relation_rules(f, &states, &mut out);
        date_rules(f, config, input.now, &mut out);
        evidence_rule(f, &evidence_exists, &task_ids, &mut out);
        scope_rule(f, &scope_matches, &mut out);
        drift_rule(f, input.drift, &mut out);
        for secret in secrets::find(&f.fact.text) {
            out.push(
                Code::Secret,
                &f.path,
                Some(f.fact.line),
                format!("the fact holds what looks like {secret}; propose its removal and rotate the credential"),
            );
        }
        metadata_format(f, &mut out);
    }
    budget(&parsed, config, &mut out);
    let file_names: BTreeSet<&str> = parsed.iter().map(|e| e.name.as_str()).collect();
    for p in &input.proposals {
        proposal_rules(p, &file_names, &ids, config, input.now, &mut out);
    }
    task_rules(input, &ids, &task_ids, &mut out);
    record_rules(input, &mut out);
    let mut found = out.0;
    found.sort_by(|a, b| (a.severity, &a.path, a.line).cmp(&(b.severity, &b.path, b.line)));
    found
}

/// What is wrong with the ledger's place in the repository and this clone, not its files'
/// contents: symlinks, compiled rule files out of date, the merge driver, the claims remote.
fn repository_rules(input: &Input, out: &mut Findings) {
    for link in &input.symlinks {
        out.push(
            Code::Symlink,
            link,
            None,
            format!(
                "symlinks are not allowed inside {}/ (they can point outside the repository)",
                paths::LEDGER
            ),
        );
    }
    for path in &input.compiled_stale {
        out.push(
            Code::CompiledOutOfDate,
            path,
            None,
            "not what the ledger compiles to: a rule file agents read, changed by hand or left behind by a ledger change; `mneme check --fix` writes it again".into(),
        );
    }
    for path in &input.compiled_extra {
        out.push(
            Code::CompiledOutOfDate,
            path,
            None,
            "a rule file mneme compiled that the ledger no longer compiles to; `mneme check --fix` removes it".into(),
        );
    }
    if !input.merge_driver {
        out.push(
            Code::MergeDriverMissing,
            paths::GITATTRIBUTES,
            None,
            "this clone has not registered mneme's merge driver for fact and task files, so merges of them are line merges; run `mneme init`".into(),
        );
    }
    if let Some(remote) = input.claims_remote_missing {
        out.push(
            Code::ClaimsRemoteMissing,
            paths::CONFIG,
            None,
            format!("claims_remote is `{remote}`, but this clone has no remote of that name: claims cannot be made across clones and `ready` cannot leave out tasks claimed elsewhere; add it (`git remote add {remote} <url>`) or change claims_remote"),
        );
    }
}

/// Invisible and direction-changing characters, line by line: shown escaped everywhere, but the
/// file itself reads differently in an editor or a forge than what it stores. A byte order mark
/// that starts the file is only an encoding mark.
fn hidden_text(entry: &FactFileEntry, out: &mut Findings) {
    let text = entry.raw.strip_prefix('\u{feff}').unwrap_or(&entry.raw);
    for (i, line) in text.lines().enumerate() {
        if let Some(what) = first_hidden(line) {
            out.push(
                Code::HiddenText,
                &paths::fact_file(&entry.name),
                Some(i + 1),
                format!(
                    "{what} is invisible or changes the text's direction: the line reads differently from what is stored; propose the text without it"
                ),
            );
        }
    }
}

fn config_rule<'a>(input: &Input<'a>, out: &mut Findings) -> Option<&'a Config> {
    match &input.config {
        Ok(c) => Some(*c),
        Err(message) => {
            out.push(Code::Config, paths::CONFIG, None, message.clone());
            None
        }
    }
}

fn parsed_files<'a>(input: &Input<'a>, out: &mut Findings) -> Vec<&'a FactFileEntry> {
    input
        .files
        .iter()
        .filter_map(|f| match f {
            FileInput::Parsed(e) => Some(*e),
            FileInput::Broken {
                name,
                line,
                message,
            } => {
                out.push(
                    Code::FactFileParse,
                    &paths::fact_file(name),
                    Some(*line),
                    message.clone(),
                );
                None
            }
        })
        .collect()
}

/// Ids are unique across the ledger; every fact has one. Returns the ids in use.
fn id_rules<'a>(facts: &[Located<'a>], out: &mut Findings) -> BTreeSet<&'a str> {
    let mut first_seen: BTreeMap<&str, (&str, usize)> = BTreeMap::new();
    for Located { path, fact } in facts {
        match &fact.id {
            Some(id) => match first_seen.get(id.as_str()) {
                Some((other, line)) => out.push(
                    Code::DuplicateId,
                    path,
                    Some(fact.line),
                    format!("id `{id}` is also used at {other}:{line}"),
                ),
                None => {
                    first_seen.insert(id, (path, fact.line));
                }
            },
            None if fact.text.is_empty() => out.push(
                Code::EmptyFact,
                path,
                Some(fact.line),
                "empty list item".into(),
            ),
            None => out.push(
                Code::MissingId,
                path,
                Some(fact.line),
                format!("fact without an id: \"{}\"", short(&fact.one_line())),
            ),
        }
    }
    first_seen.into_keys().collect()
}

/// Two active facts should not say the same thing.
fn duplicate_text(facts: &[Located], out: &mut Findings) {
    let mut texts: BTreeMap<String, (&str, usize)> = BTreeMap::new();
    for Located { path, fact } in facts {
        if !fact.meta.is_current() || fact.text.is_empty() {
            continue;
        }
        let norm = normalize(&fact.text);
        match texts.get(&norm) {
            Some((other, line)) => out.push(
                Code::DuplicateText,
                path,
                Some(fact.line),
                format!("says the same as {other}:{line}"),
            ),
            None => {
                texts.insert(norm, (path, fact.line));
            }
        }
    }
}

/// A known state, and a superseded fact's successor in the ledger.
fn state_rules(f: &Located, ids: &BTreeSet<&str>, out: &mut Findings) {
    let (path, fact) = (&f.path, f.fact);
    match fact.meta.state() {
        State::Active | State::Stale | State::Contested | State::Archived => {}
        State::Superseded => {
            let message = match &fact.meta.by {
                Some(by) if ids.contains(by.as_str()) => return,
                Some(by) => format!("superseded by `{by}`, which is not in the ledger"),
                None => "superseded without `by: <id>`".into(),
            };
            out.push(Code::MissingSuccessor, path, Some(fact.line), message);
        }
        State::Other(state) => out.push(
            Code::InvalidMetadata,
            path,
            Some(fact.line),
            format!("unknown state `{state}` (active, stale, contested, archived or superseded)"),
        ),
    }
}

/// A relation names a fact of the ledger other than its own, and one that is current; a
/// contradiction between current facts waits for a person.
fn relation_rules(f: &Located, states: &BTreeMap<&str, &State>, out: &mut Findings) {
    let (path, fact) = (&f.path, f.fact);
    for (relation, other) in fact.meta.related() {
        let key = relation.key();
        let unrelate = || match &fact.id {
            Some(id) => format!(
                "`mneme propose unrelate {id} --{} {other}`",
                key.replace('_', "-")
            ),
            None => "a proposal".into(),
        };
        let message = match states.get(other) {
            _ if fact.id.as_deref() == Some(other) => {
                format!("`{key}: {other}` names the fact itself; remove it with {}", unrelate())
            }
            None => format!(
                "`{key}: {other}` names a fact that is not in the ledger (removed?); remove it with {}",
                unrelate()
            ),
            Some(state) if !state.is_current() => {
                out.push(
                    Code::RelationInactive,
                    path,
                    Some(fact.line),
                    format!("`{key}: {other}` names a fact that is {}", state.as_str()),
                );
                continue;
            }
            Some(_) if relation == Relation::Contradicts && fact.meta.is_current() => {
                out.push(
                    Code::Contradiction,
                    path,
                    Some(fact.line),
                    format!(
                        "contradicts {other}: both are contested until a person supersedes, archives or updates one, or removes the relation with {}",
                        unrelate()
                    ),
                );
                continue;
            }
            Some(_) => continue,
        };
        out.push(Code::RelationMissing, path, Some(fact.line), message);
    }
}

/// Dates are `YYYY-MM-DD`; an active fact is re-verified within `stale_fact_days`.
fn date_rules(f: &Located, config: &Config, now: Timestamp, out: &mut Findings) {
    let (path, fact) = (&f.path, f.fact);
    for (key, value) in [
        ("since", &fact.meta.since),
        ("verified", &fact.meta.verified),
    ] {
        if let Some(v) = value {
            if v.len() != 10 || Timestamp::parse(v).is_none() {
                out.push(
                    Code::InvalidMetadata,
                    path,
                    Some(fact.line),
                    format!("`{key}: {v}` is not a YYYY-MM-DD date"),
                );
            }
        }
    }
    let verify = match &fact.id {
        Some(id) => format!("`mneme propose verify {id}`"),
        None => "a verify proposal".into(),
    };
    if *fact.meta.state() == State::Stale {
        out.push(
            Code::StaleFact,
            path,
            Some(fact.line),
            format!("marked stale: check it, then confirm it with {verify} or propose an update"),
        );
    } else if let Some(age) = standing::overdue(&fact.meta, config.stale_fact_days, now) {
        out.push(
            Code::StaleFact,
            path,
            Some(fact.line),
            format!(
                "last verified {age} days ago (stale_fact_days: {}); confirm it with {verify} or propose an update",
                config.stale_fact_days
            ),
        );
    }
}

/// Evidence that names a repository file must still point at it, and a task (`t-…`) must exist.
fn evidence_rule(
    f: &Located,
    exists: &impl Fn(&str, Option<usize>) -> bool,
    task_ids: &BTreeSet<&str>,
    out: &mut Findings,
) {
    for e in &f.fact.meta.evidence {
        if is_task_id(e) && !task_ids.contains(e.as_str()) {
            out.push(
                Code::MissingEvidence,
                &f.path,
                Some(f.fact.line),
                format!("evidence `{e}` names a task that does not exist"),
            );
        }
        if let Evidence::File { path, lines } = classify(e) {
            if !exists(path, lines.map(|(_, last)| last)) {
                out.push(
                    Code::MissingEvidence,
                    &f.path,
                    Some(f.fact.line),
                    format!("evidence `{e}` no longer exists; the fact may be stale"),
                );
            }
        }
    }
}

/// A scope glob is one `propose --scope` accepts, and matches a file git tracks.
fn scope_rule(f: &Located, matches: &impl Fn(&str) -> bool, out: &mut Findings) {
    for glob in &f.fact.meta.scope {
        let (code, message) = match check_scope(glob) {
            Err(e) => (Code::InvalidMetadata, e.to_string()),
            Ok(_) if !matches(glob) => (
                Code::ScopeUnmatched,
                format!("scope `{glob}` matches no file git tracks, so the fact reaches no agent through it; propose an update with the scope it should have (`--scope`)"),
            ),
            Ok(_) => continue,
        };
        out.push(code, &f.path, Some(f.fact.line), message);
    }
}

/// Cited code that changed after the fact was last approved or verified.
fn drift_rule(f: &Located, drift: &[Drifted], out: &mut Findings) {
    let Some(id) = f.fact.id.as_deref() else {
        return;
    };
    for d in drift.iter().filter(|d| d.fact == id) {
        for e in &d.evidence {
            let to = e
                .now
                .as_ref()
                .map(|n| format!(" to {n}"))
                .unwrap_or_default();
            let newest = e.commits.first().map(|c| {
                format!(
                    " (newest {} \"{}\")",
                    first_chars(&c.id, 10),
                    truncate(&c.subject, 60)
                )
            });
            out.push(
                Code::EvidenceDrift,
                &f.path,
                Some(f.fact.line),
                format!(
                    "evidence `{}` {}{to} in {} commit(s) since the fact was approved or verified{}; re-check it, then confirm it with `mneme propose verify {id}` or propose an update (`mneme stale` lists the commits)",
                    e.evidence,
                    e.kind.as_str(),
                    e.commits.len(),
                    newest.unwrap_or_default()
                ),
            );
        }
    }
}

fn metadata_format(f: &Located, out: &mut Findings) {
    let fact = f.fact;
    if !fact.meta.is_empty() && fact.raw_with_meta(&fact.meta) != fact.raw {
        out.push(
            Code::MetadataFormat,
            &f.path,
            Some(fact.line),
            "metadata is not in canonical form".into(),
        );
    }
}

/// All fact files together fit in `budget_lines`.
fn budget(parsed: &[&FactFileEntry], config: &Config, out: &mut Findings) {
    let lines: usize = parsed.iter().map(|e| e.lines()).sum();
    if lines > config.budget_lines {
        out.push(
            Code::OverBudget,
            paths::FACTS,
            None,
            format!(
                "the facts have {lines} lines, over the budget of {} (budget_lines); remove or merge facts",
                config.budget_lines
            ),
        );
    }
}

/// A proposal parses, names what exists, and is not left pending too long.
fn proposal_rules(
    p: &ProposalInput,
    file_names: &BTreeSet<&str>,
    ids: &BTreeSet<&str>,
    config: &Config,
    now: Timestamp,
    out: &mut Findings,
) {
    let proposal = match &p.raw {
        Ok(proposal) => *proposal,
        Err(e) => {
            let code = match e {
                ProposalError::Syntax(_) => Code::ProposalParse,
                ProposalError::Schema(_) => Code::ProposalSchema,
                ProposalError::Invalid { .. } => Code::ProposalInvalid,
            };
            out.push(code, &p.path, None, e.to_string());
            return;
        }
    };
    let limits = Limits {
        max_fact_chars: config.max_fact_chars,
        files: file_names.iter().map(|f| (*f).to_owned()).collect(),
    };
    if let Err(e) = proposal.validate(&limits) {
        out.push(Code::ProposalInvalid, &p.path, None, e.to_string());
        return;
    }
    for (field, secret) in proposal.secrets() {
        out.push(
            Code::Secret,
            &p.path,
            None,
            format!("the {field} holds what looks like {secret}; reject the proposal"),
        );
    }
    for op in proposal
        .operations
        .iter()
        .filter(|op| !matches!(op, Operation::Add { .. }))
    {
        if !ids.contains(op.fact_id()) {
            let message = format!("names fact `{}`, which is not in the ledger", op.fact_id());
            out.push(Code::ProposalTargetMissing, &p.path, None, message);
        }
    }
    if let (Some(created), true) = (proposal.created(), config.stale_proposal_days > 0) {
        let age = created.days_until(now);
        if age > i64::from(config.stale_proposal_days) {
            out.push(
                Code::StaleProposal,
                &p.path,
                None,
                format!("pending for {age} days; review it with `mneme review`"),
            );
        }
    }
}

/// Decision records parse, and the facts are what they approved.
fn record_rules(input: &Input, out: &mut Findings) {
    for (path, why) in &input.broken_records {
        out.push(Code::InvalidRecord, path, None, why.clone());
    }
    for issue in &input.state {
        let path = match issue {
            StateIssue::Unapproved { file, .. } | StateIssue::Differs { file, .. } => {
                paths::fact_file(file)
            }
            StateIssue::Missing { record, .. } => paths::decision_file(record),
        };
        let hint = match issue {
            StateIssue::Missing { .. } => "restore it as approved (a merge took one side?), or propose its removal",
            _ => "propose the change with `mneme propose` and approve it, or restore the approved text",
        };
        out.push(Code::NotAsDecided, &path, None, format!("{issue}: {hint}"));
    }
}

/// Task files parse, and the tasks they depend on and the facts they cite exist.
fn task_rules(
    input: &Input,
    fact_ids: &BTreeSet<&str>,
    task_ids: &BTreeSet<&str>,
    out: &mut Findings,
) {
    for (path, why) in &input.broken_tasks {
        out.push(Code::TaskParse, path, None, why.clone());
    }
    for t in input.tasks {
        for d in t.deps.iter().filter(|d| !task_ids.contains(d.id.as_str())) {
            out.push(
                Code::TaskDepMissing,
                &paths::task_file(&t.id),
                None,
                format!(
                    "depends on {} ({}), which does not exist",
                    d.id,
                    d.kind.as_str()
                ),
            );
        }
        for f in t.facts.iter().filter(|f| !fact_ids.contains(f.as_str())) {
            out.push(
                Code::TaskFactMissing,
                &paths::task_file(&t.id),
                None,
                format!(
                    "cites fact {f}, which is not in the ledger; `mneme update {} --uncite {f}`",
                    t.id
                ),
            );
        }
    }
}

fn short(s: &str) -> String {
    if s.chars().count() <= 60 {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(59).collect::<String>())
    }
}

/// Safe repairs of one file: ids stamped on id-less facts, metadata rewritten in canonical form.
/// Returns the new contents and a description of each change, or `None` when nothing changes.
/// `taken` holds every id in use and receives the new ones.
pub fn fix(
    entry: &FactFileEntry,
    taken: &mut BTreeSet<String>,
    now: Timestamp,
) -> Option<(String, Vec<String>)> {
    let mut file = entry.file().clone();
    let mut changes = Vec::new();
    let existing = taken.len();
    for fact in file.facts_mut() {
        let mut raw = if fact.meta.is_empty() {
            fact.raw.clone()
        } else {
            fact.raw_with_meta(&fact.meta)
        };
        if raw != fact.raw {
            changes.push(format!(
                "line {}: metadata rewritten in canonical form",
                fact.line
            ));
        }
        if fact.id.is_none() && !fact.text.is_empty() {
            let seed = format!(
                "{}\0{}\0{}\0{}",
                entry.name,
                fact.line,
                fact.text,
                now.rfc3339()
            );
            let id = mint(FACT_PREFIX, seed.as_bytes(), existing, |id| {
                taken.contains(id)
            });
            taken.insert(id.clone());
            raw = stamp_id(fact, &raw, &id);
            changes.push(format!("line {}: gave the fact id {id}", fact.line));
        }
        fact.raw = raw;
    }
    (!changes.is_empty()).then(|| (file.render(), changes))
}

/// `raw` with `**id** ` inserted where the fact's content starts.
fn stamp_id(fact: &Fact, raw: &str, id: &str) -> String {
    let (marker, content) = raw.split_at_checked(fact.marker.len()).unwrap_or((raw, ""));
    let body = content.trim_start_matches([' ', '\t']);
    // The whole gap stays before the id: it sets the column continuation lines must reach, so
    // a narrower one would pull the lines after the item into it.
    let gap = content.strip_suffix(body).unwrap_or("");
    let sep = if gap.is_empty() { " " } else { "" };
    format!("{marker}{gap}{sep}**{id}** {body}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::facts::file::FactFile;
    use crate::model::facts::ledger::tests::ledger;

    fn now() -> Timestamp {
        Timestamp::parse("2026-11-22T00:00:00Z").unwrap()
    }

    /// Found by fuzzing: stamping after the first blank of a wider gap narrowed the item's
    /// content column, and the indented fence after it became part of the fact.
    #[test]
    fn stamping_an_id_keeps_the_gap_after_the_marker() {
        for (raw, stamped) in [
            (
                "-  Größe ändern.\n  ```𝔢\n",
                "-  **f-new1** Größe ändern.\n",
            ),
            ("-\tTab gap.\n", "-\t**f-new1** Tab gap.\n"),
            ("- One space.\n", "- **f-new1** One space.\n"),
        ] {
            let file = FactFile::parse(raw).unwrap();
            let fact = file.facts().next().unwrap();
            assert_eq!(stamp_id(fact, &fact.raw, "f-new1"), stamped);
            let again = format!("{stamped}{}", raw.strip_prefix(fact.raw.as_str()).unwrap());
            let after = FactFile::parse(&again).unwrap();
            assert_eq!(after.facts().next().unwrap().text, fact.text, "{raw:?}");
        }
    }

    fn run(
        files: &[(&str, &str)],
        proposals: &[(&str, Result<Proposal, ProposalError>)],
        config: &Config,
    ) -> Vec<(Severity, &'static str, Option<usize>)> {
        let l = ledger(files);
        let input = Input {
            files: l.files().iter().map(FileInput::Parsed).collect(),
            proposals: proposals
                .iter()
                .map(|(p, r)| ProposalInput {
                    path: (*p).into(),
                    raw: r.as_ref(),
                })
                .collect(),
            config: Ok(config),
            symlinks: vec![],
            tasks: &[],
            broken_tasks: vec![],
            broken_records: vec![],
            state: vec![],
            merge_driver: true,
            claims_remote_missing: None,
            now: now(),
            drift: &[],
            compiled_stale: vec![],
            compiled_extra: vec![],
        };
        check(
            &input,
            |path, line| path == "src/ok.rs" && line.is_none_or(|l| l <= 10),
            |glob| glob == "src/**",
        )
        .into_iter()
        .map(|f| (f.severity, f.code.as_str(), f.line))
        .collect()
    }

    #[test]
    fn a_scope_that_matches_no_tracked_file_is_a_warning_and_a_malformed_one_invalid() {
        let f = run(
            &[(
                "a.md",
                "# A\n- **f-aaaa** One. <!-- since: 2026-11-01; scope: src/** docs/** /etc/* -->\n",
            )],
            &[],
            &Config::default(),
        );
        assert_eq!(
            f,
            [
                (Severity::Warning, "scope_unmatched", Some(2)),
                (Severity::Warning, "invalid_metadata", Some(2)),
            ]
        );
    }

    #[test]
    fn a_clean_ledger_has_no_findings() {
        let f = run(&[("a.md", "# A\n- **f-aaaa** One. <!-- since: 2026-11-01; evidence: src/ok.rs:3 https://x.y/z -->\n")], &[], &Config::default());
        assert_eq!(f, []);
    }

    #[test]
    fn each_fact_problem_is_found() {
        let src = "- **f-aaaa** One. <!-- since: 2020-01-01 -->\n\
                   - **f-aaaa** Two.\n\
                   - no id here\n\
                   - **f-bbbb** one!\n\
                   - **f-cccc** Old. <!-- state: superseded; by: f-gone -->\n\
                   - **f-dddd** Evidence. <!-- evidence: src/ok.rs:99 src/gone.rs -->\n\
                   - **f-eeee** Odd. <!--since:2026-01-01;state:active-->\n\
                   - **f-ffff** Bad date. <!-- since: yesterday -->\n";
        let f = run(&[("a.md", src)], &[], &Config::default());
        assert_eq!(
            f,
            [
                (Severity::Error, "duplicate_id", Some(2)),
                (Severity::Warning, "stale_fact", Some(1)),
                (Severity::Warning, "missing_id", Some(3)),
                (Severity::Warning, "duplicate_text", Some(4)),
                (Severity::Warning, "missing_successor", Some(5)),
                (Severity::Warning, "missing_evidence", Some(6)),
                (Severity::Warning, "missing_evidence", Some(6)),
                (Severity::Warning, "metadata_format", Some(7)),
                (Severity::Warning, "invalid_metadata", Some(8)),
            ]
        );
    }

    #[test]
    fn budget_and_proposals() {
        let config = Config {
            budget_lines: 1,
            ..Config::default()
        };
        let proposal = |id: &str, operations| Proposal {
            schema: crate::model::proposals::proposal::SCHEMA,
            id: id.into(),
            created_at: "2020-01-01T00:00:00Z".into(),
            agent: None,
            author: None,
            reason: "r".into(),
            evidence: vec![],
            operations,
            base: Default::default(),
        };
        let old = proposal(
            "20200101T000000Z-00000000",
            vec![
                Operation::Remove {
                    file: "a.md".into(),
                    fact_id: "f-zzzz".into(),
                    before: "x".into(),
                },
                Operation::Supersede {
                    scope: Vec::new(),
                    evidence: Vec::new(),
                    file: "a.md".into(),
                    fact_id: "f-yyyy".into(),
                    before: "y".into(),
                    new_fact_id: "f-new2".into(),
                    text: "Replacement.".into(),
                    relations: Default::default(),
                },
            ],
        );
        let invalid = proposal(
            "20200101T000000Z-00000001",
            vec![Operation::Add {
                scope: Vec::new(),
                file: "nope.md".into(),
                fact_id: "f-new1".into(),
                text: "t".into(),
                relations: Default::default(),
                evidence: Vec::new(),
                state: None,
                by: None,
            }],
        );
        let f = run(
            &[("a.md", "- **f-aaaa** One.\n- **f-bbbb** Two.\n")],
            &[
                ("p1.json", Ok(old)),
                (
                    "p2.json",
                    Err(ProposalError::Syntax("expected value".into())),
                ),
                (
                    "p3.json",
                    Err(ProposalError::Schema("unknown field `x`".into())),
                ),
                ("p4.json", Ok(invalid)),
            ],
            &config,
        );
        let codes: Vec<_> = f.iter().map(|x| x.1).collect();
        assert_eq!(
            codes,
            [
                "over_budget",
                "proposal_target_missing",
                "proposal_target_missing",
                "proposal_parse",
                "proposal_schema",
                "proposal_invalid",
                "stale_proposal"
            ]
        );
    }

    #[test]
    fn every_code_is_documented_with_its_severity() {
        let doc = include_str!("../../docs/check.md");
        let (errors, warnings) = doc.split_once("## Warnings").unwrap();
        for code in Code::ALL {
            let row = format!("| `{}` |", code.as_str());
            let section = match code.severity() {
                Severity::Error => errors,
                Severity::Warning => warnings,
            };
            assert!(
                section.contains(&row),
                "docs/check.md does not list `{}` under {:?}",
                code.as_str(),
                code.severity()
            );
        }
        let json = serde_json::to_value(Code::ALL.as_slice()).unwrap();
        let names: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(json, serde_json::json!(names));
    }

    #[test]
    fn fix_stamps_ids_and_normalises_metadata() {
        let l = ledger(&[("a.md", "- **f-aaaa** Kept.\n- Needs an id\n  on two lines.\n1.\tTabbed.\n- **f-eeee** Odd. <!--since:2026-01-01;state:active-->\n")]);
        let mut taken: BTreeSet<String> = l.ids().map(str::to_owned).collect();
        let (new, changes) = fix(&l.files()[0], &mut taken, now()).unwrap();
        assert_eq!(changes.len(), 3, "{changes:?}");
        let parsed = FactFile::parse(&new).unwrap();
        let facts: Vec<_> = parsed.facts().collect();
        assert!(facts.iter().all(|f| f.id.is_some()));
        assert_eq!(facts[1].text, "Needs an id\non two lines.");
        assert!(new.contains("1.\t**f-"), "{new}");
        assert!(new.contains("- **f-eeee** Odd. <!-- state: active; since: 2026-01-01 -->\n"));
        assert_eq!(taken.len(), 4);
        let again = FactFileEntry::parse("a.md".into(), new).unwrap();
        assert!(fix(&again, &mut taken, now()).is_none(), "idempotent");
    }
}
