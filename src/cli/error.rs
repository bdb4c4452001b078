//! The one error the command line renders: a stable code, a message (the error and its causes),
//! structured details for `--json`, and a hint that says what to do. Every subsystem's error is
//! turned into one here, and nowhere else.

use std::path::Path;

use mneme::model::facts::fields::TextError;
use mneme::model::facts::ledger::LookupError;
use mneme::model::interchange::import::ImportError;
use mneme::model::interchange::ExportError;
use mneme::model::proposals::apply::Conflict;
use mneme::model::proposals::plan::PlanError;
use mneme::model::tasks::task::TaskError;
use mneme::{error_chain, git, ops, store};
use serde_json::{json, Value};

/// Stable error codes, documented in docs/json.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    NotARepository,
    BareRepository,
    NotInitialized,
    UnsafeLedger,
    UnknownFile,
    InvalidFileName,
    UnknownFact,
    SupersededFact,
    ArchivedFact,
    InvalidRelation,
    EmptyText,
    TextTooLong,
    InvalidText,
    InvalidUtf8,
    DuplicateFact,
    DuplicateProposal,
    NoChange,
    EvidenceRequired,
    MissingReason,
    InvalidInput,
    FactFileParse,
    Config,
    AgentsMd,
    Io,
    Git,
    GitLocked,
    IdentityMissing,
    SigningFailed,
    GitInProgress,
    DetachedHead,
    LocalEdits,
    SparseIndex,
    HookFailed,
    RefMoved,
    Conflict,
    InvalidProposal,
    Secret,
    UnknownProposal,
    AmbiguousProposal,
    NotATerminal,
    Terminal,
    Editor,
    Interrupted,
    UnknownTask,
    AmbiguousTask,
    AlreadyClaimed,
    ClaimLost,
    ClaimNotStale,
    NoClaim,
    NoSuchRemote,
    RemoteUnreachable,
    DependencyCycle,
    TaskParse,
    ExportInvalid,
    Output,
    Internal,
}

