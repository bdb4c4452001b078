use std::io::IsTerminal;

use console::{Key, Term};
use mneme::git::commit::Committed;
use mneme::model::apply::Conflict;
use mneme::model::ledger::Ledger;
use mneme::model::paths;
use mneme::model::plan::check_text;
use mneme::model::preview::{preview, Preview, Status};
use mneme::model::time::human_age;
use mneme::model::views::{Decided, ReviewRow, ReviewShow};
use mneme::ops::review::{self, Pending};
use mneme::ops::{now, Notes, Workspace};

use crate::cli::error::Code;
use crate::cli::ui::{self, paint, DIM, GOOD, HEADER, ID, PROMPT, WARN};
use crate::cli::{CliError, Cx, ExitStatus, Result};

/// Review pending proposals: approve, reject, edit or skip each.
///
/// Without a subcommand, walks the proposals oldest first in the terminal, showing each as a
/// diff of the fact files it changes, and asks for a single key (like `git add -p`). Every
/// approval and rejection is recorded as one git commit that touches only the ledger; your
/// other staged and unstaged work stays as it was. The subcommands do the same without a
/// terminal.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme review                                  # interactive
  mneme review list
  mneme review show 20261122T135300Z-3f9a1c2b   # or any unique prefix
  mneme review approve 20261122T1353 --message \"checked against the ADR\"
  mneme review reject 20261122T1353 --reason \"not verified\"")]
pub struct Args {
    #[command(subcommand)]
    action: Option<Action>,

    /// Do not run the repository's pre-commit and commit-msg hooks.
    #[arg(long, global = true)]
    no_verify: bool,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// List pending proposals, oldest first, with whether each still applies.
    List,
    /// Show one proposal and the diff approving it would make.
    Show {
        /// Proposal id or unique prefix.
        id: String,
    },
    /// Approve proposals: apply each to the facts and commit it.
    Approve {
        /// Proposal ids or unique prefixes, applied in the order given.
        #[arg(required = true)]
        ids: Vec<String>,
        /// A note for the commit message body.
        #[arg(long, short)]
        message: Option<String>,
    },
    /// Reject proposals: commit the removal of each, with the reason.
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
        None => interactive(cx, &ws, args.no_verify),
        Some(Action::List) => list(cx, &ws),
        Some(Action::Show { id }) => show(cx, &ws, id),
        Some(Action::Approve { ids, message }) => decide(cx, &ws, ids, |item| {
            review::approve(&ws, item, message.clone(), args.no_verify)
        }),
        Some(Action::Reject { ids, reason }) => decide(cx, &ws, ids, |item| {
            review::reject(&ws, item, reason.clone(), args.no_verify)
        }),
    }
}

