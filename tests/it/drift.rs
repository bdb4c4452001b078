//! Evidence drift: facts whose cited code changed after they were approved or verified, found in
//! scripted histories by `stale`, `check` and `verify`.

use crate::common::{error_code, Repo};
use serde_json::Value;

const DB: &str = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n";

/// A repository with `src/db.rs` committed and two approved facts: `lines` cites lines 3-4 of
/// it, `whole` the whole file. Returns the repository and the two fact ids.
fn two_facts() -> (Repo, String, String) {
    let repo = Repo::committed();
    repo.write("src/db.rs", DB);
    commit(&repo, "add the pool");
    let lines = add(&repo, "The pool is three and four.", "src/db.rs:3-4");
    let whole = add(&repo, "The pool file exists.", "src/db.rs");
    (repo, lines, whole)
}

/// Proposes and approves a fact citing `evidence`; returns its id.
fn add(repo: &Repo, text: &str, evidence: &str) -> String {
    repo.approve_new_with(
        "architecture",
        text,
        &["--reason", "read the code", "--evidence", evidence],
    )
}

fn commit(repo: &Repo, message: &str) -> String {
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", message]);
    repo.head()
}

/// `stale --json`'s entry for `id`, if listed.
fn drifted(repo: &Repo, args: &[&str], id: &str) -> Option<Value> {
    let mut full = vec!["stale", "--json"];
    full.extend_from_slice(args);
    let v = repo.json(&full);
    v["facts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["fact"] == id)
        .cloned()
}

/// Runs `script` in `repo` with git's author and committer dates at `unix` seconds; its
/// output, after failing the test unless it succeeded.
fn sh_at(repo: &Repo, unix: i64, script: &str) -> String {
    let at = format!("{unix} +0000");
    let out = repo.sh(&format!(
        "export GIT_COMMITTER_DATE='{at}' GIT_AUTHOR_DATE='{at}'\n{script}"
    ));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn commit_ids(citation: &Value) -> Vec<String> {
    citation["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The `evidence_drift` messages of `check --json` that name `id`.
fn drift_warnings(repo: &Repo, id: &str) -> Vec<String> {
    repo.findings()
        .iter()
        .filter(|f| f["code"] == "evidence_drift" && f["severity"] == "warning")
        .map(|f| f["message"].as_str().unwrap().to_owned())
        .filter(|m| m.contains(id))
        .collect()
}

#[test]
fn a_changed_evidence_file_is_listed_with_its_commits_until_a_verify_is_approved() {
    let (repo, lines, whole) = two_facts();
    let approval = repo.head();
    assert!(drifted(&repo, &[], &lines).is_none());
    assert!(drift_warnings(&repo, &lines).is_empty());

    // A change below the cited lines: the whole-file citation drifts, the lines do not.
    repo.write("src/db.rs", &DB.replace("nine", "NINE"));
    let below = commit(&repo, "rename nine");
    assert!(drifted(&repo, &[], &lines).is_none());
    let w = drifted(&repo, &[], &whole).unwrap();
    assert_eq!(w["since"]["commit"], approval.as_str());
    assert_eq!(w["evidence"][0]["evidence"], "src/db.rs");
    assert_eq!(w["evidence"][0]["kind"], "changed");
    assert_eq!(commit_ids(&w["evidence"][0]), [below.as_str()]);

    // Lines inserted above: the cited lines moved, and where to is said.
    repo.write(
        "src/db.rs",
        &format!("zero\nhalf\n{}", DB.replace("nine", "NINE")),
    );
    let above = commit(&repo, "two lines on top");
    let l = drifted(&repo, &[], &lines).unwrap();
    assert_eq!(l["evidence"][0]["kind"], "moved");
    assert_eq!(l["evidence"][0]["now"], "src/db.rs:5-6");
    assert_eq!(
        commit_ids(&l["evidence"][0]),
        [above.clone(), below.clone()]
    );

    // A cited line edited: changed.
    repo.write(
        "src/db.rs",
        &format!(
            "zero\nhalf\n{}",
            DB.replace("nine", "NINE").replace("four", "4")
        ),
    );
    let edit = commit(&repo, "four is a digit");
    let l = drifted(&repo, &[], &lines).unwrap();
    assert_eq!(l["evidence"][0]["kind"], "changed");
    assert_eq!(commit_ids(&l["evidence"][0]), [edit.clone(), above, below]);
    let warnings = drift_warnings(&repo, &lines);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("src/db.rs:3-4") && warnings[0].contains(&edit[..10]));
    assert!(warnings[0].contains(&format!("mneme propose verify {lines}")));
    let human = repo
        .mneme(&["stale"])
        .assert()
        .success()
        .get_output()
        .clone();
    let human = String::from_utf8(human.stdout).unwrap();
    assert!(
        human.contains("src/db.rs:3-4 changed in 3 commit(s)"),
        "{human}"
    );
    assert!(human.contains("four is a digit"), "{human}");

    // The approved verify clears it; the other fact stays listed.
    let p = repo.propose(&[
        "verify",
        &lines,
        "--reason",
        "re-read",
        "--evidence",
        "src/db.rs:5-6",
    ]);
    repo.approve(&p);
    assert!(drifted(&repo, &[], &lines).is_none());
    assert!(drift_warnings(&repo, &lines).is_empty());
    assert_eq!(drift_warnings(&repo, &whole).len(), 1);
    // A pending verify does not: only an approval vouches.
    let p = repo.propose(&["verify", &whole, "--reason", "re-read"]);
    assert!(drifted(&repo, &[], &whole).is_some());
    repo.approve(&p);
    assert!(drifted(&repo, &[], &whole).is_none());
    // Later commits count again.
    repo.write("src/db.rs", "rewritten\n");
    let again = commit(&repo, "rewrite");
    let l = drifted(&repo, &[], &lines).unwrap();
    assert_eq!(commit_ids(&l["evidence"][0]), [again]);
}

#[test]
fn a_renamed_evidence_file_is_reported_with_where_it_went() {
    let (repo, lines, whole) = two_facts();
    repo.git(&["mv", "src/db.rs", "src/pool.rs"]);
    let moved = commit(&repo, "db is now pool");
    for id in [&lines, &whole] {
        let f = drifted(&repo, &[], id).unwrap();
        assert_eq!(f["evidence"][0]["kind"], "renamed");
        assert_eq!(commit_ids(&f["evidence"][0]), [moved.as_str()]);
    }
    let l = drifted(&repo, &[], &lines).unwrap();
    assert_eq!(l["evidence"][0]["now"], "src/pool.rs:3-4");

    // Renamed with edits: matched by similarity. Deleted: said so.
    let (repo, lines, _) = two_facts();
    repo.git(&["rm", "-q", "src/db.rs"]);
    repo.write("lib/pool.rs", &DB.replace("six", "6"));
    repo.write("lib/unrelated.rs", "nothing alike\n");
    commit(&repo, "move and edit");
    let l = drifted(&repo, &[], &lines).unwrap();
    assert_eq!(l["evidence"][0]["now"], "lib/pool.rs:3-4");
    repo.git(&["rm", "-q", "lib/pool.rs"]);
    commit(&repo, "drop pool");
    let l = drifted(&repo, &[], &lines).unwrap();
    assert_eq!(
        l["evidence"][0]["kind"], "renamed",
        "the first rename is what became of it"
    );

    let (repo, lines, _) = two_facts();
    repo.git(&["rm", "-q", "src/db.rs"]);
    commit(&repo, "no more pool");
    let l = drifted(&repo, &[], &lines).unwrap();
    assert_eq!(l["evidence"][0]["kind"], "deleted");
    assert!(l["evidence"][0].get("now").is_none());
}

#[test]
fn verify_names_the_facts_whose_evidence_a_range_touches() {
    let (repo, lines, whole) = two_facts();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("README.md", "# project\n\nmore\n");
    commit(&repo, "docs only");
    let v = repo.json(&["verify", "main..HEAD", "--json"]);
    assert_eq!(v["recheck"], serde_json::json!([]));

    repo.write("src/db.rs", &DB.replace("nine", "NINE"));
    let change = commit(&repo, "touch the pool");
    let out = repo
        .mneme(&["verify", "main..HEAD", "--json"])
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let recheck: Vec<&str> = v["recheck"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fact"].as_str().unwrap())
        .collect();
    assert_eq!(
        recheck,
        [whole.as_str()],
        "the cited lines 3-4 did not change"
    );
    assert_eq!(commit_ids(&v["recheck"][0]["evidence"][0]), [change]);
    let human = repo.mneme(&["verify", "main..HEAD"]).assert().success();
    let human = String::from_utf8(human.get_output().stdout.clone()).unwrap();
    assert!(
        human.contains("re-check them") && human.contains(&whole),
        "{human}"
    );

    // The branch re-verifies the fact after the change: nothing left to re-check.
    let p = repo.propose(&["verify", &whole, "--reason", "still true"]);
    repo.approve(&p);
    let v = repo.json(&["verify", "main..HEAD", "--json"]);
    assert_eq!(v["recheck"], serde_json::json!([]));
    assert!(drifted(&repo, &[], &lines).is_none());

    // `stale --since` counts only the commits after it.
    repo.write("src/db.rs", &DB.replace("three", "3"));
    commit(&repo, "three is a digit");
    assert!(drifted(&repo, &[], &lines).is_some());
    assert!(drifted(&repo, &["--since", "HEAD"], &lines).is_none());
    assert!(drifted(&repo, &["--since", "HEAD~1"], &lines).is_some());
    let out = repo
        .mneme(&["stale", "--since", "no-such-rev", "--json"])
        .assert()
        .code(1);
    assert!(!error_code(out.get_output()).is_empty());
}

/// A fact no approval vouches for was vouched for by the commit that brought it in as it reads
/// now, whatever the dates in its metadata or on the commits say.
#[test]
fn facts_without_an_approval_are_measured_from_the_commit_that_brought_them_in() {
    let repo = Repo::committed();
    repo.write("src/a.rs", "a\n");
    repo.write("src/b.rs", "b\n");
    repo.write("src/c.rs", "c\n");
    commit(&repo, "code");
    // Written by hand, with no decision record: the commits vouch for them, not their dates.
    repo.write(
        ".ledger/facts/architecture.md",
        "# Architecture\n\n\
         - **f-old1** Old and dated. <!-- since: 2020-01-01; evidence: src/a.rs -->\n\
         - **f-new1** Dated far ahead. <!-- since: 2999-01-01; evidence: src/b.rs -->\n\
         - **f-none** No date. <!-- evidence: src/c.rs ../outside.rs /etc/passwd -->\n",
    );
    let brought = commit(&repo, "hand-written facts");
    repo.write("src/a.rs", "A\n");
    repo.write("src/b.rs", "B\n");
    commit(&repo, "change a and b");
    let old = drifted(&repo, &[], "f-old1").unwrap();
    assert_eq!(old["since"]["commit"], brought.as_str());
    assert!(drifted(&repo, &[], "f-new1").is_some());
    assert!(
        drifted(&repo, &[], "f-none").is_none(),
        "src/c.rs is as it was"
    );
    let v = repo.json(&["stale", "--json"]);
    assert_eq!(v["watched"], 3);
    // A fact edited by hand is vouched for from the edit on: what came before it does not count.
    let arch = repo.read(".ledger/facts/architecture.md");
    repo.write(
        ".ledger/facts/architecture.md",
        &arch.replace("Old and dated.", "Old, dated and edited."),
    );
    let edited = commit(&repo, "edit f-old1");
    let old = drifted(&repo, &[], "f-old1");
    assert!(old.is_none(), "{old:#?}");
    repo.write("src/a.rs", "AA\n");
    commit(&repo, "change a again");
    let old = drifted(&repo, &[], "f-old1").unwrap();
    assert_eq!(old["since"]["commit"], edited.as_str());
}

/// A history whose commits all carry one date, long before the approval's own date (a rebase
/// with `--committer-date-is-author-date`, a tool that pins dates, a wrong clock): a cited line
/// changed after the approval is still drift.
#[test]
fn drift_is_found_when_every_commit_carries_one_date() {
    for unix in [978_307_200, 2_000_000_000] {
        let repo = Repo::committed();
        repo.write("src/db.rs", DB);
        sh_at(&repo, unix, "git add -A && git commit -q -m pool");
        let p = repo.propose_add(
            "architecture",
            "The pool is three and four.",
            &["--reason", "read", "--evidence", "src/db.rs:3-4"],
        );
        let fact = repo.new_fact_id(&p);
        sh_at(&repo, unix, &format!("mneme review approve {p} >/dev/null"));
        sh_at(
            &repo,
            unix,
            "sed -i s/three/THREE/ src/db.rs && git commit -q -am tune",
        );
        // Every commit, the approval's too, rewritten to the one date.
        sh_at(
            &repo,
            unix,
            &format!(
                "FILTER_BRANCH_SQUELCH_WARNING=1 git filter-branch -f --env-filter \
                 'export GIT_AUTHOR_DATE=\"{unix} +0000\" GIT_COMMITTER_DATE=\"{unix} +0000\"' \
                 HEAD >/dev/null 2>&1"
            ),
        );
        let dates = repo.git(&["log", "--format=%ct %at"]);
        assert_eq!(
            dates
                .lines()
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            1,
            "{dates}"
        );
        let found = drifted(&repo, &[], &fact);
        assert!(found.is_some(), "at {unix}: {}", repo.stdout(&["stale"]));
        let v = repo.json(&["stale", "--json"]);
        assert_eq!(v["facts"].as_array().unwrap().len(), 1, "{v:#}");
    }
}

#[test]
fn evidence_given_from_a_subdirectory_is_stored_from_the_root() {
    let repo = Repo::committed();
    repo.write("src/db.rs", DB);
    repo.write("docs/pool.md", "pool\n");
    let out = repo
        .mneme_in(
            &repo.file("src"),
            &[
                "propose",
                "--json",
                "add",
                "--file",
                "architecture",
                "The pool is small.",
                "--reason",
                "read it",
                "--evidence",
                "db.rs:3",
                "--evidence",
                "../docs/pool.md",
                "--evidence",
                "https://example.com/pool",
            ],
        )
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(
        v["proposal"]["evidence"],
        serde_json::json!(["src/db.rs:3", "docs/pool.md", "https://example.com/pool"])
    );
}

#[test]
fn merged_branches_count_what_the_approval_had_not_seen() {
    // Each step a minute after the last, as a real history's commit times are.
    let repo = Repo::committed();
    repo.write("src/db.rs", DB);
    let start = mneme::ops::now().unix_seconds();
    let run = |step: i64, script: &str| sh_at(&repo, start + step * 60, script);
    run(1, "git add -A && git commit -q -m base");
    run(2, "git checkout -q -b side && sed -i 's/nine/NINE/' src/db.rs && git commit -q -am 'side edit'");
    let side_edit = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    run(3, "git checkout -q main");
    let p = repo.propose_add(
        "architecture",
        "The pool file exists.",
        &["--reason", "read", "--evidence", "src/db.rs"],
    );
    let fact = repo.new_fact_id(&p);
    run(4, &format!("mneme review approve {p} >/dev/null"));
    // The side edit is older than the approval but not in its history: it counts once merged.
    run(5, "git merge -q --no-ff --no-edit side");
    let f = drifted(&repo, &[], &fact).unwrap();
    assert_eq!(commit_ids(&f["evidence"][0]), [side_edit.as_str()]);

    // A branch that changes the code and then re-verifies the fact: nothing left once merged.
    run(6, &format!("git checkout -q -b fix && sed -i 's/one/ONE/' src/db.rs && git commit -q -am fix && mneme propose verify {fact} --reason checked >/dev/null"));
    run(7, "mneme review approve --all >/dev/null && git checkout -q main && echo more >> README.md && git commit -q -am docs");
    run(8, "git merge -q --no-ff --no-edit fix");
    assert!(drifted(&repo, &[], &fact).is_none());
    let v = repo.json(&["verify", "HEAD~1..HEAD", "--json"]);
    assert_eq!(v["recheck"], serde_json::json!([]));
}

#[test]
fn a_shallow_clone_is_read_as_far_as_it_goes_and_says_so() {
    let (repo, lines, _) = two_facts();
    repo.write("src/db.rs", &DB.replace("three", "3"));
    let edit = commit(&repo, "three is a digit");
    let full = drifted(&repo, &[], &lines).unwrap();
    assert_eq!(commit_ids(&full["evidence"][0]), [edit.as_str()]);
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}", repo.path().display());
    let clone = dir.path().join("clone");
    repo.git(&["clone", "-q", "--depth", "2", &url, clone.to_str().unwrap()]);
    let out = repo
        .mneme_in(&clone, &["stale", "--json"])
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["shallow"], true);
    repo.mneme_in(&clone, &["check"]).assert().success();
    repo.mneme_in(&clone, &["stale"])
        .assert()
        .success()
        .stdout(predicates::str::contains("this clone is shallow"));
    assert_eq!(repo.json(&["stale", "--json"])["shallow"], false);
}

/// A re-verification that lands by a forge's squash merge (its decision commit gone, its record
/// carried along) vouches for the fact from the squash commit on, as the decision commit would
/// have: the code change before it is not drift.
#[test]
fn a_squashed_verification_anchors_drift_at_the_squash_commit() {
    let (repo, lines, _) = two_facts();
    repo.write("src/db.rs", &DB.replace("three", "THREE"));
    commit(&repo, "change the pool");
    assert!(drifted(&repo, &[], &lines).is_some(), "the change is drift");

    repo.git(&["checkout", "-q", "-b", "recheck"]);
    let p = repo.propose(&["verify", &lines, "--reason", "re-read the pool"]);
    repo.approve(&p);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--squash", "recheck"]);
    commit(&repo, "Re-check the pool facts (#7)");
    assert_eq!(
        drifted(&repo, &[], &lines),
        None,
        "vouched for by the squash"
    );
    let context = repo.json(&["context", "--json"]);
    assert!(
        !context["drifted"]
            .as_array()
            .unwrap()
            .contains(&Value::String(lines.clone())),
        "{context:#}"
    );
}

#[test]
fn commit_dates_never_order_the_walk_only_the_graph_does() {
    // Scripted and imported histories share one date, and clocks are wrong: a parent must still
    // come after all its children, or an approval's cover never reaches it. Here the commit the
    // fact's approval follows (a change to the cited file) is dated later than the approval.
    for dates in [
        [0, 0, 0, 0, 0],
        [0, 2, 1, 3, 4],
        [0, 3, 1, 2, 4],
        [5, 4, 3, 2, 1],
    ] {
        let repo = Repo::committed();
        // Within hours of now: a fact's own date (the day it was approved) bounds the walk.
        let start = mneme::ops::now().unix_seconds() - 6 * 3600;
        let run = |step: usize, script: &str| {
            sh_at(&repo, start + dates[step] * 3600, script);
        };
        repo.write("src/db.rs", DB);
        run(0, "git add -A && git commit -q -m pool");
        run(
            1,
            "sed -i s/nine/NINE/ src/db.rs && git commit -q -am tune && git branch side",
        );
        let p = repo.propose_add(
            "architecture",
            "The pool file exists.",
            &["--reason", "read", "--evidence", "src/db.rs"],
        );
        let fact = repo.new_fact_id(&p);
        run(2, &format!("mneme review approve {p} >/dev/null"));
        run(
            3,
            "git checkout -q side && echo more >> README.md && git commit -q -am docs",
        );
        run(
            4,
            "git checkout -q main && git merge -q --no-ff --no-edit side",
        );
        let context = format!("dates {dates:?}");
        assert_eq!(drifted(&repo, &[], &fact), None, "{context}");
        assert!(drift_warnings(&repo, &fact).is_empty(), "{context}");
        repo.mneme(&["verify", "HEAD~1..HEAD"]).assert().success();
        // A later verification dated as the oldest commit is still the newest decision.
        run(0, &format!("mneme propose verify {fact} --reason again >/dev/null && mneme review approve --all >/dev/null"));
        let log = repo.json(&["log", &fact, "--json"]);
        let verbs: Vec<&str> = log
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["operations"][0]["op"].as_str().unwrap())
            .collect();
        assert_eq!(verbs, ["verify", "add"], "{context}: {log:#}");
        repo.mneme(&["verify", "HEAD~2..HEAD"]).assert().success();
    }
}

#[test]
fn a_squashed_relation_vouches_for_nothing_but_a_squashed_verification_does() {
    let (repo, lines, whole) = two_facts();
    repo.write("src/db.rs", &DB.replace("three", "THREE"));
    commit(&repo, "change the pool");
    repo.git(&["checkout", "-q", "-b", "relate"]);
    let p = repo.propose(&[
        "relate",
        &lines,
        "--relates-to",
        &whole,
        "--reason",
        "see also",
    ]);
    repo.approve(&p);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--squash", "relate"]);
    commit(&repo, "Relate the pool facts (#8)");
    let drift = drifted(&repo, &[], &lines).expect("a relation checks no code");
    assert_eq!(drift["evidence"][0]["kind"], "changed", "{drift:#}");

    repo.git(&["checkout", "-q", "-b", "verify"]);
    let p = repo.propose(&["verify", &lines, "--reason", "re-read the pool"]);
    repo.approve(&p);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--squash", "verify"]);
    commit(&repo, "Re-check the pool (#9)");
    assert_eq!(drifted(&repo, &[], &lines), None);
}

/// `context` keeps its drift answer with the HEAD it was found at: commits that only add to that
/// HEAD, touching no ledger file, add what they changed to it; a HEAD that went elsewhere (a
/// reset) or a decision is walked again in full. Each answer is what a full walk finds.
#[test]
fn the_kept_drift_answer_grows_with_new_commits_and_is_found_again_after_a_reset() {
    let repo = Repo::committed();
    repo.write("src/a.rs", "a\n");
    repo.write("src/b.rs", "b\n");
    commit(&repo, "two files");
    let a = add(&repo, "A is about a.", "src/a.rs");
    let b = add(&repo, "B is about b.", "src/b.rs");
    let marked = || {
        let v = repo.json(&["context", "--json"]);
        let mut ids: Vec<String> = v["drifted"]
            .as_array()
            .unwrap()
            .iter()
            .map(|id| id.as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    };
    let full = || {
        std::fs::remove_file(repo.file(".git/mneme-stale.idx")).unwrap();
        marked()
    };
    assert!(marked().is_empty());
    assert!(repo.file(".git/mneme-stale.idx").is_file());
    repo.write("src/a.rs", "a, changed\n");
    commit(&repo, "change a");
    assert_eq!(marked(), [a.as_str()]);
    repo.write("src/b.rs", "b, changed\n");
    commit(&repo, "change b");
    let mut both = vec![a.clone(), b.clone()];
    both.sort();
    assert_eq!(marked(), both);
    assert_eq!(full(), both);
    // Back to before b changed: the kept answer is not this history's.
    repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
    assert_eq!(marked(), [a.as_str()]);
    // A decision between the two HEADs: walked again, and its verification counts.
    let verify = repo.propose(&["verify", &a, "--reason", "checked a"]);
    repo.approve(&verify);
    assert!(marked().is_empty(), "{:?}", marked());
    assert!(full().is_empty());
}
