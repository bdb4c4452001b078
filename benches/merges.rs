//! How often two branches that each approve one new fact into the same file conflict when
//! merged by plain git, without mneme's merge driver — as a forge (GitHub, GitLab) merges pull
//! requests. Prints the conflict rate for files that already hold K facts.

// A benchmark reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod common;

use std::path::Path;
use std::process::Command;

use common::{git, mneme, release_binary};

const TRIALS: usize = 40;

fn approve_one(bin: &Path, root: &Path, text: &str) {
    mneme(
        bin,
        root,
        &[
            "propose",
            "add",
            "-f",
            "architecture",
            text,
            "--reason",
            "bench",
        ],
    );
    mneme(bin, root, &["review", "approve", "--all"]);
}

/// Whether a plain `git merge` of two branches, each approving one fact, conflicts.
fn conflicts(bin: &Path, facts: usize, trial: usize) -> bool {
    let dir = common::repo(bin);
    let root = dir.path();
    // What a forge does: no merge driver, whatever .gitattributes asks for.
    git(root, &["config", "--remove-section", "merge.mneme"]);
    for i in 0..facts {
        approve_one(
            bin,
            root,
            &format!(
                "Base fact {i} of trial {trial} about part {}.",
                i * 7 + trial
            ),
        );
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base", "--allow-empty"]);
    for side in ["a", "b"] {
        git(root, &["checkout", "-q", "-B", side, "main"]);
        approve_one(
            bin,
            root,
            &format!("Branch {side} of trial {trial} adds a fact."),
        );
    }
    git(root, &["checkout", "-q", "a"]);
    !Command::new("git")
        .current_dir(root)
        .args(["merge", "-q", "--no-edit", "b"])
        .output()
        .expect("git merge")
        .status
        .success()
}

fn main() {
    let bin = release_binary();
    println!("plain git merge of two branches that each approve one fact into one file:");
    for facts in [0, 1, 5, 20, 50] {
        let n = (0..TRIALS).filter(|&t| conflicts(&bin, facts, t)).count();
        println!(
            "  file with {facts:>2} facts: {n:>2}/{TRIALS} merges conflict ({:.0}%)",
            n as f64 * 100.0 / TRIALS as f64
        );
    }
}
