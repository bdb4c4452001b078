//! The repository, through gix: one handle per run, decision commits, hooks, history. Depends
//! on `model` for values and on `store` for file primitives; never the other way.

pub mod commit;
pub mod config;
pub mod drift;
mod eol;
mod graph;
pub mod history;
pub mod hooks;
pub mod ignore;
pub mod index;
mod owner;
pub mod remote;
mod sign;

use std::path::{Path, PathBuf};

use crate::model::base::paths;
use crate::store::{self, Store};

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong with the repository. Causes from gix are kept as sources.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// gix's own words add nothing a person can act on ("NotFound"): they are left out.
    #[error("{} is not inside a git work tree", path.display())]
    NotARepository { path: PathBuf },
    #[error("there is no directory {}", path.display())]
    NoSuchDirectory { path: PathBuf },
    #[error("the repository at {} has no work tree; mneme needs a checkout", path.display())]
    BareRepository { path: PathBuf },
    #[error("{} exists: another git process is using the repository", path.display())]
    Locked { path: PathBuf },
    #[error("no git identity is configured")]
    IdentityMissing,
    #[error("cannot take the reviewer's identity: {0}")]
    Identity(String),
    #[error("cannot sign the decision record: {0}")]
    Signing(String),
    #[error("a {what} is in progress")]
    InProgress { what: String },
    #[error("HEAD is detached")]
    DetachedHead,
    #[error("this clone has no remote named `{remote}` (`git remote -v` lists them)")]
    NoSuchRemote { remote: String },
    #[error("could not reach the remote `{remote}`: {message}")]
    Remote { remote: String, message: String },
    #[error("this repository's claim refs or objects cannot be used: {message}")]
    LocalClaims { message: String },
    #[error("cannot run git, which mneme uses to reach remotes: {source}")]
    GitBinary {
        #[source]
        source: std::io::Error,
    },
    #[error("{path} has {kind} changes nobody reviewed")]
    LocalEdits { path: String, kind: EditKind },
    #[error(
        "the sparse index leaves out {}/; mneme does not support sparse checkouts that exclude it",
        paths::LEDGER
    )]
    SparseIndex,
    #[error("the {hook} hook failed ({status}); nothing was committed{}", if output.is_empty() { String::new() } else { format!(":\n{output}") })]
    HookFailed {
        hook: &'static str,
        status: String,
        output: String,
    },
    #[error("the branch moved while the commit was being made")]
    RefMoved,
    #[error("{0}")]
    Interrupted(String),
    #[error("`{spec}` is not a range; write BASE..HEAD")]
    NotARange { spec: String },
    #[error("cannot resolve `{spec}`: {reason}")]
    UnknownRevision { spec: String, reason: &'static str },
    #[error("`{spec}` is not a commit")]
    NotACommit { spec: String },
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error("git")]
    Gix(#[from] gix::Error),
}

impl Error {
    /// A revision gix could not resolve, with the reason in words: gix's own texts name its
    /// internals (`delegate.traverse(NthAncestor(20)) failed`).
    pub(crate) fn unresolved(spec: &str, e: &gix::Error) -> Error {
        let mut text = e.to_string();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            text.push_str(&s.to_string());
            source = s.source();
        }
        let reason = if text.contains("out of range") {
            "the history is not that long"
        } else if text.contains("mbiguous") {
            "that short id matches several objects; give more of it"
        } else if text.contains("could not be found") || text.contains("NotFound") {
            "no branch, tag or commit has that name"
        } else {
            "not a revision git understands (a branch, a tag, a commit id, HEAD~N, …)"
        };
        Error::UnknownRevision {
            spec: spec.to_owned(),
            reason,
        }
    }
}

/// Where edits nobody reviewed sit in a file a decision would write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditKind {
    /// In the index, different from HEAD.
    Staged,
    /// In the work tree, different from the index or HEAD.
    Unstaged,
    /// A file HEAD does not have, holding more than its seed template.
    Uncommitted,
}

impl std::fmt::Display for EditKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EditKind::Staged => "staged",
            EditKind::Unstaged => "unstaged",
            EditKind::Uncommitted => "uncommitted",
        })
    }
}

/// Memory for delta bases of packed objects, and for recently used whole objects: enough for a
/// walk of any length, since each step needs only the last few (docs/architecture.md, "Costs").
const PACK_CACHE_BYTES: usize = 16 << 20;
const OBJECT_CACHE_BYTES: usize = 4 << 20;

/// The repository mneme works in: one handle, discovered once per run.
pub struct Repo {
    repo: gix::Repository,
    root: PathBuf,
    git_dir: PathBuf,
}

