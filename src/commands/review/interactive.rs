//! The interactive review: each proposal on the terminal, decided with one key.

use std::io::IsTerminal;

use console::Term;
use mneme::git::commit::Committed;
use mneme::model::facts::ledger::Ledger;
use mneme::model::proposals::preview::{preview, BudgetAfter, Preview};
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
    let ledger = ws.store.load()?;
    let all = review::pending(ws, &ledger)?;
    let items: Vec<Pending> = focus
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
    let mut session = Session {
        cx,
        ws,
        term: Term::stderr(),
        editor: Editor::choose(
            |name| std::env::var(name).ok(),
            mneme::git::config::core_editor(&ws.repo),
        ),
        no_verify,
        items,
        tally: Tally::default(),
    };
    let total = session.items.len();
    let mut n = 0;
    while n < total {
        match session.screen(n)? {
            Step::Again => {}
            Step::Next => n += 1,
            Step::Stop => break,
        }
    }
    let tally = &session.tally;
    cx.ui.out(&format!(
        "\n{} approved, {} rejected, {} left pending.\n",
        tally.approved, tally.rejected, tally.skipped
    ))?;
    Ok(ExitStatus::Success)
}

/// What a key did to the review's place.
enum Step {
    /// The same proposal again (after an edit, a refusal, or help).
    Again,
    /// On to the next proposal.
    Next,
    /// No more proposals this session.
    Stop,
}

/// A proposal's screen as shown: the ledger and preview it was shown against, and the keys.
struct Offer {
    ledger: Ledger,
    preview: Option<Preview>,
    can_approve: bool,
    can_edit: bool,
    by_operation: bool,
    keys: String,
}

/// One interactive review: the proposals in focus, and what was done with them.
struct Session<'a> {
    cx: &'a Cx<'a>,
    ws: &'a Workspace,
    term: Term,
    editor: Editor,
    no_verify: bool,
    items: Vec<Pending>,
    tally: Tally,
}

impl Session<'_> {
    /// Shows proposal `n` as the ledger is now, reads one key and acts on it.
    fn screen(&mut self, n: usize) -> Result<Step> {
        let (cx, ws, term) = (self.cx, self.ws, &self.term);
        let total = self.items.len();
        let Offer {
            ledger,
            preview,
            can_approve,
            can_edit,
            by_operation,
            keys,
        } = self.show(n)?;
        let item = &self.items[n];
        let prompt = paint(PROMPT, format!("Approve this proposal [{keys}]? "));
        let key = read_choice(term, &prompt)?;
        let over_budget = preview
            .as_ref()
            .and_then(|p| p.budget)
            .filter(BudgetAfter::over);
        let result = match key {
            'y' | 'm' if can_approve => match self.approve(n, key == 'm', over_budget)? {
                Some(result) => result,
                None => return Ok(Step::Again),
            },
            'a' if can_approve => return self.approve_rest(n),
            'n' => {
                let reason = ask(term, "Reason for rejecting (optional)")?;
                review::reject(ws, item, Some(reason), self.no_verify, None)
            }
            'e' if can_edit => {
                match edit(&mut self.items[n], &ledger, &self.editor) {
                    Ok(Edit::Changed) => {}
                    Ok(Edit::Unchanged) => {
                        cx.ui.warn("nothing changed; the proposal is as it was");
                    }
                    Ok(Edit::Retargeted) => cx.ui.warn(RETARGETED),
                    Ok(Edit::Cancelled) => cx.ui.warn("edit cancelled"),
                    Err(e) => cx.ui.error(&e),
                }
                return Ok(Step::Again);
            }
            'o' if by_operation => {
                each_operation(cx, term, &mut self.items[n], &ledger, &self.editor)?;
                return Ok(Step::Again);
            }
            'r' if can_edit && !can_approve => {
                if retarget(&mut self.items[n], &ledger) {
                    cx.ui.warn(RETARGETED);
                }
                return Ok(Step::Again);
            }
            's' | 'q'
                if item.original.is_some()
                    && !confirm(
                        term,
                        "Leave without your edit? The proposal stays as the agent wrote it.",
                    )? =>
            {
                return Ok(Step::Again);
            }
            's' => {
                self.tally.skipped += 1;
                return Ok(Step::Next);
            }
            'q' => {
                self.tally.skipped += total - n;
                return Ok(Step::Stop);
            }
            _ => {
                if key != '?' {
                    cx.ui.warn(&format!(
                        "`{}` is not one of the keys offered here ({keys})",
                        key.escape_default()
                    ));
                }
                cx.ui.out(HELP)?;
                return Ok(Step::Again);
            }
        };
        match result {
            Ok(c) => {
                if key == 'n' {
                    self.tally.rejected += 1;
                } else {
                    self.tally.approved += 1;
                }
                cx.ui.out(&committed_line(&c))?;
                Ok(Step::Next)
            }
            Err(e) => {
                cx.ui.error(&e.into());
                Ok(Step::Again)
            }
        }
    }

    /// `y` (`m` with a message): approves proposal `n`, after asking when it takes the facts
    /// over their budget; `None` when the person does not confirm.
    fn approve(
        &self,
        n: usize,
        with_message: bool,
        over_budget: Option<BudgetAfter>,
    ) -> Result<Option<mneme::ops::Result<Committed>>> {
        let term = &self.term;
        if let Some(b) = over_budget {
            let question = format!(
                "Approving takes the facts to {} lines, over their budget of {}. Approve anyway?",
                b.lines, b.limit
            );
            if !confirm(term, &question)? {
                return Ok(None);
            }
        }
        let note = if with_message {
            Some(ask(term, "Message for the commit (optional)")?)
        } else {
            None
        };
        let item = &self.items[n];
        let how = Approval {
            note: note.filter(|m| !m.trim().is_empty()),
            no_verify: self.no_verify,
            allow_secrets: confirm_secrets(term, item)?,
            forge: None,
        };
        // The budget was shown and, when over, confirmed above.
        Ok(Some(review::approve(self.ws, item, &how, &Quiet)))
    }

    /// Proposal `n`'s screen, as the ledger is now, and the keys that can decide it.
    fn show(&self, n: usize) -> Result<Offer> {
        let ws = self.ws;
        let ledger = ws.store.load()?;
        let item = &self.items[n];
        // The proposals left out of focus still compete and still reserve their ids; those
        // decided on an earlier screen are pending no more.
        let pending_now = review::pending(ws, &ledger)?;
        let others = review::others(&pending_now, item, &ledger);
        let preview = item
            .valid()
            .map(|p| preview(&ledger, &others, p, &review::today()));
        self.cx.ui.out(&format!(
            "\n{}",
            proposal_screen(
                item,
                preview.as_ref(),
                &cited_of(ws, item),
                &competing_of(item, &others),
                Some((n + 1, self.items.len()))
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
        Ok(Offer {
            ledger,
            preview,
            can_approve,
            can_edit,
            by_operation,
            keys,
        })
    }

    /// `a`: approves proposal `n` and every later one that applies, once confirmed.
    fn approve_rest(&mut self, n: usize) -> Result<Step> {
        let question = format!(
            "Approve this and the {} later proposal(s) that apply?",
            self.items.len() - n - 1
        );
        if !confirm(&self.term, &question)? {
            return Ok(Step::Again);
        }
        let how = Approval {
            no_verify: self.no_verify,
            ..Approval::default()
        };
        let done = approve_each(self.cx, self.ws, &self.items[n..], &how)?;
        self.tally.approved += done.approved.len();
        self.tally.skipped += done.left.len();
        Ok(Step::Stop)
    }
}
