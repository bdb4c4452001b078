//! Typed errors of the library. The CLI renders them once, at the edge, as text or JSON.

use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("not inside a git work tree ({path}); run `git init` first, or cd into a repository")]
    NotARepository { path: PathBuf },
    #[error("the repository at {path} has no work tree; mneme needs a checkout")]
    BareRepository { path: PathBuf },
    #[error("no ledger in {root}; run `mneme init` first")]
    NotInitialized { root: PathBuf },
    #[error(
        "{path} resolves to {target}, outside the repository; refusing to read or write through it"
    )]
    UnsafeLedger { path: PathBuf, target: PathBuf },
    #[error("unknown fact file `{name}`; known files: {}", known.join(", "))]
    UnknownFile { name: String, known: Vec<String> },
    #[error("invalid fact file name `{name}`: give a name from .ledger/facts without a path, such as `architecture`")]
    InvalidFileName { name: String },
    #[error("unknown fact `{id}`; {}", known_ids(known))]
    UnknownFact { id: String, known: Vec<String> },
    #[error("fact `{id}` is superseded by `{by}`; propose the change against `{by}` instead")]
    SupersededFact { id: String, by: String },
    #[error("the fact text is empty; give the statement as an argument or with --stdin")]
    EmptyText,
    #[error("the fact text has {len} characters, more than the limit of {max} (max_fact_chars in .ledger/config.yaml); split it into smaller facts")]
    TextTooLong { len: usize, max: usize },
    #[error("invalid {what}: {why}")]
    InvalidText { what: &'static str, why: String },
    #[error("{what} is not valid UTF-8; mneme stores text as UTF-8")]
    InvalidUtf8 { what: String },
    #[error("this fact already exists as `{id}` in {file}; propose an update to it if it needs to change")]
    DuplicateFact { id: String, file: String },
    #[error("pending proposal `{proposal}` already proposes this text; wait for its review or propose something else")]
    DuplicateProposal { proposal: String },
    #[error("fact `{id}` already says exactly this; nothing to propose")]
    NoChange { id: String },
    #[error("this ledger requires at least one --evidence REF per proposal (require_evidence in .ledger/config.yaml)")]
    EvidenceRequired,
    #[error("a proposal needs --reason: say why the ledger should change")]
    MissingReason,
    #[error("{0}")]
    InvalidInput(String),
    #[error("{path}:{line}: {message}")]
    FactFileParse {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    ProposalParse { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Config { path: PathBuf, message: String },
    #[error("{path}: {message}; fix the markers by hand (mneme only edits between them)")]
    AgentsBlock { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("git: {0}")]
    Git(String),
    #[error("{path} exists: another git process is using the repository; retry when it is done (if none is running, remove {path})")]
    GitLocked { path: PathBuf },
    #[error("no git identity is configured; run `git config user.name \"Your Name\"` and `git config user.email you@example.com`")]
    IdentityMissing,
    #[error("a {what} is in progress; finish or abort it before recording decisions")]
    GitInProgress { what: String },
    #[error(
        "HEAD is detached; switch to a branch (`git switch -c <name>`) so the decision is not lost"
    )]
    DetachedHead,
    #[error("{path} has {kind} changes nobody reviewed; commit or restore them first (`git diff HEAD -- {path}`)")]
    LocalEdits { path: String, kind: &'static str },
    #[error("the sparse index leaves out .ledger/; mneme does not support sparse checkouts that exclude it")]
    SparseIndex,
    #[error("the {hook} hook failed ({status}); nothing was committed{}", if output.is_empty() { String::new() } else { format!(":\n{output}") })]
    HookFailed {
        hook: &'static str,
        status: String,
        output: String,
    },
    #[error("the branch moved while the commit was being made; run the review again")]
    RefMoved,
    #[error("proposal `{id}` conflicts with the current facts: {message}; reject it or edit it in `mneme review`")]
    Conflict { id: String, message: String },
    #[error("unknown proposal `{id}`; pending: {}", if known.is_empty() { "none".to_owned() } else { known.join(", ") })]
    UnknownProposal { id: String, known: Vec<String> },
    #[error("`mneme review` is interactive and needs a terminal; use `mneme review list`, `show`, `approve` or `reject`")]
    NotATerminal,
    #[error("{0}")]
    Interrupted(String),
    #[error("unknown task `{id}`{}", if near.is_empty() { String::new() } else { format!("; did you mean {}?", near.join(", ")) })]
    UnknownTask { id: String, near: Vec<String> },
    #[error("task id `{id}` is ambiguous: {}", matches.join(", "))]
    AmbiguousTask { id: String, matches: Vec<String> },
    #[error("task {id} is already claimed by {by}")]
    AlreadyClaimed { id: String, by: String },
    #[error("that dependency would make a cycle: {}", cycle.join(" → "))]
    DependencyCycle { cycle: Vec<String> },
    #[error("{path}: {message}")]
    TaskParse { path: PathBuf, message: String },
    #[error("{count} error(s) found")]
    CheckFailed { count: usize },
    #[error("{count} fact change(s) were not approved through mneme")]
    VerifyFailed { count: usize },
}

fn known_ids(known: &[String]) -> String {
    const SHOWN: usize = 20;
    match known.len() {
        0 => "the ledger has no facts with ids yet".to_owned(),
        n if n <= SHOWN => format!("known ids: {}", known.join(", ")),
        n => format!(
            "known ids include {} … and {} more (see `mneme facts`)",
            known[..SHOWN].join(", "),
            n - SHOWN
        ),
    }
}

impl Error {
    /// Any gix failure, with its message.
    pub fn git(e: impl std::fmt::Display) -> Error {
        Error::Git(e.to_string())
    }

    /// Stable machine-readable code, documented in README.md.
    pub fn code(&self) -> &'static str {
        match self {
            Error::NotARepository { .. } => "not_a_repository",
            Error::BareRepository { .. } => "bare_repository",
            Error::NotInitialized { .. } => "not_initialized",
            Error::UnsafeLedger { .. } => "unsafe_ledger",
            Error::UnknownFile { .. } => "unknown_file",
            Error::InvalidFileName { .. } => "invalid_file_name",
            Error::UnknownFact { .. } => "unknown_fact",
            Error::SupersededFact { .. } => "superseded_fact",
            Error::EmptyText => "empty_text",
            Error::TextTooLong { .. } => "text_too_long",
            Error::InvalidText { .. } => "invalid_text",
            Error::InvalidUtf8 { .. } => "invalid_utf8",
            Error::DuplicateFact { .. } => "duplicate_fact",
            Error::DuplicateProposal { .. } => "duplicate_proposal",
            Error::NoChange { .. } => "no_change",
            Error::EvidenceRequired => "evidence_required",
            Error::MissingReason => "missing_reason",
            Error::InvalidInput(_) => "invalid_input",
            Error::FactFileParse { .. } => "fact_file_parse",
            Error::ProposalParse { .. } => "proposal_parse",
            Error::Config { .. } => "config",
            Error::AgentsBlock { .. } => "agents_md",
            Error::Io { .. } => "io",
            Error::Git(_) => "git",
            Error::GitLocked { .. } => "git_locked",
            Error::IdentityMissing => "identity_missing",
            Error::GitInProgress { .. } => "git_in_progress",
            Error::DetachedHead => "detached_head",
            Error::LocalEdits { .. } => "local_edits",
            Error::SparseIndex => "sparse_index",
            Error::HookFailed { .. } => "hook_failed",
            Error::RefMoved => "ref_moved",
            Error::Conflict { .. } => "conflict",
            Error::UnknownProposal { .. } => "unknown_proposal",
            Error::NotATerminal => "not_a_terminal",
            Error::Interrupted(_) => "interrupted",
            Error::CheckFailed { .. } => "check_failed",
            Error::UnknownTask { .. } => "unknown_task",
            Error::AmbiguousTask { .. } => "ambiguous_task",
            Error::AlreadyClaimed { .. } => "already_claimed",
            Error::DependencyCycle { .. } => "dependency_cycle",
            Error::TaskParse { .. } => "task_parse",
            Error::VerifyFailed { .. } => "verify_failed",
        }
    }

    /// Structured details for `--json` error output, beyond code and message.
    pub fn details(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            Error::UnknownFile { name, known } => json!({ "name": name, "known": known }),
            Error::UnknownFact { id, known } => json!({ "id": id, "known": known }),
            Error::SupersededFact { id, by } => json!({ "id": id, "by": by }),
            Error::DuplicateFact { id, file } => json!({ "id": id, "file": file }),
            Error::DuplicateProposal { proposal } => json!({ "proposal": proposal }),
            Error::TextTooLong { len, max } => json!({ "len": len, "max": max }),
            Error::FactFileParse { path, line, .. } => json!({ "path": path, "line": line }),
            Error::LocalEdits { path, .. } => json!({ "path": path }),
            Error::Conflict { id, .. } => json!({ "proposal": id }),
            Error::UnknownProposal { id, known } => json!({ "id": id, "known": known }),
            Error::GitLocked { path } => json!({ "path": path }),
            Error::UnknownTask { id, near } => json!({ "id": id, "near": near }),
            Error::AmbiguousTask { id, matches } => json!({ "id": id, "matches": matches }),
            Error::AlreadyClaimed { id, by } => json!({ "id": id, "by": by }),
            Error::DependencyCycle { cycle } => json!({ "cycle": cycle }),
            Error::ProposalParse { path, .. } | Error::Config { path, .. } => {
                json!({ "path": path })
            }
            _ => serde_json::Value::Null,
        }
    }

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }
}
