//! The git side of the shell, through gix: finding the repository, decision commits, history.

pub mod commit;
pub mod history;

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Where a work tree and its git directory are.
#[derive(Debug, Clone)]
pub struct Location {
    /// Root of the work tree.
    pub root: PathBuf,
    /// This work tree's git directory (`.git`, or `.git/worktrees/<name>` for a linked worktree).
    pub git_dir: PathBuf,
}

/// Finds the repository containing `cwd`, honouring `GIT_DIR` and friends as git does.
pub fn discover(cwd: &Path) -> Result<(Location, gix::Repository)> {
    let repo =
        gix::discover_with_environment_overrides(cwd).map_err(|_| Error::NotARepository {
            path: cwd.to_owned(),
        })?;
    let root = repo
        .workdir()
        .ok_or_else(|| Error::BareRepository {
            path: repo.git_dir().to_owned(),
        })?
        .to_owned();
    let location = Location {
        root: absolute(&root, cwd),
        git_dir: absolute(repo.git_dir(), cwd),
    };
    Ok((location, repo))
}

/// `Name <email>` of the configured author, if any.
pub fn author(repo: &gix::Repository) -> Option<String> {
    let sig = repo.author()?.ok()?;
    Some(format!("{} <{}>", sig.name, sig.email))
}

fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_owned()
    } else {
        cwd.join(path)
    };
    joined.canonicalize().unwrap_or(joined)
}
