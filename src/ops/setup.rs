//! `setup`: install, or remove, mneme's hooks in an agent runtime's settings, merging into what
//! is there.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::git::config::{set_local_config, MERGE_DRIVER};
use crate::git::ignore::{ignored, Ignored};
use crate::git::Repo;
use crate::model::agents::rules::Target;
use crate::model::agents::runtimes::{edit_codex_config, edit_settings, Runtime};
use crate::model::agents::templates;
use crate::model::base::config::with_compile;
use crate::model::base::paths;
use crate::model::base::textdiff::unified;
use crate::ops::init::{edit_file, with_merge_driver};
use crate::ops::{rules, Error, Result, Workspace};
use crate::store::file::read_file_text;
use crate::store::{write_atomic, Durability, Kind};

/// The user's directories where runtimes keep their settings.
#[derive(Debug, Clone)]
pub struct UserDirs {
    pub home: PathBuf,
    /// The XDG configuration directory, where OpenCode keeps its user files.
    pub config: PathBuf,
    /// A runtime's own directory moved by its environment variable (`CODEX_HOME`,
    /// `CLAUDE_CONFIG_DIR`, `GEMINI_CLI_HOME`, `COPILOT_HOME`, `PI_CODING_AGENT_DIR`), keyed by
    /// the directory it replaces (`.codex`).
    pub moved: Vec<(&'static str, PathBuf)>,
}

impl UserDirs {
    /// Where the file `rel` (as laid out in a home directory, `.codex/config.toml`) is.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.moved
            .iter()
            .find_map(|(dir, to)| {
                let rest = rel.strip_prefix(dir)?.strip_prefix('/')?;
                Some(to.join(rest))
            })
            .unwrap_or_else(|| self.home.join(rel))
    }
}

/// Where the settings go: the repository's root (`--project`, to be committed), or the user's
/// directories (`--user`, for every repository).
#[derive(Debug, Clone)]
pub enum Scope {
    Project(PathBuf),
    User(UserDirs),
}

impl Scope {
    /// Where the file `rel` (as laid out in a repository) of `runtime` goes.
    fn path(&self, runtime: Runtime, rel: &str) -> PathBuf {
        match self {
            Scope::Project(root) => root.join(rel),
            Scope::User(dirs) if runtime == Runtime::Opencode => dirs.config.join(rel),
            Scope::User(dirs) => dirs.path(rel),
        }
    }

    /// Where a link among its files may lead: a repository's stay inside it (they come from
    /// anyone's branch); a user's own may go anywhere (dotfiles kept elsewhere).
    fn bound(&self) -> &Path {
        match self {
            Scope::Project(root) => root,
            Scope::User(_) => Path::new("/"),
        }
    }
}

