//! The net change of a range, fact by fact: what each fact said before the range and after it,
//! and every commit on the way (approvals, unreviewed edits, merge resolutions). What `mneme
//! diff` shows reviewers. Pure over examined commits and the ledgers at both ends.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::model::facts::change::FactChange;
use crate::model::facts::file::Meta;
use crate::model::proposals::proposal::Proposal;
use crate::model::proposals::secrets;
use crate::model::provenance::audit::{Audit, Examined, LedgerChange, Violation};
use crate::model::provenance::decision::{ProposedText, Recorded, Verdict};
use crate::model::provenance::factdiff::{changes, fact_map, FactState, Files};
use crate::model::provenance::record::{State, StateIssue};
use crate::model::provenance::summary::PendingLine;

/// How a fact ends up after the range, compared with before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NetKind {
    Added,
    Updated,
    Superseded,
    Removed,
    /// The same text, other metadata: verified, moved to another state, re-related.
    Reexamined,
    /// The ledger now holds the fact more than once.
    Duplicated,
    /// Touched in the range but as it was at the end (added and removed again, changed back).
    NoNetChange,
}

impl NetKind {
    pub fn title(self) -> &'static str {
        match self {
            NetKind::Added => "Added",
            NetKind::Updated => "Updated",
            NetKind::Superseded => "Superseded",
            NetKind::Removed => "Removed",
            NetKind::Reexamined => "Verified, state or relations changed",
            NetKind::Duplicated => "Duplicated",
            NetKind::NoNetChange => "Touched, no net change",
        }
    }
}

/// How a commit changed a fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum How {
    /// A mneme approval whose change is what it records.
    Approved,
    /// A commit that changed the fact without a matching review decision.
    Unreviewed,
    /// Text written while resolving a merge: in neither parent.
    Merge,
    /// A commit that carried approvals without their decision commits (a squash, a rebase
    /// merge, a cherry-pick): the decision records explain the fact as it stands.
    Recorded,
}

/// One commit's change to one fact.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    pub commit: String,
    pub date: String,
    pub how: How,
    /// The decision's operation on this fact (`add`, `update`, …), for an approval.
    pub op: Option<&'static str>,
    pub proposal: Option<String>,
    pub proposed_by: Option<String>,
    pub approved_by: Option<String>,
    /// The commit's author, for a commit that is not an approval.
    pub author: Option<String>,
    pub subject: String,
    pub reason: Option<String>,
    pub evidence: Vec<String>,
    pub edited: bool,
    pub rebased: bool,
    /// What the agent proposed, when the reviewer edited it before approving.
    pub agent_text: Option<String>,
    /// The fact's text after this commit (absent once removed).
    pub text: Option<String>,
}

/// One fact touched by the range.
#[derive(Debug, Clone, Serialize)]
pub struct FactNet {
    pub fact: String,
    pub file: String,
    pub change: NetKind,
    pub before: Option<String>,
    pub after: Option<String>,
    /// For `superseded`: the fact that replaces it.
    pub replaced_by: Option<String>,
    /// How its metadata changed, one `key: before → after` per key that differs.
    pub metadata: Vec<String>,
    /// A commit changed it without review, or a merge wrote it.
    pub unreviewed: bool,
    /// Oldest first.
    pub steps: Vec<Step>,
}

/// A commit that changed facts without review, with what it changed.
#[derive(Debug, Clone, Serialize)]
pub struct Unreviewed {
    pub commit: String,
    pub date: String,
    pub author: String,
    pub subject: String,
    pub problems: Vec<String>,
    pub changes: Vec<FactChange>,
}

/// A rejected proposal with the texts it proposed.
#[derive(Debug, Clone, Serialize)]
pub struct Rejected {
    pub proposal: String,
    pub commit: String,
    pub date: String,
    pub operations: Vec<String>,
    pub proposed_texts: Vec<ProposedText>,
    pub proposed_by: Option<String>,
    pub rejected_by: Option<String>,
    /// The reviewer's reason, if one was given.
    pub why: Option<String>,
    /// The rejection's body: the reviewer's reason and the proposal's.
    pub reason: String,
}

/// `mneme diff`: the net change of a range by fact.
#[derive(Debug, Clone, Serialize)]
pub struct NetSummary {
    pub range: String,
    /// The commit the range is compared against (the merge-base), if any.
    pub base: Option<String>,
    pub head: String,
    pub unreviewed: Vec<Unreviewed>,
    /// Where the facts at the head are not what its decision records approved (a fact lost in
    /// a merge, one changed by hand): `verify` fails on each, a line each.
    pub record_problems: Vec<String>,
    /// Ordered by change (added, updated, superseded, removed, …), then file, then id.
    pub facts: Vec<FactNet>,
    pub rejected: Vec<Rejected>,
    pub pending: Vec<PendingLine>,
}