impl Code {
    #[cfg(test)]
    pub const ALL: [Code; 56] = [
        Code::NotARepository,
        Code::BareRepository,
        Code::NotInitialized,
        Code::UnsafeLedger,
        Code::UnknownFile,
        Code::InvalidFileName,
        Code::UnknownFact,
        Code::SupersededFact,
        Code::ArchivedFact,
        Code::InvalidRelation,
        Code::EmptyText,
        Code::TextTooLong,
        Code::InvalidText,
        Code::InvalidUtf8,
        Code::DuplicateFact,
        Code::DuplicateProposal,
        Code::NoChange,
        Code::EvidenceRequired,
        Code::MissingReason,
        Code::InvalidInput,
        Code::FactFileParse,
        Code::Config,
        Code::AgentsMd,
        Code::Io,
        Code::Git,
        Code::GitLocked,
        Code::IdentityMissing,
        Code::SigningFailed,
        Code::GitInProgress,
        Code::DetachedHead,
        Code::LocalEdits,
        Code::SparseIndex,
        Code::HookFailed,
        Code::RefMoved,
        Code::Conflict,
        Code::InvalidProposal,
        Code::Secret,
        Code::UnknownProposal,
        Code::AmbiguousProposal,
        Code::NotATerminal,
        Code::Terminal,
        Code::Editor,
        Code::Interrupted,
        Code::UnknownTask,
        Code::AmbiguousTask,
        Code::AlreadyClaimed,
        Code::ClaimLost,
        Code::ClaimNotStale,
        Code::NoClaim,
        Code::NoSuchRemote,
        Code::RemoteUnreachable,
        Code::DependencyCycle,
        Code::TaskParse,
        Code::ExportInvalid,
        Code::Output,
        Code::Internal,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Code::NotARepository => "not_a_repository",
            Code::BareRepository => "bare_repository",
            Code::NotInitialized => "not_initialized",
            Code::UnsafeLedger => "unsafe_ledger",
            Code::UnknownFile => "unknown_file",
            Code::InvalidFileName => "invalid_file_name",
            Code::UnknownFact => "unknown_fact",
            Code::SupersededFact => "superseded_fact",
            Code::ArchivedFact => "archived_fact",
            Code::InvalidRelation => "invalid_relation",
            Code::EmptyText => "empty_text",
            Code::TextTooLong => "text_too_long",
            Code::InvalidText => "invalid_text",
            Code::InvalidUtf8 => "invalid_utf8",
            Code::DuplicateFact => "duplicate_fact",
            Code::DuplicateProposal => "duplicate_proposal",
            Code::NoChange => "no_change",
            Code::EvidenceRequired => "evidence_required",
            Code::MissingReason => "missing_reason",
            Code::InvalidInput => "invalid_input",
            Code::FactFileParse => "fact_file_parse",
            Code::Config => "config",
            Code::AgentsMd => "agents_md",
            Code::Io => "io",
            Code::Git => "git",
            Code::GitLocked => "git_locked",
            Code::IdentityMissing => "identity_missing",
            Code::SigningFailed => "signing_failed",
            Code::GitInProgress => "git_in_progress",
            Code::DetachedHead => "detached_head",
            Code::LocalEdits => "local_edits",
            Code::SparseIndex => "sparse_index",
            Code::HookFailed => "hook_failed",
            Code::RefMoved => "ref_moved",
            Code::Conflict => "conflict",
            Code::InvalidProposal => "invalid_proposal",
            Code::Secret => "secret",
            Code::UnknownProposal => "unknown_proposal",
            Code::AmbiguousProposal => "ambiguous_proposal",
            Code::NotATerminal => "not_a_terminal",
            Code::Terminal => "terminal",
            Code::Editor => "editor",
            Code::Interrupted => "interrupted",
            Code::UnknownTask => "unknown_task",
            Code::AmbiguousTask => "ambiguous_task",
            Code::AlreadyClaimed => "already_claimed",
            Code::ClaimLost => "claim_lost",
            Code::ClaimNotStale => "claim_not_stale",
            Code::NoClaim => "no_claim",
            Code::NoSuchRemote => "no_such_remote",
            Code::RemoteUnreachable => "remote_unreachable",
            Code::DependencyCycle => "dependency_cycle",
            Code::TaskParse => "task_parse",
            Code::ExportInvalid => "export_invalid",
            Code::Output => "output",
            Code::Internal => "internal",
        }
    }
}

#[derive(Debug)]
pub struct CliError {
    pub code: Code,
    pub message: String,
    pub hint: Option<String>,
    /// Extra fields of the `--json` error object (boxed: errors travel in every `Result`).
    pub details: Box<Value>,
    /// Output went to a closed pipe (`mneme context | head`): not worth reporting.
    pub broken_pipe: bool,
}

pub type Result<T, E = CliError> = std::result::Result<T, E>;

impl CliError {
    /// The error object of `--json` output and of MCP tool errors: code, message, hint, details.
    pub fn to_json(&self) -> Value {
        let mut body = serde_json::json!({ "code": self.code.as_str(), "message": self.message });
        if let Some(hint) = &self.hint {
            body["hint"] = serde_json::json!(hint);
        }
        if let (Value::Object(body), Value::Object(details)) = (&mut body, &*self.details) {
            body.extend(details.clone());
        }
        body
    }
}

impl CliError {
    pub fn new(code: Code, message: impl Into<String>) -> CliError {
        CliError {
            code,
            message: message.into(),
            hint: None,
            details: Box::new(Value::Null),
            broken_pipe: false,
        }
    }

