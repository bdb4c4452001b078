//! Agents: what the agent runtimes are given and how. The briefing an agent reads, each
//! runtime's hooks and settings, whether a runtime will run them, the AGENTS.md block, and the
//! files `init` writes.
//!
//! Uses `views`, `facts` and `base`.

pub mod agents_md;
pub mod briefing;
pub mod runtimes;
pub mod templates;
pub mod trust;
