//! `check`: load everything the lint rules look at, run them, and apply the safe repairs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::git::config::merge_driver_configured;
use crate::git::index::tracked_paths;
use crate::model::agents::scope::matches_any;
use crate::model::agents::templates;
use crate::model::base::paths;
use crate::model::base::time::Timestamp;
use crate::model::evidence::cited::inside;
use crate::model::evidence::drift::Drifted;
use crate::model::facts::ledger::FactFileEntry;
use crate::model::lint::{self, FileInput, Finding, ProposalInput, Severity};
use crate::model::provenance::factdiff::Files;
use crate::ops::records::work_tree_state;
use crate::ops::{now, rules, stale, Result, Workspace};
use crate::store::{self, write_atomic, Durability, Kind};

/// The outcome of `mneme check` (the `--json` shape, docs/check.md).
#[derive(Debug, Serialize)]
pub struct Report {
    pub errors: usize,
    pub warnings: usize,
    pub findings: Vec<Finding>,
    /// `(path, change)` of each repair `--fix` made.
    pub fixed: Vec<(String, String)>,
}

/// Lints the ledger; with `fix`, first applies the safe repairs under the ledger lock.
pub fn check(ws: &Workspace, fix: bool) -> Result<Report> {
    ws.store.check_ledger()?;
    let now = now();
    let _lock = if fix { Some(ws.store.lock()?) } else { None };
    let mut fixed = if fix { repair(ws, now)? } else { Vec::new() };
    if fix && ws.store.load().is_ok() {
        // After the fact files' repairs: the rule files compile from what they hold now.
        let drift = rules::sync_work_tree(ws, true)?;
        fixed.extend(
            drift
                .stale
                .into_iter()
                .map(|p| (p, "written from the ledger".into())),
        );
        fixed.extend(
            drift
                .extra
                .into_iter()
                .map(|p| (p, "removed: the ledger no longer compiles to it".into())),
        );
    }
    let findings = findings(ws, now)?;
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    Ok(Report {
        errors,
        warnings: findings.len() - errors,
        findings,
        fixed,
    })
}

fn findings(ws: &Workspace, now: Timestamp) -> Result<Vec<Finding>> {
    let store = &ws.store;
    let files = store.load_files()?;
    let proposals = store.load_proposals()?;
    if let Ok(ledger) = store.load() {
        store.rebuild_queue_index(&ledger.limits())?;
    }
    let tasks = store.read_task_files()?;
    let config = store.load_config().map_err(|e| match e {
        // The finding names the file already.
        store::Error::Config { source, .. } => source.to_string(),
        other => crate::error_chain(&other),
    });
    let drift = drift(ws, &files)?;
    // A ledger that does not load compiles to nothing: its own findings say why.
    let compiled = match store.load() {
        Ok(_) => rules::sync_work_tree(ws, false)?,
        Err(_) => rules::Drift::default(),
    };
    let rel = |p: &Path| store.relative(p).display().to_string();
    let (broken_records, state) = match &config {
        Ok(c) if c.decision_records => {
            let fact_files: Files = files
                .iter()
                .filter_map(|(_, e)| e.as_ref().ok())
                .map(|e| (e.name.clone(), e.raw.clone()))
                .collect();
            let state = work_tree_state(ws, &fact_files)?;
            let broken = state.invalid.into_iter().map(|i| (i.file, i.why)).collect();
            (broken, state.issues)
        }
        _ => (Vec::new(), Vec::new()),
    };
    let input = lint::Input {
        files: files
            .iter()
            .map(|(path, entry)| match entry {
                Ok(e) => FileInput::Parsed(e),
                Err(e) => broken_file(path, e),
            })
            .collect(),
        proposals: proposals
            .iter()
            .map(|p| ProposalInput {
                path: rel(&p.path),
                raw: p.proposal.as_ref(),
            })
            .collect(),
        config: config.as_ref().map_err(Clone::clone),
        symlinks: store.symlinks()?.iter().map(|p| rel(p)).collect(),
        tasks: &tasks.tasks,
        broken_tasks: tasks
            .broken
            .iter()
            .map(|(p, why)| (rel(p), why.clone()))
            .collect(),
        merge_driver: merge_driver_registered(ws)?,
        claims_remote_missing: config
            .as_ref()
            .ok()
            .and_then(|c| c.claims_remote.as_deref())
            .filter(|remote| ws.repo.check_remote(remote).is_err()),
        now,
        drift: &drift,
        broken_records,
        state,
        compiled_stale: compiled.stale,
        compiled_extra: compiled.extra,
    };
    // Read only when a fact has a scope: a large repository's index is most of the cost.
    let tracked = std::cell::OnceCell::new();
    let scope_matches = |glob: &str| match tracked.get_or_init(|| tracked_paths(&ws.repo)) {
        Ok(paths) => matches_any(glob, paths.iter().map(String::as_str)),
        // Without the index nothing can be said: no warning.
        Err(_) => true,
    };
    Ok(lint::check(
        &input,
        |path, line| evidence_exists(store.root(), path, line),
        scope_matches,
    ))
}

