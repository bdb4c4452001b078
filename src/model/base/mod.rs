//! The shared base every domain stands on: UTC time, the binary codec of mneme's indexes, every
//! path mneme uses, `.ledger/config.yaml`, hash ids, and the text rules (normalising, escaping,
//! display width).
//!
//! Uses nothing else in the model.

pub mod codec;
pub mod config;
pub mod ids;
pub mod paths;
pub mod text;
pub mod time;
