//! Shared by the whole-process benchmarks.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The optimised binary: `cargo bench` builds the bench in release, but not the binary itself.
pub fn release_binary() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ok = Command::new(env!("CARGO"))
        .args(["build", "--release", "--quiet", "--bin", "mneme"])
        .current_dir(manifest)
        .status()
        .expect("cargo build")
        .success();
    assert!(ok, "cargo build --release failed");
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("target"))
        .join("release/mneme")
}

/// A fresh repository with an identity and `mneme init` done.
pub fn repo(bin: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
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

/// Runs mneme, panics on failure, returns stdout.
pub fn mneme(bin: &Path, root: &Path, args: &[&str]) -> Vec<u8> {
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
    out.stdout
}

/// Prints median, min and max of `times`.
pub fn report(name: &str, mut times: Vec<Duration>) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{name:<40} median {:>7.2} ms   min {:>7.2} ms   max {:>7.2} ms   ({} runs)",
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1]),
        times.len()
    );
}
