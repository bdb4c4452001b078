//! `mneme context --for <runtime>`: the context in the shape an agent runtime's hook expects.
//! It never fails the agent's session: any problem becomes a short explanation in that shape,
//! and the exit code is 0. Where there is no ledger, it prints nothing.

use std::collections::BTreeSet;
use std::io::{IsTerminal, Read};

use clap::builder::TypedValueParser;
use mneme::model::agents::briefing::{
    about_files, carried_over, render, shown_ids, CLOSING_RESERVE,
};
use mneme::model::agents::rules::{compiled_ids, leave_compiled_out, Target};
use mneme::model::agents::runtimes::{
    HookInput, Runtime, Step, OPENCODE_COMPACTING_EVENT, OPENCODE_TOOL_EVENT,
};
use mneme::model::views::FactView;
use mneme::ops::context::{
    deliver_once, drop_session, facts_about, forget_touched, history_holds, native_or_dropped,
    remember_session, remember_touched, repo_relative, restart_native, session_context,
    session_holds, shown_in_history, touched,
};
use mneme::ops::tasks::env_agent;
use mneme::ops::Workspace;

use crate::cli::error::Code;
use crate::cli::{names, panic, CliError, Cx, ExitStatus, Result};

/// `--for`: the runtimes mneme knows.
pub fn runtime_parser() -> impl TypedValueParser<Value = Runtime> {
    names(&Runtime::ALL, |r| r.as_str(), &[])
}

pub fn run(cx: &Cx, runtime: Runtime, event: &str, budget: usize) -> Result<ExitStatus> {
    let input = hook_input(runtime, event);
    // Never an empty context in silence: any failure, a panic included, is explained.
    let text = match panic::catch(|| briefing(cx, runtime, event, &input, budget)) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(ExitStatus::Success),
        // Hooks set up for every repository (`setup --user`) also run where there is no ledger:
        // there is nothing to load, and nothing is wrong.
        Err(e) if matches!(e.code, Code::NotARepository | Code::NotInitialized) => {
            return Ok(ExitStatus::Success)
        }
        Err(e) => format!(
            "mneme could not load the project facts: {}. Tell the user; `mneme check` shows what is wrong with the ledger's files, `mneme context` in a terminal shows the error, and `mneme doctor` checks the setup.",
            e.message
        ),
    };
    let mut output = runtime.output(event, &text);
    output.push('\n');
    // The agent's session must go on whatever happens to this output.
    let _ = cx.ui.out(&output);
    Ok(ExitStatus::Success)
}

/// What the runtime says on stdin: its session, the event's source, the transcript, the files a
/// tool touched. Read only where mneme uses it (Claude Code, Codex, Gemini CLI, and OpenCode's
/// tool and compaction events: a runtime that sends nothing may leave stdin open), never from
/// a terminal (a person trying the hook by hand), and at most 1 MiB.
fn hook_input(runtime: Runtime, event: &str) -> HookInput {
    let stdin = std::io::stdin();
    let sends = match runtime {
        Runtime::Claude | Runtime::Codex | Runtime::Gemini | Runtime::Qwen => true,
        Runtime::Opencode => matches!(event, OPENCODE_TOOL_EVENT | OPENCODE_COMPACTING_EVENT),
        Runtime::Pi | Runtime::Copilot => true,
        Runtime::Cursor => false,
    };
    if !sends || stdin.is_terminal() {
        return HookInput::default();
    }
    let mut text = String::new();
    match stdin.lock().take(1 << 20).read_to_string(&mut text) {
        Ok(_) => HookInput::parse(&text),
        Err(_) => HookInput::default(),
    }
}

