use std::fs;
use std::path::Path;

use mneme::store::{self, Workspace, CONFIG_FILE};
use mneme::{model::agents_md, model::templates, Error, Result};
use serde::Serialize;

use super::Cx;
use crate::cli::ui::{paint, DIM, GOOD};

/// Set up the ledger in this git repository (teammates run it once after cloning).
///
/// Creates `.ledger/facts/` with the seed fact files, `.ledger/proposals/`,
/// `.ledger/config.yaml`, a block in AGENTS.md that tells agents the protocol, and registers the
/// fact-merging git driver (`.gitattributes` plus `merge.mneme.*` in the repository's own git
/// config, which a clone does not carry). Safe to re-run: existing fact files and config are
/// never overwritten; only the AGENTS.md block is refreshed. Works from any subdirectory.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme init\n  mneme init --ci github\n  mneme -C path/to/repo init --json"
)]
pub struct Args {
    /// Also write a CI workflow that runs `mneme check`, `verify` and `diff`.
    #[arg(long, value_enum, value_name = "PROVIDER")]
    ci: Option<Ci>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Ci {
    Github,
}

#[derive(Debug, Default, Serialize)]
struct Report {
    root: String,
    created: Vec<String>,
    updated: Vec<String>,
    unchanged: Vec<String>,
}

pub fn run(cx: &Cx, args: &Args) -> Result<()> {
    let ws = Workspace::discover(&cx.cwd)?;
    let _lock = ws.lock()?;
    let mut report = Report {
        root: ws.root().display().to_string(),
        ..Report::default()
    };
    for dir in [ws.ledger_dir(), ws.facts_dir(), ws.proposals_dir()] {
        ws.check_inside(&dir)?;
        fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
        ws.check_inside(&dir)?;
    }
    let mut seed = |path: &Path, contents: &str| -> Result<()> {
        let rel = ws.relative(path).display().to_string();
        if store::create_new(path, contents.as_bytes())? {
            report.created.push(rel);
        } else {
            report.unchanged.push(rel);
        }
        Ok(())
    };
    for (name, contents) in templates::FACT_FILES {
        seed(&ws.facts_dir().join(name), contents)?;
    }
    seed(&ws.proposals_dir().join(".gitkeep"), "")?;
    seed(&ws.ledger_dir().join(CONFIG_FILE), templates::CONFIG)?;

    let agents = ws.root().join("AGENTS.md");
    let existing = store::read_optional_text(&agents, "AGENTS.md")?;
    let old = existing.as_deref().unwrap_or("");
    let new =
        agents_md::upsert(old, templates::AGENTS_BLOCK).map_err(|message| Error::AgentsBlock {
            path: agents.clone(),
            message,
        })?;
    let rel = "AGENTS.md".to_owned();
    if new == old {
        report.unchanged.push(rel);
    } else {
        store::write_atomic(&agents, new.as_bytes())?;
        if existing.is_some() {
            report.updated.push(rel);
        } else {
            report.created.push(rel);
        }
    }

    register_merge_driver(&ws, &mut report)?;
    if let Some(Ci::Github) = args.ci {
        let dir = ws.root().join(".github/workflows");
        fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
        let path = dir.join("mneme.yml");
        let rel = ws.relative(&path).display().to_string();
        if store::create_new(&path, templates::GITHUB_WORKFLOW.as_bytes())? {
            report.created.push(rel);
        } else {
            report.unchanged.push(rel);
        }
    }

    if cx.ui.json {
        cx.ui.json(&report);
        return Ok(());
    }
    let mut out = format!("Ledger ready in {}\n", report.root);
    for (label, items, style) in [
        ("created", &report.created, GOOD),
        ("updated", &report.updated, GOOD),
        ("unchanged", &report.unchanged, DIM),
    ] {
        for item in items {
            out.push_str(&format!(
                "  {} {item}\n",
                paint(style, format!("{label:>9}"))
            ));
        }
    }
    out.push_str(
        "\nNext: commit .ledger/, AGENTS.md and .gitattributes; agents read facts with `mneme context`.\n",
    );
    cx.ui.out(&out);
    Ok(())
}

/// `.gitattributes` routes fact files to the `mneme` merge driver; the repository's git config
/// defines it (git does not clone config, so each clone runs `mneme init` once).
fn register_merge_driver(ws: &Workspace, report: &mut Report) -> Result<()> {
    let path = ws.root().join(".gitattributes");
    let existing = store::read_optional_text(&path, ".gitattributes")?;
    let old = existing.as_deref().unwrap_or("");
    let rel = ".gitattributes".to_owned();
    if old
        .lines()
        .any(|l| l.trim() == templates::GITATTRIBUTES_LINE)
    {
        report.unchanged.push(rel);
    } else {
        let mut new = old.to_owned();
        if !new.is_empty() && !new.ends_with('\n') {
            new.push('\n');
        }
        new.push_str(templates::GITATTRIBUTES_LINE);
        new.push('\n');
        store::write_atomic(&path, new.as_bytes())?;
        if existing.is_some() {
            report.updated.push(rel)
        } else {
            report.created.push(rel)
        }
    }
    let changed = mneme::git::commit::set_local_config(
        &ws.location,
        &[
            (
                "merge",
                "mneme",
                "name",
                "mneme: merge fact files by fact id",
            ),
            ("merge", "mneme", "driver", "mneme merge-file %O %A %B"),
        ],
    )?;
    let label = "git config merge.mneme.driver".to_owned();
    if changed {
        report.updated.push(label)
    } else {
        report.unchanged.push(label)
    }
    Ok(())
}
