//! `export`: the ledger and its decisions in another memory format (docs/formats/).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::git::history::decisions;
use crate::model::interchange::item::{Event, Item};
use crate::model::interchange::{self, ExportError, Format};
use crate::model::provenance::decision::Verdict;
use crate::ops::{Result, Workspace};
use crate::store::export::write_dir;

/// An export, rendered and checked against its format's rules.
#[derive(Debug)]
pub struct Exported {
    pub format: Format,
    /// `(file name, text)`; one for the formats that are one stream.
    pub files: Vec<(String, String)>,
    pub facts: usize,
    /// Facts the format cannot hold (compiled entries need evidence), by id.
    pub left_out: Vec<String>,
}

/// The facts of the work tree's ledger, and each fact file's title by name.
pub struct Snapshot {
    pub items: Vec<Item>,
    pub titles: BTreeMap<String, String>,
    /// The ledger's `stale_fact_days`: how long a context pack stays good.
    pub valid_days: u32,
}

/// The task a context pack is for, when none is given.
pub const DEFAULT_TASK: &str = "Work in this repository";

/// Every fact of the work tree's ledger with the approvals that touched it, in file order.
pub fn snapshot(ws: &Workspace) -> Result<Snapshot> {
    ws.store.check_ledger()?;
    let ledger = ws.store.load()?;
    let mut history: HashMap<String, Vec<Event>> = HashMap::new();
    // Newest first from the walk; each fact's events are kept oldest first.
    for r in decisions(&ws.repo, None, None, false)?.into_iter().rev() {
        if r.verdict != Verdict::Approve {
            continue;
        }
        for op in &r.operations {
            for id in &op.fact_ids {
                history.entry(id.clone()).or_default().push(Event {
                    op: op.op,
                    commit: r.commit.clone(),
                    date: r.date.clone(),
                    proposal: r.proposal.clone(),
                    proposer: r.proposed_by.clone().or_else(|| r.proposal_author.clone()),
                    reviewer: r.reviewer.clone(),
                    reason: r.reason.clone(),
                });
            }
        }
    }
    let titles = ledger
        .files()
        .iter()
        .map(|f| (f.name.clone(), f.title().to_owned()))
        .collect();
    let mut ids = std::collections::HashSet::new();
    let items = ledger
        .facts()
        .map(|(file, fact)| {
            let id = fact.id.clone().ok_or_else(|| ExportError::Unstamped {
                file: file.name.clone(),
                line: fact.line,
            })?;
            if !ids.insert(id.clone()) {
                return Err(ExportError::DuplicateId {
                    file: file.name.clone(),
                    line: fact.line,
                    id,
                }
                .into());
            }
            let events = history.remove(&id).unwrap_or_default();
            Ok(Item::of(&file.name, fact, id, events))
        })
        .collect::<Result<Vec<Item>>>()?;
    Ok(Snapshot {
        items,
        titles,
        valid_days: ledger.config.stale_fact_days,
    })
}

/// Renders the ledger in `format` (a context pack for `task`) and checks every file against the
/// format's rules.
pub fn export(ws: &Workspace, format: Format, task: Option<&str>) -> Result<Exported> {
    let Snapshot {
        items,
        titles,
        valid_days,
    } = snapshot(ws)?;
    let rendered = interchange::render(
        format,
        &items,
        &titles,
        task.unwrap_or(DEFAULT_TASK),
        valid_days,
    )?;
    Ok(Exported {
        format,
        facts: items.len() - rendered.left_out.len(),
        files: rendered.files,
        left_out: rendered.left_out,
    })
}

/// Writes an export into `dir` (docs/formats/README.md says what the directory may hold).
pub fn write(dir: &Path, exported: &Exported) -> Result<()> {
    Ok(write_dir(dir, exported.format.name(), &exported.files)?)
}
