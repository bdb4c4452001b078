//! Reviewing proposals: previews (pure, over the model) and decisions, recorded as commits.

use std::path::PathBuf;

use crate::git::commit::{self, Committed, FileWrite, LedgerCommit};
use crate::model::base::paths;
use crate::model::base::text::escape_line;
use crate::model::base::time::Timestamp;
use crate::model::facts::fields::check_reason;
use crate::model::facts::ledger::Ledger;
use crate::model::facts::starter;
use crate::model::proposals::apply::{apply, retargeted, FileChange};
use crate::model::proposals::preview::BudgetAfter;
use crate::model::proposals::proposal::{is_proposal_id, Operation, Proposal, ProposalError};
use crate::model::proposals::queue::Queue;
use crate::model::provenance::decision::{invalid_rejection, Decision, ForgeReviewer, Verdict};
use crate::model::provenance::factdiff::Files;
use crate::model::provenance::record::Record;
use crate::ops::{now, Error, Notes, Result, Workspace};

/// A pending proposal file: the proposal, checked, or why it cannot be approved.
#[derive(Debug, Clone)]
pub struct Pending {
    pub path: PathBuf,
    /// The file's name without `.json`, control characters escaped: how a reviewer names it.
    pub id: String,
    pub proposal: std::result::Result<Proposal, ProposalError>,
    /// The agent's proposal, once the reviewer has edited `proposal`.
    pub original: Option<Proposal>,
}

impl Pending {
    /// The proposal, if it is valid.
    pub fn valid(&self) -> Option<&Proposal> {
        self.proposal.as_ref().ok()
    }
}

/// The valid proposals of `pending` other than `item`: what a preview of `item` compares with.
pub fn others(pending: &[Pending], item: &Pending, ledger: &Ledger) -> Queue {
    let others = pending
        .iter()
        .filter(|p| p.path != item.path)
        .filter_map(Pending::valid);
    Queue::of(others, &ledger.limits())
}

/// Which pending proposals a review takes up: named ones (ids or unique prefixes), and those by
/// an agent, touching a fact file, or proposed since a time. Empty: all of them.
#[derive(Debug, Clone, Default)]
pub struct Focus {
    pub ids: Vec<String>,
    pub agent: Option<String>,
    /// A fact file's name, with or without `.md`.
    pub file: Option<String>,
    pub since: Option<Timestamp>,
}

impl Focus {
    /// The proposals of `pending` the focus takes, in review order. Every named id must match
    /// one proposal; an invalid proposal is taken only by name (it says nothing of its agent,
    /// files or time that can be trusted).
    pub fn select<'p>(&self, pending: &'p [Pending]) -> Result<Vec<&'p Pending>> {
        // A mistyped filter matches nothing: say so, with what it could have named.
        if let Some(agent) = &self.agent {
            let mut agents: Vec<String> = pending
                .iter()
                .filter_map(|p| p.valid()?.agent.clone())
                .collect();
            agents.sort();
            agents.dedup();
            if !agents.is_empty() && !agents.contains(agent) {
                return Err(Error::UnknownAgent {
                    agent: escape_line(agent).into_owned(),
                    known: agents,
                });
            }
        }
        let named: Vec<&Pending> = self
            .ids
            .iter()
            .map(|id| find(pending, id))
            .collect::<Result<_>>()?;
        let file = self
            .file
            .as_deref()
            .map(|f| f.strip_suffix(".md").unwrap_or(f));
        let filtered = self.agent.is_some() || file.is_some() || self.since.is_some();
        Ok(pending
            .iter()
            .filter(|item| {
                let is_named = named.iter().any(|n| n.path == item.path);
                if !named.is_empty() && !is_named {
                    return false;
                }
                let Some(p) = item.valid() else {
                    return !filtered || is_named;
                };
                self.agent
                    .as_deref()
                    .is_none_or(|a| p.agent.as_deref() == Some(a))
                    && file.is_none_or(|f| {
                        p.operations
                            .iter()
                            .any(|o| o.file().strip_suffix(".md").unwrap_or(o.file()) == f)
                    })
                    && self
                        .since
                        .is_none_or(|t| p.created().is_some_and(|c| c >= t))
            })
            .collect())
    }
}

/// `item` less its operations numbered `drop` (from 1, as review shows them), for an approval
/// of the rest. `Err` says why it cannot be; a number out of range is named as `{label} {n}`
/// (`--drop 3`, `operation 3`).
pub fn less_operations(
    item: &Pending,
    drop: &[usize],
    ledger: &Ledger,
    label: &str,
) -> std::result::Result<Pending, String> {
    let ops = item
        .valid()
        .map(|p| p.operations.clone())
        .unwrap_or_default();
    if let Some(n) = drop.iter().find(|n| **n == 0 || **n > ops.len()) {
        return Err(format!(
            "{label} {n}: the proposal has operations 1 to {}",
            ops.len()
        ));
    }
    let keep: Vec<bool> = (1..=ops.len()).map(|n| !drop.contains(&n)).collect();
    let mut item = item.clone();
    keep_operations(&mut item, ops, &keep, ledger)?;
    Ok(item)
}

