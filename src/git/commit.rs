//! Recording review decisions as git commits through gix.
//!
//! A decision commit contains the fact-file changes and the removal of the proposal file, and
//! nothing else: it is built from HEAD's tree, never from the index. The index is then updated
//! only at the ledger paths, so the user's other staged and unstaged work stays as it was.
//!
//! Order of steps (see docs/review.md for why a crash at any point is recoverable):
//! 1. checks, then the index lock; 2. blobs, tree, hooks, commit object; 3. journal;
//! 4. work-tree files, index, proposal file; 5. branch update (the commit point);
//! 6. journal removed.
//!
//! The work tree and the index hold the decision before the branch does: a plain `git commit`
//! after a kill at any step commits the decision's files, never their old state.

use std::fs;
use std::io::ErrorKind;
use std::path::Path;

use gix::bstr::ByteSlice;
use gix::hash::ObjectId;
use gix::objs::tree::EntryKind;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::Target;
use serde::{Deserialize, Serialize};

use crate::git::eol::Eol;
use crate::git::index::{index_lock_path, lock_index, read_index, LedgerIndex};
use crate::git::owner::{reclaim, Owner, Reclaimed};
use crate::git::{hooks, EditKind, Error, Repo, Result};
use crate::model::base::paths;
use crate::store::{self, read_optional, write_atomic, Durability};

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

impl FileWrite {
    /// A file the commit creates; it must not exist yet.
    pub fn create(path: String, new: Vec<u8>) -> FileWrite {
        FileWrite {
            path,
            old: Vec::new(),
            new,
            pristine: Some(""),
        }
    }
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

/// What must still happen after the branch moved: enough to finish after a crash.
#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    commit: String,
    /// The commit the branch pointed at (`None`: an unborn branch, or a journal written before
    /// the work tree came first, whose decision never landed unless the branch holds it).
    #[serde(default)]
    parent: Option<String>,
    branch: String,
    summary: String,
    /// `(path, blob id)`.
    writes: Vec<(String, String)>,
    deletes: Vec<String>,
}

/// Where the commit goes and who makes it.
struct Head {
    branch: String,
    parent: Option<ObjectId>,
    author: gix::actor::Signature,
    committer: gix::actor::Signature,
}

/// Commits `change` on the current branch. `no_verify` skips the `pre-commit` and `commit-msg`
/// hooks.
pub fn commit(repo: &Repo, change: &LedgerCommit, no_verify: bool) -> Result<Committed> {
    // A fresh copy of the handle: the identity's timestamp is taken when first read. New objects
    // stay in memory until the hooks have run, so a refused decision writes none.
    let mut git = repo.with_fresh_identity().with_object_memory();
    let head = preflight(repo, &git)?;
    let mut owner = Owner::claim(repo)?;
    // Named before it is taken: a kill between the two must not leave an unnamed lock.
    owner.holds(index_lock_path(&git))?;
    let index_lock = lock_index(&git)?;
    let read = read_index(&git)?;
    let index = read.ledger();
    if index.is_sparse() {
        return Err(Error::SparseIndex);
    }
    let head_tree = match head.parent {
        Some(p) => git.find_commit(p)?.tree_id()?.detach(),
        None => ObjectId::empty_tree(git.object_hash()),
    };
    let (new_tree, writes) = {
        let tree = git.find_tree(head_tree)?;
        let mut eol = Eol::new(&git, index)?;
        for w in &change.writes {
            check_unedited(&git, &mut eol, &tree, index, repo.root(), w)?;
        }
        build_tree(&git, &mut eol, &tree, change)?
    };
    // The hooks run git, which reads the objects from disk.
    let written = persist_objects(&mut git)?;
    let message = if no_verify {
        change.message.clone()
    } else {
        match hooks::run_hooks(repo, new_tree, &change.message) {
            Ok(message) => message,
            Err(e) => {
                remove_loose_objects(&git, &written);
                return Err(e);
            }
        }
    };
    let summary = message.lines().next().unwrap_or("").to_owned();
    let id = write_commit(&git, &head, new_tree, message)?;
    let journal = Journal {
        commit: id.to_string(),
        parent: head.parent.map(|p| p.to_string()),
        branch: head.branch.clone(),
        summary: summary.clone(),
        writes,
        deletes: change.deletes.clone(),
    };
    let journal_path = repo.git_dir().join(paths::JOURNAL);
    write_atomic(
        &journal_path,
        &serde_json::to_vec(&journal).expect("journal serializes"),
        Durability::Synced,
    )?;
    store::fault::abort_after("journal");
    apply(repo, &journal, index_lock, read)?;
    // gix takes these and lets go of them within the call.
    owner.holds(repo.git_dir().join("HEAD.lock"))?;
    owner.holds(git.common_dir().join(format!("{}.lock", head.branch)))?;
    // On failure the journal stays: the files are written, and what the branch holds now
    // (someone's commit of them, or not) is settled as after a crash, by the next verb.
    move_branch(&git, head.parent, id, &summary)?;
    store::fault::abort_after("ref");
    fs::remove_file(&journal_path).map_err(store::Error::io(&journal_path))?;
    Ok(Committed {
        commit: journal.commit,
        branch: head.branch,
        summary,
    })
}

