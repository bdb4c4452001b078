use crate::common::{error_code, json, Repo};
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use serde_json::Value;

fn create(repo: &Repo, args: &[&str]) -> String {
    let mut full = vec!["create", "--json"];
    full.extend_from_slice(args);
    let out = repo.mneme(&full).assert().success().get_output().clone();
    json(&out)["id"].as_str().unwrap().to_owned()
}

fn task(repo: &Repo, id: &str) -> Value {
    serde_json::from_str(&repo.read(&format!(".ledger/tasks/{id}.json"))).unwrap()
}

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect()
}

fn ready(repo: &Repo) -> Vec<String> {
    ids(&repo.json(&["ready", "--json"]))
}

#[test]
fn create_writes_one_file_with_every_field() {
    let repo = Repo::new();
    let parent = create(&repo, &["Epic", "-t", "epic", "-p", "P1"]);
    let blocker = create(&repo, &["Blocker"]);
    let id = create(
        &repo,
        &[
            "Fix the cache",
            "-d",
            "Stale after deploy",
            "-t",
            "bug",
            "-p",
            "0",
            "--parent",
            &parent,
            "--depends-on",
            &blocker,
            "--label",
            "cache",
            "--label",
            "ops",
        ],
    );
    assert!(id.starts_with("t-") && id.len() >= 6, "{id}");
    let t = task(&repo, &id);
    assert_eq!(t["title"], "Fix the cache");
    assert_eq!(t["description"], "Stale after deploy");
    assert_eq!(t["type"], "bug");
    assert_eq!(t["priority"], 0);
    assert_eq!(t["status"], "open");
    assert_eq!(t["labels"], serde_json::json!(["cache", "ops"]));
    assert_eq!(
        t["deps"],
        serde_json::json!([{"type": "parent-child", "id": parent}, {"type": "blocks", "id": blocker}])
    );
    assert_eq!(t["notes"], serde_json::json!([]));
    assert!(t["created_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(t["closed_at"], Value::Null);
    let files = std::fs::read_dir(repo.file(".ledger/tasks"))
        .unwrap()
        .count();
    assert_eq!(files, 3);
    repo.mneme(&["create", "  "]).assert().code(1);
    repo.mneme(&["create", "x", "-p", "P7"]).assert().code(2);
}

#[test]
fn dependencies_drive_ready_and_blocked_through_close_and_reopen() {
    let repo = Repo::new();
    let a = create(&repo, &["A", "-p", "2"]);
    let b = create(&repo, &["B", "-p", "1", "--depends-on", &a]);
    let epic = create(&repo, &["Epic", "-p", "3"]);
    let child = create(&repo, &["Child", "-p", "0", "--parent", &epic]);
    let related = create(&repo, &["Related", "-p", "4"]);
    repo.mneme(&["dep", "add", &related, &a, "--type", "related"])
        .assert()
        .success();

    assert_eq!(
        ready(&repo),
        [child.clone(), a.clone(), epic.clone(), related.clone()]
    );
    let blocked = repo.json(&["blocked", "--json"]);
    assert_eq!(blocked.as_array().unwrap().len(), 1);
    assert_eq!(blocked[0]["task"]["id"], b);
    assert_eq!(blocked[0]["blocked_by"], serde_json::json!([a]));

    repo.mneme(&["update", &epic, "--status", "deferred"])
        .assert()
        .success();
    assert_eq!(ready(&repo), [a.clone(), related.clone()]);
    let explain = repo.json(&["ready", "--explain", "--json"]);
    let reasons: Vec<String> = explain["not_ready"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["id"].as_str().unwrap(),
                r["reasons"][0]["reason"].as_str().unwrap()
            )
        })
        .collect();
    assert!(reasons.contains(&format!("{b} blocked_by")), "{reasons:?}");
    assert!(
        reasons.contains(&format!("{child} ancestor")),
        "{reasons:?}"
    );
    assert!(reasons.contains(&format!("{epic} status")), "{reasons:?}");
    repo.mneme(&["ready", "--explain"])
        .assert()
        .success()
        .stdout(contains(format!("blocked by {a} (open)")));

    repo.mneme(&["close", &a, "--reason", "done"])
        .assert()
        .success();
    assert_eq!(ready(&repo), [b.clone(), related.clone()]);
    let closed = task(&repo, &a);
    assert_eq!(closed["status"], "closed");
    assert_eq!(closed["close_reason"], "done");
    repo.mneme(&["reopen", &a]).assert().success();
    assert_eq!(task(&repo, &a)["closed_at"], Value::Null);
    assert_eq!(ready(&repo), [a.clone(), related.clone()]);
    repo.mneme(&["close", &a]).assert().code(2);
}