impl NetSummary {
    /// Takes in what the decision records say of the head: their problems (but for a fact's
    /// text an unreviewed commit already shows it wrote), and each fact they name as not
    /// approved as it is, whatever its commits say.
    pub fn judged_by_records(&mut self, state: &State) {
        let shown: BTreeSet<&str> = self
            .unreviewed
            .iter()
            .flat_map(|u| u.changes.iter().map(|c| c.fact.as_str()))
            .collect();
        let mut untold = state.clone();
        untold
            .issues
            .retain(|i| matches!(i, StateIssue::Missing { .. }) || !shown.contains(i.fact()));
        self.record_problems = untold.problems();
        for f in &mut self.facts {
            f.unreviewed |= state.issues.iter().any(|i| i.fact() == f.fact);
        }
    }

    /// How many facts changed in each way, in display order.
    pub fn counts(&self) -> Vec<(NetKind, usize)> {
        let mut counts: BTreeMap<NetKind, usize> = BTreeMap::new();
        for f in &self.facts {
            *counts.entry(f.change).or_default() += 1;
        }
        counts.into_iter().collect()
    }
}

/// The ends of a range and what lies between.
pub struct RangeEnds<'a> {
    pub label: &'a str,
    pub base: Option<String>,
    pub head: String,
    /// The facts at the base (the merge-base; none without one) and at the head.
    pub before: &'a Files,
    pub after: &'a Files,
}

/// The net change of `commits` (oldest first) between `ends`, as `audit` judged them; `pending`
/// are the proposals in the head commit.
pub fn net_summary(
    ends: &RangeEnds<'_>,
    commits: &[Examined],
    audit: &Audit,
    pending: &[Proposal],
) -> NetSummary {
    let violations = &audit.violations;
    let flagged: BTreeSet<&str> = violations.iter().map(|v| v.commit.as_str()).collect();
    // Fact key → the file it was last seen in by a commit, and the commits' steps.
    let mut steps: BTreeMap<String, (String, Vec<Step>)> = BTreeMap::new();
    let mut rejected = Vec::new();
    let mut unreviewed = Vec::new();
    for c in commits {
        let bad = flagged.contains(c.id.as_str());
        if let LedgerChange::Merge { invented } = &c.change {
            for f in invented {
                let entry = steps.entry(f.fact.clone()).or_default();
                entry.0.clone_from(&f.file);
                entry.1.push(Step::other(c, How::Merge, f.new.clone()));
            }
            if bad {
                unreviewed.push(Unreviewed::new(c, violations, invented.clone()));
            }
            continue;
        }
        if let Some(d) = c.decision.as_ref().filter(|d| d.verdict == Verdict::Reject) {
            rejected.push(Rejected::new(c, d));
        }
        if !c.touches_facts {
            continue;
        }
        let found = c.change.found();
        let approval = c
            .decision
            .as_ref()
            .filter(|d| d.verdict == Verdict::Approve && !bad);
        let without_decision = if audit.recorded.contains(&c.id) {
            How::Recorded
        } else {
            How::Unreviewed
        };
        for f in found {
            let step = match approval {
                Some(d) => Step::approved(c, d, f),
                None => Step::other(c, without_decision, f.new.clone()),
            };
            let entry = steps.entry(f.fact.clone()).or_default();
            entry.0.clone_from(&f.file);
            entry.1.push(step);
        }
        if bad {
            unreviewed.push(Unreviewed::new(c, violations, found.to_vec()));
        }
    }
    let (before, after) = (fact_map(ends.before), fact_map(ends.after));
    let net = changes(ends.before, ends.after);
    let keys: BTreeSet<&String> = steps.keys().chain(net.iter().map(|c| &c.fact)).collect();
    let mut facts: Vec<FactNet> = keys
        .into_iter()
        .map(|key| {
            let (file, steps) = steps.get(key).cloned().unwrap_or_default();
            fact_net(key, before.get(key), after.get(key), file, steps)
        })
        .collect();
    facts.sort_by(|a, b| (a.change, &a.file, &a.fact).cmp(&(b.change, &b.file, &b.fact)));
    NetSummary {
        range: ends.label.to_owned(),
        base: ends.base.clone(),
        head: ends.head.clone(),
        unreviewed,
        record_problems: Vec::new(),
        facts,
        rejected,
        pending: pending
            .iter()
            .map(|p| PendingLine::new(p, commits))
            .collect(),
    }
}

