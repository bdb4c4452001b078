//! Each layer's error as a `CliError`: which stable code it gets, its details for `--json` and
//! the hint that says what to do.

use mneme::model::facts::fields::TextError;
use mneme::model::facts::ledger::LookupError;
use mneme::model::interchange::import::ImportError;
use mneme::model::interchange::ExportError;
use mneme::model::proposals::apply::Conflict;
use mneme::model::proposals::plan::PlanError;
use mneme::model::tasks::task::TaskError;
use mneme::{git, ops, store};
use serde_json::{json, Value};

use super::{CliError, Code};

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
            ops::Error::AgentsFile { .. } | ops::Error::Note(_) => {
                CliError::of(Code::InvalidInput, &e)
            }
            ops::Error::ApprovalUnfinished => CliError::of(Code::Interrupted, &e).with_hint(
                "run `mneme status`, which finishes it, then the same `git commit` again",
            ),
            ops::Error::UnknownAgent { ref known, .. } => CliError::of(Code::InvalidInput, &e)
                .with_details(json!({ "known": known }))
                .with_hint("give --agent one of those names, as `mneme review list` shows them"),
            ops::Error::ForeignHook { .. } => CliError::of(Code::InvalidInput, &e).with_hint(
                "add `mneme hooks commit-msg \"$1\"` to it, or rerun with --force to replace it",
            ),
            ops::Error::ForeignRuleFile { .. } => CliError::of(Code::InvalidInput, &e).with_hint(
                "move or rename that file (mneme never overwrites a rule file it did not write), or take the target out of `compile:` in .ledger/config.yaml",
            ),
            ops::Error::RuleFileLink { .. } => CliError::of(Code::InvalidInput, &e).with_hint(
                "replace the link with a folder, or take the target out of `compile:` in .ledger/config.yaml",
            ),
            ops::Error::Settings { .. } => CliError::of(Code::InvalidInput, &e)
                .with_hint("fix the file by hand (mneme edits only valid JSON), then run the setup again"),
            ops::Error::NotAsDecided { .. } => CliError::of(Code::InvalidInput, &e).with_hint(
                "propose changes with `mneme propose` and approve them with `mneme review`; a merge keeps each side's approved facts as they are; or commit with --no-verify",
            ),
            ops::Error::CompiledEdit { .. } => CliError::of(Code::InvalidInput, &e).with_hint(
                "change the facts with `mneme propose` and `mneme review`, which rewrite those files; `mneme check --fix` writes them back as the ledger compiles them; or commit with --no-verify",
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
    claim: &Result<mneme::model::tasks::claims::Claim, String>,
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
            E::NotAFile { .. } => Code::NotAFile,
            E::TooLarge { .. } | E::TooMany { .. } => Code::FileTooLarge,
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
            E::NotAFile { path, kind, found } => {
                error.with_details(json!({ "path": path, "kind": kind, "found": found }))
            }
            E::TooLarge {
                path, kind, limit, ..
            } => error.with_details(json!({ "path": path, "kind": kind, "limit": limit })),
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
            E::NotARepository { .. } | E::NoSuchDirectory { .. } => Code::NotARepository,
            E::BareRepository { .. } => Code::BareRepository,
            E::Locked { .. } => Code::GitLocked,
            E::IdentityMissing | E::Identity(_) => Code::IdentityMissing,
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
            E::NotARepository { .. } => error.with_hint(
                "run mneme inside a git repository (or give its path with -C), or `git init` one",
            ),
            E::NoSuchDirectory { .. } => {
                error.with_hint("give -C the path of your repository's work tree")
            }
            // `origin/main` in a clone that never fetched it (a fresh repository, a walkthrough).
            E::UnknownRevision { ref spec, .. } if spec.contains('/') => error.with_hint(
                "a remote's branch is known only once fetched (`git fetch`), and a repository without a remote has none: name a local branch instead (`main..HEAD`; `git branch -a` lists them)",
            ),
            E::UnknownRevision { .. } => {
                error.with_hint("`git branch -a` and `git log --oneline` list what there is to name")
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
            E::NoOperations
            | E::TooManyOperations { .. }
            | E::SameFactTwice { .. }
            | E::SameTextTwice
            | E::Invalid(_) => (Code::InvalidInput, Value::Null),
            E::Secret { field, secret, .. } => {
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
