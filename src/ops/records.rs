//! Decision records (docs/format.md): the facts of a commit checked against the records in its
//! tree, and an older ledger's decisions in git history converted into records, once.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::git::history::{approved_files, decisions, facts_of, record_files_at, text_at};
use crate::git::Repo;
use crate::model::config::{with_decision_records, Config};
use crate::model::decision::Verdict;
use crate::model::factdiff::Files;
use crate::model::ledger::Ledger;
use crate::model::paths;
use crate::model::proposal::{is_fact_id, is_proposal_id};
use crate::model::record::{check_state, Record, StateIssue};
use crate::model::time::Timestamp;
use crate::ops::{Result, Workspace};
use crate::store::{create_new, read_optional_text};

/// The facts of a commit against the decision records in its tree.
#[derive(Debug, Serialize)]
pub struct State {
    /// Record files read.
    pub records: usize,
    /// Where the facts differ from what the records approved.
    pub issues: Vec<StateIssue>,
    /// Record files that cannot be used, with why: they explain nothing.
    pub invalid: Vec<InvalidRecord>,
    /// Records the range's base had that its head lacks: records are only ever added, so a
    /// revert of a decision commit or a deleted record shows here.
    pub removed: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct InvalidRecord {
    pub file: String,
    pub why: String,
    #[serde(skip)]
    name: String,
}

impl State {
    pub fn holds(&self) -> bool {
        self.issues.is_empty() && self.invalid.is_empty() && self.removed.is_empty()
    }
}

/// The state of `commit`'s facts; `None` when its ledger does not keep decision records
/// (`decision_records` in its config; `mneme migrate` converts an older ledger's history).
/// `base` is where the range forks: its records must all still be there.
pub fn state_at(
    repo: &Repo,
    commit: gix::ObjectId,
    base: Option<gix::ObjectId>,
) -> Result<Option<State>> {
    // The config as the commit has it; one that does not parse keeps the history as the proof.
    let config = text_at(repo, commit, paths::CONFIG)?
        .and_then(|text| Config::parse(&text).ok())
        .unwrap_or_default();
    if !config.decision_records {
        return Ok(None);
    }
    let files = record_files_at(repo, commit)?.unwrap_or_default();
    let mut records = Vec::new();
    let mut invalid = Vec::new();
    for (name, text) in files {
        match Record::parse(&name, &text) {
            Ok(record) => records.push((name, record)),
            Err(why) => invalid.push(InvalidRecord {
                file: paths::decision_file(&name),
                why: why.to_string(),
                name,
            }),
        }
    }
    let at_head: BTreeSet<&str> = records
        .iter()
        .map(|(name, _)| name.as_str())
        .chain(invalid.iter().map(|i| i.name.as_str()))
        .collect();
    let mut removed = Vec::new();
    if let Some(base) = base {
        for (name, _) in record_files_at(repo, base)?.unwrap_or_default() {
            if !at_head.contains(name.as_str()) {
                removed.push(paths::decision_file(&name));
            }
        }
    }
    let facts = facts_of(repo, Some(commit))?;
    Ok(Some(State {
        records: records.len(),
        issues: check_state(&records, &facts),
        invalid,
        removed,
    }))
}

/// What `migrate` did (the `--json` shape, docs/json.md).
#[derive(Debug, Serialize)]
pub struct Migration {
    /// The record files written, to be committed.
    pub written: Vec<String>,
    /// Decisions that already had a record.
    pub already: usize,
    /// Decisions in history without a proposal id to record (hand-written trailers).
    pub skipped: usize,
    /// `decision_records: true` was set in the config.
    pub config_updated: bool,
}

/// Writes a record for each decision in the history of HEAD that has none: an approval's record
/// holds the facts its commit changed, against its first parent. The records are left in the
/// work tree to be reviewed and committed. Safe to re-run.
pub fn migrate(ws: &Workspace) -> Result<Migration> {
    let _lock = ws.store.lock()?;
    let dir = ws.store.path(paths::DECISIONS);
    let mut known: BTreeSet<(String, &'static str)> = BTreeSet::new();
    for (name, _) in crate::store::file::list_dir(&dir, ".json")? {
        let path = dir.join(&name);
        let text = std::fs::read_to_string(&path).map_err(crate::store::Error::io(&path))?;
        let stem = name.strip_suffix(".json").unwrap_or(&name);
        if let Ok(r) = Record::parse(stem, &text) {
            known.insert((r.proposal, r.verdict.as_str()));
        }
    }
    let mut out = Migration {
        written: Vec::new(),
        already: 0,
        skipped: 0,
        config_updated: false,
    };
    let history = decisions(&ws.repo, None, None, false)?;
    for r in history.into_iter().rev() {
        if !is_proposal_id(&r.proposal) {
            out.skipped += 1;
            continue;
        }
        if !known.insert((r.proposal.clone(), r.verdict.as_str())) {
            out.already += 1;
            continue;
        }
        let (before, after) = match r.verdict {
            Verdict::Approve => approved_files(&ws.repo, &r)?,
            Verdict::Reject => (Files::new(), Files::new()),
        };
        let at = Timestamp::parse(&r.date).unwrap_or_else(crate::ops::now);
        let by = r.reviewer.as_deref().unwrap_or("unknown (not recorded)");
        let record = Record::new(r.verdict, &r.proposal, by, at, &before, &after);
        let rel = paths::decision_file(&record.id());
        std::fs::create_dir_all(&dir).map_err(crate::store::Error::io(&dir))?;
        if create_new(&ws.store.path(&rel), record.render().as_bytes())? {
            out.written.push(rel);
        }
    }
    // From now on `verify` checks the facts against the records.
    let config = ws.store.path(paths::CONFIG);
    let text = read_optional_text(&config, paths::CONFIG)?.unwrap_or_default();
    let on = with_decision_records(&text);
    if on != text {
        crate::store::write_atomic(&config, on.as_bytes())?;
        out.config_updated = true;
    }
    Ok(out)
}

/// `(path, why)` of record files that cannot be used.
pub type BrokenRecords = Vec<(String, String)>;

/// The decision records in the work tree that cannot be used, and where the facts `files`
/// differ from what the others approved.
pub fn work_tree_state(ws: &Workspace, files: &Files) -> Result<(BrokenRecords, Vec<StateIssue>)> {
    let dir = ws.store.path(paths::DECISIONS);
    let mut records = Vec::new();
    let mut broken = Vec::new();
    for (name, _) in crate::store::file::list_dir(&dir, ".json")? {
        let path = dir.join(&name);
        let stem = name.strip_suffix(".json").unwrap_or(&name);
        let rel = paths::decision_file(stem);
        let text = match read_optional_text(&path, &rel) {
            Ok(text) => text.unwrap_or_default(),
            Err(e) => {
                broken.push((rel, crate::error_chain(&e)));
                continue;
            }
        };
        match Record::parse(stem, &text) {
            Ok(r) => records.push((stem.to_owned(), r)),
            Err(why) => broken.push((rel, why.to_string())),
        }
    }
    Ok((broken, check_state(&records, files)))
}

/// The ids of the facts in the work tree that are not what the decision records approved, when
/// the ledger keeps records: what agents must not be shown as verified.
pub fn unapproved(ws: &Workspace, ledger: &Ledger) -> Result<BTreeSet<String>> {
    if !ledger.config.decision_records {
        return Ok(BTreeSet::new());
    }
    let files: Files = ledger
        .files()
        .iter()
        .map(|f| (f.name.clone(), f.raw.clone()))
        .collect();
    let (_, issues) = work_tree_state(ws, &files)?;
    Ok(issues
        .iter()
        .filter(|i| !matches!(i, StateIssue::Missing { .. }))
        .map(StateIssue::fact)
        // A fact without an id is already shown as one.
        .filter(|fact| is_fact_id(fact))
        .map(str::to_owned)
        .collect())
}
