//! Review decisions as git commit messages: building them and reading them back from history.
//!
//! ```text
//! ledger(architecture): add f-7f3c We use PostgreSQL 16, not SQLite.
//!
//! decided in the storage review
//!
//! Mneme-Decision: approve
//! Mneme-Proposal: 20261122T135300Z-3f9a1c2b
//! Mneme-Operation: add f-7f3c architecture.md
//! Mneme-Proposed-By: claude
//! Mneme-Proposal-Author: Ada <ada@example.com>
//! Mneme-Evidence: docs/adr/3.md
//! Mneme-Approved-By: Grace <grace@example.com>
//! ```

use serde::{Deserialize, Serialize};

use crate::model::base::text::{display_width, escape_line, fit_columns};
use crate::model::facts::change::FactChange;
use crate::model::proposals::proposal::{OpKind, Operation, Proposal};

pub const DECISION: &str = "Mneme-Decision";
pub const PROPOSAL: &str = "Mneme-Proposal";
pub const OPERATION: &str = "Mneme-Operation";
pub const PROPOSED_BY: &str = "Mneme-Proposed-By";
pub const PROPOSAL_AUTHOR: &str = "Mneme-Proposal-Author";
pub const EVIDENCE: &str = "Mneme-Evidence";
pub const APPROVED_BY: &str = "Mneme-Approved-By";
pub const REJECTED_BY: &str = "Mneme-Rejected-By";
pub const REBASED: &str = "Mneme-Rebased";
pub const EDITED: &str = "Mneme-Edited";
/// An operation of the proposal the reviewer left out of an approval, as `Mneme-Operation`
/// writes one.
pub const DROPPED: &str = "Mneme-Dropped";
/// `<fact-id> <JSON string>`: what the agent proposed for that fact, when the commit does not
/// show it (an approval the reviewer edited, a rejection).
pub const PROPOSED_TEXT: &str = "Mneme-Proposed-Text";
/// `[gitlab ]<site> <login> <numeric id> <comment URL>`: a decision made on a forge (a pull
/// request's comment, a merge request's note), by whom.
pub const FORGE: &str = "Mneme-Forge";

/// How a rejection's body starts when the reviewer gave a reason.
const REJECTED_PREFIX: &str = "Rejected: ";

/// Longest subject line before the statement is cut with `…`.
const SUBJECT_MAX: usize = 72;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Approve,
    Reject,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Approve => "approve",
            Verdict::Reject => "reject",
        }
    }

    pub fn parse(s: &str) -> Option<Verdict> {
        match s {
            "approve" => Some(Verdict::Approve),
            "reject" => Some(Verdict::Reject),
            _ => None,
        }
    }
}

/// What a human decided about one proposal.
#[derive(Debug, Clone)]
pub struct Decision<'a> {
    pub verdict: Verdict,
    pub proposal: &'a Proposal,
    /// `Name <email>` of the reviewer.
    pub reviewer: String,
    /// For a rejection, why (optional); for an approval, an optional note (`--message`).
    pub note: Option<String>,
    pub rebased: bool,
    /// The agent's proposal, when the reviewer edited it into `proposal`.
    pub original: Option<&'a Proposal>,
    /// Where the decision was made on a forge: who commented it.
    pub forge: Option<&'a ForgeReviewer>,
}

/// The reviewer of a decision made on a forge: the account that commented the command, as the
/// forge identifies it, and the comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForgeReviewer {
    /// Which forge: GitHub when absent, so records written before GitLab keep their ids.
    #[serde(default, skip_serializing_if = "Forge::is_github")]
    pub kind: Forge,
    /// The forge's host: `github.com`, `gitlab.com`, or a self-hosted server's.
    pub site: String,
    pub login: String,
    /// The account's numeric id, which outlives a renamed login.
    pub id: u64,
    /// The command's comment.
    pub comment: String,
}

/// A forge mneme takes review commands from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Forge {
    #[default]
    GitHub,
    GitLab,
}

impl Forge {
    fn is_github(&self) -> bool {
        *self == Forge::GitHub
    }

    /// The forge's own name.
    pub fn name(self) -> &'static str {
        match self {
            Forge::GitHub => "GitHub",
            Forge::GitLab => "GitLab",
        }
    }
}

