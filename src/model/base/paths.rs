//! Every path mneme uses, named once. Ledger paths are relative to the work tree and
//! `/`-separated, as git names them; the others live in the git directory and are never committed.

/// The ledger directory.
pub const LEDGER: &str = ".ledger";
/// Fact files: `<name>.md`.
pub const FACTS: &str = ".ledger/facts";
/// Pending proposals: `<id>.json`.
pub const PROPOSALS: &str = ".ledger/proposals";
/// Decision records: `<id>.json`, one per review decision, committed with it.
pub const DECISIONS: &str = ".ledger/decisions";
/// Tasks: `<id>.json`.
pub const TASKS: &str = ".ledger/tasks";
/// The ledger's configuration.
pub const CONFIG: &str = ".ledger/config.yaml";
/// The keys allowed to sign decisions (git's ssh `allowed_signers` format); when present,
/// `verify` requires every decision to be signed by one of them.
pub const ALLOWED_SIGNERS: &str = ".ledger/allowed_signers";
/// Keeps the otherwise empty proposals directory in git.
pub const PROPOSALS_KEEP: &str = ".ledger/proposals/.gitkeep";
/// Where agents are told the protocol.
pub const AGENTS_MD: &str = "AGENTS.md";
/// Whether `file` names a file inside the work tree, as a user's `--agents-file` or the config
/// may: relative, without `..`, outside `.git` and the ledger. The reason when not.
pub fn check_repo_file(file: &str) -> Result<(), &'static str> {
    let path = std::path::Path::new(file);
    let mut parts = path.components();
    if file.is_empty() || file.len() > 1024 {
        Err("name a file inside the repository, such as CLAUDE.md")
    } else if path.is_absolute() || file.starts_with(['/', '\\']) {
        Err("name the file relative to the repository's root, such as CLAUDE.md")
    } else if parts.any(|c| matches!(c, std::path::Component::ParentDir)) {
        Err("name a file inside the repository: `..` leaves it")
    } else if path
        .components()
        .next()
        .is_some_and(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
    {
        Err("name a file of the work tree, not of .git")
    } else if path.starts_with(LEDGER) {
        Err("name a file outside .ledger, whose files mneme owns")
    } else {
        Ok(())
    }
}

/// Where the merge driver is attached to fact files.
pub const GITATTRIBUTES: &str = ".gitattributes";
/// The workflow `mneme init --ci github` writes.
pub const GITHUB_WORKFLOW: &str = ".github/workflows/mneme.yml";
/// The workflow `mneme init --ci github` writes for deciding in pull requests.
pub const GITHUB_DECIDE_WORKFLOW: &str = ".github/workflows/mneme-decide.yml";
/// A GitLab project's CI configuration, which `mneme init --ci gitlab` makes include mneme's.
pub const GITLAB_CI: &str = ".gitlab-ci.yml";
/// mneme's own GitLab CI configuration, which `mneme init --ci gitlab` writes.
pub const GITLAB_MNEME_CI: &str = ".gitlab/mneme.gitlab-ci.yml";

/// In the git directory: serialises changes to facts and proposals.
pub const LEDGER_LOCK: &str = "mneme.lock";
/// In the common git directory: serialises changes to tasks across the repository's work trees.
pub const TASKS_LOCK: &str = "mneme-tasks.lock";
/// In the common git directory: who claimed which task, shared by the repository's work trees.
pub const CLAIMS: &str = "mneme-claims";
/// When each remote's claim refs were last fetched (`ready` reuses them for a short while).
pub const CLAIMS_FETCHED: &str = "mneme-claims-fetched";
/// In the git directory: which process is committing a decision, and the locks it holds.
pub const COMMIT_OWNER: &str = "mneme-commit.owner";
/// In the git directory: what an interrupted decision commit still has to do.
pub const JOURNAL: &str = "mneme-decision.json";
/// In the git directory: the config as parsed, for the exact text it was parsed from.
pub const CONFIG_CACHE: &str = "mneme-config.idx";
/// In the git directory: the SHA-256 of each fact file, with the file's status when it was read.
pub const LEDGER_INDEX: &str = "mneme-ledger.idx";
/// In the git directory: the index of the facts (ids, statements, words) `propose` compares a
/// statement with, with each fact file's status when it was read.
pub const FACTS_INDEX: &str = "mneme-facts.idx";
/// In the git directory: what `propose` and `context` keep of the review queue between runs.
pub const QUEUE_INDEX: &str = "mneme-queue.idx";
/// In the git directory: the facts `context` marks stale, for the HEAD and fact files they were
/// found for (the drift walk reads history; a hook must not).
pub const STALE_CACHE: &str = "mneme-stale.idx";
/// In the git directory: for facts citing files changed in the newest commits, how recently,
/// for the HEAD and fact files it was found for (`context` ranks facts by it under a budget).
pub const RECENT_CACHE: &str = "mneme-recent.idx";
/// As [`RECENT_CACHE`], for a hook's context without the facts about files (`scoped_delivery`).
pub const RECENT_SCOPED_CACHE: &str = "mneme-recent-scoped.idx";
/// In the git directory: the facts `context` marks unapproved, for the fact files, the records
/// directory's status and the HEAD they were judged for.
pub const APPROVAL_CACHE: &str = "mneme-approval.idx";
/// In the git directory: the signature checks of decision records, by the hash of each record
/// file and of `allowed_signers` (a hook verifies only records it has not seen).
pub const SIGNATURE_CACHE: &str = "mneme-signatures.idx";
/// In the git directory: how many task files the tasks directory held, with the directory's
/// status when it was counted (`create` sizes new ids by it without listing the directory).
pub const TASKS_COUNT: &str = "mneme-tasks.count";
/// In the git directory: what `context` keeps of the task files between runs, with each file's
/// status when it was read.
pub const TASK_INDEX: &str = "mneme-tasks.idx";
/// In the git directory: the index `pre-commit` sees during a decision commit.
pub const HOOK_INDEX: &str = "mneme-hook-index";

