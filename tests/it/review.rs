use crate::common::{error_code, json, Repo};
use predicates::str::contains;

const ARCH: &str = ".ledger/facts/architecture.md";

#[test]
fn approving_an_add_commits_only_the_ledger_with_trailers() {
    let repo = Repo::committed();
    let id = repo.propose_add(
        "architecture",
        "We use PostgreSQL 16.",
        &[
            "--reason",
            "storage review",
            "--evidence",
            "docs/adr/3.md",
            "--agent",
            "claude",
        ],
    );
    let fact = repo.new_fact_id(&id);
    let before = repo.head();
    repo.approve(&id);

    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), before);
    assert_eq!(repo.fact_changes(), ["M\t.ledger/facts/architecture.md"]);
    // The proof that survives a squash: the record names the proposal, the reviewer and the fact.
    let record = repo.head_record();
    assert_eq!(record["verdict"], "approve");
    assert_eq!(record["proposal"], id.as_str());
    assert_eq!(record["by"], "Test Human <human@example.com>");
    assert_eq!(record["facts"][0]["id"], fact.as_str());
    assert!(record["facts"][0]["before"].is_null());
    assert!(record["facts"][0]["after"]
        .as_str()
        .unwrap()
        .starts_with("sha256:"));
    let subject = repo.git(&["log", "-1", "--format=%s"]);
    assert_eq!(
        subject.trim(),
        format!("ledger(architecture): add {fact} We use PostgreSQL 16.")
    );
    assert_eq!(repo.trailer("HEAD", "Mneme-Decision"), ["approve"]);
    assert_eq!(repo.trailer("HEAD", "Mneme-Proposal"), [id.as_str()]);
    assert_eq!(
        repo.trailer("HEAD", "Mneme-Operation"),
        [format!("add {fact} architecture.md")]
    );
    assert_eq!(repo.trailer("HEAD", "Mneme-Proposed-By"), ["claude"]);
    assert_eq!(repo.trailer("HEAD", "Mneme-Evidence"), ["docs/adr/3.md"]);
    assert_eq!(
        repo.trailer("HEAD", "Mneme-Approved-By"),
        ["Test Human <human@example.com>"]
    );
    assert!(repo
        .git(&["log", "-1", "--format=%b"])
        .starts_with("storage review\n"));

    let arch = repo.read(ARCH);
    assert!(arch.ends_with(&format!(
        "- **{fact}** We use PostgreSQL 16. <!-- since: {}; evidence: docs/adr/3.md -->\n",
        mneme::ops::now().date()
    )));
    assert_eq!(repo.git(&["show", &format!("HEAD:{ARCH}")]), arch);
    assert!(
        repo.proposals().is_empty(),
        "untracked proposal file deleted"
    );
    assert_eq!(
        repo.status(),
        "",
        "index and work tree match the new commit"
    );
    repo.git(&["fsck", "--strict"]);
}

#[test]
fn other_work_is_left_exactly_as_it_was() {
    let repo = Repo::committed();
    repo.write("staged.txt", "staged\n");
    repo.git(&["add", "staged.txt"]);
    repo.write("README.md", "# project\nunstaged edit\n");
    repo.write("untracked.txt", "mine\n");
    let id = repo.propose_add("pitfalls", "Never block the executor.", &["--reason", "r"]);
    repo.approve(&id);

    assert_eq!(repo.fact_changes(), ["M\t.ledger/facts/pitfalls.md"]);
    assert_eq!(
        repo.git(&["diff", "--cached", "--name-only"]),
        "staged.txt\n"
    );
    assert_eq!(repo.git(&["diff", "--name-only"]), "README.md\n");
    assert_eq!(repo.read("README.md"), "# project\nunstaged edit\n");
    assert_eq!(repo.git(&["status", "--porcelain", "--", ".ledger"]), "");
    assert!(repo.status().contains("?? untracked.txt"));

    // The user's next ordinary commit keeps the approved fact (no stale cache-tree).
    repo.git(&["commit", "-q", "-m", "user work"]);
    assert_eq!(repo.head_changes(), ["A\tstaged.txt"]);
    assert!(repo
        .git(&["show", "HEAD:.ledger/facts/pitfalls.md"])
        .contains("Never block the executor."));
    assert_eq!(repo.git(&["status", "--porcelain", "--", ".ledger"]), "");
    repo.git(&["fsck", "--strict"]);
}

#[test]
fn rejecting_records_the_reason_and_removes_a_committed_proposal() {
    let repo = Repo::committed();
    let id = repo.propose_add("pitfalls", "Tabs beat spaces.", &["--reason", "opinion"]);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "agent commits its proposal"]);
    let facts_before = repo.read(".ledger/facts/pitfalls.md");
    repo.mneme(&["review", "reject", &id, "--reason", "not a verified fact"])
        .assert()
        .success();

    assert_eq!(
        repo.fact_changes(),
        [format!("D\t.ledger/proposals/{id}.json")]
    );
    assert_eq!(repo.head_record()["verdict"], "reject");
    assert_eq!(repo.trailer("HEAD", "Mneme-Decision"), ["reject"]);
    assert_eq!(
        repo.trailer("HEAD", "Mneme-Rejected-By"),
        ["Test Human <human@example.com>"]
    );
    assert!(repo
        .git(&["log", "-1", "--format=%b"])
        .starts_with("Rejected: not a verified fact\n"));
    assert_eq!(repo.read(".ledger/facts/pitfalls.md"), facts_before);
    assert!(repo.proposals().is_empty());
    assert_eq!(repo.status(), "");
}

#[test]
fn rejecting_an_untracked_proposal_still_records_the_decision() {
    let repo = Repo::committed();
    let id = repo.propose_add("pitfalls", "Something dubious.", &["--reason", "r"]);
    let before = repo.head();
    repo.mneme(&["review", "reject", &id]).assert().success();
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), before);
    assert!(repo.fact_changes().is_empty());
    assert_eq!(repo.head_record()["facts"], serde_json::json!([]));
    assert!(repo
        .git(&["log", "-1", "--format=%b"])
        .starts_with("Rejected without a reason.\n"));
    assert!(repo.proposals().is_empty());
}

