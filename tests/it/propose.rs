use std::os::unix::ffi::OsStrExt;

use crate::common::{error_code, json, Repo};
use predicates::str::contains;
use serde_json::Value;

fn seeded() -> Repo {
    let repo = Repo::new();
    repo.seed_facts(
        "architecture",
        &[
            ("f-aaaa", "We use PostgreSQL 16, not SQLite."),
            ("f-bbbb", "Services talk over gRPC."),
        ],
    );
    repo.seed_facts("pitfalls", &[("f-cccc", "Never block the async executor.")]);
    repo
}

fn propose_json(repo: &Repo, args: &[&str]) -> Value {
    let mut full = vec!["propose", "--json"];
    full.extend_from_slice(args);
    let out = repo.mneme(&full).assert().success().get_output().clone();
    json(&out)
}

fn proposal_file(repo: &Repo, out: &Value) -> Value {
    let text = repo.read(out["path"].as_str().unwrap());
    serde_json::from_str(&text).unwrap()
}

#[test]
fn add_writes_one_proposal_with_base_hashes() {
    let repo = seeded();
    let out = propose_json(
        &repo,
        &[
            "add",
            "--file",
            "pitfalls",
            "Avoid N+1 queries in handlers.",
            "--reason",
            "seen in review",
            "--evidence",
            "src/api.rs:40",
            "--evidence",
            "https://example.com/pr/7",
            "--agent",
            "claude",
        ],
    );
    let id = out["id"].as_str().unwrap();
    assert_eq!(out["path"], format!(".ledger/proposals/{id}.json"));
    assert_eq!(repo.proposals().len(), 1);
    let p = proposal_file(&repo, &out);
    assert_eq!(p["schema"], 1);
    assert_eq!(p["id"], id);
    assert_eq!(p["agent"], "claude");
    assert_eq!(p["author"], "Test Human <human@example.com>");
    assert_eq!(p["reason"], "seen in review");
    assert_eq!(
        p["evidence"],
        serde_json::json!(["src/api.rs:40", "https://example.com/pr/7"])
    );
    let op = &p["operations"][0];
    assert_eq!(op["op"], "add");
    assert_eq!(op["file"], "pitfalls.md");
    assert_eq!(op["text"], "Avoid N+1 queries in handlers.");
    assert!(op["fact_id"].as_str().unwrap().starts_with("f-"));
    let sha =
        mneme::model::base::ids::sha256_hex(repo.read(".ledger/facts/pitfalls.md").as_bytes());
    assert_eq!(p["base"]["pitfalls.md"], sha);
    // The id is `<UTC timestamp>-<hash>`.
    let (stamp, hash) = id.split_once('-').unwrap();
    assert_eq!(stamp.len(), 16);
    assert!(stamp.ends_with('Z') && stamp.as_bytes()[8] == b'T');
    assert_eq!(hash.len(), 8);
    // Facts are untouched.
    assert!(!repo.read(".ledger/facts/pitfalls.md").contains("N+1"));
}

#[test]
fn update_remove_and_supersede_name_their_targets() {
    let repo = seeded();
    let up = proposal_file(
        &repo,
        &propose_json(
            &repo,
            &[
                "update",
                "f-aaaa",
                "We use PostgreSQL 17.",
                "--reason",
                "upgrade",
            ],
        ),
    );
    assert_eq!(
        up["operations"][0],
        serde_json::json!({"op": "update", "file": "architecture.md", "fact_id": "f-aaaa", "before": "We use PostgreSQL 16, not SQLite.", "text": "We use PostgreSQL 17."})
    );
    let rm = proposal_file(
        &repo,
        &propose_json(&repo, &["remove", "f-bbbb", "--reason", "gone"]),
    );
    assert_eq!(
        rm["operations"][0],
        serde_json::json!({"op": "remove", "file": "architecture.md", "fact_id": "f-bbbb", "before": "Services talk over gRPC."})
    );
    let sup = proposal_file(
        &repo,
        &propose_json(
            &repo,
            &[
                "supersede",
                "f-cccc",
                "Use spawn_blocking for blocking work.",
                "--reason",
                "clearer",
            ],
        ),
    );
    let op = &sup["operations"][0];
    assert_eq!(op["op"], "supersede");
    assert_eq!(op["fact_id"], "f-cccc");
    assert_eq!(op["file"], "pitfalls.md");
    assert!(op["new_fact_id"].as_str().unwrap().starts_with("f-"));
    assert_eq!(repo.proposals().len(), 3);
}

