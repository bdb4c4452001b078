//! Facts that age: verification, states and relations, each a proposal and an approval.

use crate::common::{error_code, Repo};
use serde_json::Value;

const ARCH: &str = ".ledger/facts/architecture.md";

/// A committed repository whose architecture file holds `facts` (`(id, text with metadata)`).
fn seeded(facts: &[(&str, &str)]) -> Repo {
    let repo = Repo::committed();
    repo.seed_facts("architecture", facts);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "seed facts"]);
    repo
}

/// The `context --json` view of the fact `id`, if context lists it.
fn in_context(repo: &Repo, id: &str) -> Option<Value> {
    let c = repo.json(&["context", "--json"]);
    c["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["facts"].as_array().unwrap().clone())
        .find(|f| f["id"] == id)
}

fn check_codes(repo: &Repo) -> Vec<(String, String)> {
    repo.findings()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_owned(),
                f["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn an_approved_verify_changes_only_the_date_and_evidence_and_clears_staleness() {
    let repo = seeded(&[
        (
            "f-pool",
            "The pool holds 10 connections. <!-- since: 2020-01-01; evidence: src/old.rs -->",
        ),
        ("f-other", "Another fact. <!-- since: 2020-01-01 -->"),
    ]);
    let stale = |repo: &Repo| {
        check_codes(repo)
            .into_iter()
            .filter(|(c, m)| c == "stale_fact" && m.contains("f-pool"))
            .count()
    };
    assert_eq!(stale(&repo), 1, "{:?}", check_codes(&repo));
    assert_eq!(in_context(&repo, "f-pool").unwrap()["state"], "stale");
    let before = repo.read(ARCH);

    let id = repo.propose(&[
        "verify",
        "f-pool",
        "--reason",
        "re-read the pool code",
        "--evidence",
        "src/db.rs:12",
    ]);
    let p: Value =
        serde_json::from_str(&repo.read(&format!(".ledger/proposals/{id}.json"))).unwrap();
    assert_eq!(p["operations"][0]["op"], "verify");
    repo.approve(&id);

    let today = mneme::ops::now().date();
    let after = repo.read(ARCH);
    let changed: Vec<(&str, &str)> = before
        .lines()
        .zip(after.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(
        changed,
        [(
            "- **f-pool** The pool holds 10 connections. <!-- since: 2020-01-01; evidence: src/old.rs -->",
            format!("- **f-pool** The pool holds 10 connections. <!-- since: 2020-01-01; verified: {today}; evidence: src/db.rs:12 -->").as_str()
        )]
    );
    assert_eq!(before.lines().count(), after.lines().count());
    assert_eq!(
        repo.trailer("HEAD", "Mneme-Operation"),
        ["verify f-pool architecture.md"]
    );
    assert_eq!(stale(&repo), 0, "{:?}", check_codes(&repo));
    let fact = in_context(&repo, "f-pool").unwrap();
    assert_eq!(fact["state"], "active");
    assert_eq!(fact["verified"], today.as_str());
    // The audit accepts the decision: the commit does what its trailers say.
    repo.mneme(&["verify", "HEAD~1..HEAD"]).assert().success();
    let diff = repo.json(&["diff", "HEAD~1..HEAD", "--format", "json"]);
    let f = &diff["facts"][0];
    assert_eq!(f["change"], "reexamined", "{diff}");
    assert_eq!(
        f["metadata"],
        serde_json::json!([
            "evidence: src/old.rs → src/db.rs:12",
            format!("verified: – → {today}")
        ])
    );
}

#[test]
fn states_are_proposed_and_context_marks_or_leaves_out_the_fact() {
    let repo = seeded(&[
        ("f-keep", "Kept fact. <!-- since: 2026-11-01 -->"),
        (
            "f-gone",
            "Retired service runs on port 81. <!-- since: 2026-11-01 -->",
        ),
    ]);
    let id = repo.propose(&["state", "f-keep", "stale", "--reason", "driver changed"]);
    repo.approve(&id);
    assert!(repo
        .read(ARCH)
        .contains("- **f-keep** Kept fact. <!-- state: stale; since: 2026-11-01 -->"));
    let keep = in_context(&repo, "f-keep").unwrap();
    assert_eq!(
        (keep["state"].as_str(), keep["recorded_state"].as_str()),
        (Some("stale"), Some("stale"))
    );
    let text = repo.stdout(&["context"]);
    assert!(text.contains("- f-keep [stale] Kept fact."), "{text}");

    let id = repo.propose(&["state", "f-gone", "archived", "--reason", "service retired"]);
    repo.approve(&id);
    assert_eq!(
        repo.trailer("HEAD", "Mneme-Operation"),
        ["state f-gone architecture.md"]
    );
    assert!(repo
        .git(&["log", "-1", "--format=%s"])
        .contains("state f-gone archived"));
    assert!(in_context(&repo, "f-gone").is_none());
    assert_eq!(repo.json(&["context", "--json"])["archived"], 1);
    let text = repo.stdout(&["context"]);
    assert!(text.contains("1 archived fact(s) not shown"), "{text}");
    // An archived fact is not current: it takes no update until it is restored.
    let out = repo
        .mneme(&[
            "propose", "--json", "update", "f-gone", "Port 82.", "--reason", "r",
        ])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), "archived_fact");

    // A verify clears a recorded `stale`; restoring brings the archived fact back.
    let id = repo.propose(&["verify", "f-keep", "--reason", "checked"]);
    repo.approve(&id);
    assert!(!repo.read(ARCH).contains("state: stale"));
    let id = repo.propose(&["state", "f-gone", "active", "--reason", "back in service"]);
    repo.approve(&id);
    assert_eq!(in_context(&repo, "f-gone").unwrap()["state"], "active");
    assert!(repo
        .read(ARCH)
        .contains("- **f-gone** Retired service runs on port 81. <!-- since: 2026-11-01 -->\n"));
}

#[test]
fn a_pending_or_approved_contradiction_marks_both_facts_contested_until_resolved() {
    let repo = seeded(&[
        (
            "f-ten",
            "The pool holds 10 connections. <!-- since: 2026-11-01 -->",
        ),
        (
            "f-twenty",
            "The pool holds 20 connections. <!-- since: 2026-11-01 -->",
        ),
    ]);
    let id = repo.propose(&[
        "relate",
        "f-ten",
        "--contradicts",
        "f-twenty",
        "--reason",
        "they disagree",
    ]);
    // Pending, the contradiction already marks both sides, naming the proposal.
    for fact in ["f-ten", "f-twenty"] {
        let v = in_context(&repo, fact).unwrap();
        assert_eq!(v["state"], "contested", "{v}");
        assert_eq!(v["disputed_in"], serde_json::json!([id]));
        assert_eq!(v["contested_by"], serde_json::json!([]));
    }
    let shown = repo.stdout(&["show", "f-ten"]);
    assert!(
        shown.contains(&format!("contested: contradicted by pending proposal {id}")),
        "{shown}"
    );
    let briefing = repo.stdout(&["context"]);
    assert!(briefing.contains("- f-twenty [contested"), "{briefing}");
    // A new fact proposed as contradicting one disputes it too; rejected, the dispute ends.
    let other = repo.propose_add(
        "architecture",
        "The pool holds 30 connections.",
        &["--contradicts", "f-ten", "--reason", "measured"],
    );
    let v = in_context(&repo, "f-ten").unwrap();
    let mut both = vec![id.clone(), other.clone()];
    both.sort();
    assert_eq!(v["disputed_in"], serde_json::json!(both));
    repo.mneme(&["review", "reject", &other, "--reason", "no"])
        .assert()
        .success();
    assert_eq!(
        in_context(&repo, "f-ten").unwrap()["disputed_in"],
        serde_json::json!([id])
    );
    repo.approve(&id);
    assert!(repo
        .read(ARCH)
        .contains("<!-- since: 2026-11-01; contradicts: f-twenty -->"));
    for (fact, other) in [("f-ten", "f-twenty"), ("f-twenty", "f-ten")] {
        let v = in_context(&repo, fact).unwrap();
        assert_eq!(v["state"], "contested", "{v}");
        assert_eq!(v["recorded_state"], "active");
        assert_eq!(v["contested_by"], serde_json::json!([other]));
        assert_eq!(v["disputed_in"], serde_json::json!([]));
    }
    assert!(check_codes(&repo).iter().any(|(c, _)| c == "contradiction"));
    // Both directions are shown.
    let ten = repo.json(&["show", "f-ten", "--json"]);
    assert_eq!(
        ten["relations"],
        serde_json::json!({"contradicts": ["f-twenty"]})
    );
    let twenty = repo.json(&["show", "f-twenty", "--json"]);
    assert_eq!(
        twenty["related_from"],
        serde_json::json!([{"fact_id": "f-ten", "relation": "contradicts"}])
    );
    let shown = repo.stdout(&["show", "f-twenty"]);
    assert!(shown.contains("contradicted by: f-ten"), "{shown}");
    let why = repo.stdout(&["why", "f-ten"]);
    assert!(why.contains("contradicts: f-twenty"), "{why}");

    // Resolved by a person: the relation is removed, both are active again.
    let id = repo.propose(&[
        "unrelate",
        "f-ten",
        "--contradicts",
        "f-twenty",
        "--reason",
        "both hold, per service",
    ]);
    repo.approve(&id);
    assert_eq!(in_context(&repo, "f-twenty").unwrap()["state"], "active");
    assert!(!repo.read(ARCH).contains("contradicts"));
}

#[test]
fn a_relation_to_a_removed_fact_is_a_check_error() {
    let repo = seeded(&[
        ("f-base", "The base fact. <!-- since: 2026-11-01 -->"),
        ("f-top", "Built on the base. <!-- since: 2026-11-01 -->"),
    ]);
    let id = repo.propose(&["relate", "f-top", "--depends-on", "f-base", "--reason", "r"]);
    repo.approve(&id);
    repo.mneme(&["check"]).assert().success();
    let id = repo.propose(&["remove", "f-base", "--reason", "gone"]);
    repo.approve(&id);
    let out = repo
        .mneme(&["check", "--json"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let missing: Vec<&Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "relation_missing")
        .collect();
    assert_eq!(missing.len(), 1, "{v}");
    assert_eq!(missing[0]["severity"], "error");
    assert!(missing[0]["message"]
        .as_str()
        .unwrap()
        .contains("depends_on: f-base"));
    // The way out is a proposal too.
    let id = repo.propose(&[
        "unrelate",
        "f-top",
        "--depends-on",
        "f-base",
        "--reason",
        "base is gone",
    ]);
    repo.approve(&id);
    repo.mneme(&["check"]).assert().success();
}

#[test]
fn new_facts_carry_relations_and_bad_ones_are_refused_with_nothing_written() {
    let repo = seeded(&[
        ("f-base", "The base fact. <!-- since: 2026-11-01 -->"),
        ("f-old", "Old. <!-- state: superseded; by: f-base -->"),
    ]);
    let id = repo.propose_add(
        "architecture",
        "Derived statement.",
        &[
            "--derived-from",
            "f-base",
            "--relates-to",
            "f-base",
            "--reason",
            "r",
        ],
    );
    let fact = repo.new_fact_id(&id);
    repo.approve(&id);
    assert!(repo.read(ARCH).contains(&format!(
        "- **{fact}** Derived statement. <!-- since: {}; relates_to: f-base; derived_from: f-base -->",
        mneme::ops::now().date()
    )));
    let base = repo.json(&["show", "f-base", "--json"]);
    assert_eq!(base["related_from"].as_array().unwrap().len(), 3, "{base}");

    let snapshot = repo.snapshot();
    for (args, code) in [
        (
            vec!["relate", "f-base", "--depends-on", "f-base"],
            "invalid_relation",
        ),
        (
            vec!["relate", "f-base", "--depends-on", "f-old"],
            "invalid_relation",
        ),
        (
            vec!["relate", "f-base", "--depends-on", "f-nope"],
            "unknown_fact",
        ),
        (
            vec!["unrelate", "f-base", "--contradicts", &fact],
            "invalid_relation",
        ),
        (
            vec!["relate", &fact, "--derived-from", "f-base"],
            "no_change",
        ),
        (vec!["state", "f-base", "active"], "no_change"),
        (vec!["verify", "f-old"], "superseded_fact"),
        (vec!["state", "f-old", "active"], "superseded_fact"),
    ] {
        let mut full = vec!["propose", "--json"];
        full.extend(args.iter().copied());
        full.extend(["--reason", "r"]);
        let out = repo.mneme(&full).assert().code(1).get_output().clone();
        assert_eq!(error_code(&out), code, "{args:?}");
    }
    repo.mneme(&["propose", "relate", "f-base", "--reason", "r"])
        .assert()
        .code(1);
    repo.mneme(&["propose", "state", "f-base", "gone", "--reason", "r"])
        .assert()
        .code(2);
    assert_eq!(repo.snapshot(), snapshot, "nothing written");
}

#[test]
fn a_hand_made_lifecycle_proposal_is_held_to_the_rules() {
    let repo = seeded(&[("f-base", "The base fact. <!-- since: 2026-11-01 -->")]);
    let id = repo.propose(&["verify", "f-base", "--reason", "r"]);
    let path = format!(".ledger/proposals/{id}.json");
    let good = repo.read(&path);
    for (from, to) in [
        (
            "\"op\": \"verify\"",
            "\"op\": \"state\", \"state\": \"superseded\"",
        ),
        ("\"op\": \"verify\"", "\"op\": \"relate\""),
        (
            "\"op\": \"verify\"",
            "\"op\": \"relate\", \"add\": {\"depends_on\": [\"f-base\"]}",
        ),
        (
            "\"op\": \"verify\"",
            "\"op\": \"relate\", \"add\": {\"depends_on\": [\"../x\"]}",
        ),
    ] {
        assert!(good.contains(from));
        repo.write(&path, &good.replacen(from, to, 1));
        let listed = repo.json(&["review", "list", "--json"]);
        let entry = &listed.as_array().unwrap()[0];
        assert_eq!(entry["status"], "invalid", "{to}: {entry}");
        repo.mneme(&["review", "approve", &id]).assert().code(1);
    }
    assert!(!repo.read(ARCH).contains("verified"));
}
