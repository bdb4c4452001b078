//! Approve + commit on a repository with 50,000 files, against `git add` + `git commit` of the
//! same kind of change. Run with `cargo bench --bench approve`; prints medians.

// A benchmark reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod common;

use std::process::Command;
use std::time::Instant;

use common::{git, mneme, release_binary, report};

const FILES: usize = 50_000;
const RUNS: usize = 21;

fn main() {
    let bin = release_binary();
    let dir = common::repo(&bin);
    let root = dir.path();
    for i in 0..FILES {
        let sub = root.join(format!("src/m{:03}", i % 500));
        if i < 500 {
            std::fs::create_dir_all(&sub).expect("mkdir");
        }
        std::fs::write(sub.join(format!("f{i}.rs")), format!("// file {i}\n")).expect("write");
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "50k files"]);
    println!("repository: {FILES} files + ledger");

    let mut approve = Vec::new();
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
    }

    let mut plain = Vec::new();
    let path = root.join(".ledger/facts/architecture.md");
    for i in 0..RUNS {
        let mut text = std::fs::read_to_string(&path).expect("read");
        text.push_str(&format!("- **f-git{i}** Plain git fact {i}.\n"));
        std::fs::write(&path, text).expect("write");
        let start = Instant::now();
        git(root, &["add", ".ledger/facts/architecture.md"]);
        git(root, &["commit", "-q", "-m", &format!("plain {i}")]);
        plain.push(start.elapsed());
    }
    report("mneme review approve (one commit)", approve);
    report("git add + git commit", plain);
    let status = Command::new("git")
        .current_dir(root)
        .args(["status", "--porcelain"])
        .output()
        .expect("git");
    assert!(status.stdout.is_empty(), "work tree clean after both");
}