impl ForgeReviewer {
    /// `login <id+login@users.noreply.…>` (GitLab: `id-login`): the reviewer as commits and
    /// records name people, with the forge's own private address for the account.
    pub fn identity(&self) -> (String, String) {
        let join = match self.kind {
            Forge::GitHub => '+',
            Forge::GitLab => '-',
        };
        (
            self.login.clone(),
            format!(
                "{}{join}{}@users.noreply.{}",
                self.id, self.login, self.site
            ),
        )
    }

    /// [`ForgeReviewer::identity`] as `Name <email>`: the only reviewer a decision made on a
    /// forge may name, in its record's `by` and its commit's trailer alike.
    pub fn by(&self) -> String {
        let (name, email) = self.identity();
        format!("{name} <{email}>")
    }

    /// `GitHub` or `GitLab` on their own sites, or the server's host.
    pub fn forge_name(&self) -> &str {
        match (self.kind, self.site.as_str()) {
            (Forge::GitHub, "github.com") | (Forge::GitLab, "gitlab.com") => self.kind.name(),
            (_, site) => site,
        }
    }

    /// `approved on GitHub by @login (comment URL)`.
    pub fn describe(&self, verdict: Verdict) -> String {
        let done = match verdict {
            Verdict::Approve => "approved",
            Verdict::Reject => "rejected",
        };
        format!(
            "{done} on {} by @{} ({})",
            self.forge_name(),
            self.login,
            self.comment
        )
    }

    /// Why this cannot be a forge reviewer, if it cannot: every value is read back from a branch.
    pub fn problem(&self) -> Option<String> {
        let login_ok = match self.kind {
            Forge::GitHub => {
                (1..=39).contains(&self.login.len())
                    && self
                        .login
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            }
            // GitLab's usernames also take `.`, though not first or last.
            Forge::GitLab => {
                (1..=255).contains(&self.login.len())
                    && !self.login.starts_with(['.', '-'])
                    && !self.login.ends_with('.')
                    && self
                        .login
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
            }
        };
        let site_ok = (1..=253).contains(&self.site.len())
            && self
                .site
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b':');
        let url_ok = self.comment.len() <= 512
            && self
                .comment
                .strip_prefix("https://")
                .and_then(|rest| rest.strip_prefix(self.site.as_str()))
                .is_some_and(|path| path.starts_with('/'))
            && self.comment.bytes().all(|b| b.is_ascii_graphic());
        if !login_ok {
            Some("`login` is not a forge account name".into())
        } else if !site_ok {
            Some("`site` is not a host name".into())
        } else if self.id == 0 {
            Some("`id` is not an account id".into())
        } else if !url_ok {
            Some("`comment` is not an https URL on the forge's site".into())
        } else {
            None
        }
    }

    /// The `Mneme-Forge` trailer's value; GitLab's opens with `gitlab`.
    fn trailer(&self) -> String {
        let kind = match self.kind {
            Forge::GitHub => "",
            Forge::GitLab => "gitlab ",
        };
        format!(
            "{kind}{} {} {} {}",
            self.site, self.login, self.id, self.comment
        )
    }

    fn parse_trailer(value: &str) -> Option<ForgeReviewer> {
        let (kind, value) = match value.strip_prefix("gitlab ") {
            Some(rest) => (Forge::GitLab, rest),
            None => (Forge::GitHub, value),
        };
        let mut words = value.split_whitespace();
        let r = ForgeReviewer {
            kind,
            site: words.next()?.to_owned(),
            login: words.next()?.to_owned(),
            id: words.next()?.parse().ok()?,
            comment: words.next()?.to_owned(),
        };
        (words.next().is_none() && r.problem().is_none()).then_some(r)
    }
}

/// `add f-7f3c architecture.md`, `supersede f-old1 f-new2 pitfalls.md`.
pub fn operation_trailer(op: &Operation) -> String {
    match op {
        Operation::Supersede {
            fact_id,
            new_fact_id,
            file,
            ..
        } => {
            format!("supersede {fact_id} {new_fact_id} {file}")
        }
        _ => format!("{} {} {}", op.kind().as_str(), op.fact_id(), op.file()),
    }
}

