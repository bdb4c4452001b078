//! `export` (and, as it grows, `import`): the ledger in other memory formats, written from real
//! repositories with approved decisions.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{error_code, json, Repo};

/// Every file of `dir` with its bytes, by name.
fn files(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().into_string().unwrap(),
                std::fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect()
}

/// A repository with three approved facts: one superseded by another, one relating to it.
fn ledger() -> (Repo, Vec<String>) {
    let repo = Repo::committed();
    let approve = |p: &str| repo.mneme(&["review", "approve", p]).assert().success();
    let p = repo.propose(&[
        "add",
        "--file",
        "architecture",
        "We use PostgreSQL 16.",
        "--reason",
        "chosen in #12",
        "--evidence",
        "src/db.rs:12-20",
        "--evidence",
        "https://github.com/o/r/pull/12",
    ]);
    let pg = repo.new_fact_id(&p);
    approve(&p);
    let p = repo.propose(&[
        "supersede",
        &pg,
        "We use PostgreSQL 17.",
        "--reason",
        "upgraded",
    ]);
    let pg17 = repo.new_fact_id(&p);
    approve(&p);
    let p = repo.propose(&[
        "add",
        "--file",
        "pitfalls",
        "Run migrations before the pool starts.",
        "--depends-on",
        &pg17,
        "--reason",
        "an outage",
        "--evidence",
        "src/pool.rs",
    ]);
    let pool = repo.new_fact_id(&p);
    approve(&p);
    (repo, vec![pg, pg17, pool])
}

