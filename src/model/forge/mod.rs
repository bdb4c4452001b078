//! Review on the forge: the commands a reviewer comments on a pull request (`/mneme approve …`),
//! and the forge's event and API answers that say who commented, on what, and whether they may
//! decide. Pure: every value comes from a payload, which is untrusted input.
//!
//! Uses `provenance` (the forge reviewer a decision records), `proposals` (the operation
//! numbers a `drop` names) and `base`.

pub mod command;
pub mod event;