    fn of(code: Code, e: &dyn std::error::Error) -> CliError {
        CliError::new(code, error_chain(e))
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> CliError {
        self.hint = Some(hint.into());
        self
    }

    fn with_details(mut self, details: Value) -> CliError {
        *self.details = details;
        self
    }

    pub fn invalid_input(message: impl Into<String>) -> CliError {
        CliError::new(Code::InvalidInput, message)
    }

    /// An argument, stdin or a file that is not UTF-8.
    pub fn invalid_utf8(what: &str) -> CliError {
        CliError::new(
            Code::InvalidUtf8,
            format!("{what} is not valid UTF-8; mneme stores text as UTF-8"),
        )
    }

    /// The MCP session over stdin and stdout could not run.
    pub fn mcp(what: &str, e: impl std::fmt::Display) -> CliError {
        CliError::new(Code::Io, format!("{what}: {e}"))
    }

    /// Reading from or writing to the terminal failed.
    pub fn terminal(e: std::io::Error) -> CliError {
        CliError::new(Code::Terminal, format!("the terminal: {e}"))
    }

    /// The editor could not be run.
    pub fn editor(e: std::io::Error) -> CliError {
        CliError::new(Code::Editor, format!("running the editor: {e}"))
            .with_hint("set $VISUAL or $EDITOR to an editor that waits for you to close the file")
    }

    /// Reading an input file or stdin failed.
    pub fn input(path: &Path, e: std::io::Error) -> CliError {
        CliError::new(Code::Io, format!("{}: {e}", path.display()))
    }
}

/// Writing the output failed; a closed pipe is not reported.
impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> CliError {
        let mut error = CliError::new(Code::Output, format!("writing the output: {e}"));
        error.broken_pipe = e.kind() == std::io::ErrorKind::BrokenPipe;
        error
    }
}

impl From<ops::Error> for CliError {
    fn from(e: ops::Error) -> CliError {
        match e {
            ops::Error::Store(e) => e.into(),
            ops::Error::Git(e) => e.into(),
            ops::Error::Plan(e) => e.into(),
            ops::Error::Lookup(e) => e.into(),
            ops::Error::Task(e) => e.into(),
            ops::Error::Export(ExportError::Unstamped { .. }) => CliError::of(Code::InvalidInput, &e)
                .with_hint("give every fact an id with `mneme check --fix`, then export again"),
            ops::Error::Export(ExportError::DuplicateId { .. }) => CliError::of(Code::InvalidInput, &e)
                .with_hint("`mneme check` reports it; resolve it (usually a merge), then export again"),
            ops::Error::Export(ExportError::Invalid { .. }) => CliError::of(Code::ExportInvalid, &e)
                .with_hint("nothing was written; please report this as a bug with the fact it names"),
            ops::Error::Import(ImportError { ref file, ref problems, .. }) => {
                let details = json!({ "file": file, "problems": problems });
                CliError::of(Code::InvalidInput, &e)
                    .with_details(details)
                    .with_hint("nothing was proposed; fix the file or leave it out of the import")
            }
            ops::Error::Conflict { id, conflict } => conflict_error(&id, &conflict),
            ops::Error::Secret { ref id, .. } => {
                let details = json!({ "proposal": id });
                CliError::of(Code::Secret, &e).with_details(details).with_hint(
                    "reject it, or if you checked that it is not a credential, approve with --allow-secrets",
                )
            }
            ops::Error::InvalidProposal { ref id, .. } => {
                let details = json!({ "proposal": id });
                CliError::of(Code::InvalidProposal, &e)
                    .with_details(details)
                    .with_hint("it can only be rejected: `mneme review reject <id>`")
            }
            ops::Error::UnknownProposal { ref id, ref known } => {
                let details = json!({ "id": id, "known": known });
                CliError::of(Code::UnknownProposal, &e).with_details(details)
            }
            ops::Error::AmbiguousProposal { ref id, ref matches } => {
                let details = json!({ "id": id, "matches": matches });
                CliError::of(Code::AmbiguousProposal, &e)
                    .with_details(details)
                    .with_hint("give more of the id, or several ids")
            }
            ops::Error::AgentsBlock { .. } => CliError::of(Code::AgentsMd, &e)
                .with_hint("fix the markers by hand (mneme only edits between them)"),
            ops::Error::AgentsFile { .. } => CliError::of(Code::InvalidInput, &e),
            ops::Error::ForeignHook { .. } => CliError::of(Code::InvalidInput, &e).with_hint(
                "add `mneme hooks commit-msg \"$1\"` to it, or rerun with --force to replace it",
            ),
            ops::Error::Settings { .. } => CliError::of(Code::InvalidInput, &e)
                .with_hint("fix the file by hand (mneme edits only valid JSON), then run the setup again"),
            ops::Error::NotAsDecided { .. } => CliError::of(Code::InvalidInput, &e).with_hint(
                "propose changes with `mneme propose` and approve them with `mneme review`; a merge keeps each side's approved facts as they are; or commit with --no-verify",
            ),
            ops::Error::DirectFactEdit { .. } => CliError::of(Code::InvalidInput, &e).with_hint(
                "propose the change with `mneme propose` and approve it with `mneme review`, or commit with --no-verify",
            ),
            ops::Error::RemoteClaimed { ref id, ref remote, ref claim, now } => {
                let stale = (**claim).as_ref().map_or(true, |c| c.is_stale(now));
                let error = CliError::of(Code::AlreadyClaimed, &e)
                    .with_details(claim_details(id, remote, claim, now));
                if stale {
                    error.with_hint(format!(
                        "the claim is stale: take it over with `mneme claims --steal {id} --reason TEXT`"
                    ))
                } else {
                    error.with_hint("pick another task: `mneme ready`")
                }
            }
            ops::Error::ClaimLost { ref id, ref remote, ref now_held, now } => {
                let details = match now_held {
                    Some(claim) => claim_details(id, remote, claim, now),
                    None => json!({ "id": id, "remote": remote }),
                };
                CliError::of(Code::ClaimLost, &e)
                    .with_details(details)
                    .with_hint("stop working on it, or talk to its new holder")
            }
            ops::Error::ClaimRace { ref id, ref remote } => CliError::of(Code::AlreadyClaimed, &e)
                .with_details(json!({ "id": id, "remote": remote })),
            ops::Error::ClaimUnsettled { ref id, ref remote, .. } => {
                CliError::of(Code::RemoteUnreachable, &e)
                    .with_details(json!({ "id": id, "remote": remote }))
                    .with_hint(format!(
                        "the claim may still have reached `{remote}`: run the same command again to settle it (a claim of yours there is taken as yours), or claim in this clone alone with --local-only"
                    ))
            }
            ops::Error::NoRemoteClaim { ref id, ref remote } => CliError::of(Code::NoClaim, &e)
                .with_details(json!({ "id": id, "remote": remote }))
                .with_hint(format!("claim it: `mneme update {id} --claim`")),
            ops::Error::ClaimNotStale { ref id, ref remote, ref claim, now } => {
                CliError::of(Code::ClaimNotStale, &e)
                    .with_details(claim_details(id, remote, &Ok((**claim).clone()), now))
                    .with_hint("only a claim whose lease ran out can be taken over; ask its holder")
            }
            ops::Error::StealReason => CliError::of(Code::MissingReason, &e),
            ops::Error::BadClaim { .. } => CliError::of(Code::InvalidInput, &e)
                .with_hint("give a plain agent name with --agent or $MNEME_AGENT"),
            ops::Error::NoClaimsRemote => CliError::of(Code::NoSuchRemote, &e)
                .with_hint("claims_remote: origin (docs/format.md, \"Remote claims\")"),
        }
    }
}