#[test]
fn text_from_stdin_and_agent_from_the_environment() {
    let repo = seeded();
    let out = repo
        .mneme(&[
            "propose",
            "--json",
            "add",
            "-f",
            "architecture",
            "--stdin",
            "--reason",
            "r",
        ])
        .env("MNEME_AGENT", "codex")
        .write_stdin("Line one of the fact,\r\nline two.\n")
        .assert()
        .success()
        .get_output()
        .clone();
    let p = proposal_file(&repo, &json(&out));
    assert_eq!(p["agent"], "codex");
    assert_eq!(
        p["operations"][0]["text"],
        "Line one of the fact,\nline two."
    );
}

/// A proposal readers would refuse is never written: past the operations one proposal may make,
/// `propose` refuses before planning any of them (10,000 took seconds, then wrote a file every
/// reader called invalid).
#[test]
fn from_json_refuses_more_operations_than_a_proposal_may_hold_before_planning() {
    let repo = Repo::committed();
    let ops: Vec<Value> = (0..10_000)
        .map(|i| serde_json::json!({"op": "add", "file": "pitfalls", "text": format!("Rule {i} holds.")}))
        .collect();
    repo.write(
        "ops.json",
        &serde_json::json!({"reason": "r", "operations": ops}).to_string(),
    );
    let before = repo.snapshot();
    let out = repo
        .mneme(&["--json", "propose", "--from-json", "ops.json"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), "invalid_input", "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most 1000"));
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn from_json_writes_one_multi_operation_proposal() {
    let repo = seeded();
    repo.write(
        "ops.json",
        r#"{"reason": "storage rework", "evidence": ["docs/adr/4.md"], "agent": "claude",
            "operations": [
              {"op": "add", "file": "architecture", "text": "Migrations run at deploy time."},
              {"op": "update", "fact_id": "f-bbbb", "text": "Services talk over gRPC with TLS."},
              {"op": "remove", "fact_id": "f-cccc"}
            ]}"#,
    );
    let out = propose_json(
        &repo,
        &["--from-json", "ops.json", "--evidence", "src/db.rs:1"],
    );
    let p = proposal_file(&repo, &out);
    assert_eq!(p["operations"].as_array().unwrap().len(), 3);
    assert_eq!(
        p["evidence"],
        serde_json::json!(["docs/adr/4.md", "src/db.rs:1"])
    );
    assert_eq!(p["base"].as_object().unwrap().len(), 2);
    assert_eq!(repo.proposals().len(), 1);
    // From stdin too.
    repo.mneme(&["propose", "--from-json", "-"])
        .write_stdin(r#"{"reason": "r", "operations": [{"op": "add", "file": "pitfalls", "text": "Another."}]}"#)
        .assert()
        .success();
    assert_eq!(repo.proposals().len(), 2);
}

/// Runs a propose that must be refused: exit 1, the JSON error code, a human message, and not a
/// byte written under `.ledger`.
fn refused(repo: &Repo, args: &[&str], code: &str, message: &str) {
    let before = repo.snapshot();
    let mut full = vec!["propose", "--json"];
    full.extend_from_slice(args);
    let out = repo.mneme(&full).assert().code(1).get_output().clone();
    assert_eq!(error_code(&out), code, "{args:?}");
    assert!(out.stdout.is_empty());
    let mut human = vec!["propose"];
    human.extend_from_slice(args);
    repo.mneme(&human)
        .assert()
        .code(1)
        .stderr(contains(message));
    assert_eq!(repo.snapshot(), before, "{args:?} wrote something");
}

