//! Which files git leaves out of a commit: those a `.gitignore`, `info/exclude` or
//! `core.excludesFile` ignores and the index does not track already. A file `setup` writes for
//! the team does not reach it there.

use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;
use gix::index::entry::Mode;
use serde::Serialize;

use crate::git::index::whole_index;
use crate::git::{Repo, Result};
use crate::store;

/// A work-tree file git would not commit, and the rule that says so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ignored {
    /// The file, `/`-separated from the work tree's root.
    pub path: String,
    /// The pattern, as written (`.codex/*`).
    pub pattern: String,
    /// Where it is written (`.gitignore:12`, `.git/info/exclude:3`), from the root when inside.
    pub source: String,
}

/// Of `paths` (`/`-separated, from the work tree's root), those git would leave out of a commit.
pub fn ignored(repo: &Repo, paths: &[String]) -> Result<Vec<Ignored>> {
    let git = repo.gix();
    check_ignore_files(repo, paths)?;
    let index = match whole_index(git)? {
        Some(index) => index,
        None => gix::index::File::from_state(
            gix::index::State::new(git.object_hash()),
            git.index_path(),
        ),
    };
    let mut stack = git.excludes(
        &index,
        None,
        gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
    )?;
    let mut found = Vec::new();
    for path in paths {
        if index.entry_by_path(path.as_bytes().as_bstr()).is_some() {
            continue;
        }
        // git does not look into an ignored directory: a file in one is ignored by its rule.
        let dirs = path
            .match_indices('/')
            .filter_map(|(at, _)| Some((path.get(..at)?, Mode::DIR)));
        let mut found_rule = None;
        for (at, mode) in dirs.chain([(path.as_str(), Mode::FILE)]) {
            let platform = stack.at_path(at, Some(mode))?;
            if let Some(m) = platform
                .matching_exclude_pattern()
                .filter(|m| !m.pattern.is_negative())
            {
                found_rule = Some((
                    m.pattern.to_string(),
                    m.source.map(Path::to_owned),
                    m.sequence_number,
                ));
                break;
            }
        }
        let Some((pattern, source, line)) = found_rule else {
            continue;
        };
        let source = source.map_or_else(
            || "git's configuration".to_owned(),
            |s| {
                let shown = s.strip_prefix(repo.root()).unwrap_or(&s);
                format!("{}:{line}", shown.display())
            },
        );
        found.push(Ignored {
            path: path.clone(),
            pattern,
            source,
        });
    }
    Ok(found)
}

/// The ignore files gix opens on the way to `paths`, each checked by type and size first: they
/// come from a branch or the machine, and gix would block on a FIFO there.
fn check_ignore_files(repo: &Repo, paths: &[String]) -> Result<()> {
    let git = repo.gix();
    let mut files: Vec<PathBuf> = vec![git.common_dir().join("info").join("exclude")];
    if let Ok(Some(global)) = git.config_snapshot().trusted_path("core.excludesFile") {
        files.push(global);
    }
    for path in paths {
        let mut dir = repo.root().to_owned();
        files.push(dir.join(".gitignore"));
        let parts: Vec<&str> = path.split('/').collect();
        for part in &parts[..parts.len().saturating_sub(1)] {
            dir.push(part);
            files.push(dir.join(".gitignore"));
        }
    }
    // Paths in one directory share its ignore files: each is checked once.
    files.sort();
    files.dedup();
    for file in files {
        store::file::check_readable(&file, store::Kind::GitIgnore)?;
    }
    Ok(())
}
