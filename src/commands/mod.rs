//! One file per verb: an `Args` struct whose doc comments are the `--help` text, and a `run`.

pub mod blocked;
pub mod check;
pub mod close;
pub mod context;
pub mod create;
pub mod dep;
pub mod diff;
pub mod facts;
pub mod hooks;
pub mod init;
pub mod list;
pub mod log;
pub mod merge_file;
pub mod propose;
pub mod ready;
pub mod reopen;
pub mod review;
pub mod show;
pub mod update;
pub mod verify;
pub mod why;

use std::ffi::OsString;
use std::path::PathBuf;

use mneme::{Error, Result};

use crate::cli::ui::Ui;

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

/// Tasks that parse; files that do not are reported on stderr and skipped, so one corrupt
/// file does not stop work on the rest.
pub fn load_tasks(ws: &mneme::store::Workspace) -> Result<Vec<mneme::model::tasks::Task>> {
    let loaded = ws.load_tasks()?;
    for (path, why) in &loaded.broken {
        eprintln!(
            "warning: skipping {}: {why} (see `mneme check`)",
            ws.relative(path).display()
        );
    }
    Ok(loaded.tasks)
}

/// Prints a changed task: as JSON, or as `<verb> <task line>`.
pub fn print_task(cx: &Cx, verb: &str, task: &mneme::model::tasks::Task) {
    use crate::cli::ui::{paint, task_line, GOOD};
    if cx.ui.json {
        cx.ui.json(task);
    } else {
        cx.ui
            .out(&format!("{} {}", paint(GOOD, verb), task_line(task)));
    }
}
