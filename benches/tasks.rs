//! The task layer as whole processes, with 10 and with 10,000 tasks. Run with
//! `cargo bench --bench tasks`, or name the parts: `cargo bench --bench tasks -- context br`.
//!
//! - `verbs`: `ready` and `list`, and the verbs that touch one task (`show`, `update`, `close`,
//!   `create`, `dep add`), whose time and peak memory should not grow with the number of tasks.
//! - `context`: `context` and `context --for claude` with an 800-line ledger and 10,000 tasks,
//!   side by side with the same ledger and no tasks.
//! - `br`: `ready --json` and `list --json` side by side with beads_rust's `br` on the same
//!   10,000-task graph (imported from `.beads/issues.jsonl`). br is not built here: install it
//!   from its source with the nightly toolchain it asks for,
//!   `cargo +nightly install beads_rust --version 0.2.15 --locked --root <dir>`, and point
//!   `MNEME_BENCH_BR` at `<dir>/bin/br` (else `br` on the PATH is used, else the part is skipped).

// A benchmark reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod common;

use std::cell::Cell;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{args, bench, release_binary, side_by_side};

const SIZES: [usize; 2] = [10, 10_000];
const RUNS: usize = 21;

fn main() {
    let wanted = common::wanted_parts();
    let bin = release_binary();
    if wanted("verbs") {
        verbs(&bin);
    }
    if wanted("context") {
        context(&bin);
    }
    if wanted("br") {
        beside_br(&bin);
    }
}

fn verbs(bin: &Path) {
    let bin = bin.to_owned();
    for tasks in SIZES {
        let dir = common::repo(&bin);
        let root = dir.path();
        common::seed_tasks(root, tasks);
        println!("{tasks} tasks");
        for (name, words) in [
            ("ready --json", &["ready", "--json"][..]),
            ("list --json", &["list", "--json"]),
            ("show", &["show", "t-00001"]),
            (
                "update --notes",
                &["update", "t-00002", "--notes", "bench note"],
            ),
            (
                "update --status open",
                &["update", "t-00002", "--status", "open"],
            ),
            (
                "update --claim",
                &["update", "t-00001", "--claim", "--agent", "bench"],
            ),
        ] {
            bench(&format!("{name} ({tasks})"), RUNS, &bin, root, || {
                args(words)
            });
        }
        // Each run closes another open task (the seed leaves `i % 8 < 3` open), newest first.
        let mut open: Vec<usize> = (0..tasks).filter(|i| i % 8 < 3).collect();
        bench(
            &format!("close ({tasks})"),
            RUNS.min(open.len() / 2),
            &bin,
            root,
            || {
                let i = open.pop().expect("an open task");
                args(&["close", &format!("t-{i:05x}"), "--reason", "bench"])
            },
        );
        bench(&format!("create ({tasks})"), RUNS, &bin, root, || {
            args(&["create", "A task made by the bench"])
        });
        // A blocking dependency of a later task on an earlier one: the cycle check walks the
        // earlier one's dependencies, which only ever point further back.
        let k = Cell::new(0usize);
        bench(
            &format!("dep add ({tasks})"),
            RUNS.min(tasks / 3),
            &bin,
            root,
            || {
                k.set(k.get() + 1);
                let (a, b) = (tasks - 1 - k.get(), k.get());
                args(&["dep", "add", &format!("t-{a:05x}"), &format!("t-{b:05x}")])
            },
        );
    }
}

/// `context` with an 800-line ledger and 10,000 tasks against the same ledger without tasks.
fn context(bin: &Path) {
    let lone = ledger_repo(bin);
    let busy = ledger_repo(bin);
    common::seed_tasks(busy.path(), 10_000);
    println!("\n== context: 800-line ledger, no tasks against 10,000 tasks");
    for words in [&["context"][..], &["context", "--for", "claude"]] {
        let run = args(words);
        // The first run builds the task index; the hook's runs after it go by the index.
        common::measure(bin, busy.path(), &run);
        std::thread::sleep(Duration::from_millis(200));
        let name = words.join(" ");
        side_by_side(
            RUNS,
            (&format!("{name} (10,000 tasks)"), bin, busy.path(), &run),
            (&format!("{name} (no tasks)"), bin, lone.path(), &run),
        );
    }
    // After a task changed, the next run reads that file again and rewrites the index.
    let mut n = 0;
    bench(
        "context after one update (10,000)",
        RUNS,
        bin,
        busy.path(),
        || {
            n += 1;
            let note = format!("note {n}");
            common::mneme(bin, busy.path(), &["update", "t-00002", "--notes", &note]);
            args(&["context"])
        },
    );
}

