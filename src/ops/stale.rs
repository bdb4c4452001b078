//! `stale`: facts whose evidence files changed after a person last vouched for them.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use crate::git::drift::{added_files, text_of, version_at, walk, Touch};
use crate::git::history::{extends_without_ledger_change, resolve_range, Range};
use crate::git::Repo;
use crate::model::base::ids::hex;
use crate::model::base::paths;
use crate::model::base::time::Timestamp;
use crate::model::evidence::drift::{
    assess, likely_rename, Drifted, EvidenceDrift, Since, Version, Watched,
};
use crate::model::facts::file::is_fact_id;
use crate::model::facts::ledger::{FactFileEntry, Ledger};
use crate::ops::{Result, Workspace};
use crate::store::file::replace_cache;
use sha2::{Digest, Sha256};

/// The outcome of `mneme stale` (the `--json` shape, docs/json.md).
#[derive(Debug, Serialize)]
pub struct Stale {
    /// With `--since`, the range examined; `null` when each fact is followed back to the
    /// approval that last vouched for it.
    pub since: Option<String>,
    /// How many current facts cite repository files: the facts examined.
    pub watched: usize,
    pub facts: Vec<Drifted>,
    /// The clone is shallow and its history ended before every fact's approval was found:
    /// older changes are not seen (`git fetch --unshallow`).
    pub shallow: bool,
}

/// Drifted facts, and whether a shallow history cut the search short.
pub(crate) struct Drift {
    pub facts: Vec<Drifted>,
    pub shallow: bool,
}

/// The current facts of the work tree whose cited files changed in commits after their last
/// approval or verification (and after `since`, when given).
pub fn stale(ws: &Workspace, since: Option<&str>) -> Result<Stale> {
    ws.store.check_ledger()?;
    let ledger = ws.store.load()?;
    let watched = watched(ledger.files());
    let range = match since {
        Some(rev) => Some(resolve_range(&ws.repo, Some(&format!("{rev}..HEAD")))?),
        None => head_range(&ws.repo)?,
    };
    let drift = match &range {
        Some(r) => drifted(&ws.repo, r, &watched)?,
        None => Drift {
            facts: Vec::new(),
            shallow: false,
        },
    };
    Ok(Stale {
        since: since.and(range.map(|r| r.label)),
        watched: watched.len(),
        facts: drift.facts,
        shallow: drift.shallow,
    })
}

/// The ids of the current facts whose cited code changed after they were last vouched for, as
/// `context` marks them. The walk reads history (a second in a long one); its answer is kept in
/// the git directory for the fact files, with the HEAD it was found at. When HEAD only added
/// commits since, none of which touched the ledger (no decision, no fact changed), the answer is
/// the kept one and what those commits changed; otherwise the whole history is walked again.
/// `head` is HEAD's [`Repo::head_key`](crate::git::Repo::head_key).
pub fn drifted_ids(
    ws: &Workspace,
    ledger: &Ledger,
    head: Option<gix::ObjectId>,
) -> Result<BTreeSet<String>> {
    let Some(head) = head else {
        return Ok(BTreeSet::new());
    };
    let find = |range: &Range| -> Result<BTreeSet<String>> {
        let watched = watched(ledger.files());
        if watched.is_empty() {
            return Ok(BTreeSet::new());
        }
        Ok(drifted(&ws.repo, range, &watched)?
            .facts
            .into_iter()
            .map(|d| d.fact)
            .filter(|id| is_fact_id(id))
            .collect())
    };
    let key = cache_key(paths::STALE_CACHE, facts_key(ledger.digest()));
    let kept = read_cache(ws, paths::STALE_CACHE, &key).and_then(|text| {
        let (head, ids) = text.split_once('\n')?;
        let head = gix::ObjectId::from_hex(head.as_bytes()).ok()?;
        let ids: BTreeSet<String> = ids
            .lines()
            .filter(|id| is_fact_id(id))
            .map(str::to_owned)
            .collect();
        Some((head, ids))
    });
    let kept = match kept {
        Some((old, ids)) if old == head => return Ok(ids),
        kept => kept,
    };
    let Some(range) = head_range(&ws.repo)? else {
        return Ok(BTreeSet::new());
    };
    let ids = match kept {
        Some((old, mut ids)) if extends_without_ledger_change(&ws.repo, old, range.head)? => {
            let added = Range {
                base: Some(old),
                ..range.clone()
            };
            ids.extend(find(&added)?);
            ids
        }
        _ => find(&range)?,
    };
    let body: String = ids.iter().map(|id| format!("{id}\n")).collect();
    write_cache(ws, paths::STALE_CACHE, &key, &format!("{head}\n{body}"));
    Ok(ids)
}

/// An answer about HEAD and the fact files, as lines of text: kept in the git directory's
/// `name` for the HEAD and fact files it was found for, and found again (`find`, over all of
/// HEAD) when either changes. Empty before the first commit.
pub(crate) fn cached_for_head(
    ws: &Workspace,
    facts: &[u8; 32],
    name: &str,
    find: impl FnOnce(&Range) -> Result<String>,
) -> Result<String> {
    let Some(head) = ws.repo.head_key() else {
        return Ok(String::new());
    };
    let mut key = facts_key(facts);
    key.update(head.as_bytes());
    cached(ws, name, key, || match head_range(&ws.repo)? {
        Some(range) => Ok((find(&range)?, true)),
        None => Ok((String::new(), false)),
    })
}

/// The start of a cache key: this version of mneme and the fact files ([`Ledger::digest`]).
pub(crate) fn facts_key(facts: &[u8; 32]) -> Sha256 {
    let mut key = Sha256::new();
    key.update(concat!(env!("CARGO_PKG_VERSION"), "\0"));
    key.update(facts);
    key
}

