//! Evidence drift from history: the commits that changed the files facts cite, after the
//! approvals that vouched for those facts.
//!
//! One walk from the head, newest first. An approval that adds, updates, supersedes into or
//! verifies a fact *covers* it, and every ancestor of that commit inherits the cover: a change in
//! a covered commit was there when the fact was vouched for. A fact no approval covers is covered
//! by the commit that brought it into its fact file as it reads now. A commit changes a path when
//! the path differs from every parent (as `git log -- path` counts it). A fact is settled once
//! every commit still to be walked covers it; the walk stops when all are settled. Commit dates
//! decide nothing: anyone can set them, and a rebase or a tool can give every commit one.

use std::collections::HashMap;
use std::rc::Rc;

use gix::bstr::ByteSlice;
use gix::traverse::commit::Info;

use crate::git::graph::children_first;
use crate::git::history::{
    blob_text_if_fits, facts_at, mentions_decision, read_commit, subtree, TreeCache,
};
use crate::git::{Repo, Result};
use crate::model::base::paths;
use crate::model::base::time::Timestamp;
use crate::model::evidence::drift::{CommitRef, Version, Watched};
use crate::model::facts::file::FactFile;
use crate::model::provenance::decision::Verdict;
use crate::model::provenance::factdiff::Files;
use crate::model::provenance::record::Record;
use crate::store::Kind;

/// A commit that changed a watched path.
#[derive(Debug, Clone)]
pub struct Touch {
    pub commit: CommitRef,
    pub id: gix::ObjectId,
    pub first_parent: Option<gix::ObjectId>,
}

/// What the walk found for one watched fact.
#[derive(Debug, Default)]
pub struct Seen {
    /// The newest approval that vouched for the fact.
    pub anchor: Option<CommitRef>,
    /// For each of the fact's distinct paths (in `Watched::paths` order), the commits after the
    /// anchor that changed it, newest first.
    pub touched: Vec<Vec<Touch>>,
}

/// A set of watched facts, by index.
#[derive(Debug, Clone, Default)]
struct Facts(Vec<u64>);

impl Facts {
    fn has(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    fn insert(&mut self, i: usize) {
        if self.0.len() <= i / 64 {
            self.0.resize(i / 64 + 1, 0);
        }
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn union(&mut self, other: &Facts) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (w, o) in self.0.iter_mut().zip(&other.0) {
            *w |= o;
        }
    }

    fn intersect(&mut self, other: &Facts) {
        self.0.truncate(other.0.len());
        for (w, o) in self.0.iter_mut().zip(&other.0) {
            *w &= o;
        }
    }
}

/// A child's object in a tree, and whether it is a tree.
type Entry = Option<(gix::ObjectId, bool)>;

/// Children's entries by node and tree id, recently read.
type Entries = HashMap<(usize, gix::ObjectId), Rc<[Entry]>>;

/// The watched paths as a tree of names: a commit's changes are found by descending only into
/// the directories that hold watched paths and differ from the parent's.
#[derive(Default)]
struct Node {
    /// Unique in its tree, to key the entries cache.
    id: usize,
    /// The index of the watched path that ends here.
    leaf: Option<usize>,
    /// Sorted by name.
    children: Vec<(Vec<u8>, Node)>,
}

impl Node {
    fn of(paths: &[&str]) -> Node {
        let mut root = Node::default();
        let mut ids = 0;
        for (k, path) in paths.iter().enumerate() {
            let mut node = &mut root;
            for part in path.split('/') {
                let at = match node
                    .children
                    .binary_search_by(|(n, _)| n.as_slice().cmp(part.as_bytes()))
                {
                    Ok(at) => at,
                    Err(at) => {
                        ids += 1;
                        let child = Node {
                            id: ids,
                            ..Node::default()
                        };
                        node.children.insert(at, (part.as_bytes().to_vec(), child));
                        at
                    }
                };
                node = &mut node.children[at].1;
            }
            node.leaf = Some(k);
        }
        root
    }

