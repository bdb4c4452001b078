use mneme::model::provenance::decision::mark_in_effect;
use mneme::model::views::{FactView, Why};
use mneme::ops::records::decisions_with_records;
use mneme::ops::show::citing_tasks;
use mneme::ops::{now, standings};

use crate::cli::ui::{esc, esc1, fact_place, fact_relations, paint, DIM, HEADER, ID, WARN};
use crate::cli::{Cx, ExitStatus, Result};

/// Explain a fact: its text and every decision that shaped it, with reasons and evidence.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  mneme why f-7f3c\n  mneme why f-7f3c --json")]
pub struct Args {
    /// Id of the fact (it may have been removed since).
    fact_id: String,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let ledger = ws.store.load()?;
    let id = args.fact_id.trim();
    let shown = esc1(id);
    let standings = standings(&ws, &ledger, now())?;
    let mut fact = ledger
        .find(id)
        .map(|(file, fact)| FactView::new(file, fact, &standings));
    if let Some(view) = fact.as_mut() {
        view.cited_by_tasks = citing_tasks(&ws, cx.ui, id)?;
    }
    let mut decisions = decisions_with_records(&ws, Some(id), None, true)?;
    mark_in_effect(id, fact.as_ref().map(|f| f.text.as_str()), &mut decisions);
    if fact.is_none() && decisions.is_empty() {
        // Neither in the ledger nor in history: report it as unknown, listing the known ids.
        ledger.get(id)?;
    }
    if cx.ui.json {
        cx.ui.json(&Why {
            fact,
            decisions: &decisions,
        })?;
        return Ok(ExitStatus::Success);
    }
    let mut out = match &fact {
        Some(f) => format!(
            "{} {}\n{}{}\n",
            paint(ID, &shown),
            fact_place(f),
            fact_relations(f),
            esc(&f.text)
        ),
        None => format!(
            "{} {}\n",
            paint(ID, &shown),
            paint(WARN, "is no longer in the ledger")
        ),
    };
    if decisions.is_empty() {
        out.push_str(&format!(
            "\n{}\n",
            paint(
                WARN,
                "No recorded decision touched this fact (it was written by hand)."
            )
        ));
    }
    for r in &decisions {
        out.push_str(&format!(
            "\n{}",
            paint(HEADER, super::log::line(r, Some(id)))
        ));
        out.push_str(&super::log::texts(r));
        out.push_str(&format!(
            "  {} {}\n",
            paint(DIM, "proposal:"),
            esc1(&r.proposal)
        ));
        out.push_str(&super::log::forge_line(r, "  "));
        if let Some(record) = &r.record {
            out.push_str(&format!(
                "  {} {} {}\n",
                paint(DIM, "decision record:"),
                esc1(record),
                paint(
                    DIM,
                    "(a merge rewrote its decision commit; its reason and evidence were there)"
                )
            ));
        }
        for line in esc(&r.reason).lines() {
            out.push_str(&format!("  {line}\n"));
        }
        if !r.evidence.is_empty() {
            out.push_str(&format!(
                "  {} {}\n",
                paint(DIM, "evidence:"),
                esc1(&r.evidence.join(", "))
            ));
        }
    }
    cx.ui.out(&out)?;
    Ok(ExitStatus::Success)
}