/// The text to inject at `event`, if any.
fn briefing(
    cx: &Cx,
    runtime: Runtime,
    event: &str,
    input: &HookInput,
    budget: usize,
) -> Result<Option<String>, CliError> {
    let ws = Workspace::discover(&cx.cwd)?;
    // Read once: the start and the file hooks both leave out what the rule files carry.
    let native = native_rules(&ws, runtime);
    let name = runtime.as_str();
    let session = input.session_id.as_deref();
    match runtime.on(event, input.source.as_deref()) {
        Step::Skip => return Ok(None),
        Step::AboutFiles => return about(cx, &ws, runtime, input, budget, native, false),
        Step::StartAndAboutFiles => return about(cx, &ws, runtime, input, budget, native, true),
        Step::Drop => {
            if let Some(session) = session {
                drop_session(&ws, name, session)?;
            }
            return Ok(None);
        }
        Step::Forget => {
            if let Some(session) = session {
                // What the compaction kept still holds its facts (pi keeps the recent turns).
                let kept = input.kept.as_deref().map(shown_ids).unwrap_or_default();
                remember_session(&ws, name, session, &kept, true)?;
            }
            return Ok(None);
        }
        Step::InjectIfNew if session.is_some_and(|s| session_holds(&ws, name, s)) => {
            return Ok(None)
        }
        Step::IfAbsent if history_holds(input) => return Ok(None),
        Step::InjectIfNew | Step::IfAbsent | Step::Inject => {}
    }
    // A new process of the session: the runtime's own rule files give their facts again.
    if let (true, Some(s)) = (event.eq_ignore_ascii_case("SessionStart"), session) {
        if native.is_some() {
            restart_native(&ws, name, s)?;
        }
    }
    let new_session = event.eq_ignore_ascii_case("SessionStart")
        && matches!(input.source.as_deref(), Some("startup" | "clear"));
    let text = match session {
        Some(s) if new_session => {
            forget_touched(&ws, name, s)?;
            start(cx, &ws, runtime, budget, native)?
        }
        // A resumed history still holds what it was given.
        Some(s) if input.source.as_deref() != Some("resume") => {
            start_after_compaction(cx, &ws, runtime, s, budget, native)?
        }
        _ => start(cx, &ws, runtime, budget, native)?,
    };
    if let Some(session) = session {
        // A new, cleared or compacted session's history holds exactly these facts: those a
        // compaction dropped come again when the agent touches their files. A resumed one
        // still holds what it was given before.
        let fresh = input.source.as_deref() != Some("resume");
        remember_session(&ws, name, session, &shown_ids(&text), fresh)?;
    }
    Ok(Some(text))
}

/// The facts a session starts with, within `budget` characters, and the agent's name for mneme
/// where the runtime did not set it.
/// `native`: the folder of the rule files the runtime reads by itself ([`native_rules`]).
fn start(
    cx: &Cx,
    ws: &Workspace,
    runtime: Runtime,
    budget: usize,
    native: Option<&str>,
) -> Result<String, CliError> {
    let hint = if env_agent().is_some() {
        String::new()
    } else {
        runtime.identity_hint()
    };
    let budget = budget.saturating_sub(hint.len());
    let mut context = session_context(ws, cx.ui, budget, runtime.delivers_about_files())?;
    let left = match native {
        Some(_) => leave_compiled_out(&mut context.files, &BTreeSet::new()),
        None => 0,
    };
    let mut text = render(&context, Some(budget));
    if let (Some(dir), 1..) = (native, left) {
        text.push_str(&format!(
            "\n{left} approved fact(s) reach this session through its own rule files in {dir}/, compiled from the ledger by mneme: they are not repeated here.\n"
        ));
    }
    text.push_str(&hint);
    Ok(text)
}

/// A compacted session's start: a compaction drops what the tool hooks gave it about the files
/// it worked on, and the work goes on with those files. Their facts come back with the start,
/// each once, in room kept for them, before a tool on them (whose hook comes after it) would
/// bring them.
fn start_after_compaction(
    cx: &Cx,
    ws: &Workspace,
    runtime: Runtime,
    session: &str,
    budget: usize,
    native: Option<&str>,
) -> Result<String, CliError> {
    // Recorded only for the runtimes that carry facts over (`about`).
    let files = touched(ws, runtime.as_str(), session);
    if files.is_empty() {
        return start(cx, ws, runtime, budget, native);
    }
    let about = facts_about(ws, cx.ui, &files)?;
    let facts: Vec<&FactView> = about.files.iter().flat_map(|f| &f.facts).collect();
    // The block keeps room for its closing line, whether or not it needs it.
    let kept = carried_over(&facts, budget / 2).chars().count() + CLOSING_RESERVE;
    let mut text = start(cx, ws, runtime, budget.saturating_sub(kept), native)?;
    let shown = shown_ids(&text);
    let back: Vec<&FactView> = facts
        .into_iter()
        .filter(|f| f.id.as_ref().is_none_or(|id| !shown.contains(id)))
        .collect();
    let back = carried_over(&back, budget.saturating_sub(text.chars().count()));
    if !back.is_empty() {
        text.push('\n');
        text.push_str(&back);
    }
    Ok(text)
}

