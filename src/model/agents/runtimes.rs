//! The agent runtimes mneme puts facts back into: their hook events, the shape their hooks
//! print, and the hook entries `mneme setup` keeps in their JSON settings. Pure: settings in,
//! settings out.

use serde_json::{json, Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    Claude,
    Codex,
    Gemini,
    Cursor,
    Opencode,
    Qwen,
    Pi,
    Copilot,
}

impl Runtime {
    pub const ALL: [Runtime; 8] = [
        Runtime::Claude,
        Runtime::Codex,
        Runtime::Gemini,
        Runtime::Cursor,
        Runtime::Opencode,
        Runtime::Qwen,
        Runtime::Pi,
        Runtime::Copilot,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Runtime::Claude => "claude",
            Runtime::Codex => "codex",
            Runtime::Gemini => "gemini",
            Runtime::Cursor => "cursor",
            Runtime::Opencode => "opencode",
            Runtime::Qwen => "qwen",
            Runtime::Pi => "pi",
            Runtime::Copilot => "copilot",
        }
    }

    /// A hook's time limit in the unit the runtime reads: 10 seconds. Gemini CLI counts
    /// milliseconds (10 there was 10 ms, and every hook timed out); Qwen Code, its fork, reads
    /// seconds (and 1,000 or more as milliseconds).
    pub fn hook_timeout(self) -> u64 {
        match self {
            Runtime::Gemini => 10_000,
            _ => 10,
        }
    }

    /// The name claims and proposals record for an agent of this runtime (`MNEME_AGENT`).
    pub fn agent_name(self) -> &'static str {
        match self {
            Runtime::Claude => "claude-code",
            Runtime::Codex => "codex",
            Runtime::Gemini => "gemini-cli",
            Runtime::Cursor => "cursor",
            Runtime::Opencode => "opencode",
            Runtime::Qwen => "qwen-code",
            Runtime::Pi => "pi",
            Runtime::Copilot => "copilot-cli",
        }
    }

    /// The line a hook adds when the runtime did not set `MNEME_AGENT` for the agent's commands
    /// (Gemini CLI, Cursor and Copilot CLI have no setting for it): how to name itself.
    pub fn identity_hint(self) -> String {
        let name = self.agent_name();
        format!(
            "\nYou are `{name}` to mneme: give `--agent {name}` to `mneme propose` and `mneme update`, or set MNEME_AGENT={name}.\n"
        )
    }

    /// What the hook does at `event` (with the session's `source`, where the runtime gives
    /// one): put the context in, put it in only where the session's history lacks it, or
    /// nothing.
    ///
    /// Codex keeps hook context in the session's history: a resumed session already holds the
    /// facts, and SessionStart `compact` puts them back after a compaction. The PostCompact and
    /// UserPromptSubmit hooks of older setups would add copies, so they do nothing.
    pub fn on(self, event: &str, source: Option<&str>) -> Step {
        match (self, event) {
            (Runtime::Codex, "SessionStart") if source == Some("resume") => Step::InjectIfNew,
            (Runtime::Codex, "PostCompact" | "UserPromptSubmit") => Step::Skip,
            // PreCompress fires before every model request, compressed or not: no mark. Each
            // turn's BeforeAgent (and SessionStart) puts the facts in when the session's
            // transcript shows them gone from the history (a compression replaced it).
            (Runtime::Gemini, "PreCompress") => Step::Skip,
            (Runtime::Gemini, "SessionStart" | "BeforeAgent") => Step::IfAbsent,
            (Runtime::Claude | Runtime::Codex, "PostToolUse")
            | (Runtime::Gemini, "AfterTool")
            | (Runtime::Opencode, OPENCODE_TOOL_EVENT) => Step::AboutFiles,
            (Runtime::Opencode, OPENCODE_COMPACTING_EVENT) => Step::Forget,
            (Runtime::Qwen, "PostToolUse") => Step::AboutFiles,
            (Runtime::Pi, PI_TOOL_EVENT) => Step::AboutFiles,
            (Runtime::Pi, PI_COMPACT_EVENT) => Step::Forget,
            // Copilot CLI's compaction drops the session's start with the rest: PreCompact
            // drops the record, and the next tool or prompt puts the facts back.
            (Runtime::Copilot, "PreCompact") => Step::Drop,
            (Runtime::Copilot, "PostToolUse") => Step::StartAndAboutFiles,
            (Runtime::Copilot, "UserPromptSubmit") => Step::InjectIfNew,
            _ => Step::Inject,
        }
    }

    /// Whether mneme's hooks give this runtime the facts about a file when its agent reads or
    /// edits it. Cursor's hooks cannot add to the agent's context after a tool: its sessions
    /// start with every fact.
    pub fn delivers_about_files(self) -> bool {
        self != Runtime::Cursor
    }

    /// Whether what the hook gives a session after a compaction reaches the model, so that the
    /// facts about the files the session worked on can come back with it. Qwen Code's
    /// `SessionStart` text lives in the system prompt, which a compaction keeps, and its
    /// `compact` start reaches no request: there they come back when a file is touched again.
    pub fn carries_over(self) -> bool {
        matches!(
            self,
            Runtime::Claude | Runtime::Codex | Runtime::Copilot | Runtime::Gemini
        )
    }

    /// The rule files the runtime reads by itself where the ledger compiles into them: its hooks
    /// then leave out the facts those files carry.
    pub fn rule_target(self) -> Option<&'static str> {
        match self {
            Runtime::Copilot => Some("copilot"),
            Runtime::Cursor => Some("cursor"),
            _ => None,
        }
    }

    /// Whether the hook prints the runtime's JSON; a plugin or extension of mneme's own reads
    /// the text itself (OpenCode, pi).
    pub fn prints_json(self) -> bool {
        !matches!(self, Runtime::Opencode | Runtime::Pi)
    }

    /// What the hook prints: the runtime's JSON (`hookSpecificOutput.additionalContext`; Copilot
    /// CLI reads only a top-level `additionalContext`), or the text itself
    /// ([`Runtime::prints_json`]).
    pub fn output(self, event: &str, text: &str) -> String {
        if !self.prints_json() {
            return text.to_owned();
        }
        if self == Runtime::Copilot {
            return json!({ "additionalContext": text }).to_string();
        }
        json!({
            "hookSpecificOutput": {
                "hookEventName": event,
                "additionalContext": text,
            }
        })
        .to_string()
    }
}

