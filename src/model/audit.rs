//! The audit behind `mneme verify`: every commit of a range that changes facts must be a
//! review decision that does exactly what it records. Pure over examined commits.

use serde::Serialize;

use crate::model::change::FactChange;
use crate::model::decision::{Recorded, Verdict};
use crate::model::factdiff::{changes, check_decision, context_text, merge_invented, Files};
use crate::model::proposal::{Limits, Proposal};
use crate::model::signing::{AllowedSigners, SignatureProblem};
use crate::model::time::Timestamp;

/// One commit of a range, with what the ledger looked like before and after it.
#[derive(Debug, Clone)]
pub struct Examined {
    pub id: String,
    pub author: String,
    pub subject: String,
    pub date: String,
    pub decision: Option<Recorded>,
    /// Fact files in each parent (one empty set for a root commit); none when the commit's
    /// ledger is one of its parents' (nothing changed, nothing was read).
    pub parents: Vec<Files>,
    pub files: Files,
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
/// the facts (headings, descriptions, a new empty fact file) are only noted.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Audit {
    pub violations: Vec<Violation>,
    pub notes: Vec<Violation>,
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
    /// A commit that neither decides nor changes the ledger: all an audit needs is its id.
    pub fn quiet(id: String) -> Examined {
        Examined {
            id,
            author: String::new(),
            subject: String::new(),
            date: String::new(),
            decision: None,
            parents: Vec::new(),
            files: Files::new(),
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
    if c.parents.len() > 1 {
        let invented = merge_invented(&c.parents, &c.files);
        if invented.is_empty() {
            return (None, None);
        }
        let problems = vec!["the merge result has facts that match neither parent".to_owned()];
        return (Some(c.violation(invented, Vec::new(), problems)), None);
    }
    if !c.touches_facts {
        return (None, None);
    }
    let parent = &c.parents[0];
    let found = changes(parent, &c.files);
    let files = changed_files(&found);
    let facts: Vec<String> = found.iter().map(|f| f.fact.clone()).collect();
    let problems = match &c.decision {
        Some(d) if d.verdict == Verdict::Approve => {
            let proposal = c.removed_proposals.iter().find(|p| p.id == d.proposal);
            let mut problems = check_decision(d, &found, proposal);
            problems.extend(proposal.and_then(|p| invalid(p, parent)));
            problems
        }
        Some(_) if !found.is_empty() => vec!["a rejection must not change facts".to_owned()],
        Some(_) => Vec::new(),
        None => {
            let (before, after) = (context_text(parent), context_text(&c.files));
            let mut context: Vec<String> = after
                .iter()
                .filter(|(name, text)| before.get(*name) != Some(*text))
                .map(|(name, _)| name.clone())
                .chain(before.keys().filter(|n| !after.contains_key(*n)).cloned())
                .collect();
            context.sort();
            context.dedup();
            let edits: Vec<String> = context
                .iter()
                .map(|n| format!("edited the text around the facts in {n}"))
                .collect();
            if found.is_empty() {
                let note = (!edits.is_empty()).then(|| c.violation(Vec::new(), context, edits));
                return (None, note);
            }
            let mut problems = vec!["changed facts without a mneme review decision".to_owned()];
            problems.extend(found.iter().map(describe));
            problems.extend(edits);
            let mut files = files;
            files.extend(context);
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
fn invalid(p: &Proposal, parent: &Files) -> Option<String> {
    let limits = Limits {
        max_fact_chars: usize::MAX,
        files: parent.keys().cloned().collect(),
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
