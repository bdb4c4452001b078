use mneme::model::base::code_quality::{report as code_quality, Issue};
use mneme::model::lint::Severity;
use mneme::ops::check::{check, Report};

use crate::cli::ui::{esc1, paint, DIM, ERROR, GOOD, WARN};
use crate::cli::{Cx, ExitStatus, Result};

/// Check the ledger for errors and warnings (exit 1 on any error).
///
/// Errors: fact or proposal files that do not parse, duplicate fact ids, proposals naming a
/// missing file or fact, facts over the line budget, symlinks inside .ledger/. Warnings: facts
/// without ids, duplicate statements, stale facts and proposals, superseded facts without their
/// successor, evidence pointing at files or lines that no longer exist, cited code that changed
/// in commits since the fact was approved or verified (as `mneme stale` lists it). See
/// docs/check.md.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme check\n  mneme check --fix\n  mneme check --json\n  mneme check --code-quality mneme-check.json   # in a GitLab job"
)]
pub struct Args {
    /// Apply the safe repairs (ids for facts without one, canonical metadata) and report them.
    #[arg(long)]
    fix: bool,
    /// Also write the findings as a GitLab Code Quality report to FILE (`[]` when none).
    #[arg(long, value_name = "FILE")]
    code_quality: Option<std::path::PathBuf>,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let report = check(&ws, args.fix)?;
    if let Some(path) = &args.code_quality {
        let issues: Vec<Issue> = report
            .findings
            .iter()
            .map(|f| Issue {
                check: format!("mneme check: {}", f.code.as_str()),
                description: esc1(&f.message).into_owned(),
                path: f.path.clone(),
                line: f.line,
                fails: f.severity == Severity::Error,
            })
            .collect();
        super::verify::write_report(path, &code_quality(&issues))?;
    }
    if cx.ui.json {
        cx.ui.json(&report)?;
    } else {
        cx.ui.out(&render(&report, args.fix))?;
    }
    Ok(if report.errors > 0 {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

fn render(report: &Report, fixing: bool) -> String {
    let mut out = String::new();
    for (path, change) in &report.fixed {
        out.push_str(&format!("{} {path}: {change}\n", paint(GOOD, "fixed")));
    }
    for f in &report.findings {
        let (label, style) = match f.severity {
            Severity::Error => ("error", ERROR),
            Severity::Warning => ("warning", WARN),
        };
        let path = esc1(&f.path);
        let place = match f.line {
            Some(line) => format!("{path}:{line}"),
            None => path.into_owned(),
        };
        let hint = if f.fixable && !fixing {
            paint(DIM, " (mneme check --fix)")
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{}{} {place}: {}{hint}\n",
            paint(style, label),
            paint(DIM, format!("[{}]", f.code.as_str())),
            esc1(&f.message)
        ));
    }
    out.push_str(&format!(
        "{} error(s), {} warning(s)\n",
        report.errors, report.warnings
    ));
    out
}
