use std::collections::BTreeSet;
use std::path::Path;

use mneme::model::lint::{self as check, FileInput, Finding, ProposalInput, Severity};
use mneme::model::time::Timestamp;
use mneme::store::{self, Workspace};
use mneme::{Error, Result};
use serde_json::json;

use super::Cx;
use crate::cli::ui::{paint, DIM, GOOD, WARN};

/// Check the ledger for errors and warnings (exit 1 on any error).
///
/// Errors: fact or proposal files that do not parse, duplicate fact ids, proposals naming a
/// missing file or fact, facts over the line budget, symlinks inside .ledger/. Warnings: facts
/// without ids, duplicate statements, stale facts and proposals, superseded facts without their
/// successor, evidence pointing at files or lines that no longer exist. See docs/check.md.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  mneme check\n  mneme check --fix\n  mneme check --json")]
pub struct Args {
    /// Apply the safe repairs (ids for facts without one, canonical metadata) and report them.
    #[arg(long)]
    fix: bool,
}

pub fn run(cx: &Cx, args: &Args) -> Result<()> {
    let ws = Workspace::discover(&cx.cwd)?;
    ws.check_ledger()?;
    let now = Timestamp::now();
    let _lock = if args.fix { Some(ws.lock()?) } else { None };
    let fixed = if args.fix { fix(&ws, now)? } else { Vec::new() };
    let findings = findings(&ws, now)?;
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = findings.len() - errors;
    if cx.ui.json {
        cx.ui.json(&json!({ "errors": errors, "warnings": warnings, "findings": findings, "fixed": fixed }));
    } else {
        let mut out = String::new();
        for (path, change) in &fixed {
            out.push_str(&format!("{} {path}: {change}\n", paint(GOOD, "fixed")));
        }
        for f in &findings {
            let (label, style) = match f.severity {
                Severity::Error => ("error", crate::cli::ui::ERROR),
                Severity::Warning => ("warning", WARN),
            };
            let place = match f.line {
                Some(line) => format!("{}:{line}", f.path),
                None => f.path.clone(),
            };
            let hint = if f.fixable && !args.fix {
                paint(DIM, " (mneme check --fix)")
            } else {
                String::new()
            };
            out.push_str(&format!(
                "{}{} {place}: {}{hint}\n",
                paint(style, label),
                paint(DIM, format!("[{}]", f.code)),
                f.message
            ));
        }
        out.push_str(&format!("{errors} error(s), {warnings} warning(s)\n"));
        cx.ui.out(&out);
    }
    if errors > 0 {
        return Err(Error::CheckFailed { count: errors });
    }
    Ok(())
}

fn findings(ws: &Workspace, now: Timestamp) -> Result<Vec<Finding>> {
    let files = ws.load_files()?;
    let proposals = ws.load_proposals()?;
    let tasks = ws.load_tasks()?;
    let config = ws.load_config().map_err(|e| e.to_string());
    let symlinks = store::symlinks_under(&ws.ledger_dir())?
        .iter()
        .map(|p| ws.relative(p).display().to_string())
        .collect();
    let input = check::Input {
        files: files
            .iter()
            .map(|(path, entry)| match entry {
                Ok(e) => FileInput::Parsed(e),
                Err(e) => FileInput::Broken {
                    name: path
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned(),
                    line: match e {
                        Error::FactFileParse { line, .. } => *line,
                        _ => 1,
                    },
                    message: match e {
                        Error::FactFileParse { message, .. } => message.clone(),
                        other => other.to_string(),
                    },
                },
            })
            .collect(),
        proposals: proposals
            .iter()
            .map(|p| ProposalInput {
                path: ws.relative(&p.path).display().to_string(),
                raw: p.proposal.as_ref(),
            })
            .collect(),
        config: config.as_ref().map_err(Clone::clone),
        symlinks,
        tasks: &tasks.tasks,
        broken_tasks: tasks
            .broken
            .iter()
            .map(|(p, why)| (ws.relative(p).display().to_string(), why.clone()))
            .collect(),
        now,
    };
    Ok(check::check(&input, |path, line| {
        evidence_exists(ws.root(), path, line)
    }))
}

/// Whether `path` (relative to the work tree, never escaping it) exists with at least `line` lines.
fn evidence_exists(root: &Path, path: &str, line: Option<usize>) -> bool {
    let rel = Path::new(path);
    if rel.is_absolute()
        || rel
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return false;
    }
    match line {
        None => root.join(rel).exists(),
        Some(n) => std::fs::read(root.join(rel))
            .map(|bytes| bytecount_lines(&bytes) >= n)
            .unwrap_or(false),
    }
}

fn bytecount_lines(bytes: &[u8]) -> usize {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}

/// Applies the safe repairs to every parsed fact file; returns `(path, change)` for each.
fn fix(ws: &Workspace, now: Timestamp) -> Result<Vec<(String, String)>> {
    let files = ws.load_files()?;
    let mut taken: BTreeSet<String> = files
        .iter()
        .filter_map(|(_, e)| e.as_ref().ok())
        .flat_map(|e| e.file.facts().filter_map(|f| f.id.clone()))
        .collect();
    taken.extend(
        ws.load_proposals()?
            .into_iter()
            .filter_map(|p| p.proposal.ok())
            .flat_map(|p| {
                p.operations
                    .into_iter()
                    .filter_map(|o| o.new_id().map(str::to_owned))
            }),
    );
    let mut done = Vec::new();
    for (path, entry) in &files {
        let Ok(entry) = entry else { continue };
        if let Some((new, changes)) = check::fix(entry, &mut taken, now) {
            store::write_atomic(path, new.as_bytes())?;
            let rel = ws.relative(path).display().to_string();
            done.extend(changes.into_iter().map(|c| (rel.clone(), c)));
        }
    }
    Ok(done)
}
