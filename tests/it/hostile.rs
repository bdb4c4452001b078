//! Hostile proposal files (the corpus in `tests/it/hostile/`): each arrives as a branch or a hand
//! edit would bring it. None can be approved; each is listed and shown as invalid with why,
//! without a raw control character reaching the terminal, and can be rejected.

use std::fs;
use std::path::Path;

use crate::common::{error_code, json, Repo};

/// Each case and a piece of the reason it must be refused with.
const CASES: [(&str, &str); 26] = [
    ("ansi-text", "control characters"),
    ("ansi-reason", "control characters"),
    ("ansi-agent", "one line without control characters"),
    ("carriage-return", "control characters"),
    ("smuggled-item", "reads as another fact"),
    ("state-comment", "reserved for fact metadata"),
    ("markdown-id", "is not a fact id"),
    ("update-markdown-id", "is not a fact id"),
    ("too-long", "more than the limit"),
    ("no-operations", "a proposal changes at least one fact"),
    ("id-mismatch", "but holds proposal"),
    ("evidence-newline", "without spaces"),
    ("evidence-semicolon", "without spaces or `;`"),
    ("agent-newline", "one line without control characters"),
    ("traversal", "is not a fact file of this ledger"),
    ("unknown-file", "is not a fact file of this ledger"),
    ("same-fact-twice", "is named twice"),
    ("bad-created-at", "not an RFC 3339 time"),
    ("bad-base", "base"),
    ("empty-reason", "reason: empty"),
    ("padded-text", "not in the form"),
    ("wrong-types", "invalid type"),
    ("duplicate-key", "duplicate field `reason`"),
    ("not-json", "EOF"),
    ("invalid-utf8", "not valid UTF-8"),
    ("schema-2", "schema 2 is not supported"),
];

fn corpus() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/hostile"))
}

/// A repository with one committed fact, `f-aaaa` "One." in architecture.md.
fn repo() -> Repo {
    let repo = Repo::committed();
    repo.seed_facts("architecture", &[("f-aaaa", "One.")]);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "a fact"]);
    repo
}

/// Puts corpus file `name` into the proposals directory as proposal `id`.
fn place(repo: &Repo, name: &str, id: &str) {
    let bytes = fs::read(corpus().join(format!("{name}.json"))).unwrap();
    let bytes = match String::from_utf8(bytes) {
        Ok(text) => text.replace("@ID@", id).into_bytes(),
        Err(e) => e.into_bytes(),
    };
    fs::write(repo.file(&format!(".ledger/proposals/{id}.json")), bytes).unwrap();
}

fn assert_no_raw_controls(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "{what} shows a raw control character:\n{text:?}"
    );
}

#[test]
fn the_corpus_has_every_case() {
    let mut files: Vec<String> = fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut named: Vec<String> = CASES.iter().map(|(n, _)| format!("{n}.json")).collect();
    named.sort();
    assert_eq!(files, named);
}

#[test]
fn hostile_proposals_cannot_be_approved_and_are_shown_escaped() {
    let repo = repo();
    let start = repo.head();
    for (i, (name, reason)) in CASES.iter().enumerate() {
        let id = format!("20261123T000000Z-{i:08x}");
        place(&repo, name, &id);
        let head = repo.head();
        let snapshot = repo.snapshot();

        let out = repo
            .mneme(&["--json", "review", "approve", &id])
            .assert()
            .code(1)
            .get_output()
            .clone();
        assert_eq!(error_code(&out), "invalid_proposal", "{name}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(reason), "{name}: {stderr}");
        assert_no_raw_controls(name, &out.stderr);
        assert_eq!(repo.head(), head, "{name} made a commit");
        assert_eq!(repo.snapshot(), snapshot, "{name} wrote something");

        let human = repo
            .mneme(&["review", "approve", &id])
            .assert()
            .code(1)
            .get_output()
            .clone();
        assert_no_raw_controls(name, &human.stderr);

        let show = repo
            .mneme(&["review", "show", &id])
            .assert()
            .success()
            .get_output()
            .clone();
        assert!(
            String::from_utf8_lossy(&show.stdout).contains("INVALID:"),
            "{name}"
        );
        assert_no_raw_controls(name, &show.stdout);
        let list = repo
            .mneme(&["review", "list"])
            .assert()
            .success()
            .get_output()
            .clone();
        assert!(
            String::from_utf8_lossy(&list.stdout).contains("invalid:"),
            "{name}"
        );
        assert_no_raw_controls(name, &list.stdout);
        let context = repo
            .mneme(&["context"])
            .assert()
            .success()
            .get_output()
            .clone();
        assert_no_raw_controls(name, &context.stdout);
        let listed = repo.json(&["review", "list", "--json"]);
        assert_eq!(listed[0]["status"], "invalid", "{name}");

        let check = repo
            .mneme(&["check", "--json"])
            .assert()
            .code(1)
            .get_output()
            .clone();
        let findings = json(&check)["findings"].to_string();
        assert!(findings.contains("\"proposal_"), "{name}: {findings}");

        // Rejecting is the way out, and records nothing of the file but its name.
        repo.mneme(&["review", "reject", &id, "--reason", "hostile"])
            .assert()
            .success();
        let message = repo.git(&["log", "-1", "--format=%B"]);
        assert!(
            message.starts_with(&format!("ledger: reject invalid proposal {id}\n")),
            "{name}: {message}"
        );
        assert_eq!(repo.trailer("HEAD", "Mneme-Decision"), ["reject"], "{name}");
        assert_eq!(
            repo.trailer("HEAD", "Mneme-Rejected-By"),
            ["Test Human <human@example.com>"],
            "{name}"
        );
        assert!(
            repo.trailer("HEAD", "Mneme-Approved-By").is_empty(),
            "{name}"
        );
        assert!(repo.proposals().is_empty(), "{name}");
    }
    let verified = repo.json(&["verify", &format!("{start}..HEAD"), "--json"]);
    assert_eq!(verified["decisions"], CASES.len());
    assert_eq!(verified["violations"], serde_json::json!([]));
}

#[test]
fn a_huge_proposal_file_is_refused_unread() {
    let repo = repo();
    let id = "20261123T000000Z-0000ffff";
    let text = "x".repeat(2 * 1024 * 1024);
    repo.write(
        &format!(".ledger/proposals/{id}.json"),
        &format!("{{\"schema\": 1, \"id\": \"{id}\", \"reason\": \"{text}\"}}"),
    );
    let out = repo
        .mneme(&["--json", "review", "approve", id])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), "invalid_proposal");
    assert!(String::from_utf8_lossy(&out.stderr).contains("larger than"));
}
