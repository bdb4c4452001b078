//! mneme: durable, human-approved memory for AI coding agents, kept as plain files in git.
//!
//! Layers, each depending only on those above it (see docs/architecture.md):
//! - [`model`]: pure values and functions: fact files, proposals, planning, apply, the
//!   fact-level audit, lint rules, tasks, JSON views. No filesystem, git, clock or environment.
//! - [`store`]: the ledger's files on disk: loading, locks, atomic writes.
//! - [`git`]: the repository through gix: discovery, decision commits, history.
//! - [`ops`]: what a verb does, over one workspace: review, propose, check, tasks.

pub mod error;
pub mod git;
pub mod model;
pub mod ops;
pub mod store;

pub use error::{Error, Result};
