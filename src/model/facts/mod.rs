//! Facts: the fact files parsed and rendered losslessly, the loaded ledger and its lookups, what
//! a stored field may hold, how each fact stands for a reader, and a change to one fact.
//!
//! Uses `base`.

pub mod change;
pub mod fields;
pub mod file;
pub mod ledger;
pub mod standing;
