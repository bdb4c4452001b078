//! `init`: seed the ledger, the AGENTS.md block and the merge driver; safe to re-run.

use std::path::Path;

use serde::Serialize;

use crate::git::config::{set_local_config, MERGE_DRIVER};
use crate::model::agents::{agents_md, templates};
use crate::model::base::config::with_agents_file;
use crate::model::base::paths;
use crate::model::facts::starter;
use crate::model::forge::gitlab_ci::{with_include, Include};
use crate::ops::{hooks, Error, Result, Workspace};
use crate::store::{create_new, write_atomic, Durability, Kind};

/// What `init` did to each file (the `--json` shape, docs/json.md).
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub root: String,
    /// The instructions file that holds mneme's block.
    pub agents_file: String,
    pub created: Vec<String>,
    pub updated: Vec<String>,
    pub unchanged: Vec<String>,
    /// What a person must know of what was done (an existing hook chained, one not written).
    pub notes: Vec<String>,
}

/// What happened to one file.
pub(crate) enum Outcome {
    Created,
    Updated,
    Unchanged,
}

impl Report {
    fn record(&mut self, what: impl Into<String>, outcome: Outcome) {
        let list = match outcome {
            Outcome::Created => &mut self.created,
            Outcome::Updated => &mut self.updated,
            Outcome::Unchanged => &mut self.unchanged,
        };
        list.push(what.into());
    }
}

/// The forge whose CI `init` sets up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ci {
    GitHub,
    GitLab,
}

/// Sets up the ledger. `agents_file` is the instructions file that gets the mneme block
/// (`AGENTS.md`, or `CLAUDE.md`, `GEMINI.md` for runtimes that read those); it is remembered in
/// the config, which names the file when it is `None`.
pub fn init(ws: &Workspace, ci: Option<Ci>, agents_file: Option<&str>) -> Result<Report> {
    let store = &ws.store;
    let _lock = store.lock()?;
    let mut report = Report {
        root: store.root().display().to_string(),
        ..Report::default()
    };
    if let Some(file) = agents_file {
        paths::check_repo_file(file).map_err(|why| Error::AgentsFile {
            file: file.to_owned(),
            why,
        })?;
    }
    // A config that does not parse stops here, before anything is written.
    let remembered = store.load_config()?.agents_file;
    for dir in [paths::LEDGER, paths::FACTS, paths::PROPOSALS] {
        store.create_dir(dir)?;
    }
    for (name, contents) in starter::FILES {
        seed(ws, &mut report, &paths::fact_file(name), contents)?;
    }
    seed(ws, &mut report, paths::PROPOSALS_KEEP, "")?;
    let agents_file = agents_file.unwrap_or(&remembered);
    let created = create_new(
        &store.path(paths::CONFIG),
        templates::CONFIG.as_bytes(),
        Durability::Synced,
    )?;
    let config = edit_file(ws, paths::CONFIG, Kind::Config, |old| {
        Ok(if agents_file == remembered {
            old.to_owned()
        } else {
            with_agents_file(old, agents_file)
        })
    })?;
    report.record(
        paths::CONFIG,
        if created { Outcome::Created } else { config },
    );
    report.agents_file = agents_file.to_owned();
    let block = agents_block(ws)?;
    let agents = edit_file(ws, agents_file, Kind::Instructions, |old| {
        agents_md::upsert(old, &block).map_err(|message| Error::AgentsBlock {
            path: store.path(agents_file),
            message,
        })
    })?;
    report.record(agents_file, agents);
    let attributes = edit_file(ws, paths::GITATTRIBUTES, Kind::GitAttributes, |old| {
        Ok(with_merge_driver(old))
    })?;
    report.record(paths::GITATTRIBUTES, attributes);
    let changed = set_local_config(&ws.repo, &MERGE_DRIVER)?;
    let outcome = if changed {
        Outcome::Updated
    } else {
        Outcome::Unchanged
    };
    report.record("git config merge.mneme.driver", outcome);
    // The hook that stops a commit from undoing an interrupted approval, or from changing facts
    // outside review, in this clone.
    let hook = hooks::install(ws, false)?;
    let outcome = match hook {
        hooks::Installed::Unchanged { .. } | hooks::Installed::Tracked { .. } => Outcome::Unchanged,
        hooks::Installed::Written { .. }
        | hooks::Installed::Chained { .. }
        | hooks::Installed::Replaced { .. } => Outcome::Updated,
    };
    report.record("git hook commit-msg", outcome);
    report.notes.extend(hook.note());
    match ci {
        Some(Ci::GitHub) => {
            let workflows = Path::new(paths::GITHUB_WORKFLOW)
                .parent()
                .unwrap_or(Path::new("."));
            store.create_dir(workflows)?;
            seed(
                ws,
                &mut report,
                paths::GITHUB_WORKFLOW,
                // Pushes to the branch set up on: `master` in a repository git made with that.
                &templates::github_workflow(&ws.repo.branch().unwrap_or_else(|| "main".to_owned())),
            )?;
            seed(
                ws,
                &mut report,
                paths::GITHUB_DECIDE_WORKFLOW,
                &templates::github_decide_workflow(),
            )?;
        }
        Some(Ci::GitLab) => gitlab_ci(ws, &mut report)?,
        None => {}
    }
    Ok(report)
}

