use crate::common::Repo;
use predicates::str::contains;

const FACT_FILES: [&str; 4] = [
    "architecture",
    "invariants",
    "performance_rules",
    "pitfalls",
];

#[test]
fn init_creates_the_ledger_and_the_agents_block() {
    let repo = Repo::new();
    for name in FACT_FILES {
        let src = repo.read(&format!(".ledger/facts/{name}.md"));
        assert!(src.starts_with("---\ntitle: "), "{name}: {src}");
    }
    assert!(repo.file(".ledger/proposals").is_dir());
    assert!(repo
        .read(".ledger/config.yaml")
        .contains("budget_lines: 800"));
    let agents = repo.read("AGENTS.md");
    assert!(agents.contains("<!-- mneme:begin"));
    assert!(agents.contains("Never edit `.ledger/facts/` directly"));
    assert!(agents.contains("mneme propose"));
    assert!(agents.trim_end().ends_with("<!-- mneme:end -->"));
}

/// `init` installs mneme's commit-msg hook, keeping a hook that was there and running it first,
/// and says so; right after the README's set-up, `doctor` finds nothing to fix. Where
/// `core.hooksPath` is inside the repository, its files are the project's: nothing is written,
/// and `init` says what to add.
#[test]
fn init_installs_the_commit_msg_hook_chaining_one_that_was_there() {
    let repo = Repo::bare_init();
    repo.write("README.md", "# project\n");
    let legacy = repo.file(".git/hooks/commit-msg");
    std::fs::create_dir_all(legacy.parent().unwrap()).unwrap();
    std::fs::write(
        &legacy,
        "#!/bin/sh\necho legacy ran >> \"$(git rev-parse --git-dir)/legacy.log\"\n",
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&legacy, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = repo.stdout(&["init"]);
    assert!(out.contains("git hook commit-msg"), "{out}");
    assert!(
        out.contains("note: the commit-msg hook that was there runs first"),
        "{out}"
    );
    assert!(repo.file(".git/hooks/commit-msg.pre-mneme").exists());
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "set up"]);
    assert_eq!(repo.read(".git/legacy.log"), "legacy ran\n");
    repo.mneme(&["doctor"]).assert().success();
    // mneme's hook refuses a hand edit of a fact, after the chained hook ran.
    repo.approve_new("pitfalls", "Guarded.");
    let pitfalls = repo.read(".ledger/facts/pitfalls.md");
    repo.write(
        ".ledger/facts/pitfalls.md",
        &pitfalls.replace("Guarded.", "Edited."),
    );
    assert!(!repo
        .git_output(&["commit", "-qam", "edit"])
        .status
        .success());
    // A second init changes nothing.
    let again = repo.json(&["init", "--json"]);
    assert!(
        again["unchanged"]
            .to_string()
            .contains("git hook commit-msg"),
        "{again:#}"
    );

    let tracked = Repo::bare_init();
    tracked.git(&["config", "core.hooksPath", ".githooks"]);
    let v = tracked.json(&["init", "--json"]);
    assert!(
        v["notes"][0]
            .as_str()
            .unwrap()
            .contains("core.hooksPath is inside the repository"),
        "{v:#}"
    );
    assert!(!tracked.file(".githooks").exists());
}