#[test]
fn refusals_exit_1_and_write_nothing() {
    let repo = seeded();
    refused(
        &repo,
        &["add", "-f", "nosuch", "x", "--reason", "r"],
        "unknown_file",
        "known files: architecture, invariants",
    );
    refused(
        &repo,
        &["add", "-f", "../etc/passwd", "x", "--reason", "r"],
        "invalid_file_name",
        "invalid fact file name",
    );
    refused(
        &repo,
        &["add", "-f", "a/b", "x", "--reason", "r"],
        "invalid_file_name",
        "without a path",
    );
    refused(
        &repo,
        &["update", "f-zzzz", "x", "--reason", "r"],
        "unknown_fact",
        "known ids: f-aaaa, f-bbbb, f-cccc",
    );
    refused(
        &repo,
        &["remove", "f-zzzz", "--reason", "r"],
        "unknown_fact",
        "unknown fact `f-zzzz`",
    );
    refused(
        &repo,
        &["add", "-f", "pitfalls", "   ", "--reason", "r"],
        "empty_text",
        "empty",
    );
    let long = "x".repeat(1001);
    refused(
        &repo,
        &["add", "-f", "pitfalls", &long, "--reason", "r"],
        "text_too_long",
        "1001 characters",
    );
    refused(
        &repo,
        &[
            "add",
            "-f",
            "pitfalls",
            "we use postgresql 16 -- not SQLite",
            "--reason",
            "r",
        ],
        "duplicate_fact",
        "`f-aaaa`",
    );
    refused(
        &repo,
        &[
            "update",
            "f-aaaa",
            "We use PostgreSQL 16, not SQLite!",
            "--reason",
            "r",
        ],
        "no_change",
        "already says",
    );
    refused(
        &repo,
        &["add", "-f", "pitfalls", "x", "--reason", "  "],
        "missing_reason",
        "--reason",
    );
    refused(
        &repo,
        &["add", "-f", "pitfalls", "x"],
        "missing_reason",
        "--reason",
    );
    refused(
        &repo,
        &[
            "add",
            "-f",
            "pitfalls",
            "x",
            "--reason",
            "r",
            "--evidence",
            "two words",
        ],
        "invalid_text",
        "one reference per --evidence",
    );
    refused(
        &repo,
        &["add", "-f", "pitfalls", "x <!-- y", "--reason", "r"],
        "invalid_text",
        "reserved for fact metadata",
    );
}

#[test]
fn duplicate_of_a_pending_proposal_names_it() {
    let repo = seeded();
    let first = propose_json(
        &repo,
        &[
            "add",
            "-f",
            "pitfalls",
            "Cache keys include the tenant id.",
            "--reason",
            "r",
        ],
    );
    let id = first["id"].as_str().unwrap().to_owned();
    refused(
        &repo,
        &[
            "add",
            "-f",
            "architecture",
            "cache keys include the tenant ID",
            "--reason",
            "r",
        ],
        "duplicate_proposal",
        &id,
    );
}

#[test]
fn near_duplicates_are_allowed_but_named() {
    let repo = seeded();
    let out = propose_json(
        &repo,
        &[
            "add",
            "-f",
            "architecture",
            "We use PostgreSQL 16 for analytics, not SQLite.",
            "--reason",
            "r",
        ],
    );
    assert_eq!(out["similar"][0]["fact_id"], "f-aaaa");
    assert!(out["similar"][0]["score"].as_f64().unwrap() > 0.5);
    assert!(out["similar"][0].get("proposal").is_none());
    let first = out["id"].as_str().unwrap().to_owned();
    let first_fact = out["proposal"]["operations"][0]["fact_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // A second agent says nearly the same: the fact and the pending proposal are both named.
    let out = repo
        .mneme(&[
            "propose",
            "add",
            "-f",
            "architecture",
            "We use PostgreSQL 16 for reporting, not SQLite.",
            "--reason",
            "r",
        ])
        .assert()
        .success()
        .stdout(contains("Similar facts and pending proposals"))
        .stdout(contains("f-aaaa"))
        .stdout(contains(format!("pending {first}")))
        .get_output()
        .clone();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&first_fact), "{text}");
    // And the reviewer sees the pair from either side.
    repo.mneme(&["review", "show", &first])
        .assert()
        .success()
        .stdout(contains("similar:"))
        .stdout(contains("for reporting"));
    let shown = json(
        &repo
            .mneme(&["review", "show", &first, "--json"])
            .output()
            .unwrap(),
    );
    let pending: Vec<_> = shown["similar"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s.get("proposal").is_some())
        .collect();
    assert_eq!(pending.len(), 1, "{shown}");
    assert_ne!(pending[0]["proposal"], first.as_str());
}

