use std::io::IsTerminal;

use console::{Key, Term};
use mneme::git::commit::Committed;
use mneme::git::history::{decisions, read_texts};
use mneme::model::base::paths;
use mneme::model::base::text::{display_width, pad};
use mneme::model::base::time::{human_age, Timestamp};
use mneme::model::evidence::cited::Cited;
use mneme::model::facts::fields::check_text;
use mneme::model::facts::ledger::Ledger;
use mneme::model::proposals::apply::{check, retargeted, Conflict};
use mneme::model::proposals::plan::{competing, Competing, Request};
use mneme::model::proposals::preview::{preview, BudgetAfter, Preview, Status};
use mneme::model::proposals::proposal::{Operation, Proposal};
use mneme::model::proposals::queue::{targets, Queue};
use mneme::model::provenance::decision::Recorded;
use mneme::model::views::{ApprovedAll, Decided, LeftPending, ReviewRow, ReviewShow};
use mneme::ops::evidence;
use mneme::ops::propose::propose;
use mneme::ops::review::{self, Approval, Focus, Pending};
use mneme::ops::{now, Error as OpsError, Notes, Quiet, Workspace};

use crate::cli::error::Code;
use crate::cli::ui::{self, esc, esc1, paint, short, DIM, GOOD, HEADER, ID, PROMPT, WARN};
use crate::cli::{editor, CliError, Cx, ExitStatus, Result};

/// Review pending proposals: approve, reject, edit or skip each.
///
/// Without a subcommand, walks the proposals oldest first in the terminal, showing each as a
/// diff of the fact files it changes, with its cited lines and the proposals it competes with,
/// and asks for a single key (like `git add -p`): y approve, m approve with a message for the
/// commit, a approve this and every later one that applies, n reject (with an optional reason),
/// e edit the text in $VISUAL/$EDITOR, o decide operation by operation, r re-target a proposal
/// whose fact changed at the fact as it is now, s skip, q quit, ? help. Every approval and rejection is
/// recorded as one git commit that touches only the ledger; your other staged and unstaged work
/// stays as it was. The subcommands do the same without a terminal.
#[derive(Debug, clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = "Examples:
  mneme review                                  # interactive, every pending proposal
  mneme review 20261122T1353 20261122T1410      # interactive, these proposals
  mneme review --agent codex --file pitfalls --since 2d
  mneme review list
  mneme review show 20261122T135300Z-3f9a1c2b   # or any unique prefix
  mneme review approve 20261122T1353 --message \"checked against the ADR\"
  mneme review reject 20261122T1353 --reason \"not verified\""
)]
pub struct Args {
    #[command(subcommand)]
    action: Option<Action>,

    #[command(flatten)]
    focus: FocusArgs,

    /// Do not run the repository's pre-commit and commit-msg hooks.
    #[arg(long, global = true)]
    no_verify: bool,
}

/// Which proposals to take up; all pending ones without any.
#[derive(Debug, Clone, Default, clap::Args)]
struct FocusArgs {
    /// Proposal ids or unique prefixes: only these.
    ids: Vec<String>,
    /// Only proposals by this agent (as `review list` names it).
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// Only proposals that change this fact file (`pitfalls` or `pitfalls.md`).
    #[arg(long, value_name = "FILE")]
    file: Option<String>,
    /// Only proposals made since WHEN: a date (`2026-11-20`), an RFC 3339 time, or an age
    /// (`30m`, `12h`, `3d`, `2w`).
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
}

impl FocusArgs {
    fn focus(&self) -> Result<Focus> {
        let since = match &self.since {
            Some(s) => Some(Timestamp::parse_since(s, now()).ok_or_else(|| {
                CliError::invalid_input(format!(
                    "--since {}: not a date, a time or an age such as 3d",
                    esc1(s)
                ))
            })?),
            None => None,
        };
        Ok(Focus {
            ids: self.ids.clone(),
            agent: self.agent.clone(),
            file: self.file.clone(),
            since,
        })
    }

