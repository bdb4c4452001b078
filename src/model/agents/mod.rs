//! Agents: what the agent runtimes are given and how. The briefing an agent reads, each
//! runtime's hooks and settings, whether a runtime will run them, the AGENTS.md block, the
//! files `init` writes, which facts are about which files, and the rule files the ledger
//! compiles into.
//!
//! Uses `views`, `evidence` (the files a fact cites), `facts` and `base`.

pub mod agents_md;
pub mod briefing;
pub mod rules;
pub mod runtimes;
pub mod scope;
pub mod templates;
pub mod trust;