/// The folder of the rule files `runtime` reads by itself, when the ledger compiles into them:
/// its hooks leave out the facts those carry, which would otherwise reach it twice.
fn native_rules(ws: &Workspace, runtime: Runtime) -> Option<&'static str> {
    let name = runtime.rule_target()?;
    let config = ws.store.load_config().ok()?;
    config
        .compile
        .iter()
        .any(|t| t == name)
        .then(|| Target::parse(name).map(Target::dir))
        .flatten()
}

/// After a tool read or edited files: the facts about them that the session was not given,
/// each once; nothing when there are none. With `restart`, a session whose record is gone (a
/// compaction dropped what it was given) gets its start's facts first. `native`: as for
/// [`start`].
fn about(
    cx: &Cx,
    ws: &Workspace,
    runtime: Runtime,
    input: &HookInput,
    budget: usize,
    native: Option<&str>,
    restart: bool,
) -> Result<Option<String>, CliError> {
    // Only files: a shell command's other words (`sed`, `1,80p`) are named by no heading.
    let mut files: Vec<String> = input
        .files
        .iter()
        .filter_map(|f| repo_relative(ws, &cx.cwd, f))
        .filter(|f| ws.repo.root().join(f).is_file())
        .collect();
    // A path and the file it links to are one file (`CLAUDE.md -> AGENTS.md`): facts about
    // either come for both.
    let targets: Vec<String> = files
        .iter()
        .filter_map(|f| link_target(ws, f))
        .filter(|t| !files.contains(t))
        .collect();
    files.extend(targets);
    let session = input.session_id.as_deref();
    if files.is_empty() && !(restart && session.is_some()) {
        return Ok(None);
    }
    // Only where a compaction's context can give their facts back.
    if let (Some(s), false, true) = (session, files.is_empty(), runtime.carries_over()) {
        remember_touched(ws, runtime.as_str(), s, &files)?;
    }
    let mut context = facts_about(ws, cx.ui, &files)?;
    if native.is_some() {
        // The runtime's own rule files give a file's facts once per process, and not again
        // after a compaction in it dropped them (Copilot CLI): those the hook gives.
        let dropped = match session {
            Some(s) => native_or_dropped(ws, runtime.as_str(), s, &compiled_ids(&context.files))?,
            None => BTreeSet::new(),
        };
        leave_compiled_out(&mut context.files, &dropped);
    }
    // Built before the lock is taken; used only when the record is gone.
    let restarted = match session {
        Some(session) if restart && !session_holds(ws, runtime.as_str(), session) => Some(
            start_after_compaction(cx, ws, runtime, session, budget, native)?,
        ),
        _ => None,
    };
    let choose = |record: Option<&BTreeSet<String>>| {
        let mut given = record.cloned().unwrap_or_default();
        let mut out = String::new();
        if let (None, Some(text)) = (record, &restarted) {
            given.extend(shown_ids(text));
            out.push_str(text);
        }
        if runtime == Runtime::Gemini {
            // Gemini CLI's BeforeAgent puts the session's facts back whenever the transcript's
            // current history lacks them (a resume rebuilds it), which starts the session's set
            // afresh: the transcript tells what the history still holds.
            let ids: Vec<&str> = context
                .files
                .iter()
                .flat_map(|f| &f.facts)
                .filter_map(|f| f.id.as_deref())
                .collect();
            given.extend(shown_in_history(input, &ids));
        }
        let facts: Vec<_> = context
            .files
            .iter()
            .flat_map(|f| &f.facts)
            .filter(|f| f.id.as_ref().is_none_or(|id| !given.contains(id)))
            .collect();
        if !facts.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&about_files(&files, &facts, budget));
        }
        let ids = shown_ids(&out);
        ((!out.is_empty()).then_some(out), ids)
    };
    Ok(match session {
        Some(session) => deliver_once(ws, runtime.as_str(), session, choose)?,
        None => choose(Some(&BTreeSet::new())).0,
    })
}

/// The file the work-tree path `rel` links to, from the repository's root, when `rel` is a link
/// to a file inside the work tree.
fn link_target(ws: &Workspace, rel: &str) -> Option<String> {
    let root = ws.repo.root();
    let path = root.join(rel);
    if !std::fs::symlink_metadata(&path)
        .ok()?
        .file_type()
        .is_symlink()
    {
        return None;
    }
    let target = path.canonicalize().ok()?;
    repo_relative(ws, root, target.to_str()?)
}
