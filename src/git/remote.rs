//! Claim refs on a git remote, through the `git` binary: gix (0.90) fetches but cannot push,
//! and a claim is a push. Fetching runs through the same binary, so both go through the user's
//! own transport, credential and proxy settings, untouched. Only `refs/mneme/claims/*` on the
//! remote and `refs/mneme/remotes/<remote>/claims/*` here are ever named: never a branch, a tag,
//! the index or the work tree.

use std::path::Path;
use std::process::{Command, Stdio};

use gix::bstr::ByteSlice;
use gix::refs::transaction::{Change, PreviousValue, RefEdit, RefLog};

use crate::git::{Error, Repo, Result};
use crate::model::tasks::claims::{
    claim_ref, Claim, ClaimError, CLAIMS_REF_PREFIX, MAX_CLAIM_BYTES,
};

/// What the remote did with a push of one ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pushed {
    /// The ref now holds what was pushed (or is gone, for a deletion).
    Done,
    /// The ref was not what the push expected: another clone got there first.
    Rejected(String),
}

/// A claim ref as last fetched from the remote.
#[derive(Debug, Clone)]
pub struct Tracked {
    pub task: String,
    /// The claim object's id: what a push that replaces or deletes the claim must expect.
    pub oid: String,
    pub claim: std::result::Result<Claim, ClaimError>,
}

/// Where this clone keeps the claim refs fetched from `remote`.
fn tracking_prefix(remote: &str) -> String {
    format!("refs/mneme/remotes/{remote}/claims/")
}

impl Repo {
    /// Refuses a remote this clone does not have, before any network use.
    pub fn check_remote(&self, remote: &str) -> Result<()> {
        let config = self.gix().config_snapshot();
        let known = ["url", "pushurl"].iter().any(|k| {
            config
                .string(format!("remote.{remote}.{k}").as_str())
                .is_some()
        });
        if known {
            Ok(())
        } else {
            Err(Error::NoSuchRemote {
                remote: remote.to_owned(),
            })
        }
    }

    /// Stores `bytes` as a blob and returns its id.
    pub fn write_blob(&self, bytes: &[u8]) -> Result<String> {
        Ok(self
            .gix()
            .write_blob(bytes)
            .map_err(|e| local(format!("cannot write a claim object: {e}")))?
            .to_string())
    }

    /// Sets the claim ref of `task` on `remote` to `new` (`None` deletes it), only if it is
    /// `expect` there now (`None`: only if it does not exist). One push, atomic on the server.
    pub fn push_claim(
        &self,
        remote: &str,
        task: &str,
        new: Option<&str>,
        expect: Option<&str>,
    ) -> Result<Pushed> {
        let name = claim_ref(task);
        let lease = format!("--force-with-lease={name}:{}", expect.unwrap_or(""));
        let spec = format!("{}:{name}", new.unwrap_or(""));
        let out = run_git(
            self.root(),
            &[
                "push",
                "--porcelain",
                "--no-verify",
                "--no-signed",
                "--recurse-submodules=no",
                &lease,
                remote,
                &spec,
            ],
        )?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        // `<flag>\t<from>:<to>\t<summary>` for each ref the remote answered about.
        let line = stdout.lines().find_map(|l| {
            let mut parts = l.split('\t');
            let (flag, refs, summary) = (parts.next()?, parts.next()?, parts.next()?);
            (refs.rsplit(':').next() == Some(name.as_str())).then_some((flag, summary))
        });
        match line {
            Some(("!", summary)) => Ok(Pushed::Rejected(summary.to_owned())),
            Some(_) if out.status.success() => Ok(Pushed::Done),
            _ => Err(Error::Remote {
                remote: remote.to_owned(),
                message: last_words(&out.stderr),
            }),
        }
    }

    /// Fetches the claim refs of `remote` in one round trip, replacing the ones fetched before
    /// (claims released there are dropped here): all of them, or only those of `tasks`. A remote
    /// may hold tens of thousands; the server lists only the refs asked for.
    pub fn fetch_claims(&self, remote: &str, tasks: Option<&[&str]>) -> Result<()> {
        let tracking = tracking_prefix(remote);
        match tasks {
            None => {
                let spec = format!("+{CLAIMS_REF_PREFIX}*:{tracking}*");
                self.fetch(remote, &["--quiet", "--prune"], &[spec])
                    .map_err(|e| e.into_error(remote))?;
                pack_claim_refs(self.root());
                Ok(())
            }
            Some([]) => Ok(()),
            Some(tasks) => self.fetch_named_claims(remote, &tracking, tasks),
        }
    }

