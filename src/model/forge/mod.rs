//! Review on the forge: the commands a reviewer comments on a pull or merge request
//! (`/mneme approve …`), and the forges' events and API answers that say who commented, on
//! what, and whether they may decide. Pure: every value comes from a payload, which is
//! untrusted input. [`gate`] holds the one rule; [`github`] and [`gitlab`] read each forge's
//! shapes into it.
//!
//! Uses `provenance` (the forge reviewer a decision records), `proposals` (the operation
//! numbers a `drop` names) and `base`.

pub mod command;
pub mod gate;
pub mod github;
pub mod gitlab;
pub mod gitlab_ci;