    fn is_set(&self) -> bool {
        !self.ids.is_empty() || self.agent.is_some() || self.file.is_some() || self.since.is_some()
    }
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// List pending proposals, oldest first, with whether each still applies.
    #[command(after_help = "Examples:
  mneme review list
  mneme review list --agent claude --since 1w
  mneme review list --json")]
    List {
        #[command(flatten)]
        focus: FocusArgs,
    },
    /// Show one proposal and the diff approving it would make.
    #[command(after_help = "Examples:
  mneme review show 20261122T135300Z-3f9a1c2b
  mneme review show 20261122T1353 --json      # any unique prefix")]
    Show {
        /// Proposal id or unique prefix.
        id: String,
    },
    /// Approve proposals: apply each to the facts and commit it.
    #[command(after_help = "Examples:
  mneme review approve 20261122T135300Z-3f9a1c2b
  mneme review approve 20261122T1353 20261122T1410 --message \"checked against the ADR\"
  mneme review approve --all         # every proposal that applies, oldest first
  mneme review approve 20261122T1353 --drop 2,5   # all but its 2nd and 5th operations")]
    Approve {
        /// Proposal ids or unique prefixes, applied in the order given.
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        ids: Vec<String>,
        /// Approve every pending proposal that applies, oldest first; the others (conflicting,
        /// invalid, holding what looks like a credential) stay pending and are listed.
        #[arg(long)]
        all: bool,
        /// A note for the commit message body.
        #[arg(long, short)]
        message: Option<String>,
        /// Approve even though the proposal holds what looks like a credential: you checked that
        /// it is not one. Agents never get this choice; `propose` refuses such text.
        #[arg(long)]
        allow_secrets: bool,
        /// Leave out these operations (numbers from 1, as `review show` lists them) and approve
        /// the rest; the commit records which were dropped. One proposal only.
        #[arg(
            long,
            value_delimiter = ',',
            value_name = "N,…",
            conflicts_with = "all"
        )]
        drop: Vec<usize>,
    },
    /// Undo an approval: propose the change that takes the facts back to what they were before
    /// it, for review like any other. Nothing in history is rewritten.
    ///
    /// An added fact is proposed for removal, an updated one gets its old text back, a removed one
    /// is added again (under a new id), a superseding fact is removed and the fact it replaced
    /// made active again. Verifications, state changes and relations have no inverse to
    /// propose: propose what you want instead.
    #[command(after_help = "Examples:
  mneme review undo 3f9a1c2b40                 # the decision commit (or a unique prefix)
  mneme review undo 20261122T135300Z-3f9a1c2b  # or the proposal it decided
  mneme review undo 3f9a1c2b40 --json")]
    Undo {
        /// The decision: its commit (a prefix of at least 4 hex digits) or its proposal's id.
        decision: String,
    },
    /// Reject proposals: commit the removal of each, with the reason.
    #[command(after_help = "Examples:
  mneme review reject 20261122T135300Z-3f9a1c2b --reason \"not verified\"
  mneme review reject 20261122T1353 20261122T1410 --reason \"duplicates f-7f3cq\"")]
    Reject {
        /// Proposal ids or unique prefixes.
        #[arg(required = true)]
        ids: Vec<String>,
        /// Why (recorded in the commit).
        #[arg(long)]
        reason: Option<String>,
    },
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    if let Some(note) = review::recover(&ws)? {
        cx.ui.warn(&format!("note: {note}"));
    }
    match &args.action {
        None => interactive(cx, &ws, &args.focus, args.no_verify),
        Some(Action::List { focus }) => list(cx, &ws, focus),
        Some(Action::Show { id }) => show(cx, &ws, id),
        Some(Action::Approve {
            ids,
            all,
            message,
            allow_secrets,
            drop,
        }) => {
            let how = Approval {
                note: message.clone(),
                no_verify: args.no_verify,
                allow_secrets: *allow_secrets,
            };
            if *all {
                return approve_all(cx, &ws, &how);
            }
            if !drop.is_empty() {
                return approve_dropping(cx, &ws, ids, drop, &how);
            }
            decide(cx, &ws, ids, |item| review::approve(&ws, item, &how, cx.ui))
        }
        Some(Action::Undo { decision }) => undo(cx, &ws, decision),
        Some(Action::Reject { ids, reason }) => decide(cx, &ws, ids, |item| {
            review::reject(&ws, item, reason.clone(), args.no_verify)
        }),
    }
}

