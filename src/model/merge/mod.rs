//! Text merges: the three-way merge of line sequences and the merge of a fact file by fact id
//! (the git merge driver).
//!
//! Uses `facts` and `base`.

pub mod diff3;
pub mod fact_file;
