//! Reading review decisions back from git history.

use gix::bstr::ByteSlice;

use crate::git::graph::children_first;
use crate::git::{Error, Repo, Result};
use crate::model::base::paths;
use crate::model::base::text::first_chars;
use crate::model::base::time::Timestamp;
use crate::model::facts::change::FactChange;
use crate::model::proposals::proposal::Proposal;
use crate::model::provenance::audit::{Examined, LedgerChange};
use crate::model::provenance::decision::{Recorded, Verdict, DECISION};
use crate::model::provenance::factdiff::{changes, Files, Parses};
use crate::model::provenance::record::Record;
use crate::model::provenance::signing::{split_signed, AllowedSigners};
use crate::store::{self, Kind};

/// Every decision reachable from HEAD, newest first, optionally only those touching `fact_id`.
/// Only commits whose message mentions a decision trailer are decoded. With `texts`, each
/// approval's `changes` are read from its commit and parent (two versions of the files it
/// names): `why` shows them; `log` only when asked, as `git log` shows patches with `-p`.
pub fn decisions(
    repo: &Repo,
    fact_id: Option<&str>,
    limit: Option<usize>,
    texts: bool,
) -> Result<Vec<Recorded>> {
    let repo = repo.gix();
    let head = match repo.head_id() {
        Ok(id) => id.detach(),
        Err(_) => return Ok(Vec::new()),
    };
    let mut out = Vec::new();
    for info in children_first(repo, head, None)? {
        let commit = repo.find_commit(info.id)?;
        if !mentions_decision(&commit)? {
            continue;
        }
        let Some(mut r) = read_commit(&commit)?.decision else {
            continue;
        };
        if fact_id.is_some_and(|id| !r.touches(id)) {
            continue;
        }
        if texts && r.verdict == Verdict::Approve {
            r.changes = approved_changes(repo, &commit, &r)?;
        }
        out.push(r);
        if limit.is_some_and(|n| out.len() >= n) {
            break;
        }
    }
    Ok(out)
}

/// Whether the commit message holds a decision trailer line: a byte search, so that only such
/// commits are decoded.
pub(super) fn mentions_decision(commit: &gix::Commit<'_>) -> Result<bool> {
    let needle = format!("\n{DECISION}: ");
    Ok(commit.message_raw()?.find(needle.as_bytes()).is_some())
}

/// Reads the texts an approval `r` changed (its `changes`) from its commit.
pub fn read_texts(repo: &Repo, r: &mut Recorded) -> Result<()> {
    let git = repo.gix();
    let id = gix::ObjectId::from_hex(r.commit.as_bytes()).map_err(|_| Error::NotACommit {
        spec: r.commit.clone(),
    })?;
    r.changes = approved_changes(git, &git.find_commit(id)?, r)?;
    Ok(())
}

/// The texts before and after an approval of the facts it names, read from the files its
/// operations name in the commit and its first parent.
fn approved_changes(
    repo: &gix::Repository,
    commit: &gix::Commit<'_>,
    r: &Recorded,
) -> Result<Vec<FactChange>> {
    let (before, after) = named_files(repo, commit, r)?;
    let mut found = changes(&before, &after);
    found.retain(|c| r.touches(&c.fact));
    Ok(found)
}

/// The fact files a recorded approval's operations name, in its first parent and in its
/// commit.
pub fn approved_files(repo: &Repo, r: &Recorded) -> Result<(Files, Files)> {
    let repo = repo.gix();
    let id = gix::ObjectId::from_hex(r.commit.as_bytes()).map_err(|_| Error::NotACommit {
        spec: r.commit.clone(),
    })?;
    named_files(repo, &repo.find_commit(id)?, r)
}