impl Decision<'_> {
    /// The full commit message, ending with a newline.
    pub fn message(&self) -> String {
        let p = self.proposal;
        let mut scopes: Vec<&str> = Vec::new();
        for o in &p.operations {
            let scope = o.file().strip_suffix(".md").unwrap_or(o.file());
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        let ops: Vec<String> = p
            .operations
            .iter()
            .map(|o| match o {
                Operation::Supersede {
                    fact_id,
                    new_fact_id,
                    ..
                } => {
                    format!("supersede {fact_id} with {new_fact_id}")
                }
                Operation::State { fact_id, state, .. } => {
                    format!("state {fact_id} {}", state.as_str())
                }
                _ => format!("{} {}", o.kind().as_str(), o.fact_id()),
            })
            .collect();
        let text = match (p.operations.as_slice(), self.verdict) {
            ([op], Verdict::Approve) => op.text().map(one_line),
            _ => None,
        };
        let subject = subject(self.verdict, &scopes, &ops, text.as_deref());
        let body = body(self.verdict, &p.reason, self.note.as_deref());
        let mut trailers = vec![
            (DECISION, self.verdict.as_str().to_owned()),
            (PROPOSAL, p.id.clone()),
        ];
        trailers.extend(
            p.operations
                .iter()
                .map(|o| (OPERATION, operation_trailer(o))),
        );
        if self.verdict == Verdict::Approve {
            trailers.extend(self.dropped().map(|o| (DROPPED, operation_trailer(o))));
        }
        trailers.push((
            PROPOSED_BY,
            p.agent.clone().unwrap_or_else(|| UNKNOWN_AGENT.into()),
        ));
        if let Some(author) = &p.author {
            trailers.push((PROPOSAL_AUTHOR, author.clone()));
        }
        trailers.extend(p.evidence.iter().map(|e| (EVIDENCE, e.clone())));
        if self.rebased {
            trailers.push((REBASED, "true".into()));
        }
        if self.original.is_some() {
            trailers.push((EDITED, "true".into()));
        }
        trailers.extend(self.proposed_texts().map(|(id, text)| {
            let json = serde_json::Value::String(text.to_owned()).to_string();
            (PROPOSED_TEXT, format!("{id} {json}"))
        }));
        let by = match self.verdict {
            Verdict::Approve => APPROVED_BY,
            Verdict::Reject => REJECTED_BY,
        };
        trailers.push((by, self.reviewer.clone()));
        if let Some(forge) = self.forge {
            trailers.push((FORGE, forge.trailer()));
        }
        // A proposed text is a JSON string: one line already, and its spaces are its own.
        let trailers: String = trailers
            .into_iter()
            .map(|(k, v)| match k {
                PROPOSED_TEXT => format!("{k}: {}\n", escape_line(&v)),
                _ => format!("{k}: {}\n", one_line(&v)),
            })
            .collect();
        format!("{subject}\n\n{body}\n{trailers}")
    }
}

/// What a decision commit's `Mneme-Proposed-By` says of a proposal that named no agent.
pub const UNKNOWN_AGENT: &str = "unknown";

/// A decision's account of itself, as its commit's body and its record give it: the proposal's
/// reason, and the reviewer's note (an approval's message, a rejection's reason).
pub fn body(verdict: Verdict, reason: &str, note: Option<&str>) -> String {
    match (verdict, note) {
        (Verdict::Reject, Some(note)) => {
            format!("{REJECTED_PREFIX}{note}\n\nProposal reason: {reason}\n")
        }
        (Verdict::Reject, None) => {
            format!("Rejected without a reason.\n\nProposal reason: {reason}\n")
        }
        (Verdict::Approve, Some(note)) => format!("{reason}\n\n{note}\n"),
        (Verdict::Approve, None) => format!("{reason}\n"),
    }
}

impl<'a> Decision<'a> {
    /// The operation of the decided proposal that acts as the agent's `op` did, if the reviewer
    /// kept it.
    fn decided(&self, op: &Operation) -> Option<&'a Operation> {
        self.proposal.operations.iter().find(|d| d.acts_as(op))
    }

    /// The agent's operations the reviewer left out of the approval.
    fn dropped(&self) -> impl Iterator<Item = &'a Operation> + '_ {
        self.original
            .into_iter()
            .flat_map(|agent| &agent.operations)
            .filter(|op| self.decided(op).is_none())
    }

    /// `(fact id, text)` the agent proposed that the commit itself does not show: every text of
    /// a rejection, and the texts the reviewer changed or left out before approving.
    fn proposed_texts(&self) -> impl Iterator<Item = (&'a str, &'a str)> + '_ {
        let agent = self.original.unwrap_or(self.proposal);
        agent.operations.iter().filter_map(move |proposed| {
            let text = proposed.text()?;
            let shown = self.verdict == Verdict::Approve
                && self.decided(proposed).and_then(Operation::text) == Some(text);
            (!shown).then(|| (proposed.text_fact_id(), text))
        })
    }
}