fn list(cx: &Cx, ws: &Workspace, focus: &FocusArgs) -> Result<ExitStatus> {
    let ledger = ws.store.load()?;
    let now = now();
    let items = review::pending(ws, &ledger)?;
    let rows: Vec<ReviewRow> = focus
        .focus()?
        .select(&items)?
        .into_iter()
        .map(|item| match &item.proposal {
            Ok(p) => ReviewRow::new(p, Status::checked(check(&ledger, p)), now),
            Err(why) => ReviewRow::invalid(&item.id, why),
        })
        .collect();
    if cx.ui.json {
        cx.ui.json(&rows)?;
        return Ok(ExitStatus::Success);
    }
    if rows.is_empty() {
        cx.ui.out("No pending proposals.\n")?;
        return Ok(ExitStatus::Success);
    }
    let who = |row: &ReviewRow| {
        format!(
            "[{}, {}]",
            esc1(row.agent.unwrap_or("unknown agent")),
            row.age.as_deref().unwrap_or("?")
        )
    };
    // Operations start in one column, however wide the agents' names are on the terminal.
    let width = rows
        .iter()
        .filter(|r| r.invalid.is_none())
        .map(|r| display_width(&who(r)))
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for row in &rows {
        if let Some(why) = &row.invalid {
            out.push_str(&format!(
                "{} {} {}\n",
                paint(ID, row.id),
                paint(WARN, "invalid:"),
                esc1(why)
            ));
            continue;
        }
        let status = match row.status {
            Status::Conflict => paint(WARN, "conflict"),
            Status::Rebased => paint(DIM, "rebased"),
            Status::Clean | Status::Invalid => String::new(),
        };
        out.push_str(&format!(
            "{} {} {} {status}\n",
            paint(ID, row.id),
            paint(DIM, pad(&who(row), width)),
            esc1(&row.operations.join("; ")),
        ));
    }
    cx.ui.out(&out)?;
    Ok(ExitStatus::Success)
}

fn show(cx: &Cx, ws: &Workspace, id: &str) -> Result<ExitStatus> {
    let ledger = ws.store.load()?;
    let items = review::pending(ws, &ledger)?;
    let item = review::find(&items, id)?;
    let others = review::others(&items, item, &ledger);
    let preview = item
        .valid()
        .map(|p| preview(&ledger, &others, p, &review::today()));
    let cited = cited_of(ws, item);
    let competing = competing_of(item, &others);
    if !cx.ui.json {
        cx.ui
            .out(&render(item, preview.as_ref(), &cited, &competing, None))?;
        return Ok(ExitStatus::Success);
    }
    let view = match (&item.proposal, &preview) {
        (Ok(p), Some(preview)) => ReviewShow::new(p, preview, cited, competing),
        (Err(why), _) => ReviewShow::invalid(&item.id, why),
        (Ok(_), None) => unreachable!("a valid proposal has a preview"),
    };
    cx.ui.json(&view)?;
    Ok(ExitStatus::Success)
}

/// Applies `action` to each named proposal in turn; stops at the first error (earlier
/// decisions stay committed).
fn decide(
    cx: &Cx,
    ws: &Workspace,
    ids: &[String],
    action: impl Fn(&Pending) -> mneme::ops::Result<Committed>,
) -> Result<ExitStatus> {
    let ledger = ws.store.load()?;
    let items = review::pending(ws, &ledger)?;
    let targets = ids
        .iter()
        .map(|id| review::find(&items, id))
        .collect::<mneme::ops::Result<Vec<_>>>()?;
    let mut done = Vec::new();
    for item in targets {
        let committed = action(item)?;
        if !cx.ui.json {
            cx.ui.out(&committed_line(&committed))?;
        }
        done.push(decided(item, committed));
    }
    if cx.ui.json {
        cx.ui.json(&done)?;
    }
    Ok(ExitStatus::Success)
}

/// `review undo`: the inverse of an approval, proposed.
fn undo(cx: &Cx, ws: &Workspace, wanted: &str) -> Result<ExitStatus> {
    let wanted = wanted.trim();
    let is_commit = wanted.len() >= 4 && wanted.bytes().all(|b| b.is_ascii_hexdigit());
    let matching: Vec<Recorded> = decisions(&ws.repo, None, None, false)?
        .into_iter()
        .filter(|r| {
            r.proposal == wanted
                || (is_commit && r.commit.starts_with(&wanted.to_ascii_lowercase()))
        })
        .collect();
    let mut decision = match <[Recorded; 1]>::try_from(matching) {
        Ok([one]) => one,
        Err(many) if many.is_empty() => {
            return Err(CliError::invalid_input(format!(
                "no decision in the history of HEAD is `{}`",
                esc1(wanted)
            ))
            .with_hint("`mneme log` lists the decisions, with their commits"))
        }
        Err(many) => {
            let commits: Vec<&str> = many.iter().map(|r| short(&r.commit)).collect();
            return Err(CliError::invalid_input(format!(
                "`{}` names {} decisions ({}); give more of the commit",
                esc1(wanted),
                many.len(),
                commits.join(", ")
            )));
        }
    };
    read_texts(&ws.repo, &mut decision)?;
    let ledger = ws.store.load()?;
    let operations = mneme::model::provenance::undo::undo(&decision, &ledger)
        .map_err(|e| CliError::invalid_input(e.to_string()))?;
    let request = Request {
        reason: Some(format!(
            "Undo {} ({})",
            short(&decision.commit),
            mneme::model::base::text::one_line(&decision.subject)
        )),
        evidence: vec![decision.commit.clone()],
        agent: Some("mneme review undo".into()),
        operations,
    };
    super::propose::report(cx, ws, propose(ws, request)?)
}

