use std::path::PathBuf;

use mneme::model::merge::merge;
use mneme::ops::Notes;
use mneme::store::write_atomic;

use crate::cli::{CliError, Cx, ExitStatus, Result};

/// Merge a fact file three ways by fact id (a git merge driver).
///
/// Git calls it as `mneme merge-file %O %A %B %P` for `.ledger/facts/*.md` once `mneme init`
/// has registered the driver (%P, the file's path in the repository, names it in messages).
/// Additions from both sides are kept, a fact changed on one side takes that change, and only a
/// fact both sides changed differently gets conflict markers; the text around the facts is
/// merged line by line, as `git merge-file` does. The result is written to OURS; the exit code
/// is 1 when conflicts remain.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme merge-file .merge_file_base .merge_file_ours .merge_file_theirs .ledger/facts/pitfalls.md   # what git runs"
)]
pub struct Args {
    /// The common ancestor's version (%O).
    base: PathBuf,
    /// Our version (%A); receives the result.
    ours: PathBuf,
    /// Their version (%B).
    theirs: PathBuf,
    /// The file's path in the repository (%P), for messages; git's temporary names otherwise.
    path: Option<PathBuf>,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let read = |p: &PathBuf| -> Result<String> {
        let bytes = std::fs::read(cx.cwd.join(p)).map_err(|e| CliError::input(p, e))?;
        String::from_utf8(bytes).map_err(|_| CliError::invalid_utf8(&p.display().to_string()))
    };
    let (base, ours, theirs) = (read(&args.base)?, read(&args.ours)?, read(&args.theirs)?);
    let merged = merge(&base, &ours, &theirs);
    write_atomic(&cx.cwd.join(&args.ours), merged.text.as_bytes())?;
    if merged.conflicts == 0 {
        return Ok(ExitStatus::Success);
    }
    let label = args.path.as_ref().unwrap_or(&args.ours);
    cx.ui.warn(&format!(
        "mneme: {} conflicting fact(s) in {}",
        merged.conflicts,
        label.display()
    ));
    Ok(ExitStatus::Failure)
}
