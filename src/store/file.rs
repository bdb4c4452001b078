//! File primitives: reading what may be missing, listing a directory without following links,
//! and atomic writes (a temporary file in the same directory, synced if asked, then renamed).

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::model::base::codec::checksum;
use crate::store::{Error, Result};

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
pub fn list_dir(dir: &Path, ext: &str) -> Result<Vec<(String, PathBuf)>> {
    let mut out: Vec<_> = list_dir_inodes(dir, ext)?
        .into_iter()
        .map(|(name, _)| {
            let path = dir.join(&name);
            (name, path)
        })
        .collect();
    out.sort();
    Ok(out)
}

/// The names of [`list_dir`] in directory order, each with its inode number (0 where the
/// platform has none), which the listing gives at no cost.
pub fn list_dir_inodes(dir: &Path, ext: &str) -> Result<Vec<(String, u64)>> {
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
            out.push((name, inode(&entry)));
        }
    }
    Ok(out)
}

#[cfg(unix)]
fn inode(entry: &fs::DirEntry) -> u64 {
    std::os::unix::fs::DirEntryExt::ino(entry)
}

#[cfg(not(unix))]
fn inode(_: &fs::DirEntry) -> u64 {
    0
}

/// What a file mneme reads from a repository is, with the most of it mneme reads: limits no
/// real ledger reaches, so that a hostile branch cannot make a reader take the machine's memory
/// (docs/format.md lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    FactFile,
    Config,
    Task,
    Proposal,
    Record,
    Claim,
    AllowedSigners,
    /// AGENTS.md, CLAUDE.md, GEMINI.md: the agents' instruction files.
    Instructions,
    GitAttributes,
    /// `.gitignore`, `info/exclude`, `core.excludesFile`.
    GitIgnore,
    /// A runtime's settings file (`.claude/settings.json`, …).
    RuntimeSettings,
    /// A forge's CI configuration (`.gitlab-ci.yml`).
    CiConfig,
    /// A file a fact cites as evidence.
    Evidence,
}

const MIB: u64 = 1024 * 1024;

impl Kind {
    /// The most bytes read of a file of this kind.
    pub const fn limit(self) -> u64 {
        match self {
            Kind::Config | Kind::Claim => 64 * 1024,
            Kind::Record => 256 * 1024,
            Kind::FactFile
            | Kind::Task
            | Kind::Proposal
            | Kind::RuntimeSettings
            | Kind::CiConfig => MIB,
            Kind::AllowedSigners | Kind::Instructions | Kind::GitAttributes | Kind::GitIgnore => {
                MIB
            }
            Kind::Evidence => 16 * MIB,
        }
    }

    /// The kind of the files directly in the ledger directory `dir` (`.ledger/decisions`, …).
    pub fn of_ledger_dir(dir: &str) -> Kind {
        match dir.rsplit('/').next() {
            Some("decisions") => Kind::Record,
            Some("tasks") => Kind::Task,
            Some("facts") => Kind::FactFile,
            _ => Kind::Proposal,
        }
    }

    /// The kind in words, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::FactFile => "fact file",
            Kind::Config => "ledger config",
            Kind::Task => "task file",
            Kind::Proposal => "proposal",
            Kind::Record => "decision record",
            Kind::Claim => "claim",
            Kind::AllowedSigners => "allowed signers file",
            Kind::Instructions => "agent instructions file",
            Kind::GitAttributes => "attributes file",
            Kind::CiConfig => "CI configuration",
            Kind::GitIgnore => "ignore file",
            Kind::RuntimeSettings => "runtime settings file",
            Kind::Evidence => "cited file",
        }
    }
}

/// The bytes of the file at `path` in the work tree `root`, read as `kind`; `None` when there is
/// none. Whatever a branch put there, this neither blocks nor reads without bound: only a
/// regular file is read (a symlink only to one inside `root`), and no more than the kind's limit.
pub fn read_file(root: &Path, path: &Path, kind: Kind) -> Result<Option<Vec<u8>>> {
    Ok(read_file_keyed(root, path, kind)?.map(|(_, bytes)| bytes))
}

