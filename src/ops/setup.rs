//! `setup`: install, or remove, mneme's hooks in an agent runtime's settings, merging into what
//! is there.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::model::paths;
use crate::model::runtimes::{edit_settings, Runtime};
use crate::model::textdiff::unified;
use crate::ops::{Error, Result};
use crate::store::{read_optional_text, write_atomic};

/// Where the settings go.
#[derive(Debug, Clone)]
pub enum Scope {
    /// In the repository at this root, meant to be committed.
    Project(PathBuf),
    /// In the user's home directory, for every repository.
    User(PathBuf),
}

/// What `setup` did or, with `--dry-run`, would do (the `--json` shape, docs/json.md).
#[derive(Debug, Serialize)]
pub struct Report {
    pub runtime: &'static str,
    pub path: PathBuf,
    /// `created`, `updated`, `unchanged` or `removed`.
    pub action: &'static str,
    pub dry_run: bool,
    /// The change as a unified diff (empty when nothing changes).
    pub diff: String,
    /// What the runtime needs besides the file.
    pub notes: Vec<String>,
}

pub fn setup(runtime: Runtime, scope: &Scope, remove: bool, dry_run: bool) -> Result<Report> {
    let (base, rel) = match scope {
        Scope::Project(root) => (root, paths::project_settings(runtime.as_str())),
        Scope::User(home) => (home, paths::user_settings(runtime.as_str())),
    };
    let Some(rel) = rel else {
        return Err(Error::Unsupported {
            runtime: runtime.as_str(),
        });
    };
    let path = base.join(rel);
    let old = read_optional_text(&path, rel)?;
    let new = edit_settings(old.as_deref().unwrap_or(""), runtime, remove).map_err(|why| {
        Error::Settings {
            path: path.clone(),
            why,
        }
    })?;
    let action = match (&old, remove) {
        (Some(o), _) if *o == new => "unchanged",
        (None, true) => "unchanged",
        (_, true) => "removed",
        (None, false) => "created",
        (Some(_), false) => "updated",
    };
    let diff = if action == "unchanged" {
        String::new()
    } else {
        unified(rel, old.as_deref().unwrap_or(""), &new, 3)
    };
    if !dry_run && action != "unchanged" {
        create_parent(&path)?;
        write_atomic(&path, new.as_bytes())?;
    }
    Ok(Report {
        runtime: runtime.as_str(),
        path,
        action,
        dry_run,
        diff,
        notes: notes(runtime, remove),
    })
}

fn create_parent(path: &Path) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(crate::store::Error::io(dir))?;
    }
    Ok(())
}

fn notes(runtime: Runtime, remove: bool) -> Vec<String> {
    if remove {
        return Vec::new();
    }
    let mut notes = vec![format!(
        "the hooks run `mneme`: it must be on the PATH of {} (`cargo install --locked --path .`)",
        runtime.as_str()
    )];
    if runtime == Runtime::Codex {
        notes.push(
            "Codex runs hooks only with `[features] codex_hooks = true` in config.toml, and asks you to trust them once".into(),
        );
    }
    notes
}
