//! What the verbs do, over one workspace: each function here loads what it needs from the store
//! and git, calls the model, and writes or commits the result. The CLI only parses arguments and
//! renders what these return.

pub mod audit;
pub mod check;
pub mod claims;
pub mod context;
pub mod doctor;
pub mod evidence;
pub mod export;
pub mod forge;
pub mod hooks;
pub mod import;
pub mod init;
pub mod propose;
pub mod records;
pub mod review;
pub mod rules;
pub mod runtimes;
pub mod setup;
pub mod show;
pub mod stale;
pub mod status;
pub mod tasks;

use std::path::{Path, PathBuf};

use crate::git::{self, Repo};
use crate::model::agents::runtimes::SettingsError;
use crate::model::base::time::Timestamp;
use crate::model::facts::fields::TextError;
use crate::model::facts::ledger::{Ledger, LookupError};
use crate::model::facts::standing::Standings;
use crate::model::interchange::import::ImportError;
use crate::model::interchange::ExportError;
use crate::model::proposals::apply::Conflict;
use crate::model::proposals::plan::PlanError;
use crate::model::proposals::proposal::ProposalError;
use crate::model::proposals::secrets::Secret;
use crate::model::tasks::claims::{Claim, ClaimError};
use crate::model::tasks::task::TaskError;
use crate::store::{self, Store};

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a verb could not do what was asked. Each subsystem's error is kept as it is.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error(transparent)]
    Git(#[from] git::Error),
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error(transparent)]
    Lookup(#[from] LookupError),
    #[error(transparent)]
    Task(#[from] TaskError),
    #[error(transparent)]
    Export(#[from] ExportError),
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error("proposal `{id}` conflicts with the current facts")]
    Conflict {
        id: String,
        #[source]
        conflict: Conflict,
    },
    #[error("proposal `{id}` holds what looks like {secret} in its {field}")]
    Secret {
        id: String,
        field: String,
        secret: Secret,
    },
    #[error("proposal `{id}` is invalid: {why}")]
    InvalidProposal { id: String, why: ProposalError },
    #[error("unknown proposal `{id}`; pending: {}", pending_ids(known))]
    UnknownProposal { id: String, known: Vec<String> },
    #[error("no pending proposal is by `{agent}`; pending ones are by {}", known.join(", "))]
    UnknownAgent { agent: String, known: Vec<String> },
    #[error("`{id}` matches {} pending proposals: {}", matches.len(), matches.join(", "))]
    AmbiguousProposal { id: String, matches: Vec<String> },
    #[error("{}: {message}", path.display())]
    AgentsBlock { path: PathBuf, message: String },
    #[error("--agents-file {file:?}: {why}")]
    AgentsFile { file: String, why: &'static str },
    #[error("{} exists and was not written by mneme, and an earlier hook already holds {}", path.display(), crate::model::base::paths::CHAINED_HOOK)]
    ForeignHook { path: PathBuf },
    #[error("{path} was not written by mneme, and the ledger compiles a rule file there")]
    ForeignRuleFile { path: String },
    #[error("{path} leads out of the repository through a link, and mneme writes rule files only inside it")]
    RuleFileLink { path: String },
    #[error("{} cannot be edited: {why}", path.display())]
    Settings {
        path: PathBuf,
        #[source]
        why: SettingsError,
    },
    #[error("the decision's message: {0}")]
    Note(#[source] TextError),
    #[error("an approval was interrupted and is not finished; this commit, made from git's index before it, would leave it out")]
    ApprovalUnfinished,
    #[error("this commit changes rule files compiled from the ledger by hand ({})", files.join(", "))]
    CompiledEdit { files: Vec<String> },
    #[error("this commit changes facts directly ({})", facts.join(", "))]
    DirectFactEdit { facts: Vec<String> },
    #[error("this commit leaves facts that are not what the decision records approved:\n  {}", problems.join("\n  "))]
    NotAsDecided { problems: Vec<String> },
    #[error("task {id} is already claimed on `{remote}` by {}", held_by(claim, *now))]
    RemoteClaimed {
        id: String,
        remote: String,
        /// The claim there, or why its object cannot be read.
        claim: Box<std::result::Result<Claim, String>>,
        now: Timestamp,
    },
    #[error("your claim on task {id} on `{remote}` was taken over{}; nothing was written", now_held.as_ref().map(|c| format!(" by {}", held_by(c, *now))).unwrap_or_default())]
    ClaimLost {
        id: String,
        remote: String,
        now_held: Option<Box<std::result::Result<Claim, String>>>,
        now: Timestamp,
    },
    #[error("the claim on task {id} on `{remote}` was refused, and the claim that beat it was released since; try again")]
    ClaimRace { id: String, remote: String },
    #[error("could not reach the remote `{remote}` to claim task {id}: {message}; nothing was written here")]
    ClaimUnsettled {
        id: String,
        remote: String,
        message: String,
    },
    #[error("task {id} has no claim on `{remote}` to take over")]
    NoRemoteClaim { id: String, remote: String },
    #[error("the claim on task {id} on `{remote}` is not stale: {}", claim.describe(*now))]
    ClaimNotStale {
        id: String,
        remote: String,
        claim: Box<Claim>,
        now: Timestamp,
    },
    #[error("--reason must say why the claim is taken over")]
    StealReason,
    #[error("no claims remote: set claims_remote in .ledger/config.yaml, or give --remote")]
    NoClaimsRemote,
    #[error("this claim cannot go to the remote: {why}")]
    BadClaim { why: ClaimError },
}

/// A claim's holder and lease in words, or why its object cannot be read.
fn held_by(claim: &std::result::Result<Claim, String>, now: Timestamp) -> String {
    match claim {
        Ok(c) => c.describe(now),
        Err(why) => format!("a claim mneme cannot read ({why})"),
    }
}

impl From<TextError> for Error {
    fn from(e: TextError) -> Error {
        Error::Plan(e.into())
    }
}

/// Where ops report what the user should know but that does not stop the work, such as a file
/// skipped because it does not parse.
pub trait Notes {
    fn warn(&self, message: &str);
}

/// Notes nobody reads: for callers that have shown the reader what matters another way (an MCP
/// tool's JSON result, a question already asked in the terminal).
pub struct Quiet;

impl Notes for Quiet {
    fn warn(&self, _message: &str) {}
}

/// The repository and its ledger, found once per run.
impl Error {
    /// Whether an approval refused with this leaves its proposal pending among others that
    /// apply (`approve --all`, `/mneme approve all`): a conflict, an invalid proposal, what looks
    /// like a credential. Any other error stops.
    pub fn leaves_pending(&self) -> bool {
        matches!(
            self,
            Error::Conflict { .. } | Error::InvalidProposal { .. } | Error::Secret { .. }
        )
    }
}

pub struct Workspace {
    pub repo: Repo,
    pub store: Store,
}

impl Workspace {
    pub fn discover(cwd: &Path) -> Result<Workspace> {
        let repo = Repo::discover(cwd)?;
        let store = repo.store();
        Ok(Workspace { repo, store })
    }
}

/// How each fact of `ledger` stands at `now`, pending proposals' contradictions included.
pub fn standings(ws: &Workspace, ledger: &Ledger, now: Timestamp) -> Result<Standings> {
    let pending = ws.store.queue_summary(&ledger.limits())?;
    Ok(Standings::of(ledger, now).with_pending(&pending.contested))
}

/// The current time: the one place mneme reads the clock.
pub fn now() -> Timestamp {
    jiff::Timestamp::now().into()
}

/// The pending proposals an error names.
fn pending_ids(known: &[String]) -> String {
    if known.is_empty() {
        return "none".to_owned();
    }
    crate::model::base::text::listing(known, "mneme review list")
}