fn named_files(
    repo: &gix::Repository,
    commit: &gix::Commit<'_>,
    r: &Recorded,
) -> Result<(Files, Files)> {
    let mut names: Vec<&str> = r.operations.iter().map(|o| o.file.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let parent = match commit.parent_ids().next() {
        Some(p) => Some(repo.find_commit(p)?.tree_id()?.detach()),
        None => None,
    };
    let tree = commit.tree_id()?.detach();
    let read = |tree: Option<gix::ObjectId>| -> Result<Files> {
        let mut files = Files::new();
        let Some(tree) = tree else {
            return Ok(files);
        };
        let tree = repo.find_tree(tree)?;
        for name in &names {
            let path = paths::fact_file(name);
            if let Some(entry) = tree.lookup_entry_by_path(&path)? {
                files.insert(
                    (*name).to_owned(),
                    blob_text(repo, entry.object_id(), Kind::FactFile)?,
                );
            }
        }
        Ok(files)
    };
    Ok((read(parent)?, read(Some(tree))?))
}

/// A commit range to examine: commits reachable from `head` but not from `base`.
#[derive(Debug, Clone)]
pub struct Range {
    pub base: Option<gix::ObjectId>,
    pub head: gix::ObjectId,
    /// The tip the range is merged into: `A` of `A..B`, or the upstream or default branch of the
    /// default range (whose `base` is the merge-base with it). Its keys decide signatures.
    pub target: Option<gix::ObjectId>,
    /// How the range was chosen, for messages: `origin/main..HEAD (merge-base 1a2b3c4)`.
    pub label: String,
}

/// The commit a revision names (`HEAD~2`, `main`, `1a2b3c`), as git reads it.
pub fn resolve_commit(repo: &Repo, spec: &str) -> Result<gix::ObjectId> {
    let id = repo
        .gix()
        .rev_parse_single(spec)
        .map_err(|e| Error::unresolved(spec, &e))?;
    let commit = id
        .object()?
        .peel_to_commit()
        .map_err(|_| Error::NotACommit {
            spec: spec.to_owned(),
        })?;
    Ok(commit.id)
}

/// The commits a merge driver's three sides come from, told by the labels git gives it (`%S`,
/// `%Y`): `(base, ours, theirs)`. Ours is HEAD; theirs is `%Y`'s commit (`feat` in a merge,
/// `822978b (subject)` in a cherry-pick or a rebase), or the `GITHEAD_<id>` a merge sets; the
/// base is `%S`'s commit (`parent of 822978b (subject)`: that commit's first parent), else the
/// merge-base. `None` where a side cannot be told.
pub fn merge_sides(
    repo: &Repo,
    base_label: Option<&str>,
    theirs_label: Option<&str>,
) -> Result<Option<(gix::ObjectId, gix::ObjectId, gix::ObjectId)>> {
    let git = repo.gix();
    let Ok(ours) = git.head_id().map(gix::Id::detach) else {
        return Ok(None);
    };
    let first_word = |label: &str| label.split_whitespace().next().map(str::to_owned);
    let from_env = || {
        std::env::vars_os().find_map(|(k, _)| {
            let k = k.to_str()?.strip_prefix("GITHEAD_")?.to_owned();
            gix::ObjectId::from_hex(k.as_bytes()).ok()
        })
    };
    let theirs = match theirs_label.and_then(first_word) {
        Some(spec) => resolve_commit(repo, &spec).ok(),
        None => from_env(),
    };
    let Some(theirs) = theirs else {
        return Ok(None);
    };
    let base = match base_label {
        Some(label) if label.starts_with("parent of ") => git
            .find_commit(theirs)?
            .parent_ids()
            .next()
            .map(gix::Id::detach),
        Some(label) => match first_word(label).map(|spec| resolve_commit(repo, &spec)) {
            Some(Ok(id)) => Some(id),
            _ => git.merge_base(ours, theirs)?.map(gix::Id::detach),
        },
        None => git.merge_base(ours, theirs)?.map(gix::Id::detach),
    };
    Ok(base.map(|base| (base, ours, theirs)))
}

/// Resolves `base..head` (either side may be empty: `..HEAD`, `main..`), or, without a spec,
/// the merge-base of HEAD with the upstream or default branch up to HEAD.
pub fn resolve_range(repo: &Repo, spec: Option<&str>) -> Result<Range> {
    let parse = |s: &str| resolve_commit(repo, s);
    let repo = repo.gix();
    if let Some(spec) = spec {
        let Some((a, b)) = spec.split_once("..") else {
            return Err(Error::NotARange {
                spec: spec.to_owned(),
            });
        };
        let b = b.trim_start_matches('.');
        let head = parse(if b.is_empty() { "HEAD" } else { b })?;
        let base = if a.is_empty() { None } else { Some(parse(a)?) };
        return Ok(Range {
            base,
            head,
            target: base,
            label: spec.to_owned(),
        });
    }
    let head = parse("HEAD")?;
    let current = repo
        .head_name()
        .ok()
        .flatten()
        .map(|n| n.as_bstr().to_string());
    let mut candidates = Vec::new();
    if let Some(branch) = current
        .as_deref()
        .and_then(|c| c.strip_prefix("refs/heads/"))
    {
        let config = repo.config_snapshot();
        let remote = config.string(format!("branch.{branch}.remote").as_str());
        let merge = config.string(format!("branch.{branch}.merge").as_str());
        if let (Some(remote), Some(merge)) = (remote, merge) {
            let merge = merge.to_string();
            let short = merge.strip_prefix("refs/heads/").unwrap_or(&merge);
            candidates.push(format!("refs/remotes/{remote}/{short}"));
        }
    }
    for c in [
        "refs/remotes/origin/HEAD",
        "refs/remotes/origin/main",
        "refs/remotes/origin/master",
        "refs/heads/main",
        "refs/heads/master",
    ] {
        candidates.push(c.to_owned());
    }
    for name in candidates {
        if Some(&name) == current.as_ref() {
            continue;
        }
        let Ok(mut reference) = repo.find_reference(name.as_str()) else {
            continue;
        };
        let Ok(tip) = reference.peel_to_id() else {
            continue;
        };
        let base = repo.merge_base(tip.detach(), head)?.map(gix::Id::detach);
        let short = name
            .trim_start_matches("refs/remotes/")
            .trim_start_matches("refs/heads/");
        let label = match base {
            Some(b) => format!("{short}..HEAD (merge-base {})", b.to_hex_with_len(10)),
            None => format!("all of HEAD ({short} shares no history with it)"),
        };
        return Ok(Range {
            base,
            head,
            target: Some(tip.detach()),
            label,
        });
    }
    Ok(Range {
        base: None,
        head,
        target: None,
        label: "all of HEAD (no upstream or default branch found)".into(),
    })
}

/// The commits of a range, walked once.
pub struct Walked {
    /// How many commits the range has.
    pub count: usize,
    /// Oldest first, the commits that decide or change the ledger, examined. The others cannot
    /// fail an audit and are only counted, so memory follows the ledger's history rather than
    /// the range's length.
    pub examined: Vec<Examined>,
    /// Whether a commit of the range has the base as a parent: the base is then the fork point.
    base_is_parent: bool,
}

/// Walks `range`, examining each commit that decides or changes the ledger.
pub fn examine(repo: &Repo, range: &Range) -> Result<Walked> {
    let repo = repo.gix();
    let mut kept = Kept::default();
    let mut walked = Walked {
        count: 0,
        examined: Vec::new(),
        base_is_parent: false,
    };
    for info in children_first(repo, range.head, range.base)? {
        walked.count += 1;
        walked.base_is_parent |= range.base.is_some_and(|b| info.parent_ids.contains(&b));
        walked
            .examined
            .extend(examine_one(repo, info.id, &mut kept)?);
    }
    walked.examined.reverse();
    Ok(walked)
}

/// The id of each examined commit's `.ledger` tree (`None` without one): a commit whose ledger
/// is a parent's needs none of its files read.
type LedgerDirs = std::collections::HashMap<gix::ObjectId, Option<gix::ObjectId>>;

fn ledger_dir(
    repo: &gix::Repository,
    commit: gix::ObjectId,
    known: &mut LedgerDirs,
) -> Result<Option<gix::ObjectId>> {
    if let Some(dir) = known.get(&commit) {
        return Ok(*dir);
    }
    let tree = repo.find_commit(commit)?.tree_id()?.detach();
    let dir = subtree(repo, tree, paths::LEDGER)?;
    known.insert(commit, dir);
    Ok(dir)
}

pub(super) type TreeCache = std::collections::HashMap<gix::ObjectId, Files>;

/// What a walk keeps from one commit for the next ones.
#[derive(Default)]
struct Kept {
    trees: TreeCache,
    ledgers: LedgerDirs,
    parses: Parses,
}

/// Subject, author, date and decision (if any) of one commit.
pub(super) struct CommitText {
    pub subject: String,
    pub author: String,
    pub date: String,
    pub decision: Option<Recorded>,
}

/// The decision a commit message records, if any, read from its subject, its body and the
/// trailers of its last paragraph. The message is anyone's bytes.
pub fn decision_in(message: &[u8]) -> (String, Option<Recorded>) {
    let message = gix::objs::commit::MessageRef::from_bytes(message);
    let subject = message.summary().to_str_lossy().into_owned();
    let body = message.body();
    let text = body
        .as_ref()
        .map(|b| b.without_trailer().to_str_lossy().into_owned())
        .unwrap_or_default();
    let trailers: Vec<(String, String)> = body
        .iter()
        .flat_map(gix::objs::commit::message::BodyRef::trailers)
        .map(|t| {
            (
                t.token.to_str_lossy().into_owned(),
                t.value.to_str_lossy().into_owned(),
            )
        })
        .collect();
    let decision = Recorded::from_trailers(
        &subject,
        &text,
        trailers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    );
    (subject, decision)
}

pub(super) fn read_commit(commit: &gix::Commit<'_>) -> Result<CommitText> {
    let decoded = commit.decode()?;
    let (subject, mut decision) = decision_in(decoded.message);
    let author = decoded
        .author()
        .map(|a| format!("{} <{}>", a.name, a.email))
        .unwrap_or_default();
    let secs = commit.time().map(|t| t.seconds).unwrap_or_default();
    let date = Timestamp::from_unix(secs).rfc3339_seconds();
    if let Some(d) = decision.as_mut() {
        d.commit = commit.id.to_string();
        d.date = date.clone();
    }
    Ok(CommitText {
        subject,
        author,
        date,
        decision,
    })
}

fn examine_one(
    repo: &gix::Repository,
    id: gix::ObjectId,
    kept: &mut Kept,
) -> Result<Option<Examined>> {
    let commit = repo.find_commit(id)?;
    let tree = commit.tree_id()?.detach();
    // Walked newest first, a commit's ledger is usually known from its child.
    // (and forgotten here: the map holds only the commits the walk has yet to reach).
    let own = match kept.ledgers.remove(&id) {
        Some(dir) => dir,
        None => subtree(repo, tree, paths::LEDGER)?,
    };
    let parent_dirs = commit
        .parent_ids()
        .map(|p| ledger_dir(repo, p.detach(), &mut kept.ledgers))
        .collect::<Result<Vec<_>>>()?;
    let unchanged = if parent_dirs.is_empty() {
        own.is_none()
    } else {
        parent_dirs.contains(&own)
    };
    if unchanged && !mentions_decision(&commit)? {
        // Neither a decision nor a change to the ledger: nothing in it can fail an audit, so
        // nothing more is read (most commits of a long history are such).
        return Ok(None);
    }
    let CommitText {
        subject,
        author,
        date,
        decision,
    } = read_commit(&commit)?;
    let committer_email = commit
        .decode()?
        .committer()
        .map(|c| c.email.to_str_lossy().into_owned())
        .unwrap_or_default();
    let time = Timestamp::from_unix(commit.time().map(|t| t.seconds).unwrap_or_default());
    // Only a decision's signature is checked: keep the signed bytes of those alone.
    let signed = decision.as_ref().and_then(|_| split_signed(&commit.data));
    if unchanged {
        // A decision that left the ledger as one parent had it: nothing to read.
        return Ok(Some(Examined {
            decision,
            author,
            subject,
            date,
            committer_email,
            time,
            signed,
            ..Examined::quiet(id.to_string())
        }));
    }
    let parent_trees: Vec<gix::ObjectId> = commit
        .parent_ids()
        .map(|p| {
            repo.find_commit(p)
                .and_then(|c| c.tree_id())
                .map(gix::Id::detach)
        })
        .collect::<std::result::Result<_, _>>()?;
    let facts_dir = |tree: gix::ObjectId| subtree(repo, tree, paths::FACTS);
    let first_parent_tree = parent_trees
        .first()
        .copied()
        .unwrap_or_else(|| gix::ObjectId::empty_tree(repo.object_hash()));
    let touches_facts = facts_dir(tree)? != facts_dir(first_parent_tree)?;
    let files = facts_at(repo, tree, &mut kept.trees)?;
    let parents = if parent_trees.is_empty() {
        vec![Files::new()]
    } else {
        parent_trees
            .iter()
            .map(|t| facts_at(repo, *t, &mut kept.trees))
            .collect::<Result<_>>()?
    };
    let (removed_proposals, added_proposals) = queue_change(repo, first_parent_tree, tree)?;
    Ok(Some(Examined {
        id: id.to_string(),
        author,
        subject,
        date,
        decision,
        change: LedgerChange::of(&parents, &files, &mut kept.parses),
        touches_facts,
        removed_proposals,
        added_proposals,
        committer_email,
        time,
        signed,
    }))
}

/// The proposals a commit removed from the queue (those that parse), and the names of those it
/// added, against its first parent's tree.
fn queue_change(
    repo: &gix::Repository,
    parent_tree: gix::ObjectId,
    tree: gix::ObjectId,
) -> Result<(Vec<Proposal>, Vec<String>)> {
    // A queue of thousands of proposals is listed only when it changed.
    if subtree(repo, parent_tree, paths::PROPOSALS)? == subtree(repo, tree, paths::PROPOSALS)? {
        return Ok(Default::default());
    }
    let before = blobs_in(repo, parent_tree, paths::PROPOSALS)?;
    let after = blobs_in(repo, tree, paths::PROPOSALS)?;
    let mut removed = Vec::new();
    for (name, blob) in &before {
        if name.ends_with(".json") && !after.contains_key(name) {
            let text = blob_text_if_fits(repo, *blob, Kind::Proposal)?.unwrap_or_default();
            if let Ok(p) = Proposal::parse(&text) {
                removed.push(p);
            }
        }
    }
    let added = after
        .keys()
        .filter(|n| n.ends_with(".json") && !before.contains_key(*n))
        .cloned()
        .collect();
    Ok((removed, added))
}

/// Whether `new` only adds commits to `old` (`old` is one of its ancestors) and leaves the ledger
/// as `old` had it: no decision, no change to a fact, between them.
pub fn extends_without_ledger_change(
    repo: &Repo,
    old: gix::ObjectId,
    new: gix::ObjectId,
) -> Result<bool> {
    let git = repo.gix();
    if git.merge_base(old, new).ok().flatten().map(gix::Id::detach) != Some(old) {
        return Ok(false);
    }
    let ledger = |commit: gix::ObjectId| -> Result<Option<gix::ObjectId>> {
        let tree = git.find_commit(commit)?.tree_id()?.detach();
        subtree(git, tree, paths::LEDGER)
    };
    Ok(ledger(old)? == ledger(new)?)
}

/// The id of the tree at `path` inside `tree`, if any.
pub(crate) fn subtree(
    repo: &gix::Repository,
    tree: gix::ObjectId,
    path: &str,
) -> Result<Option<gix::ObjectId>> {
    let tree = repo.find_tree(tree)?;
    Ok(tree.lookup_entry_by_path(path)?.map(|e| e.object_id()))
}

/// `file name → blob id` of the blobs directly in the directory `path` of `tree`.
pub(crate) fn blobs_in(
    repo: &gix::Repository,
    tree: gix::ObjectId,
    path: &str,
) -> Result<std::collections::BTreeMap<String, gix::ObjectId>> {
    let mut out = std::collections::BTreeMap::new();
    let Some(dir) = subtree(repo, tree, path)? else {
        return Ok(out);
    };
    let dir = repo.find_tree(dir)?;
    for entry in dir.iter() {
        let entry = entry?;
        if entry.mode().is_blob() {
            out.insert(
                entry.filename().to_str_lossy().into_owned(),
                entry.object_id(),
            );
        }
    }
    Ok(out)
}

/// A blob's contents as text (invalid UTF-8 replaced).
/// The text of blob `id`, a file of `kind`: refused, before it is read, past the kind's limit,
/// as the same file in the work tree would be. History is anyone's branch too.
pub(crate) fn blob_text(repo: &gix::Repository, id: gix::ObjectId, kind: Kind) -> Result<String> {
    let size = repo.find_header(id)?.size();
    if size > kind.limit() {
        return Err(Error::Store(store::Error::TooLarge {
            path: format!("git object {id}").into(),
            kind: kind.name(),
            size,
            limit: kind.limit(),
        }));
    }
    let blob = repo.find_blob(id)?;
    Ok(String::from_utf8_lossy(&blob.data).into_owned())
}

/// [`blob_text`], with `None` for a blob past the limit: for what may be left out (a proposal
/// or record that would not parse anyway, a cited file too large to compare).
pub(crate) fn blob_text_if_fits(
    repo: &gix::Repository,
    id: gix::ObjectId,
    kind: Kind,
) -> Result<Option<String>> {
    match blob_text(repo, id, kind) {
        Err(Error::Store(store::Error::TooLarge { .. })) => Ok(None),
        read => read.map(Some),
    }
}

/// The fact files in `tree`, cached by the id of the facts directory.
pub(super) fn facts_at(
    repo: &gix::Repository,
    tree: gix::ObjectId,
    cache: &mut TreeCache,
) -> Result<Files> {
    let Some(dir) = subtree(repo, tree, paths::FACTS)? else {
        return Ok(Default::default());
    };
    if let Some(files) = cache.get(&dir) {
        return Ok(files.clone());
    }
    // The next commits' parents are recent versions: a few are enough, and memory stays flat
    // however long the history.
    if cache.len() >= 8 {
        cache.clear();
    }
    let mut files = Files::new();
    for (name, blob) in blobs_in(repo, tree, paths::FACTS)? {
        if name.ends_with(".md") {
            files.insert(name, blob_text(repo, blob, Kind::FactFile)?);
        }
    }
    cache.insert(dir, files.clone());
    Ok(files)
}

/// The fact files of `commit` (none for `None`).
pub fn facts_of(repo: &Repo, commit: Option<gix::ObjectId>) -> Result<Files> {
    let Some(commit) = commit else {
        return Ok(Files::new());
    };
    let repo = repo.gix();
    let tree = repo.find_commit(commit)?.tree_id()?.detach();
    facts_at(repo, tree, &mut TreeCache::new())
}

/// The fact files of `commit`'s first parent (none for a root) and of `commit`.
pub fn facts_around(repo: &Repo, commit: gix::ObjectId) -> Result<(Files, Files)> {
    let git = repo.gix();
    let commit = git.find_commit(commit)?;
    let mut cache = TreeCache::new();
    let before = match commit.parent_ids().next() {
        Some(p) => facts_at(git, git.find_commit(p)?.tree_id()?.detach(), &mut cache)?,
        None => Files::new(),
    };
    let after = facts_at(git, commit.tree_id()?.detach(), &mut cache)?;
    Ok((before, after))
}

/// The text of the file of `kind` at `path` in `commit`, if it has one (invalid UTF-8 replaced).
pub fn text_at(
    repo: &Repo,
    commit: gix::ObjectId,
    path: &str,
    kind: Kind,
) -> Result<Option<String>> {
    let repo = repo.gix();
    let tree = repo.find_commit(commit)?.tree()?;
    match tree.lookup_entry_by_path(path)? {
        Some(entry) if entry.mode().is_blob() => {
            Ok(Some(blob_text(repo, entry.object_id(), kind)?))
        }
        _ => Ok(None),
    }
}

/// Where the range forks from its base: the merge-base of base and head (the base itself when
/// it is an ancestor of head); none when they share no history or there is no base.
pub fn fork_point(repo: &Repo, range: &Range, walked: &Walked) -> Result<Option<gix::ObjectId>> {
    let Some(base) = range.base else {
        return Ok(None);
    };
    // A base the range grew from needs no second walk of the history.
    if walked.base_is_parent {
        return Ok(Some(base));
    }
    Ok(repo
        .gix()
        .merge_base(base, range.head)?
        .map(gix::Id::detach))
}

/// Whether the decision commit a migrated `record` names proves it: an ancestor of `head`, a
/// decision on the same proposal with the same verdict, signed by a key `signers` lists for its
/// committer at its date, that changed the facts exactly as the record says. `Err`: why not.
pub fn proven_by_commit(
    repo: &Repo,
    head: gix::ObjectId,
    record: &Record,
    signers: &AllowedSigners,
) -> Result<std::result::Result<(), String>> {
    let git = repo.gix();
    let Some(id) = record
        .commit
        .as_deref()
        .and_then(|c| gix::ObjectId::from_hex(c.as_bytes()).ok())
    else {
        return Ok(Err("it names no decision commit".into()));
    };
    let short = first_chars(record.commit.as_deref().unwrap_or_default(), 10);
    let Ok(commit) = git.find_commit(id) else {
        return Ok(Err(format!(
            "its decision commit {short} is not in this repository"
        )));
    };
    if git.merge_base(id, head).ok().flatten().map(gix::Id::detach) != Some(id) {
        return Ok(Err(format!(
            "its decision commit {short} is not in the history it is verified in"
        )));
    }
    let Some(decision) = read_commit(&commit)?
        .decision
        .filter(|d| d.proposal == record.proposal && d.verdict == record.verdict)
    else {
        return Ok(Err(format!(
            "{short} is not the decision on proposal {} it names",
            record.proposal
        )));
    };
    let Some((payload, signature)) = split_signed(&commit.data) else {
        return Ok(Err(format!(
            "it is not signed, nor is its decision commit {short}"
        )));
    };
    let decoded = commit.decode()?;
    let email = decoded
        .committer()
        .map(|c| c.email.to_str_lossy().into_owned())
        .unwrap_or_default();
    let time = Timestamp::from_unix(commit.time().map(|t| t.seconds).unwrap_or_default());
    if let Err(why) = signers.verify(&signature, &payload, &email, time) {
        return Ok(Err(format!("its decision commit {short}: {why}")));
    }
    let (before, after) = approved_files(repo, &decision)?;
    let at = Timestamp::parse(&record.at).unwrap_or(time);
    let redone = Record::new(
        record.verdict,
        &record.proposal,
        &record.by,
        at,
        &before,
        &after,
    );
    if redone.facts != record.facts {
        return Ok(Err(format!(
            "its facts are not what its decision commit {short} changed"
        )));
    }
    Ok(Ok(()))
}

/// `file name → text` of the decision record files committed in `commit`'s tree.
pub fn record_files_at(repo: &Repo, commit: gix::ObjectId) -> Result<Files> {
    let repo = repo.gix();
    let tree = repo.find_commit(commit)?.tree_id()?.detach();
    let mut out = Files::new();
    for (name, blob) in blobs_in(repo, tree, paths::DECISIONS)? {
        out.insert(name, blob_text(repo, blob, Kind::Record)?);
    }
    Ok(out)
}

/// The newest commit of HEAD's history that brought the decision record `name` (`<id>.json`)
/// into it: one whose parents all lack the file. For a record whose decision commit history
/// lacks, that is where its change landed (a squash commit, a rebased or cherry-picked one).
pub fn record_landing(repo: &Repo, name: &str) -> Result<Option<gix::ObjectId>> {
    let git = repo.gix();
    let Ok(head) = git.head_id() else {
        return Ok(None);
    };
    let path = format!("{}/{name}", paths::DECISIONS);
    let holds = |commit: gix::ObjectId| -> Result<bool> {
        let tree = git.find_commit(commit)?.tree()?;
        Ok(tree.lookup_entry_by_path(&path)?.is_some())
    };
    for info in children_first(git, head.detach(), None)? {
        if holds(info.id)? && !info.parent_ids.iter().any(|p| holds(*p).unwrap_or(false)) {
            return Ok(Some(info.id));
        }
    }
    Ok(None)
}

/// The texts of the files directly in `dir` of `commit`'s tree whose names `keep` takes, read as
/// `kind`: name → text.
pub fn texts_in(
    repo: &Repo,
    commit: gix::ObjectId,
    dir: &str,
    kind: Kind,
    keep: impl Fn(&str) -> bool,
) -> Result<Files> {
    let git = repo.gix();
    let tree = git.find_commit(commit)?.tree_id()?.detach();
    let mut out = Files::new();
    for (name, blob) in blobs_in(git, tree, dir)? {
        if keep(&name) {
            out.insert(name, blob_text(git, blob, kind)?);
        }
    }
    Ok(out)
}

/// The names of the decision record files committed in `commit`'s tree, none read.
pub fn record_names_at(repo: &Repo, commit: gix::ObjectId) -> Result<Vec<String>> {
    let tree = repo.gix().find_commit(commit)?.tree_id()?.detach();
    Ok(blobs_in(repo.gix(), tree, paths::DECISIONS)?
        .into_keys()
        .collect())
}

/// The proposals committed in `commit`'s tree (those that parse), oldest first.
pub fn proposals_at(repo: &Repo, commit: gix::ObjectId) -> Result<Vec<Proposal>> {
    let repo = repo.gix();
    let tree = repo.find_commit(commit)?.tree_id()?.detach();
    let mut out = Vec::new();
    for (name, blob) in blobs_in(repo, tree, paths::PROPOSALS)? {
        if name.ends_with(".json") {
            let text = blob_text_if_fits(repo, blob, Kind::Proposal)?.unwrap_or_default();
            if let Ok(p) = Proposal::parse(&text) {
                out.push(p);
            }
        }
    }
    out.sort_by(|a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
    Ok(out)
}
