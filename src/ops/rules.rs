//! The rule files compiled from the ledger (docs/agents.md, "Rule files"), kept in step with it:
//! what a commit's ledger compiles to, what a decision commit writes besides its ledger files,
//! and the work tree's rule files brought in line (`check --fix`, `setup`).

use std::collections::{BTreeMap, BTreeSet};

use crate::git::commit::FileWrite;
use crate::git::history::{facts_of, merge_sides, record_files_at, text_at, texts_in};
use crate::git::Repo;
use crate::model::agents::rules::{
    compile_ledger, is_compiled_name, is_generated, RuleFile, Target,
};
use crate::model::base::config::Config;
use crate::model::base::paths;
use crate::model::facts::ledger::Ledger;
use crate::model::merge::fact_file::merge as merge_fact_file;
use crate::model::provenance::factdiff::Files;
use crate::model::provenance::record::judge;
use crate::model::provenance::signing::AllowedSigners;
use crate::ops::{records, Error, Result, Workspace};
use crate::store::{self, write_atomic, Durability, Kind};

/// The rule files mneme compiled that `commit`'s tree holds, path → text. A file at a compiled
/// file's name without mneme's mark is someone else's, and not among them.
pub fn compiled_at(repo: &Repo, commit: gix::ObjectId) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for target in Target::ALL {
        let texts = texts_in(repo, commit, target.dir(), Kind::Instructions, |name| {
            is_compiled_name(target, name)
        })?;
        for (name, text) in texts {
            if is_generated(&text) {
                out.insert(format!("{}/{name}", target.dir()), text);
            }
        }
    }
    Ok(out)
}

/// What the ledger of `commit` compiles to.
pub fn expected_at(repo: &Repo, commit: gix::ObjectId) -> Result<Vec<RuleFile>> {
    let config = config_at(repo, commit)?;
    if config.compile.is_empty() {
        return Ok(Vec::new());
    }
    let ledger = Ledger::from_texts(facts_of(repo, Some(commit))?, config);
    Ok(compile_ledger(&ledger, &unapproved_at(repo, commit)?))
}

/// How `commit`'s rule files differ from what its ledger compiles to: a compiled file written by
/// hand or missing (or a file of someone else's where one is compiled), and one the ledger no
/// longer compiles to.
pub fn out_of_date_at(repo: &Repo, commit: gix::ObjectId) -> Result<Drift> {
    let wanted = expected_at(repo, commit)?;
    Ok(Drift::between(&wanted, compiled_at(repo, commit)?))
}

/// The three sides of a merge of the compiled rule file `path`, as git gives them to its driver
/// (`texts`: base, ours, theirs; `labels`: git's `%S` and `%Y`): what the merged ledger compiles
/// to there, never the text of either side. `None` where that cannot be told (a side's commit
/// not found, or not holding the text git gave; the fact files, the config or the records in
/// conflict; the merged ledger compiling nothing there): git then holds the file in conflict,
/// and `check --fix` writes it once the facts are merged.
pub fn merged(
    repo: &Repo,
    path: &str,
    texts: [&str; 3],
    labels: [Option<&str>; 2],
) -> Result<Option<String>> {
    let Some((base, ours, theirs)) = merge_sides(repo, labels[0], labels[1])? else {
        return Ok(None);
    };
    let commits = [base, ours, theirs];
    for (commit, text) in commits.iter().zip(texts) {
        let at = text_at(repo, *commit, path, Kind::Instructions)?.unwrap_or_default();
        if at != text {
            return Ok(None);
        }
    }
    let [b, o, t] = commits;
    let facts = [
        facts_of(repo, Some(b))?,
        facts_of(repo, Some(o))?,
        facts_of(repo, Some(t))?,
    ];
    let Some(facts) = merge_files(&facts, |base, ours, theirs| {
        let merged = merge_fact_file(base, ours, theirs);
        (merged.conflicts == 0).then_some(merged.text)
    }) else {
        return Ok(None);
    };
    let records = [
        record_files_at(repo, b)?,
        record_files_at(repo, o)?,
        record_files_at(repo, t)?,
    ];
    // Records are only ever added: the same name on both sides is the same record.
    let Some(records) = merge_files(&records, |_, ours, theirs| {
        (ours == theirs).then(|| ours.to_owned())
    }) else {
        return Ok(None);
    };
    let configs = [
        text_at(repo, b, paths::CONFIG, Kind::Config)?.unwrap_or_default(),
        text_at(repo, o, paths::CONFIG, Kind::Config)?.unwrap_or_default(),
        text_at(repo, t, paths::CONFIG, Kind::Config)?.unwrap_or_default(),
    ];
    let Some(config) = one_side(&configs[0], &configs[1], &configs[2]) else {
        return Ok(None);
    };
    let config = Config::parse(config).unwrap_or_default();
    let unapproved = if config.decision_records {
        judge(&records, &[], &facts, None).unapproved()
    } else {
        BTreeSet::new()
    };
    let ledger = Ledger::from_texts(facts, config);
    Ok(compile_ledger(&ledger, &unapproved)
        .into_iter()
        .find(|f| f.path == path)
        .map(|f| f.text))
}