#[test]
fn non_utf8_input_is_refused() {
    let repo = seeded();
    let before = repo.snapshot();
    let bad = std::ffi::OsStr::from_bytes(b"caf\xe9");
    let out = assert_cmd::Command::new(assert_cmd::cargo::cargo_bin("mneme"))
        .current_dir(repo.path())
        .args(["propose", "--json", "add", "-f", "pitfalls"])
        .arg(bad)
        .args(["--reason", "r"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), "invalid_utf8");
    let out = repo
        .mneme(&[
            "propose", "--json", "add", "-f", "pitfalls", "--stdin", "--reason", "r",
        ])
        .write_stdin(b"caf\xe9\n".to_vec())
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), "invalid_utf8");
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn evidence_can_be_required_by_config() {
    let repo = seeded();
    repo.write(".ledger/config.yaml", "require_evidence: true\n");
    refused(
        &repo,
        &["remove", "f-aaaa", "--reason", "r"],
        "evidence_required",
        "--evidence",
    );
    propose_json(
        &repo,
        &["remove", "f-aaaa", "--reason", "r", "--evidence", "abc1234"],
    );
}

#[test]
fn a_ledger_symlinked_out_of_the_repository_is_refused() {
    let repo = Repo::bare_init();
    let outside = tempfile::tempdir().unwrap();
    let other = Repo::new();
    std::fs::rename(other.file(".ledger"), outside.path().join("ledger")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("ledger"), repo.file(".ledger")).unwrap();
    let out = repo
        .mneme(&[
            "propose", "--json", "add", "-f", "pitfalls", "x", "--reason", "r",
        ])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), "unsafe_ledger");
    assert!(std::fs::read_dir(outside.path().join("ledger/proposals"))
        .unwrap()
        .all(|e| { !e.unwrap().file_name().to_string_lossy().ends_with(".json") }));
    repo.mneme(&["context"])
        .assert()
        .code(1)
        .stderr(contains("outside the repository"));
}

