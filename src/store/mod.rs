//! The ledger's files on disk: where they are, loading them into model values, locks, and
//! atomic writes. Everything that decides *what* to write lives in `model`.

pub mod export;
pub mod fault;
pub mod file;
pub mod import;
mod ledger_index;
mod queue;
mod task_index;
pub mod tasks;

use std::fs;
use std::path::{Path, PathBuf};

use crate::model::base::codec::checksum;
use crate::model::base::config::{Config, ConfigError};
use crate::model::base::paths;
use crate::model::base::text::escape_line;
use crate::model::facts::ledger::{FactFileEntry, Ledger};
use crate::model::proposals::proposal::{Proposal, ProposalError};

use ledger_index::Kept;

pub use file::{create_new, read_optional, read_optional_text, write_atomic, Durability, Kind};
pub use task_index::{Keep, TaskBoard};

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Most facts a ledger may hold in all its files: a real one holds hundreds. Past it, a hostile
/// branch could make every reader (the session hook first) work per fact without end.
pub const MAX_LEDGER_FACTS: usize = 20_000;

/// Most bytes all fact files together may hold: a real ledger holds tens of kilobytes.
pub const MAX_LEDGER_BYTES: u64 = 8 * 1024 * 1024;

/// Most fact files a ledger may have: a real one has a handful.
pub const MAX_FACT_FILES: usize = 1_000;

/// What went wrong reading or writing the ledger's files.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no ledger in {}", root.display())]
    NotInitialized { root: PathBuf },
    #[error(
        "{} resolves to {}, outside the repository; refusing to read or write through it",
        path.display(),
        target.display()
    )]
    UnsafeLedger { path: PathBuf, target: PathBuf },
    #[error("{}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{line}: {message}", path.display())]
    FactFile {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{}", path.display())]
    Config {
        path: PathBuf,
        #[source]
        source: Box<ConfigError>,
    },
    #[error("{}: {message}", path.display())]
    TaskParse { path: PathBuf, message: String },
    #[error("{} is {found}, not a regular file ({} must be one): replace or remove it", path.display(), crate::model::base::text::with_article(kind))]
    NotAFile {
        path: PathBuf,
        kind: &'static str,
        found: &'static str,
    },
    #[error("{} is larger than {limit} bytes, the most mneme reads of a {kind} (no real one is near it: remove it or cut it down)", path.display())]
    TooLarge {
        path: PathBuf,
        kind: &'static str,
        size: u64,
        limit: u64,
    },
    #[error("{} holds more than {limit} {what}, more than mneme reads (no real ledger is near it: remove what does not belong)", path.display())]
    TooMany {
        path: PathBuf,
        what: &'static str,
        limit: usize,
    },
    #[error("{what} is not valid UTF-8; mneme stores text as UTF-8")]
    NotUtf8 { what: String },
    #[error(transparent)]
    ExportTarget(#[from] export::TargetError),
    #[error(transparent)]
    ImportSource(#[from] import::SourceError),
}

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }
}

/// A work tree's ledger on disk, and the git directory where its locks live.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
    git_dir: PathBuf,
    common_dir: PathBuf,
    /// How proposals and tasks are written; what a person approves is always synced.
    durability: Durability,
}

/// A proposal file, parsed or with the reason it does not parse.
#[derive(Debug)]
pub struct LoadedProposal {
    pub path: PathBuf,
    pub proposal: std::result::Result<Proposal, ProposalError>,
}

/// A proposal file is named after the proposal it holds; one that is not could make a review
/// decide on something else than what it names.
fn named_by_id(path: &Path, p: Proposal) -> std::result::Result<Proposal, ProposalError> {
    let stem = path.file_stem().map(|s| s.to_string_lossy());
    if stem.as_deref() == Some(p.id.as_str()) {
        Ok(p)
    } else {
        Err(ProposalError::Invalid {
            field: "id".into(),
            why: format!(
                "the file is named {} but holds proposal {}",
                escape_line(&stem.unwrap_or_default()),
                escape_line(&p.id)
            ),
        })
    }
}

