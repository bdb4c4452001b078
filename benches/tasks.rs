//! The task layer as whole processes, with 10 and with 10,000 tasks: `ready` and `list`, and the
//! verbs that touch one task (`show`, `update`, `close`, `create`, `dep add`), whose time and
//! peak memory should not grow with the number of tasks. Run with `cargo bench --bench tasks`.

// A benchmark reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod common;

use std::cell::Cell;

use common::{args, bench, release_binary};

const SIZES: [usize; 2] = [10, 10_000];
const RUNS: usize = 21;

fn main() {
    let bin = release_binary();
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
