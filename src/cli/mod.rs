//! What the verbs share for talking to a person: the terminal and JSON output, rendering,
//! prompts, the editor, errors and the exit status, and the context a verb runs in. Nothing
//! here knows a verb: the verbs (`commands`) use it, never the other way round.

pub mod editor;
pub mod error;
pub mod panic;
pub mod prompt;
pub mod render;
pub mod ui;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use mneme::ops::Notes as _;
use mneme::ops::Workspace;

pub use error::{CliError, Result};
use ui::Ui;

/// How a verb that ran to the end went: outcomes such as "check found errors" are not errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Success,
    /// The verb worked and found problems (`check`, `verify`, `merge-file`).
    Failure,
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> ExitCode {
        match status {
            ExitStatus::Success => ExitCode::SUCCESS,
            ExitStatus::Failure => ExitCode::FAILURE,
        }
    }
}

/// What every verb gets: where it runs and where it prints.
pub struct Cx<'a> {
    pub cwd: PathBuf,
    pub ui: &'a Ui,
}

impl Cx<'_> {
    /// The repository and ledger this run works in, found once. An approval a crash
    /// interrupted is finished first, so that nothing reads or writes a half-made state; a
    /// recovery that cannot run now (another git process holds the index) is only told.
    pub fn workspace(&self) -> Result<Workspace> {
        let ws = self.workspace_as_found()?;
        match mneme::ops::review::recover(&ws) {
            Ok(Some(note)) => self.ui.warn(&format!("note: {note}")),
            Ok(None) => {}
            Err(e) => self.ui.warn(&format!(
                "note: an interrupted approval could not be finished yet: {}",
                mneme::error_chain(&e)
            )),
        }
        Ok(ws)
    }

    /// The workspace, without finishing an interrupted approval (the commit-msg hook does that
    /// itself, and stops the commit).
    pub fn workspace_as_found(&self) -> Result<Workspace> {
        Ok(Workspace::discover(&self.cwd)?)
    }
}

/// An argument as UTF-8, or a clear error naming it.
pub fn utf8(what: &str, value: &OsString) -> Result<String> {
    value
        .to_str()
        .map(str::to_owned)
        .ok_or_else(|| CliError::invalid_utf8(what))
}

/// A value parser over the names of a library enum (`Status::ALL`, …), which stays free of clap.
/// `aliases` are other spellings accepted for a name, such as `in-progress` for `in_progress`.
pub fn names<T>(
    all: &'static [T],
    name: fn(&T) -> &'static str,
    aliases: &'static [(&'static str, &'static str)],
) -> impl TypedValueParser<Value = T>
where
    T: Clone + Send + Sync + 'static,
{
    let values = all.iter().map(move |v| {
        let n = name(v);
        let alias = aliases
            .iter()
            .filter(move |(_, of)| *of == n)
            .map(|(a, _)| *a);
        PossibleValue::new(n).aliases(alias)
    });
    PossibleValuesParser::new(values).map(move |chosen: String| {
        let canonical = aliases
            .iter()
            .find(|(alias, _)| *alias == chosen)
            .map_or(chosen.as_str(), |(_, of)| of);
        all.iter()
            .find(|v| name(v) == canonical)
            .cloned()
            .expect("clap only passes listed names")
    })
}
