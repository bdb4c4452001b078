//! Shared by the whole-process benchmarks.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The binary as published (the `dist` profile; `MNEME_BENCH_PROFILE=release` measures the one
/// `cargo install` builds): `cargo bench` builds the bench, but not the binary itself.
pub fn release_binary() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let profile = std::env::var("MNEME_BENCH_PROFILE").unwrap_or_else(|_| "dist".to_owned());
    let ok = Command::new(env!("CARGO"))
        .args(["build", "--profile", &profile, "--quiet", "--bin", "mneme"])
        .current_dir(manifest)
        .status()
        .expect("cargo build")
        .success();
    assert!(ok, "cargo build --profile {profile} failed");
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("target"))
        .join(profile);
    // git runs `mneme` too: from the commit-msg hook `init` installs, and as the merge driver.
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::iter::once(dir.clone()).chain(std::env::split_paths(&path));
    std::env::set_var("PATH", std::env::join_paths(dirs).expect("PATH"));
    dir.join("mneme")
}

/// A fresh repository with an identity and `mneme init` done. `MNEME_BENCH_KEEP=1` keeps it
/// after the run (its path goes to stderr), for profiling a verb on the same data.
#[allow(clippy::print_stderr)]
pub fn repo(bin: &Path) -> tempfile::TempDir {
    let mut dir = tempfile::tempdir().expect("tempdir");
    if std::env::var_os("MNEME_BENCH_KEEP").is_some() {
        dir.disable_cleanup(true);
        eprintln!("kept: {}", dir.path().display());
    }
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["config", "user.name", "Bench"]);
    git(dir.path(), &["config", "user.email", "bench@example.com"]);
    mneme(bin, dir.path(), &["init"]);
    dir
}

pub fn git(root: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .current_dir(root)
        .args(args)
        .status()
        .expect("git")
        .success();
    assert!(ok, "git {args:?}");
}

/// What `git args` prints, trimmed.
pub fn git_text(root: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(root)
        .args(args)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8(out.stdout)
        .expect("utf8")
        .trim()
        .to_owned()
}

/// Runs mneme, panics on failure, returns stdout.
pub fn mneme(bin: &Path, root: &Path, args: &[&str]) -> Vec<u8> {
    mneme_with(bin, root, args, &[])
}

/// Runs mneme with `env` set, panics on failure, returns stdout.
pub fn mneme_with(bin: &Path, root: &Path, args: &[&str], env: &[(&str, &str)]) -> Vec<u8> {
    let env: Vec<_> = [("NO_COLOR", "1")].iter().chain(env).copied().collect();
    run(bin, root, args, &env)
}

/// Runs `program` in `root` with `env` set, panics on failure, returns stdout.
pub fn run(program: &Path, root: &Path, args: &[&str], env: &[(&str, &str)]) -> Vec<u8> {
    let out = Command::new(program)
        .current_dir(root)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("spawn {}: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {args:?}: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Prints median, min and max of `times`; returns the median.
pub fn report(name: &str, mut times: Vec<Duration>) -> Duration {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{name:<40} median {:>7.2} ms   min {:>7.2} ms   max {:>7.2} ms   ({} runs)",
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1]),
        times.len()
    );
    times[times.len() / 2]
}

const KINDS: [&str; 5] = ["task", "bug", "feature", "chore", "epic"];

