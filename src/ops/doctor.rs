//! `mneme doctor`: whether this clone is set up, or, in a GitLab CI job, whether the project's
//! pipeline is.

use serde::Serialize;

use crate::git::config::{merge_driver, signing_setup, SigningSetup, DRIVER_COMMAND};
use crate::git::hooks::hooks_dir;
use crate::git::ignore::ignored;
use crate::model::agents::runtimes::{edit_codex_config, edit_settings, holds_hooks, Runtime};
use crate::model::agents::{agents_md, templates};
use crate::model::base::config::Config;
use crate::model::base::paths;
use crate::model::forge::gitlab_ci::includes;
use crate::model::provenance::record::FORGE_PRINCIPAL;
use crate::model::provenance::signing::AllowedSigners;
use crate::ops::init::agents_block;
use crate::ops::setup::UserDirs;
use crate::ops::{check, runtimes, Result, Workspace};
use crate::store::{Durability, Kind};

pub use crate::ops::runtimes::Problem;

/// `mneme doctor` (the `--json` shape, docs/json.md).
#[derive(Debug, Default, Serialize)]
pub struct Diagnosis {
    /// `gitlab` when run in a GitLab CI job, which checks the pipeline's setup in place of the
    /// clone's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci: Option<&'static str>,
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

impl Diagnosis {
    fn problem(&mut self, what: impl Into<String>, fix: impl Into<String>) {
        self.problems.push(Problem {
            what: what.into(),
            fix: fix.into(),
        });
    }

    fn warning(&mut self, what: impl Into<String>, fix: impl Into<String>) {
        self.warnings.push(Problem {
            what: what.into(),
            fix: fix.into(),
        });
    }
}

/// What a GitLab CI job's environment says about its pipeline, as read from GitLab's
/// predefined variables and whether mneme's own are set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitLabJob {
    /// `CI_PIPELINE_SOURCE`: `push`, `merge_request_event`, `trigger`, …
    pub source: String,
    /// `CI_COMMIT_REF_PROTECTED`: whether protected variables reach this pipeline.
    pub protected: bool,
    /// Whether `CI_COMMIT_BRANCH` is `CI_DEFAULT_BRANCH`.
    pub default_branch: bool,
    /// Whether `MNEME_GITLAB_TOKEN` is set.
    pub token: bool,
    /// Whether `MNEME_FORGE_SIGNING_KEY` is set.
    pub signing_key: bool,
}

impl GitLabJob {
    /// A pipeline that must see the token: the trigger's, or the protected default branch's.
    fn keeps_notes(&self) -> bool {
        self.source == "trigger" || (self.default_branch && self.protected)
    }
}

/// Checks this clone's setup; `dirs` are the user's directories, where agent runtimes record
/// whether they trust this repository and its hooks. In a GitLab CI job (`job`), the checks of a
/// person's clone (merge driver, commit hook, runtimes' trust, their signing key) give way to
/// those of the project's pipeline.
pub fn doctor(
    ws: &Workspace,
    dirs: Option<&UserDirs>,
    job: Option<&GitLabJob>,
) -> Result<Diagnosis> {
    let mut d = Diagnosis {
        ci: job.map(|_| "gitlab"),
        ..Diagnosis::default()
    };
    let config = ws.store.load_config()?;
    if job.is_none() {
        clone_setup(ws, &config, &mut d)?;
    }
    let agents_file = &config.agents_file;
    let agents = ws.store.read_text(agents_file, Kind::Instructions)?;
    let block = agents_md::upsert(agents.as_deref().unwrap_or(""), &agents_block(ws)?);
    if block.as_deref().ok() != agents.as_deref() {
        d.problem(
            format!("the mneme block in {agents_file} is missing or out of date"),
            "mneme init",
        );
    }
    let set_up = runtime_files(ws, &config, &mut d)?;
    if job.is_none() {
        let agents = runtimes::check(ws, &set_up, dirs)?;
        for p in agents.problems {
            d.problem(p.what, p.fix);
        }
        d.warnings.extend(agents.warnings);
        d.notes.extend(agents.notes);
    }
    d.warnings.extend(uncommittable(ws, &set_up)?);
    match ws.store.read_text(paths::ALLOWED_SIGNERS, Kind::AllowedSigners)? {
        Some(text) => {
            let signers = AllowedSigners::parse(&text);
            for why in &signers.skipped {
                d.problem(
                    format!("{} {why}; it allows nobody", paths::ALLOWED_SIGNERS),
                    format!("edit {}", paths::ALLOWED_SIGNERS),
                );
            }
            match job {
                None => {
                    let setup = signing_setup(&ws.repo);
                    for (what, fix) in signing_problems(&signers, &setup, config.decision_records)
                    {
                        d.problem(what, fix);
                    }
                }
                Some(job) => forge_signing(&signers, job, &mut d),
            }
        }
        None => d.notes.push(format!(
            "approvals are not required to be signed: anyone who can push can write a decision commit; \
             to require SSH signatures, list the reviewers' keys in {} (docs/ci.md, \"Signed approvals\")",
            paths::ALLOWED_SIGNERS
        )),
    }
    if let Some(job) = job {
        gitlab_pipeline(ws, job, &mut d)?;
    }
    d.notes
        .push(durability_note(ws.store.durability()).to_owned());
    let report = check::check(ws, false)?;
    d.check_errors = report.errors;
    d.check_warnings = report.warnings;
    Ok(d)
}

