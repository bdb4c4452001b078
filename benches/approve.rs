//! Approve + commit on a repository with 50,000 files (`MNEME_BENCH_FILES` to change it),
//! against `git add` + `git commit` of the same kind of change, side by side. Run with
//! `cargo bench --bench approve`; prints medians and their ratio.

// A benchmark reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod common;

use std::process::Command;
use std::time::Instant;

use common::{git, mneme, release_binary, report};

const RUNS: usize = 21;

fn main() {
    let files: usize = std::env::var("MNEME_BENCH_FILES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(50_000);
    let bin = release_binary();
    let dir = common::repo(&bin);
    let root = dir.path();
    for i in 0..files {
        let sub = root.join(format!("src/m{:03}", i % 500));
        if i < 500 {
            std::fs::create_dir_all(&sub).expect("mkdir");
        }
        std::fs::write(sub.join(format!("f{i}.rs")), format!("// file {i}\n")).expect("write");
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "many files"]);
    println!("repository: {files} files + ledger");

    // Side by side: one approval and one plain commit per round, so a busy machine slows both.
    let mut approve = Vec::new();
    let mut plain = Vec::new();
    // Git's side changes a file outside the ledger: a fact added by hand is refused by the
    // commit-msg hook `init` installs, which still runs here, as in any clone.
    let path = root.join("notes.md");
    std::fs::write(&path, "# Notes\n").expect("write");
    git(root, &["add", "notes.md"]);
    git(root, &["commit", "-q", "-m", "notes"]);
    for i in 0..RUNS {
        let out = mneme(
            &bin,
            root,
            &[
                "propose",
                "--json",
                "add",
                "-f",
                "pitfalls",
                &format!("Benchmark fact {i}."),
                "--reason",
                "bench",
            ],
        );
        let v: serde_json::Value = serde_json::from_slice(&out).expect("json");
        let id = v["id"].as_str().expect("id").to_owned();
        let start = Instant::now();
        mneme(&bin, root, &["review", "approve", &id]);
        approve.push(start.elapsed());

        let mut text = std::fs::read_to_string(&path).expect("read");
        text.push_str(&format!("- Plain git note {i}.\n"));
        std::fs::write(&path, text).expect("write");
        let start = Instant::now();
        git(root, &["add", "notes.md"]);
        git(root, &["commit", "-q", "-m", &format!("plain {i}")]);
        plain.push(start.elapsed());
    }
    let approve = report("mneme review approve (one commit)", approve);
    let plain = report("git add + git commit", plain);
    println!(
        "approve / git: {:.2}",
        approve.as_secs_f64() / plain.as_secs_f64()
    );
    let status = Command::new("git")
        .current_dir(root)
        .args(["status", "--porcelain"])
        .output()
        .expect("git");
    assert!(status.stdout.is_empty(), "work tree clean after both");
}