    /// [`Repo::fetch_claims`] of `tasks`: one glob each (a task without a claim there matches
    /// nothing, which is no error). `--prune` would read every ref of the repository, thousands
    /// of fetched claims among them, to find the few to drop: git lists the refs the fetch
    /// matched instead (`--porcelain`, git 2.41), and those of `tasks` it did not are dropped.
    fn fetch_named_claims(&self, remote: &str, tracking: &str, tasks: &[&str]) -> Result<()> {
        let specs: Vec<String> = tasks
            .iter()
            .map(|t| format!("+{CLAIMS_REF_PREFIX}{t}*:{tracking}{t}*"))
            .collect();
        let out = match self.fetch(remote, &["--porcelain", "--verbose"], &specs) {
            Ok(out) => out,
            // A git without `--porcelain` (exit 129, a usage error) prunes the older way.
            Err(FetchFailed::Usage) => {
                return self
                    .fetch(remote, &["--quiet", "--prune"], &specs)
                    .map(|_| ())
                    .map_err(|e| e.into_error(remote));
            }
            Err(e) => return Err(e.into_error(remote)),
        };
        let stdout = String::from_utf8_lossy(&out);
        // `<flag> <old id> <new id> <local ref>` for every ref the refspecs matched.
        let there: Vec<&str> = stdout
            .lines()
            .filter_map(|l| l.rsplit(' ').next())
            .collect();
        let repo = self.gix();
        let mut gone = Vec::new();
        let platform = repo.references().map_err(local)?;
        for task in tasks {
            let prefix = format!("{tracking}{task}");
            for r in platform.prefixed(prefix.as_bytes()).map_err(local)? {
                let r = r.map_err(local)?;
                let name = r.name().as_bstr().to_str_lossy().into_owned();
                if !there.contains(&name.as_str()) {
                    gone.push(name);
                }
            }
        }
        if gone.is_empty() {
            return Ok(());
        }
        let deletes: Vec<RefEdit> = gone
            .into_iter()
            .filter_map(|name| {
                Some(RefEdit {
                    change: Change::Delete {
                        expected: PreviousValue::Any,
                        log: RefLog::AndReference,
                    },
                    name: name.try_into().ok()?,
                    deref: false,
                })
            })
            .collect();
        repo.edit_references(deletes).map_err(local)?;
        Ok(())
    }

    /// `git fetch` of `specs` from `remote` with `options` and the ones every claim fetch takes;
    /// its stdout.
    fn fetch(
        &self,
        remote: &str,
        options: &[&str],
        specs: &[String],
    ) -> std::result::Result<Vec<u8>, FetchFailed> {
        let mut args = vec![
            "fetch",
            "--no-tags",
            "--no-write-fetch-head",
            "--no-auto-gc",
            "--no-recurse-submodules",
        ];
        args.extend_from_slice(options);
        args.push(remote);
        args.extend(specs.iter().map(String::as_str));
        let out = run_git(self.root(), &args).map_err(FetchFailed::Run)?;
        match out.status.code() {
            Some(0) => Ok(out.stdout),
            Some(129) => Err(FetchFailed::Usage),
            _ => Err(FetchFailed::Remote(last_words(&out.stderr))),
        }
    }

