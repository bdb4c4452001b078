//! Whole-process benchmarks of the `mneme` binary on realistic ledgers.
//!
//! Run with `cargo bench --bench cli`. Prints the median, min and max wall time of each verb and
//! the peak resident memory of the slowest child. Not a test: nothing here asserts a time.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const RUNS: usize = 60;

fn main() {
    let bin = release_binary();
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["config", "user.name", "Bench"]);
    git(root, &["config", "user.email", "bench@example.com"]);
    run(&bin, root, &["init"]);
    let lines = seed_ledger(root, 800);
    println!("ledger: {lines} lines of facts, mneme {}", bin.display());

    let mut i = 0;
    report("propose add (800-line ledger)", &bin, root, || {
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
    report("context (800-line ledger, 60 pending)", &bin, root, || {
        vec!["context".into()]
    });
    report("context --json", &bin, root, || {
        vec!["context".into(), "--json".into()]
    });
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

fn report(name: &str, bin: &Path, root: &Path, mut args: impl FnMut() -> Vec<String>) {
    let mut peak_kib = 0;
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let a = args();
            let (elapsed, kib) = measure(bin, root, &a);
            peak_kib = peak_kib.max(kib);
            elapsed
        })
        .collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{name:<40} median {:>6.2} ms   min {:>6.2} ms   max {:>6.2} ms   ({RUNS} runs)",
        ms(times[RUNS / 2]),
        ms(times[0]),
        ms(times[RUNS - 1])
    );
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

fn run(bin: &Path, root: &Path, args: &[&str]) {
    let out = Command::new(bin)
        .current_dir(root)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("spawn mneme");
    assert!(
        out.status.success(),
        "mneme {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn git(root: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .current_dir(root)
        .args(args)
        .status()
        .expect("git")
        .success();
    assert!(ok, "git {args:?}");
}

/// The optimised binary: `cargo bench` builds the bench in release, but not the binary itself.
fn release_binary() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ok = Command::new(env!("CARGO"))
        .args(["build", "--release", "--quiet", "--bin", "mneme"])
        .current_dir(manifest)
        .status()
        .expect("cargo build")
        .success();
    assert!(ok, "cargo build --release failed");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("target"));
    target.join("release/mneme")
}