fn fact_net(
    key: &str,
    before: Option<&Vec<FactState>>,
    after: Option<&Vec<FactState>>,
    last_file: String,
    steps: Vec<Step>,
) -> FactNet {
    let (b, a) = (
        before.and_then(|v| v.first()),
        after.and_then(|v| v.first()),
    );
    let change = match (b, a) {
        _ if after.is_some_and(|v| v.len() > 1) => NetKind::Duplicated,
        (None, Some(_)) => NetKind::Added,
        (Some(_), None) => NetKind::Removed,
        (Some(b), Some(a)) if b == a => NetKind::NoNetChange,
        (Some(b), Some(a)) if !b.meta.is_superseded() && a.meta.is_superseded() => {
            NetKind::Superseded
        }
        (Some(b), Some(a)) if b.text == a.text => NetKind::Reexamined,
        (Some(_), Some(_)) => NetKind::Updated,
        (None, None) => NetKind::NoNetChange,
    };
    let file = a.or(b).map_or(last_file, |s| s.file.clone());
    FactNet {
        fact: key.to_owned(),
        file,
        change,
        before: b.map(|s| s.text.clone()),
        after: a.map(|s| s.text.clone()),
        replaced_by: a
            .filter(|_| change == NetKind::Superseded)
            .and_then(|s| s.meta.by.clone()),
        metadata: match (b, a) {
            (Some(b), Some(a)) => meta_delta(&b.meta, &a.meta),
            _ => Vec::new(),
        },
        unreviewed: steps
            .iter()
            .any(|s| !matches!(s.how, How::Approved | How::Recorded)),
        steps,
    }
}

/// `key: before → after` for each metadata key whose value differs (`–` for none).
pub fn meta_delta(before: &Meta, after: &Meta) -> Vec<String> {
    let pairs = |m: &Meta| -> BTreeMap<String, String> {
        let rendered = m.render();
        rendered
            .split("; ")
            .filter_map(|part| part.split_once(": "))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    };
    let (b, a) = (pairs(before), pairs(after));
    let keys: BTreeSet<&String> = b.keys().chain(a.keys()).collect();
    let show = |v: Option<&String>| v.map_or("–".to_owned(), Clone::clone);
    keys.into_iter()
        .filter(|k| b.get(*k) != a.get(*k))
        .map(|k| format!("{k}: {} → {}", show(b.get(k)), show(a.get(k))))
        .collect()
}

impl Step {
    fn approved(c: &Examined, d: &Recorded, f: &FactChange) -> Step {
        let op = d
            .operations
            .iter()
            .find(|o| o.fact_ids.contains(&f.fact))
            .map(|o| o.op.as_str());
        Step {
            op,
            proposal: Some(d.proposal.clone()),
            proposed_by: d.proposed_by.clone(),
            approved_by: d.reviewer_name(),
            author: None,
            reason: Some(d.reason.clone()),
            evidence: d.evidence.clone(),
            edited: d.edited,
            rebased: d.rebased,
            agent_text: d
                .proposed_texts
                .iter()
                .find(|t| t.fact_id == f.fact)
                .map(|t| t.text.clone()),
            ..Step::other(c, How::Approved, f.new.clone())
        }
    }

    fn other(c: &Examined, how: How, text: Option<String>) -> Step {
        Step {
            commit: c.id.clone(),
            date: c.date.clone(),
            how,
            op: None,
            proposal: None,
            proposed_by: None,
            approved_by: None,
            author: Some(c.author.clone()),
            subject: c.subject.clone(),
            reason: None,
            evidence: Vec::new(),
            edited: false,
            rebased: false,
            agent_text: None,
            text,
        }
    }
}

impl Unreviewed {
    fn new(c: &Examined, violations: &[Violation], changes: Vec<FactChange>) -> Unreviewed {
        Unreviewed {
            commit: c.id.clone(),
            date: c.date.clone(),
            author: c.author.clone(),
            subject: c.subject.clone(),
            problems: violations
                .iter()
                .filter(|v| v.commit == c.id)
                .flat_map(|v| v.problems.clone())
                .collect(),
            changes,
        }
    }
}

impl Rejected {
    fn new(c: &Examined, d: &Recorded) -> Rejected {
        // Older decisions did not record the texts; the proposal file, if it was committed,
        // still has them.
        let proposed_texts = if d.proposed_texts.is_empty() {
            c.removed_proposals
                .iter()
                .filter(|p| p.id == d.proposal)
                .flat_map(|p| &p.operations)
                .filter_map(|o| {
                    Some(ProposedText {
                        fact_id: o.text_fact_id().to_owned(),
                        text: o.text()?.to_owned(),
                    })
                })
                .collect()
        } else {
            d.proposed_texts.clone()
        };
        // A credential is often why a proposal was rejected: the summary does not repeat it.
        let proposed_texts = proposed_texts
            .into_iter()
            .map(|mut t| {
                if let Some(withheld) = secrets::withheld(&t.text) {
                    t.text = withheld;
                }
                t
            })
            .collect();
        Rejected {
            proposal: d.proposal.clone(),
            commit: c.id.clone(),
            date: c.date.clone(),
            operations: d
                .operations
                .iter()
                .map(|o| format!("{} {}", o.op.as_str(), o.fact_ids.join(" → ")))
                .collect(),
            proposed_texts,
            proposed_by: d.proposed_by.clone(),
            rejected_by: d.reviewer_name(),
            why: d.rejection_reason(),
            reason: d.reason.clone(),
        }
    }
}
