use crate::cli::{Cx, ExitStatus, Result};

/// Serve mneme's verbs as MCP tools on stdin and stdout, for an agent runtime to start.
///
/// Tools: `context` (the budgeted context), `facts`, `search`, `show`, `propose` (writes a
/// proposal for a human to review; there is no approval tool), and `task_ready`, `task_create`,
/// `task_update` (claim, note) and `task_close`. Each gives the JSON of the matching `--json`
/// verb as `structuredContent` and as text; a failure is a result with `isError` and mneme's
/// error object. Clients of MCP 2025-11-25 (`initialize`) and 2026-07-28 (`server/discover`)
/// both work. The repository is the one mneme starts in (`-C DIR` to choose).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme mcp                          # what an MCP client runs
  claude mcp add mneme -- mneme mcp  # register it with Claude Code")]
pub struct Args {}

pub fn run(cx: &Cx, _args: &Args) -> Result<ExitStatus> {
    crate::mcp::serve(cx.cwd.clone())?;
    Ok(ExitStatus::Success)
}