/// The `--json` details of an error about a remote claim: the claim's fields, or why its object
/// cannot be read.
fn claim_details(
    id: &str,
    remote: &str,
    claim: &std::result::Result<mneme::model::tasks::claims::Claim, String>,
    now: mneme::model::base::time::Timestamp,
) -> Value {
    match claim {
        Ok(c) => json!({
            "id": id,
            "remote": remote,
            "by": c.agent,
            "host": c.host,
            "claimed_at": c.claimed_at,
            "renewed_at": c.renewed_at,
            "lease_seconds": c.lease_seconds,
            "expires_at": c.expires_at().rfc3339_seconds(),
            "stale": c.is_stale(now),
        }),
        Err(why) => json!({ "id": id, "remote": remote, "unreadable": why }),
    }
}

fn conflict_error(id: &str, conflict: &Conflict) -> CliError {
    CliError::new(
        Code::Conflict,
        format!("proposal `{id}` conflicts with the current facts: {conflict}"),
    )
    .with_hint("reject it or edit it in `mneme review`")
    .with_details(json!({ "proposal": id }))
}

impl From<store::Error> for CliError {
    fn from(e: store::Error) -> CliError {
        use store::Error as E;
        let code = match &e {
            E::NotInitialized { .. } => Code::NotInitialized,
            E::UnsafeLedger { .. } => Code::UnsafeLedger,
            E::Io { .. } => Code::Io,
            E::FactFile { .. } => Code::FactFileParse,
            E::Config { .. } => Code::Config,
            E::TaskParse { .. } => Code::TaskParse,
            E::NotUtf8 { .. } => Code::InvalidUtf8,
            E::ExportTarget(_) | E::ImportSource(_) => Code::InvalidInput,
        };
        let error = CliError::of(code, &e);
        match e {
            E::NotInitialized { .. } => error.with_hint("run `mneme init` first"),
            E::FactFile { path, line, .. } => {
                error.with_details(json!({ "path": path, "line": line }))
            }
            E::Config { path, .. } => error.with_details(json!({ "path": path })),
            E::ExportTarget(_) => error
                .with_hint("give --out a new or empty directory, or one an earlier export wrote"),
            _ => error,
        }
    }
}