/// A repository with an 800-line ledger, committed.
fn ledger_repo(bin: &Path) -> tempfile::TempDir {
    let dir = common::repo(bin);
    common::seed_ledger(dir.path(), 800);
    common::git(dir.path(), &["add", "-A"]);
    common::git(dir.path(), &["commit", "-q", "-m", "ledger"]);
    dir
}

/// `ready --json` and `list --json` beside br on the same 10,000-task graph.
fn beside_br(bin: &Path) {
    let br = std::env::var_os("MNEME_BENCH_BR")
        .map(PathBuf::from)
        .or_else(|| which("br"));
    let Some(br) = br else {
        println!(
            "\n== br: skipped (set MNEME_BENCH_BR to beads_rust's br, see the top of this file)"
        );
        return;
    };
    let dir = common::repo(bin);
    let root = dir.path();
    common::seed_tasks(root, 10_000);
    to_beads(root);
    let brun = |words: &[&str]| common::run(&br, root, words, &[]);
    brun(&["init", "--prefix", "t"]);
    brun(&["sync", "--import-only"]);
    println!("\n== br: the same 10,000-task graph ({})", br.display());
    for (ours, theirs) in [
        (
            &["ready", "--json"][..],
            &["ready", "--json", "--limit", "0"][..],
        ),
        (&["list", "--json"], &["list", "--json", "--limit", "0"]),
    ] {
        let count = |bytes: Vec<u8>| -> usize {
            let v: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
            v.as_array()
                .or_else(|| v["issues"].as_array())
                .map_or(0, Vec::len)
        };
        println!(
            "{:<40} mneme {} tasks, br {} issues",
            ours.join(" "),
            count(common::mneme(bin, root, ours)),
            count(brun(theirs))
        );
        side_by_side(
            RUNS,
            (&format!("mneme {}", ours.join(" ")), bin, root, &args(ours)),
            (
                &format!("br {}", theirs.join(" ")),
                &br,
                root,
                &args(theirs),
            ),
        );
    }
}

/// Writes the tasks of `.ledger/tasks/` as beads issues to `.beads/issues.jsonl`.
fn to_beads(root: &Path) {
    let mut lines = String::new();
    let mut names: Vec<_> = std::fs::read_dir(root.join(".ledger/tasks"))
        .expect("tasks")
        .map(|e| e.expect("entry").path())
        .collect();
    names.sort();
    for path in names {
        let t: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("task");
        let id = t["id"].as_str().expect("id");
        let deps: Vec<_> = t["deps"]
            .as_array()
            .expect("deps")
            .iter()
            .map(|d| {
                serde_json::json!({
                    "issue_id": id, "depends_on_id": d["id"], "type": d["type"],
                    "created_at": t["created_at"],
                })
            })
            .collect();
        // br refuses an issue updated or closed before it was created; the seed's times are
        // not that careful.
        let created = &t["created_at"];
        let closed = (t["status"] == "closed").then_some(created);
        let issue = serde_json::json!({
            "id": id, "title": t["title"], "description": t["description"],
            "status": t["status"], "priority": t["priority"], "issue_type": t["type"],
            "assignee": t["assignee"], "created_at": created, "updated_at": created,
            "closed_at": closed, "labels": t["labels"], "dependencies": deps,
        });
        lines.push_str(&issue.to_string());
        lines.push('\n');
    }
    std::fs::create_dir_all(root.join(".beads")).expect("mkdir");
    std::fs::write(root.join(".beads/issues.jsonl"), lines).expect("write");
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}
