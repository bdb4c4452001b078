//! `status`, `compact` and `doctor`: what stands in the ledger, what an agent should do before
//! its context is compacted, and whether this clone is set up.

use serde::Serialize;

use crate::git::config::{merge_driver, signing_setup, SigningSetup, DRIVER_COMMAND};
use crate::git::hooks::hooks_dir;
use crate::git::ignore::ignored;
use crate::git::index::uncommitted_in;
use crate::model::agents::runtimes::{edit_codex_config, edit_settings, holds_hooks, Runtime};
use crate::model::agents::{agents_md, templates};
use crate::model::base::paths;
use crate::model::base::time::Timestamp;
use crate::model::provenance::signing::AllowedSigners;
use crate::model::tasks::task::Status as TaskStatus;
use crate::ops::init::agents_block;
use crate::ops::setup::UserDirs;
use crate::ops::{check, context, now, runtimes, tasks, Notes, Result, Workspace};
use crate::store::Kind;

/// `mneme status` (the `--json` shape, docs/json.md).
#[derive(Debug, Serialize)]
pub struct Status {
    pub facts: usize,
    pub superseded: usize,
    pub pending_proposals: usize,
    pub invalid_proposals: usize,
    pub budget_used: usize,
    pub budget_limit: usize,
    pub tasks_open: usize,
    /// The most urgent tasks in progress, as `context` lists them.
    pub tasks_in_progress: Vec<String>,
    pub tasks_in_progress_total: usize,
}

pub fn status(ws: &Workspace, notes: &dyn Notes) -> Result<Status> {
    let c = context::context(ws, notes, None)?;
    Ok(Status {
        facts: c.files.iter().map(|f| f.facts.len()).sum(),
        superseded: c.superseded,
        pending_proposals: c.proposals.count,
        invalid_proposals: c.proposals.invalid,
        budget_used: c.budget.used,
        budget_limit: c.budget.limit,
        tasks_open: c.tasks.open,
        tasks_in_progress: c
            .tasks
            .in_progress
            .iter()
            .map(|t| format!("{} {}", t.id, t.title))
            .collect(),
        tasks_in_progress_total: c.tasks.in_progress_total,
    })
}

/// How long a task in progress may go without a note before `compact` asks for one.
const NOTE_HOURS: i64 = 2;

/// `mneme compact`: what an agent should do before its context is compacted or its session ends.
#[derive(Debug, Serialize)]
pub struct Checklist {
    pub agent: String,
    /// Its tasks in progress whose newest note is older than two hours, or missing.
    pub tasks_without_recent_note: Vec<String>,
    /// Its proposals still waiting for a review.
    pub pending_proposals: Vec<String>,
    /// Task and proposal files not committed yet.
    pub uncommitted: Vec<String>,
}

pub fn compact(ws: &Workspace, notes: &dyn Notes, agent: &str) -> Result<Checklist> {
    let now = now();
    let stale = |at: &str| {
        Timestamp::parse(at)
            .is_none_or(|t| now.unix_seconds() - t.unix_seconds() > NOTE_HOURS * 3600)
    };
    let tasks_without_recent_note = tasks::load(ws, notes)?
        .into_iter()
        .filter(|t| t.status == TaskStatus::InProgress && t.assignee.as_deref() == Some(agent))
        .filter(|t| t.notes.last().is_none_or(|n| stale(&n.at)))
        .map(|t| t.id)
        .collect();
    let limits = ws.store.load()?.limits();
    let pending_proposals = ws
        .store
        .queue(&limits)?
        .parsed()
        .filter(|p| p.agent() == Some(agent))
        .map(|p| p.id().to_owned())
        .collect();
    let mut uncommitted = uncommitted_in(&ws.repo, paths::TASKS)?;
    uncommitted.extend(
        uncommitted_in(&ws.repo, paths::PROPOSALS)?
            .into_iter()
            .filter(|p| p.ends_with(".json")),
    );
    Ok(Checklist {
        agent: agent.to_owned(),
        tasks_without_recent_note,
        pending_proposals,
        uncommitted,
    })
}

pub use crate::ops::runtimes::Problem;

/// `mneme doctor` (the `--json` shape, docs/json.md).
#[derive(Debug, Serialize)]
pub struct Diagnosis {
    pub problems: Vec<Problem>,
    /// What may keep something from working but is not known to: a runtime version mneme's
    /// hooks were not tested with.
    pub warnings: Vec<Problem>,
    /// What is worth knowing but not wrong, such as approvals not being required to be signed.
    pub notes: Vec<String>,
    /// `mneme check`'s tally.
    pub check_errors: usize,
    pub check_warnings: usize,
}

