//! Proposals: the files agents write, planning one from a request, applying one to the ledger,
//! the preview a reviewer sees, the pending queue, and the secrets no proposal may carry.
//!
//! Uses `facts` and `base`.

pub mod apply;
pub mod plan;
pub mod preview;
pub mod proposal;
pub mod queue;
pub mod secrets;
