//! Decision records (docs/format.md): the facts of a commit checked against the records in its
//! tree, and an older ledger's decisions in git history converted into records, once.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::git::history::{
    approved_files, decisions, facts_around, facts_of, proven_by_commit, read_texts,
    record_files_at, record_landing, record_names_at, text_at,
};
use crate::git::Repo;
use crate::model::base::config::{with_decision_records, Config};
use crate::model::base::ids::sha256_hex;
use crate::model::base::paths;
use crate::model::base::text::one_line;
use crate::model::base::time::Timestamp;
use crate::model::facts::ledger::Ledger;
use crate::model::proposals::proposal::is_proposal_id;
use crate::model::provenance::decision::{Recorded, Verdict};
use crate::model::provenance::factdiff::Files;
use crate::model::provenance::record::{
    judge_parsed, needs_commit_proof, parse_all, InvalidRecord, Proof, Record, State,
};
use crate::model::provenance::signing::AllowedSigners;
use crate::ops::init::{edit_file, Outcome};
use crate::ops::stale::{cached, facts_key};
use crate::ops::{Result, Workspace};
use crate::store::file::replace_cache;
use crate::store::{create_new, Durability, Kind};
use sha2::Digest as _;

/// The state of `commit`'s facts; `None` when its ledger does not keep decision records
/// (`decision_records` in its config; `mneme migrate` converts an older ledger's history).
/// `base` is where the range forks: its records must all still be there. With `signers`, the
/// approvals recorded since `base` must be signed by a key they list.
pub fn state_at(
    repo: &Repo,
    commit: gix::ObjectId,
    base: Option<gix::ObjectId>,
    signers: Option<&AllowedSigners>,
) -> Result<Option<State>> {
    // The config as the commit has it; one that does not parse keeps the history as the proof.
    let config = text_at(repo, commit, paths::CONFIG, Kind::Config)?
        .and_then(|text| Config::parse(&text).ok())
        .unwrap_or_default();
    if !config.decision_records {
        return Ok(None);
    }
    let earlier = match base {
        Some(base) => record_names_at(repo, base)?,
        None => Vec::new(),
    };
    let files = record_files_at(repo, commit)?;
    let parsed = parse_all(&files);
    let proof = match signers {
        Some(signers) => {
            // Records `migrate` converted from signed decision commits: those commits prove them.
            let mut checked = BTreeMap::new();
            for (id, record) in &parsed.0 {
                if needs_commit_proof(record) && !earlier.contains(&format!("{id}.json")) {
                    let proven = proven_by_commit(repo, commit, record, signers)?;
                    checked.insert(id.clone(), proven);
                }
            }
            Some(Proof { signers, checked })
        }
        None => None,
    };
    Ok(Some(judge_parsed(
        &files,
        parsed,
        &earlier,
        &facts_of(repo, Some(commit))?,
        proof.as_ref(),
    )))
}

/// What `migrate` did (the `--json` shape, docs/json.md).
#[derive(Debug, Serialize)]
pub struct Migration {
    /// The record files written, to be committed.
    pub written: Vec<String>,
    /// Decisions that already had a record.
    pub already: usize,
    /// Decisions in history without a proposal id to record (hand-written trailers).
    pub skipped: usize,
    /// `decision_records: true` was set in the config.
    pub config_updated: bool,
}

