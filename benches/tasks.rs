//! `ready` and `list` with 10,000 tasks, as whole processes. Run with `cargo bench --bench tasks`.

// A benchmark reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod common;

use std::time::Instant;

use common::{mneme, release_binary, report};

const TASKS: usize = 10_000;
const RUNS: usize = 31;

fn main() {
    let bin = release_binary();
    let dir = common::repo(&bin);
    let root = dir.path();
    common::seed_tasks(root, TASKS);
    println!("{TASKS} tasks");
    for (name, args) in [
        ("ready", &["ready"][..]),
        ("ready --json", &["ready", "--json"]),
        ("list", &["list"]),
        ("list --json", &["list", "--json"]),
    ] {
        let times = (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                mneme(&bin, root, args);
                start.elapsed()
            })
            .collect();
        report(name, times);
    }
}
