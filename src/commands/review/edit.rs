//! The reviewer's own version of a proposal: its texts edited, some operations dropped, or it
//! re-targeted at the facts as they are now. The agent's version is kept for the record.

use console::Term;
use mneme::model::facts::fields::check_text;
use mneme::model::facts::ledger::Ledger;
use mneme::model::proposals::apply::retargeted;
use mneme::model::proposals::proposal::Operation;
use mneme::ops::review::{keep_operations, replace_proposal, Pending};
use mneme::ops::Notes;

use crate::cli::editor::Editor;
use crate::cli::prompt::read_choice;
use crate::cli::ui::{esc1, paint, HEADER, PROMPT};
use crate::cli::{Cx, Result};

/// What an edit did.
pub(super) enum Edit {
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
pub(super) fn edit(item: &mut Pending, ledger: &Ledger, editor: &Editor) -> Result<Edit> {
    let Ok(proposal) = &item.proposal else {
        return Ok(Edit::Unchanged);
    };
    let mut edited = proposal.clone();
    let (mut changed, mut emptied) = (false, false);
    for op in &mut edited.operations {
        match edit_text(op, ledger, editor)? {
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
fn edit_text(op: &mut Operation, ledger: &Ledger, editor: &Editor) -> Result<Option<bool>> {
    let Some(text) = op.text().map(str::to_owned) else {
        return Ok(Some(false));
    };
    let Some(new) = editor.edit(&text)? else {
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
e - edit this statement in your editor, chosen as git chooses it (an empty text keeps it as it was)
q - stop here: keep this and the remaining operations as they are
? - this help
";

/// Walks the operations of a proposal one by one (like `git add -p` hunks): keep, drop or
/// edit each. The proposal then holds the kept ones, to approve as a whole; the agent's
/// version is kept for the record.
pub(super) fn each_operation(
    cx: &Cx,
    term: &Term,
    item: &mut Pending,
    ledger: &Ledger,
    editor: &Editor,
) -> Result<()> {
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
                'e' if op.text().is_some() => match edit_text(op, ledger, editor) {
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

/// Aims the proposal at the facts as they are now; whether any target had changed.
pub(super) fn retarget(item: &mut Pending, ledger: &Ledger) -> bool {
    let Some(p) = item.valid().and_then(|p| retargeted(ledger, p)) else {
        return false;
    };
    replace_proposal(item, p);
    true
}
