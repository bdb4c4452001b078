//! The command line's own pieces: output and error rendering.

pub mod ui;
