//! The one error the command line renders: a stable code, a message (the error and its causes),
//! structured details for `--json`, and a hint that says what to do. Every subsystem's error is
//! turned into one here (`from`), and nowhere else.

use std::path::Path;

use mneme::error_chain;
use serde_json::Value;

mod from;

/// Stable error codes, documented in docs/json.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    NotARepository,
    BareRepository,
    NotInitialized,
    UnsafeLedger,
    NotAFile,
    FileTooLarge,
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
    pub const ALL: [Code; 58] = [
        Code::NotARepository,
        Code::BareRepository,
        Code::NotInitialized,
        Code::UnsafeLedger,
        Code::NotAFile,
        Code::FileTooLarge,
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
            Code::NotAFile => "not_a_file",
            Code::FileTooLarge => "file_too_large",
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
            .with_hint("set GIT_EDITOR, core.editor, VISUAL or EDITOR (in git's order) to an editor that waits for you to close the file")
    }

    /// Reading an input file or stdin failed.
    pub fn input(path: &Path, e: std::io::Error) -> CliError {
        CliError::new(Code::Io, format!("{}: {e}", path.display()))
    }
}

/// Writing the output failed; a closed pipe is not reported.
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
