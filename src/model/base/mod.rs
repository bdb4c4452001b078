//! The shared base every domain stands on: UTC time, GitLab's Code Quality report, the binary codec of mneme's indexes, every
//! path mneme uses, `.ledger/config.yaml`, hash ids, and the text rules (normalising, escaping,
//! display width), line diffs, and which code points hide something (from the Unicode
//! Character Database).
//!
//! Uses nothing else in the model.

pub mod code_quality;
pub mod codec;
pub mod config;
pub mod hidden;
pub mod ids;
pub mod paths;
pub mod text;
pub mod textdiff;
pub mod time;
// Generated tables of code points (its own test writes it); kept as written.
#[rustfmt::skip]
mod ucd;