/// How proposals, tasks and session records reach the disk, which git's `core.fsync` decides.
fn durability_note(durability: Durability) -> &'static str {
    match durability {
        Durability::Synced => {
            "proposals, tasks and session records are synced to disk as they are written, as git's `core.fsync` asks for its loose objects"
        }
        Durability::Atomic => {
            "proposals, tasks and session records are written whole (never half) but not synced to disk, as git writes its loose objects; a power cut can lose the last few. To sync them: git config core.fsync committed"
        }
    }
}

/// A person's clone: the merge driver, `mneme` on the PATH, the commit-msg hook.
fn clone_setup(ws: &Workspace, config: &Config, d: &mut Diagnosis) -> Result<()> {
    match merge_driver(&ws.repo) {
        None => d.problem(
            "this clone has not registered the fact merge driver",
            "mneme init",
        ),
        Some(cmd) if cmd != DRIVER_COMMAND => d.problem(
            format!("git merges fact files with `{cmd}`, not the current `{DRIVER_COMMAND}`"),
            "mneme init",
        ),
        Some(cmd) => {
            // git runs the driver through the shell with its own PATH: without `mneme` there,
            // it keeps one side and an approved fact of the other is lost.
            let program = cmd.split_whitespace().next().unwrap_or_default();
            if crate::store::file::find_program(program).is_some() {
                d.notes.push(format!("git merges fact files with `{cmd}`"));
            } else {
                d.problem(
                    format!("git merges fact files with `{cmd}`, but `{program}` is not on the PATH: a merge would keep one side's facts"),
                    templates::INSTALL_WAYS,
                );
            }
        }
    }
    if crate::store::file::find_program("mneme").is_none() {
        d.problem(
            "`mneme` is not on the PATH, so git and agent runtimes cannot run it",
            templates::INSTALL_WAYS,
        );
    }
    let hook = hooks_dir(&ws.repo).join("commit-msg");
    let installed = crate::store::file::read_local_text(&hook).ok();
    if installed.as_deref() != Some(templates::COMMIT_MSG_HOOK) {
        // Without records the hook cannot tell a merge of approvals from an edit, and would
        // refuse merges: it is recommended once the ledger keeps records.
        if config.decision_records {
            d.problem(
                "the commit-msg hook that refuses direct fact edits is not installed (or not current)",
                "mneme hooks install",
            );
        } else {
            d.notes.push(
                "this ledger keeps no decision records: run `mneme migrate` (and commit), then `mneme hooks install` for the commit-msg hook that refuses unapproved fact changes and lets merges of approvals through".to_owned(),
            );
        }
    }
    Ok(())
}

/// The runtimes whose hooks, plugin or extension this repository holds; each that is not as
/// `mneme setup` leaves it is a problem.
fn runtime_files(ws: &Workspace, config: &Config, d: &mut Diagnosis) -> Result<Vec<Runtime>> {
    let agents_file = &config.agents_file;
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
            d.problem(
                format!("{rel} does not hold mneme's current hooks{missing}"),
                format!("mneme setup {}", runtime.as_str()),
            );
        }
        if runtime == Runtime::Codex {
            let rel = paths::CODEX_CONFIG;
            let config = ws
                .store
                .read_text(rel, Kind::RuntimeSettings)?
                .unwrap_or_default();
            if edit_codex_config(&config, false).ok().as_deref() != Some(config.as_str()) {
                d.problem(
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
                d.problem(
                    format!("{rel} is not mneme's current {what}"),
                    format!("mneme setup {}", runtime.as_str()),
                );
            }
        }
    }
    Ok(set_up)
}