/// What a hook event does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Inject,
    /// Inject unless this session's history already holds the facts.
    InjectIfNew,
    /// Inject unless the session's transcript shows the facts in its current history.
    IfAbsent,
    /// After a tool read or edited files: the facts about them the session was not given yet.
    AboutFiles,
    /// A compaction is about to drop what the session was given (OpenCode, whose facts ride
    /// on each request's system prompt): forget it, so the files bring their facts again.
    Forget,
    /// A compaction is about to drop everything the session was given, its start too (Copilot
    /// CLI): the session's record goes.
    Drop,
    /// [`Step::AboutFiles`], after the session's facts when its record is gone (a compaction
    /// dropped them): the first tool after a compaction puts them back.
    StartAndAboutFiles,
    Skip,
}

/// What a runtime tells its hook on stdin, as far as mneme uses it. The JSON is the runtime's
/// (or anyone's): anything missing or malformed is `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookInput {
    pub session_id: Option<String>,
    /// SessionStart's source: `startup`, `resume`, `clear` or `compact`.
    pub source: Option<String>,
    /// The session's transcript (Gemini CLI: JSON lines).
    pub transcript_path: Option<String>,
    /// The turn's prompt (Gemini CLI's BeforeAgent), which carries SessionStart's context at a
    /// session's first turn.
    pub prompt: Option<String>,
    /// The files a tool read or edited, as the runtime gives them (`tool_input.file_path`).
    pub files: Vec<String>,
    /// What a compaction kept of the session's history, where the runtime keeps some of it
    /// (pi's extension sends the texts that carried facts about files).
    pub kept: Option<String>,
}

impl HookInput {
    pub fn parse(text: &str) -> HookInput {
        let Ok(Value::Object(v)) = serde_json::from_str::<Value>(text) else {
            return HookInput::default();
        };
        let text = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        // An id or a source longer than this is nothing a runtime sends.
        let short = |k: &str| text(k).filter(|s| s.len() <= 256);
        let tool_input = |k: &str| {
            v.get("tool_input")
                .and_then(|t| t.get(k))
                .and_then(Value::as_str)
        };
        // Claude Code's Read, Edit, Write and MultiEdit, and Gemini CLI's read_file, write_file
        // and replace, name their file `file_path`; Copilot CLI's view, edit and create `path`;
        // Codex's shell and apply_patch give their `command`.
        let mut files: Vec<String> = [tool_input("file_path"), tool_input("path")]
            .into_iter()
            .flatten()
            .map(str::to_owned)
            .collect();
        files.extend(tool_input("command").map(command_files).unwrap_or_default());
        files.retain(|p| !p.is_empty() && p.len() <= 4096);
        HookInput {
            session_id: short("session_id"),
            source: short("source"),
            transcript_path: text("transcript_path"),
            prompt: text("prompt"),
            files,
            kept: text("kept"),
        }
    }
}

