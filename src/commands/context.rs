use mneme::model::paths;
use mneme::model::views::{Context, FactView, TaskLine};
use mneme::ops::context::context;

use crate::cli::ui::{paint, DIM, HEADER, ID, WARN};
use crate::cli::{Cx, ExitStatus, Result};

/// Print what an agent must know at session start.
///
/// Every active fact, grouped by file, with its id; the pending proposals (not yet facts); and
/// how much of the line budget the facts use. Facts outrank conversation history.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme context\n  mneme context --json | jq '.files[].facts[].id'"
)]
pub struct Args {}

pub fn run(cx: &Cx, _args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let context = context(&ws, cx.ui)?;
    if cx.ui.json {
        cx.ui.json(&context)?;
    } else {
        cx.ui.out(&render(&context))?;
    }
    Ok(ExitStatus::Success)
}

fn render(c: &Context) -> String {
    let facts: usize = c.files.iter().map(|f| f.facts.len()).sum();
    let mut out = format!(
        "{}\n{}\n",
        paint(
            HEADER,
            format!(
                "# Project facts ({facts}) — verified by humans; they outrank conversation history"
            )
        ),
        paint(
            DIM,
            format!(
                "Cite facts by id. Never edit {}/; change them with `mneme propose`.",
                paths::FACTS
            )
        ),
    );
    for file in &c.files {
        if file.facts.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "\n{}\n",
            paint(HEADER, format!("## {} ({})", file.title, file.name))
        ));
        for fact in &file.facts {
            out.push_str(&fact_line(fact));
        }
    }
    if facts == 0 {
        out.push_str("\nNo facts yet.\n");
    }
    let p = &c.proposals;
    out.push_str(&format!(
        "\n{}\n",
        paint(
            HEADER,
            format!(
                "## Pending proposals ({}) — not facts until a human approves them",
                p.count
            )
        )
    ));
    for item in &p.items {
        let agent = item.agent.as_deref().unwrap_or("unknown agent");
        out.push_str(&format!(
            "- {} {} {}\n",
            paint(ID, &item.id),
            paint(DIM, format!("[{agent}, {}]", item.age)),
            item.operations.join("; ")
        ));
    }
    if p.invalid > 0 {
        out.push_str(&format!(
            "{}\n",
            paint(
                WARN,
                format!(
                    "{} proposal file(s) do not parse; run `mneme check`",
                    p.invalid
                )
            )
        ));
    }
    let t = &c.tasks;
    if t.open > 0 {
        out.push_str(&format!(
            "\n{}\n",
            paint(
                HEADER,
                format!(
                    "## Tasks ({} open, {} in progress, {} ready)",
                    t.open,
                    t.in_progress.len(),
                    t.ready_total
                )
            )
        ));
        for line in &t.in_progress {
            out.push_str(&task_line("in progress", line));
        }
        for line in &t.ready {
            out.push_str(&task_line("ready", line));
        }
        if t.ready_total > t.ready.len() {
            out.push_str(&paint(DIM, "  … `mneme ready` lists the rest\n"));
        }
    }
    let b = &c.budget;
    let mut tail = format!("\nBudget: {}/{} lines", b.used, b.limit);
    if c.superseded > 0 {
        tail.push_str(&format!(" · {} superseded fact(s) not shown", c.superseded));
    }
    out.push_str(&paint(if b.over { WARN } else { DIM }, tail));
    out.push('\n');
    if c.facts_without_id > 0 {
        out.push_str(&format!(
            "{}\n",
            paint(
                WARN,
                format!(
                    "{} fact(s) have no id yet; `mneme check --fix` gives them one",
                    c.facts_without_id
                )
            )
        ));
    }
    out
}

/// `- f-7f3cq Statement` with continuation lines indented under it.
pub fn fact_line(fact: &FactView) -> String {
    let id = match &fact.id {
        Some(id) => paint(ID, id),
        None => paint(WARN, format!("(no id, line {})", fact.line)),
    };
    let mut lines = fact.text.lines();
    let mut out = format!("- {id} {}\n", lines.next().unwrap_or(""));
    for l in lines {
        if l.trim().is_empty() {
            out.push('\n');
        } else {
            out.push_str(&format!("  {l}\n"));
        }
    }
    out
}

fn task_line(label: &str, t: &TaskLine) -> String {
    let who = t
        .assignee
        .as_deref()
        .map(|a| format!(", {a}"))
        .unwrap_or_default();
    format!(
        "- {} {} {}\n",
        paint(ID, &t.id),
        t.title,
        paint(DIM, format!("[{label}, P{}{who}]", t.priority))
    )
}