/// The parsed facts whose cited files changed since they were vouched for.
fn drift(
    ws: &Workspace,
    files: &[(PathBuf, store::Result<FactFileEntry>)],
) -> Result<Vec<Drifted>> {
    let Some(range) = stale::head_range(&ws.repo)? else {
        return Ok(Vec::new());
    };
    let parsed = files.iter().filter_map(|(_, e)| e.as_ref().ok());
    Ok(stale::drifted(&ws.repo, &range, &stale::watched(parsed))?.facts)
}

/// Whether git would use mneme's merge driver for fact and task files in this clone: the
/// repository's config defines it and `.gitattributes` routes both kinds of file to it.
fn merge_driver_registered(ws: &Workspace) -> Result<bool> {
    let attributes = ws
        .store
        .read_text(paths::GITATTRIBUTES, Kind::GitAttributes)?;
    let routed = attributes.is_some_and(|a| {
        templates::gitattributes_lines()
            .iter()
            .all(|line| a.lines().any(|l| l.trim() == line))
    });
    Ok(routed && merge_driver_configured(&ws.repo))
}

fn broken_file<'a>(path: &Path, e: &store::Error) -> FileInput<'a> {
    let name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    match e {
        store::Error::FactFile { line, message, .. } => FileInput::Broken {
            name,
            line: *line,
            message: message.clone(),
        },
        other => FileInput::Broken {
            name,
            line: 1,
            message: crate::error_chain(other),
        },
    }
}

/// Whether `path` (relative to the work tree, never escaping it) exists with at least `line` lines.
fn evidence_exists(root: &Path, path: &str, line: Option<usize>) -> bool {
    if !inside(path) {
        return false;
    }
    let rel = Path::new(path);
    match line {
        None => root.join(rel).exists(),
        Some(n) => store::file::read_file(root, &root.join(rel), Kind::Evidence)
            .ok()
            .flatten()
            .is_some_and(|bytes| line_count(&bytes) >= n),
    }
}

fn line_count(bytes: &[u8]) -> usize {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}

/// Applies the safe repairs to every parsed fact file; returns `(path, change)` for each.
fn repair(ws: &Workspace, now: Timestamp) -> Result<Vec<(String, String)>> {
    let files = ws.store.load_files()?;
    let mut taken: BTreeSet<String> = files
        .iter()
        .filter_map(|(_, e)| e.as_ref().ok())
        .flat_map(|e| e.file().facts().filter_map(|f| f.id.clone()))
        .collect();
    taken.extend(
        ws.store
            .pending_proposals()?
            .into_iter()
            .flat_map(|p| p.operations)
            .filter_map(|o| o.new_id().map(str::to_owned)),
    );
    let mut done = Vec::new();
    for (path, entry) in &files {
        let Ok(entry) = entry else { continue };
        if let Some((new, changes)) = lint::fix(entry, &mut taken, now) {
            write_atomic(path, new.as_bytes(), Durability::Synced)?;
            let rel = ws.store.relative(path).display().to_string();
            done.extend(changes.into_iter().map(|c| (rel.clone(), c)));
        }
    }
    Ok(done)
}
