use mneme::model::paths;
use mneme::model::views::{Context, FactView, TaskLine};
use mneme::ops::context::context;

use crate::cli::ui::{esc, esc1, paint, DIM, HEADER, ID, WARN};
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
    let mut out = String::new();
    let line = |out: &mut String, style, text: String| {
        out.push_str(&paint(style, text));
        out.push('\n');
    };
    line(
        &mut out,
        HEADER,
        format!(
            "# Project facts ({facts}) — verified by humans; they outrank conversation history"
        ),
    );
    line(
        &mut out,
        DIM,
        format!(
            "Cite facts by id. Never edit {}/; change them with `mneme propose`.",
            paths::FACTS
        ),
    );
    for file in c.files.iter().filter(|f| !f.facts.is_empty()) {
        line(
            &mut out,
            HEADER,
            format!("\n## {} ({})", esc1(&file.title), esc1(&file.name)),
        );
        for fact in &file.facts {
            out.push_str(&fact_line(fact));
        }
    }
    for name in &c.unresolved {
        let text = format!(
            "\n{} has an unresolved merge conflict; its facts are not shown until it is resolved (see `mneme check`)",
            esc1(&paths::fact_file(name))
        );
        line(&mut out, WARN, text);
    }
    if facts == 0 {
        out.push_str("\nNo facts yet.\n");
    }
    let p = &c.proposals;
    line(
        &mut out,
        HEADER,
        format!(
            "\n## Pending proposals ({}) — not facts until a human approves them",
            p.count
        ),
    );
    for item in &p.items {
        let agent = item.agent.as_deref().unwrap_or("unknown agent");
        out.push_str(&format!(
            "- {} {} {}\n",
            paint(ID, &item.id),
            paint(DIM, format!("[{}, {}]", esc1(agent), item.age)),
            esc1(&item.operations.join("; "))
        ));
    }
    if p.invalid > 0 {
        let text = format!(
            "{} proposal file(s) do not parse; run `mneme check`",
            p.invalid
        );
        line(&mut out, WARN, text);
    }
    let t = &c.tasks;
    if t.open > 0 {
        let heading = format!(
            "\n## Tasks ({} open, {} in progress, {} ready)",
            t.open,
            t.in_progress.len(),
            t.ready_total
        );
        line(&mut out, HEADER, heading);
        for task in &t.in_progress {
            out.push_str(&task_line("in progress", task));
        }
        for task in &t.ready {
            out.push_str(&task_line("ready", task));
        }
        if t.ready_total > t.ready.len() {
            line(&mut out, DIM, "  … `mneme ready` lists the rest".into());
        }
    }
    let b = &c.budget;
    let mut tail = format!("\nBudget: {}/{} lines", b.used, b.limit);
    if c.superseded > 0 {
        tail.push_str(&format!(" · {} superseded fact(s) not shown", c.superseded));
    }
    line(&mut out, if b.over { WARN } else { DIM }, tail);
    if c.facts_without_id > 0 {
        let text = format!(
            "{} fact(s) have no id yet; `mneme check --fix` gives them one",
            c.facts_without_id
        );
        line(&mut out, WARN, text);
    }
    out
}

/// `- f-7f3cq Statement` with continuation lines indented under it.
pub fn fact_line(fact: &FactView) -> String {
    let id = match &fact.id {
        Some(id) => paint(ID, id),
        None => paint(WARN, format!("(no id, line {})", fact.line)),
    };
    let text = esc(&fact.text);
    let mut lines = text.lines();
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
        esc1(&t.title),
        paint(DIM, format!("[{label}, P{}{who}]", t.priority))
    )
}
