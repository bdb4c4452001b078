use mneme::model::agents::briefing::{render, HOOK_BUDGET};
use mneme::ops::context::context;

use mneme::model::agents::runtimes::Runtime;

use super::hook;
use crate::cli::{Cx, ExitStatus, Result};

/// Print what an agent must know at session start.
///
/// Every active fact, grouped by file, with its id; the tasks in progress (with their latest
/// note) and the ready ones; the pending proposals (not yet facts); and how much of the line
/// budget the facts use. Facts outrank conversation history. With `--max-chars`, the most
/// recently verified facts come first and what does not fit is named in a closing line, never
/// cut in the middle of a fact.
///
/// `--for <runtime>` prints it in the shape that runtime's hook expects (what `mneme setup`
/// installs); it never fails the agent's session: outside a ledger, or on any error, it prints a
/// short explanation in that shape and exits 0.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme context
  mneme context --max-chars 4000
  mneme context --json | jq '.files[].facts[].id'
  mneme context --for claude              # what Claude Code's SessionStart hook runs")]
pub struct Args {
    /// At most this many characters of text (a hook's default: 9000).
    #[arg(long, value_name = "N")]
    max_chars: Option<usize>,
    /// Print for an agent runtime's hook: claude, codex, gemini, cursor or opencode.
    #[arg(long = "for", value_name = "RUNTIME", value_parser = hook::runtime_parser())]
    runtime: Option<Runtime>,
    /// The hook event that runs it (`SessionStart`, `BeforeAgent`; the `PostCompact`,
    /// `UserPromptSubmit` and `PreCompress` hooks of older setups do nothing); with --for.
    #[arg(
        long,
        value_name = "EVENT",
        requires = "runtime",
        default_value = "SessionStart"
    )]
    event: String,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    if let Some(runtime) = args.runtime {
        let budget = args.max_chars.unwrap_or(HOOK_BUDGET);
        return hook::run(cx, runtime, &args.event, budget);
    }
    let ws = cx.workspace()?;
    let max_chars = args.max_chars.filter(|_| !cx.ui.json);
    let context = context(&ws, cx.ui, max_chars)?;
    if cx.ui.json {
        cx.ui.json(&context)?;
    } else {
        cx.ui.out(&render(&context, args.max_chars))?;
    }
    Ok(ExitStatus::Success)
}
