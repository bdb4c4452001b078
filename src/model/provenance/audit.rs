//! The audit behind `mneme verify`: every commit of a range that changes facts must be a
//! review decision that does exactly what it records. Pure over examined commits.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::model::base::time::Timestamp;
use crate::model::facts::change::FactChange;
use crate::model::facts::ledger::Limits;
use crate::model::facts::starter::is_starter;
use crate::model::proposals::proposal::Proposal;
use crate::model::provenance::decision::{Recorded, Verdict};
use crate::model::provenance::factdiff::{
    changes, check_decision, diff_with, merge_invented, Files, FilesDiff, Parses,
};
use crate::model::provenance::record::{State, StateIssue};
use crate::model::provenance::signing::{AllowedSigners, SignatureProblem};

/// One commit of a range, and what it did to the ledger.
#[derive(Debug, Clone)]
pub struct Examined {
    pub id: String,
    pub author: String,
    pub subject: String,
    pub date: String,
    pub decision: Option<Recorded>,
    /// What it did to the facts, worked out as it was examined: its files are not kept, so a
    /// long history costs memory by its changes, not by its length.
    pub change: LedgerChange,
    /// The facts directory differs from the first parent's.
    pub touches_facts: bool,
    /// Proposal files removed by this commit (relative to the first parent), parsed when possible.
    pub removed_proposals: Vec<Proposal>,
    /// Proposal files this commit adds (relative to the first parent): file names.
    pub added_proposals: Vec<String>,
    pub committer_email: String,
    /// When it was committed.
    pub time: Timestamp,
    /// For a decision: what was signed and the signature, if it is signed.
    pub signed: Option<(Vec<u8>, String)>,
}

/// What one commit did to the facts.
#[derive(Debug, Clone, Default)]
pub enum LedgerChange {
    /// Its ledger is one of its parents' (or it has none): nothing changed.
    #[default]
    Unchanged,
    /// A commit with one parent (or a root commit).
    Commit {
        /// Fact-level changes against the parent.
        found: Vec<FactChange>,
        /// Files whose text around the facts changed.
        context: Vec<String>,
        /// The parent's fact file names.
        parent_files: Vec<String>,
    },
    /// A merge: the facts that match neither parent, as changes against the first parent.
    Merge { invented: Vec<FactChange> },
}

impl LedgerChange {
    /// From the fact files of each parent (one empty set for a root commit) and of the commit;
    /// `parses` holds files read for earlier commits.
    pub fn of(parents: &[Files], files: &Files, parses: &mut Parses) -> LedgerChange {
        let empty = Files::new();
        let first = parents.first().unwrap_or(&empty);
        if parents.len() > 1 {
            let keys = merge_invented(parents, files);
            let mut invented = changes(first, files);
            invented.retain(|c| keys.contains(&c.fact));
            return LedgerChange::Merge { invented };
        }
        let FilesDiff {
            changes,
            mut context,
        } = diff_with(first, files, parses);
        // A fact file created as `mneme init` writes it is mneme's own set-up, not an edit.
        context.retain(|name| {
            first.contains_key(name) || !files.get(name).is_some_and(|t| is_starter(name, t))
        });
        LedgerChange::Commit {
            found: changes,
            context,
            parent_files: first.keys().cloned().collect(),
        }
    }

    /// The fact-level changes against the first parent (for a merge, only what it invented).
    pub fn found(&self) -> &[FactChange] {
        match self {
            LedgerChange::Unchanged => &[],
            LedgerChange::Commit { found, .. } => found,
            LedgerChange::Merge { invented } => invented,
        }
    }
}

/// A commit that changed the facts without a matching review decision.
#[derive(Debug, Clone, Serialize)]
pub struct Violation {
    pub commit: String,
    pub author: String,
    pub subject: String,
    pub files: Vec<String>,
    pub facts: Vec<String>,
    pub problems: Vec<String>,
}

/// The outcome of an audit: changes to facts without review fail it; edits to the text around
/// the facts (headings, descriptions, a new empty fact file other than those `mneme init`
/// writes) are only noted.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Audit {
    pub violations: Vec<Violation>,
    pub notes: Vec<Violation>,
    /// Commits that changed facts without being decisions, whose facts the decision records
    /// explain (a squash, a rebase merge, a cherry-pick rewrote the decisions' commits): history
    /// that carried approvals, noted, never unreviewed.
    #[serde(skip)]
    pub recorded: BTreeSet<String>,
}

impl Audit {
    /// Reconciles the history with the decision records at the range's head (`state`): a
    /// violation whose facts the records explain becomes a note, as `verify` judges it, so that
    /// every view of the range agrees with it. A decision commit's own problem (its signature)
    /// names no fact: the records answer it only when they explain every fact.
    pub fn explain_by_records(&mut self, state: &State) {
        let off: BTreeSet<&str> = state.issues.iter().map(StateIssue::fact).collect();
        let (explained, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.violations)
            .into_iter()
            .partition(|v| {
                state.holds()
                    || (!v.facts.is_empty() && v.facts.iter().all(|f| !off.contains(f.as_str())))
            });
        self.violations = kept;
        for mut v in explained {
            v.problems
                .push("the decision records explain these facts as they stand".into());
            self.recorded.insert(v.commit.clone());
            self.notes.push(v);
        }
    }
}