/// [`read_file`], with the file's [`FileKey`] taken before its bytes were read.
pub fn read_file_keyed(
    root: &Path,
    path: &Path,
    kind: Kind,
) -> Result<Option<(Option<FileKey>, Vec<u8>)>> {
    // A link anywhere on the way (a committed `docs/etc -> /etc` as much as the file itself) is
    // followed only to a file inside `root`.
    let target = if plainly_inside(root, path) {
        path.to_owned()
    } else {
        let target = match path.canonicalize() {
            Ok(t) => t,
            // A link to nothing is no file.
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(path)(e)),
        };
        let inside = root
            .canonicalize()
            .is_ok_and(|root| target.starts_with(root));
        if !inside {
            return Err(Error::UnsafeLedger {
                path: path.to_owned(),
                target,
            });
        }
        target
    };
    let key = match fs::symlink_metadata(&target) {
        Ok(meta) => {
            check_file(path, &meta, kind)?;
            FileKey::of_metadata(&meta)
        }
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path)(e)),
    };
    match open_regular(&target, kind.limit(), false) {
        Ok(bytes) => Ok(Some((key, bytes))),
        Err(e) if e.kind() == ErrorKind::FileTooLarge => {
            Err(kind_too_large(path, kind, kind.limit() + 1))
        }
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path)(e)),
    }
}

/// Fails unless `path`, where it exists, is a regular file (through any link) of at most
/// `kind`'s limit: what another reader (gix's attribute stack) may open, checked by type and
/// size first, so that a FIFO there cannot hang it nor a device feed it without end.
pub fn check_readable(path: &Path, kind: Kind) -> Result<()> {
    match fs::metadata(path) {
        Ok(meta) => check_file(path, &meta, kind),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(path)(e)),
    }
}

/// Fails unless `meta`, of `path`, is a regular file of at most `kind`'s limit.
fn check_file(path: &Path, meta: &fs::Metadata, kind: Kind) -> Result<()> {
    if !meta.is_file() {
        return Err(Error::NotAFile {
            path: path.to_owned(),
            kind: kind.name(),
            found: describe(&meta.file_type()),
        });
    }
    if meta.len() > kind.limit() {
        return Err(kind_too_large(path, kind, meta.len()));
    }
    Ok(())
}

fn kind_too_large(path: &Path, kind: Kind, size: u64) -> Error {
    Error::TooLarge {
        path: path.to_owned(),
        kind: kind.name(),
        size,
        limit: kind.limit(),
    }
}

/// [`read_file`] as UTF-8 text.
pub fn read_file_text(root: &Path, path: &Path, kind: Kind) -> Result<Option<String>> {
    read_file(root, path, kind)?
        .map(|bytes| {
            String::from_utf8(bytes).map_err(|_| Error::NotUtf8 {
                what: path.display().to_string(),
            })
        })
        .transpose()
}

/// Whether `path` is under `root` with no link or `..` on the way: then it cannot lead out,
/// which a few `lstat`s tell faster than resolving every ancestor.
pub fn plainly_inside(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let mut at = root.to_owned();
    for c in rel.components() {
        let std::path::Component::Normal(c) = c else {
            return false;
        };
        at.push(c);
        match fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => return false,
            Ok(_) => {}
            // Nothing beyond a missing component exists to lead out.
            Err(_) => return true,
        }
    }
    true
}

/// What a file type is, in words.
fn describe(kind: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symlink"
    } else {
        "not a regular file"
    }
}

/// Opens `path` without blocking (following a link only with `follow`: a file swapped for a
/// FIFO or a link since it was looked at), checks that it is a regular file, and reads at most
/// `max` bytes (`FileTooLarge` past that).
#[cfg(unix)]
fn open_regular(path: &Path, max: u64, follow: bool) -> std::io::Result<Vec<u8>> {
    let (fd, size) = open_checked(path, follow)?;
    read_fd(&fd, max, size)
}

