use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};

use mneme::model::proposals::plan::Request;
use mneme::model::views::ProposedView;
use mneme::ops::evidence;
use mneme::ops::propose::{evidence_from, propose, Proposed};
use mneme::ops::Workspace;

use crate::cli::render::proposal::proposal_written;
use crate::cli::{utf8, CliError, Cx, ExitStatus, Result};

mod operation;

use operation::{operation, Op};

/// Propose a change to the facts, for a human to review (never interactive).
///
/// Writes exactly one file, `.ledger/proposals/<UTC time>-<hash>.json`, and never edits the
/// facts. Refuses (exit 1, nothing written) unknown files or fact ids, empty or oversized text,
/// and exact duplicates of a fact or of a pending proposal. Near-duplicates are allowed but
/// listed, so you can propose an update instead.
#[derive(Debug, clap::Args)]
#[command(
    arg_required_else_help = true,
    after_help = "Examples:
  mneme propose add --file architecture \"We use PostgreSQL 16, not SQLite.\" \\
      --reason \"decided in the storage review\" --evidence docs/adr/0003.md
  mneme propose update f-7f3cq \"We use PostgreSQL 17.\" --reason \"upgraded in #412\"
  mneme propose remove f-7f3cq --reason \"the service was retired\"
  echo \"Use the pool.\" | mneme propose supersede f-k2a9 --stdin --reason \"new driver\"
  mneme propose verify f-7f3cq --reason \"re-checked after the upgrade\" --evidence src/db.rs:12
  mneme propose state f-7f3cq archived --reason \"the service was retired\"
  mneme propose relate f-7f3cq --contradicts f-k2a9 --reason \"they disagree on pooling\"
  mneme propose --from-json ops.json --json"
)]
pub struct Args {
    #[command(subcommand)]
    op: Option<Op>,

    /// Read a proposal of several operations from FILE (`-` for stdin); see docs/format.md.
    #[arg(long, value_name = "FILE")]
    from_json: Option<PathBuf>,

    #[command(flatten)]
    meta: Meta,
}

#[derive(Debug, clap::Args)]
struct Meta {
    /// Why the ledger should change (required, here or in --from-json).
    #[arg(long, global = true, value_name = "TEXT")]
    reason: Option<OsString>,

    /// Evidence: file:line, commit id or URL; repeat for several.
    #[arg(long, global = true, value_name = "REF")]
    evidence: Vec<OsString>,

    /// Name of the proposing agent [default: $MNEME_AGENT].
    #[arg(long, global = true, value_name = "NAME")]
    agent: Option<OsString>,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let mut request = request(args)?;
    let ws = cx.workspace()?;
    evidence_from(&ws, &cx.cwd, &mut request);
    report(cx, &ws, propose(&ws, request)?)
}

/// What a written proposal is, as `propose` reports it (`review undo` too).
pub fn report(cx: &Cx, ws: &Workspace, proposed: Proposed) -> Result<ExitStatus> {
    let Proposed {
        planned,
        path,
        ledger,
    } = proposed;
    let cited = evidence::cited(ws, &planned.proposal.evidence);
    let view = ProposedView::new(
        &planned,
        ws.store.relative(&path).display().to_string(),
        &ledger,
        &cited,
    );
    if cx.ui.json {
        cx.ui.json(&view)?;
    } else {
        cx.ui.out(&proposal_written(&view))?;
    }
    // The process ends now: its memory goes back whole, faster than freeing every fact.
    std::mem::forget(ledger);
    Ok(ExitStatus::Success)
}

fn request(args: &Args) -> Result<Request> {
    let mut request = match (&args.op, &args.from_json) {
        (Some(_), Some(_)) => return Err(CliError::invalid_input(
            "give either an operation (add, update, remove, supersede, verify, state, relate, unrelate) or --from-json, not both",
        )),
        (Some(op), None) => Request {
            operations: vec![operation(op)?],
            ..Request::default()
        },
        (None, Some(file)) => read_request(file)?,
        (None, None) => {
            return Err(CliError::invalid_input(
                "name an operation (add, update, remove, supersede, verify, state, relate, unrelate) or --from-json FILE",
            ))
        }
    };
    let m = &args.meta;
    if let Some(reason) = &m.reason {
        request.reason = Some(utf8("--reason", reason)?);
    }
    for e in &m.evidence {
        request.evidence.push(utf8("--evidence", e)?);
    }
    let agent = match &m.agent {
        Some(a) => Some(a.clone()),
        None => std::env::var_os("MNEME_AGENT"),
    };
    if let Some(agent) = agent {
        if request.agent.is_none() || m.agent.is_some() {
            request.agent = Some(utf8("the agent name", &agent)?);
        }
    }
    Ok(request)
}

/// Largest `--from-json` input accepted.
const MAX_REQUEST: u64 = 1024 * 1024;

fn read_request(file: &Path) -> Result<Request> {
    let mut bytes = Vec::new();
    let shown = file.display().to_string();
    if file.as_os_str() == "-" {
        std::io::stdin()
            .take(MAX_REQUEST + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::input(Path::new("<stdin>"), e))?;
    } else {
        bytes = mneme::store::file::read_named(file, MAX_REQUEST).map_err(|e| {
            if e.kind() == std::io::ErrorKind::FileTooLarge {
                CliError::invalid_input(format!("{shown}: larger than {MAX_REQUEST} bytes"))
            } else {
                CliError::input(file, e)
            }
        })?;
    }
    if bytes.len() as u64 > MAX_REQUEST {
        return Err(CliError::invalid_input(format!(
            "{shown}: larger than {MAX_REQUEST} bytes"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| CliError::invalid_utf8(&shown))?;
    serde_json::from_str(&text).map_err(|e| {
        CliError::invalid_input(format!(
            "{shown}: not a valid proposal request: {e} (see docs/format.md)"
        ))
    })
}
