use mneme::model::agents::briefing::{render, HOOK_BUDGET};
use mneme::ops::context::{context, facts_about, repo_relative};

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
/// `--files PATH…` gives only the facts about those files (their evidence cites one).
///
/// `--for <runtime>` prints it in the shape that runtime's hook expects (what `mneme setup`
/// installs); it never fails the agent's session: outside a ledger, or on any error, it prints a
/// short explanation in that shape and exits 0.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme context
  mneme context --max-chars 4000
  mneme context --json | jq '.files[].facts[].id'
  mneme context --files src/db.rs          # the facts about these files
  mneme context --for claude              # what Claude Code's SessionStart hook runs")]
pub struct Args {
    /// At most this many characters of text (a hook's default: 9000).
    #[arg(long, value_name = "N")]
    max_chars: Option<usize>,
    /// Print for an agent runtime's hook: claude, codex, gemini, cursor, opencode, qwen, pi or copilot.
    #[arg(long = "for", value_name = "RUNTIME", value_parser = hook::runtime_parser())]
    runtime: Option<Runtime>,
    /// The hook event that runs it (`SessionStart`, `BeforeAgent`, `PostToolUse`; the `PostCompact`,
    /// `UserPromptSubmit` and `PreCompress` hooks of older setups do nothing); with --for.
    #[arg(
        long,
        value_name = "EVENT",
        requires = "runtime",
        default_value = "SessionStart"
    )]
    event: String,
    /// Only the facts about these files: those whose evidence cites one of them.
    #[arg(long, value_name = "PATH", num_args = 1.., conflicts_with = "runtime")]
    files: Vec<String>,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    if let Some(runtime) = args.runtime {
        let budget = args.max_chars.unwrap_or(HOOK_BUDGET);
        return hook::run(cx, runtime, &args.event, budget);
    }
    let ws = cx.workspace()?;
    let max_chars = args.max_chars.filter(|_| !cx.ui.json);
    let context = if args.files.is_empty() {
        context(&ws, cx.ui, max_chars)?
    } else {
        let files: Vec<String> = args
            .files
            .iter()
            .map(|f| repo_relative(&ws, &cx.cwd, f).unwrap_or_else(|| f.clone()))
            .collect();
        facts_about(&ws, cx.ui, &files)?
    };
    if cx.ui.json {
        cx.ui.json(&context)?;
    } else {
        cx.ui.out(&render(&context, args.max_chars))?;
    }
    // The process ends now: its memory goes back whole, faster than freeing every fact.
    std::mem::forget(context);
    Ok(ExitStatus::Success)
}