/// mneme's GitLab CI file, and the one `include:` entry for it in the project's
/// `.gitlab-ci.yml`; an `include:` the edit cannot keep as it is gets a note instead.
fn gitlab_ci(ws: &Workspace, report: &mut Report) -> Result<()> {
    let dir = Path::new(paths::GITLAB_MNEME_CI)
        .parent()
        .unwrap_or(Path::new("."));
    ws.store.create_dir(dir)?;
    seed(ws, report, paths::GITLAB_MNEME_CI, &templates::gitlab_ci())?;
    let mut by_hand = None;
    let outcome = edit_file(ws, paths::GITLAB_CI, Kind::CiConfig, |old| {
        Ok(match with_include(old, paths::GITLAB_MNEME_CI) {
            Include::Added(new) => new,
            Include::Present => old.to_owned(),
            Include::ByHand(why) => {
                by_hand = Some(why);
                old.to_owned()
            }
        })
    })?;
    report.record(paths::GITLAB_CI, outcome);
    if let Some(why) = by_hand {
        report.notes.push(format!(
            "{} was left as it is ({why}): add `- local: '{}'` to its `include:` list",
            paths::GITLAB_CI,
            paths::GITLAB_MNEME_CI
        ));
    }
    Ok(())
}

/// The mneme block for this ledger: the protocol, with its fact files named.
pub fn agents_block(ws: &Workspace) -> Result<String> {
    let names: Vec<String> = crate::store::file::list_dir(&ws.store.path(paths::FACTS), ".md")?
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    let stems: Vec<&str> = names
        .iter()
        .map(|n| n.strip_suffix(".md").unwrap_or(n))
        .collect();
    Ok(templates::agents_block(&stems))
}

/// Creates `rel` with `contents` unless it exists; an existing file is never overwritten.
fn seed(ws: &Workspace, report: &mut Report, rel: &str, contents: &str) -> Result<()> {
    let outcome = if create_new(&ws.store.path(rel), contents.as_bytes(), Durability::Synced)? {
        Outcome::Created
    } else {
        Outcome::Unchanged
    };
    report.record(rel, outcome);
    Ok(())
}

/// Rewrites the text file `rel` with `edit` (given "" when it does not exist) and says what
/// happened to it.
pub(crate) fn edit_file(
    ws: &Workspace,
    rel: &str,
    kind: Kind,
    edit: impl FnOnce(&str) -> Result<String>,
) -> Result<Outcome> {
    let path = ws.store.path(rel);
    let existing = ws.store.read_text(rel, kind)?;
    let old = existing.as_deref().unwrap_or("");
    let new = edit(old)?;
    if new == old {
        return Ok(Outcome::Unchanged);
    }
    write_atomic(&path, new.as_bytes(), Durability::Synced)?;
    Ok(match existing {
        Some(_) => Outcome::Updated,
        None => Outcome::Created,
    })
}

/// `.gitattributes` with the lines that route fact and task files, and the compiled rule files,
/// to the `mneme` merge driver.
pub fn with_merge_driver(old: &str) -> String {
    let mut new = old.to_owned();
    let lines = templates::gitattributes_lines()
        .into_iter()
        .chain(templates::rule_attribute_lines());
    for line in lines {
        if new.lines().any(|l| l.trim() == line) {
            continue;
        }
        if !new.is_empty() && !new.ends_with('\n') {
            new.push('\n');
        }
        new.push_str(&line);
        new.push('\n');
    }
    new
}