    /// The claim refs last fetched from `remote` (all, or those of `tasks`), each read and
    /// checked (a claim that is not valid is reported as such, not trusted).
    pub fn tracked_claims(&self, remote: &str, tasks: Option<&[&str]>) -> Result<Vec<Tracked>> {
        // Loose refs are read from disk on every iteration, and packed refs are reloaded when
        // their file changed, so this run's handle sees what a git fetch just wrote.
        let repo = self.gix();
        let prefix = tracking_prefix(remote);
        let mut found: Vec<(String, gix::ObjectId)> = Vec::new();
        let mut add = |r: gix::Reference<'_>| {
            let name = r.name().as_bstr().to_str_lossy().into_owned();
            let task = name.strip_prefix(&prefix).unwrap_or(&name).to_owned();
            if let Some(id) = r.target().try_id() {
                found.push((task, id.to_owned()));
            }
        };
        match tasks {
            None => {
                let platform = repo.references().map_err(local)?;
                for r in platform.prefixed(prefix.as_bytes()).map_err(local)? {
                    add(r.map_err(local)?);
                }
            }
            Some(tasks) => {
                for task in tasks {
                    let name = format!("{prefix}{task}");
                    if let Some(r) = repo.try_find_reference(name.as_str()).map_err(local)? {
                        add(r);
                    }
                }
            }
        }
        let mut out: Vec<Tracked> = found
            .into_iter()
            .map(|(task, id)| Tracked {
                claim: read_claim(repo, id, &task),
                oid: id.to_string(),
                task,
            })
            .collect();
        out.sort_by(|a, b| a.task.cmp(&b.task));
        Ok(out)
    }

    /// The claim object `oid` of task `task`, from this repository's objects (one it wrote).
    pub fn read_claim_object(&self, oid: &str, task: &str) -> Result<Claim> {
        let unreadable = |e: &dyn std::fmt::Display| {
            local(format!(
                "the claim object {oid} of {task} cannot be read: {e}"
            ))
        };
        let id = gix::ObjectId::from_hex(oid.as_bytes()).map_err(|e| unreadable(&e))?;
        read_claim(self.gix(), id, task).map_err(|e| unreadable(&e))
    }
}

/// Packs the claim refs a fetch of all claims wrote, one loose file each: with tens of thousands
/// loose, every later fetch (`ready`'s, of a few tasks) reads them all and takes seconds;
/// packed, milliseconds. Refs are packed as `git gc` packs them, so a failure (a git older than
/// `--include`, which then packs all refs) costs only speed.
fn pack_claim_refs(root: &Path) {
    let packed = run_git(root, &["pack-refs", "--include", "refs/mneme/*"])
        .is_ok_and(|out| out.status.success());
    if !packed {
        let _ = run_git(root, &["pack-refs", "--all"]);
    }
}

/// Why a claim fetch failed.
enum FetchFailed {
    /// git could not be run.
    Run(Error),
    /// git did not know an option.
    Usage,
    /// The remote could not be reached, or refused: git's last words.
    Remote(String),
}

impl FetchFailed {
    fn into_error(self, remote: &str) -> Error {
        match self {
            FetchFailed::Run(e) => e,
            FetchFailed::Usage => Error::Remote {
                remote: remote.to_owned(),
                message: "this git does not know an option of `git fetch` mneme uses".into(),
            },
            FetchFailed::Remote(message) => Error::Remote {
                remote: remote.to_owned(),
                message,
            },
        }
    }
}

/// A failure in this repository's own claim refs or objects: not the remote's.
fn local(e: impl std::fmt::Display) -> Error {
    Error::LocalClaims {
        message: e.to_string(),
    }
}

/// The claim object `id`, read only when it is a small blob.
fn read_claim(
    repo: &gix::Repository,
    id: gix::ObjectId,
    task: &str,
) -> std::result::Result<Claim, ClaimError> {
    let header = repo
        .find_header(id)
        .map_err(|e| ClaimError::Json(e.to_string()))?;
    if header.kind() != gix::object::Kind::Blob {
        return Err(ClaimError::Json(format!("a {}, not a blob", header.kind())));
    }
    if header.size() > MAX_CLAIM_BYTES {
        return Err(ClaimError::TooLarge);
    }
    let object = repo
        .find_object(id)
        .map_err(|e| ClaimError::Json(e.to_string()))?;
    Claim::parse(&object.data, task)
}

/// Runs git in `root` with nothing on stdin (a prompt must not wait for an agent that cannot
/// answer), capturing its output.
fn run_git(root: &Path, args: &[&str]) -> Result<std::process::Output> {
    Command::new("git")
        .args(args)
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .map_err(|source| Error::GitBinary { source })
}

/// What git said went wrong: its stderr from the first `fatal:` or `error:` line on (the
/// lines after it give the cause), as one line, hints left out.
fn last_words(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("hint:"))
        .collect();
    let from = lines
        .iter()
        .position(|l| l.starts_with("fatal: ") || l.starts_with("error: "))
        .unwrap_or(lines.len().saturating_sub(1));
    let said = lines[from.min(lines.len())..]
        .iter()
        .map(|l| {
            l.strip_prefix("fatal: ")
                .or_else(|| l.strip_prefix("error: "))
                .unwrap_or(l)
        })
        .collect::<Vec<_>>()
        .join(" ");
    if said.is_empty() {
        return "git failed without saying why".to_owned();
    }
    crate::model::base::text::escape_controls(&said).into_owned()
}
