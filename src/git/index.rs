//! The index: locking it as git does, reading it, and comparing it with HEAD.

use std::path::PathBuf;

use gix::bstr::ByteSlice;

use crate::git::history::{blob_text, blobs_in};
use crate::git::{Error, Repo, Result};
use crate::model::factdiff::Files;

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
        // Not hashed on reading, as git does not (only fsck verifies it): in a repository of
        // 300,000 files hashing the index costs a third of an approval. Writing still hashes.
        gix::index::File::at(
            repo.index_path(),
            repo.object_hash(),
            true,
            Default::default(),
        )
        .map_err(Error::from)
    } else {
        Ok(gix::index::File::from_state(
            gix::index::State::new(repo.object_hash()),
            repo.index_path(),
        ))
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

/// Files directly in the work-tree directory `dir` that HEAD does not hold as they are: new or
/// changed since the last commit (`/`-separated paths, sorted).
pub fn uncommitted_in(repo: &Repo, dir: &str) -> Result<Vec<String>> {
    let git = repo.gix();
    let head_tree = git.head_tree_id_or_empty()?.detach();
    let in_head = blobs_in(git, head_tree, dir)?;
    let index = read_index(git)?;
    let mut eol = crate::git::eol::Eol::new(git, &index)?;
    let mut out = Vec::new();
    for (name, path) in crate::store::file::list_dir(&repo.root().join(dir), "")? {
        let path_in_repo = format!("{dir}/{name}");
        let bytes = std::fs::read(&path).map_err(crate::store::Error::io(&path))?;
        let staged = eol.staged(&path_in_repo, &bytes)?;
        let id = gix::objs::compute_hash(git.object_hash(), gix::objs::Kind::Blob, &staged)?;
        if in_head.get(&name) != Some(&id) {
            out.push(path_in_repo);
        }
    }
    Ok(out)
}
