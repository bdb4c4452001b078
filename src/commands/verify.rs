use mneme::model::base::code_quality;
use mneme::model::base::ids::sha256_hex;
use mneme::model::base::paths;
use mneme::model::base::text::first_chars;
use mneme::model::provenance::annotations::{annotations, code_quality as issues, github};
use mneme::model::provenance::audit::Violation;
use mneme::ops::audit::{verify, Verification};

use crate::cli::ui::{esc1, paint, short, DIM, GOOD, ID, WARN};
use crate::cli::{Cx, ExitStatus, Result};

/// Verify that every change to the facts in a range was approved through mneme (for CI).
///
/// Every commit in the range that changes `.ledger/facts/` must be a mneme approval commit, and
/// its change must be exactly what its trailers (and the proposal file it removed) describe. Any
/// other edit — an agent editing the Markdown directly — is reported with commit, author, files
/// and fact ids, and the exit code is 1. Merge commits may only combine what their parents had.
/// When `.ledger/allowed_signers` exists (git's ssh allowed_signers format), every decision
/// commit must also carry a good SSH signature by a key listed there for its committer; the
/// file is read from the range's merge-base, so a range cannot allow its own keys.
/// The facts whose cited files the range changed after they were last approved or verified are
/// listed to re-check; they do not fail the verification.
///
/// A ledger that keeps decision records (`.ledger/decisions/`, written by every decision; older
/// ledgers: `mneme migrate`) is checked by its state: replaying the records must give exactly
/// the facts at the range's head (every fact as its latest approval left it, no approved fact
/// missing unless a decision removed it). The history then only gives notes, so a squash merge,
/// a rebase merge or a cherry-pick passes. With `.ledger/allowed_signers`, each approval record
/// the range adds must carry its reviewer's SSH signature by a key listed there (as the base has
/// it); the commits themselves need not be signed.
/// Without a range: from the merge-base with the upstream or default branch to HEAD.
///
/// `--format github` (in a GitHub Actions step) also puts each finding on the line it is about:
/// an unreviewed or unapproved fact on its line in the fact file, a record that does not count
/// on the record, a fact whose cited code changed on the fact and on that code (docs/ci.md).
/// `--code-quality FILE` writes the same findings as a GitLab Code Quality report.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme verify\n  mneme verify origin/main..HEAD\n  mneme verify HEAD~20.. --json\n  mneme verify \"$BASE..$HEAD\" --format github   # in a GitHub Actions step\n  mneme verify \"$BASE..$HEAD\" --code-quality mneme-verify.json   # in a GitLab job"
)]
pub struct Args {
    /// BASE..HEAD (either side may be omitted).
    range: Option<String>,
    /// Output format: `github` adds workflow commands that annotate the lines concerned.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Also write the findings as a GitLab Code Quality report to FILE (`[]` when none).
    #[arg(long, value_name = "FILE")]
    code_quality: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Github,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let report = verify(&ws, args.range.as_deref())?;
    let found = || {
        annotations(
            &report.violations,
            report.state.as_ref(),
            &report.recheck,
            &report.fact_lines,
        )
    };
    if let Some(path) = &args.code_quality {
        write_report(path, &code_quality::report(&issues(&found())))?;
    }
    if cx.ui.json {
        cx.ui.json(&report)?;
    } else if args.format == Format::Github {
        // The report quotes text from the branch: the runner reads no command in it.
        let seed = format!("{:?} {}", std::time::SystemTime::now(), std::process::id());
        let hash = sha256_hex(seed.as_bytes());
        let token = first_chars(&hash, 32);
        cx.ui.out(&format!(
            "{}::stop-commands::{token}\n{}::{token}::\n",
            github(&found()),
            render(&report)
        ))?;
    } else {
        cx.ui.out(&render(&report))?;
    }
    Ok(if report.passes() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// Writes a Code Quality report where the job's artifacts are read.
pub(crate) fn write_report(path: &std::path::Path, text: &str) -> Result<()> {
    mneme::store::file::write_atomic(path, text.as_bytes(), mneme::store::Durability::Synced)?;
    Ok(())
}

fn render(r: &Verification) -> String {
    let mut out = String::new();
    for v in &r.violations {
        out.push_str(&commit_line(paint(WARN, "unreviewed"), v, String::new()));
        for p in &v.problems {
            out.push_str(&format!("  {}\n", esc1(p)));
        }
    }
    for n in &r.notes {
        out.push_str(&commit_line(
            paint(DIM, "note"),
            n,
            format!(": {}", esc1(&n.problems.join("; "))),
        ));
    }
    if let Some(state) = &r.state {
        for problem in state.problems() {
            out.push_str(&format!("{} {}\n", paint(WARN, "state"), esc1(&problem)));
        }
    }
    for path in &r.compiled.stale {
        out.push_str(&format!(
            "{} {}: not what the ledger compiles to (a rule file agents read, changed by hand or missing); `mneme check --fix` writes it\n",
            paint(WARN, "compiled"),
            esc1(path)
        ));
    }
    for path in &r.compiled.extra {
        out.push_str(&format!(
            "{} {}: a compiled rule file the ledger no longer compiles to; `mneme check --fix` removes it\n",
            paint(WARN, "compiled"),
            esc1(path)
        ));
    }
    if let Some(sig) = &r.signatures {
        out.push_str(&paint(
            DIM,
            format!(
                "signed decisions required: {} key(s) in {} at {}\n",
                sig.keys,
                paths::ALLOWED_SIGNERS,
                short(&sig.from)
            ),
        ));
        for skipped in &sig.skipped {
            out.push_str(&format!(
                "{} {}: {}\n",
                paint(WARN, "note"),
                paths::ALLOWED_SIGNERS,
                esc1(skipped)
            ));
        }
        if sig.changed_in_range {
            out.push_str(&format!(
                "{} this range changes {}; its keys count from the next range on\n",
                paint(WARN, "note"),
                paths::ALLOWED_SIGNERS
            ));
        }
    }
    if !r.recheck.is_empty() {
        out.push_str(&paint(
            WARN,
            format!(
                "{} fact(s) cite code this range changed; re-check them:\n",
                r.recheck.len()
            ),
        ));
        for f in &r.recheck {
            out.push_str(&super::stale::fact(f));
        }
    }
    let tally = format!(
        "{} commit(s) in {}, {} review decision(s), {} unreviewed change(s)",
        r.commits,
        r.range,
        r.decisions,
        r.violations.len()
    );
    let tally = match &r.state {
        Some(state) => format!(
            "{tally}; {} decision record(s), {} state problem(s)",
            state.records,
            state.problems().len()
        ),
        None => tally,
    };
    let style = if r.passes() { GOOD } else { WARN };
    out.push_str(&paint(style, tally));
    out.push('\n');
    out
}

/// `<label> <commit> <subject> (<author>)<tail>`.
fn commit_line(label: String, v: &Violation, tail: String) -> String {
    format!(
        "{label} {} {} {}\n",
        paint(ID, short(&v.commit)),
        esc1(&v.subject),
        paint(DIM, format!("({}){tail}", esc1(&v.author)))
    )
}
