use crate::common::{json, Repo};
use predicates::str::contains;
use serde_json::Value;

/// Runs `check --json`, asserts the exit code, returns the findings' `(code, path, line)`.
fn findings(repo: &Repo, code: i32) -> Vec<(String, String, Option<u64>)> {
    let out = repo
        .mneme(&["check", "--json"])
        .assert()
        .code(code)
        .get_output()
        .clone();
    let v = json(&out);
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f: &Value| {
            (
                f["code"].as_str().unwrap().to_owned(),
                f["path"].as_str().unwrap().to_owned(),
                f["line"].as_u64(),
            )
        })
        .collect()
}

fn codes(repo: &Repo, code: i32) -> Vec<String> {
    findings(repo, code).into_iter().map(|f| f.0).collect()
}

#[test]
fn a_fresh_ledger_is_clean() {
    let repo = Repo::new();
    assert_eq!(codes(&repo, 0), Vec::<String>::new());
    repo.mneme(&["check"])
        .assert()
        .success()
        .stdout(contains("0 error(s), 0 warning(s)"));
}

#[test]
fn unparseable_fact_file_names_file_and_line() {
    let repo = Repo::new();
    repo.write(
        ".ledger/facts/pitfalls.md",
        "---\ntitle: [broken\n---\n- x\n",
    );
    assert_eq!(
        findings(&repo, 1),
        [(
            "fact_file_parse".into(),
            ".ledger/facts/pitfalls.md".into(),
            Some(2)
        )]
    );
    std::fs::write(
        repo.file(".ledger/facts/invariants.md"),
        b"- ok\n- caf\xe9\n",
    )
    .unwrap();
    assert!(findings(&repo, 1).contains(&(
        "fact_file_parse".into(),
        ".ledger/facts/invariants.md".into(),
        Some(2)
    )));
    repo.mneme(&["check"]).assert().code(1).stdout(contains(
        "error[fact_file_parse] .ledger/facts/pitfalls.md:2",
    ));
}

#[test]
fn duplicate_ids_across_files() {
    let repo = Repo::new();
    repo.seed_facts("architecture", &[("f-aaaa", "One.")]);
    repo.seed_facts("pitfalls", &[("f-aaaa", "Two.")]);
    let mut found = findings(&repo, 1);
    // Both seeds' records claim f-aaaa; the later one's text is the approved one.
    found.retain(|f| f.0 != "not_as_decided");
    assert_eq!(
        found,
        [(
            "duplicate_id".into(),
            ".ledger/facts/pitfalls.md".into(),
            Some(7)
        )]
    );
}

/// With decision records, `check` names the facts that are not what was approved: a hand edit,
/// and an approved fact a merge dropped.
#[test]
fn facts_not_as_the_decision_records_left_them_are_errors() {
    let repo = Repo::committed();
    let fact = repo.approve_new("architecture", "Approved text.");
    assert_eq!(
        findings(&repo, 0)
            .iter()
            .filter(|f| f.0 == "not_as_decided")
            .count(),
        0
    );
    let arch = repo.read(".ledger/facts/architecture.md");
    repo.write(
        ".ledger/facts/architecture.md",
        &arch.replace("Approved text.", "Edited by hand."),
    );
    let found = findings(&repo, 1);
    assert!(
        found.contains(&(
            "not_as_decided".into(),
            ".ledger/facts/architecture.md".into(),
            None
        )),
        "{found:?}"
    );
    let without: String = arch
        .lines()
        .filter(|l| !l.contains(&fact))
        .map(|l| format!("{l}\n"))
        .collect();
    repo.write(".ledger/facts/architecture.md", &without);
    let found = findings(&repo, 1);
    assert!(
        found
            .iter()
            .any(|f| f.0 == "not_as_decided" && f.1.starts_with(".ledger/decisions/")),
        "{found:?}"
    );
    // A record that is not what mneme writes explains nothing.
    repo.write(".ledger/facts/architecture.md", &arch);
    repo.write(
        ".ledger/decisions/20261124T000000Z-00000000.json",
        "{\"mneme_decision\": 1}",
    );
    let found = findings(&repo, 1);
    assert!(found.iter().any(|f| f.0 == "invalid_record"), "{found:?}");
}

#[test]
fn proposals_that_do_not_parse_break_the_schema_or_miss_their_target() {
    let repo = Repo::new();
    repo.seed_facts("architecture", &[("f-aaaa", "One.")]);
    let id = repo.propose(&["remove", "f-aaaa", "--reason", "r"]);
    repo.seed_facts("architecture", &[("f-bbbb", "Other.")]);
    repo.write(".ledger/proposals/broken.json", "{ not json");
    repo.write(
        ".ledger/proposals/schema.json",
        r#"{"schema": 1, "id": "x"}"#,
    );
    let f = findings(&repo, 1);
    assert!(
        f.contains(&(
            "proposal_target_missing".into(),
            format!(".ledger/proposals/{id}.json"),
            None
        )),
        "{f:?}"
    );
    assert!(f.contains(&(
        "proposal_parse".into(),
        ".ledger/proposals/broken.json".into(),
        None
    )));
    assert!(f.contains(&(
        "proposal_schema".into(),
        ".ledger/proposals/schema.json".into(),
        None
    )));
    // Other verbs keep working on the rest.
    repo.mneme(&["context"])
        .assert()
        .success()
        .stdout(contains("2 proposal file(s) do not parse"));
}

