use std::path::PathBuf;

use mneme::model::facts::file::State;
use mneme::model::interchange::import::{Source, Split};
use mneme::model::proposals::proposal::Operation;
use mneme::model::views::{ImportSummary, ImportedOperation, SourceNote, WrittenProposal};
use mneme::ops::import::{import, Imported, Options};
use mneme::ops::tasks::env_agent;

use crate::cli::ui::{esc, esc1, paint, DIM, GOOD, ID, WARN};
use crate::cli::{Cx, ExitStatus, Result};

/// Turn knowledge from elsewhere into proposals a person reviews, never into facts.
///
/// Reads MIF memory files, compiled memory, memory records, a CLAUDE.md, an AGENTS.md (outside
/// mneme's block; a directory reads every tracked one under it, and a nested one's facts get its
/// directory as scope), Cursor, Copilot, Windsurf, Cline or Kiro rules (the globs a rule applies to
/// become its facts' scope; files mneme compiled from the ledger are skipped), a Cline memory
/// bank, architecture decision records or any Markdown notes. Each statement becomes an `add` in one proposal (or one per source file with
/// --split), citing the file and line it came from, in the fact file it fits. Statements the
/// ledger (or a pending proposal) already holds are skipped and counted; statements that hold
/// what looks like a secret, or that break the statement rules, are refused with why; existing
/// facts that read alike are named. A structured file (MIF, compiled, records) that breaks its
/// format's rules stops the import with nothing proposed. docs/formats/import.md says how each
/// source is read.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme import claude CLAUDE.md --dry-run
  mneme import agents AGENTS.md
  mneme import agents .   # every AGENTS.md: crates/db/AGENTS.md scoped to crates/db/**
  mneme import adr docs/adr --split
  mneme import claude CLAUDE.md --split=statement   # one proposal per statement
  mneme import cursor .cursor/rules
  mneme import copilot .github/instructions
  mneme import kiro .kiro/steering --split
  mneme import mif memory/
  mneme import records records.jsonl --json")]
pub struct Args {
    /// What PATH holds.
    #[arg(value_enum)]
    source: SourceArg,
    /// A file, or a directory of such files (not its subdirectories; for `claude` and
    /// `agents`, every tracked one under it).
    path: PathBuf,
    /// Show what would be proposed; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Several proposals, to review apart: one per source `file` (the default of a bare
    /// `--split`), or one per `statement`.
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "file", value_name = "BY")]
    split: Option<SplitArg>,
    /// Name of the importing agent [default: $MNEME_AGENT].
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum SplitArg {
    File,
    Statement,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum SourceArg {
    /// MIF memory files (`*.memory.md`), a file or a directory.
    Mif,
    /// Compiled memory: a directory with documents.jsonl and entries.jsonl.
    Compiled,
    /// Memory records: a JSON Lines file or a directory of them.
    Records,
    /// A CLAUDE.md.
    Claude,
    /// An AGENTS.md, outside mneme's block.
    Agents,
    /// `.cursorrules`, or a directory of `.mdc` rules such as `.cursor/rules`.
    Cursor,
    /// Copilot's instructions: `.github/instructions` (`applyTo`), or copilot-instructions.md.
    Copilot,
    /// Windsurf's rules: `.windsurf/rules` (`trigger: glob`), or `.windsurfrules`.
    Windsurf,
    /// Cline's rules: `.clinerules` (`paths`), a folder or a file.
    Cline,
    /// Kiro's steering files: `.kiro/steering` (`inclusion: fileMatch`).
    Kiro,
    /// A Cline memory bank: a directory of Markdown files.
    MemoryBank,
    /// Architecture decision records: a directory of `NNNN-title.md`.
    Adr,
    /// Any Markdown notes: a file or a directory.
    Notes,
}

impl From<SourceArg> for Source {
    fn from(s: SourceArg) -> Source {
        match s {
            SourceArg::Mif => Source::Mif,
            SourceArg::Compiled => Source::Compiled,
            SourceArg::Records => Source::Records,
            SourceArg::Claude => Source::Claude,
            SourceArg::Agents => Source::Agents,
            SourceArg::Cursor => Source::Cursor,
            SourceArg::Copilot => Source::Copilot,
            SourceArg::Windsurf => Source::Windsurf,
            SourceArg::Cline => Source::Cline,
            SourceArg::Kiro => Source::Kiro,
            SourceArg::MemoryBank => Source::MemoryBank,
            SourceArg::Adr => Source::Adr,
            SourceArg::Notes => Source::Notes,
        }
    }
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    let source = Source::from(args.source);
    let path = cx.cwd.join(&args.path);
    let imported = import(
        &ws,
        &Options {
            source,
            path: &path,
            dry_run: args.dry_run,
            split: match args.split {
                None => Split::None,
                Some(SplitArg::File) => Split::File,
                Some(SplitArg::Statement) => Split::Statement,
            },
            agent: args.agent.clone().or_else(env_agent),
        },
    )?;
    let summary = summary(source, args.dry_run, &imported);
    if cx.ui.json {
        cx.ui.json(&summary)?;
    } else {
        cx.ui.out(&render(&summary))?;
    }
    Ok(ExitStatus::Success)
}

fn notes(list: &[(String, String)]) -> Vec<SourceNote<'_>> {
    list.iter()
        .map(|(source, note)| SourceNote { source, note })
        .collect()
}

