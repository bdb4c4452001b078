use mneme::model::interchange::Format;
use mneme::model::views::ExportSummary;
use mneme::ops::export::{export, write};
use mneme::ops::Notes;

use crate::cli::error::{CliError, Code};
use crate::cli::ui::esc1;
use crate::cli::{Cx, ExitStatus, Result};

/// Write the ledger in another memory format, for the other tools a team runs.
///
/// The same ledger and history always give the same bytes: ids are UUIDs derived from fact ids
/// and times come from the decisions in git. Every file is checked against its format's rules
/// before anything is written. docs/formats/ says which field is filled from what.
///
/// `mif` and `compiled` are directories of files and need --out. `records` (JSON Lines) and
/// `context-pack` (one JSON object) are printed on standard output, or written into --out as
/// `records.jsonl` or `context-pack.json`. The directory given with --out is created when
/// missing; it must be empty or hold an earlier export, whose files are replaced (and removed
/// when their fact is gone). Nothing else in it is touched.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme export --format mif --out memory/
  mneme export --format compiled --out compiled/
  mneme export --format records > records.jsonl
  mneme export --format context-pack --task \"speed up the importer\"
  mneme export --format mif --out memory/ --json")]
pub struct Args {
    /// The format to write.
    #[arg(long, value_enum)]
    format: FormatArg,
    /// The directory to write into.
    #[arg(long, value_name = "DIR")]
    out: Option<std::path::PathBuf>,
    /// What the context pack is for (`context-pack` only).
    #[arg(long, value_name = "TEXT")]
    task: Option<String>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum FormatArg {
    /// MIF Level 3: one `{uuid}-{slug}.memory.md` per fact.
    Mif,
    /// Compiled memory: documents.jsonl, entries.jsonl and a Markdown view per fact file.
    Compiled,
    /// Memory records: one JSON object per fact, one per line.
    Records,
    /// A context pack: the current facts for a task, as one JSON object.
    ContextPack,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Mif => Format::Mif,
            FormatArg::Compiled => Format::Compiled,
            FormatArg::Records => Format::Records,
            FormatArg::ContextPack => Format::ContextPack,
        }
    }
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let format = Format::from(args.format);
    if args.task.is_some() && format != Format::ContextPack {
        return Err(
            CliError::new(Code::InvalidInput, "--task is for context packs only")
                .with_hint("use it with --format context-pack"),
        );
    }
    if args.out.is_none() && format.is_directory() {
        return Err(CliError::new(
            Code::InvalidInput,
            format!("the {} format is a directory of files", format.name()),
        )
        .with_hint("give one with --out DIR"));
    }
    let ws = cx.workspace()?;
    let exported = export(&ws, format, args.task.as_deref())?;
    let Some(out) = &args.out else {
        // A one-stream format: the stream is the output.
        cx.ui.out(&exported.files[0].1)?;
        return Ok(ExitStatus::Success);
    };
    let dir = cx.cwd.join(out);
    write(&dir, &exported)?;
    let summary = ExportSummary {
        format: format.name(),
        out: out.display().to_string(),
        facts: exported.facts,
        files: exported.files.iter().map(|(n, _)| n.as_str()).collect(),
        left_out: &exported.left_out,
    };
    if cx.ui.json {
        cx.ui.json(&summary)?;
    } else {
        cx.ui.out(&format!(
            "Exported {} fact(s) as {} into {} ({} file(s)).\n",
            summary.facts,
            summary.format,
            esc1(&summary.out),
            summary.files.len()
        ))?;
        if !exported.left_out.is_empty() {
            cx.ui.warn(&format!(
                "left out {} fact(s) with neither evidence nor a recorded approval, which {} entries need: {}",
                exported.left_out.len(),
                summary.format,
                exported.left_out.join(", ")
            ));
        }
    }
    Ok(ExitStatus::Success)
}
