use std::collections::BTreeMap;

use mneme::model::tasks::task::{Board, NotReady, Task};
use mneme::model::views::{NotReadyView, ReadyExplained};
use mneme::ops::{claims, now, tasks};

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
    let mut ready = board.ready();
    // Ready here, but claimed on the claims remote: left out, each with who holds it.
    let mut claimed: Vec<(&Task, Vec<NotReady>)> = Vec::new();
    let ids: Vec<&str> = ready.iter().map(|t| t.id.as_str()).collect();
    if let Some(remote) = claims::claims_for_ready(&ws, &ids, args.offline, cx.ui)? {
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
        ready = free;
        claimed = taken
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
    }
    if let Some(n) = args.limit {
        ready.truncate(n);
    }
    let mut not_ready: Vec<(&Task, Vec<NotReady>)> = if args.explain {
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
    let mut out = if ready.is_empty() {
        "No ready tasks.\n".to_owned()
    } else {
        task_table(ready.iter().copied())
    };
    if claimed_count > 0 && !args.explain {
        let line = format!(
            "{claimed_count} more claimed on the remote: `mneme claims`, `mneme ready --explain`"
        );
        out.push_str(&format!("{}\n", paint(DIM, line)));
    }
    if !not_ready.is_empty() {
        out.push_str(&format!("\n{}\n", paint(HEADER, "Not ready")));
        for (t, reasons) in &not_ready {
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
    cx.ui.out(&out)?;
    Ok(ExitStatus::Success)
}