#[test]
fn cycles_are_refused_naming_the_cycle() {
    let repo = Repo::new();
    let a = create(&repo, &["A"]);
    let b = create(&repo, &["B", "--depends-on", &a]);
    let c = create(&repo, &["C", "--depends-on", &b]);
    let before = task(&repo, &a);
    let out = repo
        .mneme(&["--json", "dep", "add", &a, &c])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), "dependency_cycle");
    repo.mneme(&["dep", "add", &a, &c])
        .assert()
        .code(1)
        .stderr(contains(format!("{a} → {c} → {b} → {a}")));
    assert_eq!(task(&repo, &a), before);
    repo.mneme(&["dep", "add", &a, &c, "--type", "related"])
        .assert()
        .success();
    repo.mneme(&["dep", "rm", &c, &b]).assert().success();
    repo.mneme(&["dep", "add", &a, &c]).assert().success();
    repo.mneme(&["dep", "tree", &a])
        .assert()
        .success()
        // Read from the task: it waits for the one it depends on (the dependency blocks it).
        .stdout(contains(format!("└─ waits for {c}")));
    // Closing a task before what it waits for: done, and said.
    repo.mneme(&["close", &a, "--reason", "done another way"])
        .assert()
        .success()
        .stderr(contains(format!(
            "{a} is closed, but {c} it waits for is still open"
        )));
    repo.mneme(&["close", &b, &c, "--reason", "done"])
        .assert()
        .success()
        .stderr(predicates::str::is_empty());
}

#[test]
fn ids_by_unique_prefix_and_suggestions_for_unknown_ones() {
    let repo = Repo::new();
    let a = create(&repo, &["Alpha"]);
    let prefix = &a[2..5];
    repo.mneme(&["show", prefix])
        .assert()
        .success()
        .stdout(contains("Alpha"));
    repo.mneme(&["show", &a[..5]]).assert().success();
    let wrong = format!("{}zz", &a[..4]);
    let out = repo
        .mneme(&["--json", "update", &wrong, "--notes", "x"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), "unknown_task");
    repo.mneme(&["update", &wrong, "--notes", "x"])
        .assert()
        .code(1)
        .stderr(contains(format!("did you mean {a}")));
}