/// `path` opened without blocking (following a link only with `follow`), and its length, once
/// it is known to be a regular file.
#[cfg(unix)]
fn open_checked(path: &Path, follow: bool) -> std::io::Result<(std::os::fd::OwnedFd, u64)> {
    use rustix::fs::{FileType, Mode, OFlags};
    let mut flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK;
    if !follow {
        flags |= OFlags::NOFOLLOW;
    }
    let fd = rustix::fs::open(path, flags, Mode::empty())?;
    let stat = rustix::fs::fstat(&fd)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Err(not_a_file());
    }
    Ok((fd, u64::try_from(stat.st_size).unwrap_or(0)))
}

#[cfg(not(unix))]
fn open_regular(path: &Path, max: u64, _follow: bool) -> std::io::Result<Vec<u8>> {
    if !fs::metadata(path)?.is_file() {
        return Err(not_a_file());
    }
    read_named(path, max)
}

/// The local regular file `path` (as [`read_local`]: no FIFO, no device) opened to read, and
/// its length: for a file too large to read whole at once.
#[cfg(unix)]
pub fn open_local(path: &Path) -> std::io::Result<(fs::File, u64)> {
    let (fd, size) = open_checked(path, true)?;
    Ok((fs::File::from(fd), size))
}

#[cfg(not(unix))]
pub fn open_local(path: &Path) -> std::io::Result<(fs::File, u64)> {
    let meta = fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_a_file());
    }
    Ok((fs::File::open(path)?, meta.len()))
}

/// The bytes of a file no branch controls: one git or mneme wrote in the git directory, a
/// temporary file, the user's own configuration. Still only a regular file, opened without
/// blocking, so that a FIFO in its place fails rather than hangs.
pub fn read_local(path: &Path) -> std::io::Result<Vec<u8>> {
    open_regular(path, u64::MAX, true)
}

/// Each line of the local regular file `path` (as [`read_local`]: no FIFO, no device), read in
/// bounded memory however long the file: a line longer than `max_line` bytes is passed over
/// unread. Lines are given without their newline, as lossy UTF-8.
pub fn for_each_local_line(
    path: &Path,
    max_line: u64,
    mut each: impl FnMut(&str),
) -> std::io::Result<()> {
    use std::io::{BufRead, Read};
    if !fs::metadata(path)?.is_file() {
        return Err(not_a_file());
    }
    let mut reader = std::io::BufReader::new(fs::File::open(path)?);
    // Up to `max_line` bytes, to the end of the line at most.
    let mut piece = |line: &mut Vec<u8>| {
        line.clear();
        reader.by_ref().take(max_line).read_until(b'\n', line)
    };
    let mut line = Vec::new();
    loop {
        let n = piece(&mut line)?;
        if n == 0 {
            return Ok(());
        }
        if line.last() != Some(&b'\n') && n as u64 == max_line {
            // The rest of an overlong line is skipped a bounded piece at a time.
            loop {
                let n = piece(&mut line)?;
                if n == 0 || line.last() == Some(&b'\n') {
                    break;
                }
            }
            continue;
        }
        let text = String::from_utf8_lossy(&line);
        each(text.trim_end_matches(['\n', '\r']));
    }
}

/// [`read_local`] as UTF-8 text.
pub fn read_local_text(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_local(path)?)
        .map_err(|e| std::io::Error::new(ErrorKind::InvalidData, e.utf8_error()))
}

/// The bytes of `path`, or `None` when it does not exist; as [`read_local`].
pub fn read_optional(path: &Path) -> Result<Option<Vec<u8>>> {
    match read_local(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path)(e)),
    }
}

/// The bytes of the regular file `path`, refusing one larger than `max` bytes without reading
/// it all.
pub fn read_capped(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    open_regular(path, max, true)
}

/// Up to `max` bytes of a file the user named on the command line: it may be a pipe
/// (`<(…)`), which is read as the user asked. `FileTooLarge` past `max`.
pub fn read_named(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    fs::File::open(path)?
        .take(max + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large(max));
    }
    Ok(bytes)
}