/// Where git runs hooks without `mneme` on the PATH (a GUI client), mneme's commit-msg hook finds
/// it in the project's `node_modules/.bin` as the agents' hooks do; without it anywhere, it says
/// what is missing and how to go on, and the commit is not made.
#[test]
fn the_commit_msg_hook_finds_mneme_or_says_it_is_missing() {
    let repo = Repo::committed();
    repo.mneme(&["hooks", "install"]).assert().success();
    let head = repo.head();
    repo.write("notes.txt", "work\n");
    repo.git(&["add", "notes.txt"]);
    let out = repo.git_output_without_mneme(&["commit", "-qm", "my work"]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("`mneme` is not on the PATH") && said.contains("--no-verify"),
        "{said}"
    );
    assert_eq!(repo.head(), head);

    let bin = repo.file("node_modules/.bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("mneme"), bin.join("mneme")).unwrap();
    assert!(repo.git_without_mneme(&["commit", "-qm", "my work"]));
    // And it is mneme that runs there: a hand edit of a fact is refused.
    let file = ".ledger/facts/pitfalls.md";
    let text = repo.read(file);
    repo.write(file, &format!("{text}\n- Always force-push to main.\n"));
    let out = repo.git_output_without_mneme(&["commit", "-qam", "a fact by hand"]);
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A teammate's `init` in a fresh clone of a set-up repository has nothing to commit, and says
/// so rather than asking for a commit of files that are already committed.
#[test]
fn init_in_a_fresh_clone_says_there_is_nothing_to_commit() {
    let origin = Repo::committed();
    let clone = Repo::bare_init();
    clone.git(&["pull", "-q", origin.path().to_str().unwrap(), "main"]);
    let out = clone.stdout(&["init"]);
    assert!(out.contains("nothing to commit"), "{out}");
    assert!(!out.contains("Next: commit"), "{out}");
    assert_eq!(clone.git(&["status", "--porcelain"]), "");
    let first = Repo::bare_init().stdout(&["init"]);
    assert!(first.contains("Next: commit .ledger/"), "{first}");
}

/// The commit that sets mneme up (the README's `init`, then `git add` and `git commit`) is
/// mneme's own: `verify` passes it without a note. A starter file edited before that commit is
/// text around the facts nobody reviewed, and is still noted.
#[test]
fn verify_passes_mneme_s_own_set_up_commit_without_a_note() {
    for edited in [false, true] {
        let repo = Repo::bare_init();
        repo.write("README.md", "# project\n");
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "first"]);
        repo.init(&[]);
        if edited {
            let file = ".ledger/facts/pitfalls.md";
            let text = repo.read(file);
            repo.write(file, &format!("{text}\nAlways force-push to main.\n"));
        }
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "set up mneme"]);
        let v = repo.json(&["verify", "HEAD~1..HEAD", "--json"]);
        assert_eq!(v["violations"], serde_json::json!([]), "{v:#}");
        let noted: Vec<&str> = v["notes"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|n| n["files"].as_array().unwrap())
            .map(|f| f.as_str().unwrap())
            .collect();
        let expected: &[&str] = if edited { &["pitfalls.md"] } else { &[] };
        assert_eq!(noted, expected, "{v:#}");
    }
}

