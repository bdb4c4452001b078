//! Exit status and output: problems a verb finds are outcomes (exit 1, a report, no error), a
//! failed write is an error, a closed pipe is not.

use std::process::{Command, Stdio};

use assert_cmd::cargo::cargo_bin;
use predicates::str::contains;

use crate::common::{json, Repo};

fn mneme(repo: &Repo, args: &[&str]) -> Command {
    let mut cmd = Command::new(cargo_bin("mneme"));
    cmd.current_dir(repo.path())
        .args(args)
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    cmd
}

#[test]
fn a_full_disk_is_an_error() {
    let repo = Repo::new();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = mneme(&repo, &["context"])
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("writing the output"), "{stderr}");
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let repo = Repo::new();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = mneme(&repo, &["context"])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn problems_found_are_a_report_and_exit_1_not_an_error() {
    let repo = Repo::committed();
    repo.write(
        ".ledger/facts/architecture.md",
        "- **f-aaaa** One.\n- **f-aaaa** Two.\n",
    );
    // The report on stdout, no error object on stderr.
    let report = |args: &[&str]| {
        let out = repo.mneme(args).assert().code(1).get_output().clone();
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        json(&out)
    };
    let checked = report(&["check", "--json"]);
    assert!(
        checked["findings"].to_string().contains("duplicate_id"),
        "{checked}"
    );
    repo.git(&["commit", "-qam", "hand edit"]);
    let verified = report(&["verify", "HEAD~1..HEAD", "--json"]);
    assert_eq!(verified["violations"].as_array().unwrap().len(), 1);

    repo.write("base.md", "- **f-1** One.\n");
    repo.write("ours.md", "- **f-1** Ours.\n");
    repo.write("theirs.md", "- **f-1** Theirs.\n");
    repo.mneme(&["merge-file", "base.md", "ours.md", "theirs.md"])
        .assert()
        .code(1)
        .stderr(contains("1 conflicting fact(s)"));
    assert!(repo.read("ours.md").contains("<<<<<<< ours"));
}

#[test]
fn completions_and_man_pages_cover_every_verb() {
    let repo = Repo::bare_init();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = repo
            .mneme(&["completions", shell])
            .assert()
            .success()
            .get_output()
            .clone();
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(
            script.contains("approve") && script.contains("supersede"),
            "{shell}"
        );
        if shell == "bash" {
            let check = Command::new("bash")
                .arg("-n")
                .arg("-c")
                .arg(&script)
                .output()
                .unwrap();
            assert!(check.status.success(), "{check:?}");
        }
    }
    repo.mneme(&["completions", "tcsh"]).assert().code(2);

    let out = repo
        .mneme(&["man", "--list"])
        .assert()
        .success()
        .get_output()
        .clone();
    let pages: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    for expected in [
        "mneme",
        "mneme-review",
        "mneme-review-approve",
        "mneme-propose-add",
        "mneme-dep-tree",
    ] {
        assert!(
            pages.iter().any(|p| p == expected),
            "{expected} in {pages:?}"
        );
    }
    for page in &pages {
        let out = repo
            .mneme(&["man", page])
            .assert()
            .success()
            .get_output()
            .clone();
        let roff = String::from_utf8(out.stdout).unwrap();
        assert!(
            roff.starts_with(".ie") && roff.contains(".SH NAME"),
            "{page}"
        );
        assert!(roff.contains(&format!(".TH {page} 1")), "{page}");
    }
    let approve = repo.mneme(&["man", "review", "approve"]).output().unwrap();
    assert!(String::from_utf8_lossy(&approve.stdout).contains("\\-\\-all"));
    repo.mneme(&["man", "nope"])
        .assert()
        .code(1)
        .stderr(contains("man --list"));
    // `update --status` does not offer what it refuses.
    let out = repo
        .mneme(&["update", "t-a3f8", "--status", "closed"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("in_progress") && !stderr.contains("closed,"),
        "{stderr}"
    );
}
