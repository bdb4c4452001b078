//! The filesystem side of the shell: where the ledger lives, loading it, locking, and atomic
//! writes. Everything that decides *what* to write lives in the pure modules.

pub mod tasks;

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::git::{self as repo, Location};
use crate::model::config::Config;
use crate::model::ledger::{FactFileEntry, Ledger};
use crate::model::proposal::{Proposal, ProposalError};

pub const LEDGER_DIR: &str = ".ledger";
pub const FACTS_DIR: &str = "facts";
pub const PROPOSALS_DIR: &str = "proposals";
pub const CONFIG_FILE: &str = "config.yaml";
const LOCK_FILE: &str = "mneme.lock";

/// Work-tree relative path of a fact file: `.ledger/facts/<name>`.
pub fn fact_path(name: &str) -> String {
    format!("{LEDGER_DIR}/{FACTS_DIR}/{name}")
}

/// A repository work tree and its ledger.
#[derive(Debug)]
pub struct Workspace {
    pub location: Location,
    pub repo: gix::Repository,
}

/// A proposal file, parsed or with the reason it does not parse.
#[derive(Debug)]
pub struct LoadedProposal {
    pub path: PathBuf,
    pub proposal: std::result::Result<Proposal, ProposalError>,
}

impl Workspace {
    pub fn discover(cwd: &Path) -> Result<Workspace> {
        let (location, repo) = repo::discover(cwd)?;
        Ok(Workspace { location, repo })
    }

    pub fn root(&self) -> &Path {
        &self.location.root
    }

    pub fn ledger_dir(&self) -> PathBuf {
        self.location.root.join(LEDGER_DIR)
    }

    pub fn facts_dir(&self) -> PathBuf {
        self.ledger_dir().join(FACTS_DIR)
    }

    pub fn proposals_dir(&self) -> PathBuf {
        self.ledger_dir().join(PROPOSALS_DIR)
    }

    /// `path` relative to the work tree root, for messages and JSON.
    pub fn relative(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.location.root)
            .map(Path::to_owned)
            .unwrap_or_else(|_| path.to_owned())
    }

    /// Fails unless the ledger exists and every directory of it resolves inside the work tree.
    pub fn check_ledger(&self) -> Result<()> {
        let dir = self.ledger_dir();
        if fs::symlink_metadata(&dir).is_err() {
            return Err(Error::NotInitialized {
                root: self.location.root.clone(),
            });
        }
        for path in [dir.clone(), self.facts_dir(), self.proposals_dir()] {
            self.check_inside(&path)?;
        }
        if !self.facts_dir().is_dir() {
            return Err(Error::NotInitialized {
                root: self.location.root.clone(),
            });
        }
        Ok(())
    }

    /// Fails when `path` exists and resolves outside the work tree (through a symlink).
    pub fn check_inside(&self, path: &Path) -> Result<()> {
        let Ok(target) = path.canonicalize() else {
            return Ok(());
        };
        if target.starts_with(&self.location.root) {
            Ok(())
        } else {
            Err(Error::UnsafeLedger {
                path: self.relative(path),
                target,
            })
        }
    }

    pub fn load(&self) -> Result<Ledger> {
        self.check_ledger()?;
        let config = self.load_config()?;
        let files = self
            .load_files()?
            .into_iter()
            .map(|(_, entry)| entry)
            .collect::<Result<Vec<_>>>()?;
        Ok(Ledger { files, config })
    }

    /// Every fact file, each parsed or with the reason it does not parse.
    pub fn load_files(&self) -> Result<Vec<(PathBuf, Result<FactFileEntry>)>> {
        let dir = self.facts_dir();
        let mut files = Vec::new();
        for (name, path) in list_dir(&dir, ".md")? {
            let bytes = fs::read(&path).map_err(Error::io(&path))?;
            let entry = String::from_utf8(bytes)
                .map_err(|e| {
                    let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
                    Error::FactFileParse {
                        path: self.relative(&path),
                        line: valid.iter().filter(|&&b| b == b'\n').count() + 1,
                        message: "not valid UTF-8".into(),
                    }
                })
                .and_then(|raw| {
                    FactFileEntry::parse(name, raw).map_err(|e| Error::FactFileParse {
                        path: self.relative(&path),
                        line: e.line,
                        message: e.message,
                    })
                });
            files.push((path, entry));
        }
        Ok(files)
    }

    pub fn load_config(&self) -> Result<Config> {
        let path = self.ledger_dir().join(CONFIG_FILE);
        match read_optional_text(&path, CONFIG_FILE)? {
            Some(src) => Config::parse(&src).map_err(|message| Error::Config {
                path: self.relative(&path),
                message,
            }),
            None => Ok(Config::default()),
        }
    }

    /// Every proposal file, oldest first; files that do not parse are returned with the reason.
    pub fn load_proposals(&self) -> Result<Vec<LoadedProposal>> {
        let dir = self.proposals_dir();
        let mut out = Vec::new();
        for (_, path) in list_dir(&dir, ".json")? {
            let proposal = fs::read(&path)
                .map_err(|e| ProposalError::Syntax(e.to_string()))
                .and_then(|b| {
                    String::from_utf8(b)
                        .map_err(|_| ProposalError::Syntax("not valid UTF-8".into()))
                })
                .and_then(|s| Proposal::parse(&s));
            out.push(LoadedProposal { path, proposal });
        }
        out.sort_by(|a, b| {
            let key = |p: &LoadedProposal| {
                p.proposal
                    .as_ref()
                    .ok()
                    .map(|p| (p.created(), p.id.clone()))
            };
            key(a).cmp(&key(b)).then_with(|| a.path.cmp(&b.path))
        });
        Ok(out)
    }

    /// Writes a new proposal file, never replacing one: on a name collision the id is re-hashed.
    pub fn write_proposal(&self, proposal: &mut Proposal) -> Result<PathBuf> {
        let dir = self.proposals_dir();
        fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
        self.check_inside(&dir)?;
        loop {
            let path = dir.join(proposal.file_name());
            if create_new(&path, proposal.to_json().as_bytes())? {
                return Ok(path);
            }
            proposal.rehash_id();
        }
    }

    /// An exclusive lock over the ledger for this work tree, held until the guard is dropped.
    /// It lives in the git directory, so it is never committed.
    pub fn lock(&self) -> Result<fs::File> {
        self.lock_named(LOCK_FILE)
    }

    /// An exclusive lock on `<git dir>/<name>`, held until the guard is dropped.
    pub fn lock_named(&self, name: &str) -> Result<fs::File> {
        let path = self.location.git_dir.join(name);
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(Error::io(&path))?;
        file.lock().map_err(Error::io(&path))?;
        Ok(file)
    }
}