impl From<git::Error> for CliError {
    fn from(e: git::Error) -> CliError {
        use git::Error as E;
        let e = match e {
            E::Store(inner) => return inner.into(),
            other => other,
        };
        let code = match &e {
            E::Store(_) => Code::Io,
            E::NotARepository { .. } => Code::NotARepository,
            E::BareRepository { .. } => Code::BareRepository,
            E::Locked { .. } => Code::GitLocked,
            E::IdentityMissing => Code::IdentityMissing,
            E::Signing(_) => Code::SigningFailed,
            E::InProgress { .. } => Code::GitInProgress,
            E::DetachedHead => Code::DetachedHead,
            E::LocalEdits { .. } => Code::LocalEdits,
            E::SparseIndex => Code::SparseIndex,
            E::HookFailed { .. } => Code::HookFailed,
            E::RefMoved => Code::RefMoved,
            E::Interrupted(_) => Code::Interrupted,
            E::NotARange { .. } | E::UnknownRevision { .. } | E::NotACommit { .. } => {
                Code::InvalidInput
            }
            E::Gix(_) | E::GitBinary { .. } | E::LocalClaims { .. } => Code::Git,
            E::NoSuchRemote { .. } => Code::NoSuchRemote,
            E::Remote { .. } => Code::RemoteUnreachable,
        };
        let error = CliError::of(code, &e);
        match e {
            E::NotARepository { .. } => {
                error.with_hint("run `git init` first, or cd into a repository")
            }
            E::Locked { path } => {
                let hint = format!(
                    "retry when it is done (if no git command is running, remove {})",
                    path.display()
                );
                error
                    .with_details(json!({ "path": path }))
                    .with_hint(hint)
            }
            E::IdentityMissing => error.with_hint(
                "run `git config user.name \"Your Name\"` and `git config user.email you@example.com`",
            ),
            E::Signing(_) => error.with_hint(format!(
                "{} requires signed decisions: `git config gpg.format ssh && git config user.signingKey ~/.ssh/id_ed25519.pub`, with that key listed for your email there (`mneme doctor` checks)",
                mneme::model::base::paths::ALLOWED_SIGNERS
            )),
            E::InProgress { .. } => {
                error.with_hint("finish or abort it before recording decisions")
            }
            E::DetachedHead => error
                .with_hint("switch to a branch (`git switch -c <name>`) so the decision is not lost"),
            E::LocalEdits { path, .. } => {
                let hint = format!("commit or restore them first (`git diff HEAD -- {path}`)");
                error.with_details(json!({ "path": path })).with_hint(hint)
            }
            E::RefMoved => error.with_hint("run the review again"),
            E::NoSuchRemote { remote } => error
                .with_details(json!({ "remote": remote }))
                .with_hint("add it (`git remote add NAME URL`), name another with --remote, or claim in this clone alone with --local-only"),
            E::Remote { remote, .. } => error.with_details(json!({ "remote": remote })).with_hint(
                "check the remote with `git fetch`; `--offline` uses the claims fetched before",
            ),
            _ => error,
        }
    }
}