    /// The ids (and whether each is a tree) that `tree` holds at this node's children.
    fn entries(
        &self,
        repo: &gix::Repository,
        tree: Option<gix::ObjectId>,
        cache: &mut Entries,
    ) -> Result<Rc<[Entry]>> {
        let Some(tree) = tree else {
            return Ok(vec![None; self.children.len()].into());
        };
        if let Some(found) = cache.get(&(self.id, tree)) {
            return Ok(found.clone());
        }
        let mut out = vec![None; self.children.len()];
        // Trees and children are both sorted (trees in git's order, which differs only for
        // directories): try the child after the last match before searching.
        let mut next = 0;
        for e in repo.find_tree(tree)?.iter() {
            let e = e?;
            let name: &[u8] = e.filename().as_ref();
            let at = match self.children.get(next) {
                Some((n, _)) if n.as_slice() == name => Some(next),
                _ => self
                    .children
                    .binary_search_by(|(n, _)| n.as_slice().cmp(name))
                    .ok(),
            };
            if let Some(at) = at {
                out[at] = Some((e.object_id(), e.mode().is_tree()));
                next = at + 1;
            }
        }
        let out: Rc<[Entry]> = out.into();
        // A commit's trees are read again as the next commit's parent's: a few are enough.
        if cache.len() >= 256 {
            cache.clear();
        }
        cache.insert((self.id, tree), out.clone());
        Ok(out)
    }

    /// The watched paths a commit with `tree` and `parents` changed, as `git log -- path` counts
    /// it: unlike every parent (anything, for a root).
    fn changed_by(
        &self,
        repo: &gix::Repository,
        tree: gix::ObjectId,
        parents: &[gix::ObjectId],
        cache: &mut Entries,
    ) -> Result<Vec<usize>> {
        let mut changed: Option<Vec<usize>> = None;
        for p in parents {
            let parent = Some(repo.find_commit(*p)?.tree_id()?.detach());
            let mut here = Vec::new();
            self.changed(repo, parent, Some(tree), cache, &mut here)?;
            changed = Some(match changed {
                None => here,
                Some(before) => before.into_iter().filter(|k| here.contains(k)).collect(),
            });
        }
        Ok(match changed {
            Some(c) => c,
            None => {
                let mut all = Vec::new();
                self.changed(repo, None, Some(tree), cache, &mut all)?;
                all
            }
        })
    }

    /// Adds to `out` the watched paths whose object differs between trees `old` and `new`.
    fn changed(
        &self,
        repo: &gix::Repository,
        old: Option<gix::ObjectId>,
        new: Option<gix::ObjectId>,
        cache: &mut Entries,
        out: &mut Vec<usize>,
    ) -> Result<()> {
        if old == new {
            return Ok(());
        }
        let before = self.entries(repo, old, cache)?;
        let after = self.entries(repo, new, cache)?;
        let tree = |e: Entry| e.filter(|(_, t)| *t).map(|(id, _)| id);
        for (((_, child), o), n) in self.children.iter().zip(before.iter()).zip(after.iter()) {
            if o == n {
                continue;
            }
            out.extend(child.leaf);
            if !child.children.is_empty() {
                child.changed(repo, tree(*o), tree(*n), cache, out)?;
            }
        }
        Ok(())
    }
}

/// What a walk found.
pub struct Walked {
    /// One for each watched fact, in order.
    pub seen: Vec<Seen>,
    /// The walk reached the oldest commits of a shallow clone before it was done.
    pub cut_short: bool,
}

/// Walks from `head` (leaving out what `hidden` reaches) and finds, for each of `watched`, its
/// newest vouching approval and the later commits that changed its paths. Walking all of history,
/// a fact with no approval is vouched for by the commit that brought it in as it reads now; in a
/// range, a fact no approval in it covers keeps all of the range's commits.
pub fn walk(
    repo: &Repo,
    head: gix::ObjectId,
    hidden: Option<gix::ObjectId>,
    watched: &[Watched],
) -> Result<Walked> {
    let repo = repo.gix();
    // In a range, a fact no approval in it covers was vouched for before it: all its commits count.
    let mut walk = Walk::new(watched, hidden.is_none());
    let boundary = shallow_boundary(repo);
    for info in children_first(repo, head, hidden)? {
        if walk.unsettled.is_empty() {
            break;
        }
        let mut cover = walk.pending.remove(&info.id).unwrap_or_default();
        let mut commit = Described::new(repo.find_commit(info.id)?);
        let decision = mentions_decision(&commit.commit)?;
        if decision {
            walk.vouch_by_decision(&mut commit, &mut cover)?;
        }
        if boundary.contains(&info.id) {
            // Its decision counts; its changes and its parents are out of reach.
            walk.cut_short |= walk.unsettled.iter().any(|&f| !cover.has(f));
            continue;
        }
        if walk.unsettled.iter().any(|&f| walk.open(f, &cover)) {
            walk.examine(repo, &info, &mut commit, decision, &mut cover)?;
        }
        walk.settle(&info.parent_ids, &cover);
    }
    Ok(Walked {
        seen: walk.seen,
        cut_short: walk.cut_short,
    })
}

/// A walk's state: the watched paths and who watches them, what was seen, what is settled.
struct Walk<'w> {
    watched: &'w [Watched],
    whole_history: bool,
    index: HashMap<&'w str, usize>,
    decisions_dir: Option<usize>,
    facts_dir: Option<usize>,
    tree_of_paths: Node,
    cache: Entries,
    fact_files: TreeCache,
    /// For each path, `(fact, slot)`: which facts cite it and where it is in their `touched`.
    watchers: Vec<Vec<(usize, usize)>>,
    seen: Vec<Seen>,
    settled: Facts,
    unsettled: Vec<usize>,
    /// The commits yet to be walked, with the facts their walked children cover.
    pending: HashMap<gix::ObjectId, Facts>,
    cut_short: bool,
}

