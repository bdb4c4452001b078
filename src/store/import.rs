//! Reading what an import reads: a file, the matching files of a directory (not its
//! subdirectories), or files listed by path, each within a size limit and valid UTF-8. Symbolic
//! links inside a directory or in a list are skipped, never followed: an import reads what the
//! directory holds, nothing elsewhere.

use std::fs;
use std::path::{Path, PathBuf};

use crate::store::file::read_capped;
use crate::store::{Error, Result};

/// The largest file an import reads.
pub const MAX_FILE: u64 = 1 << 20;
/// The most files one import reads.
pub const MAX_FILES: usize = 10_000;

/// Why a source cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("{} {why}", path.display())]
pub struct SourceError {
    pub path: PathBuf,
    pub why: String,
}

fn refuse(path: &Path, why: impl Into<String>) -> Error {
    Error::ImportSource(SourceError {
        path: path.to_owned(),
        why: why.into(),
    })
}

/// A file read for an import: its path as given (joined to the directory), and its text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: String,
}

/// Reads `path`: the file itself, or in a directory the files whose names `wanted` accepts,
/// sorted by name, with the symbolic links skipped (their names are returned).
pub fn read(path: &Path, wanted: &dyn Fn(&str) -> bool) -> Result<(Vec<SourceFile>, Vec<String>)> {
    let meta = fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => refuse(path, "does not exist"),
        _ => Error::io(path)(e),
    })?;
    if !meta.is_dir() {
        return Ok((vec![read_one(path)?], Vec::new()));
    }
    let mut names = Vec::new();
    let mut links = Vec::new();
    for entry in fs::read_dir(path).map_err(Error::io(path))? {
        let entry = entry.map_err(Error::io(path))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type().map_err(Error::io(entry.path()))?;
        if kind.is_symlink() {
            if wanted(&name) {
                links.push(name);
            }
            continue;
        }
        if kind.is_file() && wanted(&name) {
            names.push(name);
        }
    }
    if names.len() > MAX_FILES {
        return Err(refuse(
            path,
            format!(
                "holds {} files to import; at most {MAX_FILES} are read at once",
                names.len()
            ),
        ));
    }
    names.sort();
    let files = names
        .iter()
        .map(|n| read_one(&path.join(n)))
        .collect::<Result<Vec<_>>>()?;
    Ok((files, links))
}

/// Reads each of `paths` (files under `root`, named from it), in order, with the symbolic links
/// skipped (their paths are returned, as given).
pub fn read_listed(root: &Path, paths: &[String]) -> Result<(Vec<SourceFile>, Vec<String>)> {
    if paths.len() > MAX_FILES {
        return Err(refuse(
            root,
            format!(
                "holds {} files to import; at most {MAX_FILES} are read at once",
                paths.len()
            ),
        ));
    }
    let mut files = Vec::new();
    let mut links = Vec::new();
    for rel in paths {
        let path = root.join(rel);
        let meta = match fs::symlink_metadata(&path) {
            // Tracked, but gone from the work tree: nothing to read.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            other => other.map_err(Error::io(&path))?,
        };
        if meta.file_type().is_symlink() {
            links.push(rel.clone());
        } else if meta.is_file() {
            // Never a FIFO or a device put in a tracked file's place: reading it could block.
            files.push(read_one(&path)?);
        }
    }
    Ok((files, links))
}

fn read_one(path: &Path) -> Result<SourceFile> {
    let bytes = read_capped(path, MAX_FILE).map_err(|e| match e.kind() {
        std::io::ErrorKind::FileTooLarge => refuse(
            path,
            format!(
                "is larger than {} MiB; split it, or import its parts",
                MAX_FILE >> 20
            ),
        ),
        _ => Error::io(path)(e),
    })?;
    let text = String::from_utf8(bytes).map_err(|_| Error::NotUtf8 {
        what: path.display().to_string(),
    })?;
    Ok(SourceFile {
        path: path.to_owned(),
        text,
    })
}
