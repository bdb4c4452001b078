//! mneme: durable, human-approved memory for AI coding agents, kept as plain files in git.
//!
//! The pure core parses and renders fact files ([`facts`]), plans proposals ([`proposal`]) and
//! compares statements ([`text`]); the shell ([`store`], [`repo`]) reads and writes files and
//! talks to git.

pub mod agents_md;
pub mod apply;
pub mod check;
pub mod config;
pub mod decision;
pub mod diff;
pub mod error;
pub mod facts;
pub mod git;
pub mod history;
pub mod ids;
pub mod ledger;
pub mod merge;
pub mod pr;
pub mod proposal;
pub mod repo;
pub mod review;
pub mod store;
pub mod tasks;
pub mod taskstore;
pub mod templates;
pub mod text;
pub mod time;
pub mod verify;
pub mod views;

pub use error::{Error, Result};
