//! `export` (and, as it grows, `import`): the ledger in other memory formats, written from real
//! repositories with approved decisions.

use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{error_code, Repo};

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
    let approve = |p: &str| repo.approve(p);
    let p = repo.propose_add(
        "architecture",
        "We use PostgreSQL 16.",
        &[
            "--reason",
            "chosen in #12",
            "--evidence",
            "src/db.rs:12-20",
            "--evidence",
            "https://github.com/o/r/pull/12",
        ],
    );
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
    let p = repo.propose_add(
        "pitfalls",
        "Run migrations before the pool starts.",
        &[
            "--depends-on",
            &pg17,
            "--reason",
            "an outage",
            "--evidence",
            "src/pool.rs",
        ],
    );
    let pool = repo.new_fact_id(&p);
    approve(&p);
    (repo, vec![pg, pg17, pool])
}

#[test]
fn mif_export_is_one_valid_file_per_fact_and_the_same_bytes_every_time() {
    let (repo, ids) = ledger();
    let summary = repo.json(&["export", "--format", "mif", "--out", "mem", "--json"]);
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
    repo.approve(&p);
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

    // Two facts holding one id (a bad merge) stop it too.
    repo.write(
        ".ledger/facts/architecture.md",
        "---\ntitle: Architecture\n---\n\n# Architecture\n\n- **f-aaaa** One.\n- **f-aaaa** Two.\n",
    );
    let out = repo
        .mneme(&["export", "--format", "records", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("f-aaaa"));
    assert!(out.stdout.is_empty());
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
    let summary = repo.json(&["export", "--format", "compiled", "--out", "c", "--json"]);
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
    let out = crate::common::succeeded(
        repo.mneme(&["export", "--format", "records"])
            .output()
            .unwrap(),
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

    let pack_args = [
        "export",
        "--format",
        "context-pack",
        "--task",
        "upgrade the pool",
    ];
    let out = repo.mneme(&pack_args).output().unwrap();
    assert!(out.status.success());
    let pack: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(pack["task"], "upgrade the pool");
    let items = pack["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "the superseded fact is history: {items:?}");
    assert!(items.iter().all(|i| i["fact_id"] != ids[0].as_str()));
    // The superseding fact cites what the one it replaced did.
    assert_eq!(
        pack["recommended_next_reads"],
        serde_json::json!(["src/db.rs", "src/pool.rs"])
    );
    assert_eq!(pack["missing_context"], serde_json::json!([]), "{pack}");
    let again = repo.mneme(&pack_args).output().unwrap();
    assert_eq!(again.stdout, out.stdout, "the same bytes every time");
    // A fact that cites nothing is named as missing context.
    let bare = repo.approve_new("pitfalls", "Nothing cites this pitfall.");
    let pack = repo.json(&pack_args);
    assert!(
        pack["missing_context"][0]
            .as_str()
            .unwrap()
            .contains(&format!("{bare} cites no evidence")),
        "{pack}"
    );

    let out = repo
        .mneme(&["export", "--format", "records", "--task", "x", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(error_code(&out), "invalid_input");
}

/// Copies a file, or a directory's files, from `from` to `to` (parents created).
fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

/// Copies `tests/it/fixtures/interchange/<name>` (a file or a directory) into the repository.
fn fixture(repo: &Repo, name: &str) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/fixtures/interchange")
        .join(name);
    copy(&from, &repo.file(name));
}

fn import(repo: &Repo, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["import"];
    all.extend_from_slice(args);
    all.push("--json");
    repo.json(&all)
}

fn texts(summary: &serde_json::Value) -> Vec<(String, String, String)> {
    summary["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["text"].as_str().unwrap().to_owned(),
                o["file"].as_str().unwrap().to_owned(),
                o["source"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_claude_md_becomes_one_proposal_of_single_statements_citing_their_lines() {
    let repo = Repo::committed();
    let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    repo.write(
        "CLAUDE.md",
        &format!(
            "# Project\n\nThe API is a FastAPI app served by uvicorn.\n\n## Pitfalls\n\n\
- Never run migrations from a developer laptop.\n\
- Testing:\n  - Run `pytest -x` before pushing.\n  - Integration tests need Docker\n    running locally.\n\
- The staging token is {token} for now.\n\n\
```bash\n- echo not a statement\n```\n\n## Performance\n\n1. Keep the p99 latency of /search under 200 ms.\n"
        ),
    );
    let dry = import(&repo, &["claude", "CLAUDE.md", "--dry-run"]);
    assert!(repo.proposals().is_empty(), "a dry run writes nothing");
    assert_eq!(dry["proposals"], serde_json::json!([]));
    let summary = import(&repo, &["claude", "CLAUDE.md"]);
    assert_eq!(
        texts(&summary),
        texts(&dry),
        "the dry run showed what was proposed"
    );
    assert_eq!(
        texts(&summary),
        [
            (
                "The API is a FastAPI app served by uvicorn.",
                "architecture.md",
                "CLAUDE.md:3"
            ),
            (
                "Never run migrations from a developer laptop.",
                "pitfalls.md",
                "CLAUDE.md:7"
            ),
            (
                "Testing: Run `pytest -x` before pushing.",
                "pitfalls.md",
                "CLAUDE.md:9"
            ),
            (
                "Testing: Integration tests need Docker running locally.",
                "pitfalls.md",
                "CLAUDE.md:10"
            ),
            (
                "Keep the p99 latency of /search under 200 ms.",
                "performance_rules.md",
                "CLAUDE.md:20"
            ),
        ]
        .map(|(a, b, c)| (a.to_owned(), b.to_owned(), c.to_owned()))
    );
    assert_eq!(summary["refused"][0]["source"], "CLAUDE.md:12");
    assert!(summary["refused"][0]["note"]
        .as_str()
        .unwrap()
        .contains("GitHub"));
    assert_eq!(repo.proposals().len(), 1, "one proposal for the run");
    let proposal = std::fs::read_to_string(&repo.proposals()[0]).unwrap();
    assert!(!proposal.contains(token));

    // Approved, the facts cite their lines; a second import finds nothing new.
    repo.mneme(&["review", "approve", "--all"])
        .assert()
        .success();
    let facts = repo.facts();
    let migrations = facts
        .values()
        .find(|f| f["text"] == "Never run migrations from a developer laptop.")
        .unwrap();
    assert_eq!(migrations["evidence"], serde_json::json!(["CLAUDE.md:7"]));
    let again = import(&repo, &["claude", "CLAUDE.md"]);
    assert_eq!(again["operations"], serde_json::json!([]));
    assert_eq!(again["duplicates"].as_array().unwrap().len(), 5);
    assert_eq!(repo.proposals().len(), 0);
}

#[test]
fn fixtures_written_from_each_specification_are_validated_and_imported() {
    let repo = Repo::committed();
    for f in [
        "mif",
        "compiled",
        "records.jsonl",
        "adr",
        "cursor",
        "memory-bank",
        "AGENTS.md",
    ] {
        fixture(&repo, f);
    }
    let mif = import(&repo, &["mif", "mif"]);
    let ops = mif["operations"].as_array().unwrap();
    assert_eq!(ops.len(), 3);
    let cache = ops
        .iter()
        .find(|o| o["text"].as_str().unwrap().contains("cache"))
        .unwrap();
    assert_eq!(
        cache["state"], "archived",
        "valid_until has passed: history"
    );
    assert_eq!(cache["file"], "pitfalls.md", "namespace learnings");
    let compiled = import(&repo, &["compiled", "compiled"]);
    assert_eq!(compiled["operations"].as_array().unwrap().len(), 3);
    assert_eq!(compiled["operations"][2]["state"], "archived", "historical");
    assert_eq!(
        compiled["operations"][0]["source"],
        "compiled/entries.jsonl:1"
    );
    let records = import(&repo, &["records", "records.jsonl"]);
    assert_eq!(
        records["operations"][0]["text"],
        "The public API limits each key to 100 requests per minute."
    );
    assert_eq!(records["operations"][1]["state"], "contested");
    let adr = import(&repo, &["adr", "adr", "--split"]);
    assert_eq!(adr["operations"].as_array().unwrap().len(), 3);
    assert_eq!(
        adr["proposals"].as_array().unwrap().len(),
        3,
        "one per record with --split"
    );
    assert_eq!(adr["skipped_files"][0]["source"], "adr/0004-try-graphql.md");
    let cursor = import(&repo, &["cursor", "cursor"]);
    assert_eq!(
        cursor["operations"].as_array().unwrap().len(),
        3,
        "front matter skipped, .cursorrules read"
    );
    let scoped: Vec<&serde_json::Value> = cursor["operations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["scope"] == serde_json::json!(["backend/**/*.py"]))
        .collect();
    assert_eq!(
        scoped.len(),
        2,
        "a rule's globs are its facts' scope: {cursor}"
    );
    let bank = import(&repo, &["memory-bank", "memory-bank"]);
    assert_eq!(bank["operations"].as_array().unwrap().len(), 3);
    let agents = import(&repo, &["agents", "AGENTS.md"]);
    assert_eq!(
        texts(&agents),
        [(
            "Keep pull requests under 400 changed lines.".to_owned(),
            "invariants.md".to_owned(),
            "AGENTS.md:9".to_owned()
        )]
    );

    // Everything approved: relations and supersession hold between the imported facts.
    repo.mneme(&["review", "approve", "--all"])
        .assert()
        .success();
    let facts = repo.facts();
    let by_text = |start: &str| {
        facts
            .values()
            .find(|f| f["text"].as_str().unwrap().starts_with(start))
            .unwrap()
            .clone()
    };
    let rabbit = by_text("Use RabbitMQ");
    let kafka = by_text("Use Kafka");
    assert_eq!(rabbit["recorded_state"], "superseded");
    assert_eq!(rabbit["superseded_by"], kafka["id"]);
    let gateway = by_text("The payments gateway");
    let ledger = by_text("The ledger service");
    assert_eq!(
        gateway["relations"]["depends_on"],
        serde_json::json!([ledger["id"]])
    );
    assert_eq!(
        gateway["evidence"],
        serde_json::json!(["compiled/entries.jsonl:1", "ev-1"])
    );
    let orders = by_text("The orders service");
    assert_eq!(
        orders["evidence"],
        serde_json::json!([
            "mif/7c9e6679-7425-40de-944b-e07fc1f90ae7-postgres-for-orders.memory.md:32",
            "services/orders/db.py:42",
            "https://www.postgresql.org/docs/16/release-16.html"
        ])
    );
    let migrations = by_text("Schema migrations");
    assert_eq!(
        orders["relations"]["relates_to"],
        serde_json::json!([migrations["id"]])
    );
    repo.mneme(&["check"]).assert().success();
}

#[test]
fn a_mif_export_imported_into_an_empty_ledger_proposes_the_same_facts() {
    let (repo, _) = ledger();
    // Every state and relation kind, and a fact with no evidence.
    let p = repo.propose_add(
        "invariants",
        "Every write is atomic.",
        &["--reason", "r", "--evidence", "src/store.rs:1-9"],
    );
    let atomic = repo.new_fact_id(&p);
    repo.approve(&p);
    let p = repo.propose_add(
        "invariants",
        "Writes never block readers.",
        &[
            "--derived-from",
            &atomic,
            "--contradicts",
            &atomic,
            "--reason",
            "r",
        ],
    );
    repo.approve(&p);
    let p = repo.propose(&["state", &atomic, "stale", "--reason", "re-check"]);
    repo.approve(&p);
    repo.mneme(&["export", "--format", "mif", "--out", "mem"])
        .assert()
        .success();
    let before = repo.facts();

    let empty = Repo::committed();
    copy(&repo.file("mem"), &empty.file("mem"));
    let summary = import(&empty, &["mif", "mem"]);
    assert_eq!(
        summary["operations"].as_array().unwrap().len(),
        before.len()
    );
    empty
        .mneme(&["review", "approve", "--all"])
        .assert()
        .success();
    let after = empty.facts();
    let keep = |f: &serde_json::Value| {
        serde_json::json!({
            "text": f["text"], "file": f["file"], "state": f["recorded_state"],
            "superseded_by": f["superseded_by"], "relations": f["relations"], "evidence": f["evidence"],
        })
    };
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>(),
        "the same ids"
    );
    for (id, f) in &before {
        assert_eq!(keep(&after[id]), keep(f), "{id}");
    }
}

#[test]
fn hostile_imports_fail_cleanly_with_nothing_written() {
    let repo = Repo::committed();
    let refused = |args: &[&str], says: &str| {
        let mut all = vec!["import"];
        all.extend_from_slice(args);
        all.push("--json");
        let out = repo.mneme(&all).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(repo.proposals().is_empty(), "{args:?} wrote a proposal");
    };
    // A MIF code reference that walks out of the project.
    fixture(&repo, "mif");
    let name = "mif/f47ac10b-58cc-4372-a567-0e02b2c3d479-migrations-run-at-deploy.memory.md";
    let text = repo.read(name).replace(
        "tags: [deploy, migrations]",
        "code_refs:\n  - file: ../../etc/passwd",
    );
    repo.write(name, &text);
    refused(&["mif", "mif"], "relative path");
    // A YAML alias bomb.
    let bomb = "---\nid: f47ac10b-58cc-4372-a567-0e02b2c3d479\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n---\n\nBoom.\n";
    repo.write(name, bomb);
    refused(&["mif", "mif"], "not valid YAML");
    std::fs::remove_dir_all(repo.file("mif")).unwrap();
    // Invalid UTF-8, a huge file, a missing path, broken JSON Lines.
    std::fs::write(repo.file("bad.md"), b"- caf\xe9 is not UTF-8 here\n").unwrap();
    refused(&["notes", "bad.md"], "UTF-8");
    std::fs::write(
        repo.file("huge.md"),
        "- a statement of several words\n".repeat(40_000),
    )
    .unwrap();
    refused(&["notes", "huge.md"], "larger than");
    refused(&["claude", "nowhere/CLAUDE.md"], "does not exist");
    repo.write("r.jsonl", "{\"id\": 1}\nnot json\n");
    refused(&["records", "r.jsonl"], "not valid records");

    // A link inside a directory is not followed; the rest is read.
    #[cfg(unix)]
    {
        std::fs::create_dir_all(repo.file("bank")).unwrap();
        repo.write("bank/ok.md", "- Builds run on GitHub Actions runners.\n");
        std::os::unix::fs::symlink("/etc/hostname", repo.file("bank/evil.md")).unwrap();
        let summary = import(&repo, &["memory-bank", "bank", "--dry-run"]);
        assert_eq!(summary["operations"].as_array().unwrap().len(), 1);
        assert_eq!(summary["skipped_files"][0]["source"], "evil.md");
    }
}

#[test]
fn compiled_and_records_exports_read_back_through_their_importers() {
    let (repo, _) = ledger();
    repo.mneme(&["export", "--format", "compiled", "--out", "c"])
        .assert()
        .success();
    repo.mneme(&["export", "--format", "records", "--out", "r"])
        .assert()
        .success();
    for (source, path) in [("compiled", "c"), ("records", "r/records.jsonl")] {
        let empty = Repo::committed();
        copy(&repo.file(path), &empty.file(path));
        // The importer checks each file against the format's rules first.
        let summary = import(&empty, &[source, path]);
        assert_eq!(
            summary["operations"].as_array().unwrap().len(),
            3,
            "{source}"
        );
        let states: Vec<&str> = summary["operations"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|o| o["state"].as_str())
            .collect();
        assert_eq!(
            states,
            ["superseded"],
            "{source}: the replaced fact keeps its state"
        );
        empty
            .mneme(&["review", "approve", "--all"])
            .assert()
            .success();
        empty.mneme(&["check"]).assert().success();
    }
}

/// An import keeps every statement it reads, in every script, and lists what it did not take
/// as one under `refused`, with why.
#[test]
fn an_import_keeps_statements_in_every_script_and_lists_what_it_skips() {
    let repo = Repo::committed();
    let long = "すべてのAPIはJSONを返す。エラーは必ずコードを含む。".repeat(7);
    repo.write(
        "CLAUDE.md",
        &format!(
            "# 规则\n\n- 所有数据库迁移必须可以回滚。\n- データベースの移行は必ずロールバックできること。\n- ビルド\n\n{long}\n\nSetup:\n"
        ),
    );
    let v = repo.json(&["import", "claude", "CLAUDE.md", "--json", "--dry-run"]);
    let texts: Vec<&str> = v["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["text"].as_str().unwrap())
        .collect();
    assert!(texts.contains(&"所有数据库迁移必须可以回滚。"), "{v:#}");
    assert!(texts.contains(&"データベースの移行は必ずロールバックできること。"));
    // The long paragraph, sentence by sentence; the same sentence once.
    assert!(texts.contains(&"エラーは必ずコードを含む。"), "{texts:?}");
    assert_eq!(texts.len(), 4, "{texts:?}");
    assert_eq!(v["duplicates"].as_array().unwrap().len(), 12, "{v:#}");
    let refused = v["refused"].to_string();
    assert!(
        refused.contains("CLAUDE.md:5") && refused.contains("a label"),
        "{refused}"
    );
    assert!(refused.contains("introduces what follows"), "{refused}");

    // One proposal per statement, each reviewed on its own.
    let v = repo.json(&[
        "import",
        "claude",
        "CLAUDE.md",
        "--json",
        "--split=statement",
    ]);
    let proposals = v["proposals"].as_array().unwrap();
    assert_eq!(proposals.len(), 4, "{v:#}");
    for p in proposals {
        let path = p["path"].as_str().unwrap();
        let file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(file["operations"].as_array().unwrap().len(), 1);
        assert!(
            file["reason"].as_str().unwrap().contains("CLAUDE.md:"),
            "{file}"
        );
    }
}

/// A real AGENTS.md is mostly document: labels in bold, feature lists, links, quoted examples
/// and steps. Those are skipped with why; the statements among them are proposed.
#[test]
fn import_skips_what_only_shapes_the_document_and_says_why() {
    let repo = Repo::committed();
    repo.write(
        "AGENTS.md",
        "# Agent instructions\n\n\
         **Why per-project daemons?**\n\n\
         **When to use:**\n\n\
         - Automatic workspace detection\n\
         - Better error handling and validation\n\
         - Shows diff preview\n\
         - Update it to `main`\n\
         - \"Bump to 0.9.3\"\n\
         - **README.md** - Main documentation\n\
         - [The install guide for every platform](docs/install.md)\n\n\
         See [the daemon docs](docs/daemons.md) for detailed documentation.\n\n\
         - `bd sync` forces an immediate flush\n\
         - Implement RBAC policies\n\
         - Never run migrations from a laptop\n\n\
         1. Sign every release\n\
         2. Migrations must be reversible.\n\n\
         Die Datenbank läuft nur im Container.\n\n         ## Adding a command\n\n         1. Create a file\n         2. Push to GitHub\n",
    );
    let summary = import(&repo, &["agents", "AGENTS.md", "--dry-run"]);
    let proposed: Vec<String> = texts(&summary).into_iter().map(|(t, ..)| t).collect();
    assert_eq!(
        proposed,
        [
            "`bd sync` forces an immediate flush",
            "Implement RBAC policies",
            "Never run migrations from a laptop",
            "Sign every release",
            "Migrations must be reversible.",
            "Die Datenbank läuft nur im Container.",
        ]
    );
    let refused: Vec<(String, String)> = summary["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["source"].as_str().unwrap().to_owned(),
                r["note"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let why = |line: usize| {
        refused
            .iter()
            .find(|(source, _)| *source == format!("AGENTS.md:{line}"))
            .map(|(_, note)| note.as_str())
            .unwrap_or_else(|| panic!("line {line} was not refused: {refused:?}"))
    };
    assert!(why(3).contains("heading in disguise"), "{}", why(3));
    assert!(why(5).contains("introduces"), "{}", why(5));
    assert!(why(7).contains("no verb"), "{}", why(7));
    assert!(why(8).contains("no verb"), "{}", why(8));
    assert!(why(9).contains("does not name"), "{}", why(9));
    assert!(why(10).contains("refers to"), "{}", why(10));
    assert!(why(11).contains("quoted example"), "{}", why(11));
    assert!(why(12).contains("list of links or files"), "{}", why(12));
    assert!(why(13).contains("list of links or files"), "{}", why(13));
    assert!(
        why(15).contains("points to other documentation"),
        "{}",
        why(15)
    );
    assert!(why(28).contains("step of a procedure"), "{}", why(28));
    assert!(why(29).contains("step of a procedure"), "{}", why(29));
    assert_eq!(refused.len(), 12, "{refused:?}");
    // The human summary says what was skipped and why, line by line.
    repo.mneme(&["import", "agents", "AGENTS.md", "--dry-run"])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "AGENTS.md:11: a quoted example of wording",
        ));
}

/// A nested `AGENTS.md` (or `CLAUDE.md`) holds the rules for the files under its directory:
/// importing a directory reads every tracked one under it, at any depth, and each statement
/// of a nested one gets its directory as scope; the root's are about no file. A link is not
/// followed, and the directory's own file is read even before it is tracked.
#[test]
fn nested_instruction_files_import_with_their_directory_as_scope() {
    let repo = Repo::committed();
    repo.write(
        "AGENTS.md",
        &format!(
            "{}\n# Rules\n\nEvery crate builds with the workspace lints on.\n",
            repo.read("AGENTS.md")
        ),
    );
    repo.write(
        "crates/db/AGENTS.md",
        "# DB crate\n\nMigrations in this crate never drop a column.\n",
    );
    repo.write(
        "web/app/AGENTS.md",
        "# Web\n\nComponents never fetch data themselves.\n",
    );
    repo.write(
        "web/app/CLAUDE.md",
        "# Web for Claude\n\nHooks stay pure here.\n",
    );
    repo.write(
        "vendor/AGENTS.md",
        "# Vendored\n\nVendored code is never edited.\n",
    );
    repo.write(".gitignore", "vendor/\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "instructions"]);
    std::os::unix::fs::symlink("AGENTS.md", repo.file("crates/db/CLAUDE.md")).unwrap();

    let imported = repo.json(&["import", "agents", ".", "--dry-run", "--json"]);
    let scopes: Vec<(String, serde_json::Value)> = imported["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["text"].as_str().unwrap().to_owned(), o["scope"].clone()))
        .collect();
    assert_eq!(
        scopes,
        [
            (
                "Every crate builds with the workspace lints on.".to_owned(),
                json!(null)
            ),
            (
                "Migrations in this crate never drop a column.".to_owned(),
                json!(["crates/db/**"])
            ),
            (
                "Components never fetch data themselves.".to_owned(),
                json!(["web/app/**"])
            ),
        ],
        "{imported}"
    );
    // CLAUDE.md files likewise; a link to another file is not read through.
    let claude = repo.json(&["import", "claude", ".", "--dry-run", "--json"]);
    let ops = claude["operations"].as_array().unwrap();
    assert_eq!(ops.len(), 1, "{claude}");
    assert_eq!(ops[0]["scope"], json!(["web/app/**"]));
    // A subdirectory reads what is under it; a file names its own directory as scope.
    let sub = repo.json(&["import", "agents", "web", "--dry-run", "--json"]);
    assert_eq!(sub["operations"].as_array().unwrap().len(), 1, "{sub}");
    let one = repo.json(&[
        "import",
        "agents",
        "crates/db/AGENTS.md",
        "--dry-run",
        "--json",
    ]);
    assert_eq!(one["operations"][0]["scope"], json!(["crates/db/**"]));
    // A FIFO put in a tracked file's place is not read (reading it would block).
    std::fs::remove_file(repo.file("web/app/AGENTS.md")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(repo.file("web/app/AGENTS.md"))
        .status()
        .unwrap();
    assert!(made.success());
    let fifo = repo.json(&["import", "agents", "web", "--dry-run", "--json"]);
    assert_eq!(fifo["operations"], json!([]), "{fifo}");
    // The directory's own file, not yet tracked, is read too; and the proposals carry the scope
    // to review.
    repo.write(
        "crates/AGENTS.md",
        "# Crates\n\nEvery crate has a README.\n",
    );
    let crates = repo.json(&["import", "agents", "crates", "--json"]);
    assert_eq!(
        crates["operations"].as_array().unwrap().len(),
        2,
        "{crates}"
    );
    let id = crates["proposals"][0]["id"].as_str().unwrap();
    let proposal: serde_json::Value =
        serde_json::from_str(&repo.read(&format!(".ledger/proposals/{id}.json"))).unwrap();
    let scoped: Vec<&serde_json::Value> = proposal["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| &o["scope"])
        .collect();
    assert!(scoped.contains(&&json!(["crates/**"])), "{proposal}");
    assert!(scoped.contains(&&json!(["crates/db/**"])), "{proposal}");
}

/// Claude Code's `.claude/rules`: every tracked rule file is read with the CLAUDE.md files, its
/// `paths:` (a list or one pattern, braces expanded) as scope; a rule without paths applies to
/// every file, not to the rules folder. Naming the folder reads only it.
#[test]
fn claude_rules_import_with_their_paths_as_scope() {
    let repo = Repo::committed();
    repo.write(
        "CLAUDE.md",
        "# Project\n\nEvery handler returns a typed error.\n",
    );
    repo.write(
        ".claude/rules/api.md",
        "---\npaths:\n  - \"src/api/**\"\n  - 'lib/http.rs'\n---\n# API\n\n- Handlers never block the executor.\n",
    );
    repo.write(
        ".claude/rules/web/ts.md",
        "---\npaths: web/**/*.{ts,tsx}\n---\n- Components never fetch data themselves.\n",
    );
    repo.write(
        ".claude/rules/style.md",
        "# Style\n\n- Comments say why, not what.\n",
    );
    repo.write(
        ".claude/rules/notes.txt",
        "- Not a rule file at all here.\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "rules"]);

    let scopes = |args: &[&str]| -> Vec<(String, serde_json::Value)> {
        repo.json(args)["operations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| (o["text"].as_str().unwrap().to_owned(), o["scope"].clone()))
            .collect()
    };
    let all = scopes(&["import", "claude", ".", "--dry-run", "--json"]);
    let want = |t: &str, s: serde_json::Value| (t.to_owned(), s);
    assert_eq!(
        all,
        [
            want(
                "Handlers never block the executor.",
                json!(["src/api/**", "lib/http.rs"])
            ),
            want("Comments say why, not what.", json!(null)),
            want(
                "Components never fetch data themselves.",
                json!(["web/**/*.ts", "web/**/*.tsx"])
            ),
            want("Every handler returns a typed error.", json!(null)),
        ]
    );
    let folder = scopes(&["import", "claude", ".claude/rules", "--dry-run", "--json"]);
    assert_eq!(folder.len(), 3, "{folder:?}");
    assert!(folder
        .iter()
        .all(|(t, _)| t != "Every handler returns a typed error."));
}
