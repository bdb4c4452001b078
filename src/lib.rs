//! mneme: durable, human-approved memory for AI coding agents, kept as plain files in git.
//!
//! Layers, each depending only on those listed before it (docs/architecture.md):
//! - [`model`]: pure values and functions: fact files, proposals, planning, apply, the
//!   fact-level audit, lint rules, tasks, JSON views. No filesystem, git, clock or environment.
//! - [`store`]: the ledger's files on disk: loading, locks, atomic writes.
//! - [`git`]: the repository through gix: discovery, decision commits, hooks, history.
//! - [`ops`]: what each verb does, over one workspace.
//!
//! Each layer has its own error type that keeps its causes; the CLI renders them once.

// Untrusted text is never cut at a byte offset: a cut inside a character panics. Text syntax is
// scanned on bytes or split with `split_once`, `strip_prefix` and `get` (docs/architecture.md).
#![deny(clippy::string_slice)]

#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod git;
pub mod model;
pub mod ops;
pub mod store;

/// An error and its sources, joined by `: `, as one line of text.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        // `#[error(transparent)]` wrappers repeat their source's text.
        if !text.ends_with(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}