/// In the git directory: a runtime's session (by a hash of its id) already holds the facts in its
/// history, so a hook that runs again in it (a resumed session) adds nothing.
pub fn session_marker(runtime: &str, session_hash: &str) -> String {
    format!("mneme-sessions/{runtime}-{session_hash}")
}

/// In the hooks directory: an existing commit-msg hook, kept when mneme's is installed; mneme's
/// runs it first, as husky and pre-commit chain the hooks they find.
pub const CHAINED_HOOK: &str = "commit-msg.pre-mneme";

/// In the git directory: held while a hook reads and updates a session's record of the facts it
/// was given, so that hooks run at once (parallel tool calls) never give one fact twice.
pub const SESSIONS_LOCK: &str = "mneme-sessions.lock";

/// Where `mneme setup` keeps a runtime's hooks, relative to the repository (`--project`) or to
/// the home directory (`--user`): the same place in both, but for Copilot CLI's.
pub fn runtime_settings(runtime: &str, user: bool) -> Option<&'static str> {
    match runtime {
        "claude" => Some(".claude/settings.json"),
        "codex" => Some(".codex/hooks.json"),
        "gemini" => Some(".gemini/settings.json"),
        "cursor" => Some(".cursor/hooks.json"),
        "qwen" => Some(".qwen/settings.json"),
        // Copilot CLI reads every `*.json` in its hooks folders; `COPILOT_HOME` moves the user's.
        "copilot" if user => Some(".copilot/hooks/mneme.json"),
        "copilot" => Some(".github/hooks/mneme.json"),
        _ => None,
    }
}

/// The folders of the rule files the ledger compiles into (`compile:` in the config): Copilot's,
/// Cursor's, Windsurf's, Cline's and Kiro's.
pub const RULE_DIRS: [&str; 5] = [
    ".github/instructions",
    ".cursor/rules",
    ".windsurf/rules",
    ".clinerules",
    ".kiro/steering",
];

/// How every rule file the ledger compiles into is named.
pub const RULE_FILE_PREFIX: &str = "mneme-facts";

/// Whether `path` (from the repository's root) is where mneme writes a compiled rule file: a
/// file directly in one of [`RULE_DIRS`], named as compiled files are.
pub fn is_rule_file(path: &str) -> bool {
    path.rsplit_once('/').is_some_and(|(dir, name)| {
        RULE_DIRS.contains(&dir) && name.starts_with(RULE_FILE_PREFIX) && !name.contains('\\')
    })
}

/// The files a decision commit may write besides the ledger's: its compiled rule files.
pub fn is_decision_path(path: &str) -> bool {
    path.strip_prefix(LEDGER)
        .is_some_and(|rest| rest.starts_with('/'))
        || is_rule_file(path)
}

/// The first path after every one a decision commit may write (those of the ledger and of
/// [`RULE_DIRS`] sort before it, since each starts with a `.` and a name before `.windsurf/`):
/// the index is decoded up to it.
pub const DECISION_PATHS_END: &str = ".windsurf0";

/// Codex's settings (features, the agents' environment), relative to the repository or home.
pub const CODEX_CONFIG: &str = ".codex/config.toml";

/// The plugin `mneme setup opencode` writes: in the repository, or in OpenCode's configuration
/// directory (`--user`).
pub fn opencode_plugin(user: bool) -> &'static str {
    if user {
        "opencode/plugins/mneme.js"
    } else {
        ".opencode/plugins/mneme.js"
    }
}

/// The extension `mneme setup pi` writes: in the repository, or in pi's agent directory
/// (`--user`; `PI_CODING_AGENT_DIR` moves it).
pub fn pi_extension(user: bool) -> &'static str {
    if user {
        ".pi/agent/extensions/mneme.ts"
    } else {
        ".pi/extensions/mneme.ts"
    }
}

/// The always-apply rule `mneme setup cursor` writes, relative to the repository or home.
pub const CURSOR_RULE: &str = ".cursor/rules/mneme.mdc";

/// Every file `mneme setup <runtime>` writes in a repository, for the team to commit.
pub fn runtime_project_files(runtime: &str) -> Vec<&'static str> {
    let mut files: Vec<&'static str> = runtime_settings(runtime, false).into_iter().collect();
    match runtime {
        "codex" => files.push(CODEX_CONFIG),
        "cursor" => files.push(CURSOR_RULE),
        "opencode" => files.push(opencode_plugin(false)),
        "pi" => files.push(pi_extension(false)),
        _ => {}
    }
    files
}

/// `.ledger/facts/<name>`, for a file name such as `architecture.md`.
pub fn decision_file(id: &str) -> String {
    format!("{DECISIONS}/{id}.json")
}

pub fn fact_file(name: &str) -> String {
    format!("{FACTS}/{name}")
}

/// `.ledger/tasks/<id>.json`.
pub fn task_file(id: &str) -> String {
    format!("{TASKS}/{id}.json")
}
