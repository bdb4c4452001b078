use mneme::ops::claims::{claims_remote, host_name, remote_claims, steal};
use mneme::ops::now;
use mneme::ops::tasks::{actor, resolve};
use serde::Serialize;

use super::print_task;
use crate::cli::ui::{esc1, paint, DIM, ID, WARN};
use crate::cli::{Cx, ExitStatus, Result};

/// List the claims on the claims remote, or take over a stale one.
///
/// A claim made with `update --claim` while `claims_remote` is set (or with `--remote`) is the
/// ref `refs/mneme/claims/<task id>` on that remote. This lists them all, fetched in one round
/// trip: the holder (agent and host), since when, and its lease. A claim whose lease ran out
/// (its holder stopped updating the task) is stale: `--steal` takes it over, with a note on the
/// task that gives the reason. A live claim cannot be taken over.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme claims
  mneme claims --json --offline
  mneme claims --steal t-a3f8 --reason \"ada's sandbox is gone\"")]
pub struct Args {
    /// The git remote [default: claims_remote in .ledger/config.yaml].
    #[arg(long, value_name = "REMOTE")]
    remote: Option<String>,
    /// Do not reach the remote: list the claims fetched before.
    #[arg(long, conflicts_with = "steal")]
    offline: bool,
    /// Take over this task's stale claim (its lease ran out).
    #[arg(long, value_name = "ID", requires = "reason")]
    steal: Option<String>,
    /// Why the claim is taken over (noted on the task).
    #[arg(long, requires = "steal")]
    reason: Option<String>,
    /// Who you are [default: $MNEME_AGENT, else git user.name].
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
}

#[derive(Serialize)]
struct Listing<'a> {
    remote: &'a str,
    fetched: bool,
    claims: Vec<ClaimView<'a>>,
    unreadable: Vec<Unreadable<'a>>,
}

#[derive(Serialize)]
struct ClaimView<'a> {
    task: &'a str,
    title: Option<String>,
    agent: &'a str,
    host: &'a str,
    claimed_at: &'a str,
    renewed_at: &'a str,
    lease_seconds: i64,
    expires_at: String,
    stale: bool,
    mine: bool,
    /// Holder, age and lease in words, for the human listing.
    #[serde(skip)]
    said: String,
}

#[derive(Serialize)]
struct Unreadable<'a> {
    task: &'a str,
    oid: &'a str,
    why: String,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let remote = claims_remote(&ws, args.remote.as_deref())?;
    let me = actor(&ws, args.agent.as_deref());
    if let (Some(id), Some(reason)) = (&args.steal, &args.reason) {
        let task = steal(&ws, &remote, &resolve(&ws, id)?, reason, &me, cx.ui)?;
        return print_task(cx, "took over", &task);
    }
    let listed = remote_claims(&ws, &remote, None, args.offline, false, cx.ui)?;
    let (at, host) = (now(), host_name());
    let mut claims = Vec::new();
    let mut unreadable = Vec::new();
    for t in &listed.claims {
        match &t.claim {
            Ok(c) => claims.push(ClaimView {
                task: &t.task,
                title: ws.store.read_task(&t.task).ok().flatten().map(|t| t.title),
                agent: &c.agent,
                host: &c.host,
                claimed_at: &c.claimed_at,
                renewed_at: &c.renewed_at,
                lease_seconds: c.lease_seconds,
                expires_at: c.expires_at().rfc3339_seconds(),
                stale: c.is_stale(at),
                mine: c.is_held_by(&me, &host),
                said: c.describe(at),
            }),
            Err(why) => unreadable.push(Unreadable {
                task: &t.task,
                oid: &t.oid,
                why: why.to_string(),
            }),
        }
    }
    if cx.ui.json {
        cx.ui.json(&Listing {
            remote: &remote,
            fetched: listed.fetched,
            claims,
            unreadable,
        })?;
        return Ok(ExitStatus::Success);
    }
    let mut out = String::new();
    if claims.is_empty() && unreadable.is_empty() {
        out.push_str(&format!("No claims on `{}`.\n", esc1(&remote)));
    }
    for view in &claims {
        let state = if view.stale {
            format!(" {}", paint(WARN, "stale"))
        } else if view.mine {
            format!(" {}", paint(DIM, "(yours)"))
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{} {} {}{state}\n",
            paint(ID, esc1(view.task)),
            esc1(view.title.as_deref().unwrap_or("(not in this clone)")),
            paint(DIM, format!("— {}", esc1(&view.said)))
        ));
    }
    for u in &unreadable {
        out.push_str(&format!(
            "{} {}\n",
            paint(ID, esc1(u.task)),
            paint(
                WARN,
                format!("unreadable claim {}: {}", u.oid, esc1(&u.why))
            )
        ));
    }
    if claims.iter().any(|c| c.stale) {
        out.push_str(&format!(
            "{}\n",
            paint(
                DIM,
                "Take over a stale claim: mneme claims --steal ID --reason TEXT"
            )
        ));
    }
    cx.ui.out(&out)?;
    Ok(ExitStatus::Success)
}