#[test]
fn update_remove_and_supersede_are_applied() {
    let repo = Repo::committed();
    let add = repo.propose_add("architecture", "We use PostgreSQL 16.", &["--reason", "r"]);
    let f1 = repo.new_fact_id(&add);
    repo.approve(&add);
    let add2 = repo.propose_add("architecture", "Services talk gRPC.", &["--reason", "r"]);
    let f2 = repo.new_fact_id(&add2);
    repo.approve(&add2);

    let up = repo.propose_update(&f1, "We use PostgreSQL 17.", &["--reason", "upgrade"]);
    repo.approve(&up);
    assert!(repo
        .read(ARCH)
        .contains(&format!("- **{f1}** We use PostgreSQL 17.")));
    assert_eq!(
        repo.trailer("HEAD", "Mneme-Operation"),
        [format!("update {f1} architecture.md")]
    );

    let sup = repo.propose(&[
        "supersede",
        &f1,
        "We use CockroachDB.",
        "--reason",
        "multi-region",
    ]);
    let f3 = repo.new_fact_id(&sup);
    repo.approve(&sup);
    let arch = repo.read(ARCH);
    assert!(
        arch.contains(&format!(
            "- **{f1}** We use PostgreSQL 17. <!-- state: superseded; by: {f3};"
        )),
        "{arch}"
    );
    assert!(arch.contains(&format!("- **{f3}** We use CockroachDB.")));
    let ctx = repo.json(&["context", "--json"]);
    assert_eq!(ctx["superseded"], 1);

    let rm = repo.propose(&["remove", &f2, "--reason", "gone"]);
    repo.approve(&rm);
    assert!(!repo.read(ARCH).contains(&f2));
    assert_eq!(repo.status(), "");

    // History of a fact.
    let why = repo.json(&["why", &f1, "--json"]);
    let kinds: Vec<_> = why["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["operations"][0]["op"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["supersede", "update", "add"]);
    assert_eq!(why["fact"]["state"], "superseded");
    assert_eq!(why["decisions"][1]["reason"], "upgrade");
    let log = repo.json(&["log", "--json"]);
    assert_eq!(log.as_array().unwrap().len(), 5);
    repo.mneme(&["why", &f2])
        .assert()
        .success()
        .stdout(contains("no longer in the ledger"));
    repo.mneme(&["log", &f2])
        .assert()
        .success()
        .stdout(contains("remove"));
}

#[test]
fn works_from_a_subdirectory_and_on_an_unborn_head() {
    let repo = Repo::new();
    std::fs::create_dir_all(repo.file("src/deep")).unwrap();
    let id = repo.propose_add("invariants", "Ids never change.", &["--reason", "r"]);
    repo.mneme_in(&repo.file("src/deep"), &["review", "approve", &id])
        .assert()
        .success();
    assert_eq!(repo.git(&["rev-list", "--count", "HEAD"]).trim(), "1");
    assert_eq!(repo.fact_changes(), ["A\t.ledger/facts/invariants.md"]);
    // Only the approved file was committed; the rest of the ledger stays untracked.
    assert!(repo.status().contains("?? .ledger/config.yaml"));
    assert_eq!(
        repo.git(&["status", "--porcelain", "--", ".ledger/facts/invariants.md"]),
        ""
    );
}

#[test]
fn works_in_a_linked_worktree() {
    let repo = Repo::committed();
    let wt = repo.path().parent().unwrap().join(format!(
        "{}-wt",
        repo.path().file_name().unwrap().to_string_lossy()
    ));
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "feature",
        wt.to_str().unwrap(),
    ]);
    let id = {
        let out = repo
            .mneme_in(
                &wt,
                &[
                    "propose",
                    "--json",
                    "add",
                    "-f",
                    "pitfalls",
                    "Worktrees share objects.",
                    "--reason",
                    "r",
                ],
            )
            .assert()
            .success()
            .get_output()
            .clone();
        json(&out)["id"].as_str().unwrap().to_owned()
    };
    repo.mneme_in(&wt, &["review", "approve", &id])
        .assert()
        .success();
    assert!(repo
        .git(&["show", "feature:.ledger/facts/pitfalls.md"])
        .contains("Worktrees share objects."));
    assert!(
        !repo.read(".ledger/facts/pitfalls.md").contains("Worktrees"),
        "main work tree untouched"
    );
    let wt_status = std::process::Command::new("git")
        .current_dir(&wt)
        .args(["status", "--porcelain"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&wt_status.stdout), "");
    assert_eq!(repo.status(), "");
    std::fs::remove_dir_all(&wt).unwrap();
}

/// Asserts a refused approval: exit 1 with `code`, HEAD, facts and proposal unchanged.
fn refused(repo: &Repo, id: &str, code: &str) -> String {
    let head = repo.try_git(&["rev-parse", "--verify", "-q", "HEAD"]);
    let snapshot = repo.snapshot();
    let out = repo
        .mneme(&["--json", "review", "approve", id])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), code);
    assert_eq!(repo.try_git(&["rev-parse", "--verify", "-q", "HEAD"]), head);
    assert_eq!(repo.snapshot(), snapshot);
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn refuses_hand_edits_to_target_files() {
    let repo = Repo::committed();
    let id = repo.propose_add("pitfalls", "Watch the clock skew.", &["--reason", "r"]);
    let original = repo.read(".ledger/facts/pitfalls.md");
    repo.write(
        ".ledger/facts/pitfalls.md",
        &format!("{original}\nA hand-written paragraph.\n"),
    );
    let err = refused(&repo, &id, "local_edits");
    assert!(err.contains(".ledger/facts/pitfalls.md"), "{err}");
    repo.git(&["add", ".ledger/facts/pitfalls.md"]);
    refused(&repo, &id, "local_edits");
    repo.git(&["reset", "-q", "--hard"]);
    repo.approve(&id);
}

#[test]
fn refuses_an_uncommitted_non_template_fact_file() {
    let repo = Repo::new();
    repo.write(".ledger/facts/security.md", "# Security\n");
    let id = repo.propose_add("security", "Secrets live in the vault.", &["--reason", "r"]);
    refused(&repo, &id, "local_edits");
}

#[test]
fn refuses_when_git_is_busy_or_unconfigured() {
    let repo = Repo::committed();
    let id = repo.propose_add("pitfalls", "Locks matter.", &["--reason", "r"]);

    std::fs::write(repo.file(".git/index.lock"), "").unwrap();
    assert!(refused(&repo, &id, "git_locked").contains("index.lock"));
    std::fs::remove_file(repo.file(".git/index.lock")).unwrap();

    std::fs::write(repo.file(".git/refs/heads/main.lock"), "").unwrap();
    refused(&repo, &id, "git_locked");
    std::fs::remove_file(repo.file(".git/refs/heads/main.lock")).unwrap();

    let head = repo.head();
    std::fs::write(repo.file(".git/MERGE_HEAD"), format!("{head}\n")).unwrap();
    refused(&repo, &id, "git_in_progress");
    std::fs::remove_file(repo.file(".git/MERGE_HEAD")).unwrap();

    repo.git(&["checkout", "-q", "--detach"]);
    refused(&repo, &id, "detached_head");
    repo.git(&["checkout", "-q", "main"]);

    repo.git(&["config", "--unset", "user.name"]);
    repo.git(&["config", "--unset", "user.email"]);
    let err = refused(&repo, &id, "identity_missing");
    assert!(err.contains("git config user.name"), "{err}");
}

#[test]
fn stale_but_clean_proposals_are_rebased_and_conflicts_refused() {
    let repo = Repo::committed();
    let a = repo.propose_add("architecture", "Fact A.", &["--reason", "r"]);
    let fa = repo.new_fact_id(&a);
    repo.approve(&a);
    let b = repo.propose_add("architecture", "Fact B is different.", &["--reason", "r"]);
    let up1 = repo.propose_update(&fa, "Fact A, first rewrite.", &["--reason", "r"]);
    let up2 = repo.propose_update(&fa, "Fact A, competing rewrite.", &["--reason", "r"]);

    repo.approve(&up1);
    // b was proposed against the file before up1 changed it, but still applies.
    let list = repo.json(&["review", "list", "--json"]);
    let status: Vec<_> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(status, ["rebased", "conflict"]);
    repo.approve(&b);
    assert_eq!(repo.trailer("HEAD", "Mneme-Rebased"), ["true"]);
    assert!(repo.read(ARCH).contains("Fact A, first rewrite."));

    let err = refused(&repo, &up2, "conflict");
    assert!(err.contains("changed since the proposal was made"), "{err}");
    let show = repo.json(&["review", "show", &up2, "--json"]);
    assert_eq!(show["status"], "conflict");
    repo.mneme(&["review", "show", &up2])
        .assert()
        .success()
        .stdout(contains("CONFLICT"))
        .stdout(contains("Fact A, first rewrite."));
}