/// The side that changed from `base`, or either when they agree; `None` when both changed.
fn one_side<'a>(base: &'a str, ours: &'a str, theirs: &'a str) -> Option<&'a str> {
    if ours == theirs || theirs == base {
        Some(ours)
    } else if ours == base {
        Some(theirs)
    } else {
        None
    }
}

/// Files by name, merged three ways: a file one side changed takes that side (and goes where it
/// removed it), one both changed is `merge`d; `None` when a file cannot be merged.
fn merge_files(
    sides: &[Files; 3],
    merge: impl Fn(&str, &str, &str) -> Option<String>,
) -> Option<Files> {
    let [base, ours, theirs] = sides;
    let names: BTreeSet<&String> = base
        .keys()
        .chain(ours.keys())
        .chain(theirs.keys())
        .collect();
    let mut out = Files::new();
    for name in names {
        let (b, o, t) = (base.get(name), ours.get(name), theirs.get(name));
        let kept = match (o, t) {
            _ if o == t => o.cloned(),
            _ if t == b => o.cloned(),
            _ if o == b => t.cloned(),
            (Some(o), Some(t)) => Some(merge(b.map_or("", String::as_str), o, t)?),
            // Removed on one side, changed on the other.
            _ => return None,
        };
        if let Some(text) = kept {
            out.insert(name.clone(), text);
        }
    }
    Some(out)
}

/// The config as `commit` has it; one that does not parse compiles nothing.
fn config_at(repo: &Repo, commit: gix::ObjectId) -> Result<Config> {
    Ok(text_at(repo, commit, paths::CONFIG, Kind::Config)?
        .and_then(|text| Config::parse(&text).ok())
        .unwrap_or_default())
}

/// The facts of `commit` that its decision records do not approve, as `verify` judges them (a
/// signed ledger's approvals by the keys it lists).
fn unapproved_at(repo: &Repo, commit: gix::ObjectId) -> Result<BTreeSet<String>> {
    let signers = text_at(repo, commit, paths::ALLOWED_SIGNERS, Kind::AllowedSigners)?
        .map(|keys| AllowedSigners::parse(&keys));
    let Some(state) = records::state_at(repo, commit, None, signers.as_ref())? else {
        return Ok(BTreeSet::new());
    };
    Ok(state.unapproved())
}

/// The rule files a decision commit writes and deletes besides `writes` (its ledger files), so
/// that they are what the commit's ledger compiles to: HEAD's config and facts, with the
/// decision's fact files. The facts the decision writes are approved by its own record.
pub fn for_decision(ws: &Workspace, writes: &[FileWrite]) -> Result<(Vec<FileWrite>, Vec<String>)> {
    let Ok(head) = ws.repo.gix().head_id() else {
        return Ok((Vec::new(), Vec::new()));
    };
    let head = head.detach();
    let config = config_at(&ws.repo, head)?;
    let present = compiled_at(&ws.repo, head)?;
    if config.compile.is_empty() && present.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let before = facts_of(&ws.repo, Some(head))?;
    let mut after = before.clone();
    for w in writes {
        if let Some(name) = w.path.strip_prefix(&format!("{}/", paths::FACTS)) {
            after.insert(
                name.to_owned(),
                String::from_utf8_lossy(&w.new).into_owned(),
            );
        }
    }
    let before = Ledger::from_texts(before, Config::default());
    let after = Ledger::from_texts(after, config);
    let mut unapproved = unapproved_at(&ws.repo, head)?;
    for (_, fact) in after.facts() {
        let Some(id) = &fact.id else { continue };
        if before.find(id).map(|(_, f)| &f.raw) != Some(&fact.raw) {
            unapproved.remove(id);
        }
    }
    let wanted = compile_ledger(&after, &unapproved);
    let mut out = Vec::new();
    for file in &wanted {
        refuse_link(ws, &file.path)?;
        match present.get(&file.path) {
            Some(text) if *text == file.text => {}
            Some(text) => out.push(FileWrite {
                path: file.path.clone(),
                old: text.clone().into_bytes(),
                new: file.text.clone().into_bytes(),
                pristine: None,
            }),
            None => {
                refuse_foreign_at(&ws.repo, head, &file.path)?;
                out.push(FileWrite::create(
                    file.path.clone(),
                    file.text.clone().into_bytes(),
                ));
            }
        }
    }
    Ok((out, Drift::between(&wanted, present).extra))
}

/// Refuses a rule file whose folder leads out of the work tree through a link: a branch can
/// commit `.github/instructions` as a link to anywhere.
fn refuse_link(ws: &Workspace, path: &str) -> Result<()> {
    let root = ws.repo.root();
    if store::file::plainly_inside(root, &root.join(path)) {
        Ok(())
    } else {
        Err(Error::RuleFileLink { path: path.into() })
    }
}

/// Refuses to write a compiled file over one of `commit`'s that mneme did not write.
fn refuse_foreign_at(repo: &Repo, commit: gix::ObjectId, path: &str) -> Result<()> {
    match text_at(repo, commit, path, Kind::Instructions)? {
        Some(text) if !is_generated(&text) => Err(Error::ForeignRuleFile { path: path.into() }),
        _ => Ok(()),
    }
}