/// `review approve ID --drop N,…`: the proposal less those operations.
fn approve_dropping(
    cx: &Cx,
    ws: &Workspace,
    ids: &[String],
    drop: &[usize],
    how: &Approval,
) -> Result<ExitStatus> {
    let [id] = ids else {
        return Err(CliError::invalid_input("--drop takes one proposal"));
    };
    let ledger = ws.store.load()?;
    let items = review::pending(ws, &ledger)?;
    let mut item = review::find(&items, id)?.clone();
    let ops = item
        .valid()
        .map(|p| p.operations.clone())
        .unwrap_or_default();
    if let Some(n) = drop.iter().find(|n| **n == 0 || **n > ops.len()) {
        return Err(CliError::invalid_input(format!(
            "--drop {n}: the proposal has operations 1 to {}",
            ops.len()
        )));
    }
    let keep: Vec<bool> = (1..=ops.len()).map(|n| !drop.contains(&n)).collect();
    keep_operations(&mut item, ops, &keep, &ledger).map_err(CliError::invalid_input)?;
    let committed = review::approve(ws, &item, how, cx.ui)?;
    if cx.ui.json {
        cx.ui.json(&[decided(&item, committed)])?;
    } else {
        cx.ui.out(&committed_line(&committed))?;
    }
    Ok(ExitStatus::Success)
}

fn committed_line(c: &Committed) -> String {
    format!(
        "{} {} {}\n",
        paint(GOOD, "committed"),
        paint(ID, short(&c.commit)),
        esc1(&c.summary)
    )
}

/// The proposal's evidence as the work tree has it.
fn cited_of(ws: &Workspace, item: &Pending) -> Vec<Cited> {
    item.valid()
        .map(|p| evidence::cited(ws, &p.evidence))
        .unwrap_or_default()
}

/// The other pending proposals (`others`) that act on a fact `item` acts on.
fn competing_of(item: &Pending, others: &Queue) -> Vec<Competing> {
    item.valid()
        .map(|p| competing(&targets(p), &p.id, others.parsed()))
        .unwrap_or_default()
}

/// The cited lines under the evidence, or what is wrong with a citation.
fn render_cited(cited: &[Cited]) -> String {
    let mut out = String::new();
    for c in cited {
        if let Some(problem) = c.problem() {
            out.push_str(&format!(
                "    {} {}\n",
                paint(WARN, format!("{}:", esc1(c.evidence()))),
                paint(WARN, esc1(&problem))
            ));
            continue;
        }
        let Cited::Lines {
            evidence,
            lines,
            more,
            ..
        } = c
        else {
            continue;
        };
        out.push_str(&format!("    {}\n", paint(DIM, esc1(evidence))));
        let width = lines.last().map_or(1, |(n, _)| n.to_string().len());
        for (n, text) in lines {
            out.push_str(&format!(
                "    {} {}\n",
                paint(DIM, format!("{n:>width$} │")),
                esc1(text)
            ));
        }
        if *more > 0 {
            out.push_str(&format!(
                "    {}\n",
                paint(DIM, format!("… {more} more line(s)"))
            ));
        }
    }
    out
}