impl<'w> Walk<'w> {
    fn new(watched: &'w [Watched], whole_history: bool) -> Self {
        let index = watched
            .iter()
            .enumerate()
            .map(|(i, w)| (w.fact.as_str(), i))
            .collect();
        let mut paths: Vec<&str> = watched.iter().flat_map(Watched::paths).collect();
        // The decision records too: a commit that adds some without being a decision (a forge's
        // squash) vouches for what they approved.
        paths.push(paths::DECISIONS);
        // And the fact files: the commit that brings in a fact no approval covers vouches for it.
        paths.push(paths::FACTS);
        paths.sort_unstable();
        paths.dedup();
        let mut watchers: Vec<Vec<(usize, usize)>> = vec![Vec::new(); paths.len()];
        for (f, w) in watched.iter().enumerate() {
            for (slot, p) in w.paths().into_iter().enumerate() {
                let k = paths.binary_search(&p).expect("every path is listed");
                watchers[k].push((f, slot));
            }
        }
        Walk {
            watched,
            whole_history,
            index,
            decisions_dir: paths.binary_search(&paths::DECISIONS).ok(),
            facts_dir: paths.binary_search(&paths::FACTS).ok(),
            tree_of_paths: Node::of(&paths),
            cache: Entries::new(),
            fact_files: TreeCache::new(),
            watchers,
            seen: watched
                .iter()
                .map(|w| Seen {
                    anchor: None,
                    touched: vec![Vec::new(); w.paths().len()],
                })
                .collect(),
            settled: Facts::default(),
            unsettled: (0..watched.len()).collect(),
            pending: HashMap::new(),
            cut_short: false,
        }
    }

    /// The fact is still looked for at a commit with this cover.
    fn open(&self, f: usize, cover: &Facts) -> bool {
        !cover.has(f) && !self.settled.has(f)
    }

    /// A decision commit that approves covers the facts its operations vouch for.
    fn vouch_by_decision(&mut self, commit: &mut Described<'_>, cover: &mut Facts) -> Result<()> {
        let text = read_commit(&commit.commit)?;
        if let Some(d) = text.decision.filter(|d| d.verdict == Verdict::Approve) {
            for fact in d.operations.iter().filter_map(|o| o.vouches()) {
                if let Some(&i) = self.index.get(fact) {
                    cover.insert(i);
                    self.seen[i].anchor.get_or_insert_with(|| CommitRef {
                        id: d.commit.clone(),
                        date: d.date.clone(),
                        subject: text.subject.clone(),
                    });
                }
            }
        }
        commit.subject = Some(text.subject);
        Ok(())
    }

