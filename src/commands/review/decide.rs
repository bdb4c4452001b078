//! Deciding without a terminal: the named proposals, all that apply, or one less some
//! operations.

use mneme::git::commit::Committed;
use mneme::model::views::{ApprovedAll, Decided, LeftPending};
use mneme::ops::review::{self, Approval, Pending};
use mneme::ops::{Notes, Workspace};

use crate::cli::render::review::committed_line;
use crate::cli::{CliError, Cx, ExitStatus, Result};

/// `review approve ID --drop N,…`: the proposal less those operations.
pub(super) fn approve_dropping(
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
    let item = review::less_operations(review::find(&items, id)?, drop, &ledger, "--drop")
        .map_err(CliError::invalid_input)?;
    let committed = review::approve(ws, &item, how, cx.ui)?;
    if cx.ui.json {
        cx.ui.json(&[decided(&item, committed)])?;
    } else {
        cx.ui.out(&committed_line(&committed))?;
    }
    Ok(ExitStatus::Success)
}

/// Approves each of `items` that applies to the facts as they are by then, oldest first. Those
/// that cannot be approved (conflicting, invalid, holding what looks like a credential) stay
/// pending and are returned with why; any other error stops.
pub(super) fn approve_each(
    cx: &Cx,
    ws: &Workspace,
    items: &[Pending],
    how: &Approval,
) -> Result<ApprovedAll> {
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
            Err(e) if e.leaves_pending() => {
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
pub(super) fn approve_all(cx: &Cx, ws: &Workspace, how: &Approval) -> Result<ExitStatus> {
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

/// Applies `action` to each named proposal in turn; stops at the first error (earlier
/// decisions stay committed).
pub(super) fn decide(
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

fn decided(item: &Pending, c: Committed) -> Decided {
    Decided {
        proposal: item.id.clone(),
        commit: c.commit,
        branch: c.branch,
        summary: c.summary,
    }
}
