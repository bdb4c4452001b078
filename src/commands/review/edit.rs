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
use crate::cli::ui::{esc1, paint, DIM, HEADER, PROMPT, WARN};
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
k - back to the previous operation
q - stop here: the operations not reached stay as they are
? - this help
";

/// One operation of the agent's proposal as the reviewer has it so far.
struct Choice {
    op: Operation,
    keep: bool,
    /// The agent's text, to tell the reviewer's edit from it.
    proposed: Option<String>,
}

impl Choice {
    fn edited(&self) -> bool {
        self.op.text() != self.proposed.as_deref()
    }
}

/// The agent's operations, each as the reviewer left it: a walk resumes the choices of an
/// earlier one (or of an edit) rather than starting over from what they left.
fn choices(item: &Pending) -> Option<Vec<Choice>> {
    let current = item.valid()?;
    let agent = item.original.as_ref().unwrap_or(current);
    let choices = agent.operations.iter().map(|proposed| {
        let kept = current.operations.iter().find(|op| op.acts_as(proposed));
        Choice {
            op: kept.unwrap_or(proposed).clone(),
            keep: kept.is_some(),
            proposed: proposed.text().map(str::to_owned),
        }
    });
    Some(choices.collect())
}

/// Walks the operations of a proposal one by one (like `git add -p` hunks): keep, drop or
/// edit each, going back as needed. The proposal then holds the kept ones, to approve as a
/// whole; the agent's version is kept for the record.
pub(super) fn each_operation(
    cx: &Cx,
    term: &Term,
    item: &mut Pending,
    ledger: &Ledger,
    editor: &Editor,
) -> Result<()> {
    let Some(mut choices) = choices(item) else {
        return Ok(());
    };
    let total = choices.len();
    let mut at = 0;
    while at < total {
        cx.ui.out(&operation_screen(item, &choices, at))?;
        let choice = &mut choices[at];
        let keys = format!(
            "y,d,{}{}q,?",
            if choice.op.text().is_some() { "e," } else { "" },
            if at > 0 { "k," } else { "" }
        );
        let prompt = paint(PROMPT, format!("Keep this operation [{keys}]? "));
        match read_choice(term, &prompt)? {
            'y' => {
                choice.keep = true;
                at += 1;
            }
            'd' => {
                choice.keep = false;
                at += 1;
            }
            'e' if choice.op.text().is_some() => match edit_text(&mut choice.op, ledger, editor) {
                Ok(None) => cx.ui.warn("an empty text: the statement stays as it was"),
                Ok(Some(false)) => cx.ui.warn("nothing changed"),
                Ok(Some(true)) => {}
                Err(e) => cx.ui.error(&e),
            },
            'k' if at > 0 => at -= 1,
            'q' => break,
            key => {
                if key != '?' {
                    cx.ui.warn(&format!(
                        "`{}` is not one of the keys offered here ({keys}); nothing was decided",
                        key.escape_default()
                    ));
                }
                cx.ui.out(EACH_HELP)?;
            }
        }
    }
    let (dropped, edited) = tally(&choices);
    cx.ui.out(&format!(
        "Kept {} of {total} operation(s): {dropped} dropped, {edited} edited.\n",
        total - dropped
    ))?;
    let (ops, keep): (Vec<_>, Vec<_>) = choices.into_iter().map(|c| (c.op, c.keep)).unzip();
    if let Err(why) = keep_operations(item, ops, &keep, ledger) {
        cx.ui.warn(&format!("{why}; the proposal stays as it was"));
    }
    Ok(())
}

/// How many of `choices` are dropped, and how many kept ones edited.
fn tally(choices: &[Choice]) -> (usize, usize) {
    let dropped = choices.iter().filter(|c| !c.keep).count();
    let edited = choices.iter().filter(|c| c.keep && c.edited()).count();
    (dropped, edited)
}

/// The operation at `at`, under a line that says whose proposal it is and how far the walk is:
/// printed with every operation, so that it never scrolls out of sight.
fn operation_screen(item: &Pending, choices: &[Choice], at: usize) -> String {
    let (dropped, edited) = tally(choices);
    let agent = item
        .valid()
        .and_then(|p| p.agent.as_deref())
        .unwrap_or("unknown agent");
    let mut out = format!(
        "\n{} {}\n",
        paint(
            HEADER,
            format!("Operation {} of {}:", at + 1, choices.len())
        ),
        paint(
            DIM,
            format!(
                "proposal {} by {} · {dropped} dropped, {edited} edited so far",
                esc1(&item.id),
                esc1(agent)
            )
        )
    );
    let choice = &choices[at];
    let mark = match (choice.keep, choice.edited()) {
        (false, _) => format!(" {}", paint(WARN, "(dropped)")),
        (true, true) => format!(" {}", paint(WARN, "(edited by you)")),
        (true, false) => String::new(),
    };
    out.push_str(&format!("  {}{mark}\n", esc1(&choice.op.summary())));
    if let (Some(before), Some(_)) = (choice.op.before(), choice.op.text()) {
        out.push_str(&format!("  {} {}\n", paint(DIM, "was:"), esc1(before)));
    }
    out
}

/// Aims the proposal at the facts as they are now; whether any target had changed.
pub(super) fn retarget(item: &mut Pending, ledger: &Ledger) -> bool {
    let Some(p) = item.valid().and_then(|p| retargeted(ledger, p)) else {
        return false;
    };
    replace_proposal(item, p);
    true
}