    /// The watched paths a commit changed: what its records and fact files vouch for, and the
    /// touches of the facts still open.
    fn examine(
        &mut self,
        repo: &gix::Repository,
        info: &Info,
        commit: &mut Described<'_>,
        decision: bool,
        cover: &mut Facts,
    ) -> Result<()> {
        let tree = commit.commit.tree_id()?.detach();
        let changed =
            self.tree_of_paths
                .changed_by(repo, tree, &info.parent_ids, &mut self.cache)?;
        let adds_records = self.decisions_dir.is_some_and(|k| changed.contains(&k));
        if adds_records && !decision && info.parent_ids.len() <= 1 {
            for fact in recorded_approvals(repo, &commit.commit, info.parent_ids.first())? {
                if let Some(&i) = self.index.get(fact.as_str()) {
                    cover.insert(i);
                    if self.seen[i].anchor.is_none() {
                        self.seen[i].anchor = Some(commit.reference()?);
                    }
                }
            }
        }
        if self.whole_history && self.facts_dir.is_some_and(|k| changed.contains(&k)) {
            let unanchored: Vec<usize> = self
                .unsettled
                .iter()
                .copied()
                .filter(|&f| self.seen[f].anchor.is_none() && !cover.has(f))
                .collect();
            let brought = brought_in(
                repo,
                tree,
                &info.parent_ids,
                self.watched,
                &unanchored,
                &mut self.fact_files,
            )?;
            for f in brought {
                cover.insert(f);
                self.seen[f].anchor = Some(commit.reference()?);
            }
        }
        for k in changed {
            if !self.watchers[k].iter().any(|&(f, _)| self.open(f, cover)) {
                continue;
            }
            let touch = Touch {
                commit: commit.reference()?,
                id: info.id,
                first_parent: info.parent_ids.first().copied(),
            };
            for &(f, slot) in &self.watchers[k] {
                if self.open(f, cover) {
                    self.seen[f].touched[slot].push(touch.clone());
                }
            }
        }
        Ok(())
    }

    /// Hands the commit's cover to its parents, and settles the facts every commit still to walk
    /// covers: nothing older can count for them.
    fn settle(&mut self, parents: &[gix::ObjectId], cover: &Facts) {
        for p in parents {
            self.pending.entry(*p).or_default().union(cover);
        }
        let mut everywhere: Option<Facts> = None;
        for c in self.pending.values() {
            everywhere.get_or_insert_with(|| c.clone()).intersect(c);
        }
        let everywhere = everywhere.unwrap_or_default();
        let settled = &mut self.settled;
        self.unsettled.retain(|&f| {
            let done = everywhere.has(f);
            if done {
                settled.insert(f);
            }
            !done
        });
    }
}

/// A commit, and its subject and reference, each read once when first needed.
struct Described<'r> {
    commit: gix::Commit<'r>,
    subject: Option<String>,
    reference: Option<CommitRef>,
}

impl<'r> Described<'r> {
    fn new(commit: gix::Commit<'r>) -> Self {
        Described {
            commit,
            subject: None,
            reference: None,
        }
    }

    fn reference(&mut self) -> Result<CommitRef> {
        if let Some(r) = &self.reference {
            return Ok(r.clone());
        }
        let subject = match self.subject.take() {
            Some(s) => s,
            None => summary(&self.commit)?,
        };
        let r = CommitRef {
            id: self.commit.id.to_string(),
            date: Timestamp::from_unix(self.commit.time()?.seconds).rfc3339_seconds(),
            subject,
        };
        self.reference = Some(r.clone());
        Ok(r)
    }
}

