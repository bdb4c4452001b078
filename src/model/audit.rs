//! What a range of commits did to the facts: the audit behind `mneme verify` and the summary
//! behind `mneme diff`. Pure over examined commits.

use serde::Serialize;

use crate::git::history::Examined;
use crate::model::decision::Recorded;
use crate::model::factdiff::{
    changes, check_decision, context_text, merge_invented, ChangeKind, FactChange,
};
use crate::model::proposal::Proposal;

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
/// records; merges may only combine what their parents had.
pub fn audit(commits: &[Examined]) -> Audit {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for c in commits {
        let violation = |facts: Vec<String>, files: Vec<String>, problems: Vec<String>| Violation {
            commit: c.id.clone(),
            author: c.author.clone(),
            subject: c.subject.clone(),
            files,
            facts,
            problems,
        };
        if c.parents.len() > 1 {
            let invented = merge_invented(&c.parents, &c.files);
            if !invented.is_empty() {
                let problems =
                    vec!["the merge result has facts that match neither parent".to_owned()];
                out.push(violation(invented, Vec::new(), problems));
            }
            continue;
        }
        if !c.touches_facts {
            continue;
        }
        let parent = &c.parents[0];
        let found = changes(parent, &c.files);
        let files = changed_files(&found);
        let facts: Vec<String> = found.iter().map(|f| f.fact.clone()).collect();
        let problems = match &c.decision {
            Some(d) if d.verdict == "approve" => {
                let proposal = c.removed_proposals.iter().find(|p| p.id == d.proposal);
                check_decision(d, &found, proposal)
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
                    if !edits.is_empty() {
                        notes.push(violation(Vec::new(), context, edits));
                    }
                    continue;
                }
                let mut problems = vec!["changed facts without a mneme review decision".to_owned()];
                problems.extend(found.iter().map(describe));
                problems.extend(edits);
                let mut files = files;
                files.extend(context);
                files.sort();
                files.dedup();
                out.push(violation(facts, files, problems));
                continue;
            }
        };
        if !problems.is_empty() {
            out.push(violation(facts, files, problems));
        }
    }
    Audit {
        violations: out,
        notes,
    }
}

fn changed_files(found: &[FactChange]) -> Vec<String> {
    let mut files: Vec<String> = found.iter().map(|f| f.file.clone()).collect();
    files.sort();
    files.dedup();
    files
}

fn describe(c: &FactChange) -> String {
    let kind = match c.kind {
        ChangeKind::Added => "added",
        ChangeKind::Removed => "removed",
        ChangeKind::Changed => "changed",
    };
    format!("{} {kind} in {}", c.fact, c.file)
}

/// One fact-level entry of a range summary.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub kind: &'static str,
    pub fact: String,
    pub file: String,
    pub old: Option<String>,
    pub new: Option<String>,
    /// With `superseded`: the replacement's id.
    pub replaced_by: Option<String>,
    pub proposed_by: Option<String>,
    pub approved_by: Option<String>,
    pub reason: String,
    pub commit: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Rejection {
    pub proposal: String,
    pub subject: String,
    pub proposed_by: Option<String>,
    pub rejected_by: Option<String>,
    pub reason: String,
    pub commit: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PendingLine {
    pub id: String,
    pub agent: Option<String>,
    pub operations: Vec<String>,
    /// Added to the repository within the range.
    pub opened_in_range: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub range: String,
    pub added: Vec<Entry>,
    pub updated: Vec<Entry>,
    pub removed: Vec<Entry>,
    pub superseded: Vec<Entry>,
    pub rejected: Vec<Rejection>,
    pub pending: Vec<PendingLine>,
    /// Commits that changed facts without review (details from `mneme verify`).
    pub unreviewed_commits: usize,
}

impl Summary {
    /// The fact sections in display order: added, updated, superseded, removed.
    pub fn sections(&self) -> [(&'static str, &[Entry]); 4] {
        [
            ("Added", &self.added),
            ("Updated", &self.updated),
            ("Superseded", &self.superseded),
            ("Removed", &self.removed),
        ]
    }
}

/// The fact-level summary of `commits`; `pending` are the proposals in the head commit.
pub fn summarize(range: &str, commits: &[Examined], pending: &[Proposal]) -> Summary {
    let mut s = Summary {
        range: range.to_owned(),
        added: Vec::new(),
        updated: Vec::new(),
        removed: Vec::new(),
        superseded: Vec::new(),
        rejected: Vec::new(),
        pending: Vec::new(),
        unreviewed_commits: audit(commits).violations.len(),
    };
    for c in commits {
        let Some(d) = &c.decision else { continue };
        if d.verdict != "approve" {
            s.rejected.push(Rejection {
                proposal: d.proposal.clone(),
                subject: c.subject.clone(),
                proposed_by: d.proposed_by.clone(),
                rejected_by: d.reviewer.clone(),
                reason: d.reason.clone(),
                commit: c.id.clone(),
            });
            continue;
        }
        let found = changes(&c.parents[0], &c.files);
        let text = |id: &str, new: bool| {
            found.iter().find(|f| f.fact == id).and_then(|f| {
                if new {
                    f.new.clone()
                } else {
                    f.old.clone()
                }
            })
        };
        for op in &d.operations {
            let Some(id) = op.fact_ids.first() else {
                continue;
            };
            let entry = |kind, old, new, replaced_by| {
                entry(d, c, kind, id, &op.file, old, new, replaced_by)
            };
            match op.op.as_str() {
                "add" => s.added.push(entry("added", None, text(id, true), None)),
                "update" => s
                    .updated
                    .push(entry("updated", text(id, false), text(id, true), None)),
                "remove" => s
                    .removed
                    .push(entry("removed", text(id, false), None, None)),
                "supersede" => {
                    let new_id = op.fact_ids.get(1).cloned();
                    let new_text = new_id.as_deref().and_then(|n| text(n, true));
                    s.superseded
                        .push(entry("superseded", text(id, false), new_text, new_id));
                }
                _ => {}
            }
        }
    }
    let opened: Vec<&String> = commits.iter().flat_map(|c| &c.added_proposals).collect();
    s.pending = pending
        .iter()
        .map(|p| PendingLine {
            id: p.id.clone(),
            agent: p.agent.clone(),
            operations: p.operations.iter().map(|o| o.summary()).collect(),
            opened_in_range: opened.iter().any(|f| **f == p.file_name()),
        })
        .collect();
    s
}

#[allow(clippy::too_many_arguments)]
fn entry(
    d: &Recorded,
    c: &Examined,
    kind: &'static str,
    id: &str,
    file: &str,
    old: Option<String>,
    new: Option<String>,
    replaced_by: Option<String>,
) -> Entry {
    Entry {
        kind,
        fact: id.to_owned(),
        file: file.to_owned(),
        old,
        new,
        replaced_by,
        proposed_by: d.proposed_by.clone(),
        approved_by: d.reviewer.clone(),
        reason: d.reason.clone(),
        commit: c.id.clone(),
    }
}