#[test]
fn a_removal_that_would_turn_a_break_into_front_matter_is_a_conflict_not_a_panic() {
    let repo = Repo::committed();
    repo.write(ARCH, "- **f-aaaa** One.\n---\n- **f-bbbb** Two.\n");
    repo.git(&["commit", "-qam", "facts laid out by hand"]);
    let id = repo.propose(&["remove", "f-aaaa", "--reason", "retired"]);
    // The list judges by fact ids and texts (the fact is there, unchanged); the layout is
    // checked when the proposal is shown or approved.
    let list = repo.json(&["review", "list", "--json"]);
    assert_eq!(list[0]["id"], id.as_str());
    let show = repo.json(&["review", "show", &id, "--json"]);
    assert_eq!(show["status"], "conflict");
    assert!(
        show["conflict"].as_str().unwrap().contains("front matter"),
        "{show}"
    );
    let before = repo.head();
    let err = refused(&repo, &id, "conflict");
    assert!(err.contains("adjust the file by hand"), "{err}");
    assert_eq!(repo.head(), before);
    assert_eq!(
        repo.read(ARCH),
        "- **f-aaaa** One.\n---\n- **f-bbbb** Two.\n"
    );
}

#[test]
fn hooks_run_and_can_be_skipped() {
    use std::os::unix::fs::PermissionsExt;
    let repo = Repo::committed();
    let hook = |name: &str, body: &str| {
        let path = repo.file(&format!(".git/hooks/{name}"));
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    // pre-commit sees exactly the commit's content through GIT_INDEX_FILE.
    hook("pre-commit", "git diff --cached --name-only HEAD > .git/precommit-saw; git diff --cached HEAD | grep -q '^+.*forbidden' && { echo 'no forbidden words' >&2; exit 1; }; exit 0");
    hook("commit-msg", "printf 'Reviewed-by: hook\\n' >> \"$1\"");
    let bad = repo.propose_add("pitfalls", "A forbidden statement.", &["--reason", "r"]);
    let err = refused(&repo, &bad, "hook_failed");
    assert!(err.contains("no forbidden words"), "{err}");
    repo.mneme(&["review", "approve", "--no-verify", &bad])
        .assert()
        .success();
    assert!(repo.trailer("HEAD", "Reviewed-by").is_empty());

    let good = repo.propose_add("pitfalls", "A fine statement.", &["--reason", "r"]);
    repo.approve(&good);
    let saw = repo.read(".git/precommit-saw");
    let saw: Vec<&str> = saw.lines().collect();
    assert!(
        matches!(&saw[..], [record, ".ledger/facts/pitfalls.md"] if record.starts_with(".ledger/decisions/")),
        "{saw:?}"
    );
    assert_eq!(repo.trailer("HEAD", "Reviewed-by"), ["hook"]);
    assert_eq!(repo.trailer("HEAD", "Mneme-Decision"), ["approve"]);
    assert_eq!(repo.status(), "");

    // A refusing commit-msg hook leaves no object, no message and no file behind.
    hook("commit-msg", "exit 1");
    let refused_id = repo.propose_add("pitfalls", "Refused by the hook.", &["--reason", "r"]);
    let objects = || repo.git(&["count-objects", "-v"]);
    let (before, message) = (objects(), repo.read(".git/COMMIT_EDITMSG"));
    refused(&repo, &refused_id, "hook_failed");
    assert_eq!(objects(), before, "the refused decision wrote objects");
    assert_eq!(repo.read(".git/COMMIT_EDITMSG"), message);
}

/// mneme's own commit-msg hook guards a person's `git commit`, not a decision: an approval runs
/// only the hook it chains, which can still rewrite or refuse it, while the same staged hand
/// edit that mneme's hook refuses in a plain commit is no concern of the decision's.
#[test]
fn a_decision_runs_the_hook_mneme_s_hook_chains_and_not_mneme_s_check() {
    use std::os::unix::fs::PermissionsExt;
    let repo = Repo::committed();
    repo.approve_new("architecture", "Approved text.");
    let hook = repo.file(".git/hooks/commit-msg");
    let write_hook = |path: &std::path::Path, body: &str| {
        std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    write_hook(&hook, "printf 'Reviewed-by: chained\\n' >> \"$1\"");
    repo.mneme(&["hooks", "install"]).assert().success();
    let chained = repo.file(".git/hooks/commit-msg.pre-mneme");
    assert!(chained.is_file());
    // A hand edit of an approved fact, staged: mneme's hook refuses to commit it.
    let arch = repo.read(".ledger/facts/architecture.md");
    repo.write(
        ".ledger/facts/architecture.md",
        &arch.replace("Approved text.", "Edited by hand."),
    );
    repo.git(&["add", ".ledger/facts/architecture.md"]);
    assert!(!repo
        .git_output(&["commit", "-q", "-m", "hand edit"])
        .status
        .success());
    // A decision about another file goes through, with what the chained hook adds.
    let id = repo.propose_add("pitfalls", "A reviewed pitfall.", &["--reason", "r"]);
    repo.approve(&id);
    assert_eq!(repo.trailer("HEAD", "Reviewed-by"), ["chained"]);
    assert_eq!(repo.trailer("HEAD", "Mneme-Decision"), ["approve"]);
    assert!(repo
        .read(".ledger/facts/architecture.md")
        .contains("Edited by hand."));
    assert!(repo
        .git(&["diff", "--cached", "--name-only"])
        .contains("architecture.md"));
    // The chained hook still refuses a decision.
    write_hook(&chained, "exit 1");
    let refused_id = repo.propose_add(
        "pitfalls",
        "Refused by the chained hook.",
        &["--reason", "r"],
    );
    refused(&repo, &refused_id, "hook_failed");
}

/// An approval rewrites the index: a file the user changed in the second of its `git add`,
/// which git can only tell from its content (a "racy" entry), must still read as changed
/// afterwards, as it would had git written the index.
#[test]
fn a_change_git_sees_only_by_its_content_still_shows_after_an_approval() {
    let repo = Repo::committed();
    // Times alone, so the test does not hang on which second each step falls in.
    repo.git(&["config", "core.trustctime", "false"]);
    let id = repo.propose_add("pitfalls", "Racy entries stay visible.", &["--reason", "r"]);
    let second =
        filetime::FileTime::from_unix_time(filetime::FileTime::now().unix_seconds() - 5, 0);
    // One entry sorts before the ledger's, one after (the index keeps those as bytes).
    let files = [".editorconfig", "notes.txt"];
    for name in files {
        repo.write(name, "aaaa\n");
        filetime::set_file_mtime(repo.file(name), second).unwrap();
    }
    repo.git(&["add", ".editorconfig", "notes.txt"]);
    // The index written in that second too: its entries for them are racy.
    filetime::set_file_mtime(repo.file(".git/index"), second).unwrap();
    for name in files {
        std::fs::write(repo.file(name), "bbbb\n").unwrap();
        filetime::set_file_mtime(repo.file(name), second).unwrap();
    }
    // Without writing the index: git's own refresh would mark the entries.
    let status = || {
        repo.git(&[
            "--no-optional-locks",
            "status",
            "--porcelain",
            "--",
            ".editorconfig",
            "notes.txt",
        ])
    };
    let changed = "AM .editorconfig\nAM notes.txt\n";
    assert_eq!(status(), changed);
    repo.approve(&id);
    assert_eq!(status(), changed);
    repo.git(&["commit", "-qam", "my work"]);
    for name in files {
        assert_eq!(repo.git(&["show", &format!("HEAD:{name}")]), "bbbb\n");
    }
}

#[test]
fn commits_are_signed_when_git_is_configured_to_sign() {
    let repo = Repo::committed();
    let key = repo.path().join(".git/test-signing-key");
    let status = std::process::Command::new("ssh-keygen")
        .args([
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            "human@example.com",
            "-f",
        ])
        .arg(&key)
        .status();
    let Ok(status) = status else {
        crate::skips::skip("ssh-keygen", "signed decision commits");
        return;
    };
    assert!(status.success());
    let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    std::fs::write(
        repo.file(".git/allowed_signers"),
        format!("human@example.com {public}"),
    )
    .unwrap();
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingKey", key.to_str().unwrap()]);
    repo.git(&[
        "config",
        "gpg.ssh.allowedSignersFile",
        repo.file(".git/allowed_signers").to_str().unwrap(),
    ]);
    repo.git(&["config", "commit.gpgSign", "true"]);
    let id = repo.propose_add("pitfalls", "Signed facts are trusted.", &["--reason", "r"]);
    repo.approve(&id);
    repo.git(&["verify-commit", "HEAD"]);
}

/// The points an approval can be killed at (`MNEME_FAULT`): after its journal, after the work
/// tree and the index hold the decision, after the branch moved.
const KILL_POINTS: [&str; 3] = ["journal", "index", "ref"];

#[test]
fn an_interrupted_approval_is_finished_by_the_next_verb() {
    let repo = Repo::committed();
    repo.write("staged.txt", "staged\n");
    repo.git(&["add", "staged.txt"]);
    for (n, step) in KILL_POINTS.into_iter().enumerate() {
        let text = format!("Crash {n} is survivable.");
        let id = repo.propose_add("pitfalls", &text, &["--reason", "r"]);
        let head = repo.head();
        repo.mneme(&["review", "approve", &id])
            .env("MNEME_FAULT", step)
            .assert()
            .failure();
        // The killed run's lock is taken back and its decision finished: nobody does either by
        // hand.
        repo.mneme(&["review", "list"])
            .assert()
            .success()
            .stderr(contains("finished the interrupted commit"))
            .stdout(predicates::prelude::PredicateBooleanExt::not(contains(
                id.as_str(),
            )));
        let case = format!("killed after {step}");
        assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), head, "{case}");
        assert_eq!(
            repo.trailer("HEAD", "Mneme-Decision"),
            ["approve"],
            "{case}"
        );
        assert!(
            repo.read(".ledger/facts/pitfalls.md").contains(&text),
            "{case}"
        );
        assert_eq!(
            repo.git(&["status", "--porcelain", "--", ".ledger"]),
            "",
            "{case}"
        );
        assert_eq!(
            repo.git(&["diff", "--cached", "--name-only"]),
            "staged.txt\n",
            "{case}"
        );
        for left in [
            ".git/mneme-decision.json",
            ".git/index.lock",
            ".git/mneme-commit.owner",
        ] {
            assert!(!repo.file(left).exists(), "{case}: {left}");
        }
    }
    repo.git(&["fsck", "--strict"]);
}