/// Where the ledger requires signed decisions: a decision from a `/mneme` note counts only when
/// signed by a key listed for the forge, which the pipeline must hold.
fn forge_signing(signers: &AllowedSigners, job: &GitLabJob, d: &mut Diagnosis) {
    let listed = signers
        .signers
        .iter()
        .any(|s| s.principals.iter().any(|p| p == FORGE_PRINCIPAL));
    if !listed {
        d.problem(
            format!("{} requires signed decisions but lists no key for `{FORGE_PRINCIPAL}`, so no decision made from a `/mneme` note can pass `verify`", paths::ALLOWED_SIGNERS),
            format!("add the line `{FORGE_PRINCIPAL} <the forge key's public half>` to {} in a reviewed commit on the default branch (docs/ci.md, \"Signed ledgers\")", paths::ALLOWED_SIGNERS),
        );
    } else if job.keeps_notes() && !job.signing_key {
        d.problem(
            "MNEME_FORGE_SIGNING_KEY is not set in this pipeline, so decisions from `/mneme` notes cannot be signed and are refused",
            "add the forge's private key as the protected CI/CD variable MNEME_FORGE_SIGNING_KEY, of type File (Settings → CI/CD → Variables)",
        );
    }
}

/// The project's pipeline: mneme's CI file, its include, and the token where it belongs.
fn gitlab_pipeline(ws: &Workspace, job: &GitLabJob, d: &mut Diagnosis) -> Result<()> {
    let init = format!(
        "mneme init --ci gitlab, then commit {} and {}",
        paths::GITLAB_MNEME_CI,
        paths::GITLAB_CI
    );
    match ws.store.read_text(paths::GITLAB_MNEME_CI, Kind::CiConfig)? {
        None => d.problem(
            format!(
                "{} is missing: no pipeline checks the ledger or reads `/mneme` notes",
                paths::GITLAB_MNEME_CI
            ),
            init.clone(),
        ),
        Some(text) if text != templates::gitlab_ci() => d.warning(
            format!(
                "{} is not the file this mneme writes: edited, or from another version",
                paths::GITLAB_MNEME_CI
            ),
            format!(
                "to take this version's: rm {} && {init}",
                paths::GITLAB_MNEME_CI
            ),
        ),
        Some(_) => {}
    }
    let ci = ws
        .store
        .read_text(paths::GITLAB_CI, Kind::CiConfig)?
        .unwrap_or_default();
    match includes(&ci, paths::GITLAB_MNEME_CI) {
        Ok(true) => {}
        Ok(false) => d.problem(
            format!(
                "{} does not include {}, so its jobs never run",
                paths::GITLAB_CI,
                paths::GITLAB_MNEME_CI
            ),
            init,
        ),
        Err(why) => d.problem(
            format!("{} {why}", paths::GITLAB_CI),
            format!("fix {}, then run mneme init --ci gitlab", paths::GITLAB_CI),
        ),
    }
    let add_token = "add a project access token (scopes api and write_repository) as the masked, protected CI/CD variable MNEME_GITLAB_TOKEN (Settings → CI/CD → Variables; docs/ci.md, \"GitLab\")";
    if job.default_branch && !job.protected {
        d.problem(
            "the default branch is not protected, so the protected variables mneme's jobs need (MNEME_GITLAB_TOKEN, MNEME_FORGE_SIGNING_KEY) never reach its pipelines",
            "protect the default branch (Settings → Repository → Protected branches)",
        );
    }
    if job.token && !job.protected {
        d.problem(
            "MNEME_GITLAB_TOKEN reaches a pipeline of an unprotected branch, where any branch's CI configuration can use it",
            "mark the variable protected (Settings → CI/CD → Variables), so that only protected branches' pipelines get it",
        );
    } else if !job.token && job.keeps_notes() {
        d.problem(
            "MNEME_GITLAB_TOKEN is not set in this pipeline, so no `/mneme` note is read or answered and no summary note is kept",
            add_token,
        );
    } else if !job.token && !job.default_branch {
        d.notes.push("this pipeline does not get MNEME_GITLAB_TOKEN, as only the protected default branch's should: run `mneme doctor` in a default-branch pipeline to check it".to_owned());
    }
    d.notes.push("the pipeline trigger token and the webhook cannot be seen from inside a job: docs/ci.md, \"GitLab\", says how to check them".to_owned());
    Ok(())
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