fn list(cx: &Cx, ws: &Workspace) -> Result<ExitStatus> {
    let ledger = ws.store.load()?;
    let today = review::today();
    let now = now();
    let items = review::pending(ws)?;
    let rows: Vec<ReviewRow> = items
        .iter()
        .map(|item| {
            let status = preview(&ledger, &item.proposal, &today).status();
            ReviewRow::new(&item.proposal, status, now)
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
    let mut out = String::new();
    for row in &rows {
        let status = match row.status {
            Status::Conflict => paint(WARN, "conflict"),
            Status::Rebased => paint(DIM, "rebased"),
            Status::Clean => String::new(),
        };
        out.push_str(&format!(
            "{} {} {} {status}\n",
            paint(ID, row.id),
            paint(
                DIM,
                format!(
                    "[{}, {}]",
                    row.agent.unwrap_or("unknown agent"),
                    row.age.as_deref().unwrap_or("?")
                )
            ),
            row.operations.join("; "),
        ));
    }
    cx.ui.out(&out)?;
    Ok(ExitStatus::Success)
}

fn show(cx: &Cx, ws: &Workspace, id: &str) -> Result<ExitStatus> {
    let ledger = ws.store.load()?;
    let items = review::pending(ws)?;
    let item = review::find(&items, id)?;
    let preview = preview(&ledger, &item.proposal, &review::today());
    if cx.ui.json {
        cx.ui.json(&ReviewShow::new(&item.proposal, &preview))?;
    } else {
        cx.ui.out(&render(item, &preview, None))?;
    }
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
    let items = review::pending(ws)?;
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
        done.push(Decided {
            proposal: item.proposal.id.clone(),
            commit: committed.commit,
            branch: committed.branch,
            summary: committed.summary,
        });
    }
    if cx.ui.json {
        cx.ui.json(&done)?;
    }
    Ok(ExitStatus::Success)
}

fn committed_line(c: &Committed) -> String {
    format!(
        "{} {} {}\n",
        paint(GOOD, "committed"),
        paint(ID, &c.commit[..c.commit.len().min(10)]),
        c.summary
    )
}

/// Header and diff of one proposal.
fn render(item: &Pending, preview: &Preview, position: Option<(usize, usize)>) -> String {
    let p = &item.proposal;
    let now = now();
    let mut out = paint(HEADER, format!("Proposal {}", p.id));
    if let Some((n, total)) = position {
        out.push_str(&paint(DIM, format!("  ({n} of {total})")));
    }
    out.push('\n');
    let agent = p.agent.as_deref().unwrap_or("unknown agent");
    let by = match &p.author {
        Some(a) => format!("{agent} ({a})"),
        None => agent.to_owned(),
    };
    let age = p
        .created()
        .map(|t| human_age(t, now))
        .unwrap_or_else(|| "?".into());
    out.push_str(&format!("  {} {by}, {age} ago\n", paint(DIM, "agent:   ")));
    out.push_str(&format!("  {} {}\n", paint(DIM, "reason:  "), p.reason));
    if p.evidence.is_empty() {
        out.push_str(&format!(
            "  {} {}\n",
            paint(DIM, "evidence:"),
            paint(WARN, "NO EVIDENCE")
        ));
    } else {
        out.push_str(&format!(
            "  {} {}\n",
            paint(DIM, "evidence:"),
            p.evidence.join(", ")
        ));
    }
    for s in &preview.similar {
        out.push_str(&format!(
            "  {} {} {} {}\n",
            paint(DIM, "similar: "),
            paint(ID, &s.fact_id),
            paint(DIM, format!("({}, {:.0}%)", s.file, s.score * 100.0)),
            s.text
        ));
    }
    if item.edited {
        out.push_str(&format!("  {}\n", paint(WARN, "edited by you")));
    }
    for op in &p.operations {
        out.push_str(&format!("  {} {}\n", paint(DIM, "change:  "), op.summary()));
    }
    match &preview.outcome {
        Ok(applied) => {
            if applied.rebased {
                out.push_str(&format!(
                    "  {}\n",
                    paint(WARN, "rebased: the facts changed since this was proposed; it still applies cleanly")
                ));
            }
            out.push('\n');
            for f in &applied.files {
                out.push_str(&ui::diff(&paths::fact_file(&f.name), &f.old, &f.new));
            }
        }
        Err(conflict) => {
            out.push_str(&format!("\n{} {conflict}\n", paint(WARN, "CONFLICT:")));
            if let Conflict::FactChanged { before, now, .. } = conflict {
                out.push_str(&format!(
                    "  {} {before}\n  {} {now}\n",
                    paint(DIM, "when proposed:"),
                    paint(DIM, "now:          ")
                ));
            }
            out.push_str(&paint(DIM, "Only reject (n) or edit (e) can resolve it.\n"));
        }
    }
    out
}

const HELP: &str = "y - approve: apply the change and commit it
n - reject: commit the proposal's removal, with an optional reason
e - edit the proposed text in $VISUAL/$EDITOR, then review the new diff
s - skip: leave it pending
q - quit: leave this and the remaining proposals pending
? - this help
";

fn interactive(cx: &Cx, ws: &Workspace, no_verify: bool) -> Result<ExitStatus> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(CliError::new(
            Code::NotATerminal,
            "`mneme review` is interactive and needs a terminal",
        )
        .with_hint("use `mneme review list`, `show`, `approve` or `reject`"));
    }
    let term = Term::stderr();
    let mut items = review::pending(ws)?;
    if items.is_empty() {
        cx.ui.out("No pending proposals.\n")?;
        return Ok(ExitStatus::Success);
    }
    let total = items.len();
    let (mut approved, mut rejected, mut skipped) = (0, 0, 0);
    'proposals: for (n, item) in items.iter_mut().enumerate() {
        loop {
            let ledger = ws.store.load()?;
            let preview = preview(&ledger, &item.proposal, &review::today());
            cx.ui.out(&format!(
                "\n{}",
                render(item, &preview, Some((n + 1, total)))
            ))?;
            let conflict = preview.status() == Status::Conflict;
            let keys = if conflict { "n,e,s,q,?" } else { "y,n,e,s,q,?" };
            let prompt = paint(PROMPT, format!("Approve this proposal [{keys}]? "));
            let key = read_choice(&term, &prompt)?;
            let result = match key {
                'y' if !conflict => review::approve(ws, item, None, no_verify),
                'n' => {
                    let reason: String = dialoguer::Input::new()
                        .with_prompt("Reason for rejecting (optional)")
                        .allow_empty(true)
                        .interact_text_on(&term)
                        .map_err(|dialoguer::Error::IO(e)| CliError::terminal(e))?;
                    review::reject(ws, item, Some(reason), no_verify)
                }
                'e' => {
                    edit(item, &ledger)?;
                    continue;
                }
                's' => {
                    skipped += 1;
                    continue 'proposals;
                }
                'q' => {
                    skipped += total - n;
                    break 'proposals;
                }
                _ => {
                    cx.ui.out(HELP)?;
                    continue;
                }
            };
            match result {
                Ok(c) => {
                    if key == 'y' {
                        approved += 1;
                    } else {
                        rejected += 1;
                    }
                    cx.ui.out(&committed_line(&c))?;
                    continue 'proposals;
                }
                Err(e) => cx.ui.error(&e.into()),
            }
        }
    }
    cx.ui.out(&format!(
        "\n{approved} approved, {rejected} rejected, {skipped} left pending.\n"
    ))?;
    Ok(ExitStatus::Success)
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

/// Opens the editor on each proposed text; re-targets the proposal at the facts as they are now,
/// which the reviewer has just seen.
fn edit(item: &mut Pending, ledger: &Ledger) -> Result<()> {
    for op in &mut item.proposal.operations {
        if let Some((_, fact)) = ledger.find(op.fact_id()) {
            if op.before().is_some() {
                op.set_before(fact.text.clone());
            }
        }
        let Some(text) = op.text().map(str::to_owned) else {
            continue;
        };
        let edited = dialoguer::Editor::new()
            .extension(".md")
            .edit(&text)
            .map_err(|dialoguer::Error::IO(e)| CliError::editor(e))?;
        if let Some(new) = edited {
            op.set_text(check_text(&new, ledger.config.max_fact_chars)?);
        }
    }
    item.edited = true;
    Ok(())
}
