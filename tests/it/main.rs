//! One integration-test binary: every module runs the real `mneme` binary against real
//! temporary git repositories (helpers in `common`).

#[path = "../skips/mod.rs"]
mod skips;

mod agents;
mod architecture;
mod check;
mod ci;
mod common;
mod context;
mod corpus;
mod docs;
mod drift;
mod forge;
mod gitlab;
mod hostile;
mod hostile_files;
mod init;
mod install;
mod interactive;
mod interchange;
mod ledger_index;
mod lifecycle;
mod mcp;
mod merges;
mod output;
mod pr;
mod properties;
mod propose;
mod queue;
mod remote;
mod review;
mod roundtrip;
mod rules;
mod signing;
mod standin;
mod task_index;
mod tasks;
mod trust;