/// The UTF-8 text of `path`, or `None` when it does not exist; `what` names it in errors.
pub fn read_optional_text(path: &Path, what: &str) -> Result<Option<String>> {
    read_optional(path)?
        .map(|bytes| {
            String::from_utf8(bytes).map_err(|_| Error::NotUtf8 {
                what: what.to_owned(),
            })
        })
        .transpose()
}

/// Whether an atomic write waits for the disk before its file is renamed into place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Synced: the file is on disk when the call returns.
    Synced,
    /// Whole or absent after a crash, but possibly lost with the page cache, as git leaves its
    /// loose objects unless `core.fsync` asks for more.
    Atomic,
}

/// A temporary file beside `path` holding `bytes`, synced if `durability` says so.
fn temp_with(path: &Path, bytes: &[u8], durability: Durability) -> Result<tempfile::NamedTempFile> {
    let mut tmp = temp_beside(path)?;
    tmp.write_all(bytes).map_err(Error::io(path))?;
    if durability == Durability::Synced {
        tmp.as_file().sync_all().map_err(Error::io(path))?;
    }
    Ok(tmp)
}

/// Replaces `path` atomically: a temporary file in the same directory, then renamed. An
/// existing file keeps its permissions; a new one gets what the umask allows.
pub fn write_atomic(path: &Path, bytes: &[u8], durability: Durability) -> Result<()> {
    let existing = fs::metadata(path).ok().map(|m| m.permissions());
    let tmp = temp_with(path, bytes, durability)?;
    if let Some(permissions) = existing {
        fs::set_permissions(tmp.path(), permissions).map_err(Error::io(path))?;
    }
    tmp.persist(path).map_err(|e| Error::io(path)(e.error))?;
    Ok(())
}

/// Replaces `path` atomically but without waiting for the disk: for caches, which a crash may
/// lose (or leave unreadable, which their readers detect) but never half-write.
pub fn replace_unsynced(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temp_with(path, bytes, Durability::Atomic)?;
    tmp.persist(path).map_err(|e| Error::io(path)(e.error))?;
    Ok(())
}

/// Replaces the cache `path`, whose absence costs its readers only time: the old file is
/// removed, then the new one renamed into its place, so that a reader finds the old cache, none,
/// or the new one whole. Renaming over a file costs far more on ext4, which starts writing the
/// new file's blocks before such a rename (`auto_da_alloc`): 150 µs against 25. Where another
/// run put its cache in place first, that one is kept.
pub fn replace_cache(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temp_with(path, bytes, Durability::Atomic)?;
    match fs::remove_file(path) {
        Err(e) if e.kind() != ErrorKind::NotFound => return Err(Error::io(path)(e)),
        _ => {}
    }
    match tmp.persist_noclobber(path) {
        Ok(_) => Ok(()),
        Err(e) if e.error.kind() == ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(Error::io(path)(e.error)),
    }
}

/// Creates `path` atomically with `bytes`, with what the umask allows; `false` (and nothing
/// written) when it already exists.
pub fn create_new(path: &Path, bytes: &[u8], durability: Durability) -> Result<bool> {
    let tmp = temp_with(path, bytes, durability)?;
    match tmp.persist_noclobber(path) {
        Ok(_) => Ok(true),
        Err(e) if e.error.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(Error::io(path)(e.error)),
    }
}

/// The first executable `program` in a directory of `PATH`.
pub fn find_program(program: &str) -> Option<PathBuf> {
    let names = [program.to_owned(), format!("{program}.exe")];
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// How mneme's temporary files are named: `.mneme-<pid>-<random>.tmp`.
pub const TEMP_PREFIX: &str = ".mneme-";
pub const TEMP_SUFFIX: &str = ".tmp";

/// The process that made the temporary file `name`, if it is one of mneme's.
pub fn temp_owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEMP_PREFIX)?.strip_suffix(TEMP_SUFFIX)?;
    rest.split_once('-')?.0.parse().ok()
}

