use std::collections::BTreeMap;

use mneme::model::tasks::task::{Board, NotReady, Task};
use mneme::model::views::{NotReadyView, ReadyExplained};
use mneme::ops::{claims, now, tasks, Workspace};

use crate::cli::ui::{esc1, paint, task_table, DIM, HEADER, ID};
use crate::cli::{Cx, ExitStatus, Result};

/// List tasks ready to work on: open, nothing unclosed blocking them, no blocked or deferred
/// ancestor; most urgent first, then oldest.
///
/// With `claims_remote` in .ledger/config.yaml, tasks claimed on that remote are left out too
/// (claimed in another clone, or here by a change not merged yet). The claims are fetched in one
/// round trip and reused for 30 seconds; when the remote cannot be reached, the claims fetched
/// before are used, with a warning.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme ready\n  mneme ready -n 3 --json\n  mneme ready --explain\n  mneme ready --offline"
)]
pub struct Args {
    /// At most this many.
    #[arg(short = 'n', long, value_name = "N")]
    limit: Option<usize>,
    /// Also say why each other open task is not ready.
    #[arg(long)]
    explain: bool,
    /// Do not reach the claims remote: use the claims fetched before.
    #[arg(long)]
    offline: bool,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let tasks = tasks::load(&ws, cx.ui)?;
    let board = Board::new(tasks.iter());
    let (mut ready, claimed) = unclaimed(cx, &ws, board.ready(), args.offline)?;
    if let Some(n) = args.limit {
        ready.truncate(n);
    }
    let mut not_ready: Waiting = if args.explain {
        tasks
            .iter()
            .filter(|t| t.is_open())
            .map(|t| (t, board.not_ready(t)))
            .filter(|(_, reasons)| !reasons.is_empty())
            .collect()
    } else {
        Vec::new()
    };
    let claimed_count = claimed.len();
    if args.explain {
        not_ready.splice(0..0, claimed);
    }
    if cx.ui.json {
        if args.explain {
            cx.ui.json(&ReadyExplained {
                ready: &ready,
                not_ready: not_ready
                    .iter()
                    .map(|(t, reasons)| NotReadyView {
                        id: &t.id,
                        title: &t.title,
                        reasons,
                    })
                    .collect(),
            })?;
        } else {
            cx.ui.json(&ready)?;
        }
        return Ok(ExitStatus::Success);
    }
    let hidden_claims = if args.explain { 0 } else { claimed_count };
    cx.ui.out(&text(&ready, hidden_claims, &not_ready))?;
    Ok(ExitStatus::Success)
}

/// Open tasks that are not ready, each with why.
type Waiting<'t> = Vec<(&'t Task, Vec<NotReady>)>;

/// Tasks ready to claim, in order, where the claims remote agrees: ready here but claimed there,
/// a task is left out, with who holds it.
fn unclaimed<'t>(
    cx: &Cx,
    ws: &Workspace,
    ready: Vec<&'t Task>,
    offline: bool,
) -> Result<(Vec<&'t Task>, Waiting<'t>)> {
    let ids: Vec<&str> = ready.iter().map(|t| t.id.as_str()).collect();
    let Some(remote) = claims::claims_for_ready(ws, &ids, offline, cx.ui)? else {
        return Ok((ready, Vec::new()));
    };
    let at = now();
    let held: BTreeMap<&str, String> = remote
        .claims
        .iter()
        .map(|t| {
            let by = match &t.claim {
                Ok(c) => c.describe(at),
                Err(why) => format!("a claim mneme cannot read ({why})"),
            };
            (t.task.as_str(), by)
        })
        .collect();
    let (free, taken): (Vec<&Task>, Vec<&Task>) = ready
        .into_iter()
        .partition(|t| !held.contains_key(t.id.as_str()));
    let claimed = taken
        .into_iter()
        .map(|t| {
            let by = held[t.id.as_str()].clone();
            let why = NotReady::Claimed {
                remote: remote.remote.clone(),
                by,
            };
            (t, vec![why])
        })
        .collect();
    Ok((free, claimed))
}

/// The ready tasks as a table, how many more the remote's claims hold, and why the others wait.
fn text(ready: &[&Task], claimed: usize, not_ready: &Waiting) -> String {
    let mut out = if ready.is_empty() {
        "No ready tasks.\n".to_owned()
    } else {
        task_table(ready.iter().copied())
    };
    if claimed > 0 {
        let line = format!(
            "{claimed} more claimed on the remote: `mneme claims`, `mneme ready --explain`"
        );
        out.push_str(&format!("{}\n", paint(DIM, line)));
    }
    if !not_ready.is_empty() {
        out.push_str(&format!("\n{}\n", paint(HEADER, "Not ready")));
        for (t, reasons) in not_ready {
            let why = reasons
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ");
            out.push_str(&format!(
                "{} {} {}\n",
                paint(ID, &t.id),
                esc1(&t.title),
                paint(DIM, format!("— {}", esc1(&why)))
            ));
        }
    }
    out
}
