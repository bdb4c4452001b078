//! The interactive review: each proposal on the terminal, decided with one key.

use std::io::IsTerminal;

use console::Term;
use mneme::model::proposals::preview::{preview, BudgetAfter};
use mneme::ops::review::{self, Approval, Pending};
use mneme::ops::{Notes, Quiet, Workspace};

use super::decide::approve_each;
use super::edit::{each_operation, edit, retarget, Edit};
use super::{cited_of, competing_of, FocusArgs};
use crate::cli::editor::Editor;
use crate::cli::error::Code;
use crate::cli::prompt::{ask, confirm, confirm_secrets, read_choice};
use crate::cli::render::review::{committed_line, editable, proposal_screen};
use crate::cli::ui::{paint, PROMPT};
use crate::cli::{CliError, Cx, ExitStatus, Result};

const HELP: &str = "y - approve: apply the change and commit it
m - approve with a message for the commit
a - approve this and every later proposal that applies (asks once to confirm)
n - reject: commit the proposal's removal, with an optional reason
e - edit the proposed text in your editor, then review the new diff (an empty text cancels)
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

pub(super) fn interactive(
    cx: &Cx,
    ws: &Workspace,
    focus: &FocusArgs,
    no_verify: bool,
) -> Result<ExitStatus> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(CliError::new(
            Code::NotATerminal,
            "`mneme review` is interactive and needs a terminal",
        )
        .with_hint("use `mneme review list`, `show`, `approve` or `reject`"));
    }
    let term = Term::stderr();
    let editor = Editor::choose(
        |name| std::env::var(name).ok(),
        mneme::git::config::core_editor(&ws.repo),
    );
    let ledger = ws.store.load()?;
    let all = review::pending(ws, &ledger)?;
    let mut items: Vec<Pending> = focus
        .focus(&ledger)?
        .select(&all)?
        .into_iter()
        .cloned()
        .collect();
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
            // The proposals left out of focus still compete and still reserve their ids; those
            // decided on an earlier screen are pending no more.
            let pending_now = review::pending(ws, &ledger)?;
            let others = review::others(&pending_now, item, &ledger);
            let preview = item
                .valid()
                .map(|p| preview(&ledger, &others, p, &review::today()));
            cx.ui.out(&format!(
                "\n{}",
                proposal_screen(
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
                        forge: None,
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
                    review::reject(ws, item, Some(reason), no_verify, None)
                }
                'e' if can_edit => {
                    match edit(&mut items[n], &ledger, &editor) {
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
                    each_operation(cx, &term, &mut items[n], &ledger, &editor)?;
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
                    if key != '?' {
                        cx.ui.warn(&format!(
                            "`{}` is not one of the keys offered here ({keys})",
                            key.escape_default()
                        ));
                    }
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