/// Header and diff of one proposal; for an invalid one, only why. Everything from the proposal
/// and the fact files is shown with control characters escaped.
fn render(
    item: &Pending,
    preview: Option<&Preview>,
    cited: &[Cited],
    competing: &[Competing],
    position: Option<(usize, usize)>,
) -> String {
    let mut out = paint(HEADER, format!("Proposal {}", item.id));
    if let Some((n, total)) = position {
        out.push_str(&paint(DIM, format!("  ({n} of {total})")));
    }
    out.push('\n');
    let (Ok(p), Some(preview)) = (&item.proposal, preview) else {
        let why = item.proposal.as_ref().err().map(ToString::to_string);
        out.push_str(&format!(
            "\n{} {}\n{}",
            paint(WARN, "INVALID:"),
            esc1(why.as_deref().unwrap_or("")),
            paint(
                DIM,
                "It breaks the rules `mneme propose` enforces; only reject (n) can resolve it.\n"
            )
        ));
        return out;
    };
    let field = |label: &str, value: &str| format!("  {} {value}\n", paint(DIM, label));
    let agent = p.agent.as_deref().unwrap_or("unknown agent");
    let by = match &p.author {
        Some(a) => format!("{agent} ({a})"),
        None => agent.to_owned(),
    };
    let age = p
        .created()
        .map_or_else(|| "?".into(), |t| human_age(t, now()));
    out.push_str(&field("agent:   ", &format!("{}, {age} ago", esc1(&by))));
    out.push_str(&field("reason:  ", &esc(&p.reason)));
    let evidence = if p.evidence.is_empty() {
        paint(WARN, "NO EVIDENCE")
    } else {
        esc1(&p.evidence.join(", ")).into_owned()
    };
    out.push_str(&field("evidence:", &evidence));
    out.push_str(&render_cited(cited));
    for s in &preview.similar {
        out.push_str(&field("similar: ", &ui::similar_line(s)));
    }
    for c in competing {
        let also = format!("pending {}", ui::competing_line(c));
        out.push_str(&field("competes:", &paint(WARN, also)));
    }
    if item.original.is_some() {
        out.push_str(&format!("  {}\n", paint(WARN, "edited by you")));
    }
    let numbered = p.operations.len() > 1;
    for (i, op) in p.operations.iter().enumerate() {
        let n = if numbered {
            format!("{}. ", i + 1)
        } else {
            String::new()
        };
        out.push_str(&field("change:  ", &format!("{n}{}", esc1(&op.summary()))));
    }
    match &preview.outcome {
        Ok(applied) => {
            if applied.rebased {
                out.push_str(&format!(
                    "  {}\n",
                    paint(WARN, "rebased: the facts changed since this was proposed; it still applies cleanly")
                ));
            }
            if let Some(b) = preview.budget.filter(BudgetAfter::over) {
                out.push_str(&format!(
                    "  {}\n",
                    paint(
                        WARN,
                        format!(
                            "over budget: approving takes the facts to {} lines, over budget_lines ({})",
                            b.lines, b.limit
                        )
                    )
                ));
            }
            out.push('\n');
            for f in &applied.files {
                out.push_str(&ui::diff(&paths::fact_file(&f.name), &f.old, &f.new));
            }
        }
        Err(conflict) => {
            out.push_str(&format!(
                "\n{} {}\n",
                paint(WARN, "CONFLICT:"),
                esc1(&conflict.to_string())
            ));
            if let Conflict::FactChanged { before, now, .. } = conflict {
                out.push_str(&field("when proposed:", &esc1(before)));
                out.push_str(&field("now:          ", &esc1(now)));
            }
            let choices = if editable(conflict) {
                "Only reject (n), edit (e) or re-target at the fact as it is now (r) can resolve it.\n"
            } else {
                "Only reject (n) can resolve it.\n"
            };
            out.push_str(&paint(DIM, choices));
        }
    }
    out
}

/// Whether editing can resolve a conflict: re-targeting at a fact that changed can, a fact that
/// is gone or superseded cannot be rewritten.
fn editable(conflict: &Conflict) -> bool {
    matches!(conflict, Conflict::FactChanged { .. })
}

const HELP: &str = "y - approve: apply the change and commit it
m - approve with a message for the commit
a - approve this and every later proposal that applies (asks once to confirm)
n - reject: commit the proposal's removal, with an optional reason
e - edit the proposed text in $VISUAL/$EDITOR, then review the new diff (an empty text cancels)
r - on a fact that changed since: aim the proposal at the fact as it is now, then review the new diff
o - decide operation by operation (several operations): keep, drop or edit each, then review the new diff
s - skip: leave it pending (after an edit, asks first: the edit is not kept)
q - quit: leave this and the remaining proposals pending (after an edit, asks first)
? - this help
";

const RETARGETED: &str =
    "the proposal now acts on the facts as they are; read the new diff before deciding";

/// Counts of one interactive session.
#[derive(Default)]
struct Tally {
    approved: usize,
    rejected: usize,
    skipped: usize,
}

