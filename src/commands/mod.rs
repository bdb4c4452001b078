//! One file per verb: an `Args` struct whose doc comments are the `--help` text, and a `run`
//! that parses, calls `mneme::ops`, and renders.

pub mod blocked;
pub mod check;
pub mod claims;
pub mod close;
pub mod compact;
pub mod completions;
pub mod context;
pub mod create;
pub mod dep;
pub mod diff;
pub mod doctor;
pub mod export;
pub mod facts;
pub mod forge;
pub mod hook;
pub mod hooks;
pub mod import;
pub mod init;
pub mod list;
pub mod log;
pub mod man;
pub mod mcp;
pub mod merge_file;
pub mod migrate;
pub mod propose;
pub mod ready;
pub mod reopen;
pub mod review;
pub mod setup;
pub mod show;
pub mod stale;
pub mod status;
pub mod update;
pub mod verify;
pub mod why;

use clap::builder::TypedValueParser;
use mneme::model::tasks::task::{DepKind, Kind, Status, Task};

use crate::cli::ui::{paint, task_line, GOOD};
use crate::cli::{names, Cx, ExitStatus, Result};

/// Prints a changed task: as JSON, or as `<verb> <task line>`.
pub fn print_task(cx: &Cx, verb: &str, task: &Task) -> Result<ExitStatus> {
    if cx.ui.json {
        cx.ui.json(task)?;
    } else {
        cx.ui
            .out(&format!("{} {}", paint(GOOD, verb), task_line(task)))?;
    }
    Ok(ExitStatus::Success)
}

/// `--status`: the names the task files and JSON use (`in-progress` is accepted too).
pub fn status_parser() -> impl TypedValueParser<Value = Status> {
    names(&Status::ALL, |s| s.as_str(), STATUS_ALIASES)
}

/// `update --status`: every status but `closed` (`mneme close` closes, with a reason).
pub fn settable_status_parser() -> impl TypedValueParser<Value = Status> {
    names(&Status::SETTABLE, |s| s.as_str(), STATUS_ALIASES)
}

const STATUS_ALIASES: &[(&str, &str)] = &[("in-progress", "in_progress")];

/// `--type` of a task.
pub fn kind_parser() -> impl TypedValueParser<Value = Kind> {
    names(&Kind::ALL, |k| k.as_str(), &[])
}

/// `--type` of a dependency.
pub fn dep_kind_parser() -> impl TypedValueParser<Value = DepKind> {
    names(&DepKind::ALL, |k| k.as_str(), &[])
}
