//! An export's directory: its files written atomically, with a manifest naming them so that the
//! next export into the same directory replaces them and removes those no longer exported,
//! never touching anything else.

use std::fs;
use std::path::{Path, PathBuf};

use crate::store::file::replace_unsynced;
use crate::store::{Error, Result};

/// The manifest's name and its first line.
pub const MANIFEST: &str = ".mneme-export";
const HEADER: &str = "# written by mneme export; the files below are replaced by the next one";

/// Why a directory cannot take an export.
#[derive(Debug, thiserror::Error)]
#[error("{} {why}", dir.display())]
pub struct TargetError {
    pub dir: PathBuf,
    pub why: &'static str,
}

/// Writes `files` (`(name, text)`, plain names) into `dir`: created when missing, else empty or
/// holding an earlier export. Files the earlier export wrote and this one does not are removed.
pub fn write_dir(dir: &Path, format: &str, files: &[(String, String)]) -> Result<()> {
    let earlier = earlier_export(dir)?;
    fs::create_dir_all(dir).map_err(Error::io(dir))?;
    // An export is a copy made again at will: each file is replaced atomically, without waiting
    // for the disk file by file (an fsync each made 650 files take 0.4 s instead of 0.2 s), and
    // a file that already holds the same bytes is left alone (reading it is cheaper than
    // replacing it, and its time stamps stay).
    for (name, text) in files {
        debug_assert!(!name.contains(['/', '\\']) && !name.starts_with('.'));
        let path = dir.join(name);
        if fs::read(&path).is_ok_and(|old| old == text.as_bytes()) {
            continue;
        }
        replace_unsynced(&path, text.as_bytes())?;
    }
    let mut manifest = format!("{HEADER}\nformat: {format}\n");
    for (name, _) in files {
        manifest.push_str(name);
        manifest.push('\n');
    }
    replace_unsynced(&dir.join(MANIFEST), manifest.as_bytes())?;
    for gone in earlier
        .iter()
        .filter(|old| !files.iter().any(|(name, _)| name == *old))
    {
        let path = dir.join(gone);
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::io(path)(e));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The files an earlier export into `dir` wrote; an error when `dir` holds anything else.
fn earlier_export(dir: &Path) -> Result<Vec<String>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir)(e)),
    };
    let mut any = false;
    for entry in entries {
        entry.map_err(Error::io(dir))?;
        any = true;
    }
    if !any {
        return Ok(Vec::new());
    }
    let manifest = dir.join(MANIFEST);
    let text = match fs::read_to_string(&manifest) {
        Ok(text) if text.starts_with(HEADER) => text,
        _ => {
            return Err(Error::ExportTarget(TargetError {
                dir: dir.to_owned(),
                why: "is not empty and holds no earlier mneme export",
            }))
        }
    };
    // Only plain names: a hand-edited manifest cannot make the export remove files elsewhere.
    Ok(text
        .lines()
        .skip(2)
        .filter(|l| !l.is_empty() && !l.starts_with('.') && !l.contains(['/', '\\']))
        .map(str::to_owned)
        .collect())
}