/// Symlinks anywhere under `dir` (which is not followed into).
pub fn symlinks_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let entries = match fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(&d)(e)),
        };
        for entry in entries {
            let entry = entry.map_err(Error::io(&d))?;
            let kind = entry.file_type().map_err(Error::io(entry.path()))?;
            if kind.is_symlink() {
                found.push(entry.path());
            } else if kind.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    found.sort();
    Ok(found)
}

/// `(file name, path)` of the regular files in `dir` ending in `ext`, sorted by name. Symlinks
/// and other special files are skipped: they could point outside the repository.
pub(crate) fn list_dir(dir: &Path, ext: &str) -> Result<Vec<(String, PathBuf)>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir)(e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(Error::io(dir))?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
        if is_file && name.ends_with(ext) && !name.starts_with('.') {
            out.push((name, entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// The bytes of `path`, or `None` when it does not exist.
pub fn read_optional(path: &Path) -> Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path)(e)),
    }
}

/// The UTF-8 text of `path`, or `None` when it does not exist; `what` names it in errors.
pub fn read_optional_text(path: &Path, what: &str) -> Result<Option<String>> {
    read_optional(path)?
        .map(|bytes| {
            String::from_utf8(bytes).map_err(|_| Error::InvalidUtf8 {
                what: what.to_owned(),
            })
        })
        .transpose()
}

/// Replaces `path` atomically: a temporary file in the same directory, synced, then renamed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = temp_beside(path)?;
    tmp.write_all(bytes).map_err(Error::io(path))?;
    tmp.as_file().sync_all().map_err(Error::io(path))?;
    tmp.persist(path).map_err(|e| Error::io(path)(e.error))?;
    Ok(())
}

/// Creates `path` atomically with `bytes`; `false` (and nothing written) when it already exists.
pub fn create_new(path: &Path, bytes: &[u8]) -> Result<bool> {
    let mut tmp = temp_beside(path)?;
    tmp.write_all(bytes).map_err(Error::io(path))?;
    tmp.as_file().sync_all().map_err(Error::io(path))?;
    match tmp.persist_noclobber(path) {
        Ok(_) => Ok(true),
        Err(e) if e.error.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(Error::io(path)(e.error)),
    }
}

fn temp_beside(path: &Path) -> Result<tempfile::NamedTempFile> {
    let dir = path.parent().unwrap_or(Path::new("."));
    tempfile::Builder::new()
        .prefix(".mneme-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(Error::io(dir))
}