/// What `setup` did or, with `--dry-run`, would do (the `--json` shape, docs/json.md).
#[derive(Debug, Serialize)]
pub struct Report {
    pub runtime: &'static str,
    pub dry_run: bool,
    pub files: Vec<FileReport>,
    /// The repository's files that git ignores and does not track: teammates will not get them.
    pub ignored: Vec<Ignored>,
    /// What the runtime needs besides the files.
    pub notes: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct FileReport {
    pub path: PathBuf,
    /// `created`, `updated`, `unchanged` or `removed`.
    pub action: &'static str,
    /// The change as a unified diff (empty when nothing changes).
    pub diff: String,
}

/// Sets `runtime` up (or, with `remove`, takes mneme out of it). `agents_file` is the
/// instructions file with mneme's block, for runtimes that must be told to read it; `repo`, for
/// a project's files, says which of them git would leave out of a commit.
pub fn setup(
    runtime: Runtime,
    scope: &Scope,
    repo: Option<&Repo>,
    agents_file: &str,
    remove: bool,
    dry_run: bool,
) -> Result<Report> {
    let path = |rel| scope.path(runtime, rel);
    let mut files = Vec::new();
    // Files mneme writes whole that `remove` leaves, since someone changed them.
    let mut kept = Vec::new();
    if let Some(rel) = paths::runtime_settings(runtime.as_str(), matches!(scope, Scope::User(_))) {
        let file = path(rel);
        files.push(change(&file, scope.bound(), |old| {
            edit_settings(old.unwrap_or(""), runtime, agents_file, remove)
                // A file that held only mneme's hooks goes with them.
                .map(|text| (!(remove && text == "{}\n")).then_some(text))
                .map_err(|why| Error::Settings {
                    path: file.clone(),
                    why,
                })
        })?);
    }
    match runtime {
        Runtime::Codex => {
            // The agent's name for the commands Codex runs, and hooks left on.
            let file = path(paths::CODEX_CONFIG);
            files.push(change(&file, scope.bound(), |old| {
                edit_codex_config(old.unwrap_or(""), remove)
                    .map(|text| (!text.is_empty() || old.is_some()).then_some(text))
                    .map_err(|why| Error::Settings {
                        path: file.clone(),
                        why,
                    })
            })?);
        }
        // The rule is what Cursor applies in every session, whatever its hooks support.
        Runtime::Cursor => files.push(template(
            &path(paths::CURSOR_RULE),
            scope.bound(),
            templates::CURSOR_RULE,
            remove,
            &mut kept,
        )?),
        Runtime::Opencode => {
            let rel = paths::opencode_plugin(matches!(scope, Scope::User(_)));
            files.push(template(
                &path(rel),
                scope.bound(),
                templates::OPENCODE_PLUGIN,
                remove,
                &mut kept,
            )?);
        }
        Runtime::Pi => files.push(template(
            &path(paths::pi_extension(matches!(scope, Scope::User(_)))),
            scope.bound(),
            templates::PI_EXTENSION,
            remove,
            &mut kept,
        )?),
        Runtime::Claude | Runtime::Gemini | Runtime::Qwen | Runtime::Copilot => {}
    }
    if !dry_run {
        for (file, new) in &files {
            write(file, new.as_deref(), scope)?;
        }
    }
    let mut notes = notes(runtime, remove);
    notes.extend(kept.iter().map(|file: &PathBuf| {
        format!(
            "{} was changed by hand since setup wrote it, so it stays: delete it yourself to take mneme out of {}",
            file.display(),
            runtime.as_str()
        )
    }));
    let files: Vec<FileReport> = files.into_iter().map(|(file, _)| file).collect();
    let ignored = match (repo, remove) {
        (Some(repo), false) => left_out(repo, &files)?,
        _ => Vec::new(),
    };
    notes.extend(ignored.iter().map(|i| {
        format!(
            "{} is ignored by git ({}: `{}`), so teammates will not get it: commit it with `git add -f {}`, or take `{}` out of {}",
            i.path, i.source, i.pattern, i.path, i.pattern, i.source
        )
    }));
    Ok(Report {
        runtime: runtime.as_str(),
        dry_run,
        files,
        ignored,
        notes,
    })
}

/// Turns the ledger's compilation into `target`'s rule files on (or, with `remove`, off): the
/// config's `compile` list, and the rule files it then compiles to, written (or removed).
pub fn compile_target(
    ws: &Workspace,
    target: Target,
    remove: bool,
    dry_run: bool,
) -> Result<Report> {
    let name = target.as_str().to_owned();
    let config_path = ws.store.path(paths::CONFIG);
    let old = read_file_text(ws.store.root(), &config_path, Kind::Config)?.unwrap_or_default();
    let mut targets = ws.store.load_config()?.compile;
    targets.retain(|t| *t != name);
    if !remove {
        targets.push(name);
    }
    let new = with_compile(&old, &targets);
    let wanted = rules::expected_in_work_tree(ws, Some(&targets))?;
    let drift = rules::drift_from(ws, &wanted)?;
    let mut files = vec![(
        FileReport {
            path: config_path.clone(),
            action: if new == old { "unchanged" } else { "updated" },
            diff: if new == old {
                String::new()
            } else {
                unified(paths::CONFIG, &old, &new, 3)
            },
        },
        Some(new.clone()),
    )];
    for file in &wanted {
        let before = rules::read_text(ws, &file.path)?;
        let action = match &before {
            _ if !drift.stale.contains(&file.path) => "unchanged",
            Some(_) => "updated",
            None => "created",
        };
        let diff = if action == "unchanged" {
            String::new()
        } else {
            unified(&file.path, before.as_deref().unwrap_or(""), &file.text, 3)
        };
        files.push((
            FileReport {
                path: ws.repo.root().join(&file.path),
                action,
                diff,
            },
            None,
        ));
    }
    for rel in &drift.extra {
        let before = rules::read_text(ws, rel)?.unwrap_or_default();
        files.push((
            FileReport {
                path: ws.repo.root().join(rel),
                action: "removed",
                diff: unified(rel, &before, "", 3),
            },
            None,
        ));
    }
    if !dry_run {
        let _lock = ws.store.lock()?;
        if new != old {
            write_atomic(&config_path, new.as_bytes(), Durability::Synced)?;
        }
        rules::apply(ws, &wanted, &drift)?;
        // Merges of the rule files go to mneme's driver, which compiles the merged ledger.
        if !remove {
            edit_file(ws, paths::GITATTRIBUTES, Kind::GitAttributes, |old| {
                Ok(with_merge_driver(old))
            })?;
            set_local_config(&ws.repo, &MERGE_DRIVER)?;
        }
    }
    let files: Vec<FileReport> = files.into_iter().map(|(f, _)| f).collect();
    let ignored = if remove {
        Vec::new()
    } else {
        left_out(&ws.repo, &files)?
    };
    let mut notes: Vec<String> = ignored
        .iter()
        .map(|i| {
            format!(
                "{} is ignored by git ({}: `{}`), so teammates will not get it: commit it with `git add -f {}`, or take `{}` out of {}",
                i.path, i.source, i.pattern, i.path, i.pattern, i.source
            )
        })
        .collect();
    if !remove {
        notes.push(format!(
            "commit .ledger/config.yaml and the rule files: from now on every approval rewrites them in its own commit, and `mneme check` reports a hand edit of one ({} reads them from {}/)",
            target.as_str(),
            target.dir()
        ));
    }
    Ok(Report {
        runtime: target.as_str(),
        dry_run,
        files,
        ignored,
        notes,
    })
}

/// The files of `files` in `repo`'s work tree that git would leave out of a commit.
fn left_out(repo: &Repo, files: &[FileReport]) -> Result<Vec<Ignored>> {
    let rels: Vec<String> = files
        .iter()
        .filter(|f| f.action != "removed")
        .filter_map(|f| f.path.strip_prefix(repo.root()).ok())
        .map(|rel| rel.to_string_lossy().replace('\\', "/"))
        .collect();
    Ok(ignored(repo, &rels)?)
}

/// What `edit` makes of the file at `path` (given its text, if any; `None` from it deletes the
/// file). Nothing is written yet: every file is planned before any is touched.
fn change(
    path: &Path,
    bound: &Path,
    edit: impl FnOnce(Option<&str>) -> Result<Option<String>>,
) -> Result<(FileReport, Option<String>)> {
    // As git names files in a diff: from the repository's root, or the absolute path without
    // its leading `/` (`a/home/…`), never `a//home/…`.
    let shown = path.strip_prefix(bound).unwrap_or(path);
    let label = shown.to_string_lossy();
    let label = label.trim_start_matches('/');
    let old = read_file_text(bound, path, Kind::RuntimeSettings)?;
    let new = edit(old.as_deref())?;
    let action = match (&old, &new) {
        (old, new) if old == new => "unchanged",
        (Some(_), None) => "removed",
        (None, Some(_)) => "created",
        _ => "updated",
    };
    let diff = if action == "unchanged" {
        String::new()
    } else {
        unified(
            label,
            old.as_deref().unwrap_or(""),
            new.as_deref().unwrap_or(""),
            3,
        )
    };
    let path = path.to_owned();
    Ok((FileReport { path, action, diff }, new))
}

/// A file mneme writes whole from `text`; `remove` deletes it unless someone changed it, and
/// then adds it to `kept`.
fn template(
    path: &Path,
    bound: &Path,
    text: &str,
    remove: bool,
    kept: &mut Vec<PathBuf>,
) -> Result<(FileReport, Option<String>)> {
    change(path, bound, |old| {
        Ok(match (remove, old) {
            (false, _) => Some(text.to_owned()),
            (true, Some(old)) if old == text => None,
            (true, Some(old)) => {
                kept.push(path.to_owned());
                Some(old.to_owned())
            }
            (true, None) => None,
        })
    })
}

fn write(file: &FileReport, new: Option<&str>, scope: &Scope) -> Result<()> {
    let path = &file.path;
    match new {
        _ if file.action == "unchanged" => {}
        Some(text) => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(crate::store::Error::io(dir))?;
            }
            write_atomic(path, text.as_bytes(), Durability::Synced)?;
        }
        None => {
            std::fs::remove_file(path).map_err(crate::store::Error::io(path))?;
            // The directories left empty (`.gemini/`, `.github/hooks/`) go too, up to the
            // repository's root; in a home directory, only the file's own. One with anything
            // else in it cannot be removed, and stays.
            let levels = match scope {
                Scope::Project(_) => usize::MAX,
                Scope::User(_) => 1,
            };
            for dir in path.ancestors().skip(1).take(levels) {
                if dir == scope.bound() || std::fs::remove_dir(dir).is_err() {
                    break;
                }
            }
        }
    }
    Ok(())
}

