//! Installing mneme: what a build says about itself, the release archives, the installer and
//! the npm packages, all tested locally without network.

use crate::common::Repo;

#[test]
fn version_names_the_commit_and_the_target() {
    let repo = Repo::bare_init();
    let out = repo.mneme(&["--version"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    let rest = text
        .trim()
        .strip_prefix(&format!("mneme {version} ("))
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{text}"));
    let (commit, target) = rest.split_once(' ').unwrap();
    // Built from this checkout: its commit (or `unknown` from a source archive).
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8(o.stdout).unwrap().trim().to_owned());
    match head {
        Some(head) => assert_eq!(commit, head),
        None => assert_eq!(commit, "unknown"),
    }
    assert!(target.starts_with(std::env::consts::ARCH), "{target}");
}
