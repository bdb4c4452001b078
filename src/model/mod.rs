//! The pure core: values and functions over them. Nothing here touches the filesystem, git, the
//! clock, the environment or the process; callers pass in what those would give.

pub mod agents_md;
pub mod apply;
pub mod audit;
pub mod briefing;
pub mod change;
pub mod config;
pub mod decision;
pub mod drift;
pub mod evidence;
pub mod factdiff;
pub mod facts;
pub mod fields;
pub mod ids;
pub mod interchange;
pub mod ledger;
pub mod lint;
pub mod merge;
pub mod net;
pub mod paths;
pub mod plan;
pub mod preview;
pub mod proposal;
pub mod queue;
pub mod runtimes;
pub mod secrets;
pub mod signing;
pub mod standing;
pub mod summary;
pub mod tasks;
pub mod templates;
pub mod text;
pub mod textdiff;
pub mod time;
pub mod trust;
pub mod views;