/// Of the facts `wanted` (indexes into `watched`), those that `tree` holds as they read now and
/// no parent's tree does: the commit brought each in, as a person wrote it.
fn brought_in(
    repo: &gix::Repository,
    tree: gix::ObjectId,
    parents: &[gix::ObjectId],
    watched: &[Watched],
    wanted: &[usize],
    cache: &mut TreeCache,
) -> Result<Vec<usize>> {
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    // Of `candidates`, those `files` hold as they read now; each file parsed once.
    let holding = |files: &Files, candidates: &[usize]| -> Vec<usize> {
        let mut parsed: HashMap<&str, Option<FactFile>> = HashMap::new();
        candidates
            .iter()
            .copied()
            .filter(|&f| {
                let name = watched[f].file.as_str();
                parsed
                    .entry(name)
                    .or_insert_with(|| files.get(name).and_then(|t| FactFile::parse(t).ok()))
                    .as_ref()
                    .is_some_and(|file| watched[f].reads_as_now(file))
            })
            .collect()
    };
    let mut found = holding(&facts_at(repo, tree, cache)?, wanted);
    for p in parents {
        if found.is_empty() {
            break;
        }
        let parent_tree = repo.find_commit(*p)?.tree_id()?.detach();
        // Only the facts still found are looked for in the parent.
        let there = holding(&facts_at(repo, parent_tree, cache)?, &found);
        found.retain(|f| !there.contains(f));
    }
    Ok(found)
}

/// A shallow clone's oldest commits: their parents are missing, so what they changed is unknown.
fn shallow_boundary(repo: &gix::Repository) -> Vec<gix::ObjectId> {
    repo.shallow_commits()
        .ok()
        .flatten()
        .map(|c| c.iter().copied().collect())
        .unwrap_or_default()
}

/// For each of `paths`, how many commits back from `head` it last changed (0: in `head`), among
/// the `limit` newest commits; `None` when it did not change in them. A ranking hint, not a
/// verdict, so the commits are taken by date; a shallow clone's oldest commits, whose parents
/// are missing, are passed over.
pub fn last_changed(
    repo: &Repo,
    head: gix::ObjectId,
    paths: &[&str],
    limit: usize,
) -> Result<Vec<Option<usize>>> {
    let repo = repo.gix();
    let mut sorted: Vec<&str> = paths.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let tree_of_paths = Node::of(&sorted);
    let boundary = shallow_boundary(repo);
    let mut cache = Entries::new();
    let mut newest: Vec<Option<usize>> = vec![None; sorted.len()];
    let walk = repo
        .rev_walk([head])
        .sorting(gix::revision::walk::Sorting::ByCommitTime(
            Default::default(),
        ))
        .all()?;
    for (n, info) in walk.take(limit).enumerate() {
        let info = info?.detach();
        if boundary.contains(&info.id) {
            continue;
        }
        let tree = repo.find_commit(info.id)?.tree_id()?.detach();
        for k in tree_of_paths.changed_by(repo, tree, &info.parent_ids, &mut cache)? {
            newest[k].get_or_insert(n);
        }
        if newest.iter().all(Option::is_some) {
            break;
        }
    }
    Ok(paths
        .iter()
        .map(|p| newest[sorted.binary_search(p).expect("every path is listed")])
        .collect())
}

/// The facts that the approval records `commit` adds (relative to `parent`) vouch for, as a
/// decision commit's operations would: the added, updated and verified facts and replacements,
/// told from the fact files on each side. Records that do not parse vouch for nothing.
fn recorded_approvals(
    repo: &gix::Repository,
    commit: &gix::Commit<'_>,
    parent: Option<&gix::ObjectId>,
) -> Result<Vec<String>> {
    let tree = commit.tree_id()?.detach();
    let Some(new) = subtree(repo, tree, paths::DECISIONS)? else {
        return Ok(Vec::new());
    };
    let parent_tree = match parent {
        Some(p) => Some(repo.find_commit(*p)?.tree_id()?.detach()),
        None => None,
    };
    let old = match parent_tree {
        Some(t) => subtree(repo, t, paths::DECISIONS)?,
        None => None,
    };
    let mut files = Vec::new();
    added(repo, old, new, paths::DECISIONS, &mut files)?;
    let mut cache = TreeCache::new();
    let mut sides: Option<(Files, Files)> = None;
    let mut facts = Vec::new();
    for (path, blob) in files {
        let Some(id) = path
            .rsplit('/')
            .next()
            .and_then(|name| name.strip_suffix(".json"))
        else {
            continue;
        };
        let text = blob_text_if_fits(repo, blob, Kind::Record)?.unwrap_or_default();
        let Ok(record) = Record::parse(id, &text) else {
            continue;
        };
        if record.verdict != Verdict::Approve {
            continue;
        }
        let (before, after) = match &mut sides {
            Some(s) => s,
            None => sides.insert((
                match parent_tree {
                    Some(t) => facts_at(repo, t, &mut cache)?,
                    None => Files::new(),
                },
                facts_at(repo, tree, &mut cache)?,
            )),
        };
        let landed = record.landed(id, &commit.id.to_string(), before, after);
        facts.extend(
            landed
                .operations
                .iter()
                .filter_map(|o| o.vouches().map(str::to_owned)),
        );
    }
    Ok(facts)
}

