//! `context`: what an agent reads at session start.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use crate::git::drift::last_changed;
use crate::model::agents::briefing::{render, HEADING};
use crate::model::agents::runtimes::{HookInput, TranscriptScan};
use crate::model::agents::scope;
use crate::model::base::ids::sha256_hex;
use crate::model::base::paths;
use crate::model::base::text::first_chars;
use crate::model::evidence::drift::cited_files;
use crate::model::facts::file::is_fact_id;
use crate::model::facts::standing::Standings;
use crate::model::views::{Context, ProposalLine, Proposals, TaskSummary, CONTEXT_PROPOSALS};
use crate::ops::{now, records, stale, tasks, Notes, Result, Workspace};
use crate::store::{self, write_atomic};

/// Whether the runtime's history already holds the facts, as its hook input shows: the turn's
/// prompt carries them (Gemini CLI puts SessionStart's context there at a session's first
/// turn), or the session's transcript does. A transcript that cannot be read shows nothing.
pub fn history_holds(input: &HookInput) -> bool {
    let in_prompt = input.prompt.as_deref().is_some_and(|p| p.contains(HEADING));
    in_prompt || scan_transcript(input, &[HEADING]).first() == Some(&true)
}

/// Longest transcript line read: a longer one (a pasted file) is passed over, not held whole.
const MAX_TRANSCRIPT_LINE: u64 = 4 * 1024 * 1024;

/// Which of `needles` the session's transcript shows in its current history, read line by line
/// in bounded memory, however long it is; all `false` when there is none to read (it must be a
/// regular file: a FIFO would block the hook).
fn scan_transcript(input: &HookInput, needles: &[&str]) -> Vec<bool> {
    let mut scan = TranscriptScan::new(needles);
    if let Some(path) = input.transcript_path.as_deref() {
        // A transcript that cannot be read shows nothing; what was read still counts.
        let _ = store::file::for_each_local_line(Path::new(path), MAX_TRANSCRIPT_LINE, |line| {
            scan.line(line);
        });
    }
    scan.held().to_vec()
}

/// The ids among `ids` whose fact lines (`- <id> `) the session's current history shows, as its
/// transcript tells (Gemini CLI: a resume rebuilds the history, and a compression drops what
/// was given). None when there is no transcript to read.
pub fn shown_in_history(input: &HookInput, ids: &[&str]) -> Vec<String> {
    let lines: Vec<String> = ids.iter().map(|id| format!("- {id} ")).collect();
    let needles: Vec<&str> = lines.iter().map(String::as_str).collect();
    ids.iter()
        .zip(scan_transcript(input, &needles))
        .filter(|(_, held)| *held)
        .map(|(id, _)| (*id).to_owned())
        .collect()
}

/// Whether `runtime`'s session `session` already got the facts in its history.
pub fn session_holds(ws: &Workspace, runtime: &str, session: &str) -> bool {
    session_path(ws, runtime, session).exists()
}

/// How long a session's marker is kept: a session resumed later gets the facts once more.
const SESSION_MARKER_DAYS: u64 = 30;

/// The facts `runtime`'s session `session` was given, by id (none when it got nothing yet).
pub fn delivered(ws: &Workspace, runtime: &str, session: &str) -> BTreeSet<String> {
    record(ws, runtime, session).unwrap_or_default()
}

/// The record of `runtime`'s session `session`: the ids of the facts it holds; `None` when the
/// session has none (new, or a compaction dropped it).
fn record(ws: &Workspace, runtime: &str, session: &str) -> Option<BTreeSet<String>> {
    let path = session_path(ws, runtime, session);
    path.exists().then(|| read_ids(&path))
}

/// Drops the record of `runtime`'s session `session`: a compaction leaves its history holding
/// none of what it was given. The facts its own rule files gave it in this process go with it,
/// and are remembered as such: the runtime does not give them again in the same process.
pub fn drop_session(ws: &Workspace, runtime: &str, session: &str) -> Result<()> {
    let _lock = sessions_lock(ws)?;
    let path = session_path(ws, runtime, session);
    remove(&path)?;
    let mut dropped = read_ids(&path.with_extension(NATIVE_DROPPED));
    dropped.extend(read_ids(&path.with_extension(NATIVE)));
    remove(&path.with_extension(NATIVE))?;
    write_lines(ws, &path.with_extension(NATIVE_DROPPED), &dropped)
}

/// Beside a session's record: the facts the runtime's own rule files gave it in the running
/// process, and those a compaction in it dropped.
const NATIVE: &str = "native";
const NATIVE_DROPPED: &str = "native-dropped";

/// Beside a session's record: the repository files its tools touched, whose facts a
/// compaction's hook gives back.
const TOUCHED: &str = "touched";

