//! The `mneme` binary: everything lives in `cli` and the verbs in `commands`.

mod cli;
mod commands;

fn main() -> std::process::ExitCode {
    cli::main()
}