/// A temporary file beside `path`, created as an ordinary file is (mode 0666 less the umask),
/// not with tempfile's private 0600.
fn temp_beside(path: &Path) -> Result<tempfile::NamedTempFile> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    // The process in the name: a run killed mid-write leaves a file the next one can tell is
    // nobody's.
    let prefix = format!("{TEMP_PREFIX}{}-", std::process::id());
    builder.prefix(&prefix).suffix(TEMP_SUFFIX);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir).map_err(Error::io(dir))
}

/// Reads and parses the files `names` (`(file name, path)`, as [`list_dir`] gives them) of
/// `dir`, spread over the cores: thousands of small files (tasks, a long review queue) make this
/// the cost of the verbs that load them. Each result says why its file could not be read or
/// parsed; the order is that of `names`.
pub fn read_all<T: Send>(
    dir: &Path,
    names: &[(String, PathBuf)],
    max: u64,
    parse: impl Fn(&[u8]) -> std::result::Result<T, String> + Sync,
) -> std::io::Result<Vec<(PathBuf, std::result::Result<T, String>)>> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    in_dir(dir, names, |reader, (name, path)| {
        let result = reader
            .read(name, max)
            .map_err(|e| e.to_string())
            .and_then(|bytes| parse(&bytes));
        (path.clone(), result)
    })
}

/// A file's key, taken before its bytes were read.
pub type Keyed = (FileKey, Vec<u8>);

/// The files `names` of `dir` with their [`FileKey`]s taken before reading, spread over the
/// cores as [`read_all`] does; an error is why a file could not be read.
pub fn read_all_keyed(
    dir: &Path,
    names: &[&str],
    max: u64,
) -> std::io::Result<Vec<std::io::Result<Keyed>>> {
    in_dir(dir, names, |reader, name| reader.read_keyed(name, max))
}

/// The [`FileKey`] of the file of `dir` that `name` names for each of `items` (`None` where
/// there is no such regular file): what says, without reading them, that thousands of files are
/// as they were.
pub fn keys_of<I: Sync>(
    dir: &Path,
    items: &[I],
    name: impl Fn(&I) -> &str + Sync,
) -> std::io::Result<Vec<Option<FileKey>>> {
    in_dir(dir, items, |reader, item| reader.key(name(item)).ok())
}

/// `f` over `items` with a reader of `dir`, in order, spread over the cores. Each thread opens
/// the directory itself: threads calling the kernel through one shared descriptor contend on
/// its reference count.
fn in_dir<I: Sync, O: Send>(
    dir: &Path,
    items: &[I],
    f: impl Fn(&DirReader, &I) -> O + Sync,
) -> std::io::Result<Vec<O>> {
    let shared = DirReader::open(dir)?;
    let parts = in_parts(items, |part| {
        // The calling thread, which takes the first part, has one already.
        let first = std::ptr::eq(part.as_ptr(), items.as_ptr());
        let own = (!first).then(|| DirReader::open(dir).ok()).flatten();
        let reader = own.as_ref().unwrap_or(&shared);
        part.iter().map(|i| f(reader, i)).collect::<Vec<_>>()
    });
    Ok(parts.into_iter().flatten().collect())
}

/// `f` over consecutive parts of `items`, one per core, in order (a thread costs more than a few
/// hundred small files take, so a part has at least that many).
pub(crate) fn in_parts<I: Sync, O: Send>(items: &[I], f: impl Fn(&[I]) -> O + Sync) -> Vec<O> {
    const MIN_PART: usize = 256;
    // Asked only when there is more than one part to share: the answer reads the cgroup's
    // files, which costs more than reading a few proposals.
    if items.len() <= MIN_PART {
        return vec![f(items)];
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(8);
    let chunk = items.len().div_ceil(threads).max(MIN_PART);
    if items.len() <= chunk {
        return vec![f(items)];
    }
    let f = &f;
    let (first, rest) = items.split_at(chunk);
    std::thread::scope(|scope| {
        // The calling thread takes the first part itself.
        let handles: Vec<_> = rest
            .chunks(chunk)
            .map(|part| scope.spawn(move || f(part)))
            .collect();
        let mut out = vec![f(first)];
        out.extend(
            handles
                .into_iter()
                .map(|h| h.join().expect("a worker thread panicked")),
        );
        out
    })
}

/// What a file's metadata says of its content, as git's index keeps it: a write changes the
/// key, unless it lands in the same clock tick as the write before it (see
/// [`FileKey::written_since`]). Times are nanoseconds since the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileKey {
    pub modified: i64,
    pub changed: i64,
    pub size: u64,
    pub inode: u64,
}

