//! mneme's `commit-msg` hook: installing it, and the check it runs.

use std::path::{Path, PathBuf};

use crate::git::commit;
use crate::git::hooks::hooks_dir;
use crate::git::index::{staged_dir, staged_under};
use crate::model::agents::rules::compile_ledger;
use crate::model::agents::templates;
use crate::model::base::config::Config;
use crate::model::base::paths;
use crate::model::facts::ledger::Ledger;
use crate::model::provenance::decision::DECISION;
use crate::model::provenance::factdiff::{changes, Files};
use crate::model::provenance::record::judge;
use crate::ops::{Error, Result, Workspace};
use crate::store::{self, write_atomic, Durability};

/// What the hook file runs; its presence marks a hook mneme wrote.
const MARKER: &str = "mneme hooks commit-msg";

/// What installing the hook did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Installed {
    /// Written where there was none, or mneme's older one.
    Written { hook: PathBuf },
    /// mneme's current hook was already there.
    Unchanged { hook: PathBuf },
    /// Another hook was there: it was moved to `chained`, which mneme's runs first.
    Chained { hook: PathBuf, chained: PathBuf },
    /// Replaced another hook (`force`).
    Replaced { hook: PathBuf },
    /// `core.hooksPath` is inside the work tree, so its hooks are the project's own files:
    /// nothing is written there; the project adds `mneme hooks commit-msg "$1"` itself.
    Tracked { hook: PathBuf },
}

impl Installed {
    /// What a person must know of it, when anything: where the earlier hook went, or what to
    /// add to the project's own.
    pub fn note(&self) -> Option<String> {
        match self {
            Installed::Chained { chained, .. } => Some(format!(
                "the commit-msg hook that was there runs first, from {}",
                chained.display()
            )),
            Installed::Tracked { hook } => Some(format!(
                "core.hooksPath is inside the repository, so its hooks are the project's files: add `mneme hooks commit-msg \"$1\"` to {}",
                hook.display()
            )),
            _ => None,
        }
    }

    pub fn hook(&self) -> &Path {
        match self {
            Installed::Written { hook }
            | Installed::Unchanged { hook }
            | Installed::Chained { hook, .. }
            | Installed::Replaced { hook }
            | Installed::Tracked { hook } => hook,
        }
    }
}

/// Installs mneme's commit-msg hook. An existing hook mneme did not write is kept and run first
/// (moved to [`paths::CHAINED_HOOK`]), or with `force` replaced. Where `core.hooksPath` is inside the work
/// tree, its files are the project's: nothing is written.
pub fn install(ws: &Workspace, force: bool) -> Result<Installed> {
    let dir = hooks_dir(&ws.repo);
    let hook = dir.join("commit-msg");
    let in_work_tree =
        dir.starts_with(ws.repo.root()) && !dir.starts_with(ws.repo.gix().common_dir());
    if in_work_tree {
        return Ok(Installed::Tracked { hook });
    }
    let existing = store::file::read_local_text(&hook).ok();
    let installed = match existing.as_deref() {
        Some(text) if text == templates::COMMIT_MSG_HOOK => {
            return Ok(Installed::Unchanged { hook })
        }
        None => Installed::Written { hook: hook.clone() },
        Some(text) if text.contains(MARKER) => Installed::Written { hook: hook.clone() },
        Some(_) if force => Installed::Replaced { hook: hook.clone() },
        Some(_) => {
            let chained = dir.join(paths::CHAINED_HOOK);
            if chained.exists() {
                return Err(Error::ForeignHook { path: hook });
            }
            std::fs::rename(&hook, &chained).map_err(store::Error::io(&hook))?;
            Installed::Chained {
                hook: hook.clone(),
                chained,
            }
        }
    };
    std::fs::create_dir_all(&dir).map_err(store::Error::io(&dir))?;
    write_atomic(
        &hook,
        templates::COMMIT_MSG_HOOK.as_bytes(),
        Durability::Synced,
    )?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755))
            .map_err(store::Error::io(&hook))?;
    }
    Ok(installed)
}