/// Reads and parses the proposal files `names` (as [`file::list_dir`] gives them) of `dir`.
fn read_proposals(dir: &Path, names: &[(String, PathBuf)]) -> Result<Vec<LoadedProposal>> {
    // Parsed where they are read, on all cores: a review queue can hold thousands.
    let read = file::read_all(dir, names, Kind::Proposal.limit(), |bytes| {
        let text = std::str::from_utf8(bytes).map_err(|_| "not valid UTF-8".to_owned())?;
        Ok(Proposal::parse(text))
    })
    .map_err(Error::io(dir))?;
    Ok(read
        .into_iter()
        .map(|(path, read)| {
            let proposal = read
                .map_err(ProposalError::Syntax)
                .and_then(|parsed| parsed)
                .and_then(|p| named_by_id(&path, p));
            LoadedProposal { path, proposal }
        })
        .collect())
}

/// An exclusive lock, held until dropped.
#[derive(Debug)]
pub struct Lock {
    _file: fs::File,
}

/// A fact file's path, its key taken before it was read, and what it holds.
type KeyedEntry = (PathBuf, Option<file::FileKey>, Result<FactFileEntry>);

/// A fact file's path, its key taken before it was read, and its name and text.
type KeyedText = (PathBuf, Option<file::FileKey>, Result<(String, String)>);