/// Checks this clone's setup; `dirs` are the user's directories, where agent runtimes record
/// whether they trust this repository and its hooks.
pub fn doctor(ws: &Workspace, dirs: Option<&UserDirs>) -> Result<Diagnosis> {
    let mut problems = Vec::new();
    let mut problem = |what: String, fix: &str| {
        problems.push(Problem {
            what,
            fix: fix.to_owned(),
        });
    };
    let mut driver_note = None;
    match merge_driver(&ws.repo) {
        None => problem(
            "this clone has not registered the fact merge driver".into(),
            "mneme init",
        ),
        Some(cmd) if cmd != DRIVER_COMMAND => problem(
            format!("git merges fact files with `{cmd}`, not the current `{DRIVER_COMMAND}`"),
            "mneme init",
        ),
        Some(cmd) => {
            // git runs the driver through the shell with its own PATH: without `mneme` there,
            // it keeps one side and an approved fact of the other is lost.
            let program = cmd.split_whitespace().next().unwrap_or_default();
            if crate::store::file::find_program(program).is_some() {
                driver_note = Some(format!("git merges fact files with `{cmd}`"));
            } else {
                problem(
                    format!("git merges fact files with `{cmd}`, but `{program}` is not on the PATH: a merge would keep one side's facts"),
                    templates::INSTALL_WAYS,
                );
            }
        }
    }
    if crate::store::file::find_program("mneme").is_none() {
        problem(
            "`mneme` is not on the PATH, so git and agent runtimes cannot run it".into(),
            templates::INSTALL_WAYS,
        );
    }
    let config = ws.store.load_config()?;
    let agents_file = &config.agents_file;
    let agents = ws.store.read_text(agents_file, Kind::Instructions)?;
    let block = agents_md::upsert(agents.as_deref().unwrap_or(""), &agents_block(ws)?);
    if block.as_deref().ok() != agents.as_deref() {
        problem(
            format!("the mneme block in {agents_file} is missing or out of date"),
            "mneme init",
        );
    }
    let hook = hooks_dir(&ws.repo).join("commit-msg");
    let installed = crate::store::file::read_local_text(&hook).ok();
    let mut hook_note = None;
    if installed.as_deref() != Some(templates::COMMIT_MSG_HOOK) {
        // Without records the hook cannot tell a merge of approvals from an edit, and would
        // refuse merges: it is recommended once the ledger keeps records.
        if config.decision_records {
            problem(
                "the commit-msg hook that refuses direct fact edits is not installed (or not current)"
                    .into(),
                "mneme hooks install",
            );
        } else {
            hook_note = Some(
                "this ledger keeps no decision records: run `mneme migrate` (and commit), then `mneme hooks install` for the commit-msg hook that refuses unapproved fact changes and lets merges of approvals through".to_owned(),
            );
        }
    }
    // The runtimes whose hooks (or plugin) this repository holds.
    let mut set_up = Vec::new();
    for runtime in Runtime::ALL {
        let Some(rel) = paths::runtime_settings(runtime.as_str(), false) else {
            continue;
        };
        let Some(settings) = ws.store.read_text(rel, Kind::RuntimeSettings)? else {
            continue;
        };
        if holds_hooks(&settings) {
            set_up.push(runtime);
        }
        if edit_settings(&settings, runtime, agents_file, false)
            .ok()
            .as_deref()
            != Some(settings.as_str())
        {
            // Older setups lack the hooks that bring the facts a scoped start leaves out.
            let missing = if config.scoped_delivery {
                ": with scoped_delivery on, its sessions may never get the facts about files"
            } else {
                ""
            };
            problem(
                format!("{rel} does not hold mneme's current hooks{missing}"),
                &format!("mneme setup {}", runtime.as_str()),
            );
        }
        if runtime == Runtime::Codex {
            let rel = paths::CODEX_CONFIG;
            let config = ws
                .store
                .read_text(rel, Kind::RuntimeSettings)?
                .unwrap_or_default();
            if edit_codex_config(&config, false).ok().as_deref() != Some(config.as_str()) {
                problem(
                    format!("{rel} is not as `mneme setup codex` leaves it: hooks switched off, the deprecated `[features] codex_hooks` (Codex warns about it on every run) or no MNEME_AGENT"),
                    "mneme setup codex",
                );
            }
        }
    }
    // The runtimes mneme sets up with a file of its own: a plugin, an extension.
    let written = [
        (
            Runtime::Opencode,
            "plugin",
            paths::opencode_plugin(false),
            templates::OPENCODE_PLUGIN,
        ),
        (
            Runtime::Pi,
            "extension",
            paths::pi_extension(false),
            templates::PI_EXTENSION,
        ),
    ];
    for (runtime, what, rel, current) in written {
        if let Some(text) = ws.store.read_text(rel, Kind::RuntimeSettings)? {
            set_up.push(runtime);
            if text != current {
                problem(
                    format!("{rel} is not mneme's current {what}"),
                    &format!("mneme setup {}", runtime.as_str()),
                );
            }
        }
    }
    let agents = runtimes::check(ws, &set_up, dirs)?;
    for p in agents.problems {
        problem(p.what, &p.fix);
    }
    let mut warnings = agents.warnings;
    warnings.extend(uncommittable(ws, &set_up)?);
    let mut notes = agents.notes;
    notes.extend(driver_note);
    notes.extend(hook_note);
    match ws.store.read_text(paths::ALLOWED_SIGNERS, Kind::AllowedSigners)? {
        Some(text) => {
            let signers = AllowedSigners::parse(&text);
            let setup = signing_setup(&ws.repo);
            for (what, fix) in signing_problems(&signers, &setup, config.decision_records) {
                problem(what, &fix);
            }
        }
        None => notes.push(format!(
            "approvals are not required to be signed: anyone who can push can write a decision commit; \
             to require SSH signatures, list the reviewers' keys in {} (docs/ci.md, \"Signed approvals\")",
            paths::ALLOWED_SIGNERS
        )),
    }
    let report = check::check(ws, false)?;
    Ok(Diagnosis {
        problems,
        warnings,
        notes,
        check_errors: report.errors,
        check_warnings: report.warnings,
    })
}

