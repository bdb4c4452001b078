//! A scripted history: approved facts on two branches merged with `git merge`, a direct edit by
//! an agent; `verify` must flag exactly the direct edit and `diff` list exactly the approvals.

use crate::common::{json, Repo};
use predicates::str::contains;

fn approve(repo: &Repo, args: &[&str]) -> String {
    let id = repo.propose(args);
    let fact = repo.new_fact_id(&id);
    repo.approve(&id);
    fact
}

#[test]
fn verify_flags_direct_edits_and_diff_lists_approvals() {
    let repo = Repo::committed();
    repo.git(&["add", "-A"]);
    let base = repo.head();
    let f1 = approve(
        &repo,
        &[
            "add",
            "-f",
            "architecture",
            "We use PostgreSQL 16.",
            "--reason",
            "adr",
            "--agent",
            "claude",
        ],
    );
    let f2 = approve(
        &repo,
        &[
            "add",
            "-f",
            "pitfalls",
            "Never block the executor.",
            "--reason",
            "incident",
        ],
    );

    repo.git(&["checkout", "-q", "-b", "feature-a"]);
    let fa = approve(
        &repo,
        &[
            "add",
            "-f",
            "architecture",
            "Branch A adds this fact.",
            "--reason",
            "a",
        ],
    );
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["checkout", "-q", "-b", "feature-b"]);
    let fb = approve(
        &repo,
        &[
            "add",
            "-f",
            "architecture",
            "Branch B adds another fact.",
            "--reason",
            "b",
        ],
    );
    let up = approve(
        &repo,
        &[
            "update",
            &f1,
            "We use PostgreSQL 17.",
            "--reason",
            "upgrade",
        ],
    );
    assert_eq!(up, f1);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-edit", "feature-a"]);
    repo.git(&["merge", "-q", "--no-edit", "feature-b"]);
    let arch = repo.read(".ledger/facts/architecture.md");
    assert!(
        arch.contains(&fa) && arch.contains(&fb) && arch.contains("We use PostgreSQL 17."),
        "{arch}"
    );
    assert!(!arch.contains("<<<<<<<"));

    // An agent edits the Markdown directly.
    let pit = repo.read(".ledger/facts/pitfalls.md").replace(
        "Never block the executor.",
        "Blocking the executor is fine.",
    );
    repo.write(".ledger/facts/pitfalls.md", &pit);
    repo.git(&[
        "-c",
        "user.name=Sneaky Agent",
        "-c",
        "user.email=agent@example.com",
        "commit",
        "-q",
        "-am",
        "tweak wording",
    ]);
    let sneaky = repo.head();
    // A human retitles a file (context only): noted, not a violation.
    let inv = repo
        .read(".ledger/facts/invariants.md")
        .replace("# Invariants", "# Invariants (must hold)");
    repo.write(".ledger/facts/invariants.md", &inv);
    repo.git(&["commit", "-q", "-am", "retitle"]);

    let range = format!("{base}..HEAD");
    let out = repo
        .mneme(&["verify", &range, "--json"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let v = json(&out);
    let violations = v["violations"].as_array().unwrap();
    assert_eq!(violations.len(), 1, "{v:#}");
    assert_eq!(violations[0]["commit"], sneaky);
    assert_eq!(violations[0]["author"], "Sneaky Agent <agent@example.com>");
    assert_eq!(violations[0]["facts"], serde_json::json!([f2]));
    assert_eq!(violations[0]["files"], serde_json::json!(["pitfalls.md"]));
    assert_eq!(v["notes"].as_array().unwrap().len(), 1);
    repo.mneme(&["verify", &range])
        .assert()
        .code(1)
        .stdout(contains("unreviewed"))
        .stdout(contains(&sneaky[..10]));
    // Up to the commit before the edit, everything was reviewed (merges included).
    repo.mneme(&["verify", &format!("{base}..{sneaky}~1")])
        .assert()
        .success();

    // The per-commit view: one entry per approval.
    let d = repo.json(&["diff", &range, "--format", "json", "--by-commit"]);
    let ids = |key: &str| -> Vec<String> {
        d[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["fact"].as_str().unwrap().to_owned())
            .collect()
    };
    let mut added = ids("added");
    added.sort();
    let mut expected = vec![f1.clone(), f2.clone(), fa.clone(), fb.clone()];
    expected.sort();
    assert_eq!(added, expected);
    assert_eq!(ids("updated"), [f1.as_str()]);
    assert_eq!(d["updated"][0]["old"], "We use PostgreSQL 16.");
    assert_eq!(d["updated"][0]["new"], "We use PostgreSQL 17.");
    assert_eq!(d["updated"][0]["reason"], "upgrade");
    assert_eq!(d["unreviewed_commits"], 1);
    let md = repo
        .mneme(&["diff", &range, "--format", "markdown", "--by-commit"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let md = String::from_utf8(md).unwrap();
    assert!(md.starts_with("## Ledger changes"), "{md}");
    assert!(
        md.contains("**4 added · 1 updated · 0 superseded · 0 removed · 0 re-examined · 0 rejected · 0 pending**"),
        "{md}"
    );
    assert!(md.contains(&format!("- `{f1}` in `architecture.md`\n  - before: We use PostgreSQL 16.\n  - after: We use PostgreSQL 17.")));

    // The net view: one entry per fact, the unreviewed edit first and with its content.
    let net = repo.json(&["diff", &range, "--json"]);
    assert_eq!(net["unreviewed"].as_array().unwrap().len(), 1, "{net:#}");
    let u = &net["unreviewed"][0];
    assert_eq!(u["commit"], sneaky);
    assert_eq!(
        u["changes"],
        serde_json::json!([{"fact": f2, "kind": "changed", "file": "pitfalls.md",
            "old": "Never block the executor.", "new": "Blocking the executor is fine."}])
    );
    let facts = net["facts"].as_array().unwrap();
    let mut listed: Vec<_> = facts.iter().map(|f| f["fact"].as_str().unwrap()).collect();
    listed.sort_unstable();
    assert_eq!(listed, expected, "each fact once");
    assert!(facts.iter().all(|f| f["change"] == "added"));
    let entry = |id: &str| facts.iter().find(|f| f["fact"] == id).unwrap();
    let f1e = entry(&f1);
    assert_eq!(f1e["before"], serde_json::Value::Null);
    assert_eq!(f1e["after"], "We use PostgreSQL 17.");
    let hows: Vec<_> = f1e["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["op"].as_str().unwrap(),
                s["proposed_by"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(hows, [("add", "claude"), ("update", "unknown")]);
    assert_eq!(f1e["unreviewed"], false);
    let f2e = entry(&f2);
    assert_eq!(f2e["after"], "Blocking the executor is fine.");
    assert_eq!(f2e["unreviewed"], true);
    assert_eq!(f2e["steps"][1]["how"], "unreviewed");
    assert_eq!(
        f2e["steps"][1]["author"],
        "Sneaky Agent <agent@example.com>"
    );

    let md = repo
        .mneme(&["diff", &range, "--format", "markdown"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let md = String::from_utf8(md).unwrap();
    assert!(
        md.contains("**1 unreviewed commit(s)** · 4 added · 0 rejected · 0 pending"),
        "{md}"
    );
    let caution = md.find("[!CAUTION]").unwrap();
    assert!(
        caution < md.find("### Added").unwrap(),
        "unreviewed first:\n{md}"
    );
    assert!(md.contains("- before: Never block the executor."), "{md}");
    assert!(
        md.contains("- after: Blocking the executor is fine."),
        "{md}"
    );
    assert_eq!(md.matches(&format!("`{f1}`")).count(), 1, "{md}");
}

#[test]
fn a_decision_whose_change_does_not_match_its_trailers_is_flagged() {
    let repo = Repo::committed();
    let base = repo.head();
    let f1 = approve(
        &repo,
        &["add", "-f", "architecture", "Honest fact.", "--reason", "r"],
    );
    // Forge: reuse the trailers of a real decision on a commit that also smuggles a fact in.
    let message = repo.git(&["log", "-1", "--format=%B"]);
    let arch = repo.read(".ledger/facts/architecture.md");
    repo.write(
        ".ledger/facts/architecture.md",
        &format!("{arch}- **f-evil** Smuggled fact.\n"),
    );
    repo.git(&["commit", "-q", "-a", "-m", &message]);
    let out = repo
        .mneme(&["verify", &format!("{base}..HEAD"), "--json"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let v = json(&out);
    assert_eq!(v["violations"].as_array().unwrap().len(), 1);
    let problems = v["violations"][0]["problems"].to_string();
    assert!(
        problems.contains("f-evil was added but the decision does not say so"),
        "{problems}"
    );
    assert!(
        problems.contains(&format!("the decision says {f1} is was added"))
            || problems.contains(&f1),
        "{problems}"
    );
}

#[test]
fn both_branches_changing_one_fact_conflict_on_that_fact_only() {
    let repo = Repo::committed();
    let f1 = approve(
        &repo,
        &["add", "-f", "architecture", "Original.", "--reason", "r"],
    );
    repo.git(&["checkout", "-q", "-b", "other"]);
    approve(&repo, &["update", &f1, "Theirs.", "--reason", "r"]);
    let theirs_only = approve(
        &repo,
        &[
            "add",
            "-f",
            "architecture",
            "Only on other.",
            "--reason",
            "r",
        ],
    );
    repo.git(&["checkout", "-q", "main"]);
    approve(&repo, &["update", &f1, "Ours.", "--reason", "r"]);
    let out = repo.git_output(&["merge", "--no-edit", "other"]);
    assert!(!out.status.success(), "conflict expected");
    let arch = repo.read(".ledger/facts/architecture.md");
    assert!(
        arch.contains(&format!("<<<<<<< ours\n- **{f1}** Ours."))
            && arch.contains(&format!("=======\n- **{f1}** Theirs.")),
        "{arch}"
    );
    assert_eq!(arch.matches("<<<<<<<").count(), 1);
    assert!(arch.contains(&format!("- **{theirs_only}** Only on other.")));
}

#[test]
fn the_commit_msg_hook_refuses_direct_fact_edits() {
    let repo = Repo::committed();
    repo.mneme(&["hooks", "install"]).assert().success();
    let f1 = approve(
        &repo,
        &[
            "add",
            "-f",
            "architecture",
            "Guarded fact.",
            "--reason",
            "r",
        ],
    );
    assert!(
        repo.read(".ledger/facts/architecture.md").contains(&f1),
        "mneme's own commits pass the hook"
    );

    let arch = repo.read(".ledger/facts/architecture.md");
    repo.write(
        ".ledger/facts/architecture.md",
        &arch.replace("Guarded fact.", "Tampered fact."),
    );
    let out = repo.git_output(&["commit", "-q", "-am", "tamper"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&f1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    repo.git(&["checkout", "--", "."]);
    // Edits to the text around the facts are allowed.
    let arch = repo.read(".ledger/facts/architecture.md");
    repo.write(
        ".ledger/facts/architecture.md",
        &arch.replace("# Architecture", "# Architecture decisions"),
    );
    repo.git(&["commit", "-q", "-am", "retitle"]);
    // An existing foreign hook is kept and runs first; a second one, when the first already
    // holds that place, is refused unless replaced with --force.
    let foreign = "#!/bin/sh\nexit 0\n";
    std::fs::write(repo.file(".git/hooks/commit-msg"), foreign).unwrap();
    repo.mneme(&["hooks", "install"])
        .assert()
        .success()
        .stdout(contains("runs first"));
    assert_eq!(repo.read(".git/hooks/commit-msg.pre-mneme"), foreign);
    std::fs::write(repo.file(".git/hooks/commit-msg"), foreign).unwrap();
    repo.mneme(&["hooks", "install"])
        .assert()
        .code(1)
        .stderr(contains("--force"));
    repo.mneme(&["hooks", "install", "--force"])
        .assert()
        .success();
    assert!(repo
        .read(".git/hooks/commit-msg")
        .contains("\"$m\" hooks commit-msg \"$1\""));
}

#[test]
fn a_smuggled_second_item_under_an_existing_id_fails_verify_and_the_hook() {
    let repo = Repo::committed();
    let f1 = approve(
        &repo,
        &[
            "add",
            "-f",
            "architecture",
            "The real statement.",
            "--reason",
            "r",
        ],
    );
    let start = repo.head();
    let smuggle = |repo: &Repo| {
        let arch = repo.read(".ledger/facts/architecture.md");
        repo.write(
            ".ledger/facts/architecture.md",
            &format!("{arch}- **{f1}** A statement nobody reviewed.\n"),
        );
    };
    repo.mneme(&["hooks", "install"]).assert().success();
    smuggle(&repo);
    let out = repo.git_output(&["commit", "-q", "-am", "looks like a typo fix"]);
    assert!(!out.status.success(), "the hook let the duplicate through");
    assert!(String::from_utf8_lossy(&out.stderr).contains(&f1));

    repo.git(&[
        "commit",
        "-q",
        "--no-verify",
        "-am",
        "looks like a typo fix",
    ]);
    let report = json(
        &repo
            .mneme(&["verify", &format!("{start}..HEAD"), "--json"])
            .assert()
            .code(1)
            .get_output()
            .clone(),
    );
    assert_eq!(report["violations"][0]["facts"], serde_json::json!([f1]));
    assert!(report["violations"][0]["problems"]
        .to_string()
        .contains("duplicated"));
}

#[test]
fn diff_shows_the_net_change_of_each_fact_with_its_history() {
    let repo = Repo::committed();
    let f = approve(
        &repo,
        &[
            "add",
            "-f",
            "architecture",
            "We use PostgreSQL 15.",
            "--reason",
            "adr",
        ],
    );
    let base = repo.head();
    // Updated twice, then superseded: one entry, three steps.
    approve(
        &repo,
        &["update", &f, "We use PostgreSQL 16.", "--reason", "r1"],
    );
    let third = repo.propose_update(&f, "We use PostgreSQL 17.", &["--reason", "r2"]);
    repo.approve(&third);
    let g = approve(
        &repo,
        &[
            "supersede",
            &f,
            "We use CockroachDB.",
            "--reason",
            "multi-region",
            "--evidence",
            "docs/adr/7.md",
            "--evidence",
            "src/db.rs:12",
        ],
    );
    let rejected = repo.propose_add("pitfalls", "Tabs beat spaces.", &["--reason", "taste"]);
    repo.mneme(&[
        "review",
        "reject",
        &rejected,
        "--reason",
        "opinion, not fact",
    ])
    .assert()
    .success();

    // Two branches change one fact differently; the merge is resolved by hand with a third text.
    let h = approve(
        &repo,
        &[
            "add",
            "-f",
            "invariants",
            "Ids are unique.",
            "--reason",
            "r",
        ],
    );
    repo.git(&["checkout", "-q", "-b", "side"]);
    approve(
        &repo,
        &["update", &h, "Ids are unique per ledger.", "--reason", "r"],
    );
    repo.git(&["checkout", "-q", "main"]);
    approve(
        &repo,
        &["update", &h, "Ids are never reused.", "--reason", "r"],
    );
    let merge = repo.git_output(&["merge", "-q", "--no-edit", "side"]);
    assert!(!merge.status.success(), "the branches conflict");
    let inv = repo.read(".ledger/facts/invariants.md");
    let start = inv.find("<<<<<<<").unwrap();
    let end =
        inv.find(">>>>>>>").unwrap() + inv[inv.find(">>>>>>>").unwrap()..].find('\n').unwrap() + 1;
    let resolved = format!(
        "{}- **{h}** Ids are made up at the merge.\n{}",
        &inv[..start],
        &inv[end..]
    );
    repo.write(".ledger/facts/invariants.md", &resolved);
    repo.git(&["commit", "-q", "-am", "merge side"]);
    let merge_commit = repo.head();

    let net = repo.json(&["diff", &format!("{base}..HEAD"), "--json"]);
    assert_eq!(net["base"], base.as_str());
    let facts = net["facts"].as_array().unwrap();
    let entry = |id: &str| {
        facts
            .iter()
            .find(|e| e["fact"] == id)
            .unwrap_or_else(|| panic!("{id} in {net:#}"))
    };
    let fe = entry(&f);
    assert_eq!(fe["change"], "superseded");
    assert_eq!(fe["before"], "We use PostgreSQL 15.");
    assert_eq!(fe["after"], "We use PostgreSQL 17.");
    assert_eq!(fe["replaced_by"], g.as_str());
    let ops: Vec<_> = fe["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["op"].as_str().unwrap())
        .collect();
    assert_eq!(ops, ["update", "update", "supersede"]);
    assert_eq!(
        fe["steps"][2]["evidence"],
        serde_json::json!(["docs/adr/7.md", "src/db.rs:12"])
    );
    assert_eq!(entry(&g)["change"], "added");
    assert_eq!(entry(&g)["after"], "We use CockroachDB.");

    let he = entry(&h);
    assert_eq!(he["change"], "added");
    assert_eq!(he["after"], "Ids are made up at the merge.");
    assert_eq!(he["unreviewed"], true);
    let last = he["steps"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["how"], "merge");
    assert_eq!(last["commit"], merge_commit.as_str());
    assert_eq!(last["text"], "Ids are made up at the merge.");
    assert_eq!(net["unreviewed"][0]["commit"], merge_commit.as_str());

    assert_eq!(net["rejected"][0]["proposal"], rejected.as_str());
    assert_eq!(net["rejected"][0]["why"], "opinion, not fact");
    assert_eq!(
        net["rejected"][0]["proposed_texts"][0]["text"],
        "Tabs beat spaces."
    );

    let md = repo.stdout(&[
        "diff",
        &format!("{base}..HEAD"),
        "--format",
        "markdown",
        "--repo-url",
        "https://github.com/acme/app/",
    ]);
    let head = repo.head();
    assert!(md.contains("### Superseded (1)"), "{md}");
    assert!(md.contains(&format!("- `{f}` · `architecture.md` → `{g}`\n  - before: We use PostgreSQL 15.\n  - after: We use PostgreSQL 17.\n")), "{md}");
    assert!(
        md.contains(&format!(
            "(https://github.com/acme/app/blob/{head}/src/db.rs#L12)"
        )),
        "{md}"
    );
    assert!(
        md.contains(&format!(
            "(https://github.com/acme/app/commit/{merge_commit})"
        )),
        "{md}"
    );
    assert!(md.contains("**written while resolving a merge**"), "{md}");
    assert!(
        md.contains("rejected by Test Human \\<human@example.com\\>: _opinion, not fact_"),
        "{md}"
    );
    assert!(md.contains("  - `"), "{md}");
    assert!(md.contains("Tabs beat spaces."), "{md}");
    // The terminal view says the same.
    let text = repo.stdout(&["diff", &format!("{base}..HEAD")]);
    assert!(text.contains("WRITTEN WHILE RESOLVING A MERGE:"), "{text}");
    assert!(text.contains("- We use PostgreSQL 15.\n"), "{text}");
}

#[test]
fn bad_ranges_are_explained_in_words() {
    let repo = Repo::committed();
    for (range, said) in [
        (
            "HEAD~20..HEAD",
            "cannot resolve `HEAD~20`: the history is not that long",
        ),
        (
            "nope..HEAD",
            "cannot resolve `nope`: no branch, tag or commit has that name",
        ),
        (
            "HEAD@{..HEAD",
            "cannot resolve `HEAD@{`: not a revision git understands",
        ),
        ("HEAD", "`HEAD` is not a range; write BASE..HEAD"),
    ] {
        for verb in ["verify", "diff"] {
            let out = repo
                .mneme(&[verb, range])
                .assert()
                .code(1)
                .get_output()
                .clone();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.contains(said), "{verb} {range}: {stderr}");
            for leak in ["delegate", "NthAncestor", "input=", "NotFound", "rev-spec"] {
                assert!(!stderr.contains(leak), "{verb} {range}: {stderr}");
            }
        }
    }
}

#[test]
fn approvals_on_two_branches_merge_under_plain_git_when_their_ids_sort_apart() {
    // A forge runs no merge driver: only git's line merge.
    let mut merged_cleanly = 0;
    for attempt in 0..8 {
        let repo = Repo::committed();
        repo.git(&["config", "--remove-section", "merge.mneme"]);
        for i in 0..20 {
            approve(
                &repo,
                &[
                    "add",
                    "-f",
                    "architecture",
                    &format!("Base fact {i} of attempt {attempt}."),
                    "--reason",
                    "r",
                ],
            );
        }
        let ids = |repo: &Repo| -> Vec<String> {
            let facts = repo.json(&["facts", "architecture", "--json"]);
            facts[0]["facts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["id"].as_str().unwrap().to_owned())
                .collect()
        };
        // Each approval keeps the file's list sorted by id.
        let base = ids(&repo);
        let mut sorted = base.clone();
        sorted.sort();
        assert_eq!(base, sorted);
        repo.git(&["checkout", "-q", "-b", "a"]);
        let fa = approve(
            &repo,
            &[
                "add",
                "-f",
                "architecture",
                "Branch A adds this.",
                "--reason",
                "a",
            ],
        );
        repo.git(&["checkout", "-q", "-b", "b", "main"]);
        let fb = approve(
            &repo,
            &[
                "add",
                "-f",
                "architecture",
                "Branch B adds that.",
                "--reason",
                "b",
            ],
        );
        // Where each lands among the base facts; one fact between them keeps the hunks apart.
        let gap = |id: &str| base.iter().filter(|b| b.as_str() < id).count();
        if gap(&fa).abs_diff(gap(&fb)) < 2 {
            continue;
        }
        let out = repo.git_output(&["merge", "-q", "--no-edit", "a"]);
        assert!(out.status.success(), "{out:?}");
        let after = ids(&repo);
        assert!(after.contains(&fa) && after.contains(&fb) && after.len() == 22);
        repo.mneme(&["verify", &format!("{}..HEAD", base_commit(&repo))])
            .assert()
            .success();
        merged_cleanly += 1;
        if merged_cleanly == 2 {
            return;
        }
    }
    panic!("ids kept landing next to each other: {merged_cleanly} clean merges");
}

/// The first commit of the repository.
fn base_commit(repo: &Repo) -> String {
    repo.git(&["rev-list", "--max-parents=0", "HEAD"])
        .trim()
        .to_owned()
}

#[test]
fn diff_against_a_base_that_moved_on_starts_at_the_merge_base() {
    let repo = Repo::committed();
    let fork = repo.head();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let add = |text: &str| approve(&repo, &["add", "-f", "architecture", text, "--reason", "r"]);
    let ours = add("The branch adds this.");
    repo.git(&["checkout", "-q", "main"]);
    let theirs = add("Main moved on with that.");
    repo.git(&["checkout", "-q", "feature"]);
    let net = repo.json(&["diff", "main..feature", "--json"]);
    assert_eq!(net["base"], fork.as_str(), "{net:#}");
    let facts: Vec<&str> = net["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fact"].as_str().unwrap())
        .collect();
    assert_eq!(facts, [ours.as_str()], "not {theirs}: {net:#}");
    // Grown straight from its base, the range forks at the base itself.
    let net = repo.json(&["diff", &format!("{fork}..feature"), "--json"]);
    assert_eq!(net["base"], fork.as_str());
}

/// The pull request's comment shows each pending proposal as its reviewer needs it: who and why,
/// the evidence linked at the head, the fact diff, what reads alike or competes, why it cannot be
/// approved as it is, and the command that decides it.
#[test]
fn the_comment_shows_what_approving_each_pending_proposal_would_do() {
    let repo = Repo::committed();
    repo.write("src/db.rs", "fn pool() {}\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "code"]);
    let pool = repo.approve_new("pitfalls", "The pool holds ten connections.");
    let base = repo.head();
    let add = repo.propose(&[
        "add",
        "-f",
        "pitfalls",
        "Never hold a lock across an await.",
        "--reason",
        "incident 42",
        "--evidence",
        "src/db.rs:1",
        "--agent",
        "claude-code",
    ]);
    let resize = repo.propose_update(
        &pool,
        "The pool holds twenty connections.",
        &["--reason", "resized"],
    );
    let other = repo.propose_update(
        &pool,
        "The pool holds thirty connections.",
        &["--reason", "load test"],
    );
    // A proposal file written by hand around `propose`, holding a token.
    let path = repo
        .proposals()
        .into_iter()
        .find(|p| p.to_str().unwrap().contains(&add))
        .unwrap();
    let token = "ghp_abcdEFGH1234ijklMNOP5678qrstUVWX90yz";
    let forged = std::fs::read_to_string(&path)
        .unwrap()
        .replace(&add, "20261101T000000Z-0badc0de")
        .replace(
            "Never hold a lock across an await.",
            &format!("The CI token is {token}."),
        );
    repo.write(".ledger/proposals/20261101T000000Z-0badc0de.json", &forged);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "agent proposals"]);
    let head = repo.head();

    let out = repo
        .mneme(&[
            "diff",
            &format!("{base}..HEAD"),
            "--format",
            "markdown",
            "--repo-url",
            "https://github.com/o/r",
        ])
        .output()
        .unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("4 pending"), "{md}");
    assert!(
        md.contains("  - proposed by claude-code: _incident 42_"),
        "{md}"
    );
    assert!(
        md.contains(&format!(
            "  - evidence: [`src/db.rs:1`](https://github.com/o/r/blob/{head}/src/db.rs#L1)"
        )),
        "{md}"
    );
    assert!(
        md.contains("  +- **f-") && md.contains("Never hold a lock across an await."),
        "{md}"
    );
    assert!(
        md.contains(&format!("  - competes with `{other}` on `{pool}`")),
        "{md}"
    );
    assert!(
        md.contains(&format!("  - competes with `{resize}` on `{pool}`")),
        "{md}"
    );
    assert!(
        md.contains(&format!(
            "  - decide: comment `/mneme approve {short}@{pin}` or `/mneme reject {short} <reason>` (in a terminal: `mneme review approve {add}` or `mneme review reject {add} --reason \"…\"`)",
            short = add.rsplit_once('-').unwrap().1,
            pin = repo.json(&["diff", &format!("{base}..HEAD"), "--json"])["pending"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["id"] == add.as_str())
                .unwrap()["review"]["pin"]
                .as_str()
                .unwrap()
                .to_owned()
        )),
        "{md}"
    );
    // The token is refused, never shown, and the proposal can only be rejected.
    assert!(!md.contains(token), "{md}");
    let forged_entry = md
        .split("\n- ")
        .find(|e| e.starts_with("`20261101T000000Z-0badc0de`"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(
        forged_entry.contains("**cannot be approved as it is**: the text of operation 1 holds what looks like a GitHub token"),
        "{forged_entry}"
    );
    assert!(
        forged_entry
            .contains("  - decide: comment `/mneme reject 0badc0de <reason>` (in a terminal: `mneme review reject 20261101T000000Z-0badc0de --reason \"…\"`)"),
        "{forged_entry}"
    );
    assert!(!forged_entry.contains("Fact diff"), "{forged_entry}");
    // The same in JSON.
    let json = repo.json(&["diff", &format!("{base}..HEAD"), "--json"]);
    let pending = json["pending"].as_array().unwrap();
    let item = pending.iter().find(|p| p["id"] == add.as_str()).unwrap();
    assert_eq!(item["review"]["status"], "clean");
    assert!(item["review"]["diff"]
        .as_str()
        .unwrap()
        .starts_with("--- a/.ledger/facts/pitfalls.md\n"));

    let markdown = || {
        let out = repo
            .mneme(&["diff", &format!("{base}..HEAD"), "--format", "markdown"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    // Rejected for its token, the proposal's text is not repeated among the rejections either.
    repo.mneme(&[
        "review",
        "reject",
        "20261101T000000Z-0badc0de",
        "--reason",
        "it holds a token",
    ])
    .assert()
    .success();
    let md = markdown();
    assert!(md.contains("### Rejected (1)"), "{md}");
    assert!(!md.contains(token), "{md}");
    assert!(
        md.contains("text withheld: it holds what looks like a GitHub token"),
        "{md}"
    );

    // Once a competing update is approved, the other conflicts: it can only be rejected.
    repo.approve(&other);
    let md = markdown();
    let entry = md
        .split("\n- ")
        .find(|e| e.starts_with(&format!("`{resize}`")))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(
        entry.contains("**cannot be approved as it is** (conflict): "),
        "{entry}"
    );
    assert!(
        entry.contains(&format!(
            "(in a terminal: `mneme review reject {resize} --reason \"…\"`)"
        )),
        "{entry}"
    );
}

/// What a reader of `markdown` sees as text GitHub would link: each `@` followed by a name,
/// outside code (where GitHub links nothing), as the page renders it.
fn mentions(markdown: &str) -> Vec<String> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut code = 0;
    let mut text = String::new();
    for event in Parser::new_ext(markdown, Options::all()) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => code += 1,
            Event::End(TagEnd::CodeBlock) => code -= 1,
            Event::Text(t) if code == 0 => text.push_str(&t),
            Event::Html(h) | Event::InlineHtml(h) => text.push_str(&h),
            _ => text.push(' '),
        }
    }
    text.match_indices('@')
        // Inside a word (an email address) GitHub links no one.
        .filter(|(at, _)| !text[..*at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        .filter_map(|(at, _)| {
            let name: String = text[at + 1..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '/')
                .collect();
            (!name.is_empty()).then(|| format!("@{name}"))
        })
        .collect()
}

/// Text that came from a proposal (its statement, reason and agent) mentions no one in the pull
/// request's summary, however the `@` is written.
#[test]
fn proposal_text_never_mentions_anyone_in_the_summary() {
    let repo = Repo::committed();
    let base = repo.head();
    repo.propose(&[
        "add",
        "-f",
        "pitfalls",
        "Ask @backend-team or @org/security before changing auth; &#64;ops too.",
        "--reason",
        "per @alice",
        "--agent",
        "@bot",
    ]);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "proposal"]);
    let md = repo.stdout(&["diff", &format!("{base}..HEAD"), "--format", "markdown"]);
    assert!(md.contains("backend-team"), "{md}");
    assert_eq!(mentions(&md), Vec::<String>::new(), "{md}");
    // The check's own test is sound: an unescaped mention is found.
    assert_eq!(mentions("Ask @backend-team, not a@b.c."), ["@backend-team"]);
}