/// Writes `count` task files of realistic size and shape into `.ledger/tasks`.
pub fn seed_tasks(root: &Path, count: usize) {
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
    for i in 0..count {
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
}

/// Writes fact files totalling about `target` lines; returns the line count.
pub fn seed_ledger(root: &Path, target: usize) -> usize {
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

/// Fact files of about `target` lines as a real ledger gets them: each fact proposed on its own
/// and approved, so that every one has its decision record and commit. Returns the line count.
pub fn seed_approved_ledger(bin: &Path, root: &Path, target: usize) -> usize {
    let files = [
        "architecture",
        "invariants",
        "performance_rules",
        "pitfalls",
    ];
    let count_lines = |root: &Path| -> usize {
        files
            .iter()
            .map(|f| {
                std::fs::read_to_string(root.join(format!(".ledger/facts/{f}.md")))
                    .map_or(0, |t| t.lines().count())
            })
            .sum()
    };
    let mut n = 0;
    while count_lines(root) < target {
        // A batch at a time: `review approve --all` commits each proposal on its own.
        for _ in 0..40 {
            n += 1;
            let mut text = format!(
                "Fact {n}: component {} keeps invariant {} under load {}.",
                n * 31 % 97,
                n * 17 % 89,
                n * 13 % 83
            );
            if n % 5 == 0 {
                text.push_str("\nwith a continuation line explaining why.");
            }
            let evidence = format!("src/m{n}.rs:{n}");
            let file = files[n % files.len()];
            mneme(
                bin,
                root,
                &[
                    "propose",
                    "add",
                    "--file",
                    file,
                    &text,
                    "--reason",
                    "seeded",
                    "--evidence",
                    &evidence,
                ],
            );
        }
        mneme(bin, root, &["review", "approve", "--all"]);
    }
    count_lines(root)
}

/// Whether the command line (`cargo bench --bench <name> -- part…`) asks for a part: every part
/// when it names none.
pub fn wanted_parts() -> impl Fn(&str) -> bool {
    let parts: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    move |part| parts.is_empty() || parts.iter().any(|p| p == part)
}

/// A command line as [`bench`] takes it.
pub fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

/// Runs `mneme args()` `runs` times in `root`; prints the median, min, max and peak RSS, and
/// returns the median.
pub fn bench(
    name: &str,
    runs: usize,
    bin: &Path,
    root: &Path,
    mut args: impl FnMut() -> Vec<String>,
) -> Duration {
    let mut peak_kib = 0;
    let times: Vec<Duration> = (0..runs)
        .map(|_| {
            let a = args();
            let (elapsed, kib) = measure(bin, root, &a);
            peak_kib = peak_kib.max(kib);
            elapsed
        })
        .collect();
    let median = report(name, times);
    println!("{:<40} peak RSS {peak_kib} KiB", "");
    median
}

/// Wall time and peak RSS of one run, reaped with `wait4` so the memory is this child's alone.
pub fn measure(bin: &Path, root: &Path, args: &[String]) -> (Duration, i64) {
    let start = Instant::now();
    // Reaped below with wait4, which std's Child::wait cannot do while reporting rusage.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(bin)
        .current_dir(root)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
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
        "{} {args:?} failed",
        bin.display()
    );
    (elapsed, usage.ru_maxrss)
}

/// Runs two commands (`(label, binary, directory, arguments)`) alternately, `runs` times each,
/// so that a busy machine slows both alike; prints each one's median, min, max and peak RSS,
/// and the ratio of the medians. Returns the two medians.
pub fn side_by_side(
    runs: usize,
    a: (&str, &Path, &Path, &[String]),
    b: (&str, &Path, &Path, &[String]),
) -> (Duration, Duration) {
    let mut times = [Vec::new(), Vec::new()];
    let mut peaks = [0, 0];
    for _ in 0..runs {
        for (i, (_, bin, root, args)) in [a, b].into_iter().enumerate() {
            let (elapsed, kib) = measure(bin, root, args);
            times[i].push(elapsed);
            peaks[i] = peaks[i].max(kib);
        }
    }
    let [ta, tb] = times;
    let ma = report(a.0, ta);
    println!("{:<40} peak RSS {} KiB", "", peaks[0]);
    let mb = report(b.0, tb);
    println!("{:<40} peak RSS {} KiB", "", peaks[1]);
    println!(
        "{:<40} ratio {:.2}",
        "",
        ma.as_secs_f64() / mb.as_secs_f64()
    );
    (ma, mb)
}