fn notes(runtime: Runtime, remove: bool) -> Vec<String> {
    if remove {
        return Vec::new();
    }
    let mut notes = Vec::new();
    // Said only when this PATH lacks it: the runtime's PATH is usually this one.
    if crate::store::file::find_program("mneme").is_none() {
        notes.push(format!(
            "the hooks run `mneme` from the PATH of {}, or else from the project's node_modules/.bin; install it with {}. Without it the agent gets a notice instead of the facts. `mneme doctor` checks what each runtime needs",
            runtime.as_str(),
            templates::INSTALL_WAYS
        ));
    }
    match runtime {
        Runtime::Codex => notes.extend([
            "Codex loads a project's .codex/ files only in a trusted project: trust it when Codex asks, or add `[projects.\"<this repository's path>\"] trust_level = \"trusted\"` to ~/.codex/config.toml".into(),
            "Codex runs each new hook only after you trust its exact definition: start `codex`, run `/hooks` and trust mneme's; `codex exec` skips untrusted hooks without a word".into(),
        ]),
        Runtime::Gemini => notes.push(
            "Gemini CLI runs a project's hooks only in a trusted folder: trust it when Gemini asks; headless runs (`gemini -p`) need `--skip-trust` or GEMINI_CLI_TRUST_WORKSPACE=true".into(),
        ),
        Runtime::Pi => notes.push(
            "pi loads a project's extensions without asking; `pi --no-extensions` runs without them".into(),
        ),
        Runtime::Copilot => notes.push(
            "Copilot CLI runs a repository's hooks only in a folder you trusted: trust it when Copilot asks (it records it in `trustedFolders` of ~/.copilot/config.json); headless runs (`copilot -p`) in an untrusted folder need `--trust-folder`".into(),
        ),
        Runtime::Qwen => notes.push(
            "Qwen Code runs a project's hooks in any folder unless the user turned folder trust on (`security.folderTrust.enabled`); then the folder must be trusted (~/.qwen/trustedFolders.json, or when Qwen asks)".into(),
        ),
        Runtime::Cursor => notes.push(
            "some Cursor versions ignore sessionStart hooks; the always-apply rule tells the agent to run `mneme context` in any case".into(),
        ),
        Runtime::Opencode => notes.extend([
            "the plugin uses OpenCode's experimental hooks (`experimental.chat.system.transform`, `experimental.session.compacting`); AGENTS.md still tells the agent to run `mneme context`".into(),
            "OpenCode installs `@opencode-ai/plugin` from npm the first time it starts with a project plugin (about 18 s; without a network it gives up after about a minute)".into(),
        ]),
        _ => {}
    }
    notes
}