impl Repo {
    /// Finds the repository containing `cwd`, honouring `GIT_DIR` and friends as git does.
    pub fn discover(cwd: &Path) -> Result<Repo> {
        if !cwd.is_dir() {
            return Err(Error::NoSuchDirectory {
                path: cwd.to_owned(),
            });
        }
        let mut repo =
            gix::discover_with_environment_overrides(cwd).map_err(|_| Error::NotARepository {
                path: cwd.to_owned(),
            })?;
        // Without caches every packed object is inflated again with its whole delta chain, and a
        // commit walked is inflated again when examined. Both are allocated on first use.
        repo.objects.set_pack_cache(|| {
            Box::new(gix::odb::pack::cache::lru::StaticLinkedList::<64>::new(
                PACK_CACHE_BYTES,
            ))
        });
        repo.object_cache_size(OBJECT_CACHE_BYTES);
        let root = repo
            .workdir()
            .ok_or_else(|| Error::BareRepository {
                path: repo.git_dir().to_owned(),
            })?
            .to_owned();
        Ok(Repo {
            root: absolute(&root, cwd),
            git_dir: absolute(repo.git_dir(), cwd),
            repo,
        })
    }

    /// The short name of the branch HEAD is on (born or not); `None` when HEAD is detached.
    pub fn branch(&self) -> Option<String> {
        let name = self.repo.head_name().ok().flatten()?;
        Some(name.shorten().to_string())
    }

    /// The commit HEAD is at, as its branch (or a detached HEAD) names it, without reading the
    /// object to peel it: it changes whenever HEAD does, so it keys what is kept about HEAD at
    /// no cost of opening the object database. `None` before the first commit.
    pub fn head_key(&self) -> Option<gix::ObjectId> {
        self.repo.head().ok()?.id().map(gix::Id::detach)
    }

    /// Root of the work tree.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// This work tree's git directory (`.git`, or `.git/worktrees/<name>` for a linked one).
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// The ledger's files in this work tree.
    pub fn store(&self) -> Store {
        let common = absolute(self.repo.common_dir(), &self.root);
        Store::new(
            self.root.clone(),
            self.git_dir.clone(),
            common,
            config::ledger_durability(&self.repo),
        )
    }

    pub(crate) fn gix(&self) -> &gix::Repository {
        &self.repo
    }

    /// A copy of the handle whose identities are not resolved yet. gix resolves the author and
    /// committer, with the time, once per handle: a copy made when committing gets that moment's
    /// time, even in a review session that lasts minutes.
    pub(crate) fn with_fresh_identity(&self) -> gix::Repository {
        self.repo.clone()
    }

    /// `Name <email>` of the configured author, if any, found as gix finds it (environment,
    /// `author.*`, `user.*`, `EMAIL`) but without the time: gix's signature reads the local time
    /// zone, which costs a short command a fifth of its time.
    pub fn author(&self) -> Option<String> {
        let config = self.repo.config_snapshot();
        let first = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| config.string(*k))
                .map(|v| v.to_string())
        };
        let name = first(&["author.name", "user.name", "gitoxide.author.nameFallback"])?;
        let email = first(&[
            "author.email",
            "user.email",
            "gitoxide.user.emailFallback",
            "gitoxide.author.emailFallback",
        ])?;
        Some(format!("{name} <{email}>"))
    }

    /// Makes `name <email>` the author and committer of the commits this handle makes, whatever
    /// the configuration and environment say: a forge decision is the commenter's.
    pub fn set_identity(&mut self, name: &str, email: &str) -> Result<()> {
        use gix::config::tree::{Author, Committer};
        let mut config = self.repo.config_snapshot_mut();
        for (key, value) in [
            (&Author::NAME as &'static dyn gix::config::tree::Key, name),
            (&Author::EMAIL, email),
            (&Committer::NAME, name),
            (&Committer::EMAIL, email),
        ] {
            config
                .set_value(key, value)
                .map_err(|e| Error::Identity(crate::error_chain(&e)))?;
        }
        config
            .commit()
            .map_err(|e| Error::Identity(crate::error_chain(&e)))?;
        Ok(())
    }

    /// `Name <email>` of the committer, who is the reviewer.
    pub fn reviewer(&self) -> Result<String> {
        let repo = self.with_fresh_identity();
        let sig = repo.committer().ok_or(Error::IdentityMissing)??;
        Ok(format!("{} <{}>", sig.name, sig.email))
    }
}

fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_owned()
    } else {
        cwd.join(path)
    };
    joined.canonicalize().unwrap_or(joined)
}