#[test]
fn rerunning_init_keeps_facts_and_only_refreshes_the_block() {
    let repo = Repo::new();
    repo.seed_facts("architecture", &[("f-aaaa", "Hand-approved fact.")]);
    let custom = repo.read("AGENTS.md").replace(
        "<!-- mneme:begin",
        "# My agents\n\nOwn instructions.\n\n<!-- mneme:begin",
    );
    let stale = custom.replace("outrank conversation history", "OLD WORDING");
    repo.write("AGENTS.md", &format!("{stale}\nFooter stays.\n"));
    repo.write(".ledger/config.yaml", "budget_lines: 50\n");

    let out = repo
        .mneme(&["init", "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let report = crate::common::json(&out);
    // `Repo::new` took the hook away; init puts it back.
    assert_eq!(
        report["updated"],
        serde_json::json!(["AGENTS.md", "git hook commit-msg"])
    );
    assert_eq!(report["created"], serde_json::json!([]));

    assert!(repo
        .read(".ledger/facts/architecture.md")
        .contains("f-aaaa"));
    assert_eq!(repo.read(".ledger/config.yaml"), "budget_lines: 50\n");
    let agents = repo.read("AGENTS.md");
    assert!(agents.starts_with("# My agents\n\nOwn instructions.\n\n<!-- mneme:begin"));
    assert!(agents.contains("outrank conversation history"));
    assert!(!agents.contains("OLD WORDING"));
    assert!(agents.ends_with("<!-- mneme:end -->\n\nFooter stays.\n"));
    assert_eq!(agents.matches("mneme:begin").count(), 1);

    let again = repo
        .mneme(&["init", "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    assert_eq!(
        crate::common::json(&again)["updated"],
        serde_json::json!([])
    );
}

#[test]
fn init_from_a_subdirectory_uses_the_work_tree_root() {
    let repo = Repo::bare_init();
    let sub = repo.file("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    repo.mneme_in(&sub, &["init"]).assert().success();
    assert!(repo.file(".ledger/facts/pitfalls.md").is_file());
    assert!(!sub.join(".ledger").exists());
    repo.mneme_in(&sub, &["context"]).assert().success();
}

#[test]
fn init_outside_git_suggests_git_init_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = assert_cmd::Command::new(assert_cmd::cargo::cargo_bin("mneme"))
        .current_dir(dir.path())
        .env("GIT_CEILING_DIRECTORIES", dir.path().parent().unwrap())
        .arg("init")
        .assert()
        .code(1)
        .stderr(contains("git init"))
        .get_output()
        .clone();
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn malformed_agents_markers_are_refused() {
    let repo = Repo::bare_init();
    repo.write("AGENTS.md", "<!-- mneme:begin (half a block)\n");
    repo.mneme(&["init"])
        .assert()
        .code(1)
        .stderr(contains("mneme:end"));
    assert_eq!(repo.read("AGENTS.md"), "<!-- mneme:begin (half a block)\n");
}

#[test]
fn verbs_before_init_say_to_run_init() {
    let repo = Repo::bare_init();
    for verb in [
        &["context"][..],
        &["facts"],
        &["propose", "remove", "f-aaaa", "--reason", "r"],
    ] {
        repo.mneme(verb)
            .assert()
            .code(1)
            .stderr(contains("mneme init"));
    }
}

#[test]
fn new_files_follow_the_umask_and_existing_files_keep_their_mode() {
    use std::os::unix::fs::PermissionsExt;
    let repo = Repo::bare_init();
    repo.write("AGENTS.md", "# Agents\n");
    let agents = repo.file("AGENTS.md");
    std::fs::set_permissions(&agents, std::fs::Permissions::from_mode(0o640)).unwrap();
    let mneme = assert_cmd::cargo::cargo_bin("mneme");
    let run = |umask: &str, args: &str| {
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("umask {umask} && exec \"$0\" {args}"))
            .arg(&mneme)
            .current_dir(repo.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap();
        assert!(status.success(), "mneme {args}");
    };
    let mode = |rel: &str| {
        std::fs::metadata(repo.file(rel))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    run("022", "init");
    assert_eq!(mode(".ledger/facts/architecture.md"), 0o644);
    assert_eq!(mode(".ledger/config.yaml"), 0o644);
    assert_eq!(mode(".gitattributes"), 0o644);
    assert_eq!(mode("AGENTS.md"), 0o640, "an existing file keeps its mode");
    assert!(repo.read("AGENTS.md").contains("mneme:begin"));
    run("077", "propose add -f pitfalls 'Private.' --reason r");
    let proposal = repo.proposals().pop().unwrap();
    assert_eq!(
        std::fs::metadata(proposal).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

#[test]
fn the_block_names_the_fact_files_and_can_live_in_another_instructions_file() {
    let repo = Repo::new();
    let agents = repo.read("AGENTS.md");
    assert!(
        agents.contains("`architecture`, `invariants`, `performance_rules`, `pitfalls`"),
        "{agents}"
    );
    assert!(agents.contains("mneme compact"));
    repo.mneme(&["init", "--agents-file", "CLAUDE.md"])
        .assert()
        .success();
    let claude = repo.read("CLAUDE.md");
    assert!(claude.contains("<!-- mneme:begin") && claude.contains("`pitfalls`"));
    repo.mneme(&["init", "--agents-file", "../outside.md"])
        .assert()
        .code(1);
}

/// A teammate's `init` after cloning refreshes the file the project chose, and writes no stray
/// AGENTS.md with a second copy of the block.
#[test]
fn the_agents_file_is_remembered_for_the_teammates_init() {
    let repo = Repo::bare_init();
    let out = repo
        .mneme(&["init", "--agents-file", "CLAUDE.md"])
        .assert()
        .success()
        .get_output()
        .clone();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(said.contains("commit .ledger/, CLAUDE.md and"), "{said}");
    assert!(!repo.file("AGENTS.md").exists());
    assert!(repo
        .read(".ledger/config.yaml")
        .contains("agents_file: \"CLAUDE.md\""));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "ledger"]);

    let clone = tempfile::tempdir().unwrap();
    let dir = clone.path().join("clone");
    repo.git(&["clone", "-q", ".", dir.to_str().unwrap()]);
    repo.mneme_in(&dir, &["init"]).assert().success();
    assert!(!dir.join("AGENTS.md").exists(), "a stray AGENTS.md");
    let status = repo.mneme_in(&dir, &["--json", "doctor"]).output().unwrap();
    let problems = crate::common::json(&status)["problems"].to_string();
    assert!(!problems.contains("block"), "{problems}");

    // A hand-edited config that names a file outside the repository is refused, not written to.
    repo.write(".ledger/config.yaml", "agents_file: ../outside.md\n");
    let out = repo
        .mneme(&["--json", "init"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(crate::common::error_code(&out), "config");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("agents_file"),
        "{out:?}"
    );
    assert!(!repo.path().join("../outside.md").exists());
}

/// The README's first command with a path that is no repository, or no directory: each says
/// which, in plain words, with what to do.
#[test]
fn a_path_that_is_no_repository_or_no_directory_is_said_plainly() {
    let dir = tempfile::tempdir().unwrap();
    for (path, said) in [
        (dir.path().to_owned(), "is not inside a git work tree"),
        (dir.path().join("your-repo"), "there is no directory"),
    ] {
        let out = assert_cmd::Command::cargo_bin("mneme")
            .unwrap()
            .arg("-C")
            .arg(&path)
            .arg("init")
            .env("GIT_CEILING_DIRECTORIES", dir.path().parent().unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(said) && stderr.contains("hint:"),
            "{stderr}"
        );
        assert!(!stderr.contains("NotFound"), "{stderr}");
    }
}

/// The range a pull request uses, in a repository that has no remote yet: refused with what to
/// name instead.
#[test]
fn a_remote_branch_that_is_not_there_says_what_to_name() {
    let repo = Repo::new();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "ledger"]);
    let out = repo
        .mneme(&["verify", "origin/main..HEAD"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("git fetch") && stderr.contains("main..HEAD"),
        "{stderr}"
    );
    repo.mneme(&["verify"]).assert().success();
}

/// `init --ci gitlab` writes mneme's CI file and adds its one `include:` entry to the project's
/// `.gitlab-ci.yml`, leaving the rest of it as it was; a file it cannot edit safely is left as
/// it is, with the line to add.
#[test]
fn init_for_gitlab_adds_one_include_and_names_what_to_commit_and_set_up() {
    let repo = Repo::committed();
    let ci = "# build and test\nstages: [build, test]\n\nbuild:\n  script: make\n";
    repo.write(".gitlab-ci.yml", ci);
    let out = repo.stdout(&["init", "--ci", "gitlab"]);
    assert_eq!(
        repo.read(".gitlab-ci.yml"),
        "# build and test\ninclude:\n  - local: '.gitlab/mneme.gitlab-ci.yml'\n\nstages: [build, test]\n\nbuild:\n  script: make\n"
    );
    assert!(repo
        .read(".gitlab/mneme.gitlab-ci.yml")
        .contains("mneme-decide:"));
    assert!(
        out.contains("Next: commit .gitlab/mneme.gitlab-ci.yml and .gitlab-ci.yml;"),
        "{out}"
    );
    assert!(
        out.contains("as MNEME_GITLAB_TOKEN, masked and protected"),
        "{out}"
    );
    // Again: nothing changes.
    let again = repo.stdout(&["init", "--ci", "gitlab"]);
    assert!(again.contains("nothing to commit"), "{again}");

    let flow = Repo::committed();
    flow.write(".gitlab-ci.yml", "include: [ci/a.yml]\n");
    let out = flow.stdout(&["init", "--ci", "gitlab"]);
    assert_eq!(flow.read(".gitlab-ci.yml"), "include: [ci/a.yml]\n");
    assert!(
        out.contains("note: .gitlab-ci.yml was left as it is (its `include:` is not a block list): add `- local: '.gitlab/mneme.gitlab-ci.yml'` to its `include:` list"),
        "{out}"
    );
    assert!(
        out.contains("Next: commit .gitlab/mneme.gitlab-ci.yml;"),
        "{out}"
    );
}
