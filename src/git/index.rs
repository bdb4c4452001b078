//! The index: locking it as git does, reading it, and comparing it with HEAD.

use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;

use crate::git::commit::FileWrite;
use crate::git::history::{blob_text, blobs_in};
use crate::git::{Error, Repo, Result};
use crate::model::factdiff::Files;
use crate::store;

pub(crate) fn lock_index(repo: &gix::Repository) -> Result<gix::lock::File> {
    gix::lock::File::acquire_to_update_resource(
        repo.index_path(),
        gix::lock::acquire::Fail::Immediately,
        None,
        0,
    )
    .map_err(|_| Error::Locked {
        path: index_lock_path(repo),
    })
}

pub(crate) fn index_lock_path(repo: &gix::Repository) -> PathBuf {
    let mut lock = repo.index_path().into_os_string();
    lock.push(".lock");
    PathBuf::from(lock)
}

pub(crate) fn read_index(repo: &gix::Repository) -> Result<gix::index::File> {
    if repo.index_path().exists() {
        repo.open_index().map_err(Error::from)
    } else {
        Ok(gix::index::File::from_state(
            gix::index::State::new(repo.object_hash()),
            repo.index_path(),
        ))
    }
}

/// Refuses to commit a file that holds edits nobody reviewed: it must match HEAD in the index
/// and in the work tree (or, if never committed, hold its pristine content).
pub(crate) fn check_unedited(
    repo: &gix::Repository,
    tree: &gix::Tree<'_>,
    index: &gix::index::File,
    root: &Path,
    w: &FileWrite,
) -> Result<()> {
    let edits = |kind| Error::LocalEdits {
        path: w.path.clone(),
        kind,
    };
    let on_disk = store::read_optional(&root.join(&w.path))?;
    if on_disk.as_deref() != Some(w.old.as_slice()) {
        return Err(edits("unstaged"));
    }
    let disk_id = gix::objs::compute_hash(repo.object_hash(), gix::objs::Kind::Blob, &w.old)?;
    let in_head = tree.lookup_entry_by_path(&w.path)?.map(|e| e.object_id());
    let in_index = index
        .entry_by_path(w.path.as_bytes().as_bstr())
        .map(|e| e.id);
    match in_head {
        Some(h) if in_index != Some(h) => Err(edits("staged")),
        Some(h) if disk_id != h => Err(edits("unstaged")),
        Some(_) => Ok(()),
        None if w.pristine.map(str::as_bytes) != Some(w.old.as_slice()) => {
            Err(edits("uncommitted"))
        }
        None if in_index.is_some_and(|i| i != disk_id) => Err(edits("staged")),
        None => Ok(()),
    }
}

/// `file name → contents` of the files directly in `dir/` whose index entry differs from HEAD:
/// HEAD's version (`before`) and the index's (`after`), i.e. what committing the index would
/// change there.
pub fn staged_under(repo: &Repo, dir: &str) -> Result<(Files, Files)> {
    let index = read_index(repo.gix())?;
    let head_tree = repo.gix().head_tree_id_or_empty()?.detach();
    let in_head = blobs_in(repo.gix(), head_tree, dir)?;
    let prefix = format!("{dir}/");
    let mut in_index = std::collections::BTreeMap::new();
    for entry in index.entries() {
        let path = entry.path(&index).to_str_lossy();
        if let Some(name) = path.strip_prefix(&prefix).filter(|n| !n.contains('/')) {
            in_index.insert(name.to_owned(), entry.id);
        }
    }
    let (mut before, mut after) = (Files::new(), Files::new());
    for name in in_head.keys().chain(in_index.keys()) {
        let (head, staged) = (in_head.get(name), in_index.get(name));
        if head == staged || before.contains_key(name) || after.contains_key(name) {
            continue;
        }
        if let Some(id) = head {
            before.insert(name.clone(), blob_text(repo.gix(), *id)?);
        }
        if let Some(id) = staged {
            after.insert(name.clone(), blob_text(repo.gix(), *id)?);
        }
    }
    Ok((before, after))
}