/// Killed at any step, an approval is never undone by the user's next plain `git commit -am`
/// (after removing the lock the kill left, as git says to), hook or no hook: the work tree and
/// the index hold the decision before the branch does, so from the moment the decision is
/// committed, any commit holds it. A kill before the work tree was written leaves the decision
/// to the next mneme verb, which finishes it and says what to commit.
#[test]
fn the_users_next_commit_never_reverts_an_interrupted_approval() {
    for hook in [true, false] {
        for step in KILL_POINTS {
            let repo = Repo::committed();
            if hook {
                repo.mneme(&["hooks", "install"]).assert().success();
            }
            let case = format!("hook: {hook}, killed after {step}");
            let id = repo.propose_add("pitfalls", "Kills are survivable.", &["--reason", "r"]);
            repo.mneme(&["review", "approve", &id])
                .env("MNEME_FAULT", step)
                .assert()
                .failure();
            // What git leaves a killed run: its lock, which the user removes to commit at all.
            let _ = std::fs::remove_file(repo.file(".git/index.lock"));
            repo.write("README.md", "mine\n");
            let commit = repo.git_output(&["commit", "-qam", "my work"]);
            if hook {
                // The hook stopped this commit, made from an index without the decision; any
                // mneme verb finishes it, and the same commit goes through on top of it.
                assert!(!commit.status.success(), "{case}");
                let stderr = String::from_utf8_lossy(&commit.stderr);
                assert!(
                    stderr.contains("then the same `git commit` again"),
                    "{case}: {stderr}"
                );
                repo.mneme(&["status"])
                    .assert()
                    .success()
                    .stderr(contains("finished the interrupted commit"));
                let again = repo.git_output(&["commit", "-qam", "my work"]);
                assert!(again.status.success(), "{case}: {again:?}");
            } else {
                assert!(commit.status.success(), "{case}");
                let at_head = repo.git(&["show", "HEAD:.ledger/facts/pitfalls.md"]);
                if step != "journal" {
                    // The user's commit holds the decision: nothing waits for mneme.
                    assert!(at_head.contains("Kills are survivable."), "{case}");
                }
                let list = repo.mneme(&["review", "list"]).output().unwrap();
                let stderr = String::from_utf8_lossy(&list.stderr);
                if step == "journal" {
                    assert!(stderr.contains("commit them"), "{case}: {stderr}");
                    repo.git(&["commit", "-qm", "Restore the approval", "--", ".ledger"]);
                }
            }
            assert!(
                repo.read(".ledger/facts/pitfalls.md")
                    .contains("Kills are survivable."),
                "{case}"
            );
            let at_head = repo.git(&["show", "HEAD:.ledger/facts/pitfalls.md"]);
            assert!(at_head.contains("Kills are survivable."), "{case}");
            assert_eq!(repo.git(&["show", "HEAD:README.md"]), "mine\n", "{case}");
            assert!(repo.proposals().is_empty(), "{case}");
            assert_eq!(repo.git(&["status", "--porcelain"]), "", "{case}");
            repo.mneme(&["check"]).assert().success();
            repo.git(&["fsck", "--strict"]);
            for left in [
                ".git/index.lock",
                ".git/HEAD.lock",
                ".git/mneme-commit.owner",
                ".git/mneme-decision.json",
            ] {
                assert!(!repo.file(left).exists(), "{case}: {left}");
            }
        }
    }
}

