use std::path::PathBuf;

use mneme::model::agents::runtimes::Runtime;
use mneme::model::base::paths;
use mneme::ops::setup::{setup, Scope, UserDirs};

use super::hook::runtime_parser;
use crate::cli::ui::{esc, paint, DIM, GOOD};
use crate::cli::{CliError, Cx, ExitStatus, Result};

/// Put the facts back into an agent runtime's context at session start and after compaction.
///
/// Adds mneme's hooks to the runtime's settings, merged into what is there (other keys and hooks
/// stay as they are): Claude Code's `SessionStart` (which also fires after a compaction) in
/// `.claude/settings.json`, with `MNEME_AGENT` set for its commands; Codex's `SessionStart` (also
/// after a compaction; a resumed session that already got the facts gets nothing), in
/// `.codex/hooks.json`, with `MNEME_AGENT` in `.codex/config.toml`; Gemini CLI's `SessionStart`
/// and `BeforeAgent` (each adds the facts where the session's transcript lacks them, as after a
/// compression), in `.gemini/settings.json`; Cursor's `sessionStart` in `.cursor/hooks.json` and
/// an always-apply rule, `.cursor/rules/mneme.mdc`; an OpenCode plugin, `.opencode/plugins/mneme.js`, that adds the
/// facts to every request's system prompt and to the compaction prompt; Qwen Code's
/// `SessionStart` (kept in its system prompt) and `PostToolUse` in `.qwen/settings.json`; a pi
/// extension, `.pi/extensions/mneme.ts`, that adds the facts to the system prompt pi builds for
/// every prompt and the facts about a file to the tool's result; Copilot CLI's `SessionStart`,
/// `UserPromptSubmit`, `PostToolUse` and `PreCompact` in `.github/hooks/mneme.json` (a compaction
/// drops the facts, and the next tool or prompt puts them back). Each hook runs
/// `mneme context --for <runtime>`. Safe to re-run;
/// `--remove` takes mneme's hooks out again. A settings file it cannot parse is refused, and
/// nothing is written. A file it writes that the project's `.gitignore` ignores is named, since
/// teammates would not get it.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme setup claude                 # .claude/settings.json in this repository (commit it)
  mneme setup codex --user           # ~/.codex/hooks.json, for every repository
  mneme setup gemini --dry-run       # show the change, write nothing
  mneme setup opencode --user        # ~/.config/opencode/plugins/mneme.js
  mneme setup pi                     # .pi/extensions/mneme.ts in this repository
  mneme setup qwen                   # .qwen/settings.json in this repository
  mneme setup copilot                # .github/hooks/mneme.json in this repository
  mneme setup claude --remove")]
pub struct Args {
    /// claude, codex, gemini, cursor, opencode, qwen, pi or copilot.
    #[arg(value_parser = runtime_parser())]
    runtime: Runtime,
    /// Write the settings in the repository (the default), to be committed for the whole team.
    #[arg(long, conflicts_with = "user")]
    project: bool,
    /// Write the settings in your home directory instead.
    #[arg(long)]
    user: bool,
    /// Take mneme's hooks out.
    #[arg(long)]
    remove: bool,
    /// Print what would change and write nothing.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = if args.user {
        None
    } else {
        Some(cx.workspace()?)
    };
    let (scope, agents_file) = match &ws {
        None => (Scope::User(user_dirs()?), paths::AGENTS_MD.to_owned()),
        Some(ws) => (
            Scope::Project(ws.store.root().to_owned()),
            ws.store.load_config()?.agents_file,
        ),
    };
    let report = setup(
        args.runtime,
        &scope,
        ws.as_ref().map(|ws| &ws.repo),
        &agents_file,
        args.remove,
        args.dry_run,
    )?;
    if cx.ui.json {
        cx.ui.json(&report)?;
        return Ok(ExitStatus::Success);
    }
    let mut out = String::new();
    for file in &report.files {
        let verb = if report.dry_run {
            format!("would be {}", file.action)
        } else {
            file.action.to_owned()
        };
        out.push_str(&format!(
            "{} {}\n",
            paint(GOOD, format!("{verb:>9}")),
            esc(&file.path.display().to_string())
        ));
        if report.dry_run {
            out.push_str(&esc(&file.diff));
        }
    }
    for note in &report.notes {
        out.push_str(&format!("{}\n", paint(DIM, format!("note: {note}"))));
    }
    cx.ui.out(&out)?;
    Ok(ExitStatus::Success)
}

/// The user's directories, as the runtimes find them: HOME, XDG_CONFIG_HOME, and the variables
/// that move a runtime's own directory.
pub fn user_dirs() -> Result<UserDirs> {
    let home: PathBuf = std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .ok_or_else(|| CliError::invalid_input("no HOME directory is set; use --project"))?
        .into();
    let dir = |var| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let config = dir("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"));
    let moved = [
        (".codex", dir("CODEX_HOME")),
        (".claude", dir("CLAUDE_CONFIG_DIR")),
        // Gemini CLI's variable moves the home directory that holds `.gemini/`.
        (".gemini", dir("GEMINI_CLI_HOME").map(|h| h.join(".gemini"))),
        // pi's variable moves its agent directory, `~/.pi/agent`.
        (".pi/agent", dir("PI_CODING_AGENT_DIR")),
        (".copilot", dir("COPILOT_HOME")),
    ]
    .into_iter()
    .filter_map(|(name, to)| Some((name, to?)))
    .collect();
    Ok(UserDirs {
        home,
        config,
        moved,
    })
}
