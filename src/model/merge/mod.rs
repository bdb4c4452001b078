//! Text merges and diffs: the three-way merge of line sequences, the merge of a fact file by
//! fact id (the git merge driver), and line diffs with word emphasis for display.
//!
//! Uses `facts` and `base`.

pub mod diff3;
pub mod fact_file;
pub mod textdiff;
