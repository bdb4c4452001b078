//! Whole-process benchmarks of the `mneme` binary on realistic ledgers.
//!
//! Run with `cargo bench --bench cli`. Prints the median, min and max wall time of each verb and
//! the highest peak resident memory among its runs. Not a test: nothing here asserts a time.

// A benchmark reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod common;

use common::{bench, release_binary, seed_ledger};

const RUNS: usize = 60;

fn main() {
    let bin = release_binary();
    let dir = common::repo(&bin);
    let root = dir.path();
    let lines = seed_ledger(root, 800);
    println!("ledger: {lines} lines of facts, mneme {}", bin.display());

    let mut i = 0;
    bench("propose add (800-line ledger)", RUNS, &bin, root, || {
        i += 1;
        vec![
            "propose".into(),
            "add".into(),
            "--file".into(),
            "pitfalls".into(),
            format!(
                "Benchmark proposal number {i} about caching layer {}.",
                i * 7919
            ),
            "--reason".into(),
            "benchmark".into(),
        ]
    });
    bench(
        "context (800-line ledger, 60 pending)",
        RUNS,
        &bin,
        root,
        || vec!["context".into()],
    );
    bench("context --json", RUNS, &bin, root, || {
        vec!["context".into(), "--json".into()]
    });

    // What an agent runtime runs at every session start, and at every prompt (nothing compacted).
    common::seed_tasks(root, 10_000);
    for (runtime, event) in [("claude", "SessionStart"), ("codex", "UserPromptSubmit")] {
        bench(
            &format!("context --for {runtime} --event {event} (+10,000 tasks)"),
            RUNS,
            &bin,
            root,
            || {
                ["context", "--for", runtime, "--event", event]
                    .map(String::from)
                    .to_vec()
            },
        );
    }
}
