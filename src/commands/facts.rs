use std::ffi::OsString;

use mneme::model::views::FileView;
use mneme::ops::{now, standings};

use crate::cli::ui::{esc1, paint, DIM, HEADER, ID, WARN};
use crate::cli::{utf8, Cx, ExitStatus, Result};

/// List facts, all of them or those of one file, superseded ones included.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme facts\n  mneme facts pitfalls\n  mneme facts architecture --json"
)]
pub struct Args {
    /// Only this fact file, such as `architecture`.
    file: Option<OsString>,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let ledger = ws.store.load()?;
    let only = args
        .file
        .as_ref()
        .map(|name| utf8("the file name", name))
        .transpose()?;
    let files = FileView::select(&ledger, only.as_deref(), &standings(&ws, &ledger, now())?)?;
    if cx.ui.json {
        cx.ui.json(&files)?;
        return Ok(ExitStatus::Success);
    }
    let mut out = String::new();
    for file in &files {
        out.push_str(&format!(
            "{} {}\n",
            paint(
                HEADER,
                format!("{} ({})", esc1(&file.title), esc1(&file.path))
            ),
            paint(
                DIM,
                format!("{} fact(s), {} lines", file.facts.len(), file.lines)
            )
        ));
        for fact in &file.facts {
            let id = match &fact.id {
                Some(id) => paint(ID, id),
                None => paint(WARN, "(no id)"),
            };
            let mut tags = format!("line {}", fact.line);
            if let Some(note) = fact.standing_note() {
                tags.push_str(&format!(", {}", esc1(&note)));
            }
            let text =
                esc1(&fact.text.split_whitespace().collect::<Vec<_>>().join(" ")).into_owned();
            out.push_str(&format!(
                "  {id} {text} {}\n",
                paint(DIM, format!("({tags})"))
            ));
        }
    }
    cx.ui.out(&out)?;
    Ok(ExitStatus::Success)
}