/// Every commit that changes facts must be a mneme approval whose change is exactly what it
/// records; merges may only combine what their parents had. With `signers`, every decision must
/// also carry a good SSH signature by a key listed for its committer.
pub fn audit(commits: &[Examined], signers: Option<&AllowedSigners>) -> Audit {
    let mut out = Audit::default();
    for c in commits {
        let (mut found, note) = check_commit(c);
        if let Some(note) = note {
            out.notes.push(note);
        }
        if let Some(problem) = signers.and_then(|s| signature_problem(s, c)) {
            let v = found.get_or_insert_with(|| c.violation(Vec::new(), Vec::new(), Vec::new()));
            v.problems.push(format!("decision commit: {problem}"));
        }
        out.violations.extend(found);
    }
    out
}

/// Why a decision commit's signature does not count, if it does not.
fn signature_problem(signers: &AllowedSigners, c: &Examined) -> Option<SignatureProblem> {
    c.decision.as_ref()?;
    let Some((payload, signature)) = &c.signed else {
        return Some(SignatureProblem::Unsigned);
    };
    signers
        .verify(signature, payload, &c.committer_email, c.time)
        .err()
}

impl Examined {
    /// A commit with nothing but its id, to be filled in.
    pub fn quiet(id: String) -> Examined {
        Examined {
            id,
            author: String::new(),
            subject: String::new(),
            date: String::new(),
            decision: None,
            change: LedgerChange::Unchanged,
            touches_facts: false,
            removed_proposals: Vec::new(),
            added_proposals: Vec::new(),
            committer_email: String::new(),
            time: Timestamp::from_unix(0),
            signed: None,
        }
    }

    fn violation(
        &self,
        facts: Vec<String>,
        files: Vec<String>,
        problems: Vec<String>,
    ) -> Violation {
        Violation {
            commit: self.id.clone(),
            author: self.author.clone(),
            subject: self.subject.clone(),
            files,
            facts,
            problems,
        }
    }
}

/// The violation and the note (edits around the facts) of one commit, if any.
fn check_commit(c: &Examined) -> (Option<Violation>, Option<Violation>) {
    let (found, context, parent_files) = match &c.change {
        LedgerChange::Unchanged => return (None, None),
        LedgerChange::Merge { invented } if invented.is_empty() => return (None, None),
        LedgerChange::Merge { invented } => {
            let facts = invented.iter().map(|f| f.fact.clone()).collect();
            let problems = vec!["the merge result has facts that match neither parent".to_owned()];
            return (Some(c.violation(facts, Vec::new(), problems)), None);
        }
        LedgerChange::Commit { .. } if !c.touches_facts => return (None, None),
        LedgerChange::Commit {
            found,
            context,
            parent_files,
        } => (found, context, parent_files),
    };
    let files = changed_files(found);
    let facts: Vec<String> = found.iter().map(|f| f.fact.clone()).collect();
    let problems = match &c.decision {
        Some(d) if d.verdict == Verdict::Approve => {
            let proposal = c.removed_proposals.iter().find(|p| p.id == d.proposal);
            let mut problems = check_decision(d, found, proposal);
            problems.extend(proposal.and_then(|p| invalid(p, parent_files)));
            problems
        }
        Some(_) if !found.is_empty() => vec!["a rejection must not change facts".to_owned()],
        Some(_) => Vec::new(),
        None => {
            let edits: Vec<String> = context
                .iter()
                .map(|n| format!("edited the text around the facts in {n}"))
                .collect();
            if found.is_empty() {
                let note =
                    (!edits.is_empty()).then(|| c.violation(Vec::new(), context.clone(), edits));
                return (None, note);
            }
            let mut problems = vec!["changed facts without a mneme review decision".to_owned()];
            problems.extend(found.iter().map(describe));
            problems.extend(edits);
            let mut files = files;
            files.extend(context.iter().cloned());
            files.sort();
            files.dedup();
            return (Some(c.violation(facts, files, problems)), None);
        }
    };
    let violation = (!problems.is_empty()).then(|| c.violation(facts, files, problems));
    (violation, None)
}

/// Why the proposal an approval removed breaks the rules `propose` enforces, if it does. Its
/// files are those of the parent; the text limit was the approving ledger's, not known here.
fn invalid(p: &Proposal, parent_files: &[String]) -> Option<String> {
    let limits = Limits {
        max_fact_chars: usize::MAX,
        files: parent_files.to_vec(),
    };
    p.validate(&limits)
        .err()
        .map(|e| format!("the approved proposal is invalid: {e}"))
}

fn changed_files(found: &[FactChange]) -> Vec<String> {
    let mut files: Vec<String> = found.iter().map(|f| f.file.clone()).collect();
    files.sort();
    files.dedup();
    files
}

fn describe(c: &FactChange) -> String {
    format!("{} {} in {}", c.fact, c.kind.as_str(), c.file)
}