/// Refuses a commit whose staged changes alter facts unless its message is a mneme decision.
/// Edits around the facts and the repairs of `check --fix` pass. A ledger with decision
/// records is judged by its state instead: the commit passes when the facts it would leave are
/// what the records approved (a merge, a squash, a cherry-pick of decisions), and no record
/// goes (a revert of a decision).
pub fn check_commit(ws: &Workspace, message_file: &Path) -> Result<()> {
    // An interrupted approval: this commit, read from an index without it, would leave it out.
    // It is not finished here: git holds the index's lock while its hook runs.
    if commit::interrupted(&ws.repo) {
        return Err(Error::ApprovalUnfinished);
    }
    check_compiled_staged(ws)?;
    if ws.store.load_config()?.decision_records {
        return check_state_staged(ws);
    }
    let message =
        store::file::read_local_text(message_file).map_err(store::Error::io(message_file))?;
    let is_decision = message
        .lines()
        .any(|l| l.starts_with(&format!("{DECISION}: ")));
    if is_decision {
        return Ok(());
    }
    let (before, after) = staged_under(&ws.repo, paths::FACTS)?;
    let found = changes(&before, &after);
    if found.is_empty() {
        return Ok(());
    }
    Err(Error::DirectFactEdit {
        facts: found.into_iter().map(|c| c.fact).collect(),
    })
}

/// Refuses a commit that changes a compiled rule file into anything but what the ledger it would
/// commit compiles to: a hand edit of one is an unreviewed change to what agents read. A rule
/// file left unchanged while the facts change is `check`'s and `verify`'s to report.
fn check_compiled_staged(ws: &Workspace) -> Result<()> {
    let mut changed: Vec<(String, Option<String>)> = Vec::new();
    for dir in paths::RULE_DIRS {
        let (before, after) = staged_under(&ws.repo, dir)?;
        for name in before.keys().chain(after.keys()) {
            let path = format!("{dir}/{name}");
            if paths::is_rule_file(&path) && !changed.iter().any(|(p, _)| *p == path) {
                changed.push((path, after.get(name).cloned()));
            }
        }
    }
    if changed.is_empty() {
        return Ok(());
    }
    let config_name = paths::CONFIG
        .rsplit_once('/')
        .map_or(paths::CONFIG, |(_, n)| n);
    let config = staged_dir(&ws.repo, paths::LEDGER)?
        .remove(config_name)
        .and_then(|text| Config::parse(&text).ok())
        .unwrap_or_default();
    let facts: Files = staged_dir(&ws.repo, paths::FACTS)?
        .into_iter()
        .filter(|(name, _)| name.ends_with(".md"))
        .collect();
    let unapproved = if config.decision_records {
        let records = staged_dir(&ws.repo, paths::DECISIONS)?;
        judge(&records, &[], &facts, None).unapproved()
    } else {
        Default::default()
    };
    let wanted = compile_ledger(&Ledger::from_texts(facts, config), &unapproved);
    let edited: Vec<String> = changed
        .into_iter()
        .filter(|(path, staged)| {
            wanted.iter().find(|f| f.path == *path).map(|f| &f.text) != staged.as_ref()
        })
        .map(|(path, _)| path)
        .collect();
    if edited.is_empty() {
        Ok(())
    } else {
        Err(Error::CompiledEdit { files: edited })
    }
}

/// The commit the index would make, against the decision records it would hold.
fn check_state_staged(ws: &Workspace) -> Result<()> {
    let (before, after) = staged_under(&ws.repo, paths::FACTS)?;
    // HEAD's versions of the record files the index changes or removes.
    let (changed_records, _) = staged_under(&ws.repo, paths::DECISIONS)?;
    if changes(&before, &after).is_empty() && changed_records.is_empty() {
        return Ok(());
    }
    let facts: Files = staged_dir(&ws.repo, paths::FACTS)?
        .into_iter()
        .filter(|(name, _)| name.ends_with(".md"))
        .collect();
    let records = staged_dir(&ws.repo, paths::DECISIONS)?;
    let earlier: Vec<String> = changed_records.into_keys().collect();
    // Signatures are `verify`'s to check, against the base a pull request merges into.
    let state = judge(&records, &earlier, &facts, None);
    if state.holds() {
        Ok(())
    } else {
        Err(Error::NotAsDecided {
            problems: state.problems(),
        })
    }
}
