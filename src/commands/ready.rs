use mneme::model::tasks::Board;
use mneme::store::Workspace;
use mneme::Result;
use serde_json::json;

use super::{load_tasks, Cx};
use crate::cli::ui::{self, paint, DIM, HEADER, ID};

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

pub fn run(cx: &Cx, args: &Args) -> Result<()> {
    let ws = Workspace::discover(&cx.cwd)?;
    let tasks = load_tasks(&ws)?;
    let board = Board::new(tasks.iter());
    let mut ready = board.ready();
    let not_ready: Vec<_> = if args.explain {
        tasks
            .iter()
            .filter(|t| t.is_open())
            .filter_map(|t| {
                let reasons = board.not_ready(t);
                (!reasons.is_empty()).then_some((t, reasons))
            })
            .collect()
    } else {
        Vec::new()
    };
    if let Some(n) = args.limit {
        ready.truncate(n);
    }
    if cx.ui.json {
        if args.explain {
            let explained: Vec<_> = not_ready
                .iter()
                .map(|(t, r)| json!({ "id": t.id, "title": t.title, "reasons": r }))
                .collect();
            cx.ui
                .json(&json!({ "ready": ready, "not_ready": explained }));
        } else {
            cx.ui.json(&ready);
        }
        return Ok(());
    }
    let mut out = if ready.is_empty() {
        "No ready tasks.\n".to_owned()
    } else {
        ready.iter().map(|t| ui::task_line(t)).collect()
    };
    if args.explain && !not_ready.is_empty() {
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
                t.title,
                paint(DIM, format!("— {why}"))
            ));
        }
    }
    cx.ui.out(&out);
    Ok(())
}
