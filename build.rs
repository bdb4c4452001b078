//! Build facts for `mneme --version`: the commit the binary was built from and its target.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=MNEME_BUILD_COMMIT");
    // A release build from a source archive (no .git) says its commit through the environment.
    let commit = std::env::var("MNEME_BUILD_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_owned());
    // Rebuilt when HEAD moves: HEAD itself, the branch it names, and packed refs. Cargo takes a
    // missing file as changed and reruns every build, so only files that exist are named; a
    // branch held only in packed-refs is watched through its directory, where a commit writes
    // it.
    let watch = |path: &str| {
        if Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    };
    for path in ["HEAD", "packed-refs"] {
        if let Some(p) = git(&["rev-parse", "--git-path", path]) {
            watch(&p);
        }
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(p) = git(&["rev-parse", "--git-path", &branch]) {
            if Path::new(&p).exists() {
                watch(&p);
            } else if let Some(dir) = Path::new(&p).parent().and_then(Path::to_str) {
                watch(dir);
            }
        }
    }
    println!("cargo:rustc-env=MNEME_COMMIT={commit}");
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".to_owned());
    println!("cargo:rustc-env=MNEME_TARGET={target}");
}

/// What `git args` prints in the package's directory, when git is there and succeeds.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !text.is_empty()).then_some(text)
}