fn summary<'a>(source: Source, dry_run: bool, i: &'a Imported) -> ImportSummary<'a> {
    let operations = i
        .plan
        .operations
        .iter()
        .zip(&i.plan.sources)
        .filter_map(|(op, source)| match op {
            Operation::Add {
                fact_id,
                file,
                text,
                state,
                scope,
                ..
            } => Some(ImportedOperation {
                fact_id,
                file,
                text,
                source,
                state: state.as_ref().map(State::as_str),
                scope,
            }),
            _ => None,
        })
        .collect();
    ImportSummary {
        source: source.name(),
        dry_run,
        files: i.files,
        statements: i.statements,
        proposals: i
            .written
            .iter()
            .map(|(id, path)| WrittenProposal {
                id: id.clone(),
                path: path.display().to_string(),
            })
            .collect(),
        operations,
        duplicates: notes(&i.plan.duplicates),
        refused: notes(&i.plan.refused),
        unresolved: notes(&i.plan.unresolved),
        skipped_files: notes(&i.skipped),
        similar: &i.plan.similar,
    }
}

fn render(s: &ImportSummary) -> String {
    let mut out = format!(
        "Read {} statement(s) from {} file(s) ({}).\n",
        s.statements, s.files, s.source
    );
    if s.dry_run {
        out.push_str(&format!(
            "Would propose {} fact(s) (dry run: nothing written):\n",
            s.operations.len()
        ));
        for op in &s.operations {
            let state = op.state.map(|st| format!(" [{st}]")).unwrap_or_default();
            let scope = if op.scope.is_empty() {
                String::new()
            } else {
                format!(" (scope: {})", esc1(&op.scope.join(", ")))
            };
            out.push_str(&format!(
                "  {} {}{state}: {}  {}\n",
                paint(ID, esc1(op.fact_id)),
                esc1(op.file),
                esc1(op.text),
                paint(DIM, format!("{}{scope}", esc1(op.source)))
            ));
        }
    }
    for p in &s.proposals {
        out.push_str(&format!(
            "{} {} ({})\n",
            paint(GOOD, "Proposed"),
            paint(ID, esc1(&p.id)),
            esc1(&p.path)
        ));
    }
    if !s.dry_run && s.proposals.is_empty() {
        out.push_str("Nothing new to propose.\n");
    } else if !s.proposals.is_empty() {
        out.push_str(&format!(
            "  {} fact(s) to review. A human reviews them with `mneme review`.\n",
            s.operations.len()
        ));
    }
    let section = |out: &mut String, title: &str, list: &[SourceNote]| {
        if list.is_empty() {
            return;
        }
        out.push_str(&paint(WARN, format!("{title} ({}):\n", list.len())));
        for n in list {
            out.push_str(&format!("  {}: {}\n", esc1(n.source), esc(n.note)));
        }
    };
    if !s.duplicates.is_empty() {
        out.push_str(&format!(
            "Skipped {} statement(s) already held (in the ledger, a pending proposal or earlier in the import).\n",
            s.duplicates.len()
        ));
    }
    section(&mut out, "Refused", &s.refused);
    section(&mut out, "Not linked", &s.unresolved);
    section(&mut out, "Files not read", &s.skipped_files);
    if !s.similar.is_empty() {
        out.push_str(&paint(WARN, "Similar to existing facts:\n"));
        for sim in s.similar {
            let from = s.operations.get(sim.operation).map_or("", |o| o.source);
            out.push_str(&format!(
                "  {} ~ {} ({:.0}%): {}\n",
                esc1(from),
                paint(ID, esc1(&sim.fact_id)),
                sim.score * 100.0,
                esc1(&sim.text)
            ));
        }
    }
    out
}