/// `ledger(<files>): [reject] <operations> [<statement>]`, at most [`SUBJECT_MAX`] columns:
/// files named once each (counted when they would not fit), operations listed while they fit
/// (`and N more`), and a single approval's statement cut to the room left.
fn subject(verdict: Verdict, scopes: &[&str], ops: &[String], text: Option<&str>) -> String {
    let files = scopes.join(",");
    let scope = if display_width(&files) <= SUBJECT_MAX / 2 {
        one_line(&files)
    } else {
        format!("{} files", scopes.len())
    };
    let verb = match verdict {
        Verdict::Approve => "",
        Verdict::Reject => "reject ",
    };
    let head = format!("ledger({scope}): {verb}");
    let listed = |k: usize| {
        let more = match ops.len() - k {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        format!("{head}{}{more}", ops[..k].join(", "))
    };
    let fitting = (1..=ops.len())
        .rev()
        .map(listed)
        .find(|s| display_width(s) <= SUBJECT_MAX)
        .unwrap_or_else(|| listed(ops.len().min(1)));
    fit_columns(&fitting, text.unwrap_or(""), SUBJECT_MAX)
}

/// One line for a subject or trailer: whitespace runs folded, control characters escaped, so no
/// value can start a line of its own.
fn one_line(s: &str) -> String {
    escape_line(&crate::model::base::text::one_line(s)).into_owned()
}

/// The message of a rejection of a proposal file that is not a valid proposal: it holds nothing
/// of the file but its name and why it is invalid, both on one line.
pub fn invalid_rejection(name: &str, why: &str, reviewer: &str, note: Option<&str>) -> String {
    let subject = fit_columns(
        "ledger: reject invalid proposal",
        &one_line(name),
        SUBJECT_MAX,
    );
    let rejected = note.map_or("Rejected without a reason.".to_owned(), |n| {
        format!("{REJECTED_PREFIX}{n}")
    });
    format!(
        "{subject}\n\n{rejected}\n\nInvalid: {}\n\n{DECISION}: reject\n{PROPOSAL}: {}\n{REJECTED_BY}: {}\n",
        one_line(why),
        one_line(name),
        one_line(reviewer)
    )
}

/// A decision read back from a commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recorded {
    pub commit: String,
    pub date: String,
    pub verdict: Verdict,
    pub proposal: String,
    pub operations: Vec<RecordedOp>,
    pub proposed_by: Option<String>,
    pub proposal_author: Option<String>,
    pub reviewer: Option<String>,
    pub reason: String,
    pub evidence: Vec<String>,
    pub rebased: bool,
    pub edited: bool,
    /// What the agent proposed where the commit does not show it: `(fact id, text)`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub proposed_texts: Vec<ProposedText>,
    /// For an approval read from history: each fact's text before and after the commit.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<FactChange>,
    pub subject: String,
    /// Operation trailers mneme could not read: the decision does not say what it did.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub malformed: Vec<String>,
    /// The proposal's operations the reviewer left out of this approval.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<RecordedOp>,
    /// In a fact's own history (`why`, `log <fact>`): whether this approval's change to the fact
    /// is part of its text now; `false` when a merge kept another version or the fact was changed
    /// outside review since. See [`mark_in_effect`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_effect: Option<bool>,
    /// For a decision known only by its record (history lacks its commit: a squash, a rebase
    /// merge or a cherry-pick rewrote it): the record's id. `commit` is then empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
    /// A decision made on a forge: who commented it, and where.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forge: Option<ForgeReviewer>,
}

impl Recorded {
    /// Whether the reviewer changed a text the agent proposed (not only left operations out):
    /// an approval's proposed texts are those the commit does not show, the dropped ones' too.
    pub fn texts_edited(&self) -> bool {
        self.verdict == Verdict::Approve
            && self
                .proposed_texts
                .iter()
                .any(|t| !self.dropped.iter().any(|d| d.fact_ids.contains(&t.fact_id)))
    }
}