fn summary(commit: &gix::Commit<'_>) -> Result<String> {
    Ok(commit.message()?.summary().to_str_lossy().into_owned())
}

/// The object at `path` in `commit`, with its text when it is a file.
pub fn version_at(
    repo: &Repo,
    commit: Option<gix::ObjectId>,
    path: &str,
) -> Result<Option<Version>> {
    let Some(commit) = commit else {
        return Ok(None);
    };
    let repo = repo.gix();
    let tree = repo.find_commit(commit)?.tree()?;
    let Some(entry) = tree.lookup_entry_by_path(path)? else {
        return Ok(None);
    };
    let text = if entry.mode().is_blob() {
        blob_text_if_fits(repo, entry.object_id(), Kind::Evidence)?
    } else {
        None
    };
    Ok(Some(Version {
        id: entry.object_id().to_string(),
        text,
    }))
}

/// The files `commit` adds relative to its first parent: `(path, blob id)`.
pub fn added_files(repo: &Repo, commit: gix::ObjectId) -> Result<Vec<(String, gix::ObjectId)>> {
    let repo = repo.gix();
    let c = repo.find_commit(commit)?;
    let new = c.tree_id()?.detach();
    let old = match c.parent_ids().next() {
        Some(p) => Some(repo.find_commit(p)?.tree_id()?.detach()),
        None => None,
    };
    let mut out = Vec::new();
    added(repo, old, new, "", &mut out)?;
    Ok(out)
}

/// Descends only into subtrees that differ, so that the cost follows the size of the change.
fn added(
    repo: &gix::Repository,
    old: Option<gix::ObjectId>,
    new: gix::ObjectId,
    prefix: &str,
    out: &mut Vec<(String, gix::ObjectId)>,
) -> Result<()> {
    let mut before: HashMap<Vec<u8>, (gix::ObjectId, bool)> = HashMap::new();
    if let Some(old) = old {
        for e in repo.find_tree(old)?.iter() {
            let e = e?;
            before.insert(e.filename().to_vec(), (e.object_id(), e.mode().is_tree()));
        }
    }
    for e in repo.find_tree(new)?.iter() {
        let e = e?;
        let name = e.filename().to_str_lossy();
        let path = if prefix.is_empty() {
            name.into_owned()
        } else {
            format!("{prefix}/{name}")
        };
        let was = before.get(e.filename().as_bytes());
        if was.is_some_and(|(id, _)| *id == e.object_id()) {
            continue;
        }
        if e.mode().is_tree() {
            let old_tree = was.filter(|(_, tree)| *tree).map(|(id, _)| *id);
            added(repo, old_tree, e.object_id(), &path, out)?;
        } else if e.mode().is_blob() && was.is_none_or(|(_, tree)| *tree) {
            out.push((path, e.object_id()));
        }
    }
    Ok(())
}

/// The text of a cited file's blob; `None` past the limit on cited files.
pub fn text_of(repo: &Repo, blob: gix::ObjectId) -> Result<Option<String>> {
    blob_text_if_fits(repo.gix(), blob, Kind::Evidence)
}
