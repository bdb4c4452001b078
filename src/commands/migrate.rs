use mneme::model::base::paths;
use mneme::ops::records::migrate;

use crate::cli::ui::{esc, paint, DIM, GOOD};
use crate::cli::{Cx, ExitStatus, Result};

/// Convert the review decisions in git history into decision records, once per ledger.
///
/// Every decision mneme makes now also writes a record in `.ledger/decisions/`, committed with
/// it: the proof of the approval that survives a squash merge, a rebase merge or a cherry-pick.
/// A ledger whose decisions were made before records existed gets one record per decision in
/// the history of HEAD (an approval's record holds the facts its commit changed). The files are
/// left in the work tree: review and commit them. From then on `mneme verify` checks the facts
/// against the records. Decisions that already have a record are skipped: safe to re-run.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme migrate\n  git add .ledger/decisions && git commit -m 'ledger: decision records'\n  mneme migrate --json"
)]
pub struct Args {}

pub fn run(cx: &Cx, _args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let m = migrate(&ws)?;
    if cx.ui.json {
        cx.ui.json(&m)?;
        return Ok(ExitStatus::Success);
    }
    let mut out = String::new();
    for file in &m.written {
        out.push_str(&format!("{} {}\n", paint(GOOD, "  created"), esc(file)));
    }
    out.push_str(&format!(
        "{} record(s) written, {} decision(s) already recorded, {} without a proposal id skipped\n",
        m.written.len(),
        m.already,
        m.skipped
    ));
    if !m.written.is_empty() {
        out.push_str(&paint(
            DIM,
            format!(
                "Next: commit {}/; `mneme verify` then checks the facts against the records.\n",
                paths::DECISIONS
            ),
        ));
    }
    cx.ui.out(&out)?;
    Ok(ExitStatus::Success)
}