/// Writes a record for each decision in the history of HEAD that has none: an approval's record
/// holds the facts its commit changed, against its first parent. The records are left in the
/// work tree to be reviewed and committed. Safe to re-run.
pub fn migrate(ws: &Workspace) -> Result<Migration> {
    let _lock = ws.store.lock()?;
    let dir = ws.store.path(paths::DECISIONS);
    let (files, _) = work_tree_records(ws)?;
    let mut known: BTreeSet<(String, &'static str)> = parse_all(&files)
        .0
        .into_iter()
        .map(|(_, r)| (r.proposal, r.verdict.as_str()))
        .collect();
    let mut out = Migration {
        written: Vec::new(),
        already: 0,
        skipped: 0,
        config_updated: false,
    };
    let history = decisions(&ws.repo, None, None, false)?;
    for r in history.into_iter().rev() {
        if !is_proposal_id(&r.proposal) {
            out.skipped += 1;
            continue;
        }
        if !known.insert((r.proposal.clone(), r.verdict.as_str())) {
            out.already += 1;
            continue;
        }
        let (before, after) = match r.verdict {
            Verdict::Approve => approved_files(&ws.repo, &r)?,
            Verdict::Reject => (Files::new(), Files::new()),
        };
        let at = Timestamp::parse(&r.date).unwrap_or_else(crate::ops::now);
        let by = r.reviewer.as_deref().unwrap_or("unknown (not recorded)");
        let record = Record {
            commit: Some(r.commit.clone()),
            ..Record::new(r.verdict, &r.proposal, by, at, &before, &after)
        }
        .with_commit_account(&r);
        let rel = paths::decision_file(&record.id());
        std::fs::create_dir_all(&dir).map_err(crate::store::Error::io(&dir))?;
        if create_new(
            &ws.store.path(&rel),
            record.render().as_bytes(),
            Durability::Synced,
        )? {
            out.written.push(rel);
        }
    }
    // From now on `verify` checks the facts against the records.
    let config = edit_file(ws, paths::CONFIG, Kind::Config, |old| {
        Ok(with_decision_records(old))
    })?;
    out.config_updated = !matches!(config, Outcome::Unchanged);
    Ok(out)
}

/// The record files in the work tree (file name → text), and those that cannot be read.
fn work_tree_records(ws: &Workspace) -> Result<(Files, Vec<InvalidRecord>)> {
    let dir = ws.store.path(paths::DECISIONS);
    let mut files = Files::new();
    let mut unreadable = Vec::new();
    for (name, _) in crate::store::file::list_dir(&dir, ".json")? {
        let rel = paths::decision_file(name.strip_suffix(".json").unwrap_or(&name));
        match ws.store.read_text(&rel, Kind::Record) {
            Ok(text) => {
                files.insert(name, text.unwrap_or_default());
            }
            Err(e) => unreadable.push(InvalidRecord {
                file: rel,
                why: crate::error_chain(&e),
            }),
        }
    }
    Ok((files, unreadable))
}

/// The fact files `facts` of the work tree against the decision records there. In a signed
/// ledger (`allowed_signers` at HEAD), an approval counts only when it is proven as `verify`
/// proves it: signed by a key HEAD lists, or converted from a signed decision commit.
pub fn work_tree_state(ws: &Workspace, facts: &Files) -> Result<State> {
    Ok(judged_work_tree(ws, facts)?.0)
}

/// [`work_tree_state`], and how many record files could not be read.
fn judged_work_tree(ws: &Workspace, facts: &Files) -> Result<(State, usize)> {
    let (files, unreadable) = work_tree_records(ws)?;
    let parsed = parse_all(&files);
    let signed = signers_at_head(ws)?;
    let proof = match &signed {
        Some((head, signers, keys)) => Some(Proof {
            signers,
            checked: checked_records(ws, *head, &files, &parsed.0, signers, keys)?,
        }),
        None => None,
    };
    let mut state = judge_parsed(&files, parsed, &[], facts, proof.as_ref());
    let count = unreadable.len();
    state.invalid.extend(unreadable);
    state.invalid.append(&mut state.unproven);
    Ok((state, count))
}

/// In a signed ledger: HEAD, the keys its `allowed_signers` lists, and that file's text.
fn signers_at_head(ws: &Workspace) -> Result<Option<(gix::ObjectId, AllowedSigners, String)>> {
    let Ok(head) = ws.repo.gix().head_id() else {
        return Ok(None);
    };
    let head = head.detach();
    Ok(
        text_at(&ws.repo, head, paths::ALLOWED_SIGNERS, Kind::AllowedSigners)?
            .map(|keys| (head, AllowedSigners::parse(&keys), keys)),
    )
}

/// Each approval record's proof against `signers`: migrated records by their decision commit
/// in HEAD's history; signed ones by their signature, remembered in the git directory by the
/// hash of the record file and of the keys, so a hook verifies only records it has not seen.
fn checked_records(
    ws: &Workspace,
    head: gix::ObjectId,
    files: &Files,
    records: &[(String, Record)],
    signers: &AllowedSigners,
    keys: &str,
) -> Result<BTreeMap<String, std::result::Result<(), String>>> {
    let path = ws.repo.git_dir().join(paths::SIGNATURE_CACHE);
    let header = format!("mneme-signatures 1 {}\n", sha256_hex(keys.as_bytes()));
    let cached = crate::store::file::read_local_text(&path).unwrap_or_default();
    let mut known: BTreeMap<String, String> = cached
        .strip_prefix(&header)
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(hash, verdict)| (hash.to_owned(), verdict.to_owned()))
        .collect();
    let before = known.len();
    let mut checked = BTreeMap::new();
    for (id, record) in records
        .iter()
        .filter(|(_, r)| r.verdict == Verdict::Approve)
    {
        let proven = if needs_commit_proof(record) {
            proven_by_commit(&ws.repo, head, record, signers)?
        } else {
            let text = files.get(&format!("{id}.json")).map_or("", String::as_str);
            let verdict = known
                .entry(sha256_hex(text.as_bytes()))
                .or_insert_with(|| match record.check_signature(signers) {
                    Ok(()) => "ok".to_owned(),
                    Err(why) => one_line(&why.to_string()),
                });
            match verdict.as_str() {
                "ok" => Ok(()),
                why => Err(why.to_owned()),
            }
        };
        checked.insert(id.clone(), proven);
    }
    if known.len() != before {
        let body: String = known.iter().map(|(h, v)| format!("{h} {v}\n")).collect();
        // A read-only git directory only costs the next run the checks again.
        let _ = replace_cache(&path, (header + &body).as_bytes());
    }
    Ok(checked)
}