/// Marks which approvals of `fact` (in `decisions`, newest first, with their `changes`) the fact's
/// `current` text (`None`: not in the ledger) descends from: walking back from it, each step is
/// the newest older approval that left the text the previous step started from. An approval off
/// that chain did not survive: a merge took the other side, or a later edit outside review
/// replaced it. Rejections are left unmarked.
pub fn mark_in_effect(fact: &str, current: Option<&str>, decisions: &mut [Recorded]) {
    let change = |r: &Recorded| r.changes.iter().find(|c| c.fact == fact).cloned();
    let mut wanted = current.map(str::to_owned);
    let mut searching = true;
    for r in decisions
        .iter_mut()
        .filter(|r| r.verdict == Verdict::Approve)
    {
        let Some(c) = change(r) else {
            continue;
        };
        let on_chain = searching && c.new == wanted;
        if on_chain {
            // An approval that added the fact starts its chain.
            searching = c.old.is_some();
            wanted = c.old;
        }
        r.in_effect = Some(on_chain);
    }
}

/// `supersede f-old1 f-new2 pitfalls.md`: kind, fact ids, file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordedOp {
    pub op: OpKind,
    pub fact_ids: Vec<String>,
    pub file: String,
}

/// A text the agent proposed for a fact, as recorded in a decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProposedText {
    pub fact_id: String,
    pub text: String,
}

impl ProposedText {
    /// Reads `<fact-id> <JSON string>`.
    fn parse(value: &str) -> Option<ProposedText> {
        let (id, json) = value.split_once(' ')?;
        let text: String = serde_json::from_str(json).ok()?;
        Some(ProposedText {
            fact_id: id.to_owned(),
            text,
        })
    }
}

impl RecordedOp {
    /// Reads an operation trailer; `None` unless it names a known kind with its ids and a file.
    pub fn parse(value: &str) -> Option<RecordedOp> {
        let words: Vec<&str> = value.split_whitespace().collect();
        let (kind, rest) = words.split_first()?;
        let (file, ids) = rest.split_last()?;
        let op = OpKind::parse(kind)?;
        let arity = if op == OpKind::Supersede { 2 } else { 1 };
        (ids.len() == arity).then(|| RecordedOp {
            op,
            fact_ids: ids.iter().map(|s| (*s).to_owned()).collect(),
            file: (*file).to_owned(),
        })
    }

    /// The fact an approval of this operation vouches for as true as written: the added,
    /// updated or verified fact, or a replacement; none for removals, states and relations.
    pub fn vouches(&self) -> Option<&str> {
        match self.op {
            OpKind::Add | OpKind::Update | OpKind::Verify | OpKind::Supersede => {
                self.fact_ids.last().map(String::as_str)
            }
            OpKind::Remove | OpKind::State | OpKind::Relate => None,
        }
    }
}

impl Recorded {
    /// A decision with nothing but its verdict and proposal; the rest is filled in as read.
    pub fn new(verdict: Verdict, proposal: &str) -> Recorded {
        Recorded {
            commit: String::new(),
            date: String::new(),
            verdict,
            proposal: proposal.to_owned(),
            operations: Vec::new(),
            proposed_by: None,
            proposal_author: None,
            reviewer: None,
            reason: String::new(),
            evidence: Vec::new(),
            rebased: false,
            edited: false,
            proposed_texts: Vec::new(),
            changes: Vec::new(),
            subject: String::new(),
            malformed: Vec::new(),
            dropped: Vec::new(),
            in_effect: None,
            record: None,
            forge: None,
        }
    }