/// The files a session touched last, which a compaction's hook gives back the facts of: the
/// work in hand, which the agent may edit again without reading it first. A file touched
/// longer ago is read again before it is worked on, and its read's hook brings its facts.
/// Measured by scripts/bench-delivery (docs/agents.md).
const TOUCHED_FILES: usize = 5;

/// Records that `runtime`'s session `session` touched `files` (paths from the repository's root).
pub fn remember_touched(
    ws: &Workspace,
    runtime: &str,
    session: &str,
    files: &[String],
) -> Result<()> {
    let _lock = sessions_lock(ws)?;
    let path = session_path(ws, runtime, session).with_extension(TOUCHED);
    let before = read_lines(&path);
    // Least recently touched first: a file touched again moves to the end.
    let mut all: Vec<String> = before
        .iter()
        .filter(|f| !files.contains(f))
        .cloned()
        .collect();
    for f in files.iter().filter(|f| !f.contains('\n')) {
        if !all.contains(f) {
            all.push(f.clone());
        }
    }
    let keep = all.len().saturating_sub(TOUCHED_FILES);
    if all[keep..] == before[..] {
        return Ok(());
    }
    write_lines(ws, &path, &all[keep..])
}

/// The files `runtime`'s session `session` touched last (at most [`TOUCHED_FILES`]), the
/// longest ago first.
pub fn touched(ws: &Workspace, runtime: &str, session: &str) -> Vec<String> {
    read_lines(&session_path(ws, runtime, session).with_extension(TOUCHED))
}

/// A new or cleared session has touched nothing yet.
pub fn forget_touched(ws: &Workspace, runtime: &str, session: &str) -> Result<()> {
    remove(&session_path(ws, runtime, session).with_extension(TOUCHED))
}

/// A new process of `runtime`'s session `session` starts: its rule files give their facts again.
pub fn restart_native(ws: &Workspace, runtime: &str, session: &str) -> Result<()> {
    let _lock = sessions_lock(ws)?;
    let path = session_path(ws, runtime, session);
    remove(&path.with_extension(NATIVE))?;
    remove(&path.with_extension(NATIVE_DROPPED))
}

/// Of `compiled` (facts the runtime's own rule files carry, about a file a tool just touched):
/// those a compaction dropped after the rule files gave them in this process, which the runtime
/// does not give again and the hook must. The others are remembered as given by the rule files.
pub fn native_or_dropped(
    ws: &Workspace,
    runtime: &str,
    session: &str,
    compiled: &[String],
) -> Result<BTreeSet<String>> {
    let _lock = sessions_lock(ws)?;
    let path = session_path(ws, runtime, session);
    let dropped = read_ids(&path.with_extension(NATIVE_DROPPED));
    let mut native = read_ids(&path.with_extension(NATIVE));
    let before = native.len();
    native.extend(compiled.iter().filter(|id| !dropped.contains(*id)).cloned());
    if native.len() != before {
        write_lines(ws, &path.with_extension(NATIVE), &native)?;
    }
    Ok(compiled
        .iter()
        .filter(|id| dropped.contains(*id))
        .cloned()
        .collect())
}

fn read_ids(path: &Path) -> BTreeSet<String> {
    read_lines(path)
        .into_iter()
        .filter(|l| is_fact_id(l))
        .collect()
}

/// A marker's lines, empty ones left out; none when it cannot be read.
fn read_lines(path: &Path) -> Vec<String> {
    store::file::read_local_text(path)
        .map(|text| {
            text.lines()
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Writes `lines` as a marker, one a line, creating its directory.
fn write_lines(
    ws: &Workspace,
    path: &Path,
    lines: impl IntoIterator<Item = impl AsRef<str>>,
) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(store::Error::io(dir))?;
    }
    let text: String = lines
        .into_iter()
        .map(|l| format!("{}\n", l.as_ref()))
        .collect();
    Ok(write_atomic(path, text.as_bytes(), ws.store.durability())?)
}

fn remove(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(store::Error::io(path)(e))?,
        _ => Ok(()),
    }
}

/// Records that `runtime`'s session `session` got the facts `ids`: in place of what it held
/// (`replace`: a session's start or a compaction leaves its history with exactly what was
/// injected), or besides it.
pub fn remember_session(
    ws: &Workspace,
    runtime: &str,
    session: &str,
    ids: &[String],
    replace: bool,
) -> Result<()> {
    let _lock = sessions_lock(ws)?;
    let mut held = if replace {
        BTreeSet::new()
    } else {
        delivered(ws, runtime, session)
    };
    held.extend(ids.iter().cloned());
    write_session(ws, runtime, session, &held)
}