/// `kill -9` at any moment of an approval, then what a user does next: `git commit -a`, hook
/// or none, any mneme verb, `git status`, `git fsck`. Nothing is lost or reverted (a commit
/// made on a decision holds its fact at once), and no lock or temporary file is left for anyone
/// to remove.
#[test]
fn a_kill_at_any_moment_leaves_nothing_to_clean_by_hand() {
    for hook in [true, false] {
        killed_at_moments_spread_over_an_approval(hook);
    }
}

fn killed_at_moments_spread_over_an_approval(hook: bool) {
    let repo = Repo::committed();
    if hook {
        repo.mneme(&["hooks", "install"]).assert().success();
    }
    // How long an approval takes here, to spread the kills over it and a little past.
    let id = repo.propose_add("pitfalls", "Timing the approval.", &["--reason", "r"]);
    let start = std::time::Instant::now();
    repo.approve(&id);
    let whole = start.elapsed();
    for round in 0..24u32 {
        let text = format!("Kill round {round} is survivable.");
        let id = repo.propose_add("pitfalls", &text, &["--reason", "r"]);
        let mut approve = crate::common::mneme_std(repo.path())
            .args(["review", "approve", &id])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Spread over the run: before the locks, inside the commit, after the commit point.
        std::thread::sleep(whole * round / 20);
        let _ = approve.kill();
        approve.wait().unwrap();
        // The user's next commit; a lock the kill left stops git until any mneme verb takes
        // it back.
        let user_git = |args: &[&str]| {
            let first = repo.git_output(args);
            if first.status.success() {
                return;
            }
            let status = repo
                .mneme(&["status"])
                .assert()
                .success()
                .get_output()
                .clone();
            let again = repo.git_output(args);
            // What a retry finds done is done (a commit the first attempt made after all).
            let done = repo.try_git(&["show", "HEAD:notes.txt"]) == format!("round {round}\n")
                && args[0] == "commit";
            assert!(
                again.status.success() || done,
                "round {round}, hook {hook}: git {args:?}\nfirst: {first:?}\nmneme status: {}\nagain: {again:?}\nstatus: {}\nlog: {}\nHEAD:notes.txt: {:?}\nnotes.txt: {:?}\nlog of notes.txt: {}",
                String::from_utf8_lossy(&status.stderr),
                repo.try_git(&["status", "--porcelain"]),
                repo.try_git(&["log", "--oneline", "--stat", "-4"]),
                repo.git_output(&["show", "HEAD:notes.txt"]),
                std::fs::read_to_string(repo.file("notes.txt")),
                repo.try_git(&["log", "--oneline", "-3", "--", "notes.txt"])
            );
        };
        repo.write("notes.txt", &format!("round {round}\n"));
        user_git(&["add", "notes.txt"]);
        user_git(&["commit", "-qam", "my work"]);
        // Not undone: once the decision's commit is in the branch's history, so is its fact.
        let decided = repo.git(&["log", "--format=%s", "--fixed-strings", "--grep", &text]);
        if !decided.trim().is_empty() {
            let at_head = repo.git(&["show", "HEAD:.ledger/facts/pitfalls.md"]);
            assert!(
                at_head.contains(&text),
                "round {round}, hook {hook}: reverted"
            );
        }
        repo.mneme(&["review", "list"]).assert().success();
        let tracked = repo.git(&[
            "status",
            "--porcelain",
            "--untracked-files=no",
            "--",
            ".ledger",
        ]);
        if !tracked.is_empty() {
            let out = repo.git_output(&["commit", "-qm", "Restore the approval", "--", ".ledger"]);
            assert!(out.status.success(), "round {round}: {tracked}\n{out:?}");
        }
        let case = format!("round {round}, hook {hook}");
        let approved = repo.read(".ledger/facts/pitfalls.md").contains(&text);
        let pending = repo
            .proposals()
            .iter()
            .any(|p| p.to_string_lossy().contains(&id));
        assert!(
            approved != pending,
            "{case}: approved {approved}, pending {pending}"
        );
        if approved {
            let at_head = repo.git(&["show", "HEAD:.ledger/facts/pitfalls.md"]);
            assert!(at_head.contains(&text), "{case}: committed");
        } else {
            repo.mneme(&["review", "reject", &id]).assert().success();
        }
        repo.mneme(&["check"]).assert().success();
        assert_eq!(repo.git(&["status", "--porcelain"]), "", "{case}");
        repo.git(&["fsck", "--strict", "--no-dangling"]);
        let mut left = Vec::new();
        for dir in [
            ".git",
            ".git/objects",
            ".git/refs/heads",
            ".ledger",
            ".ledger/facts",
            ".ledger/decisions",
            ".ledger/proposals",
        ] {
            for entry in std::fs::read_dir(repo.file(dir)).unwrap().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                // mneme's own locks are advisory (flock): held by a live process, never stale.
                if name == "mneme.lock" || name == "mneme-tasks.lock" {
                    continue;
                }
                if name.ends_with(".lock")
                    || name.ends_with(".tmp")
                    || name.starts_with(".tmp")
                    || name.starts_with("mneme-commit")
                    || name == "mneme-decision.json"
                {
                    left.push(format!("{dir}/{name}"));
                }
            }
        }
        assert!(left.is_empty(), "{case}: left behind {left:?}");
    }
}