    /// Reads a decision from `(key, value)` trailers and the message body; `None` when the commit
    /// is not a mneme decision (no `Mneme-Decision` trailer with a known verdict).
    pub fn from_trailers<'a>(
        subject: &str,
        body: &str,
        trailers: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Option<Recorded> {
        let trailers: Vec<(&str, &str)> =
            trailers.into_iter().map(|(k, v)| (k, v.trim())).collect();
        let verdict = trailers
            .iter()
            .find(|(k, _)| *k == DECISION)
            .and_then(|(_, v)| Verdict::parse(v))?;
        let mut r = Recorded::new(verdict, "");
        r.subject = subject.to_owned();
        r.reason = body.trim().to_owned();
        for (key, value) in trailers {
            let value = value.to_owned();
            match key {
                PROPOSAL => r.proposal = value,
                OPERATION => match RecordedOp::parse(&value) {
                    Some(op) => r.operations.push(op),
                    None => r.malformed.push(value),
                },
                PROPOSED_BY => r.proposed_by = Some(value),
                PROPOSAL_AUTHOR => r.proposal_author = Some(value),
                EVIDENCE => r.evidence.push(value),
                APPROVED_BY | REJECTED_BY => r.reviewer = Some(value),
                REBASED => r.rebased = value == "true",
                EDITED => r.edited = value == "true",
                DROPPED => match RecordedOp::parse(&value) {
                    Some(op) => r.dropped.push(op),
                    None => r.malformed.push(value),
                },
                PROPOSED_TEXT => match ProposedText::parse(&value) {
                    Some(t) => r.proposed_texts.push(t),
                    None => r.malformed.push(value),
                },
                FORGE => match ForgeReviewer::parse_trailer(&value) {
                    Some(f) => r.forge = Some(f),
                    None => r.malformed.push(value),
                },
                _ => {}
            }
        }
        // A decision made on a forge names the forge's account, never someone else.
        if let Some(f) = &r.forge {
            if r.reviewer.as_deref() != Some(f.by().as_str()) {
                r.malformed.push(format!("{FORGE}: {}", f.trailer()));
            }
        }
        Some(r)
    }

    /// Who decided, as `log` and `why` say it: `Grace <g@example.com>`, or `@login on GitHub`.
    pub fn reviewer_name(&self) -> Option<String> {
        match &self.forge {
            Some(f) => Some(format!("@{} on {}", f.login, f.forge_name())),
            None => self.reviewer.clone(),
        }
    }

    /// The reviewer's reason for a rejection (`Rejected: <reason>` opens its body).
    pub fn rejection_reason(&self) -> Option<String> {
        let first = self.reason.split("\n\n").next()?;
        let why = first.strip_prefix(REJECTED_PREFIX)?.trim();
        (self.verdict == Verdict::Reject && !why.is_empty()).then(|| why.to_owned())
    }

