//! `ready` and `list` with 10,000 tasks, as whole processes. Run with `cargo bench --bench tasks`.

// A benchmark reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod common;

use std::time::Instant;

use common::{mneme, release_binary, report};

const TASKS: usize = 10_000;
const RUNS: usize = 31;
const KINDS: [&str; 5] = ["task", "bug", "feature", "chore", "epic"];

fn main() {
    let bin = release_binary();
    let dir = common::repo(&bin);
    let root = dir.path();
    let tasks = root.join(".ledger/tasks");
    std::fs::create_dir_all(&tasks).expect("mkdir");
    let statuses = [
        "open",
        "open",
        "open",
        "in_progress",
        "blocked",
        "deferred",
        "closed",
        "closed",
    ];
    for i in 0..TASKS {
        let id = format!("t-{i:05x}");
        // Every third task depends on an earlier one; every tenth has a parent.
        let mut deps = Vec::new();
        if i % 3 == 0 && i > 0 {
            deps.push(serde_json::json!({"type": "blocks", "id": format!("t-{:05x}", i / 2)}));
        }
        if i % 10 == 0 && i > 0 {
            deps.push(
                serde_json::json!({"type": "parent-child", "id": format!("t-{:05x}", i / 7)}),
            );
        }
        let task = serde_json::json!({
            "id": id,
            "title": format!("Task number {i}: refactor module {}", i % 97),
            "description": "A description of a realistic length, explaining the work in one or two sentences.",
            "type": KINDS[i % KINDS.len()],
            "priority": i % 5,
            "status": statuses[i % statuses.len()],
            "assignee": if i % 4 == 0 { serde_json::json!("claude") } else { serde_json::Value::Null },
            "labels": ["backend"],
            "deps": deps,
            "notes": [{"at": "2026-11-22T10:00:00.000000Z", "author": "claude", "text": "Started."}],
            "created_at": format!("2026-11-{:02}T10:00:00.000000Z", 1 + i % 28),
            "updated_at": "2026-11-22T10:00:00.000000Z",
            "closed_at": null,
            "close_reason": null,
        });
        let mut text = serde_json::to_string_pretty(&task).expect("json");
        text.push('\n');
        std::fs::write(tasks.join(format!("{id}.json")), text).expect("write");
    }
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
