use std::ffi::OsString;

use mneme::store::Workspace;
use mneme::views::FactView;
use mneme::Result;

use super::{utf8, Cx};
use crate::ui::{paint, DIM, ID};

/// Show one fact: its text, file, line, state and metadata.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  mneme show f-7f3cq\n  mneme show f-7f3cq --json")]
pub struct Args {
    /// Id of the fact, such as `f-7f3cq`.
    id: OsString,
}

pub fn run(cx: &Cx, args: &Args) -> Result<()> {
    let ws = Workspace::discover(&cx.cwd)?;
    let ledger = ws.load()?;
    let id = utf8("the id", &args.id)?;
    let (file, fact) = ledger.get(id.trim())?;
    let view = FactView::new(file, fact);
    if cx.ui.json {
        cx.ui.json(&view);
        return Ok(());
    }
    let mut out = format!(
        "{} {}\n",
        paint(ID, &id),
        paint(DIM, format!("{}:{} · {}", view.file, view.line, view.state))
    );
    for (label, value) in [
        ("superseded by", view.superseded_by.clone()),
        ("since", view.since.clone()),
        ("verified", view.verified.clone()),
        (
            "evidence",
            (!view.evidence.is_empty()).then(|| view.evidence.join(" ")),
        ),
    ] {
        if let Some(value) = value {
            out.push_str(&format!("{}\n", paint(DIM, format!("{label}: {value}"))));
        }
    }
    out.push('\n');
    out.push_str(&view.text);
    out.push('\n');
    cx.ui.out(&out);
    Ok(())
}
