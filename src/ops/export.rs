//! `export`: the ledger and its decisions in another memory format (docs/formats/).

use std::collections::HashMap;
use std::path::Path;

use crate::git::history::decisions;
use crate::model::decision::Verdict;
use crate::model::interchange::{generated_at, mif, Event, ExportError, Format, Item};
use crate::ops::{Result, Workspace};
use crate::store::export::write_dir;

/// An export, rendered and checked against its format's rules.
#[derive(Debug)]
pub struct Exported {
    pub format: Format,
    /// `(file name, text)`; one for the formats that are one stream.
    pub files: Vec<(String, String)>,
    pub facts: usize,
}

/// Every fact of the work tree's ledger with the approvals that touched it, in file order.
pub fn items(ws: &Workspace) -> Result<Vec<Item>> {
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
    ledger
        .facts()
        .map(|(file, fact)| {
            let id = fact.id.clone().ok_or_else(|| ExportError::Unstamped {
                file: file.name.clone(),
                line: fact.line,
            })?;
            Ok(Item {
                history: history.remove(&id).unwrap_or_default(),
                id,
                file: file.name.clone(),
                text: fact.text.clone(),
                state: fact.meta.state().clone(),
                superseded_by: fact.meta.by.clone(),
                since: fact.meta.since.clone(),
                verified: fact.meta.verified.clone(),
                evidence: fact.meta.evidence.clone(),
                relations: fact.meta.relations.clone(),
            })
        })
        .collect()
}

/// Renders the ledger in `format` and checks every file against the format's rules.
pub fn export(ws: &Workspace, format: Format) -> Result<Exported> {
    let items = items(ws)?;
    let files = match format {
        Format::Mif => mif_files(&items)?,
    };
    Ok(Exported {
        format,
        files,
        facts: items.len(),
    })
}

fn mif_files(items: &[Item]) -> Result<Vec<(String, String)>> {
    let at = generated_at(items);
    let mut supersedes: HashMap<&str, Vec<&str>> = HashMap::new();
    for i in items {
        if let Some(new) = &i.superseded_by {
            supersedes.entry(new).or_default().push(&i.id);
        }
    }
    items
        .iter()
        .map(|i| {
            let file = mif::render(
                i,
                supersedes.get(i.id.as_str()).map_or(&[], Vec::as_slice),
                &at,
            );
            mif::read(&file.name, &file.text).map_err(|problems| ExportError::Invalid {
                format: Format::Mif.name(),
                name: file.name.clone(),
                problems,
            })?;
            Ok((file.name, file.text))
        })
        .collect()
}

/// Writes an export into `dir` (docs/formats/README.md says what the directory may hold).
pub fn write(dir: &Path, exported: &Exported) -> Result<()> {
    Ok(write_dir(dir, exported.format.name(), &exported.files)?)
}
