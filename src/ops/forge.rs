//! Deciding a pull request's proposals from its comment: the commands run on the checked-out
//! head as the commenter, each decision a commit and a record that names them. What is pushed,
//! and the replies, are the workflow's (docs/ci.md, "Deciding in the pull request").

use crate::git::commit::Committed;
use crate::git::history::resolve_commit;
use crate::model::forge::command::{Command, Named};
use crate::model::forge::gate::Target;
use crate::model::proposals::proposal::Proposal;
use crate::model::provenance::decision::Verdict;
use crate::ops::review::{self, Approval, Pending};
use crate::ops::{Error, Notes, Result, Workspace};

/// A decision made.
#[derive(Debug, Clone)]
pub struct Done {
    pub proposal: String,
    pub verdict: Verdict,
    pub committed: Committed,
}

/// What the comment's commands did. When `failed` is set nothing may be pushed: the comment's
/// decisions are all or none.
#[derive(Debug)]
pub struct Outcome {
    pub done: Vec<Done>,
    /// Left pending by `approve all`: the proposal and why (a conflict, an invalid file, what
    /// looks like a credential).
    pub left: Vec<(String, Error)>,
    /// The command that could not apply (its index in `commands`), and why.
    pub failed: Option<(usize, Failure)>,
}

/// Why a command could not apply.
#[derive(Debug)]
pub enum Failure {
    /// The checkout is not the head the API named: the branch moved.
    HeadMoved {
        expected: String,
        found: String,
    },
    /// `drop` left nothing that holds.
    Drop(String),
    /// The proposal is not the text the command's pin names: it changed after the summary the
    /// reviewer read.
    Changed {
        id: String,
        pin: String,
        now: String,
    },
    Error(Error),
}

/// Runs `target`'s commands in order on the checked-out head, as its reviewer. Stops at the
/// first command that cannot apply.
pub fn decide(ws: &mut Workspace, target: &Target, notes: &dyn Notes) -> Result<Outcome> {
    let mut out = Outcome {
        done: Vec::new(),
        left: Vec::new(),
        failed: None,
    };
    let found = resolve_commit(&ws.repo, "HEAD")?.to_string();
    if found != target.head {
        out.failed = Some((
            0,
            Failure::HeadMoved {
                expected: target.head.clone(),
                found,
            },
        ));
        return Ok(out);
    }
    let (name, email) = target.reviewer.identity();
    ws.repo.set_identity(&name, &email)?;
    let how = Approval {
        forge: Some(target.reviewer.clone()),
        ..Approval::default()
    };
    for (i, command) in target.commands.iter().enumerate() {
        if let Err(failure) = run(ws, command, &how, notes, &mut out) {
            out.failed = Some((i, failure));
            break;
        }
    }
    Ok(out)
}

fn run(
    ws: &Workspace,
    command: &Command,
    how: &Approval,
    notes: &dyn Notes,
    out: &mut Outcome,
) -> std::result::Result<(), Failure> {
    let ledger = ws.store.load().map_err(|e| Failure::Error(e.into()))?;
    let items = review::pending(ws, &ledger).map_err(Failure::Error)?;
    let find = |named: &Named| {
        let item = review::find(&items, &named.id).map_err(Failure::Error)?;
        let now = item.valid().map(Proposal::pin);
        match &named.pin {
            Some(pin) if now.as_ref() != Some(pin) => Err(Failure::Changed {
                id: item.id.clone(),
                pin: pin.clone(),
                now: now.unwrap_or_else(|| "invalid".into()),
            }),
            _ => Ok(item),
        }
    };
    let mut record = |item: &Pending, verdict, committed| {
        out.done.push(Done {
            proposal: item.id.clone(),
            verdict,
            committed,
        });
    };
    match command {
        Command::Help => {}
        Command::Approve(names) => {
            let named = names.iter().map(&find).collect::<Result<Vec<_>, _>>()?;
            for item in named {
                let c = review::approve(ws, item, how, notes).map_err(Failure::Error)?;
                record(item, Verdict::Approve, c);
            }
        }
        Command::ApproveAll => {
            for item in &items {
                match review::approve(ws, item, how, notes) {
                    Ok(c) => record(item, Verdict::Approve, c),
                    Err(e) if e.leaves_pending() => out.left.push((item.id.clone(), e)),
                    Err(e) => return Err(Failure::Error(e)),
                }
            }
        }
        Command::Reject { named, reason } => {
            let item = find(named)?;
            let c = review::reject(ws, item, reason.clone(), false, how.forge.as_ref())
                .map_err(Failure::Error)?;
            record(item, Verdict::Reject, c);
        }
        Command::Drop { named, operations } => {
            let item = review::less_operations(find(named)?, operations, &ledger, "operation")
                .map_err(Failure::Drop)?;
            let c = review::approve(ws, &item, how, notes).map_err(Failure::Error)?;
            record(&item, Verdict::Approve, c);
        }
    }
    Ok(())
}