#[test]
fn mif_export_is_one_valid_file_per_fact_and_the_same_bytes_every_time() {
    let (repo, ids) = ledger();
    let out = repo
        .mneme(&["export", "--format", "mif", "--out", "mem", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = json(&out);
    assert_eq!(summary["facts"], 3);
    let written = files(&repo.file("mem"));
    assert_eq!(
        written.len(),
        4,
        "three facts and the manifest: {:?}",
        written.keys()
    );
    let of = |id: &str| {
        written
            .values()
            .find(|t| t.contains(&format!("source_ref: \"mneme:{id}\"")))
            .unwrap_or_else(|| panic!("no file for {id}"))
            .clone()
    };
    let old = of(&ids[0]);
    assert!(old.contains("  - \"state-superseded\"\n"), "{old}");
    assert!(
        !old.contains("valid_until: null"),
        "a superseded fact has ended: {old}"
    );
    assert!(old.contains("  - file: \"src/db.rs\"\n    line: 12\n"));
    assert!(old.contains("type: github"));
    assert!(old.contains("namespace: decisions/project"));
    let new = of(&ids[1]);
    let old_uuid = old.lines().find_map(|l| l.strip_prefix("id: ")).unwrap();
    assert!(
        new.contains(&format!("- supersedes [[{old_uuid}]]")),
        "{new}"
    );
    assert!(new.contains("\nWe use PostgreSQL 17.\n"));
    let pool = of(&ids[2]);
    let new_uuid = new.lines().find_map(|l| l.strip_prefix("id: ")).unwrap();
    assert!(
        pool.contains(&format!("- depends-on [[{new_uuid}]]")),
        "{pool}"
    );
    assert!(pool.contains("namespace: learnings/project"));
    assert!(pool.contains("\n## History\n\n- "), "{pool}");
    assert!(
        pool.contains("): an outage\n"),
        "the decision's reason is in the history: {pool}"
    );
    // Each name is `{uuid}-{slug}.memory.md` for the id inside.
    for (name, text) in written.iter().filter(|(n, _)| n.ends_with(".memory.md")) {
        let id = text.lines().find_map(|l| l.strip_prefix("id: ")).unwrap();
        assert!(name.starts_with(&format!("{id}-")), "{name}");
    }

    // Again, and from a fresh clone: the same bytes.
    repo.mneme(&["export", "--format", "mif", "--out", "mem"])
        .assert()
        .success();
    assert_eq!(files(&repo.file("mem")), written);
    let clone = tempfile::tempdir().unwrap();
    let target = clone.path().join("c");
    repo.git(&[
        "clone",
        "-q",
        repo.path().to_str().unwrap(),
        target.to_str().unwrap(),
    ]);
    repo.mneme_in(&target, &["export", "--format", "mif", "--out", "mem"])
        .assert()
        .success();
    assert_eq!(files(&target.join("mem")), written);
}

#[test]
fn an_export_replaces_its_own_files_and_touches_nothing_else() {
    let (repo, ids) = ledger();
    repo.mneme(&["export", "--format", "mif", "--out", "mem"])
        .assert()
        .success();
    let p = repo.propose(&["remove", &ids[2], "--reason", "obsolete"]);
    repo.mneme(&["review", "approve", &p]).assert().success();
    repo.mneme(&["export", "--format", "mif", "--out", "mem"])
        .assert()
        .success();
    let now = files(&repo.file("mem"));
    assert_eq!(
        now.len(),
        3,
        "the removed fact's file is gone: {:?}",
        now.keys()
    );
    assert!(!now.values().any(|t| t.contains(&ids[2])));

    // A directory that holds anything else is refused, with nothing written.
    repo.write("notes/keep.txt", "mine");
    let out = repo
        .mneme(&["export", "--format", "mif", "--out", "notes", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(error_code(&out), "invalid_input");
    assert_eq!(files(&repo.file("notes")).len(), 1);

    // A directory format needs --out.
    let out = repo.mneme(&["export", "--format", "mif"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--out"));
}

#[test]
fn a_fact_without_an_id_stops_the_export_before_anything_is_written() {
    let repo = Repo::committed();
    repo.write(
        ".ledger/facts/architecture.md",
        "---\ntitle: Architecture\n---\n\n# Architecture\n\n- A fact written by hand.\n",
    );
    let out = repo
        .mneme(&["export", "--format", "mif", "--out", "mem", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(error_code(&out), "invalid_input");
    assert!(String::from_utf8_lossy(&out.stderr).contains("check --fix"));
    assert!(!repo.file("mem").exists());
}

/// Each line of a JSONL file as JSON.
fn jsonl(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn compiled_export_holds_documents_entries_and_views_and_leaves_out_facts_without_evidence() {
    let (repo, ids) = ledger();
    // A fact written by hand with no evidence: no compiled entry can hold it.
    let path = repo.file(".ledger/facts/pitfalls.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        format!("{text}- **f-hand** Written by hand, with nothing behind it.\n"),
    )
    .unwrap();
    let out = repo
        .mneme(&["export", "--format", "compiled", "--out", "c", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = json(&out);
    assert_eq!(summary["left_out"], serde_json::json!(["f-hand"]));
    assert_eq!(summary["facts"], 3);
    let written = files(&repo.file("c"));
    let names: Vec<&str> = written.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            ".mneme-export",
            "architecture.md",
            "documents.jsonl",
            "entries.jsonl",
            "pitfalls.md"
        ]
    );
    let documents = jsonl(&written["documents.jsonl"]);
    let entries = jsonl(&written["entries.jsonl"]);
    assert_eq!(documents.len(), 2);
    assert_eq!(entries.len(), 3);
    let entry = |id: &str| {
        entries
            .iter()
            .find(|e| e["meta"]["mneme"]["id"] == id)
            .unwrap()
            .clone()
    };
    let (old, new, pool) = (entry(&ids[0]), entry(&ids[1]), entry(&ids[2]));
    assert_eq!(old["state"], "historical");
    assert_eq!(new["state"], "observed");
    assert_eq!(new["entryType"], "decision");
    assert_eq!(pool["entryType"], "incident");
    assert_eq!(new["relations"][0]["type"], "supersedes");
    assert_eq!(new["relations"][0]["targetEntryId"], old["id"]);
    assert_eq!(pool["relations"][0]["type"], "depends_on");
    assert_eq!(pool["relations"][0]["targetEntryId"], new["id"]);
    let refs: Vec<&str> = old["evidenceRefs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["evidenceItemId"].as_str().unwrap())
        .collect();
    assert_eq!(
        refs[..2],
        ["src/db.rs:12-20", "https://github.com/o/r/pull/12"]
    );
    assert!(
        refs[2].starts_with("git:"),
        "the approval's commit is evidence too: {refs:?}"
    );
    for d in &documents {
        for id in d["entryIds"].as_array().unwrap() {
            let e = entries
                .iter()
                .find(|e| &e["id"] == id)
                .expect("entry of the document");
            assert_eq!(e["documentId"], d["id"]);
        }
    }
    assert!(
        written["pitfalls.md"].contains("- depends_on: [We use PostgreSQL 17.](architecture.md#")
    );
    repo.mneme(&["export", "--format", "compiled", "--out", "c"])
        .assert()
        .success();
    assert_eq!(files(&repo.file("c")), written);
}

#[test]
fn records_and_context_packs_print_on_stdout_or_go_into_out() {
    let (repo, ids) = ledger();
    let out = repo
        .mneme(&["export", "--format", "records"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let records = jsonl(&stdout);
    assert_eq!(records.len(), 3);
    let record = |id: &str| {
        records
            .iter()
            .find(|r| r["meta"]["mneme"]["id"] == id)
            .unwrap()
            .clone()
    };
    let (old, new) = (record(&ids[0]), record(&ids[1]));
    assert_eq!(old["payload"]["revision"]["status"], "retracted");
    assert_eq!(old["payload"]["validity"]["mode"], "timeboxed");
    assert_eq!(old["audit_log"][0]["action"], "create");
    assert_eq!(
        old["audit_log"][1]["action"], "revise",
        "superseding retired it"
    );
    assert_eq!(
        new["audit_log"][0]["action"], "create",
        "superseding created the new one"
    );
    assert_eq!(
        new["relations"][0],
        serde_json::json!({"predicate": "supersedes", "target_id": old["id"]})
    );
    assert_eq!(
        new["audit_log"][0]["rationale"]
            .as_str()
            .unwrap()
            .split(" (proposed by")
            .next(),
        Some("upgraded")
    );
    let sources = new["provenance"]["sources"].as_array().unwrap();
    assert!(sources
        .iter()
        .any(|s| s["kind"] == "event" && s["ref"].as_str().unwrap().starts_with("git:")));

    repo.mneme(&["export", "--format", "records", "--out", "r"])
        .assert()
        .success();
    assert_eq!(repo.read("r/records.jsonl"), stdout);

    let out = repo
        .mneme(&[
            "export",
            "--format",
            "context-pack",
            "--task",
            "upgrade the pool",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let pack: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(pack["task"], "upgrade the pool");
    let items = pack["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "the superseded fact is history: {items:?}");
    assert!(items.iter().all(|i| i["fact_id"] != ids[0].as_str()));
    assert_eq!(
        pack["recommended_next_reads"],
        serde_json::json!(["src/pool.rs"])
    );
    assert!(
        pack["missing_context"][0]
            .as_str()
            .unwrap()
            .contains("cites no evidence"),
        "{pack}"
    );
    let again = repo
        .mneme(&[
            "export",
            "--format",
            "context-pack",
            "--task",
            "upgrade the pool",
        ])
        .output()
        .unwrap();
    assert_eq!(again.stdout, out.stdout, "the same bytes every time");

    let out = repo
        .mneme(&["export", "--format", "records", "--task", "x", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(error_code(&out), "invalid_input");
}
