use mneme::ops::doctor::{doctor, GitLabJob};

use crate::cli::ui::{esc1, paint, DIM, GOOD, WARN};
use crate::cli::{Cx, ExitStatus, Result};

/// Check that this clone is set up: the merge driver, `mneme` on the PATH, the commit-msg hook,
/// the agent runtimes' hooks and whether each runtime will run them here (its trust of the
/// project and the hooks, the `mneme` they find, its version against the tested ones, a
/// warning), the AGENTS.md block, signing (when `.ledger/allowed_signers`
/// requires signed decisions: this clone signs with SSH, with a key listed for its email), and
/// `mneme check`. In a GitLab CI job (`CI_SERVER_URL` set) it checks the project's pipeline in
/// place of a person's clone: mneme's CI file and its include, `MNEME_GITLAB_TOKEN` where it
/// belongs (and nowhere else), and the forge's signing key. Each problem comes with the
/// command that fixes it; the exit code is 1 when there is one.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme doctor\n  mneme doctor --json\n\nIn a GitLab CI job (CI_SERVER_URL set) it checks the pipeline's setup, not a clone's."
)]
pub struct Args {}

pub fn run(cx: &Cx, _args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let dirs = super::setup::user_dirs().ok();
    let d = doctor(&ws, dirs.as_ref(), gitlab_job().as_ref())?;
    let healthy = d.problems.is_empty() && d.check_errors == 0;
    if cx.ui.json {
        cx.ui.json(&d)?;
    } else {
        let mut out = String::new();
        let found = [("problem:", &d.problems), ("warning:", &d.warnings)];
        for (label, list) in found {
            for p in list {
                out.push_str(&format!(
                    "{} {}\n  {}\n",
                    paint(WARN, label),
                    esc1(&p.what),
                    paint(DIM, format!("fix: {}", p.fix))
                ));
            }
        }
        for note in &d.notes {
            out.push_str(&format!("{} {}\n", paint(DIM, "note:"), esc1(note)));
        }
        out.push_str(&format!(
            "mneme check: {} error(s), {} warning(s){}\n",
            d.check_errors,
            d.check_warnings,
            if d.check_errors + d.check_warnings > 0 {
                " (`mneme check` lists them)"
            } else {
                ""
            }
        ));
        if healthy {
            out.push_str(&format!("{}\n", paint(GOOD, "all set")));
        }
        cx.ui.out(&out)?;
    }
    Ok(if healthy {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// The GitLab CI job this runs in, from GitLab's predefined variables; `None` outside one.
fn gitlab_job() -> Option<GitLabJob> {
    let var = |name| std::env::var(name).ok().filter(|v| !v.is_empty());
    var("CI_SERVER_URL")?;
    let branch = var("CI_COMMIT_BRANCH");
    Some(GitLabJob {
        source: var("CI_PIPELINE_SOURCE").unwrap_or_default(),
        protected: var("CI_COMMIT_REF_PROTECTED").as_deref() == Some("true"),
        default_branch: branch.is_some() && branch == var("CI_DEFAULT_BRANCH"),
        token: var("MNEME_GITLAB_TOKEN").is_some(),
        signing_key: var("MNEME_FORGE_SIGNING_KEY").is_some(),
    })
}