/// An answer as lines of text, kept in the git directory's `name` for the inputs `key` hashes,
/// and found again (`find`) when they change. `find` says whether its answer may be kept. The
/// cache is only a hint: anything but an exact match of the key is ignored.
pub(crate) fn cached(
    ws: &Workspace,
    name: &str,
    key: Sha256,
    find: impl FnOnce() -> Result<(String, bool)>,
) -> Result<String> {
    let key = cache_key(name, key);
    if let Some(body) = read_cache(ws, name, &key) {
        return Ok(body);
    }
    let (body, keep) = find()?;
    if keep {
        write_cache(ws, name, &key, &body);
    }
    Ok(body)
}

/// The first line of the git directory's cache file `name` for the inputs `key` hashes.
fn cache_key(name: &str, key: Sha256) -> String {
    format!("{name} 2 {}\n", hex(&key.finalize()))
}

/// What the cache file `name` holds after `key`; `None` when it was kept for other inputs (or
/// cannot be read).
fn read_cache(ws: &Workspace, name: &str, key: &str) -> Option<String> {
    let text = crate::store::file::read_local_text(&ws.repo.git_dir().join(name)).ok()?;
    text.strip_prefix(key).map(str::to_owned)
}

fn write_cache(ws: &Workspace, name: &str, key: &str, body: &str) {
    // A read-only git directory only costs the next run the work again.
    let _ = replace_cache(
        &ws.repo.git_dir().join(name),
        format!("{key}{body}").as_bytes(),
    );
}

/// All of HEAD, or `None` before the first commit.
pub(crate) fn head_range(repo: &Repo) -> Result<Option<Range>> {
    Ok(match repo.gix().head_id() {
        Ok(head) => Some(Range {
            base: None,
            head: head.detach(),
            target: None,
            label: "HEAD".into(),
        }),
        Err(_) => None,
    })
}

/// The current facts of `files` that cite repository files.
pub(crate) fn watched<'a>(files: impl IntoIterator<Item = &'a FactFileEntry>) -> Vec<Watched> {
    files
        .into_iter()
        .flat_map(|e| e.file().facts().filter_map(|f| Watched::of(&e.name, f)))
        .collect()
}

/// The facts of `watched` whose citations changed in `range` after their last approval, with
/// what changed, measured against the range's head.
pub(crate) fn drifted(repo: &Repo, range: &Range, watched: &[Watched]) -> Result<Drift> {
    let walked = walk(repo, range.head, range.base, watched)?;
    // Facts often cite the same file: each is read at the head once.
    let mut at_head: HashMap<&str, Option<Version>> = HashMap::new();
    let mut out = Vec::new();
    for (w, s) in watched.iter().zip(walked.seen) {
        let paths = w.paths();
        let mut evidence = Vec::new();
        for cited in &w.refs {
            let slot = paths.iter().position(|p| *p == cited.path);
            let Some(touches) = slot.map(|i| &s.touched[i]).filter(|t| !t.is_empty()) else {
                continue;
            };
            let oldest = touches.last().expect("not empty");
            let before = version_at(repo, oldest.first_parent, &cited.path)?;
            let now = match at_head.get(cited.path.as_str()) {
                Some(now) => now.clone(),
                None => {
                    let now = version_at(repo, Some(range.head), &cited.path)?;
                    at_head.insert(&cited.path, now.clone());
                    now
                }
            };
            let renamed = match now {
                Some(_) => None,
                None => rename_of(repo, touches, &cited.path)?,
            };
            if let Some((kind, now)) =
                assess(cited, before.as_ref(), now.as_ref(), renamed.as_deref())
            {
                evidence.push(EvidenceDrift {
                    evidence: cited.evidence.clone(),
                    kind,
                    now,
                    commits: touches.iter().map(|t| t.commit.clone()).collect(),
                });
            }
        }
        if evidence.is_empty() {
            continue;
        }
        let since = match s.anchor {
            Some(a) => Since {
                commit: Some(a.id),
                date: a.date,
            },
            None => Since {
                commit: None,
                date: w.dated.map(Timestamp::date).unwrap_or_default(),
            },
        };
        out.push(Drifted {
            fact: w.fact.clone(),
            file: w.file.clone(),
            text: w.text.clone(),
            since,
            evidence,
        });
    }
    Ok(Drift {
        facts: out,
        shallow: walked.cut_short,
    })
}

/// Where `path`, gone at the head, went: a file added by the commit that removed it (the newest
/// that changed it) with the same content, else the most similar one.
fn rename_of(repo: &Repo, touches: &[Touch], path: &str) -> Result<Option<String>> {
    let Some(removal) = touches.first() else {
        return Ok(None);
    };
    let Some(old) = version_at(repo, removal.first_parent, path)? else {
        return Ok(None);
    };
    let added = added_files(repo, removal.id)?;
    if let Some((to, _)) = added.iter().find(|(_, id)| *id == old.id) {
        return Ok(Some(to.clone()));
    }
    let Some(old) = old.text else {
        return Ok(None);
    };
    // A commit that adds thousands of files is not read whole to place one.
    const MAX_CANDIDATES: usize = 200;
    if added.len() > MAX_CANDIDATES {
        return Ok(None);
    }
    // A file too large to compare is no candidate.
    let mut texts = Vec::new();
    for (p, id) in added {
        if let Some(text) = text_of(repo, id)? {
            texts.push((p, text));
        }
    }
    Ok(likely_rename(&old, &texts).map(str::to_owned))
}
