//! Claims that hold across clones: a claim ref on the git remote, created only if absent, beside
//! the local claim of the task file. The server's compare-and-swap on the ref decides between
//! clones; the tasks lock decides between the work trees of one repository.

use std::time::Duration;

use crate::git::remote::{Pushed, Tracked};
use crate::git::Error as GitError;
use crate::model::tasks::claims::{Claim, ClaimRecord, RemoteHold};
use crate::model::tasks::task::Task;
use crate::ops::{now, Error, Notes, Result, Workspace};

/// How long `ready` trusts the claims it fetched: a claim made since then is refused at claim
/// time anyway, so a short reuse only spares the round trip.
pub const FETCH_REUSE: Duration = Duration::from_secs(30);

/// Where a new claim is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// In this repository only (its work trees).
    Local,
    /// Also on this remote, in one atomic step.
    Remote { remote: String, lease_seconds: i64 },
}

/// Where claims go: `remote` (`--remote`), else `claims_remote` from the config, unless
/// `local_only`. The remote must be one this clone has.
pub fn reach(ws: &Workspace, remote: Option<&str>, local_only: bool) -> Result<Reach> {
    if local_only {
        return Ok(Reach::Local);
    }
    let config = ws.store.load_config()?;
    let Some(remote) = remote.map(str::to_owned).or(config.claims_remote.clone()) else {
        return Ok(Reach::Local);
    };
    if !crate::model::base::config::is_remote_name(&remote) {
        return Err(GitError::NoSuchRemote { remote }.into());
    }
    ws.repo.check_remote(&remote)?;
    Ok(Reach::Remote {
        remote,
        lease_seconds: config.lease_seconds(),
    })
}

/// The name of this machine, as a claim records it.
pub fn host_name() -> String {
    #[cfg(unix)]
    let name = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    #[cfg(not(unix))]
    let name = std::env::var("COMPUTERNAME").unwrap_or_default();
    let name = name.trim();
    if name.is_empty() || name.chars().any(char::is_control) {
        "unknown-host".to_owned()
    } else {
        name.to_owned()
    }
}

/// Claims `task` on `remote` for `agent`. A claim of the same agent on this host that is there
/// already (an earlier attempt whose answer was lost) is taken as this one and renewed.
pub(crate) fn take(
    ws: &Workspace,
    remote: &str,
    task: &str,
    agent: &str,
    lease_seconds: i64,
) -> Result<RemoteHold> {
    let host = host_name();
    let claim = Claim::new(task, agent, &host, now(), lease_seconds);
    let oid = write_claim(ws, &claim)?;
    let pushed = ws
        .repo
        .push_claim(remote, task, Some(&oid), None)
        .map_err(|e| unsettled(e, task))?;
    ws.store.mark_claims_fetched(remote, false)?;
    if pushed == Pushed::Done {
        return Ok(RemoteHold {
            remote: remote.to_owned(),
            oid,
        });
    }
    let current = current_claim(ws, remote, task)?;
    match current {
        Some(Tracked {
            claim: Ok(theirs),
            oid,
            ..
        }) if theirs.is_held_by(agent, &host) => {
            let hold = RemoteHold {
                remote: remote.to_owned(),
                oid,
            };
            renew(ws, &hold, &theirs, lease_seconds)
        }
        Some(held) => Err(claimed(remote, held)),
        None => Err(race(remote, task)),
    }
}

/// The error for a push that lost to another clone's: who holds the claim now.
fn beaten(ws: &Workspace, remote: &str, task: &str) -> Result<Error> {
    Ok(match current_claim(ws, remote, task)? {
        Some(held) => claimed(remote, held),
        None => race(remote, task),
    })
}

/// A claim released between the push that lost and the fetch that was to name its holder.
fn race(remote: &str, task: &str) -> Error {
    Error::ClaimRace {
        id: task.to_owned(),
        remote: remote.to_owned(),
    }
}

/// Stores the claim object, first checked as every clone will check it when it reads it (an
/// agent name with hidden characters would make a claim nobody can read).
fn write_claim(ws: &Workspace, claim: &Claim) -> Result<String> {
    let bytes = claim.to_bytes();
    Claim::parse(&bytes, &claim.task).map_err(|why| Error::BadClaim { why })?;
    Ok(ws.repo.write_blob(&bytes)?)
}