    pub fn touches(&self, fact_id: &str) -> bool {
        self.operations
            .iter()
            .any(|o| o.fact_ids.iter().any(|id| id == fact_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::proposals::proposal::SCHEMA;

    fn proposal() -> Proposal {
        Proposal {
            schema: SCHEMA,
            id: "20261122T100000Z-0a0b0c0d".into(),
            created_at: "2026-11-22T10:00:00.000000Z".into(),
            agent: Some("claude".into()),
            author: Some("Ada <ada@example.com>".into()),
            reason: "decided in the storage review".into(),
            evidence: vec!["docs/adr/3.md".into()],
            operations: vec![Operation::Add {
                scope: Vec::new(),
                file: "architecture.md".into(),
                fact_id: "f-7f3c".into(),
                text: "We use PostgreSQL 16, not SQLite, for every service that stores relational data.".into(),
                relations: Default::default(), evidence: Vec::new(), state: None, by: None,
            }],
            base: Default::default(),
        }
    }

    #[test]
    fn approval_message() {
        let p = proposal();
        let d = Decision {
            verdict: Verdict::Approve,
            proposal: &p,
            reviewer: "Grace <g@example.com>".into(),
            note: None,
            rebased: true,
            original: None,
            forge: None,
        };
        let m = d.message();
        let subject = m.lines().next().unwrap();
        assert!(
            subject.starts_with("ledger(architecture): add f-7f3c We use PostgreSQL 16"),
            "{subject}"
        );
        assert!(subject.chars().count() <= 72 && subject.ends_with('…'));
        assert!(m.ends_with(
            "\n\ndecided in the storage review\n\nMneme-Decision: approve\nMneme-Proposal: 20261122T100000Z-0a0b0c0d\n\
             Mneme-Operation: add f-7f3c architecture.md\nMneme-Proposed-By: claude\nMneme-Proposal-Author: Ada <ada@example.com>\n\
             Mneme-Evidence: docs/adr/3.md\nMneme-Rebased: true\nMneme-Approved-By: Grace <g@example.com>\n"
        ), "{m}");
    }

    #[test]
    fn rejection_message_and_reading_back() {
        let mut p = proposal();
        p.operations.push(Operation::Supersede {
            scope: Vec::new(),
            evidence: Vec::new(),
            file: "pitfalls.md".into(),
            fact_id: "f-old1".into(),
            before: "x".into(),
            new_fact_id: "f-new2".into(),
            text: "y".into(),
            relations: Default::default(),
        });
        let d = Decision {
            verdict: Verdict::Reject,
            proposal: &p,
            reviewer: "Grace <g@example.com>".into(),
            note: Some("not verified".into()),
            rebased: false,
            original: None,
            forge: None,
        };
        let m = d.message();
        // The whole list is 79 columns: what does not fit is counted.
        assert!(m.starts_with("ledger(architecture,pitfalls): reject add f-7f3c and 1 more\n\nRejected: not verified\n"), "{m}");
        let (head, trailers) = m.trim_end().rsplit_once("\n\n").unwrap();
        let (subject, body) = head.split_once("\n\n").unwrap();
        let pairs: Vec<(&str, &str)> = trailers
            .lines()
            .map(|l| l.split_once(": ").unwrap())
            .collect();
        let r = Recorded::from_trailers(subject, body, pairs).unwrap();
        assert_eq!(r.verdict, Verdict::Reject);
        assert_eq!(r.rejection_reason().as_deref(), Some("not verified"));
        assert_eq!(r.reviewer.as_deref(), Some("Grace <g@example.com>"));
        assert_eq!(
            r.operations[1],
            RecordedOp {
                op: OpKind::Supersede,
                fact_ids: vec!["f-old1".into(), "f-new2".into()],
                file: "pitfalls.md".into()
            }
        );
        assert!(r.touches("f-new2") && r.touches("f-7f3c") && !r.touches("f-zzzz"));
        assert!(Recorded::from_trailers("x", "", [("Signed-off-by", "a")]).is_none());
        assert!(Recorded::from_trailers("x", "", [(DECISION, "maybe")]).is_none());
        let odd = Recorded::from_trailers(
            "x",
            "",
            [
                (DECISION, "approve"),
                (OPERATION, "rename f-1 a.md"),
                (OPERATION, "add a.md"),
            ],
        )
        .unwrap();
        assert_eq!(odd.malformed, ["rename f-1 a.md", "add a.md"]);
    }

    /// Splits a message into subject, body and trailer pairs, as git would.
    fn read_back(m: &str) -> Recorded {
        let (head, trailers) = m.trim_end().rsplit_once("\n\n").unwrap();
        let (subject, body) = head.split_once("\n\n").unwrap();
        let pairs: Vec<(&str, &str)> = trailers
            .lines()
            .map(|l| l.split_once(": ").unwrap())
            .collect();
        Recorded::from_trailers(subject, body, pairs).unwrap()
    }

    /// A decision commit made on a forge names the forge's account as its reviewer; naming
    /// anyone else makes its trailers unreadable, so it counts for nothing.
    #[test]
    fn a_forge_decision_commit_names_the_forge_account_or_is_malformed() {
        let p = proposal();
        let grace = ForgeReviewer {
            kind: Forge::GitHub,
            site: "github.com".into(),
            login: "grace".into(),
            id: 42,
            comment: "https://github.com/o/r/pull/1#issuecomment-1".into(),
        };
        let decision = |reviewer: String| Decision {
            verdict: Verdict::Approve,
            proposal: &p,
            reviewer,
            note: None,
            rebased: false,
            original: None,
            forge: Some(&grace),
        };
        let r = read_back(&decision(grace.by()).message());
        assert!(r.malformed.is_empty(), "{:?}", r.malformed);
        assert_eq!(r.reviewer_name().unwrap(), "@grace on GitHub");
        let r = read_back(&decision("The CTO <cto@example.com>".into()).message());
        assert_eq!(r.malformed.len(), 1, "{:?}", r.malformed);
    }

    /// A GitLab reviewer reads back as GitLab's, with GitLab's private address and a username
    /// GitHub would not allow.
    #[test]
    fn a_gitlab_reviewer_reads_back_as_gitlab_s() {
        let p = proposal();
        let grace = ForgeReviewer {
            kind: Forge::GitLab,
            site: "git.example.org".into(),
            login: "grace.hopper".into(),
            id: 42,
            comment: "https://git.example.org/o/r/-/merge_requests/1#note_9".into(),
        };
        assert_eq!(
            grace.by(),
            "grace.hopper <42-grace.hopper@users.noreply.git.example.org>"
        );
        let r = read_back(
            &Decision {
                verdict: Verdict::Approve,
                proposal: &p,
                reviewer: grace.by(),
                note: None,
                rebased: false,
                original: None,
                forge: Some(&grace),
            }
            .message(),
        );
        assert!(r.malformed.is_empty(), "{:?}", r.malformed);
        assert_eq!(r.forge.as_ref(), Some(&grace));
        assert_eq!(
            r.reviewer_name().unwrap(),
            "@grace.hopper on git.example.org"
        );
        let on_gitlab_com = ForgeReviewer {
            site: "gitlab.com".into(),
            comment: "https://gitlab.com/o/r/-/merge_requests/1#note_9".into(),
            ..grace.clone()
        };
        assert_eq!(
            on_gitlab_com.describe(Verdict::Approve),
            "approved on GitLab by @grace.hopper (https://gitlab.com/o/r/-/merge_requests/1#note_9)"
        );
        // A GitHub login is never a dotted one.
        let github = ForgeReviewer {
            kind: Forge::GitHub,
            ..grace
        };
        assert!(github.problem().is_some());
    }

    #[test]
    fn subjects_fit_72_columns_in_any_script() {
        let ops: Vec<String> = (0..13).map(|i| format!("add f-{i:04}")).collect();
        let many = subject(Verdict::Reject, &["architecture", "pitfalls"], &ops, None);
        assert_eq!(
            many,
            "ledger(architecture,pitfalls): reject add f-0000, add f-0001 and 11 more"
        );
        let files: Vec<String> = (0..9).map(|i| format!("file-number-{i}")).collect();
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        assert!(subject(Verdict::Approve, &files, &ops, None)
            .starts_with("ledger(9 files): add f-0000"));
        let cjk = subject(
            Verdict::Approve,
            &["数据库"],
            &["add f-7f3c".to_owned()],
            Some(&"连接池的大小由配置决定".repeat(5)),
        );
        assert!(
            cjk.starts_with("ledger(数据库): add f-7f3c 连接池的大小"),
            "{cjk}"
        );
        assert!(
            display_width(&cjk) <= SUBJECT_MAX && cjk.ends_with('…'),
            "{cjk}"
        );
        for s in [&many, &cjk] {
            assert!(display_width(s) <= 72);
        }
    }

    #[test]
    fn files_are_named_once_in_the_subject() {
        let mut p = proposal();
        let mut second = p.operations[0].clone();
        second.set_text("Another.".into());
        p.operations.push(second);
        let m = Decision {
            verdict: Verdict::Approve,
            proposal: &p,
            reviewer: "G <g@x>".into(),
            note: None,
            rebased: false,
            original: None,
            forge: None,
        }
        .message();
        assert!(m.starts_with("ledger(architecture): add"), "{m}");
    }

    #[test]
    fn subjects_are_cut_at_a_word() {
        let m = Decision {
            verdict: Verdict::Approve,
            proposal: &proposal(),
            reviewer: "G <g@x>".into(),
            note: None,
            rebased: false,
            original: None,
            forge: None,
        }
        .message();
        let subject = m.lines().next().unwrap();
        assert_eq!(
            subject,
            "ledger(architecture): add f-7f3c We use PostgreSQL 16, not SQLite, for…"
        );
    }

    #[test]
    fn the_agents_text_is_kept_when_edited_or_rejected() {
        let agent = proposal();
        let mut edited = agent.clone();
        edited.operations[0].set_text("We use  PostgreSQL 17.\n  Not \"SQLite\".".into());
        let approval = Decision {
            verdict: Verdict::Approve,
            proposal: &edited,
            reviewer: "G <g@x>".into(),
            note: None,
            rebased: false,
            original: Some(&agent),
            forge: None,
        };
        let r = read_back(&approval.message());
        assert!(r.edited);
        assert_eq!(
            r.proposed_texts,
            [ProposedText {
                fact_id: "f-7f3c".into(),
                text: agent.operations[0].text().unwrap().into()
            }]
        );
        // Unedited approvals show their text in the commit itself.
        let plain = Decision {
            original: None,
            forge: None,
            proposal: &agent,
            ..approval.clone()
        };
        assert!(read_back(&plain.message()).proposed_texts.is_empty());
        // A rejection keeps every proposed text, spaces and line breaks included.
        let rejection = Decision {
            verdict: Verdict::Reject,
            proposal: &edited,
            original: None,
            forge: None,
            ..approval
        };
        let r = read_back(&rejection.message());
        assert_eq!(
            r.proposed_texts[0].text,
            "We use  PostgreSQL 17.\n  Not \"SQLite\"."
        );
        assert!(r.malformed.is_empty());
    }
}