/// A time of `secs` seconds and `nsec` nanoseconds since the epoch, in nanoseconds (saturating).
#[cfg(unix)]
fn nanos(secs: i64, nsec: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}

impl FileKey {
    /// Whether the file may have been written again since a reader that started at `start`
    /// took this key, without the key changing.
    pub fn written_since(&self, start: i128) -> bool {
        recently_written(i128::from(self.modified.max(self.changed)), start)
    }

    /// What an index keeps of this key for a reader that started at `start`: a hash of it, never
    /// 0, or 0 (which no key matches) where the file may be written again unseen.
    pub fn stamp(&self, start: i128) -> u64 {
        if self.written_since(start) {
            0
        } else {
            self.hash()
        }
    }

    /// Whether `stamp`, as [`FileKey::stamp`] gave it, was taken of this very key.
    pub fn matches(&self, stamp: u64) -> bool {
        stamp != 0 && self.hash() == stamp
    }

    /// A hash of the whole key, never 0.
    fn hash(&self) -> u64 {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&self.modified.to_le_bytes());
        bytes[8..16].copy_from_slice(&self.changed.to_le_bytes());
        bytes[16..24].copy_from_slice(&self.size.to_le_bytes());
        bytes[24..].copy_from_slice(&self.inode.to_le_bytes());
        checksum(&bytes) | 1
    }

    /// The key of what `meta` describes, `None` unless it is a regular file.
    #[cfg(unix)]
    pub fn of_metadata(meta: &fs::Metadata) -> Option<FileKey> {
        use std::os::unix::fs::MetadataExt as _;
        meta.is_file().then(|| FileKey {
            modified: nanos(meta.mtime(), meta.mtime_nsec()),
            changed: nanos(meta.ctime(), meta.ctime_nsec()),
            size: meta.size(),
            inode: meta.ino(),
        })
    }

    #[cfg(unix)]
    fn of(st: &rustix::fs::Stat) -> Option<FileKey> {
        let regular =
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile;
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        regular.then(|| FileKey {
            modified: nanos(st.st_mtime as i64, st.st_mtime_nsec as i64),
            changed: nanos(st.st_ctime as i64, st.st_ctime_nsec as i64),
            size: st.st_size as u64,
            inode: st.st_ino as u64,
        })
    }

    #[cfg(target_os = "linux")]
    fn of_statx(st: &rustix::fs::Statx) -> Option<FileKey> {
        let at = |t: rustix::fs::StatxTimestamp| nanos(t.tv_sec, i64::from(t.tv_nsec));
        let regular = rustix::fs::FileType::from_raw_mode(u32::from(st.stx_mode))
            == rustix::fs::FileType::RegularFile;
        regular.then(|| FileKey {
            modified: at(st.stx_mtime),
            changed: at(st.stx_ctime),
            size: st.stx_size,
            inode: st.stx_ino,
        })
    }

    #[cfg(not(unix))]
    pub fn of_metadata(meta: &fs::Metadata) -> Option<FileKey> {
        let modified = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_nanos();
        meta.is_file().then(|| FileKey {
            modified: i64::try_from(modified).unwrap_or(i64::MAX),
            changed: 0,
            size: meta.len(),
            inode: 0,
        })
    }
}