#[test]
fn notes_append_and_claims_are_exclusive() {
    let repo = Repo::new();
    let id = create(&repo, &["Shared"]);
    let outputs = repo.concurrently(32, |i| {
        [
            "update",
            &id,
            "--notes",
            &format!("note {i}"),
            "--agent",
            &format!("agent-{i}"),
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
    let notes = task(&repo, &id)["notes"].as_array().unwrap().clone();
    assert_eq!(notes.len(), 32);
    let mut texts: Vec<_> = notes
        .iter()
        .map(|n| n["text"].as_str().unwrap().to_owned())
        .collect();
    texts.sort();
    texts.dedup();
    assert_eq!(texts.len(), 32);

    let outputs = repo.concurrently(8, |i| {
        ["update", &id, "--claim", "--agent", &format!("claimer-{i}")]
            .map(String::from)
            .to_vec()
    });
    let winners = outputs.iter().filter(|o| o.status.success()).count();
    assert_eq!(winners, 1);
    let t = task(&repo, &id);
    let owner = t["assignee"].as_str().unwrap().to_owned();
    assert_eq!(t["status"], "in_progress");
    for o in outputs.iter().filter(|o| !o.status.success()) {
        assert_eq!(o.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&o.stderr).contains(&format!("already claimed by {owner}")));
    }
    // The owner may claim again; notes survived the claims.
    repo.mneme(&["update", &id, "--claim", "--agent", &owner])
        .assert()
        .success();
    assert_eq!(task(&repo, &id)["notes"].as_array().unwrap().len(), 32);
}

#[test]
fn list_filters() {
    let repo = Repo::new();
    let bug = create(&repo, &["Bug", "-t", "bug", "-p", "0", "--label", "ui"]);
    let chore = create(&repo, &["Chore", "-t", "chore", "-p", "3"]);
    let done = create(&repo, &["Done"]);
    repo.mneme(&["close", &done, "--reason", "r"])
        .assert()
        .success();
    repo.mneme(&["update", &chore, "--claim", "--agent", "claude"])
        .assert()
        .success();
    let list = |args: &[&str]| {
        let mut full = vec!["list", "--json"];
        full.extend_from_slice(args);
        ids(&repo.json(&full))
    };
    assert_eq!(list(&[]), [bug.clone(), chore.clone()]);
    assert_eq!(list(&["--all"]).len(), 3);
    assert_eq!(list(&["--status", "closed"]), [done.as_str()]);
    assert_eq!(list(&["--type", "bug"]), [bug.as_str()]);
    assert_eq!(list(&["--priority", "P3"]), [chore.as_str()]);
    assert_eq!(list(&["--assignee", "claude"]), [chore.as_str()]);
    assert_eq!(list(&["--label", "ui"]), [bug.as_str()]);
    repo.mneme(&["list"])
        .assert()
        .success()
        .stdout(contains("in_progress [claude] Chore"));
}

#[test]
fn a_corrupt_task_file_is_reported_and_the_rest_keeps_working() {
    let repo = Repo::new();
    let good = create(&repo, &["Good"]);
    repo.write(".ledger/tasks/t-bad1.json", "{ broken");
    repo.mneme(&["ready"])
        .assert()
        .success()
        .stdout(contains(&good))
        .stderr(contains("t-bad1.json"));
    repo.mneme(&["update", &good, "--notes", "still works"])
        .assert()
        .success();
    let out = repo
        .mneme(&["check", "--json"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let findings = json(&out)["findings"].clone();
    assert_eq!(findings[0]["code"], "task_parse");
    assert_eq!(findings[0]["path"], ".ledger/tasks/t-bad1.json");
}

#[test]
fn context_shows_in_progress_and_ready_tasks() {
    let repo = Repo::new();
    let doing = create(&repo, &["Doing it", "-p", "1"]);
    let next = create(&repo, &["Next up", "-p", "0"]);
    repo.mneme(&["update", &doing, "--claim", "--agent", "claude"])
        .assert()
        .success();
    let v = repo.json(&["context", "--json"]);
    assert_eq!(v["tasks"]["in_progress"][0]["id"], doing);
    assert_eq!(v["tasks"]["ready"][0]["id"], next);
    assert_eq!(v["tasks"]["open"], 2);
    repo.mneme(&["context"])
        .assert()
        .success()
        .stdout(contains("## Tasks (2 open, 1 in progress, 1 ready)"))
        .stdout(contains("Doing it [in progress, P1, claude]"));
}

#[test]
fn context_lists_the_ten_most_urgent_tasks_in_progress_and_counts_the_rest() {
    let repo = Repo::new();
    // Created least urgent first, so that neither creation order nor id order is the answer.
    let ids: Vec<String> = (0..12)
        .map(|i| {
            let p = format!("{}", 4 - i / 3);
            let id = create(&repo, &[&format!("Work {i}"), "-p", &p]);
            repo.mneme(&["update", &id, "--claim", "--agent", &format!("a{i}")])
                .assert()
                .success();
            id
        })
        .collect();
    let v = repo.json(&["context", "--json"]);
    let listed: Vec<&str> = v["tasks"]["in_progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    // P1 first (the last three created), then P2, P3, and one of the P4s, oldest first.
    let expected: Vec<&str> = [9, 10, 11, 6, 7, 8, 3, 4, 5, 0]
        .iter()
        .map(|&i| ids[i].as_str())
        .collect();
    assert_eq!(listed, expected);
    assert_eq!(v["tasks"]["in_progress_total"], 12);
    repo.mneme(&["context"])
        .assert()
        .success()
        .stdout(contains("## Tasks (12 open, 12 in progress, 0 ready)"))
        .stdout(contains(
            "2 more task(s) in progress: `mneme list --status in_progress`",
        ))
        .stdout(contains("Work 1 ").not());
    let status = repo.json(&["status", "--json"]);
    assert_eq!(status["tasks_in_progress"].as_array().unwrap().len(), 10);
    assert_eq!(status["tasks_in_progress_total"], 12);
    repo.mneme(&["status"])
        .assert()
        .success()
        .stdout(contains("12 open task(s), 12 in progress"))
        .stdout(contains("… and 2 more (`mneme list --status in_progress`)"));
}

#[test]
fn tasks_created_on_two_branches_merge_without_conflicts() {
    let repo = Repo::committed();
    let shared = create(&repo, &["Shared"]);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "shared task"]);
    repo.git(&["checkout", "-q", "-b", "left"]);
    let left: Vec<_> = (0..5)
        .map(|i| create(&repo, &[&format!("Left {i}")]))
        .collect();
    repo.mneme(&["update", &shared, "--notes", "from left"])
        .assert()
        .success();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "left tasks"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["checkout", "-q", "-b", "right"]);
    let right: Vec<_> = (0..5)
        .map(|i| create(&repo, &[&format!("Right {i}")]))
        .collect();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "right tasks"]);
    repo.git(&["merge", "-q", "--no-edit", "left"]);
    let all = ids(&repo.json(&["list", "--json"]));
    assert_eq!(all.len(), 11);
    for id in left.iter().chain(&right) {
        assert!(all.contains(id));
    }
    assert_eq!(task(&repo, &shared)["notes"][0]["text"], "from left");
}