#[test]
fn sixty_four_concurrent_proposals_make_sixty_four_valid_files() {
    let repo = seeded();
    let outputs = repo.concurrently(64, |i| {
        [
            "propose",
            "add",
            "-f",
            "pitfalls",
            &format!("Concurrent fact number {i}."),
            "--reason",
            "load",
        ]
        .map(String::from)
        .to_vec()
    });
    for out in outputs {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let files = repo.proposals();
    assert_eq!(files.len(), 64);
    let mut texts = std::collections::BTreeSet::new();
    let mut fact_ids = std::collections::BTreeSet::new();
    for f in &files {
        let p = mneme::model::proposals::proposal::Proposal::parse(
            &std::fs::read_to_string(f).unwrap(),
        )
        .unwrap();
        assert_eq!(f.file_name().unwrap().to_string_lossy(), p.file_name());
        texts.insert(p.operations[0].text().unwrap().to_owned());
        fact_ids.insert(p.operations[0].new_id().unwrap().to_owned());
    }
    assert_eq!(texts.len(), 64);
    assert_eq!(fact_ids.len(), 64);
    // No temporary files are left behind.
    let leftovers = std::fs::read_dir(repo.file(".ledger/proposals"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".tmp")
        })
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn usage_errors_exit_2() {
    let repo = seeded();
    repo.mneme(&["propose", "add", "--reason", "r", "text"])
        .assert()
        .code(2);
    repo.mneme(&["propose", "frobnicate"]).assert().code(2);
    repo.mneme(&[
        "propose", "add", "-f", "pitfalls", "x", "--stdin", "--reason", "r",
    ])
    .assert()
    .code(2);
}

/// Password-style secrets, in every syntax a team writes them, are refused by `propose` and
/// found by `check` in a fact file; placeholders pass.
#[test]
fn password_style_secrets_never_become_memory() {
    let repo = Repo::committed();
    let before = repo.snapshot();
    for text in [
        "Staging uses password: hunter2hunter2 for the admin.",
        "Run it with PASSWORD=letmein99 set.",
        "The old box had passwd: s3cr3t!pass in its config.",
        "Django: secret_key = 'k3y-for-sessions-9' in settings.py.",
        "The cache is redis://:p4ssw0rdXYZ@cache:6379/0 in staging.",
    ] {
        let out = repo
            .mneme(&[
                "--json", "propose", "add", "-f", "pitfalls", text, "--reason", "r",
            ])
            .assert()
            .code(1)
            .get_output()
            .clone();
        assert_eq!(error_code(&out), "secret", "{text}");
    }
    assert_eq!(repo.snapshot(), before);
    for text in [
        "Set password: <your password> in .env, never in the repository.",
        "The example config says PASSWORD=changeme; production overrides it.",
        "The password comes from ${DB_PASSWORD} at start.",
    ] {
        repo.propose_add("pitfalls", text, &["--reason", "r"]);
    }
    // Written into a fact file by hand, `check` finds it.
    let pitfalls = repo.read(".ledger/facts/pitfalls.md");
    repo.write(
        ".ledger/facts/pitfalls.md",
        &format!("{pitfalls}- **f-pw01** The admin password: hunter2hunter2 works.\n"),
    );
    repo.mneme(&["check"]).assert().code(1);
    let findings = repo.findings();
    let secrets = findings.iter().filter(|f| f["code"] == "secret").count();
    assert_eq!(secrets, 1, "{findings:#?}");
    assert!(
        !format!("{findings:?}").contains("hunter2hunter2"),
        "the value is never repeated whole"
    );
}

#[test]
fn credentials_never_become_memory() {
    let repo = Repo::committed();
    let token = "ghp_abcdEFGH1234ijklMNOP5678qrstUVWX90yz";
    let before = repo.snapshot();
    for args in [
        vec![
            "add",
            "-f",
            "pitfalls",
            "The CI token is ghp_abcdEFGH1234ijklMNOP5678qrstUVWX90yz.",
            "--reason",
            "r",
        ],
        vec![
            "add",
            "-f",
            "pitfalls",
            "Prod database.",
            "--reason",
            "see postgres://app:hunter2-long@db:5432/x",
        ],
        vec![
            "add",
            "-f",
            "pitfalls",
            "Key material.",
            "--reason",
            "r",
            "--evidence",
            "AKIAIOSFODNN7EXAMPLE",
        ],
    ] {
        let mut full = vec!["--json", "propose"];
        full.extend_from_slice(&args);
        let out = repo.mneme(&full).assert().code(1).get_output().clone();
        assert_eq!(error_code(&out), "secret", "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains(token) && !stderr.contains("hunter2"),
            "{stderr}"
        );
        // Named as the person typed it; `field` keeps the file's name for programs.
        let error: Value = serde_json::from_str(&stderr).unwrap();
        let message = error["error"]["message"].as_str().unwrap();
        assert!(!message.contains("operations["), "{message}");
    }
    let out = repo
        .mneme(&[
            "propose",
            "add",
            "-f",
            "pitfalls",
            &format!("Use {token}."),
            "--reason",
            "r",
        ])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the fact text holds what looks like"),
        "{stderr}"
    );
    assert_eq!(repo.snapshot(), before);
    // Placeholders stand in for passwords: they are not credentials.
    repo.propose_add("pitfalls", "The app connects with postgres://app:${DB_PASSWORD}@db/app; the password comes from the environment.", &["--reason", "r"]);

    // A proposal file that holds one (written by hand, or from a branch) needs a person's override.
    let id = repo.propose_add("pitfalls", "Harmless.", &["--reason", "r"]);
    let path = format!(".ledger/proposals/{id}.json");
    repo.write(
        &path,
        &repo
            .read(&path)
            .replace("Harmless.", &format!("Token {token}.")),
    );
    let out = repo
        .mneme(&["--json", "review", "approve", &id])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), "secret");
    let check = json(
        &repo
            .mneme(&["check", "--json"])
            .assert()
            .code(1)
            .get_output()
            .clone(),
    );
    assert!(check["findings"].to_string().contains("\"secret\""));
    repo.mneme(&["review", "approve", &id, "--allow-secrets"])
        .assert()
        .success();
    assert!(repo.read(".ledger/facts/pitfalls.md").contains(token));
}