/// Whether something last written at `last` may have been written again after `start` (both
/// nanoseconds since the epoch) without its times changing: a later write could have fallen in
/// the same clock tick (at most 10 ms on Linux; two seconds where times have no sub-second
/// part, as on FAT).
pub fn recently_written(last: i128, start: i128) -> bool {
    let window: i128 = if last % 1_000_000_000 == 0 {
        2_000_000_000
    } else {
        100_000_000
    };
    last + window >= start
}

fn not_a_file() -> std::io::Error {
    std::io::Error::new(ErrorKind::InvalidInput, "not a regular file")
}

fn too_large(max: u64) -> std::io::Error {
    std::io::Error::new(ErrorKind::FileTooLarge, format!("larger than {max} bytes"))
}

/// Reads the files of one directory. On Unix each file is opened relative to the directory,
/// which spares the kernel a path walk per file: thousands of small task files make that the
/// cost of every task verb.
#[cfg(unix)]
pub(crate) struct DirReader(std::os::fd::OwnedFd);

#[cfg(unix)]
impl DirReader {
    fn open(dir: &Path) -> std::io::Result<DirReader> {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        Ok(DirReader(rustix::fs::open(dir, flags, Mode::empty())?))
    }

    /// The file's bytes, or an error past `max` bytes.
    fn read(&self, name: &str, max: u64) -> std::io::Result<Vec<u8>> {
        read_fd(&self.open_file(name)?, max, 0)
    }

    /// The file's key, taken before its bytes are read.
    fn read_keyed(&self, name: &str, max: u64) -> std::io::Result<(FileKey, Vec<u8>)> {
        let fd = self.open_file(name)?;
        let stat = rustix::fs::fstat(&fd)?;
        let key = FileKey::of(&stat).ok_or_else(not_a_file)?;
        Ok((
            key,
            read_fd(&fd, max, u64::try_from(stat.st_size).unwrap_or(0))?,
        ))
    }

    /// The file's key, asking Linux for only what a key holds: a third cheaper than a full
    /// `stat`, which thousands of task files make measurable. Where `statx` is refused (old
    /// kernels, some sandboxes), a plain `stat`.
    fn key(&self, name: &str) -> std::io::Result<FileKey> {
        use rustix::fs::AtFlags;
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::StatxFlags;
            let want = StatxFlags::TYPE
                | StatxFlags::MTIME
                | StatxFlags::CTIME
                | StatxFlags::SIZE
                | StatxFlags::INO;
            let flags = AtFlags::SYMLINK_NOFOLLOW | AtFlags::STATX_DONT_SYNC;
            match rustix::fs::statx(&self.0, name, flags, want) {
                Ok(st) if st.stx_mask & want.bits() == want.bits() => {
                    return FileKey::of_statx(&st).ok_or_else(not_a_file);
                }
                Ok(_) | Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let st = rustix::fs::statat(&self.0, name, AtFlags::SYMLINK_NOFOLLOW)?;
        FileKey::of(&st).ok_or_else(not_a_file)
    }

    /// Opens a file the listing found regular, without blocking: a FIFO swapped in since reads
    /// as empty rather than hanging, a link is not followed, and reads stop at the limit. (No
    /// `fstat` here: thousands of task files make each system call count.)
    fn open_file(&self, name: &str) -> std::io::Result<std::os::fd::OwnedFd> {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW | OFlags::NONBLOCK;
        Ok(rustix::fs::openat(&self.0, name, flags, Mode::empty())?)
    }
}

/// Plain reads until end of file: `File::read_to_end` asks for the size and position first, two
/// more system calls per file, which 10,000 small files make measurable. `size` is what the file
/// held when its caller asked (0 when it did not): the bytes go straight into room for that and
/// one byte more, so a file that did not grow is read in one call and ends at the next, with no
/// copy and no growing buffer.
#[cfg(unix)]
fn read_fd(fd: &std::os::fd::OwnedFd, max: u64, size: u64) -> std::io::Result<Vec<u8>> {
    const CHUNK: usize = 8192;
    let room = match size {
        0 => CHUNK,
        size => usize::try_from(size.min(max)).map_or(CHUNK, |n| n.saturating_add(1)),
    };
    let mut bytes = Vec::with_capacity(room);
    loop {
        if bytes.len() == bytes.capacity() {
            bytes.reserve(CHUNK);
        }
        let n = rustix::io::read(fd, rustix::buffer::spare_capacity(&mut bytes))?;
        if n == 0 {
            return Ok(bytes);
        }
        if bytes.len() as u64 > max {
            return Err(too_large(max));
        }
    }
}

#[cfg(not(unix))]
pub(crate) struct DirReader(PathBuf);

#[cfg(not(unix))]
impl DirReader {
    fn open(dir: &Path) -> std::io::Result<DirReader> {
        Ok(DirReader(dir.to_owned()))
    }

