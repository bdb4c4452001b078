//! One file per verb: an `Args` struct whose doc comments are the `--help` text, and a `run`.

pub mod check;
pub mod context;
pub mod diff;
pub mod facts;
pub mod hooks;
pub mod init;
pub mod log;
pub mod merge_file;
pub mod propose;
pub mod review;
pub mod show;
pub mod verify;
pub mod why;

use std::ffi::OsString;
use std::path::PathBuf;

use mneme::{Error, Result};

use crate::ui::Ui;

/// What every verb gets: where it runs and where it prints.
pub struct Cx<'a> {
    pub cwd: PathBuf,
    pub ui: &'a Ui,
}

/// An argument as UTF-8, or a clear error naming it.
pub fn utf8(what: &str, value: &OsString) -> Result<String> {
    value
        .to_str()
        .map(str::to_owned)
        .ok_or_else(|| Error::InvalidUtf8 {
            what: what.to_owned(),
        })
}