/// Gives `choose` the facts `runtime`'s session `session` holds (`None` when it has no record)
/// and records the ids it returns as given too, all under one lock: the hooks of parallel tool
/// calls run at once, and each fact must still reach the session once. `choose` decides only:
/// the lock is held for as long as it takes. A session without a record has one afterwards.
pub fn deliver_once<T>(
    ws: &Workspace,
    runtime: &str,
    session: &str,
    choose: impl FnOnce(Option<&BTreeSet<String>>) -> (T, Vec<String>),
) -> Result<T> {
    let _lock = sessions_lock(ws)?;
    let record = record(ws, runtime, session);
    let (out, ids) = choose(record.as_ref());
    if record.is_none() || !ids.is_empty() {
        let mut held = record.unwrap_or_default();
        held.extend(ids);
        write_session(ws, runtime, session, &held)?;
    }
    Ok(out)
}

fn sessions_lock(ws: &Workspace) -> Result<store::Lock> {
    let dir = ws.repo.git_dir();
    Ok(store::Store::lock_in(dir, paths::SESSIONS_LOCK)?)
}

/// Writes the record of `runtime`'s session `session`: the facts it holds. A new session's
/// record also clears the records of sessions older than [`SESSION_MARKER_DAYS`], so they do
/// not pile up.
fn write_session(
    ws: &Workspace,
    runtime: &str,
    session: &str,
    held: &BTreeSet<String>,
) -> Result<()> {
    let path = session_path(ws, runtime, session);
    let new = !path.exists();
    write_lines(ws, &path, held)?;
    if let (true, Some(dir)) = (new, path.parent()) {
        forget_old_sessions(dir);
    }
    Ok(())
}

/// `path` as a tool named it (absolute, or from `cwd`) from the repository's root, `/`-separated;
/// `None` outside the work tree.
pub fn repo_relative(ws: &Workspace, cwd: &Path, path: &str) -> Option<String> {
    let path = Path::new(path);
    let full = if path.is_absolute() {
        path.to_owned()
    } else {
        cwd.join(path)
    };
    let root = ws.repo.root();
    let rel = full
        .strip_prefix(root)
        .ok()
        .map(Path::to_owned)
        .or_else(|| {
            let full = full.canonicalize().ok()?;
            let root = root.canonicalize().ok()?;
            full.strip_prefix(root).ok().map(Path::to_owned)
        })?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    (!parts.is_empty() && !parts.iter().any(|p| p == "..")).then(|| parts.join("/"))
}

/// The facts about `files` (from the repository's root), as the context shows them.
pub fn facts_about(ws: &Workspace, notes: &dyn Notes, files: &[String]) -> Result<Context> {
    let mut c = context(ws, notes, None)?;
    scope::about(&mut c, files);
    Ok(c)
}

/// The context a runtime's session starts with, for a text of at most `max_chars`: with
/// `scoped_delivery` on and a runtime whose hooks `deliver_about_files`, without the facts
/// about files (they come as the agent touches them).
pub fn session_context(
    ws: &Workspace,
    notes: &dyn Notes,
    max_chars: usize,
    deliver_about_files: bool,
) -> Result<Context> {
    context_for(ws, notes, Some(max_chars), deliver_about_files)
}

/// Removes the markers older than [`SESSION_MARKER_DAYS`]. Best effort: a marker left behind
/// costs a few bytes, and a concurrent hook may remove the same one.
fn forget_old_sessions(dir: &Path) {
    let max_age = std::time::Duration::from_secs(SESSION_MARKER_DAYS * 24 * 60 * 60);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > max_age));
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The marker of a session, by a hash of its id: the id is the runtime's text, not a file name.
fn session_path(ws: &Workspace, runtime: &str, session: &str) -> std::path::PathBuf {
    let hash = sha256_hex(session.as_bytes());
    ws.repo
        .git_dir()
        .join(paths::session_marker(runtime, first_chars(&hash, 32)))
}

/// The context, for a text of at most `max_chars` characters when given: when it does not all
/// fit, which facts cite recently changed code is found too, to rank them.
pub fn context(ws: &Workspace, notes: &dyn Notes, max_chars: Option<usize>) -> Result<Context> {
    context_for(ws, notes, max_chars, false)
}

/// [`context`], less the facts about files when `scoped` and the ledger's config says so.
fn context_for(
    ws: &Workspace,
    notes: &dyn Notes,
    max_chars: Option<usize>,
    scoped: bool,
) -> Result<Context> {
    // With thousands of tasks, checking the task index against the task files takes as long as
    // the rest: both at once. Without a task directory there is nothing to overlap, and a thread
    // costs more than finding that out.
    std::thread::scope(|scope| {
        let store = &ws.store;
        let reader = store
            .tasks_dir()
            .is_dir()
            .then(|| scope.spawn(|| store.task_board()));
        let tasks = || {
            let board = match reader {
                Some(reader) => reader.join().expect("task reader panicked")?,
                None => store.task_board()?,
            };
            tasks::warn_broken(ws, notes, &board.broken);
            Ok(board.summary)
        };
        build(ws, tasks, max_chars, scoped)
    })
}