#[test]
fn over_budget_and_symlinks() {
    let repo = Repo::new();
    repo.write(".ledger/config.yaml", "budget_lines: 10\n");
    assert!(codes(&repo, 1).contains(&"over_budget".to_owned()));
    repo.write(".ledger/config.yaml", "");
    std::os::unix::fs::symlink("/etc/hostname", repo.file(".ledger/facts/evil.md")).unwrap();
    assert_eq!(
        findings(&repo, 1),
        [("symlink".into(), ".ledger/facts/evil.md".into(), None)]
    );
}

#[test]
fn invalid_config_is_an_error() {
    let repo = Repo::new();
    repo.write(".ledger/config.yaml", "budget_lnes: 3\n");
    assert_eq!(codes(&repo, 1), ["config"]);
}

#[test]
fn warnings_do_not_fail_and_fix_repairs_what_is_safe() {
    let repo = Repo::new();
    repo.write("src/lib.rs", "one\ntwo\n");
    repo.write(
        ".ledger/facts/architecture.md",
        "# A\n\n- **f-aaaa** Uses Rust. <!-- since: 2020-01-01 -->\n- hand-written fact\n- **f-bbbb** uses rust!\n\
         - **f-cccc** Old. <!-- state: superseded; by: f-gone -->\n- **f-dddd** Evidence. <!-- evidence: src/lib.rs:2 src/lib.rs:9 src/gone.rs -->\n\
         - **f-eeee** Odd. <!--since:2026-01-01-->\n",
    );
    repo.write(".ledger/config.yaml", "stale_fact_days: 30\n");
    let before = codes(&repo, 0);
    assert_eq!(
        before,
        [
            "stale_fact",
            "missing_id",
            "duplicate_text",
            "missing_successor",
            "missing_evidence",
            "missing_evidence",
            "stale_fact",
            "metadata_format"
        ]
    );
    let out = repo
        .mneme(&["check", "--fix", "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let fixed = json(&out)["fixed"].as_array().unwrap().len();
    assert_eq!(fixed, 2);
    let after = codes(&repo, 0);
    assert!(
        !after.contains(&"missing_id".to_owned()) && !after.contains(&"metadata_format".to_owned()),
        "{after:?}"
    );
    let arch = repo.read(".ledger/facts/architecture.md");
    assert!(arch.contains("- **f-eeee** Odd. <!-- since: 2026-01-01 -->\n"));
    assert!(arch.contains("** hand-written fact\n"), "{arch}");
    repo.mneme(&["check", "--fix"])
        .assert()
        .success()
        .stdout(contains("0 error(s)"));
}

#[test]
fn stale_proposals_are_reported() {
    let repo = Repo::new();
    repo.propose_add("pitfalls", "Old news.", &["--reason", "r"]);
    let path = repo.proposals()[0].clone();
    let text = std::fs::read_to_string(&path).unwrap();
    let created = text
        .split("\"created_at\": \"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_owned();
    std::fs::write(&path, text.replace(&created, "2020-01-01T00:00:00.000000Z")).unwrap();
    assert_eq!(codes(&repo, 0), ["stale_proposal"]);
}

#[test]
fn conflict_markers_fail_check_and_hide_the_file_from_context() {
    let repo = Repo::committed();
    repo.write(
        ".ledger/facts/architecture.md",
        "# A\n\n<<<<<<< ours\n- **f-aaaa** Ours.\n=======\n- **f-aaaa** Theirs.\n>>>>>>> theirs\n",
    );
    repo.seed_facts("pitfalls", &[("f-bbbb", "Still shown.")]);
    let out = repo
        .mneme(&["check", "--json"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let report = json(&out);
    let codes: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"conflict_markers"), "{codes:?}");
    let context = repo.json(&["context", "--json"]);
    assert_eq!(
        context["unresolved"],
        serde_json::json!(["architecture.md"])
    );
    let text = String::from_utf8(
        repo.mneme(&["context"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone(),
    )
    .unwrap();
    assert!(!text.contains("======="), "{text}");
    assert!(!text.contains("Ours."), "{text}");
    assert!(text.contains("Still shown."), "{text}");
    assert!(text.contains("unresolved merge conflict"), "{text}");
}

#[test]
fn a_clone_without_the_merge_driver_is_warned() {
    let repo = Repo::committed();
    let codes = |repo: &Repo| -> Vec<String> {
        let out = repo.mneme(&["check", "--json"]).output().unwrap();
        json(&out)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(!codes(&repo).contains(&"merge_driver_missing".to_owned()));
    repo.git(&["config", "--unset", "merge.mneme.driver"]);
    assert!(codes(&repo).contains(&"merge_driver_missing".to_owned()));
    repo.init(&[]);
    assert!(!codes(&repo).contains(&"merge_driver_missing".to_owned()));
}
