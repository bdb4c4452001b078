use std::fs;
use std::io::ErrorKind;
use std::path::Path;

use mneme::store::{self, Workspace, CONFIG_FILE};
use mneme::{agents_md, templates, Error, Result};
use serde::Serialize;

use super::Cx;
use crate::ui::{paint, DIM, GOOD};

/// Set up the ledger in this git repository.
///
/// Creates `.ledger/facts/` with the seed fact files, `.ledger/proposals/`,
/// `.ledger/config.yaml`, and a block in AGENTS.md that tells agents the protocol. Safe to
/// re-run: existing fact files and config are never overwritten; only the AGENTS.md block is
/// refreshed. Works from any subdirectory of the work tree.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  mneme init\n  mneme init --json\n  mneme -C path/to/repo init"
)]
pub struct Args {}

#[derive(Debug, Default, Serialize)]
struct Report {
    root: String,
    created: Vec<String>,
    updated: Vec<String>,
    unchanged: Vec<String>,
}

pub fn run(cx: &Cx, _args: &Args) -> Result<()> {
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
    let existing = match fs::read(&agents) {
        Ok(bytes) => Some(String::from_utf8(bytes).map_err(|_| Error::InvalidUtf8 {
            what: "AGENTS.md".into(),
        })?),
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io(&agents)(e)),
    };
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
        "\nNext: commit .ledger/ and AGENTS.md; agents read facts with `mneme context`.\n",
    );
    cx.ui.out(&out);
    Ok(())
}
