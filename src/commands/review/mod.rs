use mneme::model::base::time::Timestamp;
use mneme::model::evidence::cited::Cited;
use mneme::model::facts::ledger::Ledger;
use mneme::model::proposals::apply::check;
use mneme::model::proposals::plan::{competing, Competing};
use mneme::model::proposals::preview::{preview, Status};
use mneme::model::proposals::proposal::parse_operation_numbers;
use mneme::model::proposals::queue::{targets, Queue};
use mneme::model::views::{ReviewRow, ReviewShow};
use mneme::ops::evidence;
use mneme::ops::review::{self, Approval, Focus, Pending};
use mneme::ops::{now, Workspace};

use crate::cli::render::review::{proposal_screen, review_list};
use crate::cli::ui::esc1;
use crate::cli::{CliError, Cx, ExitStatus, Result};

mod decide;
mod edit;
mod interactive;
mod undo;

/// Review pending proposals: approve, reject, edit or skip each.
///
/// Without a subcommand, walks the proposals oldest first in the terminal, showing each as a
/// diff of the fact files it changes, with its cited lines and the proposals it competes with,
/// and asks for a single key (like `git add -p`): y approve, m approve with a message for the
/// commit, a approve this and every later one that applies, n reject (with an optional reason),
/// e edit the text in your editor (as git chooses it), o decide operation by operation, r re-target a proposal
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
pub(super) struct FocusArgs {
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
    /// The focus these arguments ask for; a `--file` the ledger does not have is refused.
    pub(super) fn focus(&self, ledger: &Ledger) -> Result<Focus> {
        if let Some(file) = &self.file {
            ledger.resolve_file(file).map_err(mneme::ops::Error::from)?;
        }
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

    pub(super) fn is_set(&self) -> bool {
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
  mneme review approve 20261122T1353 --drop 2,5   # all but its 2nd and 5th operations
  mneme review approve 20261122T1353 --drop 1-14,18-22")]
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
        /// Leave out these operations (numbers from 1, as `review show` lists them; ranges such
        /// as `1-14,18-22`) and approve the rest; the commit records which were dropped. One
        /// proposal only.
        #[arg(
            long,
            value_name = "N,N-M,…",
            value_parser = |s: &str| parse_operation_numbers(s).map(OperationNumbers),
            conflicts_with = "all"
        )]
        drop: Vec<OperationNumbers>,
    },
    /// Undo an approval: propose the change that takes the facts back to what they were before
    /// it, for review like any other. Nothing in history is rewritten.
    ///
    /// An added fact is proposed for removal, an updated one gets its old text back, a removed one
    /// is added again (under a new id), a superseding fact is removed and the fact it replaced
    /// made active again. Verifications, state changes and relations have no inverse to
    /// propose: propose what you want instead. An approval a squash carried (its decision commit
    /// gone from history) is found by its proposal or record id.
    #[command(after_help = "Examples:
  mneme review undo 3f9a1c2b40                 # the decision commit (or a unique prefix)
  mneme review undo HEAD~1                     # any revision naming a decision commit
  mneme review undo 20261122T135300Z-3f9a1c2b  # or the proposal it decided
  mneme review undo 3f9a1c2b40 --json")]
    Undo {
        /// The decision: its commit (a prefix of at least 4 hex digits, or a revision such as
        /// HEAD~1), its proposal's id or its decision record's id.
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

/// The numbers one `--drop` names.
#[derive(Debug, Clone)]
pub struct OperationNumbers(Vec<usize>);

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    match &args.action {
        None => interactive::interactive(cx, &ws, &args.focus, args.no_verify),
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
                forge: None,
            };
            if *all {
                return decide::approve_all(cx, &ws, &how);
            }
            if !drop.is_empty() {
                let drop: Vec<usize> = drop.iter().flat_map(|n| n.0.iter().copied()).collect();
                return decide::approve_dropping(cx, &ws, ids, &drop, &how);
            }
            decide::decide(cx, &ws, ids, |item| review::approve(&ws, item, &how, cx.ui))
        }
        Some(Action::Undo { decision }) => undo::undo(cx, &ws, decision),
        Some(Action::Reject { ids, reason }) => decide::decide(cx, &ws, ids, |item| {
            review::reject(&ws, item, reason.clone(), args.no_verify, None)
        }),
    }
}

fn list(cx: &Cx, ws: &Workspace, focus: &FocusArgs) -> Result<ExitStatus> {
    let ledger = ws.store.load()?;
    let now = now();
    let items = review::pending(ws, &ledger)?;
    let rows: Vec<ReviewRow> = focus
        .focus(&ledger)?
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
    cx.ui.out(&review_list(&rows))?;
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
        cx.ui.out(&proposal_screen(
            item,
            preview.as_ref(),
            &cited,
            &competing,
            None,
        ))?;
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

/// The proposal's evidence as the work tree has it.
pub(super) fn cited_of(ws: &Workspace, item: &Pending) -> Vec<Cited> {
    item.valid()
        .map(|p| evidence::cited(ws, &p.evidence))
        .unwrap_or_default()
}

/// The other pending proposals (`others`) that act on a fact `item` acts on.
pub(super) fn competing_of(item: &Pending, others: &Queue) -> Vec<Competing> {
    item.valid()
        .map(|p| competing(&targets(p), &p.id, others.parsed()))
        .unwrap_or_default()
}
