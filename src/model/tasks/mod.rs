//! Tasks: the task model and its transitions, remote claims and their leases, and the
//! three-way merge of a task file.
//!
//! Uses `merge`, `facts` and `base`.

pub mod claims;
pub mod merge;
pub mod task;