impl From<PlanError> for CliError {
    fn from(e: PlanError) -> CliError {
        use PlanError as E;
        let e = match e {
            E::Lookup(inner) => return inner.into(),
            E::Text(inner) => return inner.into(),
            other => other,
        };
        let (code, details) = match &e {
            E::Lookup(_) | E::Text(_) => (Code::InvalidInput, Value::Null),
            E::SupersededFact { id, by } => (Code::SupersededFact, json!({ "id": id, "by": by })),
            E::ArchivedFact { id } => (Code::ArchivedFact, json!({ "id": id })),
            E::RelationTarget { id, .. } => (Code::InvalidRelation, json!({ "id": id })),
            E::NoSuchRelation { other, .. } => (Code::InvalidRelation, json!({ "id": other })),
            E::SameState { .. } => (Code::NoChange, Value::Null),
            E::UnknownState { .. } => (Code::InvalidInput, Value::Null),
            E::DuplicateFact { id, file } => {
                (Code::DuplicateFact, json!({ "id": id, "file": file }))
            }
            E::DuplicateProposal { proposal } => {
                (Code::DuplicateProposal, json!({ "proposal": proposal }))
            }
            E::NoChange { .. } => (Code::NoChange, Value::Null),
            E::EvidenceRequired => (Code::EvidenceRequired, Value::Null),
            E::MissingReason => (Code::MissingReason, Value::Null),
            E::NoOperations | E::SameFactTwice { .. } | E::SameTextTwice | E::Invalid(_) => {
                (Code::InvalidInput, Value::Null)
            }
            E::Secret { field, secret } => {
                (Code::Secret, json!({ "field": field, "kind": secret.kind }))
            }
        };
        CliError::of(code, &e).with_details(details)
    }
}

impl From<TextError> for CliError {
    fn from(e: TextError) -> CliError {
        let (code, details) = match &e {
            TextError::Empty => (Code::EmptyText, Value::Null),
            TextError::TooLong { len, max } => {
                (Code::TextTooLong, json!({ "len": len, "max": max }))
            }
            TextError::Invalid { .. } => (Code::InvalidText, Value::Null),
        };
        CliError::of(code, &e).with_details(details)
    }
}

impl From<LookupError> for CliError {
    fn from(e: LookupError) -> CliError {
        let (code, details) = match &e {
            LookupError::UnknownFile { name, known } => {
                (Code::UnknownFile, json!({ "name": name, "known": known }))
            }
            LookupError::InvalidFileName { .. } => (Code::InvalidFileName, Value::Null),
            LookupError::UnknownFact { id, known } => {
                (Code::UnknownFact, json!({ "id": id, "known": known }))
            }
        };
        CliError::of(code, &e).with_details(details)
    }
}

impl From<TaskError> for CliError {
    fn from(e: TaskError) -> CliError {
        use TaskError as E;
        let (code, details) = match &e {
            E::Unknown { id, near } => (Code::UnknownTask, json!({ "id": id, "near": near })),
            E::Ambiguous { id, matches } => {
                (Code::AmbiguousTask, json!({ "id": id, "matches": matches }))
            }
            E::AlreadyClaimed { id, by } => (Code::AlreadyClaimed, json!({ "id": id, "by": by })),
            E::Cycle { cycle } => (Code::DependencyCycle, json!({ "cycle": cycle })),
            E::InvalidTitle
            | E::TooShort { .. }
            | E::Closed { .. }
            | E::HasParent { .. }
            | E::NotADependency { .. }
            | E::NotCited { .. }
            | E::CloseWithClose
            | E::ClaimAndUnclaim
            | E::NotClaimed { .. }
            | E::MissingCloseReason => (Code::InvalidInput, Value::Null),
            E::NotYourClaim { id, by } => (Code::InvalidInput, json!({ "id": id, "by": by })),
        };
        CliError::of(code, &e).with_details(details)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_documented() {
        let doc =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/json.md")).unwrap();
        for code in Code::ALL {
            assert!(
                doc.contains(&format!("| `{}` |", code.as_str())),
                "docs/json.md does not document error code `{}`",
                code.as_str()
            );
        }
    }

    #[test]
    fn codes_are_distinct() {
        let mut names: Vec<_> = Code::ALL.iter().map(|c| c.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Code::ALL.len());
    }
}
