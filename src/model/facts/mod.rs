//! Facts: the fact files parsed and rendered losslessly, the loaded ledger and its lookups, what
//! a stored field may hold, how each fact stands for a reader, a change to one fact, and the
//! starter files `mneme init` writes.
//!
//! Uses `base`.

pub mod change;
pub mod fields;
pub mod file;
pub mod ledger;
pub mod standing;
pub mod starter;