/// Renews `claim`, held as `hold`: the lease counts again from now. Fails when the claim there
/// is no longer this one (taken over).
pub(crate) fn renew(
    ws: &Workspace,
    hold: &RemoteHold,
    claim: &Claim,
    lease_seconds: i64,
) -> Result<RemoteHold> {
    let renewed = claim.renewed(now(), lease_seconds);
    let oid = write_claim(ws, &renewed)?;
    let pushed = ws
        .repo
        .push_claim(&hold.remote, &claim.task, Some(&oid), Some(&hold.oid))?;
    ws.store.mark_claims_fetched(&hold.remote, false)?;
    match pushed {
        Pushed::Done => Ok(RemoteHold {
            remote: hold.remote.clone(),
            oid,
        }),
        Pushed::Rejected(_) => Err(lost(ws, &hold.remote, &claim.task)?),
    }
}

/// Renews the claim this repository holds as `hold` on the holder's `update`. When the remote
/// cannot be reached the change goes ahead with a warning (the lease runs on); when the claim
/// was taken over, the update is refused.
pub(crate) fn renew_held(
    ws: &Workspace,
    hold: &RemoteHold,
    task: &str,
    notes: &dyn Notes,
) -> Result<RemoteHold> {
    let claim = ws.repo.read_claim_object(&hold.oid, task)?;
    let lease = ws.store.load_config()?.lease_seconds();
    match renew(ws, hold, &claim, lease) {
        Err(Error::Git(e @ GitError::Remote { .. })) => {
            notes.warn(&format!(
                "warning: the claim on {task} was not renewed ({e}); its lease ends {}",
                claim.expires_at().rfc3339_seconds()
            ));
            Ok(hold.clone())
        }
        other => other,
    }
}

/// Releases the claim held as `hold`, if it is still this one; a claim taken over meanwhile is
/// left alone. When the remote cannot be reached, says so: the claim then ends with its lease.
pub(crate) fn release(ws: &Workspace, hold: &RemoteHold, task: &str, notes: &dyn Notes) {
    replace_held(ws, hold, task, None, "released", notes);
}

/// Replaces the claim held as `hold` with `with` (none: removes it), if the claim there is
/// still that one; warns, saying what was not `done`, when the remote cannot be reached.
fn replace_held(
    ws: &Workspace,
    hold: &RemoteHold,
    task: &str,
    with: Option<&str>,
    done: &str,
    notes: &dyn Notes,
) {
    let pushed = ws
        .repo
        .push_claim(&hold.remote, task, with, Some(&hold.oid));
    let _ = ws.store.mark_claims_fetched(&hold.remote, false);
    // A rejected push means the claim there is no longer ours: nothing of ours is left to undo.
    if let Err(e) = pushed {
        notes.warn(&format!(
            "warning: the claim on {task} was not {done} on `{}` ({e}); it ends with its lease",
            hold.remote
        ));
    }
}

/// Fetches `remote`'s claims and returns the one on `task`, if any.
fn current_claim(ws: &Workspace, remote: &str, task: &str) -> Result<Option<Tracked>> {
    ws.repo.fetch_claims(remote, Some(&[task]))?;
    Ok(ws
        .repo
        .tracked_claims(remote, Some(&[task]))?
        .into_iter()
        .find(|t| t.task == task))
}

/// The error for a claim that another holds.
fn claimed(remote: &str, held: Tracked) -> Error {
    Error::RemoteClaimed {
        id: held.task,
        remote: remote.to_owned(),
        claim: Box::new(held.claim.map_err(|e| e.to_string())),
        now: now(),
    }
}

/// The error for a claim that is no longer this repository's: who has it now.
fn lost(ws: &Workspace, remote: &str, task: &str) -> Result<Error> {
    let current = current_claim(ws, remote, task)?;
    Ok(Error::ClaimLost {
        id: task.to_owned(),
        remote: remote.to_owned(),
        now_held: current.map(|t| Box::new(t.claim.map_err(|e| e.to_string()))),
        now: now(),
    })
}

/// A claim push that did not get an answer: the claim may or may not be on the remote.
fn unsettled(e: GitError, task: &str) -> Error {
    match e {
        GitError::Remote { remote, message } => Error::ClaimUnsettled {
            id: task.to_owned(),
            remote,
            message,
        },
        other => other.into(),
    }
}

