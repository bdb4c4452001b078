use std::path::PathBuf;

use mneme::model::agents::rules::Target;
use mneme::model::agents::runtimes::Runtime;
use mneme::model::base::paths;
use mneme::ops::setup::{compile_target, setup, Report, Scope, UserDirs};

use crate::cli::ui::{esc, paint, DIM, GOOD};
use crate::cli::{names, CliError, Cx, ExitStatus, Result};

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
/// drops the facts, and the next tool or prompt puts them back). `windsurf`, `cline` and `kiro`
/// (and `copilot` and `cursor`, besides their hooks) compile the approved facts into the agent's
/// own rule files (`compile:` in .ledger/config.yaml), which every approval keeps in step.
/// Each hook runs
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
  mneme setup copilot                # .github/hooks/mneme.json and .github/instructions/
  mneme setup kiro                   # the ledger compiled into .kiro/steering/
  mneme setup claude --remove")]
pub struct Args {
    /// claude, codex, gemini, cursor, opencode, qwen, pi, copilot, windsurf, cline or kiro.
    #[arg(value_parser = names(&WHAT, What::name, &[]))]
    what: What,
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

/// What `setup` sets up: a runtime's hooks, the rule files the ledger compiles into, or both
/// (Copilot and Cursor read rule files where no hook of mneme's runs: in the editor, on GitHub).
#[derive(Debug, Clone, Copy)]
enum What {
    Runtime(Runtime),
    Rules(Target),
}

const WHAT: [What; 11] = [
    What::Runtime(Runtime::Claude),
    What::Runtime(Runtime::Codex),
    What::Runtime(Runtime::Gemini),
    What::Runtime(Runtime::Cursor),
    What::Runtime(Runtime::Opencode),
    What::Runtime(Runtime::Qwen),
    What::Runtime(Runtime::Pi),
    What::Runtime(Runtime::Copilot),
    What::Rules(Target::Windsurf),
    What::Rules(Target::Cline),
    What::Rules(Target::Kiro),
];

impl What {
    fn name(&self) -> &'static str {
        match self {
            What::Runtime(r) => r.as_str(),
            What::Rules(t) => t.as_str(),
        }
    }

    /// The rule files it compiles the ledger into, if any.
    fn rules(self) -> Option<Target> {
        match self {
            What::Rules(t) => Some(t),
            What::Runtime(r) => Target::parse(r.as_str()),
        }
    }
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let mut reports = Vec::new();
    if let What::Runtime(runtime) = args.what {
        reports.push(runtime_setup(cx, args, runtime)?);
    }
    // Rule files belong to a repository: `--user` sets up hooks alone.
    if let Some(target) = args.what.rules().filter(|_| !args.user) {
        let ws = cx.workspace()?;
        reports.push(compile_target(&ws, target, args.remove, args.dry_run)?);
    } else if args.user && matches!(args.what, What::Rules(_)) {
        return Err(CliError::invalid_input(format!(
            "{} reads rule files from the repository: run `mneme setup {}` there, without --user",
            args.what.name(),
            args.what.name()
        )));
    }
    // One report, whatever was set up: `--json` prints one object.
    let mut reports = reports.into_iter();
    let Some(mut report) = reports.next() else {
        return Ok(ExitStatus::Success);
    };
    for more in reports {
        report.files.extend(more.files);
        report.ignored.extend(more.ignored);
        report.notes.extend(more.notes);
    }
    show(cx, &report)?;
    Ok(ExitStatus::Success)
}

fn runtime_setup(cx: &Cx, args: &Args, runtime: Runtime) -> Result<Report> {
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
    Ok(setup(
        runtime,
        &scope,
        ws.as_ref().map(|ws| &ws.repo),
        &agents_file,
        args.remove,
        args.dry_run,
    )?)
}

fn show(cx: &Cx, report: &Report) -> Result<()> {
    if cx.ui.json {
        return Ok(cx.ui.json(report)?);
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
    Ok(cx.ui.out(&out)?)
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