    fn read(&self, name: &str, max: u64) -> std::io::Result<Vec<u8>> {
        read_capped(&self.0.join(name), max)
    }

    fn read_keyed(&self, name: &str, max: u64) -> std::io::Result<(FileKey, Vec<u8>)> {
        let key = self.key(name)?;
        Ok((key, self.read(name, max)?))
    }

    fn key(&self, name: &str) -> std::io::Result<FileKey> {
        FileKey::of_metadata(&fs::symlink_metadata(self.0.join(name))?).ok_or_else(not_a_file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: i64 = 1_000_000_000;

    fn key(modified: i64, changed: i64) -> FileKey {
        FileKey {
            modified,
            changed,
            size: 10,
            inode: 7,
        }
    }

    #[test]
    fn a_stamp_matches_only_its_own_key_and_never_a_file_written_within_a_tick() {
        let read_at = i128::from(1_800_000_000 * SECOND + 5);
        let old = key(1_700_000_000 * SECOND + 3, 1_700_000_000 * SECOND + 9);
        let stamp = old.stamp(read_at);
        assert!(old.matches(stamp));
        for other in [
            FileKey { size: 11, ..old },
            FileKey { inode: 8, ..old },
            FileKey {
                changed: old.changed + 1,
                ..old
            },
            FileKey {
                modified: old.modified - 1,
                ..old
            },
        ] {
            assert!(!other.matches(stamp), "{other:?}");
        }
        // Changed (or modified) 50 ms before it was read: a write after the read could land in
        // the same tick and keep the key.
        let last = i64::try_from(read_at).unwrap() - SECOND / 20;
        for racy in [key(old.modified, last), key(last, old.changed)] {
            assert_eq!(racy.stamp(read_at), 0);
            assert!(!racy.matches(racy.stamp(read_at)));
        }
        // Times of whole seconds (FAT, some network file systems) are trusted two seconds on.
        let whole = key(
            1_800_000_000 * SECOND - SECOND,
            1_800_000_000 * SECOND - SECOND,
        );
        assert_eq!(whole.stamp(read_at), 0);
        assert_ne!(whole.stamp(read_at + 2 * i128::from(SECOND)), 0);
    }
    #[test]
    fn a_cache_is_replaced_whole_by_a_new_file_and_a_directory_in_its_place_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache.idx");
        replace_cache(&path, b"first").unwrap();
        #[cfg(unix)]
        let before = fs::metadata(&path).unwrap();
        replace_cache(&path, b"second, longer").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second, longer");
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            assert_ne!(
                fs::metadata(&path).unwrap().ino(),
                before.ino(),
                "a new file"
            );
        }
        // A link in its place is replaced, not followed.
        let target = dir.path().join("target");
        fs::write(&target, b"kept").unwrap();
        fs::remove_file(&path).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, &path).unwrap();
        replace_cache(&path, b"third").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"kept");
        assert_eq!(fs::read(&path).unwrap(), b"third");

        let blocked = dir.path().join("blocked.idx");
        fs::create_dir(&blocked).unwrap();
        assert!(replace_cache(&blocked, b"x").is_err());
        assert!(blocked.is_dir());
        let left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 3, "no temporary file is left: {left:?}");
    }
}
