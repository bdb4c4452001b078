use mneme::model::base::text::operations_in_brief;
use mneme::model::provenance::decision::{mark_in_effect, Recorded, Verdict};
use mneme::ops::records::decisions_with_records;

use crate::cli::ui::{day, esc1, old_new, paint, short, DIM, ID, WARN};
use crate::cli::{Cx, ExitStatus, Result};

/// Show the review decisions in git history, newest first.
///
/// Every approval and rejection mneme recorded: date, decision, the facts touched, who proposed
/// and who decided, and the commit. Give a fact id to see only the decisions that touched it.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme log\n  mneme log f-7f3c -p      # with each fact's old and new text\n  mneme log -n 5 --json"
)]
pub struct Args {
    /// Only decisions that touched this fact.
    fact_id: Option<String>,
    /// At most this many decisions.
    #[arg(short = 'n', long, value_name = "N")]
    max_count: Option<usize>,
    /// Show what each approval did to each fact's text (old → new), and what the agent proposed
    /// where the commit does not show it.
    #[arg(short = 'p', long)]
    patch: bool,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    // A fact's history says which approvals its text descends from: that needs their texts.
    let mut decisions = decisions_with_records(
        &ws,
        args.fact_id.as_deref(),
        args.max_count,
        args.patch || args.fact_id.is_some(),
    )?;
    if let Some(id) = args.fact_id.as_deref() {
        let ledger = ws.store.load()?;
        let current = ledger.find(id).map(|(_, fact)| fact.text.as_str());
        mark_in_effect(id, current, &mut decisions);
        if !args.patch {
            decisions.iter_mut().for_each(|r| r.changes.clear());
        }
    }
    if cx.ui.json {
        cx.ui.json(&decisions)?;
    } else if decisions.is_empty() {
        cx.ui.out("No decisions recorded yet.\n")?;
    } else {
        let text: String = decisions
            .iter()
            .map(|r| {
                let texts = if args.patch { texts(r) } else { String::new() };
                format!("{}{}{texts}", line(r, None), forge_line(r, "    "))
            })
            .collect();
        cx.ui.out(&text)?;
    }
    Ok(ExitStatus::Success)
}

/// What a decision did to each fact's text (`- old`, `+ new`), and what the agent proposed
/// where that is not what was committed (a rejection, an edited approval).
pub fn texts(r: &Recorded) -> String {
    let mut out = String::new();
    for c in &r.changes {
        out.push_str(&format!("    {}\n", paint(ID, esc1(&c.fact))));
        out.push_str(&old_new("      ", c.old.as_deref(), c.new.as_deref()));
    }
    let label = match r.verdict {
        Verdict::Approve => "the agent proposed",
        Verdict::Reject => "proposed",
    };
    for t in &r.proposed_texts {
        out.push_str(&format!(
            "    {} {}\n",
            paint(DIM, format!("{label} {}:", esc1(&t.fact_id))),
            esc1(&mneme::model::base::text::one_line(&t.text))
        ));
    }
    out
}

/// `approved on GitHub by @grace (<comment URL>)` on a line of its own, for a decision made on
/// the forge; empty otherwise.
pub fn forge_line(r: &Recorded, indent: &str) -> String {
    r.forge.as_ref().map_or_else(String::new, |f| {
        format!("{indent}{}\n", paint(DIM, esc1(&f.describe(r.verdict))))
    })
}

/// `2026-11-22 a1b2c3d4e5 approve add f-7f3c (claude → Grace <g@x>) edited rebased`: the
/// operations in brief, those that touch `focus` (the fact `why` explains) first.
pub fn line(r: &Recorded, focus: Option<&str>) -> String {
    let mut ops: Vec<_> = r.operations.iter().collect();
    if let Some(id) = focus {
        ops.sort_by_key(|o| !o.fact_ids.iter().any(|f| f == id));
    }
    let ops: Vec<String> = ops
        .iter()
        .map(|o| format!("{} {}", o.op.as_str(), o.fact_ids.join(" → ")))
        .collect();
    let mut flags = String::new();
    if !r.dropped.is_empty() {
        let approved = format!(
            "approved {} of {} operations",
            r.operations.len(),
            r.operations.len() + r.dropped.len()
        );
        flags.push_str(&format!(" {}", paint(WARN, approved)));
    }
    if r.texts_edited() {
        flags.push_str(&format!(" {}", paint(WARN, "edited by the reviewer")));
    }
    if r.rebased {
        flags.push_str(&format!(" {}", paint(DIM, "rebased")));
    }
    if r.in_effect == Some(false) {
        flags.push_str(&format!(
            " {}",
            paint(
                WARN,
                "not in effect: a merge kept another version, or the fact changed outside review"
            )
        ));
    }
    format!(
        "{} {} {:<7} {} {}{flags}\n",
        paint(DIM, day(&r.date)),
        paint(
            ID,
            r.record
                .as_ref()
                .map_or_else(|| short(&r.commit), |_| "record")
        ),
        r.verdict.as_str(),
        esc1(&operations_in_brief(&ops)),
        paint(
            DIM,
            format!(
                "({} → {})",
                esc1(r.proposed_by.as_deref().unwrap_or("unknown")),
                esc1(r.reviewer_name().as_deref().unwrap_or("unknown"))
            )
        )
    )
}
