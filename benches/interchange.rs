//! Whole-process benchmarks of `export` and `import` on an 800-line ledger.
//!
//! Run with `cargo bench --bench interchange`. Prints the median, min and max wall time and the
//! peak resident memory of each. Not a test: nothing here asserts a time.

// A benchmark reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod common;

use common::{args, bench, release_binary, seed_ledger};

const RUNS: usize = 20;
/// Statements in the notes file an import reads.
const NOTES: usize = 2_000;

fn main() {
    let bin = release_binary();
    let dir = common::repo(&bin);
    let root = dir.path();
    let lines = seed_ledger(root, 800);
    println!("ledger: {lines} lines of facts, mneme {}", bin.display());

    bench("export --format mif --out", RUNS, &bin, root, || {
        args(&["export", "--format", "mif", "--out", "mif"])
    });
    bench("export --format compiled --out", RUNS, &bin, root, || {
        args(&["export", "--format", "compiled", "--out", "compiled"])
    });
    bench("export --format records", RUNS, &bin, root, || {
        args(&["export", "--format", "records"])
    });
    bench("export --format context-pack", RUNS, &bin, root, || {
        args(&["export", "--format", "context-pack"])
    });
    bench(
        "import mif --dry-run (all duplicates)",
        RUNS,
        &bin,
        root,
        || args(&["import", "mif", "mif", "--dry-run"]),
    );
    let mut notes = String::from("# Notes\n\n");
    for n in 0..NOTES {
        notes.push_str(&format!(
            "- Service {n} keeps its queue depth under {} messages at peak.\n",
            n * 31 % 977
        ));
    }
    std::fs::write(root.join("NOTES.md"), notes).expect("write the notes");
    bench(
        &format!("import notes --dry-run ({NOTES} statements)"),
        RUNS,
        &bin,
        root,
        || args(&["import", "notes", "NOTES.md", "--dry-run"]),
    );
}