#[test]
fn empty_and_one_letter_prefixes_name_no_task() {
    let repo = Repo::new();
    let id = create(&repo, &["Only task"]);
    let before = repo.snapshot();
    for short in ["", "t", "t-", &id[2..3]] {
        let out = repo
            .mneme(&["--json", "update", short, "--status", "blocked"])
            .assert()
            .code(1)
            .get_output()
            .clone();
        assert_eq!(error_code(&out), "invalid_input", "{short:?}");
    }
    assert_eq!(repo.snapshot(), before);
    repo.mneme(&["update", &id[..4], "--status", "blocked"])
        .assert()
        .success();
}

/// A committed repository with one task titled `title` and a second work tree of it (a sibling
/// directory ending in `suffix`): the task's id and the other work tree's path.
fn task_in_two_work_trees(title: &str, suffix: &str) -> (Repo, String, std::path::PathBuf) {
    let repo = Repo::committed();
    let id = create(&repo, &[title]);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "a task"]);
    let other = repo.path().join("../").join(format!(
        "{}-{suffix}",
        repo.path().file_name().unwrap().to_string_lossy()
    ));
    repo.git(&["worktree", "add", "-q", other.to_str().unwrap()]);
    (repo, id, other)
}

/// `update ID --claim --agent WHO --json`, run in the work tree at `dir`.
fn claim_in(repo: &Repo, dir: &std::path::Path, id: &str, who: &str) -> std::process::Output {
    repo.mneme_in(dir, &["--json", "update", id, "--claim", "--agent", who])
        .output()
        .unwrap()
}

#[test]
fn linked_worktrees_of_one_repository_exclude_each_others_claims() {
    let (repo, id, other) = task_in_two_work_trees("Shared across work trees", "wt");
    let other_path = other.to_string_lossy().into_owned();
    let claim = |dir: &std::path::Path, who: &str| claim_in(&repo, dir, &id, who);
    assert!(claim(repo.path(), "alice").status.success());
    let refused = claim(&other, "bob");
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(error_code(&refused), "already_claimed");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("alice (in another work tree)"));
    // Closing where it was claimed releases it.
    repo.mneme(&["close", &id, "--reason", "done"])
        .assert()
        .success();
    assert!(claim(&other, "bob").status.success());
    repo.git(&["worktree", "remove", "--force", &other_path]);
}