/// Refuses what git would refuse or what would lose the decision: an operation in progress, a
/// detached HEAD, no identity, a lock held by another git process.
fn preflight(repo: &Repo, git: &gix::Repository) -> Result<Head> {
    if let Some(state) = git.state() {
        if !matches!(state, gix::state::InProgress::Bisect) {
            return Err(Error::InProgress {
                what: format!("{state:?}").to_lowercase(),
            });
        }
    }
    let (branch, parent) = current_branch(git)?;
    let committer = git.committer().ok_or(Error::IdentityMissing)??.to_owned()?;
    let author = git.author().ok_or(Error::IdentityMissing)??.to_owned()?;
    for lock in [
        repo.git_dir().join("HEAD.lock"),
        git.common_dir().join(format!("{branch}.lock")),
    ] {
        if lock.exists() {
            return Err(Error::Locked { path: lock });
        }
    }
    Ok(Head {
        branch,
        parent,
        author,
        committer,
    })
}

/// The branch HEAD points to and its commit (`None` when unborn).
fn current_branch(git: &gix::Repository) -> Result<(String, Option<ObjectId>)> {
    match git.head()?.kind {
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

/// HEAD's tree with the ledger writes and deletes applied; also `(path, blob id)` per write.
fn build_tree(
    git: &gix::Repository,
    eol: &mut Eol,
    tree: &gix::Tree<'_>,
    change: &LedgerCommit,
) -> Result<(ObjectId, Vec<(String, String)>)> {
    let mut editor = git.edit_tree(tree.id)?;
    let mut writes = Vec::new();
    for w in &change.writes {
        let blob = git.write_blob(eol.staged(&w.path, &w.new)?)?.detach();
        editor.upsert(w.path.as_str(), EntryKind::Blob, blob)?;
        writes.push((w.path.clone(), blob.to_string()));
    }
    for d in &change.deletes {
        if tree.lookup_entry_by_path(d)?.is_some() {
            editor.remove(d.as_str())?;
        }
    }
    Ok((editor.write()?.detach(), writes))
}

/// Refuses to commit a file that holds edits nobody reviewed: it must match HEAD in the index
/// and in the work tree (or, if never committed, hold its pristine content).
fn check_unedited(
    repo: &gix::Repository,
    eol: &mut Eol,
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
    // A file the commit creates is empty before it (`FileWrite::create`).
    let on_disk = on_disk.or_else(|| (w.pristine == Some("") && w.old.is_empty()).then(Vec::new));
    if on_disk.as_deref() != Some(w.old.as_slice()) {
        return Err(edits(EditKind::Unstaged));
    }
    // What `git add` would stage: line endings converted as the repository says.
    let staged = eol.staged(&w.path, &w.old)?;
    let disk_id = gix::objs::compute_hash(repo.object_hash(), gix::objs::Kind::Blob, &staged)?;
    let in_head = tree.lookup_entry_by_path(&w.path)?.map(|e| e.object_id());
    let in_index = index
        .entry_by_path(w.path.as_bytes().as_bstr())
        .map(|e| e.id);
    match in_head {
        Some(h) if in_index != Some(h) => Err(edits(EditKind::Staged)),
        Some(h) if disk_id != h => Err(edits(EditKind::Unstaged)),
        Some(_) => Ok(()),
        None if w.pristine.map(str::as_bytes) != Some(w.old.as_slice()) => {
            Err(edits(EditKind::Uncommitted))
        }
        None if in_index.is_some_and(|i| i != disk_id) => Err(edits(EditKind::Staged)),
        None => Ok(()),
    }
}

/// Writes the objects held in memory to the object database; returns those that were not there
/// before, so that a refused decision can take them back.
fn persist_objects(git: &mut gix::Repository) -> Result<Vec<ObjectId>> {
    let Some(objects) = git.objects.take_object_memory() else {
        return Ok(Vec::new());
    };
    let mut written = Vec::new();
    for (id, (kind, data)) in objects.iter() {
        if !git.has_object(id) {
            gix::objs::Write::write_buf(&git.objects, *kind, data)?;
            written.push(*id);
        }
    }
    Ok(written)
}

/// Deletes loose objects this run wrote. Best effort: an object left behind is unreachable and
/// git's garbage collection removes it.
fn remove_loose_objects(git: &gix::Repository, ids: &[ObjectId]) {
    let objects = git.objects.store_ref().path().to_owned();
    for id in ids {
        let hex = id.to_hex().to_string();
        let (fan_out, rest) = hex.split_at_checked(2).unwrap_or((&hex, ""));
        let _ = fs::remove_file(objects.join(fan_out).join(rest));
    }
}

/// Writes the commit object, signed when the repository asks for signatures.
fn write_commit(
    git: &gix::Repository,
    head: &Head,
    tree: ObjectId,
    message: String,
) -> Result<ObjectId> {
    let mut commit = gix::objs::Commit {
        tree,
        parents: head.parent.into_iter().collect(),
        author: head.author.clone(),
        committer: head.committer.clone(),
        encoding: None,
        message: message.into(),
        extra_headers: Vec::new(),
    };
    if let Some(options) = git.commit_signing_options_if_enabled()? {
        commit = commit.sign(options)?;
    }
    Ok(git.write_object(&commit)?.detach())
}

/// Moves the branch HEAD names to `id` if it still points at `parent`: the commit point.
fn move_branch(
    git: &gix::Repository,
    parent: Option<ObjectId>,
    id: ObjectId,
    summary: &str,
) -> Result<()> {
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
    git.edit_reference(edit).map(|_| ()).map_err(|e| {
        if e.to_string().contains("lock") {
            Error::from(e)
        } else {
            Error::RefMoved
        }
    })
}

/// Completes or discards a decision a crash interrupted, and takes back the locks and
/// temporary files a killed run left. Returns what it did, if anything. Cheap when there is
/// nothing to do (two `stat`s and a listing of the git directory, for an owner file's
/// temporary a kill left): every verb runs it first.
pub fn recover(repo: &Repo) -> Result<Option<String>> {
    let mut notes = match reclaim(repo)? {
        // Another process is committing a decision: its journal is its own.
        Reclaimed::Busy => return Ok(None),
        Reclaimed::Done(notes) => notes,
    };
    notes.extend(finish_journal(repo)?);
    Ok((!notes.is_empty()).then(|| notes.join("; ")))
}

/// Whether a decision commit was interrupted and is not finished.
pub fn interrupted(repo: &Repo) -> bool {
    repo.git_dir().join(paths::JOURNAL).exists()
}

/// Finishes the decision the journal names, if there is one.
fn finish_journal(repo: &Repo) -> Result<Option<String>> {
    let journal_path = repo.git_dir().join(paths::JOURNAL);
    let Some(bytes) = read_optional(&journal_path)? else {
        return Ok(None);
    };
    let remove_journal = || fs::remove_file(&journal_path).map_err(store::Error::io(&journal_path));
    let Ok(journal) = serde_json::from_slice::<Journal>(&bytes) else {
        remove_journal()?;
        return Ok(Some(
            "discarded an unreadable record of an interrupted decision".into(),
        ));
    };
    let git = repo.gix();
    let tip = git
        .find_reference(journal.branch.as_str())
        .ok()
        .and_then(|mut r| r.peel_to_id().ok())
        .map(gix::Id::detach);
    let decision = ObjectId::from_hex(journal.commit.as_bytes()).ok();
    let parent = journal
        .parent
        .as_deref()
        .and_then(|p| ObjectId::from_hex(p.as_bytes()).ok());
    let descends = |from: ObjectId, tip: ObjectId| {
        git.find_commit(from).is_ok()
            && git
                .merge_base(from, tip)
                .ok()
                .flatten()
                .map(gix::Id::detach)
                == Some(from)
    };
    let on_branch = current_branch(git).is_ok_and(|(branch, _)| branch == journal.branch);
    let landed = match (tip, decision) {
        (Some(tip), Some(decision)) if tip == decision => Landed::Tip,
        (Some(tip), Some(decision)) if descends(decision, tip) => Landed::Below(tip),
        (tip, Some(decision))
            if tip == parent && on_branch && git.find_commit(decision).is_ok() =>
        {
            Landed::Pending(decision)
        }
        (Some(tip), _) if parent.is_some_and(|p| descends(p, tip)) => Landed::Below(tip),
        _ => Landed::No,
    };
    let summary = &journal.summary;
    let lock = || -> Result<_> {
        let lock = lock_index(git)?;
        let read = read_index(git)?;
        Ok((lock, read))
    };
    let note = match landed {
        Landed::No => {
            remove_journal()?;
            return Ok(Some(format!(
                "an earlier run was interrupted before committing \"{summary}\", and the branch has moved elsewhere since; the proposal is still pending"
            )));
        }
        Landed::Tip => {
            remove_deleted(repo, &journal)?;
            remove_journal()?;
            format!("finished the interrupted commit \"{summary}\"")
        }
        // Ended before the commit point: the files are written again (each step is idempotent)
        // and the branch moved, as the run would have.
        Landed::Pending(decision) => {
            let (lock, read) = lock()?;
            apply(repo, &journal, lock, read)?;
            move_branch(git, parent, decision, summary)?;
            remove_journal()?;
            format!("finished the interrupted commit \"{summary}\"")
        }
        // Commits made on top since (the user's `git commit`): the ledger files they hold say
        // whether they kept the decision.
        Landed::Below(tip) if holds_writes(git, tip, &journal)? => {
            remove_deleted(repo, &journal)?;
            remove_journal()?;
            format!(
                "finished the interrupted commit \"{summary}\" (a later commit holds its ledger files)"
            )
        }
        Landed::Below(_) => {
            let (lock, read) = lock()?;
            apply(repo, &journal, lock, read)?;
            remove_journal()?;
            format!(
                "finished the interrupted commit \"{summary}\", which a later commit made from an index without it left out: the work tree and the index hold its ledger files again; commit them (`git commit -m \"Restore the approval\" -- {}`)",
                paths::LEDGER
            )
        }
    };
    Ok(Some(note))
}

/// Where an interrupted decision's commit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Landed {
    /// The branch points at it.
    Tip,
    /// Not on the branch, which still points at its parent: the run ended before the commit
    /// point.
    Pending(ObjectId),
    /// Below the branch's tip, or beside it on the branch's line: commits were made since.
    Below(ObjectId),
    /// The branch went elsewhere.
    No,
}

/// Whether `commit`'s tree holds the ledger files as the decision in `journal` left them.
fn holds_writes(git: &gix::Repository, commit: ObjectId, journal: &Journal) -> Result<bool> {
    let tree = git.find_commit(commit)?.tree()?;
    for (path, blob) in &journal.writes {
        let id = tree.lookup_entry_by_path(path)?.map(|e| e.object_id());
        if id.map(|id| id.to_string()).as_deref() != Some(blob.as_str()) {
            return Ok(false);
        }
    }
    for path in &journal.deletes {
        if tree.lookup_entry_by_path(path)?.is_some() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The steps before the commit point, each idempotent: work-tree files, index entries, proposal
/// files.
fn apply(
    repo: &Repo,
    journal: &Journal,
    lock: gix::lock::File,
    mut read: LedgerIndex,
) -> Result<()> {
    let git = repo.gix();
    // Only the ledger's and the rule files' entries are at hand to change (see `LedgerIndex`).
    if let Some(path) = journal
        .writes
        .iter()
        .map(|(p, _)| p)
        .chain(&journal.deletes)
        .find(|p| !paths::is_decision_path(p))
    {
        return Err(Error::Interrupted(format!(
            "the record of an interrupted decision names `{path}`, which is outside {}/ and no compiled rule file",
            paths::LEDGER
        )));
    }
    // Converted first: the conversions read the index that the loop below changes.
    let mut written = Vec::with_capacity(journal.writes.len());
    {
        let mut eol = Eol::new(git, read.ledger())?;
        for (path, blob) in &journal.writes {
            let id = ObjectId::from_hex(blob.as_bytes()).map_err(|_| {
                Error::Interrupted(format!(
                    "the record of an interrupted decision names `{blob}`, which is not an object id"
                ))
            })?;
            written.push((path, id, eol.checked_out(path, &git.find_blob(id)?.data)?));
        }
    }
    let index = read.ledger_mut();
    // New entries are pushed after every lookup: a lookup searches the entries as sorted, and a
    // pushed one is out of order until they are sorted again.
    let mut new = Vec::new();
    for (path, id, data) in written {
        let file = repo.root().join(path);
        // The first decision record of a ledger makes its directory.
        if let Some(dir) = file.parent() {
            fs::create_dir_all(dir).map_err(store::Error::io(dir))?;
        }
        write_atomic(&file, &data, Durability::Synced)?;
        let stat = stat_of(&file)?;
        match index.entry_index_by_path(path.as_bytes().as_bstr()) {
            Ok(i) => {
                let entry = &mut index.entries_mut()[i];
                entry.id = id;
                entry.stat = stat;
                entry.flags.remove(gix::index::entry::Flags::INTENT_TO_ADD);
            }
            Err(_) => new.push((path, id, stat)),
        }
    }
    for (path, id, stat) in &new {
        index.dangerously_push_entry(
            *stat,
            *id,
            gix::index::entry::Flags::empty(),
            gix::index::entry::Mode::FILE,
            path.as_bytes().as_bstr(),
        );
    }
    if !new.is_empty() {
        index.sort_entries();
    }
    index.remove_entries(|_, path, _| {
        journal
            .deletes
            .iter()
            .any(|d| d.as_bytes() == path.as_bytes())
    });
    write_index(git, read, lock)?;
    store::fault::abort_after("index");
    remove_deleted(repo, journal)
}

/// Deletes the files the decision deletes (its proposal's) from the work tree, if still there.
fn remove_deleted(repo: &Repo, journal: &Journal) -> Result<()> {
    for d in &journal.deletes {
        let path = repo.root().join(d);
        match fs::remove_file(&path) {
            Err(e) if e.kind() != ErrorKind::NotFound => {
                return Err(store::Error::io(&path)(e).into())
            }
            _ => {}
        }
    }
    Ok(())
}

/// The index entry's stat data of a file just written.
fn stat_of(file: &Path) -> Result<gix::index::entry::Stat> {
    let meta =
        gix::index::fs::Metadata::from_path_no_follow(file).map_err(store::Error::io(file))?;
    gix::index::entry::Stat::from_fs(&meta)
        .map_err(|e| store::Error::io(file)(std::io::Error::other(e)).into())
}

/// Writes `index` through its lock, honouring `index.skipHash`.
fn write_index(git: &gix::Repository, index: LedgerIndex, mut lock: gix::lock::File) -> Result<()> {
    let skip_hash = git
        .config_snapshot()
        .boolean("index.skipHash")
        .unwrap_or(false);
    let path = git.index_path();
    index.write_to(skip_hash, &mut lock)?;
    lock.commit()
        .map_err(|e| store::Error::io(&path)(e.error))?;
    Ok(())
}