/// The decisions `log` and `why` show, newest first: those in the history of HEAD (with their
/// commits, reasons and texts), and those known only by their record in the work tree, whose
/// commit history lacks (a squash, a rebase merge or a cherry-pick rewrote it). These are placed
/// by their time among the others, which keep history's order. With `fact`, only decisions that
/// touch it; with `limit`, the newest.
pub fn decisions_with_records(
    ws: &Workspace,
    fact: Option<&str>,
    limit: Option<usize>,
    texts: bool,
) -> Result<Vec<Recorded>> {
    let mut out = decisions(&ws.repo, fact, limit, texts)?;
    let known: BTreeSet<(&str, &str)> = out
        .iter()
        .map(|r| (r.proposal.as_str(), r.verdict.as_str()))
        .collect();
    let (files, _) = work_tree_records(ws)?;
    let mut only_recorded: Vec<Recorded> = parse_all(&files)
        .0
        .into_iter()
        .filter(|(_, r)| !known.contains(&(r.proposal.as_str(), r.verdict.as_str())))
        .filter(|(_, r)| fact.is_none_or(|f| r.facts.iter().any(|h| h.id == f)))
        .map(|(id, r)| r.as_recorded(&id))
        .collect();
    only_recorded.sort_by(|a, b| b.date.cmp(&a.date));
    for r in only_recorded {
        let at = out
            .iter()
            .position(|h| h.date < r.date)
            .unwrap_or(out.len());
        out.insert(at, r);
    }
    if let Some(n) = limit {
        out.truncate(n);
    }
    Ok(out)
}

/// `decision` with the texts it changed, as `review undo` needs them: read from its commit, or,
/// for one known only by its record, from the commit that brought the record into history.
/// `None`: no commit of HEAD's history holds that record.
pub fn with_texts(ws: &Workspace, mut decision: Recorded) -> Result<Option<Recorded>> {
    let Some(id) = decision.record.clone() else {
        read_texts(&ws.repo, &mut decision)?;
        return Ok(Some(decision));
    };
    let name = format!("{id}.json");
    let Some(commit) = record_landing(&ws.repo, &name)? else {
        return Ok(None);
    };
    let Some(record) = record_files_at(&ws.repo, commit)?
        .get(&name)
        .and_then(|text| Record::parse(&id, text).ok())
    else {
        return Ok(None);
    };
    let (before, after) = facts_around(&ws.repo, commit)?;
    Ok(Some(record.landed(
        &id,
        &commit.to_string(),
        &before,
        &after,
    )))
}

/// The keys ([`Fact::key`]) of the facts in the work tree that are not what the decision records
/// approved, when the ledger keeps records: what agents must not be shown as verified. A fact
/// without an id is among them: no decision proves it.
///
/// Every hook asks, and reading hundreds of records takes longer than the rest of `context`:
/// the answer is kept in the git directory for the fact files, the records directory's status
/// (records are only ever added or removed whole, never rewritten) and HEAD (in a signed ledger
/// its keys judge the records). A record rewritten in place is seen when the directory next
/// changes; `check`, `verify` and the hooks that guard commits always read every record.
/// `head` is HEAD's [`Repo::head_key`](crate::git::Repo::head_key), read once by a caller that
/// also needs it elsewhere.
pub fn unapproved(
    ws: &Workspace,
    ledger: &Ledger,
    head: Option<gix::ObjectId>,
) -> Result<BTreeSet<String>> {
    if !ledger.config.decision_records {
        return Ok(BTreeSet::new());
    }
    let judge = || -> Result<(String, bool)> {
        // Copied only when judged: a kept answer needs no texts.
        let files: Files = ledger
            .files()
            .iter()
            .map(|f| (f.name.clone(), f.raw.clone()))
            .collect();
        let (state, unreadable) = judged_work_tree(ws, &files)?;
        let keys: String = state
            .unapproved()
            .iter()
            .map(|k| format!("{k}\n"))
            .collect();
        // A record that could not be read may be readable next time.
        Ok((keys, unreadable == 0))
    };
    let body = match ws.store.dir_key(paths::DECISIONS) {
        Some(dir) => {
            let mut key = facts_key(ledger.digest());
            for field in dir {
                key.update(field.to_le_bytes());
            }
            // In a signed ledger HEAD's keys judge the records: kept for HEAD, whether signed
            // or not, so that knowing costs no read of HEAD's tree.
            if let Some(head) = head {
                key.update(head.as_bytes());
            }
            cached(ws, paths::APPROVAL_CACHE, key, judge)?
        }
        None => judge()?.0,
    };
    Ok(body.lines().map(str::to_owned).collect())
}