/// What the work tree's ledger compiles to; with `compile`, for those targets instead of the
/// config's (`setup` shows what a change of them would write).
pub fn expected_in_work_tree(ws: &Workspace, compile: Option<&[String]>) -> Result<Vec<RuleFile>> {
    let mut ledger = ws.store.load()?;
    if let Some(targets) = compile {
        ledger.config.compile = targets.to_vec();
    }
    if ledger.config.compile.is_empty() {
        return Ok(Vec::new());
    }
    let unapproved = records::unapproved(ws, &ledger, ws.repo.head_key())?;
    Ok(compile_ledger(&ledger, &unapproved))
}

/// The rule files mneme compiled that the work tree holds, path → text.
fn compiled_in_work_tree(ws: &Workspace) -> Result<BTreeMap<String, String>> {
    let root = ws.repo.root();
    let mut out = BTreeMap::new();
    for target in Target::ALL {
        let dir = root.join(target.dir());
        // A file, or a link, where the folder would be holds none of mneme's files.
        let plain_dir = std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir());
        if !plain_dir || !store::file::plainly_inside(root, &dir) {
            continue;
        }
        for (name, _) in store::file::list_dir(&dir, "")? {
            if !is_compiled_name(target, &name) {
                continue;
            }
            let path = format!("{}/{name}", target.dir());
            if let Some(text) = read_text(ws, &path)? {
                if is_generated(&text) {
                    out.insert(path, text);
                }
            }
        }
    }
    Ok(out)
}

/// The text of the work-tree file `path` (from the repository's root), if there is one.
pub fn read_text(ws: &Workspace, path: &str) -> Result<Option<String>> {
    let root = ws.repo.root();
    Ok(
        store::file::read_file(root, &root.join(path), Kind::Instructions)?
            .map(|b| String::from_utf8_lossy(&b).into_owned()),
    )
}

/// How the work tree's rule files differ from what its ledger compiles to.
#[derive(Debug, Default, serde::Serialize)]
pub struct Drift {
    /// Files to write: missing, or not what the ledger compiles to.
    pub stale: Vec<String>,
    /// Compiled files the ledger no longer compiles to.
    pub extra: Vec<String>,
}

impl Drift {
    /// How the compiled files `present` (path → text) differ from `wanted`.
    fn between(wanted: &[RuleFile], present: BTreeMap<String, String>) -> Drift {
        Drift {
            stale: wanted
                .iter()
                .filter(|f| present.get(&f.path) != Some(&f.text))
                .map(|f| f.path.clone())
                .collect(),
            extra: present
                .into_keys()
                .filter(|p| !wanted.iter().any(|f| &f.path == p))
                .collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.stale.is_empty() && self.extra.is_empty()
    }
}

/// How the work tree's rule files differ from what its ledger compiles to; with `fix`, they are
/// made so (written atomically; a file at a compiled file's name that mneme did not write is
/// refused, before anything is written).
pub fn sync_work_tree(ws: &Workspace, fix: bool) -> Result<Drift> {
    let wanted = expected_in_work_tree(ws, None)?;
    let drift = drift_from(ws, &wanted)?;
    if fix {
        apply(ws, &wanted, &drift)?;
    }
    Ok(drift)
}

/// How the work tree's rule files differ from `wanted`. A file at a wanted path that mneme did
/// not write, or a folder that is a file or a link, is refused.
pub fn drift_from(ws: &Workspace, wanted: &[RuleFile]) -> Result<Drift> {
    let present = compiled_in_work_tree(ws)?;
    for file in wanted {
        refuse_link(ws, &file.path)?;
        if present.contains_key(&file.path) {
            continue;
        }
        let dir = file.path.rsplit_once('/').map_or("", |(d, _)| d);
        let dir_path = ws.repo.root().join(dir);
        if dir_path.exists() && !dir_path.is_dir() {
            return Err(Error::ForeignRuleFile { path: dir.into() });
        }
        if read_text(ws, &file.path)?.is_some() {
            return Err(Error::ForeignRuleFile {
                path: file.path.clone(),
            });
        }
    }
    Ok(Drift::between(wanted, present))
}

/// Writes the files of `drift` from `wanted` and removes those it finds extra.
pub fn apply(ws: &Workspace, wanted: &[RuleFile], drift: &Drift) -> Result<()> {
    let root = ws.repo.root();
    for file in wanted.iter().filter(|f| drift.stale.contains(&f.path)) {
        let path = root.join(&file.path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(store::Error::io(dir))?;
        }
        write_atomic(&path, file.text.as_bytes(), Durability::Synced)?;
    }
    for rel in &drift.extra {
        let path = root.join(rel);
        std::fs::remove_file(&path).map_err(store::Error::io(&path))?;
        // A folder mneme's files alone filled goes with them.
        if let Some(dir) = path.parent() {
            let _ = std::fs::remove_dir(dir);
        }
    }
    Ok(())
}