/// The paths a Codex tool's `command` may name: the files an `apply_patch` patch updates, adds,
/// deletes or moves to (its `*** Update File: <path>` lines), and the words of a shell command
/// (`sed -n 1,80p src/db.rs`): the first [`MAX_COMMAND_WORDS`] of them all. Which of them are files
/// that facts cite is the caller's to see: any other word matches none.
fn command_files(command: &str) -> Vec<String> {
    const HEADERS: [&str; 4] = [
        "*** Update File: ",
        "*** Add File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    let headers = command
        .lines()
        .filter_map(|l| HEADERS.iter().find_map(|h| l.strip_prefix(h)))
        .map(str::trim);
    let words = shell_words(command);
    let words = words
        .iter()
        .map(String::as_str)
        .filter(|w| !w.starts_with('-') && !w.starts_with('$'));
    let mut files: Vec<String> = Vec::new();
    // However long the patch: at most as many paths as a command's words.
    for path in headers.chain(words).take(MAX_COMMAND_WORDS) {
        if !path.is_empty() && !files.iter().any(|f| f == path) {
            files.push(path.to_owned());
        }
    }
    files
}

/// The words of a shell command as the shell reads them: quotes keep what they hold together
/// (`'app/[locale]/(auth)/page.tsx'`), a backslash escapes the next character, and outside
/// quotes blanks and `;|&<>()` and backquotes end a word. At most [`MAX_COMMAND_WORDS`].
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut started = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                started = true;
                word.extend(chars.by_ref().take_while(|&q| q != '\''));
            }
            '"' => {
                started = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        _ => word.push(q),
                    }
                }
            }
            '\\' => {
                started = true;
                word.extend(chars.next());
            }
            c if c.is_whitespace() || ";|&<>()`".contains(c) => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                    if words.len() == MAX_COMMAND_WORDS {
                        return words;
                    }
                }
            }
            c => {
                started = true;
                word.push(c);
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// How many paths [`command_files`] takes of a command, the patch's and the shell's words
/// together: a heredoc's body is no list of files, and a patch of thousands is matched by
/// its first.
const MAX_COMMAND_WORDS: usize = 64;

/// Which of some needles a Gemini CLI transcript's current history holds, told line by line, so
/// that a transcript of any size is read in bounded memory. The transcript is JSON lines: a
/// message record appends to the history, a `$set` of `messages` replaces it (a resume, or a
/// compression that leaves only its summary). Lines are matched as text: needles are ASCII
/// with nothing JSON escapes.
pub struct TranscriptScan<'a> {
    needles: &'a [&'a str],
    held: Vec<bool>,
}

impl<'a> TranscriptScan<'a> {
    pub fn new(needles: &'a [&'a str]) -> TranscriptScan<'a> {
        TranscriptScan {
            needles,
            held: vec![false; needles.len()],
        }
    }

    pub fn line(&mut self, line: &str) {
        let replaces = line.contains("\"$set\"") && line.contains("\"messages\"");
        for (held, needle) in self.held.iter_mut().zip(self.needles) {
            if replaces {
                *held = line.contains(needle);
            } else if line.contains(needle) {
                *held = true;
            }
        }
    }

    pub fn held(&self) -> &[bool] {
        &self.held
    }
}

/// One hook `mneme setup` installs: the event, its matcher, and the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    pub event: &'static str,
    pub matcher: Option<&'static str>,
    pub command: String,
}

/// The hooks each runtime with a JSON hook file gets. Claude Code's and Codex's `SessionStart`
/// also fire after a compaction (`compact`); Gemini CLI's `BeforeAgent` puts the facts back at
/// the turn after a compression, read from the session's transcript.
pub fn hooks(runtime: Runtime) -> Vec<Hook> {
    let hook = |event, matcher| Hook {
        event,
        matcher,
        command: hook_command(runtime, event),
    };
    match runtime {
        // PostToolUse after the tools that read or edit one file: the facts about it.
        Runtime::Claude => vec![
            hook("SessionStart", Some("startup|resume|clear|compact")),
            hook("PostToolUse", Some(TOUCHING_TOOLS)),
        ],
        // PostToolUse after the shell and apply_patch, whose commands name the files.
        Runtime::Codex => vec![
            hook("SessionStart", Some("startup|resume|clear|compact")),
            hook("PostToolUse", Some(CODEX_TOUCHING_TOOLS)),
        ],
        // Gemini compares lifecycle matchers as exact strings; no matcher matches every source.
        // AfterTool after the tools that read or write one file (a regex over tool names).
        Runtime::Gemini => vec![
            hook("SessionStart", None),
            hook("BeforeAgent", None),
            hook("AfterTool", Some(GEMINI_TOUCHING_TOOLS)),
        ],
        Runtime::Cursor => vec![hook("sessionStart", None)],
        Runtime::Opencode | Runtime::Pi => Vec::new(),
        // Claude-shaped. SessionStart's text stays in the system prompt, where a compaction
        // leaves it; its `compact` source after one starts the session's record afresh, so the
        // files bring the facts about them that rode on the tool results it summarised away.
        Runtime::Qwen => vec![
            hook("SessionStart", None),
            hook("PostToolUse", Some(QWEN_TOUCHING_TOOLS)),
        ],
        // Each event by its PascalCase name only (both names would run it twice), whose input
        // is Claude-shaped. SessionStart's text is the history's first message, replaced at
        // every process start; a compaction drops it (PreCompact drops the record), and then
        // the first tool after it or the next prompt puts the facts back.
        Runtime::Copilot => vec![
            hook("SessionStart", None),
            hook("UserPromptSubmit", None),
            hook("PostToolUse", Some(COPILOT_TOUCHING_TOOLS)),
            hook("PreCompact", None),
        ],
    }
}

/// Claude Code's tools that read or edit a file: its `PostToolUse` hook's matcher.
pub const TOUCHING_TOOLS: &str = "Read|Edit|Write|MultiEdit";

/// Codex's tools that read or edit files: its shell (`Bash` to hooks) and `apply_patch`.
pub const CODEX_TOUCHING_TOOLS: &str = "Bash|apply_patch";

