use std::ffi::OsString;

use mneme::model::views::{FactView, TaskView};
use mneme::ops::show::{show, Shown};

use crate::cli::ui::{self, esc, esc1, paint, DIM, HEADER, ID};
use crate::cli::{utf8, Cx, ExitStatus, Result};

/// Show one fact (`f-…`) or one task (`t-…`, or a unique prefix).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme show f-7f3cq\n  mneme show t-a3f8 --json\n  mneme show a3f"
)]
pub struct Args {
    /// Id of a fact or a task.
    id: OsString,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let id = utf8("the id", &args.id)?;
    match show(&ws, cx.ui, &id)? {
        Shown::Fact(view) => show_fact(cx, id.trim(), *view),
        Shown::Task(view) => {
            if cx.ui.json {
                cx.ui.json(&view)?;
            } else {
                cx.ui.out(&task_detail(&view))?;
            }
            Ok(ExitStatus::Success)
        }
    }
}

fn show_fact(cx: &Cx, id: &str, view: FactView) -> Result<ExitStatus> {
    if cx.ui.json {
        cx.ui.json(&view)?;
        return Ok(ExitStatus::Success);
    }
    let mut out = format!("{} {}\n", paint(ID, id), ui::fact_place(&view));
    for (label, value) in [
        ("since", view.since.clone()),
        ("verified", view.verified.clone()),
        (
            "evidence",
            (!view.evidence.is_empty()).then(|| view.evidence.join(" ")),
        ),
    ] {
        if let Some(value) = value {
            out.push_str(&format!(
                "{}\n",
                paint(DIM, format!("{label}: {}", esc1(&value)))
            ));
        }
    }
    out.push_str(&ui::fact_relations(&view));
    out.push('\n');
    out.push_str(&esc(&view.text));
    out.push('\n');
    cx.ui.out(&out)?;
    Ok(ExitStatus::Success)
}

fn task_detail(view: &TaskView) -> String {
    let t = &view.task;
    let mut out = ui::task_line(t);
    let mut field = |label: &str, value: String| {
        out.push_str(&format!(
            "  {} {}\n",
            paint(DIM, format!("{label:<9}")),
            esc1(&value)
        ));
    };
    if !t.labels.is_empty() {
        field("labels:", t.labels.join(", "));
    }
    for d in &t.deps {
        field("depends:", format!("{} ({})", d.id, d.kind.as_str()));
    }
    if !t.facts.is_empty() {
        field("cites:", t.facts.join(" "));
    }
    if !view.cited_by_facts.is_empty() {
        field("cited by:", view.cited_by_facts.join(" "));
    }
    field("created:", t.created_at.clone());
    field("updated:", t.updated_at.clone());
    if let (Some(at), Some(reason)) = (&t.closed_at, &t.close_reason) {
        field("closed:", format!("{at} — {reason}"));
    }
    if !t.description.is_empty() {
        out.push_str(&format!("\n{}\n", esc(&t.description)));
    }
    if !t.notes.is_empty() {
        out.push_str(&format!("\n{}\n", paint(HEADER, "Notes")));
        for n in &t.notes {
            out.push_str(&format!(
                "- {} {}\n",
                paint(DIM, format!("{} {}:", esc1(&n.at), esc1(&n.author))),
                esc(&n.text)
            ));
        }
    }
    out
}