fn interactive(cx: &Cx, ws: &Workspace, focus: &FocusArgs, no_verify: bool) -> Result<ExitStatus> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(CliError::new(
            Code::NotATerminal,
            "`mneme review` is interactive and needs a terminal",
        )
        .with_hint("use `mneme review list`, `show`, `approve` or `reject`"));
    }
    let term = Term::stderr();
    let ledger = ws.store.load()?;
    let all = review::pending(ws, &ledger)?;
    let mut items: Vec<Pending> = focus.focus()?.select(&all)?.into_iter().cloned().collect();
    if items.is_empty() {
        cx.ui.out(if focus.is_set() {
            "No pending proposal matches.\n"
        } else {
            "No pending proposals.\n"
        })?;
        return Ok(ExitStatus::Success);
    }
    let total = items.len();
    let mut tally = Tally::default();
    let mut n = 0;
    'proposals: while n < total {
        loop {
            let ledger = ws.store.load()?;
            let item = &items[n];
            // The proposals left out of focus still compete and still reserve their ids.
            let others = review::others(&all, item, &ledger);
            let preview = item
                .valid()
                .map(|p| preview(&ledger, &others, p, &review::today()));
            cx.ui.out(&format!(
                "\n{}",
                render(
                    item,
                    preview.as_ref(),
                    &cited_of(ws, item),
                    &competing_of(item, &others),
                    Some((n + 1, total))
                )
            ))?;
            let (can_approve, can_edit) = match preview.as_ref().map(|p| &p.outcome) {
                Some(Ok(_)) => (true, true),
                Some(Err(conflict)) => (false, editable(conflict)),
                None => (false, false),
            };
            // A proposal of several operations can be decided operation by operation: dropping
            // the one that conflicts can make the rest apply.
            let by_operation = item.valid().is_some_and(|p| p.operations.len() > 1);
            let keys = match (can_approve, can_edit) {
                (true, _) => "y,m,a,n,e,",
                (false, true) => "n,e,r,",
                (false, false) => "n,",
            };
            let keys = format!("{keys}{}s,q,?", if by_operation { "o," } else { "" });
            let prompt = paint(PROMPT, format!("Approve this proposal [{keys}]? "));
            let key = read_choice(&term, &prompt)?;
            let over_budget = preview
                .as_ref()
                .and_then(|p| p.budget)
                .filter(BudgetAfter::over);
            let result = match key {
                'y' | 'm' if can_approve => {
                    if let Some(b) = over_budget {
                        let question = format!(
                            "Approving takes the facts to {} lines, over their budget of {}. Approve anyway?",
                            b.lines, b.limit
                        );
                        if !confirm(&term, &question)? {
                            continue;
                        }
                    }
                    let note = if key == 'm' {
                        Some(ask(&term, "Message for the commit (optional)")?)
                    } else {
                        None
                    };
                    let how = Approval {
                        note: note.filter(|m| !m.trim().is_empty()),
                        no_verify,
                        allow_secrets: confirm_secrets(&term, item)?,
                    };
                    // The budget was shown and, when over, confirmed above.
                    review::approve(ws, item, &how, &Quiet)
                }
                'a' if can_approve => {
                    let question = format!(
                        "Approve this and the {} later proposal(s) that apply?",
                        total - n - 1
                    );
                    if !confirm(&term, &question)? {
                        continue;
                    }
                    let how = Approval {
                        no_verify,
                        ..Approval::default()
                    };
                    let done = approve_each(cx, ws, &items[n..], &how)?;
                    tally.approved += done.approved.len();
                    tally.skipped += done.left.len();
                    break 'proposals;
                }
                'n' => {
                    let reason = ask(&term, "Reason for rejecting (optional)")?;
                    review::reject(ws, item, Some(reason), no_verify)
                }
                'e' if can_edit => {
                    match edit(&mut items[n], &ledger) {
                        Ok(Edit::Changed) => {}
                        Ok(Edit::Unchanged) => {
                            cx.ui.warn("nothing changed; the proposal is as it was");
                        }
                        Ok(Edit::Retargeted) => cx.ui.warn(RETARGETED),
                        Ok(Edit::Cancelled) => cx.ui.warn("edit cancelled"),
                        Err(e) => cx.ui.error(&e),
                    }
                    continue;
                }
                'o' if by_operation => {
                    each_operation(cx, &term, &mut items[n], &ledger)?;
                    continue;
                }
                'r' if can_edit && !can_approve => {
                    if retarget(&mut items[n], &ledger) {
                        cx.ui.warn(RETARGETED);
                    }
                    continue;
                }
                's' | 'q'
                    if items[n].original.is_some()
                        && !confirm(
                            &term,
                            "Leave without your edit? The proposal stays as the agent wrote it.",
                        )? =>
                {
                    continue;
                }
                's' => {
                    tally.skipped += 1;
                    n += 1;
                    continue 'proposals;
                }
                'q' => {
                    tally.skipped += total - n;
                    break 'proposals;
                }
                _ => {
                    cx.ui.out(HELP)?;
                    continue;
                }
            };
            match result {
                Ok(c) => {
                    if key == 'n' {
                        tally.rejected += 1;
                    } else {
                        tally.approved += 1;
                    }
                    cx.ui.out(&committed_line(&c))?;
                    n += 1;
                    continue 'proposals;
                }
                Err(e) => cx.ui.error(&e.into()),
            }
        }
    }
    cx.ui.out(&format!(
        "\n{} approved, {} rejected, {} left pending.\n",
        tally.approved, tally.rejected, tally.skipped
    ))?;
    Ok(ExitStatus::Success)
}

