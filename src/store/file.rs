//! File primitives: reading what may be missing, listing a directory without following links,
//! and atomic writes (a temporary file in the same directory, synced, then renamed).

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

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

/// The bytes of `path`, or `None` when it does not exist.
pub fn read_optional(path: &Path) -> Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path)(e)),
    }
}

/// The bytes of `path`, refusing a file larger than `max` bytes without reading it all.
pub fn read_capped(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
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

/// Replaces `path` atomically: a temporary file in the same directory, synced, then renamed.
/// An existing file keeps its permissions; a new one gets what the umask allows.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let existing = fs::metadata(path).ok().map(|m| m.permissions());
    let mut tmp = temp_beside(path)?;
    if let Some(permissions) = existing {
        fs::set_permissions(tmp.path(), permissions).map_err(Error::io(path))?;
    }
    tmp.write_all(bytes).map_err(Error::io(path))?;
    tmp.as_file().sync_all().map_err(Error::io(path))?;
    tmp.persist(path).map_err(|e| Error::io(path)(e.error))?;
    Ok(())
}

/// Replaces `path` atomically but without waiting for the disk: for caches, which a crash may
/// lose (or leave unreadable, which their readers detect) but never half-write.
pub fn replace_unsynced(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = temp_beside(path)?;
    tmp.write_all(bytes).map_err(Error::io(path))?;
    tmp.persist(path).map_err(|e| Error::io(path)(e.error))?;
    Ok(())
}

/// Creates `path` atomically with `bytes`, with what the umask allows; `false` (and nothing
/// written) when it already exists.
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

/// A temporary file beside `path`, created as an ordinary file is (mode 0666 less the umask),
/// not with tempfile's private 0600.
fn temp_beside(path: &Path) -> Result<tempfile::NamedTempFile> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    builder.prefix(".mneme-").suffix(".tmp");
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
    let reader = &DirReader::open(dir)?;
    let parse = &parse;
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(8);
    let chunk = names.len().div_ceil(threads).max(256);
    Ok(std::thread::scope(|scope| {
        let handles: Vec<_> = names
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(name, path)| {
                            let result = reader
                                .read(name, max)
                                .map_err(|e| e.to_string())
                                .and_then(|bytes| parse(&bytes));
                            (path.clone(), result)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("file reader panicked"))
            .collect()
    }))
}

fn too_large(max: u64) -> std::io::Error {
    std::io::Error::other(format!("larger than {max} bytes"))
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
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.0, name, flags, Mode::empty())?;
        // Plain reads until end of file: `File::read_to_end` asks for the size and position
        // first, two more system calls per file, which 10,000 small files make measurable.
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 8192];
        loop {
            let n = rustix::io::read(&fd, &mut chunk[..])?;
            if n == 0 {
                return Ok(bytes);
            }
            bytes.extend_from_slice(&chunk[..n]);
            if bytes.len() as u64 > max {
                return Err(too_large(max));
            }
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
}
