//! The pure core: values and functions over them. Nothing here touches the filesystem, git, the
//! clock, the environment or the process; callers pass in what those would give.
//!
//! It is grouped by domain, one folder (or file) each. A domain uses only those below it; the
//! architecture test (`tests/it/architecture.rs`) holds the order, lowest first:
//!
//! - [`base`]: time, codec, paths, config, ids, text;
//! - [`facts`]: fact files, the ledger, fields, standing, changes;
//! - [`evidence`], [`merge`], [`proposals`]: citations and drift; merges and diffs; proposals;
//! - [`provenance`]: decisions, records, the audit, signatures;
//! - [`tasks`]: tasks, claims, their merge;
//! - [`lint`]: `check`'s rules; [`views`]: the `--json` shapes;
//! - [`agents`]: what the runtimes are given; [`interchange`]: other memory formats.

pub mod agents;
pub mod base;
pub mod evidence;
pub mod facts;
pub mod forge;
pub mod interchange;
pub mod lint;
pub mod merge;
pub mod proposals;
pub mod provenance;
pub mod tasks;
pub mod views;
