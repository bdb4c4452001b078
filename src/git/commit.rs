//! Recording review decisions as git commits through gix.
//!
//! A decision commit contains the fact-file changes and the removal of the proposal file, and
//! nothing else: it is built from HEAD's tree, never from the index. The index is then updated
//! only at the ledger paths, so the user's other staged and unstaged work stays as it was.
//!
//! Order of steps (see docs/review.md for why a crash at any point is recoverable):
//! 1. checks, then the index lock; 2. blobs, tree, hooks, commit object; 3. journal;
//! 4. branch update (the commit point); 5. work-tree files, index, proposal file; 6. journal removed.

use std::fs;
use std::io::{BufWriter, ErrorKind, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use gix::bstr::ByteSlice;
use gix::hash::ObjectId;
use gix::objs::tree::EntryKind;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::Target;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::git::Location;
use crate::store::{read_optional, write_atomic};

/// One ledger file the commit writes.
#[derive(Debug, Clone)]
pub struct FileWrite {
    /// Work-tree relative, `/`-separated: `.ledger/facts/architecture.md`.
    pub path: String,
    /// The bytes the change was computed from; the file must still hold them.
    pub old: Vec<u8>,
    pub new: Vec<u8>,
    /// For a file not yet committed: the only content it may have without being a hand edit
    /// (the seed template).
    pub pristine: Option<&'static str>,
}

#[derive(Debug, Clone)]
pub struct LedgerCommit {
    pub writes: Vec<FileWrite>,
    /// Files to delete from the commit (if tracked), the index and the work tree.
    pub deletes: Vec<String>,
    pub message: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Committed {
    pub commit: String,
    pub branch: String,
    pub summary: String,
}

const JOURNAL: &str = "mneme-decision.json";
const HOOK_INDEX: &str = "mneme-hook-index";

/// What must still happen after the branch moved: enough to finish after a crash.
#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    commit: String,
    branch: String,
    summary: String,
    /// `(path, blob id)`.
    writes: Vec<(String, String)>,
    deletes: Vec<String>,
}

/// Commits `change` on the current branch. `no_verify` skips the `pre-commit` and `commit-msg`
/// hooks.
pub fn commit(location: &Location, change: &LedgerCommit, no_verify: bool) -> Result<Committed> {
    // Opened now, not at startup: the identity's timestamp is taken when the repository opens.
    let repo = open(location)?;
    if let Some(state) = repo.state() {
        if !matches!(state, gix::state::InProgress::Bisect) {
            return Err(Error::GitInProgress {
                what: format!("{state:?}").to_lowercase(),
            });
        }
    }
    let (branch, parent) = head(&repo)?;
    let committer = signature(repo.committer())?;
    let author = signature(repo.author())?;
    for lock in [
        location.git_dir.join("HEAD.lock"),
        repo.common_dir().join(format!("{}.lock", branch)),
    ] {
        if lock.exists() {
            return Err(Error::GitLocked { path: lock });
        }
    }
    let index_lock = lock_index(&repo)?;
    let index = read_index(&repo)?;
    if index.is_sparse() {
        return Err(Error::SparseIndex);
    }
    let head_tree = match parent {
        Some(p) => repo
            .find_commit(p)
            .map_err(Error::git)?
            .tree_id()
            .map_err(Error::git)?
            .detach(),
        None => ObjectId::empty_tree(repo.object_hash()),
    };
    let tree = repo.find_tree(head_tree).map_err(Error::git)?;
    for w in &change.writes {
        check_unedited(&repo, &tree, &index, &location.root, w)?;
    }

    let mut editor = repo.edit_tree(head_tree).map_err(Error::git)?;
    let mut writes = Vec::new();
    for w in &change.writes {
        let blob = repo.write_blob(&w.new).map_err(Error::git)?.detach();
        editor
            .upsert(w.path.as_str(), EntryKind::Blob, blob)
            .map_err(Error::git)?;
        writes.push((w.path.clone(), blob.to_string()));
    }
    for d in &change.deletes {
        if tree.lookup_entry_by_path(d).map_err(Error::git)?.is_some() {
            editor.remove(d.as_str()).map_err(Error::git)?;
        }
    }
    let new_tree = editor.write().map_err(Error::git)?.detach();
    let message = if no_verify {
        change.message.clone()
    } else {
        run_hooks(&repo, location, new_tree, &change.message)?
    };
    let summary = message.lines().next().unwrap_or("").to_owned();
    let mut commit = gix::objs::Commit {
        tree: new_tree,
        parents: parent.into_iter().collect(),
        author,
        committer,
        encoding: None,
        message: message.into(),
        extra_headers: Vec::new(),
    };
    if let Some(options) = repo
        .commit_signing_options_if_enabled()
        .map_err(Error::git)?
    {
        commit = commit
            .sign(options)
            .map_err(|e| Error::Git(format!("could not sign the commit: {e}")))?;
    }
    let id = repo.write_object(&commit).map_err(Error::git)?.detach();

    let journal = Journal {
        commit: id.to_string(),
        branch: branch.clone(),
        summary: summary.clone(),
        writes,
        deletes: change.deletes.clone(),
    };
    let journal_path = location.git_dir.join(JOURNAL);
    write_atomic(
        &journal_path,
        &serde_json::to_vec(&journal).expect("journal serializes"),
    )?;
    fault_point("journal");

    let expected = match parent {
        Some(p) => PreviousValue::MustExistAndMatch(Target::Object(p)),
        None => PreviousValue::MustNotExist,
    };
    let edit = RefEdit {
        change: Change::Update {
            log: LogChange {
                mode: RefLog::AndReference,
                force_create_reflog: false,
                message: format!("commit: {summary}").into(),
            },
            expected,
            new: Target::Object(id),
        },
        name: "HEAD".try_into().expect("valid name"),
        deref: true,
    };
    if let Err(e) = repo.edit_reference(edit) {
        let _ = fs::remove_file(&journal_path);
        let text = e.to_string();
        return Err(if text.contains("lock") {
            Error::Git(text)
        } else {
            Error::RefMoved
        });
    }
    fault_point("ref");
    finish(&repo, location, &journal, index_lock, index)?;
    Ok(Committed {
        commit: journal.commit,
        branch,
        summary,
    })
}

/// Completes or discards a decision a crash interrupted. Returns what it did, if anything.
pub fn recover(location: &Location) -> Result<Option<String>> {
    let journal_path = location.git_dir.join(JOURNAL);
    let Some(bytes) = read_optional(&journal_path)? else {
        return Ok(None);
    };
    let Ok(journal) = serde_json::from_slice::<Journal>(&bytes) else {
        fs::remove_file(&journal_path).map_err(Error::io(&journal_path))?;
        return Ok(Some(
            "discarded an unreadable record of an interrupted decision".into(),
        ));
    };
    let repo = open(location)?;
    let tip = repo
        .find_reference(journal.branch.as_str())
        .ok()
        .and_then(|mut r| r.peel_to_id().ok())
        .map(|id| id.to_string());
    if tip.as_deref() != Some(journal.commit.as_str()) {
        fs::remove_file(&journal_path).map_err(Error::io(&journal_path))?;
        let mut note = format!(
            "an earlier run was interrupted before committing \"{}\"; nothing had changed",
            journal.summary
        );
        let lock = index_lock_path(&repo);
        if lock.exists() {
            note.push_str(&format!(
                " (it may have left {} behind: if no git command is running, remove it)",
                lock.display()
            ));
        }
        return Ok(Some(note));
    }
    let lock = lock_index(&repo).map_err(|e| match e {
        Error::GitLocked { path } => Error::Interrupted(format!(
            "an earlier run committed \"{}\" but was interrupted before updating the index; {} exists — \
             if no git command is running, remove it and run mneme again to finish",
            journal.summary,
            path.display()
        )),
        other => other,
    })?;
    let index = read_index(&repo)?;
    finish(&repo, location, &journal, lock, index)?;
    Ok(Some(format!(
        "finished the interrupted commit \"{}\"",
        journal.summary
    )))
}

/// Steps after the commit point, each idempotent: work-tree files, index entries, proposal
/// files, journal.
fn finish(
    repo: &gix::Repository,
    location: &Location,
    journal: &Journal,
    lock: gix::lock::File,
    mut index: gix::index::File,
) -> Result<()> {
    let mut added = false;
    for (path, blob) in &journal.writes {
        let id = ObjectId::from_hex(blob.as_bytes()).map_err(Error::git)?;
        let data = repo.find_blob(id).map_err(Error::git)?.data.clone();
        let file = location.root.join(path);
        write_atomic(&file, &data)?;
        let meta =
            gix::index::fs::Metadata::from_path_no_follow(&file).map_err(Error::io(&file))?;
        let stat = gix::index::entry::Stat::from_fs(&meta).map_err(Error::git)?;
        let key = path.as_bytes().as_bstr();
        match index.entry_index_by_path(key) {
            Ok(i) => {
                let entry = &mut index.entries_mut()[i];
                entry.id = id;
                entry.stat = stat;
                entry.flags.remove(gix::index::entry::Flags::INTENT_TO_ADD);
            }
            Err(_) => {
                index.dangerously_push_entry(
                    stat,
                    id,
                    gix::index::entry::Flags::empty(),
                    gix::index::entry::Mode::FILE,
                    key,
                );
                added = true;
            }
        }
    }
    if added {
        index.sort_entries();
    }
    index.remove_entries(|_, path, _| {
        journal
            .deletes
            .iter()
            .any(|d| d.as_bytes() == path.as_bytes())
    });
    // A stale cache-tree would make the user's next `git commit` revert this one.
    index.remove_tree();
    let skip_hash = repo
        .config_snapshot()
        .boolean("index.skipHash")
        .unwrap_or(false);
    let mut out = BufWriter::new(lock);
    index
        .write_to(
            &mut out,
            gix::index::write::Options {
                extensions: Default::default(),
                skip_hash,
            },
        )
        .map_err(Error::git)?;
    let lock = out.into_inner().map_err(|e| Error::git(e.error()))?;
    lock.commit().map_err(|e| Error::git(e.error))?;
    fault_point("index");
    for d in &journal.deletes {
        let path = location.root.join(d);
        match fs::remove_file(&path) {
            Err(e) if e.kind() != ErrorKind::NotFound => return Err(Error::io(&path)(e)),
            _ => {}
        }
    }
    let journal_path = location.git_dir.join(JOURNAL);
    fs::remove_file(&journal_path).map_err(Error::io(&journal_path))?;
    Ok(())
}

pub fn open(location: &Location) -> Result<gix::Repository> {
    gix::discover_with_environment_overrides(&location.root).map_err(Error::git)
}

/// `Name <email>` of the committer, who is the reviewer.
pub fn reviewer(location: &Location) -> Result<String> {
    let repo = open(location)?;
    let sig = repo
        .committer()
        .ok_or(Error::IdentityMissing)?
        .map_err(Error::git)?;
    Ok(format!("{} <{}>", sig.name, sig.email))
}

/// The branch HEAD points to and its commit (`None` when unborn).
fn head(repo: &gix::Repository) -> Result<(String, Option<ObjectId>)> {
    let head = repo.head().map_err(Error::git)?;
    match head.kind {
        gix::head::Kind::Symbolic(r) => {
            let id = r
                .target
                .try_id()
                .map(ToOwned::to_owned)
                .ok_or(Error::DetachedHead)?;
            Ok((r.name.as_bstr().to_string(), Some(id)))
        }
        gix::head::Kind::Unborn(name) => Ok((name.as_bstr().to_string(), None)),
        gix::head::Kind::Detached { .. } => Err(Error::DetachedHead),
    }
}

fn signature(
    sig: Option<std::result::Result<gix::actor::SignatureRef<'_>, gix::Error>>,
) -> Result<gix::actor::Signature> {
    let sig = sig.ok_or(Error::IdentityMissing)?.map_err(Error::git)?;
    sig.to_owned().map_err(Error::git)
}

fn lock_index(repo: &gix::Repository) -> Result<gix::lock::File> {
    gix::lock::File::acquire_to_update_resource(
        repo.index_path(),
        gix::lock::acquire::Fail::Immediately,
        None,
        0,
    )
    .map_err(|_| Error::GitLocked {
        path: index_lock_path(repo),
    })
}

fn index_lock_path(repo: &gix::Repository) -> PathBuf {
    let mut lock = repo.index_path().into_os_string();
    lock.push(".lock");
    PathBuf::from(lock)
}

fn read_index(repo: &gix::Repository) -> Result<gix::index::File> {
    if repo.index_path().exists() {
        repo.open_index().map_err(Error::git)
    } else {
        Ok(gix::index::File::from_state(
            gix::index::State::new(repo.object_hash()),
            repo.index_path(),
        ))
    }
}

/// Refuses to commit a file that holds edits nobody reviewed: it must match HEAD in the index
/// and in the work tree (or, if never committed, hold its pristine content).
fn check_unedited(
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
    let on_disk = read_optional(&root.join(&w.path))?;
    if on_disk.as_deref() != Some(w.old.as_slice()) {
        return Err(edits("unstaged"));
    }
    let disk_id = gix::objs::compute_hash(repo.object_hash(), gix::objs::Kind::Blob, &w.old)
        .map_err(Error::git)?;
    let in_head = tree
        .lookup_entry_by_path(&w.path)
        .map_err(Error::git)?
        .map(|e| e.object_id());
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

fn hooks_dir(repo: &gix::Repository, root: &Path) -> PathBuf {
    match repo.config_snapshot().string("core.hooksPath") {
        Some(p) => {
            let p = PathBuf::from(p.to_str_lossy().into_owned());
            if p.is_absolute() {
                p
            } else {
                root.join(p)
            }
        }
        None => repo.common_dir().join("hooks"),
    }
}

/// Runs `pre-commit` against an index holding exactly the commit's tree, then `commit-msg`,
/// which may rewrite the message. Returns the final message.
fn run_hooks(
    repo: &gix::Repository,
    location: &Location,
    tree: ObjectId,
    message: &str,
) -> Result<String> {
    let dir = hooks_dir(repo, &location.root);
    let pre_commit = dir.join("pre-commit");
    if is_executable(&pre_commit) {
        let index_path = location.git_dir.join(HOOK_INDEX);
        let index = repo.index_from_tree(&tree).map_err(Error::git)?;
        let mut file = fs::File::create(&index_path).map_err(Error::io(&index_path))?;
        index
            .write_to(&mut file, gix::index::write::Options::default())
            .map_err(Error::git)?;
        file.flush().map_err(Error::io(&index_path))?;
        let result = run_hook(
            "pre-commit",
            &pre_commit,
            &location.root,
            &[],
            Some(&index_path),
        );
        let _ = fs::remove_file(&index_path);
        result?;
    }
    let commit_msg = dir.join("commit-msg");
    if !is_executable(&commit_msg) {
        return Ok(message.to_owned());
    }
    let msg_path = location.git_dir.join("COMMIT_EDITMSG");
    fs::write(&msg_path, message).map_err(Error::io(&msg_path))?;
    run_hook(
        "commit-msg",
        &commit_msg,
        &location.root,
        &[msg_path.as_os_str()],
        None,
    )?;
    let mut edited = fs::read_to_string(&msg_path).map_err(Error::io(&msg_path))?;
    if edited.trim().is_empty() {
        return Err(Error::HookFailed {
            hook: "commit-msg",
            status: "it left an empty message".into(),
            output: String::new(),
        });
    }
    if !edited.ends_with('\n') {
        edited.push('\n');
    }
    Ok(edited)
}

fn run_hook(
    name: &'static str,
    path: &Path,
    cwd: &Path,
    args: &[&std::ffi::OsStr],
    index: Option<&Path>,
) -> Result<()> {
    let mut cmd = Command::new(path);
    cmd.args(args).current_dir(cwd).stdin(Stdio::null());
    if let Some(index) = index {
        cmd.env("GIT_INDEX_FILE", index);
    }
    let out = cmd.output().map_err(Error::io(path))?;
    if out.status.success() {
        return Ok(());
    }
    let mut output = String::from_utf8_lossy(&out.stderr).into_owned();
    output.push_str(&String::from_utf8_lossy(&out.stdout));
    Err(Error::HookFailed {
        hook: name,
        status: out.status.to_string(),
        output: output.trim_end().chars().take(4000).collect(),
    })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Crash-testing aid: `MNEME_FAULT=<step>` aborts the process right after that step, as a
/// `kill -9` would, so tests can check that every interrupted state is recoverable.
fn fault_point(step: &str) {
    if std::env::var_os("MNEME_FAULT").is_some_and(|v| v == step) {
        std::process::abort();
    }
}

/// Sets `section.subsection.key = value` for each entry in the repository's own config file
/// (not global), under git's `config.lock`. Returns whether anything changed.
pub fn set_local_config(location: &Location, entries: &[(&str, &str, &str, &str)]) -> Result<bool> {
    let repo = open(location)?;
    let path = repo.common_dir().join("config");
    let mut config =
        gix::config::File::from_path_no_includes(path.clone(), gix::config::Source::Local)
            .map_err(Error::git)?;
    let mut changed = false;
    for (section, subsection, key, value) in entries {
        let current = config
            .raw_value(format!("{section}.{subsection}.{key}").as_str())
            .ok();
        if current.as_deref().map(|v| v.as_bytes()) != Some(value.as_bytes()) {
            config
                .set_raw_value_by(
                    *section,
                    Some(subsection.as_bytes().as_bstr()),
                    *key,
                    *value,
                )
                .map_err(Error::git)?;
            changed = true;
        }
    }
    if changed {
        let mut lock = gix::lock::File::acquire_to_update_resource(
            &path,
            gix::lock::acquire::Fail::Immediately,
            None,
            0,
        )
        .map_err(|_| Error::GitLocked {
            path: path.with_extension("lock"),
        })?;
        config.write_to(&mut lock).map_err(Error::io(&path))?;
        lock.commit().map_err(|e| Error::io(&path)(e.error))?;
    }
    Ok(changed)
}

/// The directory git runs hooks from: `core.hooksPath`, or `hooks/` in the common git directory.
pub fn hooks_dir_of(location: &Location) -> Result<PathBuf> {
    let repo = open(location)?;
    Ok(hooks_dir(&repo, &location.root))
}

/// `file name → contents` of the files directly in `dir/` whose index entry differs from HEAD:
/// HEAD's version (`before`) and the index's (`after`), i.e. what committing the index would
/// change there.
pub fn staged_under(
    location: &Location,
    dir: &str,
) -> Result<(crate::model::factdiff::Files, crate::model::factdiff::Files)> {
    use crate::git::history::{blob_text, blobs_in};
    let repo = open(location)?;
    let index = read_index(&repo)?;
    let head_tree = repo.head_tree_id_or_empty().map_err(Error::git)?.detach();
    let in_head = blobs_in(&repo, head_tree, dir)?;
    let prefix = format!("{dir}/");
    let mut in_index = std::collections::BTreeMap::new();
    for entry in index.entries() {
        let path = entry.path(&index).to_str_lossy();
        if let Some(name) = path.strip_prefix(&prefix).filter(|n| !n.contains('/')) {
            in_index.insert(name.to_owned(), entry.id);
        }
    }
    let (mut before, mut after) = (
        crate::model::factdiff::Files::new(),
        crate::model::factdiff::Files::new(),
    );
    for name in in_head.keys().chain(in_index.keys()) {
        let (head, staged) = (in_head.get(name), in_index.get(name));
        if head == staged || before.contains_key(name) || after.contains_key(name) {
            continue;
        }
        if let Some(id) = head {
            before.insert(name.clone(), blob_text(&repo, *id)?);
        }
        if let Some(id) = staged {
            after.insert(name.clone(), blob_text(&repo, *id)?);
        }
    }
    Ok((before, after))
}