/// The events mneme's OpenCode plugin runs `mneme context` for besides the session's facts: after
/// a tool, and when a compaction starts. It gives them the session and file on stdin.
pub const OPENCODE_TOOL_EVENT: &str = "tool.execute.after";
pub const OPENCODE_COMPACTING_EVENT: &str = "session.compacting";

/// The events mneme's pi extension runs `mneme context` for besides the session's facts: after
/// `read`, `edit` or `write`, and after a compaction. It gives them the session and file on stdin.
pub const PI_TOOL_EVENT: &str = "tool_result";
pub const PI_COMPACT_EVENT: &str = "session_compact";

/// Gemini CLI's tools that read or edit one file: its `AfterTool` hook's matcher.
pub const GEMINI_TOUCHING_TOOLS: &str = "read_file|write_file|replace";

/// Copilot CLI's tools that read or edit one file: its `PostToolUse` hook's matcher (matched
/// against the tool's own name and its Claude Code name alike).
pub const COPILOT_TOUCHING_TOOLS: &str = "view|edit|create";

/// Qwen Code's tools that read or edit one file: its `PostToolUse` hook's matcher.
pub const QWEN_TOUCHING_TOOLS: &str = "read_file|write_file|edit";

/// What the agent reads when the hook finds no `mneme` to run.
pub const NOT_INSTALLED: &str = "mneme is not installed where this hook runs (no `mneme` on its PATH or in the project node_modules/.bin), so the approved facts of this project were not loaded into this session. Read the Markdown files in .ledger/facts/ before you change code: they outrank the conversation. Tell the user that mneme needs installing; `mneme doctor` then checks the setup.";

/// Where a project's own npm install (`npm install -D mneme-ledger`) puts `mneme`, relative to
/// the root of its work tree.
pub const PROJECT_MNEME: &str = "node_modules/.bin/mneme";

/// How a hook starts looking for `mneme`: on its PATH. Also how its commands are recognised.
const ON_PATH: &str = "m=$(command -v mneme)";

