//! The `mneme` binary: the verbs and their dispatch live in `commands`, what they share with
//! a person in `cli`.
// Untrusted text is never cut at a byte offset, as in the library (src/lib.rs).
#![deny(clippy::string_slice)]

mod cli;
mod commands;
mod mcp;

#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    commands::main()
}
