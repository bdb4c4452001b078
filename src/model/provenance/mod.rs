//! Provenance: how an approval is proven. Decision commit messages and their trailers, decision
//! records in the tree, the fact-level audit of a commit against its decision, `verify`'s rules
//! over a range, the net change and summaries behind `diff`, signatures, and undoing an approval.
//!
//! Uses `proposals`, `evidence` (the drifted citations `verify` annotates), `facts` and `base`.

pub mod annotations;
pub mod audit;
pub mod decision;
pub mod factdiff;
pub mod net;
pub mod record;
pub mod signing;
pub mod summary;
pub mod undo;
