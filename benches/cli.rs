//! Whole-process benchmarks of the `mneme` binary on realistic ledgers.
//!
//! Run with `cargo bench --bench cli`. Prints the median, min and max wall time of each verb and
//! the highest peak resident memory among its runs. Not a test: nothing here asserts a time.

// A benchmark reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::release_binary;

const RUNS: usize = 60;

fn main() {
    let bin = release_binary();
    let dir = common::repo(&bin);
    let root = dir.path();
    let lines = seed_ledger(root, 800);
    println!("ledger: {lines} lines of facts, mneme {}", bin.display());

    let mut i = 0;
    bench("propose add (800-line ledger)", &bin, root, || {
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
    bench("context (800-line ledger, 60 pending)", &bin, root, || {
        vec!["context".into()]
    });
    bench("context --json", &bin, root, || {
        vec!["context".into(), "--json".into()]
    });

    // What an agent runtime runs at every session start, and at every prompt (nothing compacted).
    common::seed_tasks(root, 10_000);
    for (runtime, event) in [("claude", "SessionStart"), ("codex", "UserPromptSubmit")] {
        bench(
            &format!("context --for {runtime} --event {event} (+10,000 tasks)"),
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

/// Writes fact files totalling about `target` lines; returns the line count.
fn seed_ledger(root: &Path, target: usize) -> usize {
    let files = [
        "architecture",
        "invariants",
        "performance_rules",
        "pitfalls",
    ];
    let per_file = target / files.len();
    let mut total = 0;
    let mut n = 0;
    for f in files {
        let mut src = format!("---\ntitle: {f}\n---\n\n# {f}\n\n");
        let mut lines = 6;
        while lines < per_file {
            n += 1;
            src.push_str(&format!(
                "- **f-{n:04x}** Fact {n}: component {} keeps invariant {} under load {}. <!-- since: 2026-01-01; evidence: src/m{n}.rs:{n} -->\n",
                n * 31 % 97,
                n * 17 % 89,
                n * 13 % 83
            ));
            lines += 1;
            if n % 5 == 0 && lines < per_file {
                src.push_str("  with a continuation line explaining why.\n");
                lines += 1;
            }
        }
        total += lines;
        std::fs::write(root.join(format!(".ledger/facts/{f}.md")), src).expect("write");
    }
    total
}

fn bench(name: &str, bin: &Path, root: &Path, mut args: impl FnMut() -> Vec<String>) {
    let mut peak_kib = 0;
    let times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let a = args();
            let (elapsed, kib) = measure(bin, root, &a);
            peak_kib = peak_kib.max(kib);
            elapsed
        })
        .collect();
    common::report(name, times);
    println!("{:<40} peak RSS {peak_kib} KiB", "");
}

/// Wall time and peak RSS of one run, reaped with `wait4` so the memory is this child's alone.
fn measure(bin: &Path, root: &Path, args: &[String]) -> (Duration, i64) {
    let start = Instant::now();
    // Reaped below with wait4, which std's Child::wait cannot do while reporting rusage.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(bin)
        .current_dir(root)
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn mneme");
    let mut status = 0;
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: the pid is our own unreaped child; wait4 fills `status` and `usage`.
    #[allow(unsafe_code)]
    let usage = unsafe {
        let pid = libc::wait4(
            child.id() as libc::pid_t,
            &mut status,
            0,
            usage.as_mut_ptr(),
        );
        assert_eq!(pid, child.id() as libc::pid_t, "wait4");
        usage.assume_init()
    };
    let elapsed = start.elapsed();
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "mneme {args:?} failed"
    );
    (elapsed, usage.ru_maxrss)
}