/// The claims on `remote` (all, or those of `tasks`): fetched now unless `offline` or all were
/// fetched in the last [`FETCH_REUSE`] (`reuse`); when the remote cannot be reached, the ones
/// fetched before, with a warning.
pub fn remote_claims(
    ws: &Workspace,
    remote: &str,
    tasks: Option<&[&str]>,
    offline: bool,
    reuse: bool,
    notes: &dyn Notes,
) -> Result<RemoteClaims> {
    let recent = reuse
        && ws
            .store
            .claims_fetched_ago(remote)
            .is_some_and(|ago| ago < FETCH_REUSE);
    let mut fetched = false;
    if !offline && !recent {
        match ws.repo.fetch_claims(remote, tasks) {
            Ok(()) => {
                // Only a fetch of all of them can stand in for the next run's.
                if tasks.is_none() {
                    ws.store.mark_claims_fetched(remote, true)?;
                }
                fetched = true;
            }
            Err(e @ GitError::Remote { .. }) if reuse => {
                notes.warn(&format!("warning: {e}; using the claims fetched before"));
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(RemoteClaims {
        remote: remote.to_owned(),
        fetched,
        claims: ws.repo.tracked_claims(remote, tasks)?,
    })
}

/// The claim refs of a remote, as last fetched.
#[derive(Debug)]
pub struct RemoteClaims {
    pub remote: String,
    /// Fetched by this run (not reused or offline).
    pub fetched: bool,
    pub claims: Vec<Tracked>,
}

/// The remote `claims` works with: `remote`, else the configured claims remote.
pub fn claims_remote(ws: &Workspace, remote: Option<&str>) -> Result<String> {
    match reach(ws, remote, false)? {
        Reach::Remote { remote, .. } => Ok(remote),
        Reach::Local => Err(Error::NoClaimsRemote),
    }
}

/// Most tasks whose claims are fetched one by one; past that, all claims are.
const MAX_NAMED_CLAIMS: usize = 256;

/// The claims `ready` must respect on the configured claims remote, if any: those of the tasks
/// `ready` would list, which is all it needs however many claims the remote holds.
pub fn claims_for_ready(
    ws: &Workspace,
    ready: &[&str],
    offline: bool,
    notes: &dyn Notes,
) -> Result<Option<RemoteClaims>> {
    let remote = match reach(ws, None, false) {
        Ok(Reach::Remote { remote, .. }) => remote,
        Ok(Reach::Local) => return Ok(None),
        // A clone without the configured remote still lists its work.
        Err(Error::Git(e @ GitError::NoSuchRemote { .. })) => {
            notes.warn(&format!(
                "warning: {e}, so tasks claimed in other clones are not left out"
            ));
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    let named = (ready.len() <= MAX_NAMED_CLAIMS).then_some(ready);
    remote_claims(ws, &remote, named, offline, true, notes).map(Some)
}

/// Takes over the stale claim on task `id` (a full id) for `agent`, with `reason` noted on the
/// task.
pub fn steal(
    ws: &Workspace,
    remote: &str,
    id: &str,
    reason: &str,
    agent: &str,
    notes: &dyn Notes,
) -> Result<Task> {
    if reason.trim().is_empty() {
        return Err(Error::StealReason);
    }
    let lease = ws.store.load_config()?.lease_seconds();
    let _lock = ws.store.lock_tasks()?;
    let current = current_claim(ws, remote, id)?.ok_or_else(|| Error::NoRemoteClaim {
        id: id.to_owned(),
        remote: remote.to_owned(),
    })?;
    let at = now();
    let stale = match &current.claim {
        Ok(c) if !c.is_stale(at) => {
            return Err(Error::ClaimNotStale {
                id: id.to_owned(),
                remote: remote.to_owned(),
                claim: Box::new(c.clone()),
                now: at,
            })
        }
        Ok(c) => Some(c.clone()),
        // A claim object mneme cannot read holds nothing: it may be taken over.
        Err(_) => None,
    };
    let mut taken = None;
    let changed = ws.store.modify_task(id, |t| {
        let was = match &stale {
            Some(c) => format!(
                "{} on {} (lease ran out {})",
                c.agent,
                c.host,
                c.expires_at().rfc3339_seconds()
            ),
            None => "an unreadable claim".to_owned(),
        };
        t.take_over(
            agent,
            &format!("Took over the claim of {was}: {}", reason.trim()),
            &at.rfc3339(),
        )?;
        let claim = Claim::new(id, agent, &host_name(), at, lease);
        let oid = write_claim(ws, &claim)?;
        let pushed = ws
            .repo
            .push_claim(remote, id, Some(&oid), Some(&current.oid))
            .map_err(|e| unsettled(e, id))?;
        ws.store.mark_claims_fetched(remote, false)?;
        match pushed {
            Pushed::Done => {
                let hold = RemoteHold {
                    remote: remote.to_owned(),
                    oid,
                };
                taken = Some(hold.clone());
                Ok(hold)
            }
            Pushed::Rejected(_) => Err(beaten(ws, remote, id)?),
        }
    });
    let (task, hold) = match changed {
        Ok(done) => done,
        Err(e) => {
            // The task file was not written: the claim goes back to what was taken over.
            if let Some(ours) = taken {
                replace_held(ws, &ours, id, Some(&current.oid), "given back", notes);
            }
            return Err(e);
        }
    };
    ws.store.set_claim_record(
        id,
        Some(&ClaimRecord {
            who: agent.to_owned(),
            remote: Some(hold),
        }),
    )?;
    Ok(task)
}
