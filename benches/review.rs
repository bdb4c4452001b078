//! Reviewing a 50-statement import to the end, in a real terminal (tmux), by script: once
//! operation by operation in one proposal (`o`, then `y` or `d` for each, then `y`), once as 50
//! proposals of one statement each (`--split=statement`, `y` each: 50 commits). Prints the
//! median wall time of each, from the start of `mneme review` to its exit, with the time spent
//! waiting for each screen (tmux polling every 2 ms) included.

// A benchmark reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{mneme, release_binary};

const STATEMENTS: usize = 50;
const RUNS: usize = 3;

struct Tmux(String);

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .env("LC_ALL", "C.UTF-8")
            .args(["-u", "-L", &self.0])
            .args(args)
            .output()
            .expect("tmux")
    }

    fn wait_for(&self, needle: &str, count: usize) {
        let start = Instant::now();
        loop {
            let screen = self.cmd(&["capture-pane", "-p", "-J", "-S", "-100000", "-t", "bench"]);
            if String::from_utf8_lossy(&screen.stdout)
                .matches(needle)
                .count()
                >= count
            {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "timed out on {needle}"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn key(&self, key: &str) {
        assert!(self
            .cmd(&["send-keys", "-t", "bench", key])
            .status
            .success());
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

/// A CLAUDE.md of `STATEMENTS` statements in several scripts.
fn notes() -> String {
    let words = [
        "retries back off",
        "池の大きさは八",
        "连接必须关闭",
        "ключи не повторяются",
        "المهلة ثلاثون ثانية",
    ];
    let mut text = String::from("# Notes\n\n");
    for i in 0..STATEMENTS {
        text.push_str(&format!(
            "- Statement {i}: {} (case {i}).\n",
            words[i % words.len()]
        ));
    }
    text
}

/// One review in tmux of what `import` proposed; the wall time to the end.
fn review(bin: &Path, root: &Path, run: usize, keys: &dyn Fn(&Tmux)) -> Duration {
    let tmux = Tmux(format!("mneme-bench-review-{}-{run}", std::process::id()));
    let script = format!(
        "cd '{}' && NO_COLOR=1 '{}' review; echo EXIT=$?; sleep 60",
        root.display(),
        bin.display()
    );
    let start = Instant::now();
    let started = tmux.cmd(&[
        "new-session",
        "-d",
        "-s",
        "bench",
        "-x",
        "200",
        "-y",
        "60",
        &script,
    ]);
    assert!(started.status.success());
    keys(&tmux);
    tmux.wait_for("EXIT=0", 1);
    start.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    if Command::new("tmux").arg("-V").output().is_err() {
        println!("review: tmux is not installed; skipped");
        return;
    }
    let bin = release_binary();
    let mut by_operation = Vec::new();
    let mut by_proposal = Vec::new();
    for run in 0..RUNS {
        let dir = common::repo(&bin);
        let root = dir.path();
        std::fs::write(root.join("CLAUDE.md"), notes()).expect("write");
        mneme(&bin, root, &["import", "claude", "CLAUDE.md"]);
        by_operation.push(review(&bin, root, run, &|t| {
            t.wait_for("Approve this proposal [", 1);
            t.key("o");
            for i in 0..STATEMENTS {
                t.wait_for(&format!("Operation {} of {STATEMENTS}:", i + 1), 1);
                t.key(if i % 10 == 9 { "d" } else { "y" });
            }
            t.wait_for("Approve this proposal [", 2);
            t.key("y");
        }));

        let dir = common::repo(&bin);
        let root = dir.path();
        std::fs::write(root.join("CLAUDE.md"), notes()).expect("write");
        mneme(
            &bin,
            root,
            &["import", "claude", "CLAUDE.md", "--split=statement"],
        );
        by_proposal.push(review(&bin, root, run + RUNS, &|t| {
            for i in 0..STATEMENTS {
                t.wait_for(&format!("({} of {STATEMENTS})", i + 1), 1);
                t.wait_for("Approve this proposal [", i + 1);
                t.key("y");
            }
        }));
    }
    let per = |d: Duration| d.as_secs_f64() * 1000.0 / STATEMENTS as f64;
    let a = median(by_operation);
    let b = median(by_proposal);
    println!(
        "review: {STATEMENTS}-operation import, operation by operation (45 kept, 5 dropped, one commit): {:.2} s, {:.1} ms a statement",
        a.as_secs_f64(),
        per(a)
    );
    println!(
        "review: {STATEMENTS} one-statement proposals, y each ({STATEMENTS} commits): {:.2} s, {:.1} ms a statement",
        b.as_secs_f64(),
        per(b)
    );
}