/// Makes the proposal `ops` (its operations, some edited) less those `keep` marks false: the
/// reviewer's version, aimed at the facts as they are. `Err` says why it cannot be.
pub fn keep_operations(
    item: &mut Pending,
    ops: Vec<Operation>,
    keep: &[bool],
    ledger: &Ledger,
) -> std::result::Result<(), String> {
    let Some(proposal) = item.valid() else {
        return Err("the proposal is invalid".into());
    };
    if keep.iter().all(|k| !k) {
        return Err("every operation was dropped: reject the proposal instead".into());
    }
    let mut decided = proposal.clone();
    decided.operations = ops
        .into_iter()
        .zip(keep)
        .filter_map(|(op, k)| k.then_some(op))
        .collect();
    if decided == *proposal {
        return Ok(());
    }
    if item.original.as_ref() == Some(&decided) {
        // Every drop and edit taken back: the proposal is the agent's again.
        item.proposal = Ok(decided);
        item.original = None;
        return Ok(());
    }
    decided
        .validate(&ledger.limits())
        .map_err(|why| format!("the proposal would not hold without what was dropped ({why})"))?;
    let decided = retargeted(ledger, &decided).unwrap_or(decided);
    replace_proposal(item, decided);
    Ok(())
}

/// The reviewer's version of the proposal; the agent's is kept for the record.
pub fn replace_proposal(item: &mut Pending, edited: Proposal) {
    let agent = std::mem::replace(&mut item.proposal, Ok(edited));
    if item.original.is_none() {
        item.original = agent.ok();
    }
}

/// Today's date, stamped as `since` on the facts an approval writes.
pub fn today() -> String {
    now().date()
}

/// Every pending proposal file, oldest first, each checked against `ledger` as strictly as
/// `propose` checks its arguments. Invalid ones are listed too: they can only be rejected.
pub fn pending(ws: &Workspace, ledger: &Ledger) -> Result<Vec<Pending>> {
    let limits = ledger.limits();
    Ok(ws
        .store
        .load_proposals()?
        .into_iter()
        .map(|l| {
            let stem = l.path.file_stem().unwrap_or_default().to_string_lossy();
            Pending {
                id: escape_line(&stem).into_owned(),
                proposal: l.proposal.and_then(|p| p.validate(&limits).map(|()| p)),
                path: l.path,
                original: None,
            }
        })
        .collect())
}

/// The pending proposal named by `id`: its full id, its file name, a unique prefix of at least
/// two characters, or a unique start of at least four characters of its random part (the
/// `04f8cb48` of `20261125T120000Z-04f8cb48`: proposals made in one second share the rest).
pub fn find<'p>(pending: &'p [Pending], id: &str) -> Result<&'p Pending> {
    let id = id.trim().trim_end_matches(".json");
    if let Some(p) = pending.iter().find(|p| p.id == id) {
        return Ok(p);
    }
    let mut matches: Vec<_> = pending
        .iter()
        .filter(|p| id.chars().count() >= 2 && p.id.starts_with(id))
        .collect();
    if matches.is_empty() && id.chars().count() >= 4 {
        matches = pending
            .iter()
            .filter(|p| {
                p.id.rsplit_once('-')
                    .is_some_and(|(_, random)| random.starts_with(id))
            })
            .collect();
    }
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::UnknownProposal {
            id: escape_line(id).into_owned(),
            known: pending.iter().map(|p| p.id.clone()).collect(),
        }),
        many => Err(Error::AmbiguousProposal {
            id: escape_line(id).into_owned(),
            matches: many.iter().map(|p| p.id.clone()).collect(),
        }),
    }
}

/// Finishes a decision an earlier run was interrupted in; says what it did, if anything.
pub fn recover(ws: &Workspace) -> Result<Option<String>> {
    Ok(commit::recover(&ws.repo)?)
}

/// How a reviewer approves.
#[derive(Debug, Clone, Default)]
pub struct Approval {
    /// A note for the commit message body.
    pub note: Option<String>,
    /// Skip the repository's `pre-commit` and `commit-msg` hooks.
    pub no_verify: bool,
    /// The reviewer checked that what looks like a credential is not one.
    pub allow_secrets: bool,
    /// A decision made on a forge: who commented it. The repository's identity must already be
    /// theirs ([`crate::git::Repo::set_identity`]).
    pub forge: Option<ForgeReviewer>,
}

