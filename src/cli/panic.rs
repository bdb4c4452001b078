//! A panic is a bug in mneme, never the user's fault: it is reported as one line with where it
//! happened and exit code 70 (EX_SOFTWARE), not as a backtrace.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;

use mneme::model::base::text::escape_line;

use crate::cli::error::{CliError, Code};

/// The exit code of an internal error, as sysexits.h's EX_SOFTWARE.
pub const EXIT_INTERNAL: u8 = 70;

/// What the last panic said and where, kept by the hook for the error that reports it.
static LAST: Mutex<Option<String>> = Mutex::new(None);

/// Replaces the default hook, which prints a backtrace, with one that only keeps the message.
pub fn install() {
    panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("(no message)");
        let place = info
            .location()
            .map(|l| format!(" at {}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_default();
        let text = format!("{}{place}", escape_line(message));
        if let Ok(mut last) = LAST.lock() {
            *last = Some(text);
        }
    }));
}

/// Runs `f`; a panic inside it becomes an internal error.
pub fn catch<T>(f: impl FnOnce() -> Result<T, CliError>) -> Result<T, CliError> {
    panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| Err(internal()))
}

fn internal() -> CliError {
    let what = LAST
        .lock()
        .ok()
        .and_then(|mut last| last.take())
        .unwrap_or_else(|| "a panic".to_owned());
    CliError::new(Code::Internal, format!("internal error: {what}")).with_hint(
        "this is a bug in mneme; please report it with the command you ran and the version \
         (`mneme --version`). `mneme check` says whether the ledger's files are readable",
    )
}
