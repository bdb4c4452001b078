//! mneme's `commit-msg` hook: installing it, and the check it runs.

use std::path::{Path, PathBuf};

use crate::git::{hooks::hooks_dir, index::staged_under};
use crate::model::decision::DECISION;
use crate::model::factdiff::changes;
use crate::model::{paths, templates};
use crate::ops::{Error, Result, Workspace};
use crate::store::{self, write_atomic};

/// What the hook file runs; its presence marks a hook mneme wrote.
const MARKER: &str = "mneme hooks commit-msg";

/// Writes the hook; an existing hook mneme did not write is replaced only with `force`.
pub fn install(ws: &Workspace, force: bool) -> Result<PathBuf> {
    let dir = hooks_dir(&ws.repo);
    let path = dir.join("commit-msg");
    if let Ok(existing) = std::fs::read_to_string(&path) {
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
/// Edits around the facts and the repairs of `check --fix` pass.
pub fn check_commit(ws: &Workspace, message_file: &Path) -> Result<()> {
    let message = std::fs::read_to_string(message_file).map_err(store::Error::io(message_file))?;
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