/// Approves each of `items` that applies to the facts as they are by then, oldest first. Those
/// that cannot be approved (conflicting, invalid, holding what looks like a credential) stay
/// pending and are returned with why; any other error stops.
fn approve_each(cx: &Cx, ws: &Workspace, items: &[Pending], how: &Approval) -> Result<ApprovedAll> {
    let mut done = ApprovedAll {
        approved: Vec::new(),
        left: Vec::new(),
    };
    for item in items {
        match review::approve(ws, item, how, cx.ui) {
            Ok(c) => {
                if !cx.ui.json {
                    cx.ui.out(&committed_line(&c))?;
                }
                done.approved.push(decided(item, c));
            }
            Err(
                e @ (OpsError::Conflict { .. }
                | OpsError::InvalidProposal { .. }
                | OpsError::Secret { .. }),
            ) => {
                let e = CliError::from(e);
                if !cx.ui.json {
                    cx.ui.warn(&format!("left pending: {}", e.message));
                }
                done.left.push(LeftPending {
                    proposal: item.id.clone(),
                    code: e.code.as_str(),
                    message: e.message,
                });
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(done)
}

/// `review approve --all`: exit 1 when a proposal was left pending.
fn approve_all(cx: &Cx, ws: &Workspace, how: &Approval) -> Result<ExitStatus> {
    let ledger = ws.store.load()?;
    let items = review::pending(ws, &ledger)?;
    let done = approve_each(cx, ws, &items, how)?;
    if cx.ui.json {
        cx.ui.json(&done)?;
    } else if items.is_empty() {
        cx.ui.out("No pending proposals.\n")?;
    } else {
        cx.ui.out(&format!(
            "{} approved, {} left pending.\n",
            done.approved.len(),
            done.left.len()
        ))?;
    }
    Ok(if done.left.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

fn decided(item: &Pending, c: Committed) -> Decided {
    Decided {
        proposal: item.id.clone(),
        commit: c.commit,
        branch: c.branch,
        summary: c.summary,
    }
}

fn ask(term: &Term, prompt: &str) -> Result<String> {
    dialoguer::Input::new()
        .with_prompt(prompt)
        .allow_empty(true)
        .interact_text_on(term)
        .map_err(|dialoguer::Error::IO(e)| CliError::terminal(e))
}

fn confirm(term: &Term, question: &str) -> Result<bool> {
    dialoguer::Confirm::new()
        .with_prompt(question)
        .default(false)
        .interact_on(term)
        .map_err(|dialoguer::Error::IO(e)| CliError::terminal(e))
}

/// For a proposal that holds what looks like a credential, asks the reviewer whether it is safe
/// to commit; `false` (the default) leaves the approval to be refused.
fn confirm_secrets(term: &Term, item: &Pending) -> Result<bool> {
    let Some(proposal) = item.valid() else {
        return Ok(false);
    };
    let Some((field, secret)) = proposal.secrets().into_iter().next() else {
        return Ok(false);
    };
    confirm(
        term,
        &format!("The {field} holds what looks like {secret}. Commit it to the ledger anyway?"),
    )
}

fn read_choice(term: &Term, prompt: &str) -> Result<char> {
    term.write_str(prompt).map_err(CliError::terminal)?;
    let key = term.read_key().map_err(CliError::terminal)?;
    let c = match key {
        Key::Char(c) => c.to_ascii_lowercase(),
        Key::Escape => 'q',
        _ => '?',
    };
    term.write_line(&c.to_string())
        .map_err(CliError::terminal)?;
    Ok(c)
}

/// What an edit did.
enum Edit {
    /// A text changed; the proposal now targets the facts as they are.
    Changed,
    /// Every text came back as it was: not an edit.
    Unchanged,
    /// Every text came back as it was, and the proposal now targets the facts as they are.
    Retargeted,
    /// An emptied text: the proposal stays as it was.
    Cancelled,
}

/// Opens the editor on each proposed text. The proposal changes only when every text comes back
/// valid and at least one differs; then it is re-targeted at the facts as they are now, which the
/// reviewer has just seen. A failing editor or an invalid text is an error for the reviewer to
/// read; the session goes on.
fn edit(item: &mut Pending, ledger: &Ledger) -> Result<Edit> {
    let Ok(proposal) = &item.proposal else {
        return Ok(Edit::Unchanged);
    };
    let mut edited = proposal.clone();
    let (mut changed, mut emptied) = (false, false);
    for op in &mut edited.operations {
        match edit_text(op, ledger)? {
            Some(true) => changed = true,
            Some(false) => {}
            // An emptied text keeps that statement as it was; the others' edits stay.
            None => emptied = true,
        }
    }
    if emptied && !changed {
        return Ok(Edit::Cancelled);
    }
    // The edit was made against the facts as they are now.
    let edited = retargeted(ledger, &edited).unwrap_or(edited);
    if !changed {
        // Saved as it was: on a fact that changed since, that is the reviewer's re-targeting.
        return Ok(match retarget(item, ledger) {
            true => Edit::Retargeted,
            false => Edit::Unchanged,
        });
    }
    replace_proposal(item, edited);
    Ok(Edit::Changed)
}

/// Opens the editor on `op`'s text: `Some(true)` when it changed, `Some(false)` when it came
/// back as it was (or `op` has no text), `None` when it was emptied (it stays as it was).
fn edit_text(op: &mut Operation, ledger: &Ledger) -> Result<Option<bool>> {
    let Some(text) = op.text().map(str::to_owned) else {
        return Ok(Some(false));
    };
    let Some(new) = editor::edit(&text)? else {
        return Ok(Some(false));
    };
    if new.trim().is_empty() {
        return Ok(None);
    }
    let new = check_text(&new, ledger.config.max_fact_chars)?;
    let changed = new != text;
    if changed {
        op.set_text(new);
    }
    Ok(Some(changed))
}

const EACH_HELP: &str = "y - keep this operation
d - drop it: the approval leaves it out, and its commit says so
e - edit this statement in $VISUAL/$EDITOR (an empty text keeps it as it was)
q - stop here: keep this and the remaining operations as they are
? - this help
";

/// Walks the operations of a proposal one by one (like `git add -p` hunks): keep, drop or
/// edit each. The proposal then holds the kept ones, to approve as a whole; the agent's
/// version is kept for the record.
fn each_operation(cx: &Cx, term: &Term, item: &mut Pending, ledger: &Ledger) -> Result<()> {
    let Some(proposal) = item.valid() else {
        return Ok(());
    };
    let mut ops = proposal.operations.clone();
    let mut keep = vec![true; ops.len()];
    let total = ops.len();
    'walk: for (i, op) in ops.iter_mut().enumerate() {
        loop {
            cx.ui.out(&format!(
                "{} {}\n",
                paint(HEADER, format!("Operation {} of {total}:", i + 1)),
                esc1(&op.summary())
            ))?;
            let keys = if op.text().is_some() {
                "y,d,e,q,?"
            } else {
                "y,d,q,?"
            };
            let prompt = paint(PROMPT, format!("Keep this operation [{keys}]? "));
            match read_choice(term, &prompt)? {
                'y' => break,
                'd' => {
                    keep[i] = false;
                    break;
                }
                'e' if op.text().is_some() => match edit_text(op, ledger) {
                    Ok(None) => cx.ui.warn("an empty text: the statement stays as it was"),
                    Ok(_) => {}
                    Err(e) => cx.ui.error(&e),
                },
                'q' => break 'walk,
                _ => cx.ui.out(EACH_HELP)?,
            }
        }
    }
    if let Err(why) = keep_operations(item, ops, &keep, ledger) {
        cx.ui.warn(&format!("{why}; the proposal stays as it was"));
    }
    Ok(())
}

/// Makes the proposal `ops` (its operations, some edited) less those `keep` marks false: the
/// reviewer's version, aimed at the facts as they are. `Err` says why it cannot be.
fn keep_operations(
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
    decided
        .validate(&ledger.limits())
        .map_err(|why| format!("the proposal would not hold without what was dropped ({why})"))?;
    let decided = retargeted(ledger, &decided).unwrap_or(decided);
    replace_proposal(item, decided);
    Ok(())
}

/// Aims the proposal at the facts as they are now; whether any target had changed.
fn retarget(item: &mut Pending, ledger: &Ledger) -> bool {
    let Some(p) = item.valid().and_then(|p| retargeted(ledger, p)) else {
        return false;
    };
    replace_proposal(item, p);
    true
}

/// The reviewer's version of the proposal; the agent's is kept for the record.
fn replace_proposal(item: &mut Pending, edited: Proposal) {
    let agent = std::mem::replace(&mut item.proposal, Ok(edited));
    if item.original.is_none() {
        item.original = agent.ok();
    }
}