/// Proposals made in one second share the first 16 characters of their ids: the random part
/// alone names one, as a prefix does.
#[test]
fn a_proposal_is_named_by_its_random_part_too() {
    let repo = Repo::committed();
    let a = repo.propose_add("pitfalls", "First of the second.", &["--reason", "r"]);
    let b = repo.propose_add("pitfalls", "Second of the second.", &["--reason", "r"]);
    let random = |id: &str| id.rsplit_once('-').unwrap().1.to_owned();
    let show = repo.json(&["review", "show", &random(&b)[..6], "--json"]);
    assert_eq!(show["id"], b.as_str(), "{show:#}");
    repo.approve(&random(&a));
    assert!(repo
        .read(".ledger/facts/pitfalls.md")
        .contains("First of the second."));
    // Too short to be sure: refused, not guessed.
    let out = repo.mneme(&["review", "show", "ab"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// A mistyped filter is refused with what it could have named, not answered with an empty list.
#[test]
fn mistyped_filters_say_what_they_could_name() {
    let repo = Repo::committed();
    repo.mneme(&[
        "propose",
        "add",
        "-f",
        "pitfalls",
        "Filters are checked.",
        "--reason",
        "r",
        "--agent",
        "claude-code",
    ])
    .assert()
    .success();
    let out = repo
        .mneme(&["--json", "review", "list", "--file", "pitfals"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(error_code(&out), "unknown_file");
    let out = repo
        .mneme(&["review", "list", "--agent", "claude"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("claude-code"), "{stderr}");
    let listed = repo.json(&["review", "list", "--agent", "claude-code", "--json"]);
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
}

#[test]
fn unknown_proposals_and_no_terminal() {
    let repo = Repo::committed();
    let out = repo
        .mneme(&["--json", "review", "approve", "nope"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), "unknown_proposal");
    repo.mneme(&["review"])
        .assert()
        .code(1)
        .stderr(contains("needs a terminal"))
        .stderr(contains("review list"));
}

/// Checks out the ledger again so that git's end-of-line conversion applies to the work tree,
/// then approves a proposal there.
fn approve_with_conversion(repo: &Repo) {
    std::fs::remove_dir_all(repo.file(".ledger/facts")).unwrap();
    repo.git(&["checkout", "--", ".ledger/facts"]);
    assert!(
        repo.read(ARCH).contains("\r\n"),
        "the checkout did not convert line endings"
    );
    assert_eq!(repo.status(), "");
    let id = repo.propose_add(
        "architecture",
        "Line endings are git's business.",
        &["--reason", "r"],
    );
    repo.approve(&id);
    let blob = repo.git(&["show", &format!("HEAD:{ARCH}")]);
    assert!(!blob.contains('\r'), "the blob keeps CRLF: {blob:?}");
    assert!(blob.contains("Line endings are git's business."));
    let work = repo.read(ARCH);
    assert!(work.contains("git's business."));
    assert!(
        !work.replace("\r\n", "").contains('\n'),
        "mixed line endings: {work:?}"
    );
    assert_eq!(repo.status(), "", "index and work tree match the commit");
}

#[test]
fn approvals_honour_core_autocrlf() {
    let repo = Repo::committed();
    repo.git(&["config", "core.autocrlf", "true"]);
    approve_with_conversion(&repo);
}

#[test]
fn approvals_honour_eol_crlf_attributes() {
    let repo = Repo::committed();
    let attributes = repo.read(".gitattributes");
    repo.write(
        ".gitattributes",
        &format!("{attributes}*.md text eol=crlf\n"),
    );
    repo.git(&["commit", "-qam", "crlf for markdown"]);
    approve_with_conversion(&repo);
}

#[test]
fn an_ambiguous_prefix_lists_the_proposals_it_matches() {
    let repo = Repo::committed();
    let a = repo.propose_add("architecture", "Fact A.", &["--reason", "r"]);
    let b = repo.propose_add("pitfalls", "Fact B differs.", &["--reason", "r"]);
    let common: String = a
        .chars()
        .zip(b.chars())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect();
    assert!(common.len() >= 2, "{a} {b}");
    let before = repo.snapshot();
    let out = repo
        .mneme(&["--json", "review", "approve", &common])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), "ambiguous_proposal");
    let err: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["matches"], serde_json::json!([a, b]));
    repo.mneme(&["review", "show", &common])
        .assert()
        .code(1)
        .stderr(contains("matches 2 pending proposals"))
        .stderr(contains(&a))
        .stderr(contains("give more of the id"));
    assert_eq!(repo.snapshot(), before, "nothing written");
}

#[test]
fn approve_all_approves_what_applies_and_lists_what_it_left() {
    let repo = Repo::committed();
    let a = repo.propose_add("architecture", "Fact A.", &["--reason", "r"]);
    let fa = repo.new_fact_id(&a);
    repo.approve(&a);
    let up1 = repo.propose_update(&fa, "Fact A, first rewrite.", &["--reason", "r"]);
    let up2 = repo.propose_update(&fa, "Fact A, competing rewrite.", &["--reason", "r"]);
    let c = repo.propose_add("pitfalls", "Never block the executor.", &["--reason", "r"]);
    repo.write(
        ".ledger/proposals/20200101T000000Z-deadbeef.json",
        "{not json",
    );
    let head = repo.head();

    let out = repo
        .mneme(&["--json", "review", "approve", "--all"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let v = json(&out);
    let approved: Vec<_> = v["approved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["proposal"].as_str().unwrap())
        .collect();
    assert_eq!(approved, [up1.as_str(), c.as_str()]);
    let left: Vec<_> = v["left"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["proposal"].as_str().unwrap(), d["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        left,
        [
            ("20200101T000000Z-deadbeef", "invalid_proposal"),
            (up2.as_str(), "conflict")
        ]
    );
    // Two commits, oldest proposal first; the rest still pending.
    assert_eq!(repo.git(&["rev-parse", "HEAD~2"]).trim(), head);
    assert_eq!(repo.trailer("HEAD~1", "Mneme-Proposal"), [up1.as_str()]);
    assert_eq!(repo.trailer("HEAD", "Mneme-Proposal"), [c.as_str()]);
    assert_eq!(repo.proposals().len(), 2);

    // Nothing left that applies: the human output says so.
    repo.mneme(&["review", "reject", &up2, "20200101"])
        .assert()
        .success();
    repo.mneme(&["review", "approve", "--all"])
        .assert()
        .success()
        .stdout(contains("No pending proposals"));
    repo.mneme(&["review", "approve", "--all", &c])
        .assert()
        .code(2);
}

#[test]
fn an_approval_over_the_line_budget_is_announced_before_and_said_after() {
    let repo = Repo::committed();
    let lines = repo.json(&["context", "--json"])["budget"]["used"]
        .as_u64()
        .unwrap();
    repo.write(
        ".ledger/config.yaml",
        &format!("budget_lines: {}\n", lines + 1),
    );
    repo.git(&["commit", "-qam", "tight budget"]);
    let id = repo.propose_add("pitfalls", "One fact too many.", &["--reason", "r"]);
    let show = repo.json(&["review", "show", &id, "--json"]);
    assert_eq!(
        show["budget"],
        serde_json::json!({"lines": lines + 2, "limit": lines + 1})
    );
    repo.mneme(&["review", "show", &id])
        .assert()
        .success()
        .stdout(contains("over budget"));
    repo.mneme(&["review", "approve", &id])
        .assert()
        .success()
        .stderr(contains(format!(
            "takes the facts to {} lines, over budget_lines ({})",
            lines + 2,
            lines + 1
        )));
    assert!(repo
        .read(".ledger/facts/pitfalls.md")
        .contains("One fact too many."));
}

#[test]
fn log_and_why_show_the_texts_before_and_after() {
    let repo = Repo::committed();
    let a = repo.propose_add(
        "architecture",
        "We use PostgreSQL 16.",
        &["--reason", "adr"],
    );
    let fact = repo.new_fact_id(&a);
    repo.approve(&a);
    let up = repo.propose_update(&fact, "We use PostgreSQL 17.", &["--reason", "upgrade"]);
    repo.approve(&up);
    let no = repo.propose_update(
        &fact,
        "We use  PostgreSQL 18\non two lines.",
        &["--reason", "too early"],
    );
    repo.mneme(&["review", "reject", &no, "--reason", "not yet"])
        .assert()
        .success();

    assert!(
        repo.json(&["log", "--json"])[1].get("changes").is_none(),
        "texts only with -p"
    );
    let log = repo.json(&["log", "-p", "--json"]);
    let rejected = &log[0];
    assert_eq!(rejected["verdict"], "reject");
    assert_eq!(
        rejected["proposed_texts"],
        serde_json::json!([{"fact_id": fact, "text": "We use  PostgreSQL 18\non two lines."}])
    );
    assert!(rejected.get("changes").is_none());
    assert_eq!(
        log[1]["changes"],
        serde_json::json!([{"fact": fact, "kind": "changed", "file": "architecture.md",
            "old": "We use PostgreSQL 16.", "new": "We use PostgreSQL 17."}])
    );
    assert_eq!(log[2]["changes"][0]["old"], serde_json::Value::Null);
    assert_eq!(log[2]["changes"][0]["new"], "We use PostgreSQL 16.");

    let why = repo
        .mneme(&["why", &fact])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let why = String::from_utf8(why).unwrap();
    assert!(why.contains("- We use PostgreSQL 16.\n"), "{why}");
    assert!(why.contains("+ We use PostgreSQL 17.\n"), "{why}");
    assert!(why.contains("proposed "), "{why}");
    assert!(why.contains("We use PostgreSQL 18 on two lines."), "{why}");
    repo.mneme(&["log", "-p"])
        .assert()
        .success()
        .stdout(contains("+ We use PostgreSQL 17."));
}

#[test]
fn the_index_an_approval_writes_carries_the_checksum_git_expects() {
    let repo = Repo::committed();
    let id = repo.propose_add("architecture", "Checksummed.", &["--reason", "r"]);
    repo.approve(&id);
    let index = std::fs::read(repo.file(".git/index")).unwrap();
    let (body, sum) = index.split_at(index.len() - 20);
    assert_ne!(sum, [0; 20]);
    // fsck hashes the index itself and refuses one whose trailer differs.
    repo.git(&["fsck", "--strict"]);
    assert_eq!(repo.status(), "");
    assert!(body.starts_with(b"DIRC"));

    // Under index.skipHash the trailer is zeros, as git writes it.
    repo.git(&["config", "index.skipHash", "true"]);
    let id = repo.propose_add("architecture", "Unhashed.", &["--reason", "r"]);
    repo.approve(&id);
    let index = std::fs::read(repo.file(".git/index")).unwrap();
    assert_eq!(index[index.len() - 20..], [0; 20]);
    repo.git(&["fsck", "--strict"]);
    assert_eq!(repo.status(), "");
}

/// Evidence in view: `propose` warns about citations that point at nothing, and `review show`
/// shows the cited lines, or marks a citation missing or out of range.
#[test]
fn the_cited_lines_are_in_view_and_bad_citations_are_marked() {
    let repo = Repo::committed();
    repo.write(
        "src/pool.rs",
        "pub const SIZE: usize = 8;\n// 池の大きさ\npub fn open() {}\n",
    );
    let out = repo
        .mneme(&[
            "propose",
            "add",
            "-f",
            "architecture",
            "The pool holds 8 connections.",
            "--reason",
            "r",
            "--evidence",
            "src/pool.rs:1-2",
            "--evidence",
            "src/nope.rs:1",
            "--evidence",
            "src/pool.rs:7",
            "--evidence",
            "https://example.com/adr/3",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(
        said.contains("src/nope.rs:1: src/nope.rs does not exist in the work tree"),
        "{said}"
    );
    assert!(said.contains("line 7 is past its end"), "{said}");
    let id = repo.proposals()[0]
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();

    let shown = repo.mneme(&["review", "show", &id]).output().unwrap();
    let shown = String::from_utf8(shown.stdout).unwrap();
    assert!(shown.contains("1 │ pub const SIZE: usize = 8;"), "{shown}");
    assert!(shown.contains("2 │ // 池の大きさ"), "{shown}");
    assert!(shown.contains("src/nope.rs does not exist"), "{shown}");
    let v = repo.json(&["review", "show", &id, "--json"]);
    let statuses: Vec<&str> = v["cited"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["lines", "missing", "out_of_range", "other"],
        "{v:#}"
    );
    assert_eq!(
        v["cited"][0]["lines"][1],
        serde_json::json!([2, "// 池の大きさ"])
    );

    let v = repo.json(&[
        "propose",
        "--json",
        "add",
        "-f",
        "pitfalls",
        "Nothing cited is wrong here.",
        "--reason",
        "r",
        "--evidence",
        "src/pool.rs:3",
    ]);
    assert_eq!(v["evidence_problems"], serde_json::json!([]));
}

/// Proposals that act on the same fact compete: `propose` says so when it writes the second,
/// and `review` shows each with the others.
#[test]
fn competing_proposals_are_named_by_propose_and_review() {
    let repo = Repo::committed();
    let fact = repo.approve_new("architecture", "Retries: 3.");
    let update = repo.propose_update(&fact, "Retries: 5.", &["--reason", "r"]);
    let out = repo
        .mneme(&["propose", "remove", &fact, "--reason", "obsolete"])
        .env("MNEME_AGENT", "codex")
        .output()
        .unwrap();
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(
        said.contains(&format!("Pending proposal {update}"))
            && said.contains(&format!("also acts on {fact}")),
        "{said}"
    );
    let v = repo.json(&[
        "propose",
        "--json",
        "supersede",
        &fact,
        "Retries: 4, with backoff.",
        "--reason",
        "r",
    ]);
    let competing = v["competing"].as_array().unwrap();
    assert_eq!(competing.len(), 2, "{v:#}");
    assert_eq!(competing[0]["proposal"], update.as_str());
    assert_eq!(competing[1]["agent"], "codex");
    // An add competes with nothing.
    let v = repo.json(&[
        "propose",
        "--json",
        "add",
        "-f",
        "pitfalls",
        "Unrelated fact here.",
        "--reason",
        "r",
    ]);
    assert_eq!(v["competing"], serde_json::json!([]));

    let shown = repo.json(&["review", "show", &update, "--json"]);
    assert_eq!(shown["competing"].as_array().unwrap().len(), 2, "{shown:#}");
    let text = repo.stdout(&["review", "show", &update]);
    assert_eq!(text.matches("competes:").count(), 2, "{text}");
}

/// Per-operation decisions: an approval can leave operations out; the commit records exactly
/// which (a `Mneme-Dropped` trailer each, the agent's texts kept), and `verify` accepts it.
#[test]
fn an_approval_can_drop_operations_and_says_which() {
    let repo = Repo::committed();
    let base = repo.head();
    repo.write(
        "CLAUDE.md",
        "# Notes\n\n- Keep the first statement here.\n- Drop the second statement here.\n- Keep the third statement here.\n",
    );
    let v = repo.json(&["import", "claude", "CLAUDE.md", "--json"]);
    let id = v["proposals"][0]["id"].as_str().unwrap().to_owned();
    let ops = v["operations"].as_array().unwrap();
    let second = ops[1]["fact_id"].as_str().unwrap().to_owned();
    let shown = repo.stdout(&["review", "show", &id]);
    assert!(shown.contains("2. add"), "{shown}");

    for bad in [&["--drop", "4"][..], &["--drop", "1,2,3"]] {
        let out = repo
            .mneme(&[&["review", "approve", &id][..], bad].concat())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
    }
    repo.mneme(&["review", "approve", &id, "--drop", "2"])
        .assert()
        .success();
    let facts = repo.read(".ledger/facts/architecture.md");
    assert!(facts.contains("Keep the first") && facts.contains("Keep the third"));
    assert!(!facts.contains("Drop the second"), "{facts}");
    assert_eq!(
        repo.trailer("HEAD", "Mneme-Dropped"),
        [format!("add {second} architecture.md")]
    );
    assert_eq!(repo.trailer("HEAD", "Mneme-Edited"), ["true"]);
    assert!(repo.trailer("HEAD", "Mneme-Proposed-Text")[0].contains("Drop the second"));
    assert_eq!(repo.trailer("HEAD", "Mneme-Operation").len(), 2);
    assert!(repo.proposals().is_empty());
    let log = repo.json(&["log", "-n", "1", "--json"]);
    assert_eq!(log[0]["dropped"][0]["fact_ids"][0], second.as_str());
    repo.mneme(&["verify", &format!("{base}..HEAD")])
        .assert()
        .success();
}

/// `--drop` takes ranges; `why` and `log` then say how many operations were approved, list the
/// operations in brief (the explained fact's first), and call it no edit: no text was changed.
#[test]
fn an_approval_dropping_a_range_says_approved_n_of_m_in_a_brief_header() {
    let repo = Repo::committed();
    let lines: String = (1..=8)
        .map(|n| format!("- Imported statement number {n} stays short.\n"))
        .collect();
    repo.write("CLAUDE.md", &format!("# Notes\n\n{lines}"));
    let v = repo.json(&["import", "claude", "CLAUDE.md", "--json"]);
    let id = v["proposals"][0]["id"].as_str().unwrap().to_owned();
    let ids: Vec<String> = v["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["fact_id"].as_str().unwrap().to_owned())
        .collect();
    for bad in ["2-1", "0-3", "1-x", "1-8"] {
        let out = repo
            .mneme(&["review", "approve", &id, "--drop", bad])
            .output()
            .unwrap();
        assert_ne!(out.status.code(), Some(0), "{bad}");
        assert!(
            repo.proposals().len() == 1,
            "{bad} left the proposal pending"
        );
    }
    repo.mneme(&["review", "approve", &id, "--drop", "1-2,4"])
        .assert()
        .success();
    assert_eq!(repo.trailer("HEAD", "Mneme-Dropped").len(), 3);
    let facts = repo.read(".ledger/facts/architecture.md");
    for (n, fact) in ids.iter().enumerate() {
        assert_eq!(
            facts.contains(fact.as_str()),
            ![0, 1, 3].contains(&n),
            "{fact}"
        );
    }

    let why = repo.stdout(&["why", &ids[6]]);
    let header = why
        .lines()
        .find(|l| l.contains("approve"))
        .unwrap_or_else(|| panic!("{why}"));
    assert!(
        header.contains(&format!("approve add {}; ", ids[6])),
        "{header}"
    );
    assert!(header.contains("and 2 more operation(s)"), "{header}");
    assert!(header.contains("approved 5 of 8 operations"), "{header}");
    assert!(!header.contains("edited by the reviewer"), "{header}");
    let log = repo.stdout(&["log", "-n", "1"]);
    assert!(log.contains("approved 5 of 8 operations"), "{log}");
}

/// `review undo` proposes the inverse of an approval, for review like any other change; nothing
/// in history is rewritten.
#[test]
fn an_approval_is_undone_by_a_new_proposal() {
    let repo = Repo::committed();
    let fact = repo.approve_new("architecture", "Retries: 3, fixed delay.");
    let added = repo.head();
    let id = repo.propose_update(&fact, "Retries: 5, with backoff.", &["--reason", "r"]);
    repo.approve(&id);
    let updated = repo.head();
    let gone = repo.approve_new("pitfalls", "A pitfall removed by mistake.");
    let id = repo.propose(&["remove", &gone, "--reason", "r"]);
    repo.approve(&id);
    let removed = repo.head();
    let history = repo.git(&["rev-list", "--count", "HEAD"]);

    // The update, by its commit: the old text comes back, once approved.
    let v = repo.json(&["review", "undo", &updated[..10], "--json"]);
    let undo = v["id"].as_str().unwrap().to_owned();
    assert_eq!(v["proposal"]["operations"][0]["op"], "update");
    assert_eq!(
        v["proposal"]["operations"][0]["text"],
        "Retries: 3, fixed delay."
    );
    assert_eq!(v["proposal"]["evidence"][0], updated.as_str());
    assert_eq!(
        repo.git(&["rev-list", "--count", "HEAD"]),
        history,
        "nothing rewritten"
    );
    repo.approve(&undo);
    assert!(repo
        .read(".ledger/facts/architecture.md")
        .contains("Retries: 3, fixed delay."));

    // The removal, by its proposal's id: the text is added again.
    let proposal = repo.trailer(&removed, "Mneme-Proposal")[0].clone();
    let v = repo.json(&["review", "undo", &proposal, "--json"]);
    assert_eq!(v["proposal"]["operations"][0]["op"], "add");
    assert_eq!(
        v["proposal"]["operations"][0]["text"],
        "A pitfall removed by mistake."
    );

    // The addition: proposed for removal.
    let v = repo.json(&["review", "undo", &added, "--json"]);
    assert_eq!(v["proposal"]["operations"][0]["op"], "remove");
    assert_eq!(v["proposal"]["operations"][0]["fact_id"], fact.as_str());

    // By a revision: HEAD is the last approval, an addition.
    let extra = repo.approve_new("pitfalls", "Undone by its revision.");
    let v = repo.json(&["review", "undo", "HEAD", "--json"]);
    assert_eq!(v["proposal"]["operations"][0]["op"], "remove");
    assert_eq!(v["proposal"]["operations"][0]["fact_id"], extra.as_str());
    repo.mneme(&["review", "reject", v["id"].as_str().unwrap()])
        .assert()
        .success();

    // A supersession: the successor goes and the fact it replaced is current again.
    let old = repo.approve_new("invariants", "Ids are 4 characters.");
    let id = repo.propose(&["supersede", &old, "Ids are 6 characters.", "--reason", "r"]);
    let successor = repo.new_fact_id(&id);
    repo.approve(&id);
    let v = repo.json(&["review", "undo", &id, "--json"]);
    repo.approve(v["id"].as_str().unwrap());
    let invariants = repo.read(".ledger/facts/invariants.md");
    assert!(!invariants.contains(&successor), "{invariants}");
    assert!(
        invariants.contains("Ids are 4 characters.") && !invariants.contains("superseded"),
        "{invariants}"
    );

    // What has no inverse, and what is not a decision, are refused with why.
    let id = repo.propose(&["verify", &fact, "--reason", "checked"]);
    repo.approve(&id);
    // A git revision names the decision it resolves to, as a commit id does.
    let out = repo.mneme(&["review", "undo", "HEAD"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no inverse"),
        "{out:?}"
    );
    let verified = repo.head();
    let out = repo.mneme(&["review", "undo", &verified]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no inverse"),
        "{out:?}"
    );
    let id = repo.propose_add("pitfalls", "Not this one.", &["--reason", "r"]);
    repo.mneme(&["review", "reject", &id]).assert().success();
    let out = repo.mneme(&["review", "undo", &id]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is a rejection"),
        "{out:?}"
    );
}