fn build(
    ws: &Workspace,
    tasks: impl FnOnce() -> Result<TaskSummary>,
    max_chars: Option<usize>,
    scoped: bool,
) -> Result<Context> {
    // A typo in the config must not cost agents their facts: the defaults, and the error said.
    let (ledger, config_error) = ws.store.load_lenient()?;
    let limits = ledger.limits();
    let summary = ws.store.queue_summary(&limits)?;
    let now = now();
    let standings = Standings::of(&ledger, now).with_pending(&summary.contested);
    // Only valid proposals are shown to agents, the newest few in full; the others are counted.
    // Their lines come from the queue index where it holds them, else from their files.
    let newest = summary.newest.into_iter().take(CONTEXT_PROPOSALS);
    let items = if summary.lines.is_empty() {
        ws.store
            .read_pending(newest)?
            .iter()
            .filter(|p| p.validate(&limits).is_ok())
            .map(|p| ProposalLine::new(p, now))
            .collect()
    } else {
        newest
            .zip(summary.lines)
            .map(|(name, line)| {
                let id = name.strip_suffix(".json").unwrap_or(&name).to_owned();
                ProposalLine::queued(id, line, now)
            })
            .collect()
    };
    let proposals = Proposals {
        count: summary.valid,
        invalid: summary.invalid,
        items,
    };
    // Both caches are kept for HEAD: read once.
    let head = ws.repo.head_key();
    let unapproved = records::unapproved(ws, &ledger, head)?;
    // The facts still reach the agent when history cannot be read (`stale` says why).
    let drifted = stale::drifted_ids(ws, &ledger, head).unwrap_or_default();
    let tasks = tasks()?;
    let digest = *ledger.digest();
    let scoped_out = scoped && ledger.config.scoped_delivery;
    // The context takes the facts from the ledger rather than copying them.
    let mut context = Context::build(ledger, &standings, proposals, tasks)
        .mark_unapproved(&unapproved)
        .mark_drifted(&drifted);
    context.config_error = config_error;
    context.file_hooks = scoped;
    // Left out before the fit is judged: the facts that stay may need no ranking.
    if scoped_out {
        scope::leave_scoped_out(&mut context);
    }
    if max_chars.is_some_and(|limit| render(&context, None).chars().count() > limit) {
        // Ranking is a nicety: without history the facts are ranked without it.
        context.code_changed = code_changed(ws, &digest, scoped_out, &context).unwrap_or_default();
    }
    Ok(context)
}

/// How many of the newest commits count as recent when ranking facts: a branch's own commits
/// are the newest.
const RECENT_COMMITS: usize = 100;

/// For each fact of `context` citing a file changed in the [`RECENT_COMMITS`] newest commits, how
/// many commits back the newest such change is. Kept for the HEAD and fact files (`facts`,
/// [`Ledger::digest`]) it was found for, and whether the facts about files were left out, as the
/// drift answer is: the walk costs a hook several milliseconds in a long history.
fn code_changed(
    ws: &Workspace,
    facts: &[u8; 32],
    scoped_out: bool,
    context: &Context,
) -> Result<HashMap<String, usize>> {
    let name = match scoped_out {
        true => paths::RECENT_SCOPED_CACHE,
        false => paths::RECENT_CACHE,
    };
    let body = stale::cached_for_head(ws, facts, name, |range| {
        // The files a fact is about: a cited document or instruction file is where it came from.
        let cited: Vec<(&str, Vec<String>)> = context
            .files
            .iter()
            .flat_map(|f| &f.facts)
            .filter_map(|f| {
                let mut paths: Vec<String> = cited_files(&f.evidence)
                    .into_iter()
                    .map(|c| c.path)
                    .filter(|p| scope::is_subject(p))
                    .collect();
                paths.sort_unstable();
                paths.dedup();
                Some((f.id.as_deref()?, paths)).filter(|(_, p)| !p.is_empty())
            })
            .collect();
        if cited.is_empty() {
            return Ok(String::new());
        }
        let all: Vec<&str> = cited
            .iter()
            .flat_map(|(_, p)| p)
            .map(String::as_str)
            .collect();
        let mut last = last_changed(&ws.repo, range.head, &all, RECENT_COMMITS)?.into_iter();
        let mut out = String::new();
        for (fact, paths) in &cited {
            if let Some(n) = last.by_ref().take(paths.len()).flatten().min() {
                out.push_str(&format!("{fact} {n}\n"));
            }
        }
        Ok(out)
    })?;
    Ok(body
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(id, _)| is_fact_id(id))
        .filter_map(|(id, n)| Some((id.to_owned(), n.parse().ok()?)))
        .collect())
}
