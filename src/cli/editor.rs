//! The reviewer's editor, as git runs it: `$VISUAL`, else `$EDITOR`, on a temporary file.

use std::io::Write;
use std::process::Command;

use crate::cli::{CliError, Result};

/// Opens the editor on `text`. `None` when the text comes back as it was; an editor that cannot
/// be started or exits with a failure is an error, not an edit.
pub fn edit(text: &str) -> Result<Option<String>> {
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .ok()
        .filter(|e| !e.trim().is_empty())
        .unwrap_or_else(|| if cfg!(windows) { "notepad" } else { "vi" }.to_owned());
    let mut file = tempfile::Builder::new()
        .prefix("mneme-edit-")
        .suffix(".md")
        .tempfile()
        .map_err(CliError::editor)?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.flush())
        .map_err(CliError::editor)?;
    // `code --wait` and the like: the command, then its arguments, split on spaces.
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi");
    let status = Command::new(program)
        .args(words)
        .arg(file.path())
        .status()
        .map_err(|e| CliError::editor(std::io::Error::new(e.kind(), format!("{editor}: {e}"))))?;
    if !status.success() {
        return Err(CliError::editor(std::io::Error::other(format!(
            "{editor} exited with {status}; the proposal is as it was"
        ))));
    }
    let edited = mneme::store::file::read_local_text(file.path()).map_err(CliError::editor)?;
    let edited = edited.trim_end_matches(['\n', '\r']);
    Ok((edited != text.trim_end_matches(['\n', '\r'])).then(|| edited.to_owned()))
}
