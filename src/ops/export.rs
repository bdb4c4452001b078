//! `export`: the ledger and its decisions in another memory format (docs/formats/).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::git::history::decisions;
use crate::model::decision::Verdict;
use crate::model::interchange::{compiled, generated_at, mif, Event, ExportError, Format, Item};
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
}

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
    let items = ledger
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
        .collect::<Result<Vec<Item>>>()?;
    Ok(Snapshot { items, titles })
}

/// Renders the ledger in `format` and checks every file against the format's rules.
pub fn export(ws: &Workspace, format: Format) -> Result<Exported> {
    let Snapshot { items, titles } = snapshot(ws)?;
    let at = generated_at(&items);
    let (files, left_out) = match format {
        Format::Mif => (mif_files(&items, &at)?, Vec::new()),
        Format::Compiled => {
            let c = compiled::render(&items, &titles, &at);
            let (documents, entries) = (&c.files[0].1, &c.files[1].1);
            let problems = compiled::check(documents, entries);
            if !problems.is_empty() {
                return Err(invalid(format, "entries.jsonl", problems));
            }
            (c.files, c.left_out)
        }
    };
    Ok(Exported {
        format,
        facts: items.len() - left_out.len(),
        files,
        left_out,
    })
}

fn invalid(format: Format, name: &str, problems: Vec<String>) -> crate::ops::Error {
    ExportError::Invalid {
        format: format.name(),
        name: name.to_owned(),
        problems,
    }
    .into()
}

fn mif_files(items: &[Item], at: &str) -> Result<Vec<(String, String)>> {
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
                at,
            );
            mif::read(&file.name, &file.text)
                .map_err(|problems| invalid(Format::Mif, &file.name, problems))?;
            Ok((file.name, file.text))
        })
        .collect()
}

/// Writes an export into `dir` (docs/formats/README.md says what the directory may hold).
pub fn write(dir: &Path, exported: &Exported) -> Result<()> {
    Ok(write_dir(dir, exported.format.name(), &exported.files)?)
}