/// The runtimes' files in this repository that git ignores and does not track: the hooks work
/// here, but teammates never get them.
fn uncommittable(ws: &Workspace, runtimes: &[Runtime]) -> Result<Vec<Problem>> {
    let files: Vec<String> = runtimes
        .iter()
        .flat_map(|r| paths::runtime_project_files(r.as_str()))
        .filter(|rel| ws.store.root().join(rel).is_file())
        .map(str::to_owned)
        .collect();
    Ok(ignored(&ws.repo, &files)?
        .into_iter()
        .map(|i| Problem {
            what: format!(
                "{} is ignored by git ({}: `{}`), so teammates will not get it",
                i.path, i.source, i.pattern
            ),
            fix: format!(
                "git add -f {} (or take `{}` out of {})",
                i.path, i.pattern, i.source
            ),
        })
        .collect())
}

/// What keeps this clone's approvals from passing `verify` when `allowed_signers` requires
/// signatures: `(what, fix)`. With decision records the records are signed, not the commits.
fn signing_problems(
    signers: &AllowedSigners,
    setup: &SigningSetup,
    records: bool,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = signers
        .skipped
        .iter()
        .map(|why| {
            (
                format!("{} {why}; it allows nobody", paths::ALLOWED_SIGNERS),
                format!("edit {}", paths::ALLOWED_SIGNERS),
            )
        })
        .collect();
    let key = setup.key.as_deref().unwrap_or("~/.ssh/id_ed25519.pub");
    if setup.format.as_deref() != Some("ssh") || setup.key.is_none() {
        let (what, fix) = if records {
            (
                "has no SSH signing key to sign decision records with, so decisions are refused",
                format!("git config gpg.format ssh && git config user.signingKey {key}"),
            )
        } else {
            (
                "does not sign commits with SSH",
                format!("git config commit.gpgSign true && git config gpg.format ssh && git config user.signingKey {key}"),
            )
        };
        out.push((
            format!(
                "{} requires SSH-signed decisions, but this clone {what}",
                paths::ALLOWED_SIGNERS
            ),
            fix,
        ));
        return out;
    }
    if !records && !setup.sign {
        out.push((
            format!(
                "{} requires SSH-signed decision commits, but commit.gpgSign is off",
                paths::ALLOWED_SIGNERS
            ),
            "git config commit.gpgSign true".to_owned(),
        ));
        return out;
    }
    let email = setup.email.as_deref().unwrap_or("");
    if let Some(public) = signing_public_key(key) {
        if !signers.lists(&public, email) {
            out.push((
                format!(
                    "your signing key is not listed for {email} in {}, so `verify` will refuse your approvals",
                    paths::ALLOWED_SIGNERS
                ),
                format!(
                    "add the line `{email} {}` to {} in a reviewed commit on the main branch",
                    public.trim(),
                    paths::ALLOWED_SIGNERS
                ),
            ));
        }
    }
    out
}

/// The public key `user.signingKey` names: a literal `key::…`, an `ssh-…` line, or a key file
/// (its `.pub` beside a private key); `None` when it cannot be read.
fn signing_public_key(key: &str) -> Option<String> {
    if let Some(literal) = key.strip_prefix("key::") {
        return Some(literal.to_owned());
    }
    if key.starts_with("ssh-") || key.starts_with("ecdsa-") || key.starts_with("sk-") {
        return Some(key.to_owned());
    }
    let path = match key.strip_prefix("~/") {
        Some(rest) => std::path::PathBuf::from(std::env::var_os("HOME")?).join(rest),
        None => std::path::PathBuf::from(key),
    };
    let public = if path.extension().is_some_and(|e| e == "pub") {
        path
    } else {
        path.with_extension("pub")
    };
    crate::store::file::read_local_text(&public).ok()
}