/// Applies and commits `item` against the ledger as it is now. Taking the facts over their line
/// budget is allowed, and said.
pub fn approve(
    ws: &Workspace,
    item: &Pending,
    how: &Approval,
    notes: &dyn Notes,
) -> Result<Committed> {
    let proposal = item.proposal.as_ref().map_err(|e| Error::InvalidProposal {
        id: item.id.clone(),
        why: e.clone(),
    })?;
    if !how.allow_secrets {
        if let Some((field, secret)) = proposal.secrets().into_iter().next() {
            return Err(Error::Secret {
                id: item.id.clone(),
                field,
                secret,
            });
        }
    }
    let note = checked_note(how.note.as_deref())?;
    let ledger = ws.store.load()?;
    let applied = apply(&ledger, proposal, &today()).map_err(|conflict| Error::Conflict {
        id: proposal.id.clone(),
        conflict,
    })?;
    let budget = BudgetAfter::of(&ledger, &applied);
    if budget.over() {
        notes.warn(&format!(
            "approving {} takes the facts to {} lines, over budget_lines ({})",
            item.id, budget.lines, budget.limit
        ));
    }
    let mut writes: Vec<FileWrite> = applied
        .files
        .iter()
        .map(|f| FileWrite {
            path: paths::fact_file(&f.name),
            old: f.old.clone().into_bytes(),
            new: f.new.clone().into_bytes(),
            pristine: starter::text(&f.name),
        })
        .collect();
    let reviewer = ws.repo.reviewer()?;
    let files = |pick: fn(&FileChange) -> &String| -> Files {
        applied
            .files
            .iter()
            .map(|f| (f.name.clone(), pick(f).clone()))
            .collect()
    };
    let proof = Record {
        forge: how.forge.clone(),
        ..Record::new(
            Verdict::Approve,
            &proposal.id,
            &reviewer,
            now(),
            &files(|f| &f.old),
            &files(|f| &f.new),
        )
    }
    .with_account(proposal, note.as_deref());
    writes.push(record_file(ws, proof)?);
    let decision = Decision {
        verdict: Verdict::Approve,
        proposal,
        reviewer,
        note,
        rebased: applied.rebased,
        original: item.original.as_ref(),
        forge: how.forge.as_ref(),
    };
    record(ws, item, decision.message(), writes, how.no_verify)
}

/// The record file of a decision, created by its commit; signed by the reviewer where
/// `.ledger/allowed_signers` requires signed decisions (refused when it cannot be).
fn record_file(ws: &Workspace, mut proof: Record) -> Result<FileWrite> {
    if ws.store.path(paths::ALLOWED_SIGNERS).is_file() {
        proof.signature = Some(ws.repo.ssh_sign(proof.payload().as_bytes())?);
    }
    Ok(FileWrite::create(
        paths::decision_file(&proof.id()),
        proof.render().into_bytes(),
    ))
}

/// Records the rejection of `item` as a commit that removes its file. An invalid proposal is
/// rejected by its file name, without repeating any of its contents. `forge`: as for
/// [`Approval::forge`].
pub fn reject(
    ws: &Workspace,
    item: &Pending,
    reason: Option<String>,
    no_verify: bool,
    forge: Option<&ForgeReviewer>,
) -> Result<Committed> {
    let reviewer = ws.repo.reviewer()?;
    let note = checked_note(reason.as_deref())?;
    // A rejection changes no fact; its record says the proposal was decided. An invalid file
    // that is not named as a proposal has no id to record.
    let writes = match &item.proposal {
        Ok(p) => Some(p.id.as_str()),
        Err(_) => is_proposal_id(&item.id).then_some(item.id.as_str()),
    }
    .map(|id| {
        let none = Files::new();
        let proof = Record {
            forge: forge.cloned(),
            ..Record::new(Verdict::Reject, id, &reviewer, now(), &none, &none)
        };
        let proof = match &item.proposal {
            Ok(p) => proof.with_account(p, note.as_deref()),
            Err(_) => proof,
        };
        record_file(ws, proof)
    })
    .into_iter()
    .collect::<Result<_>>()?;
    let message = match &item.proposal {
        Ok(proposal) => Decision {
            verdict: Verdict::Reject,
            proposal,
            reviewer,
            note,
            rebased: false,
            original: item.original.as_ref(),
            forge,
        }
        .message(),
        Err(why) => invalid_rejection(&item.id, &why.to_string(), &reviewer, note.as_deref()),
    };
    record(ws, item, message, writes, no_verify)
}

/// The reviewer's note (an approval's message, a rejection's reason) as a decision stores it:
/// trimmed, `None` when empty, and refused when a reason could not hold it.
fn checked_note(note: Option<&str>) -> Result<Option<String>> {
    let Some(note) = note.filter(|n| !n.trim().is_empty()) else {
        return Ok(None);
    };
    Ok(Some(check_reason(note).map_err(Error::Note)?))
}

fn record(
    ws: &Workspace,
    item: &Pending,
    message: String,
    mut writes: Vec<FileWrite>,
    no_verify: bool,
) -> Result<Committed> {
    // The rule files compiled from the ledger change with it, in the same commit.
    let (rules, mut deletes) = crate::ops::rules::for_decision(ws, &writes)?;
    writes.extend(rules);
    deletes.push(ws.store.git_path(&item.path));
    let change = LedgerCommit {
        writes,
        deletes,
        message,
    };
    Ok(commit::commit(&ws.repo, &change, no_verify)?)
}
