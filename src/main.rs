//! The `mneme` binary: everything lives in `cli` and the verbs in `commands`.

mod cli;
mod commands;
mod mcp;

fn main() -> std::process::ExitCode {
    cli::main()
}
