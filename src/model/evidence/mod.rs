//! Evidence: the references a fact cites (a file and lines, a commit, a URL), what a cited file
//! shows a reviewer, and drift: cited code that changed after the fact was last vouched for.
//!
//! Uses `facts` and `base`.

pub mod cited;
pub mod drift;
pub mod refs;