#[test]
fn reopen_and_unclaim_leave_the_task_unclaimed_in_every_work_tree() {
    let (repo, id, other) = task_in_two_work_trees("Given back", "unclaim");
    let other_path = other.to_string_lossy().into_owned();
    let claim = |dir: &std::path::Path, who: &str| claim_in(&repo, dir, &id, who);
    assert!(claim(repo.path(), "alice").status.success());
    // Only the holder gives it back.
    let refused = repo
        .mneme(&["--json", "update", &id, "--unclaim", "--agent", "bob"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("claimed by alice, not by you"));
    repo.mneme(&["update", &id, "--unclaim", "--agent", "alice"])
        .assert()
        .success();
    let t = task(&repo, &id);
    assert_eq!(
        (t["status"].as_str(), t["assignee"].as_str()),
        (Some("open"), None)
    );
    // The shared claim record went with it: another work tree may take the task.
    assert!(claim(&other, "bob").status.success());
    repo.mneme(&["update", &id, "--unclaim", "--agent", "alice"])
        .assert()
        .code(1)
        .stderr(contains("not claimed"));
    repo.mneme_in(&other, &["update", &id, "--unclaim", "--agent", "bob"])
        .assert()
        .success();

    // A closed and reopened task is nobody's, here and in the other work tree.
    repo.mneme(&["update", &id, "--claim", "--agent", "alice"])
        .assert()
        .success();
    repo.mneme(&["close", &id, "--reason", "done"])
        .assert()
        .success();
    repo.mneme(&["reopen", &id]).assert().success();
    let t = task(&repo, &id);
    assert_eq!(
        (t["status"].as_str(), t["assignee"].as_str()),
        (Some("open"), None)
    );
    assert!(claim(&other, "carol").status.success());
    repo.git(&["worktree", "remove", "--force", &other_path]);
}

/// `check --json` findings as `(code, path, message)`.
fn findings(repo: &Repo) -> Vec<(String, String, String)> {
    repo.findings()
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or_default().to_owned();
            (s("code"), s("path"), s("message"))
        })
        .collect()
}

#[test]
fn tasks_and_facts_cite_each_other_and_show_lists_both_ways() {
    let repo = Repo::committed();
    let approve_add = |text: &str, evidence: &str| {
        repo.approve_new_with(
            "pitfalls",
            text,
            &["--reason", "seen", "--evidence", evidence],
        )
    };
    let pool = approve_add("The pool holds ten connections.", "README.md");
    let t = create(&repo, &["Tune the pool", "--cites", &pool]);
    assert_eq!(task(&repo, &t)["facts"], serde_json::json!([pool]));

    // Only facts in the ledger can be cited; nothing is written otherwise.
    let before = repo.snapshot();
    let out = repo
        .mneme(&["create", "Nope", "--cites", "f-zzzz", "--json"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), "unknown_fact");
    repo.mneme(&["update", &t, "--cites", "f-zzzz"])
        .assert()
        .code(1);
    let out = repo
        .mneme(&["update", &t, "--uncite", "f-zzzz", "--json"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), "invalid_input");
    assert_eq!(repo.snapshot(), before);

    // A fact cites the task through its evidence.
    let tuned = approve_add("Twenty connections were best under load.", &t);
    let f = repo.json(&["show", &pool, "--json"]);
    assert_eq!(f["cited_by_tasks"], serde_json::json!([t]));
    let w = repo.json(&["why", &pool, "--json"]);
    assert_eq!(w["fact"]["cited_by_tasks"], serde_json::json!([t]));
    let shown = repo.json(&["show", &t, "--json"]);
    assert_eq!(shown["facts"], serde_json::json!([pool]));
    assert_eq!(shown["cited_by_facts"], serde_json::json!([tuned]));
    repo.mneme(&["show", &t])
        .assert()
        .success()
        .stdout(contains(format!("cites:    {pool}")))
        .stdout(contains(format!("cited by: {tuned}")));
    repo.mneme(&["show", &pool])
        .assert()
        .success()
        .stdout(contains(format!("cited by tasks: {t}")));
    assert!(findings(&repo).is_empty(), "{:?}", findings(&repo));

    // Uncited, the field leaves the file.
    repo.mneme(&["update", &t, "--uncite", &pool])
        .assert()
        .success();
    assert!(task(&repo, &t).get("facts").is_none());
    assert!(repo
        .json(&["show", &pool, "--json"])
        .get("cited_by_tasks")
        .is_none());

    // Hand-made files: a cited fact that is gone warns, a malformed id does not parse, and
    // evidence naming a task that does not exist warns.
    let path = format!(".ledger/tasks/{t}.json");
    let text = repo.read(&path);
    repo.write(
        &path,
        &text.replace(
            "\"created_at\"",
            "\"facts\": [\"f-gone\"],\n  \"created_at\"",
        ),
    );
    repo.mneme(&["close", &t, "--reason", "done"])
        .assert()
        .success();
    let found = findings(&repo);
    assert!(
        found.contains(&(
            "task_fact_missing".into(),
            path.clone(),
            format!(
                "cites fact f-gone, which is not in the ledger; `mneme update {t} --uncite f-gone`"
            )
        )),
        "{found:?}"
    );
    repo.write(
        &path,
        &text.replace("\"created_at\"", "\"facts\": [\"nope\"],\n  \"created_at\""),
    );
    assert!(findings(&repo)
        .iter()
        .any(|(c, p, m)| c == "task_parse" && *p == path && m.contains("`nope`")));
    repo.write(&path, &text);
    approve_add("A fact citing a task that never was.", "t-zzzz");
    assert!(findings(&repo)
        .iter()
        .any(|(c, _, m)| c == "missing_evidence" && m.contains("t-zzzz")));
}