/// The `fsync` calls `mneme ARGS` makes, as strace sees them.
fn fsyncs(repo: &Repo, args: &[&str]) -> usize {
    let log = repo.path().join(".git/strace.log");
    let mut cmd = std::process::Command::new("strace");
    cmd.args(["-f", "-qq", "-e", "trace=fsync,fdatasync", "-o"])
        .arg(&log)
        .arg(assert_cmd::cargo::cargo_bin("mneme"))
        .args(args)
        .current_dir(repo.path());
    crate::common::succeeded(crate::common::isolated(&mut cmd).output().unwrap());
    let calls = std::fs::read_to_string(&log).unwrap();
    calls
        .lines()
        .filter(|l| l.contains("fsync(") || l.contains("fdatasync("))
        .count()
}

#[test]
fn proposals_and_tasks_are_synced_when_git_syncs_loose_objects_and_approvals_always() {
    if crate::ci::tool("strace", &["-V"], "which writes are synced to disk").is_none() {
        return;
    }
    let repo = seeded();
    let propose = |n: usize| {
        let statement = format!("Proposal {n} is written as git writes a loose object.");
        fsyncs(
            &repo,
            &[
                "propose", "add", "--file", "pitfalls", &statement, "--reason", "test",
            ],
        )
    };
    let note = |repo: &Repo| {
        let out = repo.mneme(&["doctor", "--json"]).output().unwrap();
        json(&out)["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .find(|n| n.starts_with("proposals, tasks and session records"))
            .unwrap()
            .to_owned()
    };
    // git's default syncs packs, not loose objects: neither are proposals or tasks.
    assert_eq!(propose(1), 0);
    assert_eq!(fsyncs(&repo, &["create", "Write it whole"]), 0);
    assert!(note(&repo).contains("not synced"), "{}", note(&repo));
    // A setting that leaves loose objects out changes nothing.
    repo.git(&["config", "core.fsync", "pack,index,reference"]);
    assert_eq!(propose(2), 0);
    for (n, value) in ["committed", "all", "none,loose-object"]
        .into_iter()
        .enumerate()
    {
        repo.git(&["config", "core.fsync", value]);
        assert!(propose(3 + n) >= 1, "core.fsync={value}");
        assert!(fsyncs(&repo, &["create", "Write it synced"]) >= 1);
        assert!(note(&repo).contains("are synced"), "{}", note(&repo));
    }
    repo.git(&["config", "--unset", "core.fsync"]);
    repo.git(&["config", "core.fsyncObjectFiles", "true"]);
    assert!(propose(6) >= 1);
    repo.git(&["config", "--unset", "core.fsyncObjectFiles"]);
    // What a person approves is synced whatever git's setting.
    repo.git(&["add", "-A", ".ledger/facts"]);
    repo.git(&["commit", "-qm", "facts"]);
    let list = repo.json(&["review", "list", "--json"]);
    let id = list[0]["id"].as_str().unwrap();
    assert!(fsyncs(&repo, &["review", "approve", id]) >= 1);
}
