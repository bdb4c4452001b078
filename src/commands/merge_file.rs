use std::path::PathBuf;

use mneme::model::base::paths;
use mneme::model::merge::fact_file::merge;
use mneme::model::tasks::merge::{merge_task_files, merged_text};
use mneme::ops::{rules, Notes};
use mneme::store::file::{read_capped, Kind};
use mneme::store::{write_atomic, Durability};

use crate::cli::error::Code;
use crate::cli::{CliError, Cx, ExitStatus, Result};

/// Merge a fact file three ways by fact id, a task file by field, or a compiled rule file by
/// compiling the merged ledger (a git merge driver).
///
/// Git calls it as `mneme merge-file %O %A %B %P %S %Y` for `.ledger/facts/*.md`,
/// `.ledger/tasks/*.json` and the compiled rule files once `mneme init` has registered the
/// driver (%P, the file's path in the repository, says which kind of file it is and names it in
/// messages; %S and %Y name the commits of the base and their side).
///
/// Compiled rule files (`.github/instructions/mneme-facts*` and the like): the fact files,
/// config and decision records of the three commits are merged, and the file is what that ledger
/// compiles to there. Where it cannot be told (the facts in conflict), our side stays and git
/// holds the file in conflict; `mneme check --fix` writes it once the facts are merged.
///
/// Fact files: additions from both sides are kept, a fact changed on one side takes that change,
/// and only a fact both sides changed differently gets conflict markers; the text around the
/// facts is merged line by line, as `git merge-file` does.
///
/// Task files: notes from both sides are kept, a field changed on one side takes that change,
/// and a field both sides changed differently keeps the side updated last, with a note on the
/// task that names the value set aside. A side that does not parse leaves the whole file in
/// conflict.
///
/// The result is written to OURS; the exit code is 1 when conflicts remain. A side, or the
/// merge, larger than mneme reads of such a file (docs/format.md) is not merged: OURS is left
/// as it was and git reports the file in conflict.
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
    /// The base's label (%S): for a compiled rule file, which commit the base is.
    base_label: Option<String>,
    /// Their label (%Y): for a compiled rule file, which commit their side is.
    theirs_label: Option<String>,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    if let Some(path) = args
        .path
        .as_ref()
        .and_then(|p| p.to_str())
        .filter(|p| paths::is_rule_file(p))
    {
        return rule_file(cx, args, path);
    }
    let label = args.path.as_ref().unwrap_or(&args.ours);
    let named_task = args
        .path
        .as_ref()
        .is_some_and(|p| p.starts_with(paths::TASKS) && p.extension().is_some_and(|e| e == "json"));
    // Both kinds have one limit, so a driver given no %P reads within it before it knows which.
    let kind = if named_task {
        Kind::Task
    } else {
        Kind::FactFile
    };
    let read = |side: &str, p: &PathBuf| -> Result<String> {
        let bytes = read_capped(&cx.cwd.join(p), kind.limit()).map_err(|e| {
            if e.kind() == std::io::ErrorKind::FileTooLarge {
                too_large(label, kind, &format!("{side} side is"))
            } else {
                CliError::input(p, e)
            }
        })?;
        String::from_utf8(bytes).map_err(|_| CliError::invalid_utf8(&p.display().to_string()))
    };
    let (base, ours, theirs) = (
        read("the base", &args.base)?,
        read("our", &args.ours)?,
        read("their", &args.theirs)?,
    );
    // Without %P (a driver registered before it was passed) a task file is known by its text.
    let is_task = named_task || (args.path.is_none() && ours.trim_start().starts_with('{'));
    let (merged, what) = if is_task {
        let merge = merge_task_files(&base, &ours, &theirs);
        for s in merge.iter().flat_map(|m| &m.settled) {
            cx.ui.warn(&format!(
                "mneme: {}: both sides changed {}; kept {}, set aside {} (noted on the task)",
                label.display(),
                s.field,
                s.kept,
                s.dropped
            ));
        }
        (merged_text(merge.as_ref(), &ours, &theirs), "task file(s)")
    } else {
        (merge(&base, &ours, &theirs), "fact(s)")
    };
    if merged.text.len() as u64 > kind.limit() {
        return Err(too_large(label, kind, "the merge would be"));
    }
    write_atomic(
        &cx.cwd.join(&args.ours),
        merged.text.as_bytes(),
        Durability::Synced,
    )?;
    if merged.conflicts == 0 {
        return Ok(ExitStatus::Success);
    }
    cx.ui.warn(&format!(
        "mneme: {} conflicting {what} in {}",
        merged.conflicts,
        label.display()
    ));
    Ok(ExitStatus::Failure)
}

/// A compiled rule file: what the merged ledger compiles to there, never either side's text;
/// where that cannot be told, our side is left and git holds the file in conflict.
fn rule_file(cx: &Cx, args: &Args, path: &str) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let read = |p: &PathBuf| -> Result<String> {
        let bytes = read_capped(&cx.cwd.join(p), Kind::Instructions.limit())
            .map_err(|e| CliError::input(p, e))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    };
    let texts = [read(&args.base)?, read(&args.ours)?, read(&args.theirs)?];
    let merged = rules::merged(
        &ws.repo,
        path,
        [&texts[0], &texts[1], &texts[2]],
        [args.base_label.as_deref(), args.theirs_label.as_deref()],
    )?;
    match merged {
        Some(text) => {
            write_atomic(
                &cx.cwd.join(&args.ours),
                text.as_bytes(),
                Durability::Synced,
            )?;
            Ok(ExitStatus::Success)
        }
        None => {
            cx.ui.warn(&format!(
                "mneme: {path} is compiled from the ledger, and what the merged ledger compiles to there cannot be told yet: resolve the facts, then run `mneme check --fix` and add the file"
            ));
            Ok(ExitStatus::Failure)
        }
    }
}

/// A merge refused for size: git then leaves the file in conflict with our side's text.
fn too_large(label: &std::path::Path, kind: Kind, what: &str) -> CliError {
    CliError::new(
        Code::FileTooLarge,
        format!(
            "{}: {what} larger than {} bytes, the most mneme reads of a {}; not merged, \
             so git leaves the file in conflict as our side had it",
            label.display(),
            kind.limit(),
            kind.name()
        ),
    )
    .with_hint("split the facts over more files, or resolve the conflict by hand")
}