/// Finds the `mneme` a hook runs, as `$m`: the one on the hook's PATH, else the project's
/// [`PROJECT_MNEME`].
fn find_mneme() -> String {
    format!(r#"{ON_PATH} || m="$(git rev-parse --show-toplevel 2>/dev/null)/{PROJECT_MNEME}""#)
}

/// The POSIX shell command of a hook: `mneme context …` with the `mneme` [`find_mneme`] finds,
/// else exit 0 with [`NOT_INSTALLED`] in the runtime's shape at session start (and nothing at
/// each turn, where copies would pile up). A bare `mneme` would exit 127, which Gemini CLI
/// takes as "deny" and blocks every prompt.
pub fn hook_command(runtime: Runtime, event: &str) -> String {
    let find = find_mneme();
    let run = format!(r#""$m" context --for {} --event {event}"#, runtime.as_str());
    // Hooks that run every turn, tool call or compaction: a notice there would pile up.
    if matches!(
        event,
        "BeforeAgent" | "PostToolUse" | "AfterTool" | "UserPromptSubmit" | "PreCompact"
    ) {
        return format!(r#"{find}; if [ -x "$m" ]; then {run}; fi"#);
    }
    let notice = shell_quote(&runtime.output(event, NOT_INSTALLED));
    format!(r#"{find}; if [ -x "$m" ]; then {run}; else printf '%s\n' {notice}; fi"#)
}

/// `text` as one POSIX shell word.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Why a settings file cannot be edited.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error("not valid JSON: {0}")]
    Json(String),
    #[error("`{0}` is not what the runtime documents (expected an object)")]
    Shape(&'static str),
    #[error("not valid TOML: {0}")]
    Toml(String),
}

/// Whether a hook command is one of mneme's (any version of it: older ones ran `mneme context`
/// directly, newer ones the `mneme` they find as `$m`).
fn is_ours(command: &str) -> bool {
    // Matched without quotes: settings files hold the command JSON-escaped.
    command.contains("mneme context --for ")
        || (command.contains(ON_PATH) && command.contains(" context --for "))
}

/// Whether a runtime's settings file holds any of mneme's hooks.
pub fn holds_hooks(settings: &str) -> bool {
    is_ours(settings)
}

/// `settings` (a JSON document, or empty) with mneme's hooks for `runtime` in place and every
/// other key and hook as it was; `agents_file` is the instructions file with mneme's block,
/// which Gemini CLI is told to read. With `remove`, mneme's hooks are taken out instead, and
/// what that leaves empty goes too.
pub fn edit_settings(
    settings: &str,
    runtime: Runtime,
    agents_file: &str,
    remove: bool,
) -> Result<String, SettingsError> {
    let mut root: Value = if settings.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_json::from_str(settings).map_err(|e| SettingsError::Json(e.to_string()))?
    };
    let object = root
        .as_object_mut()
        .ok_or(SettingsError::Shape("the file"))?;
    // Cursor's and Copilot CLI's files carry a format version, first in a file setup creates.
    let versioned = matches!(runtime, Runtime::Cursor | Runtime::Copilot);
    if versioned && !remove {
        object.entry("version").or_insert_with(|| json!(1));
    }
    let hooks = object
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or(SettingsError::Shape("hooks"))?;
    // Copilot CLI names a hook's POSIX command `bash`; the others `command`.
    let ours = |h: &Value| {
        ["command", "bash"]
            .iter()
            .any(|k| h.get(k).and_then(Value::as_str).is_some_and(is_ours))
    };
    for event in hooks.values_mut() {
        let groups = event
            .as_array_mut()
            .ok_or(SettingsError::Shape("hooks.<event>"))?;
        for group in groups.iter_mut() {
            if let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                list.retain(|h| !ours(h));
            }
        }
        // Cursor and Copilot CLI list commands directly; the others group them under a
        // matcher.
        groups.retain(|g| {
            !ours(g)
                && g.get("hooks")
                    .and_then(Value::as_array)
                    .is_none_or(|l| !l.is_empty())
        });
    }
    hooks.retain(|_, groups| groups.as_array().is_none_or(|g| !g.is_empty()));
    if !remove {
        for hook in self::hooks(runtime) {
            let mut group = Map::new();
            if let Some(m) = hook.matcher {
                group.insert("matcher".into(), json!(m));
            }
            if runtime == Runtime::Cursor {
                group.insert("command".into(), json!(hook.command));
            } else if runtime == Runtime::Copilot {
                group.insert("type".into(), json!("command"));
                group.insert("bash".into(), json!(hook.command));
                group.insert("timeoutSec".into(), json!(runtime.hook_timeout()));
            } else {
                group.insert(
                    "hooks".into(),
                    json!([{ "type": "command", "command": hook.command, "timeout": runtime.hook_timeout() }]),
                );
            }
            hooks
                .entry(hook.event)
                .or_insert_with(|| json!([]))
                .as_array_mut()
                .ok_or(SettingsError::Shape("hooks.<event>"))?
                .push(Value::Object(group));
        }
    }
    if hooks.is_empty() {
        object.remove("hooks");
    }
    // A version left with nothing else held only mneme's hooks.
    if versioned && remove && object.len() == 1 && object.get("version") == Some(&json!(1)) {
        object.remove("version");
    }
    if runtime == Runtime::Claude {
        set_agent_env(object, remove)?;
    }
    if runtime == Runtime::Gemini {
        set_context_file(object, agents_file, remove)?;
    }
    let mut text = serde_json::to_string_pretty(&root).expect("JSON serializes");
    text.push('\n');
    Ok(text)
}

/// Claude Code's `env` setting: every command the agent runs knows its name.
fn set_agent_env(object: &mut Map<String, Value>, remove: bool) -> Result<(), SettingsError> {
    let name = Runtime::Claude.agent_name();
    let env = object
        .entry("env")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or(SettingsError::Shape("env"))?;
    if remove {
        if env.get("MNEME_AGENT").and_then(Value::as_str) == Some(name) {
            env.remove("MNEME_AGENT");
        }
    } else {
        env.entry("MNEME_AGENT").or_insert_with(|| json!(name));
    }
    if env.is_empty() {
        object.remove("env");
    }
    Ok(())
}

/// Gemini CLI's own instructions file, which it reads unless `context.fileName` says otherwise.
const GEMINI_MD: &str = "GEMINI.md";

/// Gemini CLI's `context.fileName`: the file with mneme's block joins the files Gemini reads
/// (GEMINI.md alone by default). It names files, looked up in each directory, not paths: a file
/// in a subdirectory cannot be named there. With `remove`, only the value setup wrote goes.
fn set_context_file(
    object: &mut Map<String, Value>,
    agents_file: &str,
    remove: bool,
) -> Result<(), SettingsError> {
    if agents_file == GEMINI_MD || agents_file.contains(['/', '\\']) {
        return Ok(());
    }
    let ours = json!([agents_file, GEMINI_MD]);
    let context = object
        .entry("context")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or(SettingsError::Shape("context"))?;
    match context.get_mut("fileName") {
        Some(names) if remove => {
            if *names == ours {
                context.remove("fileName");
            }
        }
        None if remove => {}
        None => {
            context.insert("fileName".into(), ours);
        }
        Some(Value::String(name)) => {
            if name != agents_file {
                let name = std::mem::take(name);
                context.insert("fileName".into(), json!([name, agents_file]));
            }
        }
        Some(Value::Array(names)) => {
            if !names.iter().any(|n| n == agents_file) {
                names.push(json!(agents_file));
            }
        }
        Some(_) => return Err(SettingsError::Shape("context.fileName")),
    }
    if context.is_empty() {
        object.remove("context");
    }
    Ok(())
}

/// Codex's `config.toml` (or empty) with hooks on (their default; see [`hooks_on_by_default`])
/// and the agent's name set for the commands it runs (`[shell_environment_policy] set`),
/// comments and every other key kept. With `remove`, the name goes too.
pub fn edit_codex_config(config: &str, remove: bool) -> Result<String, SettingsError> {
    use toml_edit::{value, DocumentMut, Item};
    let mut doc: DocumentMut = config
        .parse()
        .map_err(|e: toml_edit::TomlError| SettingsError::Toml(e.to_string()))?;
    let name = Runtime::Codex.agent_name();
    hooks_on_by_default(&mut doc);
    if remove {
        let Some(policy) = doc
            .get_mut("shell_environment_policy")
            .and_then(Item::as_table_like_mut)
        else {
            return Ok(doc.to_string());
        };
        if let Some(set) = policy.get_mut("set").and_then(Item::as_table_like_mut) {
            if set.get("MNEME_AGENT").and_then(Item::as_str) == Some(name) {
                set.remove("MNEME_AGENT");
            }
            if set.is_empty() {
                policy.remove("set");
            }
        }
        if policy.is_empty() {
            doc.remove("shell_environment_policy");
        }
        return Ok(doc.to_string());
    }
    let policy = table_at(
        &mut doc["shell_environment_policy"],
        "shell_environment_policy",
    )?;
    let set = table_at(
        policy.entry("set").or_insert(Item::None),
        "shell_environment_policy.set",
    )?;
    if set.get("MNEME_AGENT").is_none() {
        set.insert("MNEME_AGENT", value(name));
    }
    Ok(doc.to_string())
}

/// Codex runs hooks by default (`[features] hooks`). The alias `codex_hooks = true`, which
/// earlier setups wrote, is deprecated and warned about on every run: it goes. Hooks switched
/// off by either key are switched on, since hooks are what setup installs.
fn hooks_on_by_default(doc: &mut toml_edit::DocumentMut) {
    let Some(features) = doc
        .get_mut("features")
        .and_then(toml_edit::Item::as_table_like_mut)
    else {
        return;
    };
    let off = |v: Option<&toml_edit::Item>| v.and_then(toml_edit::Item::as_bool) == Some(false);
    let was_off = off(features.get("hooks")) || off(features.get("codex_hooks"));
    if features.get("codex_hooks").is_some() {
        features.remove("codex_hooks");
    }
    if was_off {
        features.remove("hooks");
    }
    if features.is_empty() {
        doc.remove("features");
    }
}

/// The table at `item`, made if absent.
fn table_at<'a>(
    item: &'a mut toml_edit::Item,
    what: &'static str,
) -> Result<&'a mut dyn toml_edit::TableLike, SettingsError> {
    if item.is_none() {
        *item = toml_edit::Item::Table(toml_edit::Table::new());
    }
    item.as_table_like_mut().ok_or(SettingsError::Shape(what))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_merge_into_existing_settings_and_come_out_again() {
        let existing = r#"{
  "model": "opus",
  "hooks": {
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]
  }
}"#;
        let added = edit_settings(existing, Runtime::Claude, "AGENTS.md", false).unwrap();
        let v: Value = serde_json::from_str(&added).unwrap();
        assert_eq!(v["model"], "opus");
        assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "guard");
        let start = v["hooks"]["SessionStart"].as_array().unwrap();
        assert_eq!(start.len(), 2);
        assert_eq!(start[0]["hooks"][0]["command"], "echo hi");
        assert_eq!(start[1]["matcher"], "startup|resume|clear|compact");
        let command = start[1]["hooks"][0]["command"].as_str().unwrap();
        assert_eq!(command, hook_command(Runtime::Claude, "SessionStart"));
        assert!(command.contains(r#"then "$m" context --for claude --event SessionStart;"#));
        assert!(!command.contains(r"'\''"), "quoted plainly: {command}");
        assert_eq!(v["env"]["MNEME_AGENT"], "claude-code");
        assert_eq!(
            edit_settings(&added, Runtime::Claude, "AGENTS.md", false).unwrap(),
            added,
            "idempotent"
        );
        let removed: Value = serde_json::from_str(
            &edit_settings(&added, Runtime::Claude, "AGENTS.md", true).unwrap(),
        )
        .unwrap();
        let original: Value = serde_json::from_str(existing).unwrap();
        assert_eq!(removed, original);
    }

    #[test]
    fn codex_and_gemini_carry_context_across_a_compaction() {
        let v: Value =
            serde_json::from_str(&edit_settings("", Runtime::Codex, "AGENTS.md", false).unwrap())
                .unwrap();
        let events: Vec<&String> = v["hooks"].as_object().unwrap().keys().collect();
        assert_eq!(events, ["SessionStart", "PostToolUse"], "no PostCompact");
        assert_eq!(Runtime::Codex.on("PostCompact", None), Step::Skip);
        assert_eq!(
            Runtime::Codex.on("SessionStart", Some("resume")),
            Step::InjectIfNew
        );
        assert_eq!(
            Runtime::Codex.on("SessionStart", Some("compact")),
            Step::Inject
        );
        assert_eq!(Runtime::Gemini.on("BeforeAgent", None), Step::IfAbsent);
        assert_eq!(Runtime::Gemini.on("PreCompress", None), Step::Skip);
        let first =
            r#"{"id":"1","type":"user","content":[{"text":"<hook_context># Project facts (1)"}]}"#;
        let reply = r#"{"id":"2","type":"gemini","content":"OK."}"#;
        let compressed =
            r#"{"$set":{"messages":[{"type":"user","content":[{"text":"summary"}]}]}}"#;
        let needle = "# Project facts (";
        let transcript_holds = |transcript: &str, needle: &str| {
            let needles = [needle];
            let mut scan = TranscriptScan::new(&needles);
            transcript.lines().for_each(|l| scan.line(l));
            scan.held()[0]
        };
        assert!(!transcript_holds("", needle));
        assert!(transcript_holds(&[first, reply].join("\n"), needle));
        assert!(!transcript_holds(
            &[first, reply, compressed].join("\n"),
            needle
        ));
        assert!(transcript_holds(
            &[first, compressed, first].join("\n"),
            needle
        ));
        assert_eq!(
            Runtime::Claude.on("SessionStart", Some("resume")),
            Step::Inject
        );
        let input = HookInput::parse(r#"{"session_id":"0199-abc","source":"resume","x":1}"#);
        assert_eq!(input.session_id.as_deref(), Some("0199-abc"));
        assert_eq!(input.source.as_deref(), Some("resume"));
        assert_eq!(HookInput::parse("not json"), HookInput::default());
        assert_eq!(
            edit_settings("", Runtime::Gemini, "AGENTS.md", true).unwrap(),
            "{}\n"
        );
    }

    #[test]
    fn gemini_reads_the_file_with_the_block_besides_its_own() {
        let edit = |settings: &str, file, remove| {
            let text = edit_settings(settings, Runtime::Gemini, file, remove).unwrap();
            serde_json::from_str::<Value>(&text).unwrap()
        };
        let set = edit("", "AGENTS.md", false);
        assert_eq!(
            set["context"]["fileName"],
            json!(["AGENTS.md", "GEMINI.md"])
        );
        assert_eq!(edit(&set.to_string(), "AGENTS.md", true), json!({}));
        assert!(edit("", "GEMINI.md", false).get("context").is_none());
        assert!(edit("", "docs/AI.md", false).get("context").is_none());
        // The user's own choice is kept, and stays on removal.
        let own = r#"{"context": {"fileName": "RULES.md", "x": 1}}"#;
        let joined = edit(own, "AGENTS.md", false);
        assert_eq!(
            joined["context"]["fileName"],
            json!(["RULES.md", "AGENTS.md"])
        );
        assert_eq!(joined["context"]["x"], 1);
        let listed = edit(
            r#"{"context": {"fileName": ["A.md", "AGENTS.md"]}}"#,
            "AGENTS.md",
            false,
        );
        assert_eq!(listed["context"]["fileName"], json!(["A.md", "AGENTS.md"]));
        assert_eq!(
            edit(own, "AGENTS.md", true)["context"]["fileName"],
            "RULES.md"
        );
        assert!(matches!(
            edit_settings(
                r#"{"context": {"fileName": 3}}"#,
                Runtime::Gemini,
                "AGENTS.md",
                false
            ),
            Err(SettingsError::Shape("context.fileName"))
        ));
    }

    #[test]
    fn unparseable_or_odd_settings_are_refused() {
        assert!(matches!(
            edit_settings("{", Runtime::Claude, "AGENTS.md", false),
            Err(SettingsError::Json(_))
        ));
        assert!(matches!(
            edit_settings("[]", Runtime::Claude, "AGENTS.md", false),
            Err(SettingsError::Shape(_))
        ));
        assert!(matches!(
            edit_settings(r#"{"hooks": []}"#, Runtime::Claude, "AGENTS.md", false),
            Err(SettingsError::Shape(_))
        ));
    }

    #[test]
    fn tool_hooks_read_the_touched_file_and_never_pile_up_notices() {
        let input = HookInput::parse(
            r#"{"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Read",
                "tool_input": {"file_path": "/repo/src/db.rs", "offset": 3}}"#,
        );
        assert_eq!(input.files, ["/repo/src/db.rs"]);
        assert_eq!(input.session_id.as_deref(), Some("s"));
        for odd in [
            r#"{"tool_input": {"file_path": ""}}"#,
            r#"{"tool_input": {"name": "a"}}"#,
            r#"{"tool_input": {"path": 3}}"#,
            "[]",
        ] {
            assert!(HookInput::parse(odd).files.is_empty(), "{odd}");
        }
        // Copilot CLI's view, edit and create name theirs `path`.
        let copilot = HookInput::parse(
            r#"{"session_id": "c", "tool_name": "Read", "tool_input": {"path": "/repo/src/a.rs"}}"#,
        );
        assert_eq!(copilot.files, ["/repo/src/a.rs"]);
        assert_eq!(
            Runtime::Copilot.on("PostToolUse", None),
            Step::StartAndAboutFiles
        );
        assert_eq!(Runtime::Copilot.on("PreCompact", None), Step::Drop);
        assert_eq!(
            Runtime::Copilot.on("UserPromptSubmit", None),
            Step::InjectIfNew
        );
        for event in ["PostToolUse", "UserPromptSubmit", "PreCompact"] {
            assert!(!hook_command(Runtime::Copilot, event).contains("not installed"));
        }
        assert!(hook_command(Runtime::Copilot, "SessionStart").contains("not installed"));
        // Codex gives its shell's command and apply_patch's patch; any word may be a file.
        let codex = |command: &str| {
            HookInput::parse(
                &json!({"tool_name": "Bash", "tool_input": {"command": command}}).to_string(),
            )
            .files
        };
        assert_eq!(
            codex("sed -n '1,80p' src/db.rs | nl -ba"),
            ["sed", "1,80p", "src/db.rs", "nl"]
        );
        assert_eq!(
            codex("cat \"src/a b.rs\">/tmp/x;rg -n pool src/db.rs $HOME"),
            ["cat", "src/a b.rs", "/tmp/x", "rg", "pool", "src/db.rs"]
        );
        // Quotes keep a path whole, as the shell reads it: brackets and parentheses included.
        assert_eq!(
            codex("sed -n 1,200p 'app/[locale]/(auth)/page.tsx' && cat app/x\\ y.ts \"q\\\"d.rs\""),
            [
                "sed",
                "1,200p",
                "app/[locale]/(auth)/page.tsx",
                "cat",
                "app/x y.ts",
                "q\"d.rs"
            ]
        );
        assert_eq!(codex("cat 'never closed"), ["cat", "never closed"]);
        let patch = "*** Begin Patch\n*** Update File: src/a b.rs\n*** Move to: src/c.rs\n@@\n-x\n+y\n*** Add File: new.rs\n+z\n*** Delete File: old.rs\n*** End Patch\n";
        assert_eq!(
            &codex(patch)[..4],
            ["src/a b.rs", "src/c.rs", "new.rs", "old.rs"]
        );
        let long = format!("cat src/db.rs <<'EOF'\n{}\nEOF", "word ".repeat(10_000));
        assert!(
            codex(&long).len() <= 64,
            "a heredoc's body is no list of files"
        );
        for (runtime, event) in [
            (Runtime::Claude, "PostToolUse"),
            (Runtime::Codex, "PostToolUse"),
            (Runtime::Gemini, "AfterTool"),
        ] {
            assert_eq!(runtime.on(event, None), Step::AboutFiles);
            // A notice after every tool call would pile up: a missing mneme adds nothing.
            assert!(!hook_command(runtime, event).contains("not installed"));
        }
        // OpenCode's plugin runs mneme itself, and logs a missing one.
        assert_eq!(
            Runtime::Opencode.on(OPENCODE_TOOL_EVENT, None),
            Step::AboutFiles
        );
        assert_eq!(
            Runtime::Opencode.on(OPENCODE_COMPACTING_EVENT, None),
            Step::Forget
        );
        let claude = hooks(Runtime::Claude);
        assert!(claude
            .iter()
            .any(|h| h.event == "PostToolUse" && h.matcher == Some(TOUCHING_TOOLS)));
        assert!(hooks(Runtime::Codex)
            .iter()
            .any(|h| h.event == "PostToolUse" && h.matcher == Some(CODEX_TOUCHING_TOOLS)));
        let gemini = hooks(Runtime::Gemini);
        assert!(gemini
            .iter()
            .any(|h| h.event == "AfterTool" && h.matcher == Some(GEMINI_TOUCHING_TOOLS)));
    }

    #[test]
    fn output_is_the_runtime_shape() {
        let out: Value =
            serde_json::from_str(&Runtime::Claude.output("SessionStart", "facts")).unwrap();
        assert_eq!(out["hookSpecificOutput"]["additionalContext"], "facts");
        assert_eq!(out["hookSpecificOutput"]["hookEventName"], "SessionStart");
        assert_eq!(Runtime::Opencode.output("SessionStart", "facts"), "facts");
        assert_eq!(
            Runtime::Copilot.output("SessionStart", "facts"),
            r#"{"additionalContext":"facts"}"#
        );
    }

    #[test]
    fn codex_config_switches_hooks_on_and_names_the_agent() {
        let existing = "# mine\nmodel = \"gpt-5\"\n\n[features]\nweb_search = true\n";
        let added = edit_codex_config(existing, false).unwrap();
        assert!(added.starts_with("# mine\nmodel = \"gpt-5\"\n"), "{added}");
        let doc: toml_edit::DocumentMut = added.parse().unwrap();
        assert_eq!(doc["features"]["web_search"].as_bool(), Some(true));
        assert!(doc["features"].get("codex_hooks").is_none(), "{added}");
        assert_eq!(
            doc["shell_environment_policy"]["set"]["MNEME_AGENT"].as_str(),
            Some("codex")
        );
        assert_eq!(
            edit_codex_config(&added, false).unwrap(),
            added,
            "idempotent"
        );
        let removed = edit_codex_config(&added, true).unwrap();
        assert_eq!(removed, existing);
        // The deprecated alias of earlier setups goes; hooks switched off are switched on.
        for old in [
            "[features]\ncodex_hooks = true\n",
            "[features]\nhooks = false\n",
        ] {
            let fixed = edit_codex_config(old, false).unwrap();
            assert!(!fixed.contains("features"), "{fixed}");
        }
        // A name the user chose stays.
        let own = "[shell_environment_policy]\nset = { MNEME_AGENT = \"bot\" }\n";
        assert_eq!(edit_codex_config(own, true).unwrap(), own);
        assert!(edit_codex_config(own, false).unwrap().contains("\"bot\""));
        assert!(matches!(
            edit_codex_config("[features", false),
            Err(SettingsError::Toml(_))
        ));
        assert!(matches!(
            edit_codex_config("shell_environment_policy = 1\n", false),
            Err(SettingsError::Shape("shell_environment_policy"))
        ));
    }
}