impl Store {
    /// `root` is the work tree; `git_dir` this work tree's git directory; `common_dir` the git
    /// directory all work trees of the repository share; `durability` how an agent's proposals
    /// and tasks are written.
    pub fn new(
        root: PathBuf,
        git_dir: PathBuf,
        common_dir: PathBuf,
        durability: Durability,
    ) -> Store {
        Store {
            root,
            git_dir,
            common_dir,
            durability,
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// How what agents add is written: as git's `core.fsync` has it write loose objects.
    pub fn durability(&self) -> Durability {
        self.durability
    }

    /// The absolute path of a work-tree relative one (from `model::paths`).
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// The file `rel` of the work tree, read as `kind` would be (see [`file::read_file`]).
    pub fn read(&self, rel: &str, kind: Kind) -> Result<Option<Vec<u8>>> {
        file::read_file(&self.root, &self.path(rel), kind).map_err(|e| self.relative_error(e))
    }

    /// [`Store::read`] as UTF-8 text.
    pub fn read_text(&self, rel: &str, kind: Kind) -> Result<Option<String>> {
        file::read_file_text(&self.root, &self.path(rel), kind).map_err(|e| self.relative_error(e))
    }

    /// `e` naming its file from the work tree's root, as messages do.
    fn relative_error(&self, e: Error) -> Error {
        match e {
            Error::NotAFile { path, kind, found } => Error::NotAFile {
                path: self.relative(&path),
                kind,
                found,
            },
            Error::TooLarge {
                path,
                kind,
                size,
                limit,
            } => Error::TooLarge {
                path: self.relative(&path),
                kind,
                size,
                limit,
            },
            Error::UnsafeLedger { path, target } => Error::UnsafeLedger {
                path: self.relative(&path),
                target,
            },
            other => other,
        }
    }

    /// `path` relative to the work tree root, for messages and JSON.
    pub fn relative(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.root)
            .map(Path::to_owned)
            .unwrap_or_else(|_| path.to_owned())
    }

    /// `path` relative to the work tree, `/`-separated, as git names it.
    pub fn git_path(&self, path: &Path) -> String {
        self.relative(path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }

    /// Fails unless the ledger exists and every directory of it resolves inside the work tree.
    pub fn check_ledger(&self) -> Result<()> {
        let dir = self.path(paths::LEDGER);
        if fs::symlink_metadata(&dir).is_err() {
            return Err(self.not_initialized());
        }
        for rel in [paths::LEDGER, paths::FACTS, paths::PROPOSALS] {
            self.check_inside(&self.path(rel))?;
        }
        if !self.path(paths::FACTS).is_dir() {
            return Err(self.not_initialized());
        }
        Ok(())
    }

    fn not_initialized(&self) -> Error {
        Error::NotInitialized {
            root: self.root.clone(),
        }
    }

    /// The status of the ledger directory `rel` (times and inode), as a key for what was read
    /// from files that are only ever added, removed or replaced whole, never rewritten in place
    /// (decision records: mneme and git both write a new file). `None` while it changed so
    /// recently that a later change could leave its times as they are: nothing read from it may
    /// be kept then. A directory that does not exist has a key of its own.
    pub fn dir_key(&self, rel: &str) -> Option<[i128; 3]> {
        match queue::DirScan::of(&self.path(rel)) {
            Some(scan) => (!scan.status.racy(scan.started)).then(|| scan.status.fields()),
            None => Some([0; 3]),
        }
    }

    /// Fails when `path` exists and resolves outside the work tree (through a symlink).
    pub fn check_inside(&self, path: &Path) -> Result<()> {
        if file::plainly_inside(&self.root, path) {
            return Ok(());
        }
        let Ok(target) = path.canonicalize() else {
            return Ok(());
        };
        if target.starts_with(&self.root) {
            Ok(())
        } else {
            Err(Error::UnsafeLedger {
                path: self.relative(path),
                target,
            })
        }
    }

    /// Creates `rel` (and its parents) inside the work tree, refusing to go through a link that
    /// leads out of it.
    pub fn create_dir(&self, rel: impl AsRef<Path>) -> Result<PathBuf> {
        let dir = self.root.join(rel);
        self.check_inside(&dir)?;
        fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
        self.check_inside(&dir)?;
        Ok(dir)
    }

    pub fn load(&self) -> Result<Ledger> {
        self.load_keeping(&[Kept::Hashes])
    }

    /// [`Store::load`], for planning proposals: the index of the facts is taken from the git
    /// directory where it describes these files.
    pub fn load_for_proposing(&self) -> Result<Ledger> {
        self.load_keeping(&[Kept::Hashes, Kept::Facts])
    }

    fn load_keeping(&self, kept: &[Kept]) -> Result<Ledger> {
        self.check_ledger()?;
        let config = self.load_config()?;
        self.load_with(config, kept)
    }

    /// The fact files, under `config`, with what the git directory keeps of them (`kept`).
    fn load_with(&self, config: Config, kept: &[Kept]) -> Result<Ledger> {
        fault::panic_at("load");
        let started = queue::nanos(std::time::SystemTime::now());
        let indexes: Vec<(Kept, Option<Vec<u8>>)> =
            kept.iter().map(|&k| (k, self.read_kept(k))).collect();
        let texts = self.read_fact_texts()?;
        let keys: Vec<_> = texts.iter().map(|(_, key, _)| *key).collect();
        // Files that are as the facts' index was made of are parsed only where a question
        // reaches them: a `propose` touches one file or two.
        let described = indexes.iter().any(|(k, bytes)| {
            *k == Kept::Facts
                && bytes
                    .as_deref()
                    .is_some_and(|b| ledger_index::describes(b, &texts))
        });
        let mut files = Vec::with_capacity(texts.len());
        if described {
            for (_, _, text) in texts {
                let (name, raw) = text?;
                files.push(FactFileEntry::unparsed(name, raw));
            }
        } else {
            for (_, _, entry) in self.parse_fact_files(texts) {
                files.push(entry?);
            }
        }
        // In the ledger's order: by name, as the directory was listed.
        debug_assert!(files.is_sorted_by(|a, b| a.name < b.name));
        let ledger = Ledger::new(files, config);
        for (kept, bytes) in indexes {
            self.adopt_kept(kept, &ledger, &keys, started, bytes.as_deref());
        }
        Ok(ledger)
    }

    /// The ledger as [`Store::load`] reads it, except that a config that cannot be used gives
    /// the defaults and what is wrong with it, so that agents still get their facts.
    pub fn load_lenient(&self) -> Result<(Ledger, Option<String>)> {
        self.check_ledger()?;
        let (config, problem) = match self.load_config() {
            Ok(config) => (config, None),
            Err(Error::Config { source, .. }) => (Config::default(), Some(source.to_string())),
            // Not a file, or too large to be one mneme wrote: agents still get their facts.
            Err(
                e @ (Error::NotAFile { .. }
                | Error::TooLarge { .. }
                | Error::UnsafeLedger { .. }
                | Error::NotUtf8 { .. }),
            ) => (Config::default(), Some(e.to_string())),
            Err(e) => return Err(e),
        };
        Ok((self.load_with(config, &[Kept::Hashes])?, problem))
    }

    /// Every fact file, each parsed or with the reason it does not parse. Past
    /// [`MAX_LEDGER_FACTS`] facts, the files that hold more are refused.
    pub fn load_files(&self) -> Result<Vec<(PathBuf, Result<FactFileEntry>)>> {
        let texts = self.read_fact_texts()?;
        Ok(self
            .parse_fact_files(texts)
            .into_iter()
            .map(|(path, _, entry)| (path, entry))
            .collect())
    }

    /// Each fact file's text, with its key taken before it was read. Past
    /// [`MAX_LEDGER_BYTES`], the files that hold more are refused unread.
    fn read_fact_texts(&self) -> Result<Vec<KeyedText>> {
        let mut files = Vec::new();
        let dir = self.path(paths::FACTS);
        let names = file::list_dir(&dir, ".md")?;
        if names.len() > MAX_FACT_FILES {
            return Err(Error::TooMany {
                path: self.relative(&dir),
                what: "fact files",
                limit: MAX_FACT_FILES,
            });
        }
        let mut bytes = 0;
        for (name, path) in names {
            // Counted before reading: past the budget, nothing more is read. A file over its
            // own limit is refused unread below and counts for nothing.
            let size = fs::symlink_metadata(&path).map_or(0, |m| m.len());
            if size <= Kind::FactFile.limit() {
                bytes += size;
            }
            if bytes > MAX_LEDGER_BYTES {
                let entry = Err(self.fact_file_error(&path, 1, format!("the fact files hold more than {MAX_LEDGER_BYTES} bytes with this one; no ledger needs that much (remove what does not belong)")));
                files.push((path, None, entry));
                continue;
            }
            let (key, text) = match file::read_file_keyed(&self.root, &path, Kind::FactFile) {
                Ok(Some((key, bytes))) => (key, self.fact_text(&path, bytes).map(|t| (name, t))),
                Ok(None) => continue,
                Err(e) => (None, Err(self.relative_error(e))),
            };
            files.push((path, key, text));
        }
        Ok(files)
    }

    /// `texts` parsed. Past [`MAX_LEDGER_FACTS`] facts, the files that hold more are refused.
    fn parse_fact_files(&self, texts: Vec<KeyedText>) -> Vec<KeyedEntry> {
        let mut facts = 0;
        let mut files = Vec::with_capacity(texts.len());
        for (path, key, text) in texts {
            let mut entry = text.and_then(|(name, raw)| {
                FactFileEntry::parse(name, raw)
                    .map_err(|e| self.fact_file_error(&path, e.line, e.message))
            });
            if let Ok(e) = &entry {
                facts += e.file().facts().count();
                if facts > MAX_LEDGER_FACTS {
                    entry = Err(self.fact_file_error(&path, 1, format!("the ledger holds more than {MAX_LEDGER_FACTS} facts with this file; no ledger needs that many (remove what is not a fact)")));
                }
            }
            files.push((path, key, entry));
        }
        files
    }

    fn fact_text(&self, path: &Path, bytes: Vec<u8>) -> Result<String> {
        String::from_utf8(bytes).map_err(|e| {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
            self.fact_file_error(path, line, "not valid UTF-8".into())
        })
    }

    fn fact_file_error(&self, path: &Path, line: usize, message: String) -> Error {
        Error::FactFile {
            path: self.relative(path),
            line,
            message,
        }
    }

    pub fn load_config(&self) -> Result<Config> {
        let path = self.path(paths::CONFIG);
        match self.read_text(paths::CONFIG, Kind::Config)? {
            Some(src) => self.parse_config(&src).map_err(|source| Error::Config {
                path: self.relative(&path),
                source: Box::new(source),
            }),
            None => Ok(Config::default()),
        }
    }

    /// `src` parsed as the config, or as the git directory keeps it for exactly this text (and
    /// this version of mneme): parsing YAML costs a short run more than the rest of its start.
    /// Only a config that parses is kept. The text itself is the key, compared byte for byte: a
    /// config is a few hundred bytes, and hashing it cost more (SHA-256 probes the CPU first).
    fn parse_config(&self, src: &str) -> std::result::Result<Config, ConfigError> {
        let path = self.git_dir.join(paths::CONFIG_CACHE);
        let mut key = format!("mneme-config 2 {}\n", env!("CARGO_PKG_VERSION")).into_bytes();
        key.extend_from_slice(&(src.len() as u64).to_le_bytes());
        key.extend_from_slice(src.as_bytes());
        let kept = file::read_local(&path).ok().and_then(|bytes| {
            let body = bytes.strip_prefix(key.as_slice())?;
            let (encoded, sum) = body.split_last_chunk::<8>()?;
            (checksum(encoded) == u64::from_le_bytes(*sum))
                .then(|| serde_json::from_slice(encoded).ok())
                .flatten()
        });
        if let Some(config) = kept {
            return Ok(config);
        }
        let config = Config::parse(src)?;
        let Ok(encoded) = serde_json::to_vec(&config) else {
            return Ok(config);
        };
        key.extend_from_slice(&encoded);
        key.extend_from_slice(&checksum(&encoded).to_le_bytes());
        // A cache that cannot be written costs the next run the parse, nothing else.
        let _ = file::replace_cache(&path, &key);
        Ok(config)
    }

    /// Every proposal file, oldest first; files that do not parse are returned with the reason.
    pub fn load_proposals(&self) -> Result<Vec<LoadedProposal>> {
        let dir = self.path(paths::PROPOSALS);
        let names = file::list_dir(&dir, ".json")?;
        let mut out = read_proposals(&dir, &names)?;
        // Each key once: parsing the times in every comparison was a tenth of `review list`.
        out.sort_by_cached_key(|p| {
            let created = p
                .proposal
                .as_ref()
                .ok()
                .map(|p| (p.created(), p.id.clone()));
            (created, p.path.clone())
        });
        Ok(out)
    }

    /// The proposals that parse, oldest first.
    pub fn pending_proposals(&self) -> Result<Vec<Proposal>> {
        Ok(self
            .load_proposals()?
            .into_iter()
            .filter_map(|p| p.proposal.ok())
            .collect())
    }

    /// Writes a new proposal file, never replacing one: on a name collision the id is re-hashed.
    pub fn write_proposal(&self, proposal: &mut Proposal) -> Result<PathBuf> {
        let dir = self.create_dir(paths::PROPOSALS)?;
        loop {
            let path = dir.join(proposal.file_name());
            let json = proposal.to_json();
            // Never a file its readers refuse: the limit they read with is checked first.
            let size = json.len() as u64;
            if size > Kind::Proposal.limit() {
                return Err(Error::TooLarge {
                    path: self.relative(&path),
                    kind: Kind::Proposal.name(),
                    size,
                    limit: Kind::Proposal.limit(),
                });
            }
            if create_new(&path, json.as_bytes(), self.durability)? {
                return Ok(path);
            }
            proposal.rehash_id();
        }
    }

    /// Symlinks anywhere under `.ledger/`.
    pub fn symlinks(&self) -> Result<Vec<PathBuf>> {
        file::symlinks_under(&self.path(paths::LEDGER))
    }

    /// The exclusive lock over facts and proposals for this work tree. It lives in the git
    /// directory, so it is never committed.
    pub fn lock(&self) -> Result<Lock> {
        Store::lock_in(&self.git_dir, paths::LEDGER_LOCK)
    }

    /// An exclusive lock on `<dir>/<name>`, held until the guard is dropped.
    pub(crate) fn lock_in(dir: &Path, name: &str) -> Result<Lock> {
        let path = dir.join(name);
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(Error::io(&path))?;
        file.lock().map_err(Error::io(&path))?;
        Ok(Lock { _file: file })
    }
}