/// The verbs on one task read that task's file (and, for a dependency, the files it leads to),
/// never the others: a hundred unreadable task files beside it change nothing, and ids still
/// resolve by prefix from the files' names.
#[test]
fn single_task_verbs_read_only_the_task_they_touch() {
    let repo = Repo::new();
    let a = create(&repo, &["First task of three"]);
    let b = create(&repo, &["Second task of three", "--depends-on", &a]);
    let c = create(&repo, &["Third task of three"]);
    for i in 0..100 {
        repo.write(&format!(".ledger/tasks/t-zz{i:03}.json"), "{ not a task");
    }
    let prefix = &b[..b.len() - 1];
    repo.mneme(&["show", prefix])
        .assert()
        .success()
        .stdout(contains(&b));
    repo.mneme(&["update", prefix, "--notes", "works beside broken files"])
        .assert()
        .success();
    assert_eq!(
        task(&repo, &b)["notes"][0]["text"],
        "works beside broken files"
    );
    // The cycle check follows dependencies file by file.
    let out = repo
        .mneme(&["dep", "add", &a, &b, "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(error_code(&out), "dependency_cycle");
    repo.mneme(&["dep", "add", &c, &b]).assert().success();
    let d = create(&repo, &["Fourth, under the third", "--parent", &c]);
    assert_eq!(task(&repo, &d)["deps"][0]["id"], c.as_str());
    repo.mneme(&["close", &a, "--reason", "done"])
        .assert()
        .success();
    repo.mneme(&["reopen", &a]).assert().success();
    // Unknown ids still come with suggestions.
    let out = repo.mneme(&["show", "t-zz0", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(error_code(&out), "ambiguous_task");
}

/// A new task's id is as long as the number of tasks asks, counted without reading them: the
/// count kept in the git directory follows every change to the directory.
#[test]
fn new_ids_grow_with_the_number_of_tasks_counted_from_the_directory() {
    let repo = Repo::new();
    let short = create(&repo, &["First"]);
    assert_eq!(short.len(), "t-".len() + 4, "{short}");
    // Past 1,679 tasks, four base-36 characters no longer keep cross-branch collisions rare.
    for i in 0..1_700 {
        repo.write(&format!(".ledger/tasks/t-z{i:04}.json"), "{}");
    }
    let long = create(&repo, &["After many"]);
    assert_eq!(long.len(), "t-".len() + 5, "{long}");
    let cache = repo.read(".git/mneme-tasks.count");
    assert!(
        cache.trim_end().ends_with(" 1702"),
        "with its own new file: {cache}"
    );
    for i in 0..1_000 {
        std::fs::remove_file(repo.file(&format!(".ledger/tasks/t-z{i:04}.json"))).unwrap();
    }
    let again = create(&repo, &["After a cleanup"]);
    assert_eq!(again.len(), "t-".len() + 4, "{again}");
    // A damaged count is not believed.
    repo.write(".git/mneme-tasks.count", "mneme-tasks-count 2 x y z 7\n");
    assert_eq!(create(&repo, &["Still counted"]).len(), "t-".len() + 4);
}
