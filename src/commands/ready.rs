use mneme::model::tasks::{Board, NotReady, Task};
use mneme::model::views::{NotReadyView, ReadyExplained};
use mneme::ops::tasks;

use crate::cli::ui::{esc1, paint, task_table, DIM, HEADER, ID};
use crate::cli::{Cx, ExitStatus, Result};

/// List tasks ready to work on: open, nothing unclosed blocking them, no blocked or deferred
/// ancestor; most urgent first, then oldest.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme ready\n  mneme ready -n 3 --json\n  mneme ready --explain"
)]
pub struct Args {
    /// At most this many.
    #[arg(short = 'n', long, value_name = "N")]
    limit: Option<usize>,
    /// Also say why each other open task is not ready.
    #[arg(long)]
    explain: bool,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let tasks = tasks::load(&ws, cx.ui)?;
    let board = Board::new(tasks.iter());
    let mut ready = board.ready();
    if let Some(n) = args.limit {
        ready.truncate(n);
    }
    let not_ready: Vec<(&Task, Vec<NotReady>)> = if args.explain {
        tasks
            .iter()
            .filter(|t| t.is_open())
            .map(|t| (t, board.not_ready(t)))
            .filter(|(_, reasons)| !reasons.is_empty())
            .collect()
    } else {
        Vec::new()
    };
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
