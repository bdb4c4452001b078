//! mneme's `commit-msg` hook: installing it, and the check it runs.

use std::path::{Path, PathBuf};

use crate::git::commit;
use crate::git::hooks::hooks_dir;
use crate::git::index::{staged_dir, staged_under};
use crate::model::agents::templates;
use crate::model::base::paths;
use crate::model::provenance::decision::DECISION;
use crate::model::provenance::factdiff::{changes, Files};
use crate::model::provenance::record::judge;
use crate::ops::{Error, Result, Workspace};
use crate::store::{self, write_atomic};

/// What the hook file runs; its presence marks a hook mneme wrote.
const MARKER: &str = "mneme hooks commit-msg";

/// Writes the hook; an existing hook mneme did not write is replaced only with `force`.
pub fn install(ws: &Workspace, force: bool) -> Result<PathBuf> {
    let dir = hooks_dir(&ws.repo);
    let path = dir.join("commit-msg");
    if let Ok(existing) = store::file::read_local_text(&path) {
        if !existing.contains(MARKER) && !force {
            return Err(Error::ForeignHook { path });
        }
    }
    std::fs::create_dir_all(&dir).map_err(store::Error::io(&dir))?;
    write_atomic(&path, templates::COMMIT_MSG_HOOK.as_bytes())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .map_err(store::Error::io(&path))?;
    }
    Ok(path)
}

/// Refuses a commit whose staged changes alter facts unless its message is a mneme decision.
/// Edits around the facts and the repairs of `check --fix` pass. A ledger with decision
/// records is judged by its state instead: the commit passes when the facts it would leave are
/// what the records approved (a merge, a squash, a cherry-pick of decisions), and no record
/// goes (a revert of a decision).
pub fn check_commit(ws: &Workspace, message_file: &Path) -> Result<()> {
    // An approval killed after its commit point: git read the index without it, so this
    // commit would revert it. It is finished now, and this commit stopped.
    if commit::interrupted(&ws.repo) {
        if let Some(note) = commit::recover(&ws.repo)? {
            return Err(Error::ApprovalFinished { note });
        }
    }
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
