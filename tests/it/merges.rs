//! Pull requests as forges merge them. Decision records carry each approval through a squash
//! merge, a rebase merge and a cherry-pick, which rewrite the decision commits; an approved fact
//! lost in a merge, or a reverted decision, fails `verify`.

use serde_json::json;

use crate::common::{json, Repo};

/// `verify RANGE --json`, whatever its exit code, and whether it passed.
fn verify(repo: &Repo, range: &str) -> (bool, serde_json::Value) {
    let out = repo.mneme(&["verify", range, "--json"]).output().unwrap();
    (out.status.success(), json(&out))
}

/// A committed ledger with a branch `feature` that approved two facts; back on main.
fn feature_with_two_approvals(repo: &Repo) -> (String, String) {
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let a = repo.approve_new("architecture", "Branch facts are squashed in (marker A).");
    let b = repo.approve_new("pitfalls", "Squashes keep their proofs (marker B).");
    repo.git(&["checkout", "-q", "main"]);
    (a, b)
}

#[test]
fn a_squash_merge_of_approvals_passes_verify_by_their_records() {
    let repo = Repo::committed();
    let base = repo.head();
    let (a, b) = feature_with_two_approvals(&repo);
    repo.git(&["merge", "-q", "--squash", "feature"]);
    repo.git(&["commit", "-qm", "Add facts (#12)"]);
    let facts =
        repo.read(".ledger/facts/architecture.md") + &repo.read(".ledger/facts/pitfalls.md");
    assert!(facts.contains(&a) && facts.contains(&b));

    let (passed, v) = verify(&repo, &format!("{base}..HEAD"));
    assert!(passed, "{v:#}");
    assert_eq!(v["state"]["records"], 2);
    assert_eq!(v["state"]["issues"], serde_json::json!([]));
    // The forge's commit is history, noted: the records explain its facts.
    let notes = v["notes"].to_string();
    assert!(notes.contains("decision records explain"), "{notes}");
    // The summary a workflow posts agrees with verify: no false alarm, the facts approved.
    let range = format!("{base}..HEAD");
    let net = repo.json(&["diff", &range, "--format", "json"]);
    assert_eq!(net["unreviewed"], serde_json::json!([]), "{net:#}");
    for fact in net["facts"].as_array().unwrap() {
        assert_eq!(fact["unreviewed"], false, "{net:#}");
        assert_eq!(fact["steps"][0]["how"], "recorded", "{net:#}");
    }
    let markdown = repo.stdout(&["diff", &range, "--format", "markdown"]);
    assert!(
        !markdown.contains("WARNING") && !markdown.contains("revert"),
        "{markdown}"
    );
    let text = repo.stdout(&["diff", &range]);
    assert!(text.contains("its decision records approve it"), "{text}");
    let by_commit = repo.json(&["diff", &range, "--by-commit", "--format", "json"]);
    assert_eq!(by_commit["unreviewed_commits"], 0, "{by_commit:#}");
    // why and log know the approval by its record, though history lost its decision commit.
    let why = repo.stdout(&["why", &a]);
    assert!(!why.contains("written by hand"), "{why}");
    assert!(
        why.contains("decision record") && why.contains("approve"),
        "{why}"
    );
    let log = repo.json(&["log", &a, "--json"]);
    assert_eq!(log.as_array().unwrap().len(), 1, "{log:#}");
    assert_eq!(log[0]["verdict"], "approve", "{log:#}");
    assert_eq!(log[0]["operations"][0]["op"], "add", "{log:#}");
    assert!(log[0]["record"].is_string(), "{log:#}");

    // A ledger that does not keep records has only the history as proof: the squash fails it.
    let old = Repo::committed();
    let config = old
        .read(".ledger/config.yaml")
        .replace("decision_records: true", "decision_records: false");
    old.write(".ledger/config.yaml", &config);
    old.git(&["commit", "-qam", "a ledger from before records"]);
    let base = old.head();
    feature_with_two_approvals(&old);
    old.git(&["merge", "-q", "--squash", "feature"]);
    old.git(&["commit", "-qm", "Add facts (#12)"]);
    let (passed, v) = verify(&old, &format!("{base}..HEAD"));
    assert!(!passed && v["state"].is_null(), "{v:#}");
}

/// A decision record carries the decision's account: after a squash merge drops the decision
/// commits, `why` and `log` still say which agent proposed, why, on what evidence, and what the
/// reviewer said, for an approval and for a rejection.
#[test]
fn a_squashed_decision_keeps_its_agent_reason_evidence_and_note() {
    let repo = Repo::committed();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let approved = repo.propose_add(
        "architecture",
        "Squashed facts keep their story (marker S).",
        &[
            "--agent",
            "codex",
            "--reason",
            "found in the storage review",
            "--evidence",
            "README.md:1",
        ],
    );
    let fact = repo.new_fact_id(&approved);
    repo.mneme(&[
        "review",
        "approve",
        &approved,
        "-m",
        "checked against the ADR",
    ])
    .assert()
    .success();
    let rejected = repo.propose_add(
        "pitfalls",
        "Tabs beat spaces.",
        &["--agent", "codex", "--reason", "an opinion"],
    );
    repo.mneme(&["review", "reject", &rejected, "--reason", "not a fact"])
        .assert()
        .success();
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--squash", "feature"]);
    repo.git(&["commit", "-q", "-m", "squashed feature"]);

    let why = repo.json(&["why", &fact, "--json"]);
    let d = &why["decisions"][0];
    assert!(d["record"].is_string(), "{why:#}");
    assert_eq!(d["proposed_by"], "codex", "{why:#}");
    let reason = d["reason"].as_str().unwrap();
    assert!(
        reason.contains("found in the storage review")
            && reason.contains("checked against the ADR"),
        "{why:#}"
    );
    assert_eq!(d["evidence"], json!(["README.md:1"]), "{why:#}");
    let text = repo.stdout(&["why", &fact]);
    assert!(text.contains("(codex → Test Human"), "{text}");
    assert!(text.contains("evidence: README.md:1"), "{text}");

    let log = repo.json(&["log", "--json"]);
    let rejection = log
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["proposal"] == rejected.as_str())
        .unwrap_or_else(|| panic!("{log:#}"));
    assert_eq!(rejection["proposed_by"], "codex", "{log:#}");
    let reason = rejection["reason"].as_str().unwrap();
    assert!(
        reason.contains("not a fact") && reason.contains("an opinion"),
        "{log:#}"
    );
    repo.mneme(&["verify", "main~1..main"]).assert().success();
}

#[test]
fn rebase_merges_and_cherry_picks_pass_verify() {
    let repo = Repo::committed();
    let base = repo.head();
    feature_with_two_approvals(&repo);
    repo.approve_new("invariants", "Main moved on meanwhile (marker C).");
    // A rebase merge: the branch's decisions replayed onto main, as new commits.
    repo.git(&["checkout", "-q", "-b", "rebased", "feature"]);
    repo.git(&["rebase", "-q", "main"]);
    let (passed, v) = verify(&repo, &format!("{base}..HEAD"));
    assert!(passed, "{v:#}");
    assert_eq!(v["state"]["records"], 3);
    // A cherry-pick of one approval onto main.
    repo.git(&["checkout", "-q", "main"]);
    let first = repo.git(&["rev-parse", "feature~1"]);
    repo.git(&["cherry-pick", "-x", first.trim()]);
    let (passed, v) = verify(&repo, &format!("{base}..HEAD"));
    assert!(passed, "{v:#}");
    assert_eq!(v["state"]["records"], 2);
}

/// Two branches approve a fact each in the same file; the merge driver does not run (not on
/// git's PATH, a GUI client) and the conflict is resolved by taking one side: the other side's
/// approved fact is gone. Its record came through the merge, so `verify` names it.
#[test]
fn a_merge_that_drops_an_approved_fact_fails_verify_naming_it() {
    let repo = Repo::committed();
    let base = repo.head();
    repo.git(&["checkout", "-q", "-b", "other"]);
    let theirs = repo.approve_new("architecture", "The other branch's fact (marker T).");
    repo.git(&["checkout", "-q", "main"]);
    let ours = repo.approve_new("architecture", "Main's fact (marker O).");
    let merge = repo.git_output(&[
        "-c",
        "merge.mneme.driver=false",
        "merge",
        "-q",
        "--no-edit",
        "other",
    ]);
    assert!(!merge.status.success(), "a conflict without the driver");
    repo.git(&["checkout", "--ours", ".ledger/facts/architecture.md"]);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-edit"]);
    let arch = repo.read(".ledger/facts/architecture.md");
    assert!(arch.contains(&ours) && !arch.contains(&theirs));

    let (passed, v) = verify(&repo, &format!("{base}..HEAD"));
    assert!(!passed, "{v:#}");
    let issues = v["state"]["issues"].as_array().unwrap();
    assert_eq!(issues.len(), 1, "{v:#}");
    assert_eq!(issues[0]["kind"], "missing");
    assert_eq!(issues[0]["fact"], theirs.as_str());
    let text = repo.stdout(&["verify", &format!("{base}..HEAD")]);
    assert!(text.contains(&format!("{theirs} was approved")), "{text}");
}

/// A revert of a decision commit takes the fact and its record out, past review: records are
/// only ever added, so `verify` of the reverting range fails.
#[test]
fn a_reverted_approval_fails_verify() {
    let repo = Repo::committed();
    repo.approve_new("architecture", "A fact someone reverts (marker R).");
    let base = repo.head();
    repo.git(&["revert", "--no-edit", "HEAD"]);
    let (passed, v) = verify(&repo, &format!("{base}..HEAD"));
    assert!(!passed, "{v:#}");
    assert_eq!(v["state"]["removed"].as_array().unwrap().len(), 1, "{v:#}");
}

/// An older ledger converts its decisions in history into records once; then a squash passes.
#[test]
fn migrate_converts_history_and_turns_the_state_check_on() {
    let repo = Repo::committed();
    let config = repo
        .read(".ledger/config.yaml")
        .replace("decision_records: true\n", "");
    repo.write(".ledger/config.yaml", &config);
    repo.git(&["commit", "-qam", "a ledger from before records"]);
    // Decisions made before records: their record files are gone from the tree.
    let a = repo.approve_new("architecture", "An old approval (marker M).");
    let rejected = repo.propose_add("pitfalls", "Not this (marker X).", &["--reason", "r"]);
    repo.mneme(&["review", "reject", &rejected])
        .assert()
        .success();
    repo.git(&["rm", "-rq", ".ledger/decisions"]);
    repo.git(&["commit", "-qm", "before records existed"]);

    let m = repo.json(&["migrate", "--json"]);
    assert_eq!(m["written"].as_array().unwrap().len(), 2, "{m:#}");
    assert_eq!(m["config_updated"], true);
    assert!(repo
        .read(".ledger/config.yaml")
        .contains("decision_records: true"));
    let again = repo.json(&["migrate", "--json"]);
    assert_eq!(again["written"], serde_json::json!([]));
    assert_eq!(again["already"], 2);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "ledger: decision records"]);
    let base = repo.head();
    let (passed, v) = verify(&repo, &format!("{base}~1..HEAD"));
    assert!(passed, "{v:#}");
    assert_eq!(v["state"]["records"], 2);
    assert!(repo.read(".ledger/facts/architecture.md").contains(&a));

    feature_with_two_approvals(&repo);
    repo.git(&["merge", "-q", "--squash", "feature"]);
    repo.git(&["commit", "-qm", "Add facts (#13)"]);
    let (passed, v) = verify(&repo, &format!("{base}..HEAD"));
    assert!(passed, "{v:#}");
}

/// The commit-msg hook judges a ledger with records by the state a commit leaves: merges,
/// squashes and cherry-picks of approvals pass; a hand edit, a dropped approved fact and a
/// reverted decision are refused.
#[test]
fn the_commit_msg_hook_lets_merges_of_decisions_through_and_refuses_the_rest() {
    let repo = Repo::committed();
    repo.mneme(&["hooks", "install"]).assert().success();
    feature_with_two_approvals(&repo);
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.approve_new("architecture", "The other branch's fact (marker H).");
    repo.git(&["checkout", "-q", "main"]);
    let ours = repo.approve_new("architecture", "Main's own fact (marker I).");
    // A merge commit the driver resolved, and a squash: both explained by their records.
    repo.git(&["merge", "-q", "--no-edit", "feature"]);
    repo.git(&["merge", "-q", "--squash", "other"]);
    repo.git(&["commit", "-qm", "Squash other (#3)"]);

    let refused = |what: &str| {
        let out = repo.git_output(&["commit", "-qam", what]);
        assert!(!out.status.success(), "{what} went through");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        repo.git(&["reset", "-q", "--hard", "HEAD"]);
        err
    };
    let arch = repo.read(".ledger/facts/architecture.md");
    repo.write(
        ".ledger/facts/architecture.md",
        &arch.replace("(marker I)", "(marker I, edited)"),
    );
    let err = refused("hand edit");
    assert!(
        err.contains(&ours) && err.contains("not as any approval left it"),
        "{err}"
    );
    let kept: String = arch
        .lines()
        .filter(|l| !l.contains(&ours))
        .map(|l| format!("{l}\n"))
        .collect();
    repo.write(".ledger/facts/architecture.md", &kept);
    let err = refused("drop a fact");
    assert!(err.contains("is missing"), "{err}");
    // git runs no commit-msg hook for `git revert` itself (verify is the guard there); a revert
    // committed with `git commit` meets the hook.
    let approval = repo.git(&["log", "--format=%H", "-1", "--grep", "marker I"]);
    repo.git(&["revert", "--no-commit", approval.trim()]);
    let out = repo.git_output(&["commit", "-qm", "Revert the approval"]);
    assert!(!out.status.success(), "a revert of a decision went through");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("only ever added"), "{err}");
}

/// The driver's messages name the fact file, not git's temporary copy, and `doctor` shows the
/// command git runs and whether it resolves.
#[test]
fn the_merge_driver_names_the_fact_file_and_doctor_shows_it() {
    let repo = Repo::committed();
    let fact = repo.approve_new("architecture", "Retries: 3 (marker D).");
    repo.git(&["checkout", "-q", "-b", "other"]);
    let id = repo.propose_update(&fact, "Retries: 5 (marker D).", &["--reason", "r"]);
    repo.approve(&id);
    repo.git(&["checkout", "-q", "main"]);
    let id = repo.propose_update(&fact, "Retries: 4 (marker D).", &["--reason", "r"]);
    repo.approve(&id);
    let out = repo.git_output(&["merge", "--no-edit", "other"]);
    assert!(!out.status.success());
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("conflicting fact(s) in .ledger/facts/architecture.md"),
        "{said}"
    );
    assert!(!said.contains(".merge_file_"), "{said}");
    repo.git(&["merge", "--abort"]);

    let doctor = |repo: &Repo| json(&repo.mneme(&["--json", "doctor"]).output().unwrap());
    let d = doctor(&repo);
    assert!(
        d["notes"]
            .to_string()
            .contains("git merges fact files with `mneme merge-file %O %A %B %P %S %Y`"),
        "{d}"
    );
    repo.git(&["config", "merge.mneme.driver", "mneme merge-file %O %A %B"]);
    assert!(doctor(&repo)["problems"]
        .to_string()
        .contains("not the current"));
    repo.init(&[]);
    assert!(!doctor(&repo)["problems"]
        .to_string()
        .contains("merges fact files"));
}

/// The driver reads within the limits every reader keeps: a side, or a merge, larger than a fact
/// file may be is not merged; git reports the file in conflict with our side's text, untouched.
#[test]
fn the_merge_driver_refuses_a_fact_file_past_the_limit_and_leaves_the_conflict_to_git() {
    let file = ".ledger/facts/architecture.md";
    // (our addition, their addition, what the driver says): both sides too large; then sides
    // within the limit whose merge is not.
    let ours_line = "Our filler line, which no real fact file holds this much of.\n";
    let theirs_line = "Their filler line, which no real fact file holds this much of.\n";
    let cases = [
        (
            ours_line.repeat(20_000),
            theirs_line.repeat(2),
            "our side is larger than",
        ),
        (
            ours_line.repeat(2),
            theirs_line.repeat(20_000),
            "their side is larger than",
        ),
        (
            ours_line.repeat(10_000),
            theirs_line.repeat(10_000),
            "the merge would be larger than",
        ),
    ];
    for (ours_extra, theirs_extra, said) in cases {
        let repo = Repo::committed();
        let original = repo.read(file);
        repo.git(&["checkout", "-q", "-b", "other"]);
        repo.write(file, &format!("{original}\n{theirs_extra}"));
        repo.git(&["commit", "-qam", "their filler"]);
        repo.git(&["checkout", "-q", "main"]);
        let ours = format!("{original}\n{ours_extra}");
        repo.write(file, &ours);
        repo.git(&["commit", "-qam", "our filler"]);
        let out = repo.git_output(&["merge", "--no-edit", "other"]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        assert!(!out.status.success(), "{err}");
        assert!(err.contains(&format!("{file}: {said}")), "{said}: {err}");
        assert!(err.contains("not merged"), "{err}");
        assert_eq!(repo.read(file), ours, "our side's text is left as it was");
        let unmerged = repo.git_output(&["ls-files", "-u", "--", file]);
        assert!(
            !unmerged.stdout.is_empty(),
            "git holds the file in conflict"
        );
    }
}

/// The issue's case: one branch edits the heading, the other the front matter, and each approves
/// a fact. git merges such a file cleanly line by line; so does the driver, with both facts.
#[test]
fn the_driver_merges_the_text_around_facts_line_by_line() {
    let repo = Repo::committed();
    let base = repo.head();
    let file = ".ledger/facts/architecture.md";
    repo.git(&["checkout", "-q", "-b", "heading"]);
    let old = repo.read(file);
    let heading = old
        .lines()
        .find(|l| l.starts_with("# "))
        .unwrap()
        .to_owned();
    repo.write(file, &old.replacen(&heading, "# Architecture, retitled", 1));
    repo.git(&["commit", "-qam", "retitle"]);
    let a = repo.approve_new("architecture", "Heading side fact (marker H).");
    repo.git(&["checkout", "-q", "main"]);
    let old = repo.read(file);
    let title = old
        .lines()
        .find(|l| l.starts_with("title:"))
        .unwrap()
        .to_owned();
    repo.write(
        file,
        &old.replacen(&title, "title: Architecture (front matter edited)", 1),
    );
    repo.git(&["commit", "-qam", "edit front matter"]);
    let b = repo.approve_new("architecture", "Front matter side fact (marker F).");
    repo.git(&["merge", "-q", "--no-edit", "heading"]);
    let merged = repo.read(file);
    for part in [
        "# Architecture, retitled",
        "title: Architecture (front matter edited)",
        &a,
        &b,
    ] {
        assert!(merged.contains(part), "{part} missing from\n{merged}");
    }
    assert!(!merged.contains("<<<<<<<"), "{merged}");
    // The text edits are unreviewed history, but the state the records give holds.
    let (_, v) = verify(&repo, &format!("{base}..HEAD"));
    assert_eq!(v["state"]["issues"], serde_json::json!([]), "{v:#}");
}

/// Where only the text around the facts changed, the driver agrees with `git merge-file`: the
/// same result when git merges cleanly, a conflict when git has one.
#[test]
fn the_driver_agrees_with_git_merge_file_on_text() {
    let base = "---\ntitle: T\n---\n\n# T\n\nIntro.\n\n- **f-0001** One.\n- **f-0002** Two.\n\n## Notes\n\nA\nB\nC\n\nD\nE\nF\n";
    let cases: [(&str, &str, &str); 6] = [
        ("# T", "# T2", "title: T"),
        ("Intro.", "Intro, longer.", "F\n"),
        ("A\n", "A0\nA\n", "F\n"),
        ("B\n", "", "E\n"),
        ("Intro.", "Ours.", "Intro."),
        ("C\n", "C1\n", "C\n"),
    ];
    let repo = Repo::new();
    for (i, (from, to, theirs_at)) in cases.iter().enumerate() {
        let ours = base.replacen(from, to, 1);
        let theirs = match i {
            4 => base.replacen("Intro.", "Theirs.", 1),
            5 => base.replacen("C\n", "C2\n", 1),
            _ => base.replacen(theirs_at, &format!("{theirs_at}(theirs)\n"), 1),
        };
        for (name, text) in [("base", base), ("ours", &ours), ("theirs", &theirs)] {
            repo.write(name, text);
        }
        let git = repo.git_output(&[
            "merge-file",
            "-p",
            "-L",
            "ours",
            "-L",
            "base",
            "-L",
            "theirs",
            "ours",
            "base",
            "theirs",
        ]);
        let out = repo
            .mneme(&["merge-file", "base", "ours", "theirs", "facts.md"])
            .output()
            .unwrap();
        let ours_after = repo.read("ours");
        assert_eq!(
            out.status.success(),
            git.status.success(),
            "case {i}: git says {}, mneme wrote\n{ours_after}",
            String::from_utf8_lossy(&git.stdout)
        );
        if git.status.success() {
            assert_eq!(
                ours_after,
                String::from_utf8(git.stdout).unwrap(),
                "case {i}"
            );
        } else {
            assert_eq!(
                ours_after.matches("<<<<<<< ours").count(),
                1,
                "{ours_after}"
            );
            assert!(ours_after.contains("- **f-0001** One.\n- **f-0002** Two.\n"));
        }
    }
}

/// How a pull request's branch `other` reaches main.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Way {
    Merge,
    Squash,
    /// The branch rebased onto main, then main fast-forwarded, as a forge's "rebase and merge".
    Rebase,
    CherryPick,
}

/// How a landing is made: `driver`, whether `mneme` is on git's PATH (a GUI client or an IDE
/// may not have it); `drop_theirs`, whether the person resolving keeps main's file and loses
/// the other side's approved fact. Without the driver, other conflicts are resolved by keeping
/// both sides' lines (`git merge-file --union`).
#[derive(Debug, Clone, Copy)]
struct Landing {
    way: Way,
    driver: bool,
    drop_theirs: bool,
}

/// Every landing the grid tries.
fn landings() -> Vec<Landing> {
    let mut out = Vec::new();
    for way in [Way::Merge, Way::Squash, Way::Rebase, Way::CherryPick] {
        for driver in [true, false] {
            out.push(Landing {
                way,
                driver,
                drop_theirs: false,
            });
        }
    }
    out.push(Landing {
        way: Way::Merge,
        driver: false,
        drop_theirs: true,
    });
    out
}

/// Runs git with the forge's options, with or without the driver; whether it succeeded.
fn forge_git(repo: &Repo, l: Landing, forge: &[&str], args: &[&str]) -> bool {
    let full = [forge, &["-c", "core.editor=true"], args].concat();
    if l.driver {
        repo.git_output(&full).status.success()
    } else {
        repo.git_without_mneme(&full)
    }
}

/// Resolves the conflicted files of a stopped merge, rebase or cherry-pick by hand, then runs
/// `continue_with` until it goes through.
fn resolve(repo: &Repo, l: Landing, forge: &[&str], continue_with: &[&str]) {
    loop {
        let conflicted = repo.git(&["diff", "--name-only", "--diff-filter=U"]);
        for file in conflicted.lines() {
            if l.drop_theirs {
                repo.git(&["checkout", "--ours", "--", file]);
            } else {
                let stage = |n: &str| repo.git(&["show", &format!(":{n}:{file}")]);
                for (n, name) in [("1", "base"), ("2", "ours"), ("3", "theirs")] {
                    repo.write(&format!(".git/{name}.md"), &stage(n));
                }
                let union = repo.git(&[
                    "merge-file",
                    "-p",
                    "--union",
                    ".git/ours.md",
                    ".git/base.md",
                    ".git/theirs.md",
                ]);
                repo.write(file, &union);
            }
            repo.git(&["add", "--", file]);
        }
        if continue_with.is_empty() || forge_git(repo, l, forge, continue_with) {
            return;
        }
    }
}

/// Brings `other` into main as `l` says; `forge` are the git options the forge's own commits
/// are made with. Returns the fact main's side approved and the one `other` approved.
fn land(repo: &Repo, l: Landing, forge: &[&str]) -> (String, String) {
    repo.git(&["checkout", "-q", "-b", "other"]);
    let theirs = repo.approve_new_with(
        "architecture",
        &format!("Their fact ({:?}).", l.way),
        &["--reason", "read it", "--evidence", "README.md"],
    );
    repo.git(&["checkout", "-q", "main"]);
    let ours = repo.approve_new("architecture", &format!("Our fact ({:?}).", l.way));
    let file = ".ledger/facts/architecture.md";
    let run = |args: &[&str]| forge_git(repo, l, forge, args);
    match l.way {
        Way::Merge => {
            if !run(&["merge", "-q", "--no-edit", "other"]) {
                resolve(repo, l, forge, &["commit", "-q", "--no-edit"]);
            }
        }
        Way::Squash => {
            if !run(&["merge", "-q", "--squash", "other"]) {
                resolve(repo, l, forge, &[]);
            }
            assert!(run(&["commit", "-q", "-m", "Their fact (#7)"]));
        }
        Way::Rebase => {
            repo.git(&["checkout", "-q", "other"]);
            if !run(&["rebase", "-q", "main"]) {
                resolve(repo, l, forge, &["rebase", "--continue"]);
            }
            repo.git(&["checkout", "-q", "main"]);
            repo.git(&["merge", "-q", "--ff-only", "other"]);
        }
        Way::CherryPick => {
            if !run(&["cherry-pick", "other"]) {
                resolve(repo, l, forge, &["cherry-pick", "--continue"]);
            }
        }
    }
    if l.drop_theirs && repo.read(file).contains(&theirs) {
        // git's line merge kept both: drop theirs by hand, in a commit of the merge.
        let kept: String = repo
            .read(file)
            .lines()
            .filter(|line| !line.contains(&theirs))
            .map(|line| format!("{line}\n"))
            .collect();
        repo.write(file, &kept);
        repo.git(&["add", "-A"]);
        repo.git(&[forge, &["commit", "-q", "--amend", "--no-edit"]].concat());
    }
    (ours, theirs)
}

/// The grid the issue names: each way a pull request lands, with and without the driver on
/// git's PATH, and with signing required or not (where the forge's own commits are signed by a
/// key nobody allowed). `verify` passes exactly
/// when no approved fact was lost, and so does the generated workflow's verify step, run here
/// with a push event.
#[test]
fn every_way_a_pull_request_lands_passes_verify_unless_a_fact_is_lost() {
    for signed in [false, true] {
        for l in landings() {
            let repo = Repo::committed();
            repo.init(&["--ci", "github"]);
            let mut forge: Vec<String> = Vec::new();
            if signed {
                let Some((grace, grace_pub)) = crate::signing::keygen(&repo, "grace") else {
                    return;
                };
                let (forge_key, _) = crate::signing::keygen(&repo, "forge").unwrap();
                repo.write(
                    ".ledger/allowed_signers",
                    &format!("human@example.com {grace_pub}\n"),
                );
                crate::signing::sign_with(&repo, &grace);
                // Reviewers' records are signed; their commits are not required to be.
                repo.git(&["config", "commit.gpgSign", "false"]);
                forge = [
                    "-c",
                    "commit.gpgSign=true",
                    "-c",
                    &format!("user.signingKey={}", forge_key.display()),
                ]
                .map(str::to_owned)
                .to_vec();
            }
            repo.git(&["add", "-A"]);
            repo.git(&["commit", "-q", "-m", "workflow"]);
            let before = repo.head();
            let forge: Vec<&str> = forge.iter().map(String::as_str).collect();
            let (ours, theirs) = land(&repo, l, &forge);
            let facts = repo.read(".ledger/facts/architecture.md");
            let case = format!("{l:?}, signed: {signed}");
            let lost = l.drop_theirs;
            assert_eq!(facts.contains(&theirs), !lost, "{case}:\n{facts}");
            assert!(facts.contains(&ours), "{case}:\n{facts}");
            assert!(!facts.contains("<<<<<<<"), "{case}:\n{facts}");
            let added = repo.git(&["diff", "--name-only", &before, "--", ".ledger/decisions"]);
            assert!(!added.trim().is_empty(), "{case}");
            for record in added.lines() {
                let text = repo.read(record);
                assert_eq!(
                    text.contains("BEGIN SSH SIGNATURE"),
                    signed,
                    "{case}: {text}"
                );
            }
            let (passed, v) = verify(&repo, &format!("{before}..HEAD"));
            assert_eq!(passed, !lost, "{case}: {v:#}");
            if lost {
                let issues = v["state"]["issues"].to_string();
                assert!(
                    issues.contains(&theirs) && issues.contains("missing"),
                    "{case}: {issues}"
                );
            }
            views_agree(&repo, &format!("{before}..HEAD"), &theirs, lost, &case);
            // The workflow's own steps, as a push of the landed commits runs them.
            let parsed: serde_json::Value =
                serde_saphyr::from_str(&repo.read(".github/workflows/mneme.yml")).unwrap();
            let script = crate::ci::step(&parsed, "Choose the commits")["run"]
                .as_str()
                .unwrap()
                .to_owned();
            let head = repo.head();
            let range = crate::ci::range_for(
                &repo,
                &script,
                &[("EVENT", "push"), ("BEFORE", &before), ("AFTER", &head)],
            );
            let step = crate::ci::step(&parsed, "Verify that fact changes")["run"]
                .as_str()
                .unwrap()
                .to_owned();
            let out = repo.sh(&format!("RANGE='{range}'; {step}"));
            assert_eq!(out.status.success(), !lost, "{case}: {out:?}");
        }
    }
}

/// Every view of the range and of the fact `theirs` it landed says what `verify` says: reviewed
/// unless `lost`, when the fact is gone although its approval record came through. And `review
/// undo` takes the approval back however it landed.
fn views_agree(repo: &Repo, range: &str, theirs: &str, lost: bool, case: &str) {
    let (_, verified) = verify(repo, range);
    let commits = |list: &serde_json::Value| -> Vec<String> {
        let mut ids: Vec<String> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["commit"].to_string())
            .collect();
        ids.sort();
        ids
    };
    let failing = commits(&verified["violations"]);
    let net = repo.json(&["diff", range, "--format", "json"]);
    let problems = net["record_problems"].to_string();
    assert_eq!(problems.contains(theirs), lost, "{case}: {net:#}");
    assert_eq!(commits(&net["unreviewed"]), failing, "{case}: {net:#}");
    // A fact is unreviewed where the records say so, or a commit that failed wrote it.
    for fact in net["facts"].as_array().unwrap() {
        if lost && fact["fact"] == theirs {
            assert_eq!(fact["unreviewed"], true, "{case}: {net:#}");
        } else if failing.is_empty() {
            assert_eq!(fact["unreviewed"], false, "{case}: {net:#}");
        }
    }
    let markdown = repo
        .mneme(&["diff", range, "--format", "markdown"])
        .output();
    let markdown = String::from_utf8(markdown.unwrap().stdout).unwrap();
    assert_eq!(markdown.contains("CAUTION"), lost, "{case}: {markdown}");
    let by_commit = repo.json(&["diff", range, "--by-commit", "--format", "json"]);
    assert_eq!(
        by_commit["unreviewed_commits"],
        failing.len(),
        "{case}: {by_commit:#}"
    );
    let problems = by_commit["record_problems"].to_string();
    assert_eq!(problems.contains(theirs), lost, "{case}: {by_commit:#}");
    let errors: Vec<serde_json::Value> = repo
        .findings()
        .into_iter()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), usize::from(lost), "{case}: {errors:#?}");
    let log = repo.json(&["log", theirs, "--json"]);
    assert_eq!(log[0]["verdict"], "approve", "{case}: {log:#}");
    let why = repo.mneme(&["why", theirs]).output().unwrap();
    let why = String::from_utf8(why.stdout).unwrap();
    assert!(!why.contains("written by hand"), "{case}: {why}");
    assert_eq!(why.contains("not in effect"), lost, "{case}: {why}");
    if lost {
        return;
    }
    let stale = repo.json(&["stale", "--json"]);
    assert_eq!(stale["watched"], 1, "{case}: {stale:#}");
    assert_eq!(stale["facts"], serde_json::json!([]), "{case}: {stale:#}");
    let context = repo.json(&["context", "--json"]);
    for marks in ["unapproved", "drifted"] {
        assert_eq!(context[marks], serde_json::json!([]), "{case}: {context:#}");
    }
    // Undone however it landed: a proposal to remove it, which an approval carries out.
    let proposal = log[0]["proposal"].as_str().unwrap();
    let undo = repo.json(&["review", "undo", proposal, "--json"]);
    let id = undo["id"].as_str().unwrap();
    repo.approve(id);
    assert!(
        !repo.read(".ledger/facts/architecture.md").contains(theirs),
        "{case}"
    );
    let (passed, v) = verify(repo, range);
    assert!(passed, "{case}: {v:#}");
}

/// Two branches update one fact differently; the person resolving the conflict keeps the other
/// branch's version, the older decision. Both versions were approved, so `verify` passes; `why` and `log` say which approval
/// the fact's text descends from, and that the other side's did not survive.
#[test]
fn why_and_log_follow_the_version_a_merge_kept() {
    let repo = Repo::committed();
    let fact = repo.approve_new("architecture", "Retries: 3 (marker W).");
    let base = repo.head();
    repo.git(&["checkout", "-q", "-b", "other"]);
    let id = repo.propose_update(&fact, "Retries: 5 (marker W).", &["--reason", "r"]);
    repo.approve(&id);
    let theirs = repo.head();
    repo.git(&["checkout", "-q", "main"]);
    let id = repo.propose_update(&fact, "Retries: 4 (marker W).", &["--reason", "r"]);
    repo.approve(&id);
    let ours = repo.head();
    // Ours is the newer decision: history alone, or the latest record, would credit it.
    let merge = repo.git_output(&["merge", "--no-edit", "other"]);
    assert!(!merge.status.success(), "both changed the fact");
    repo.git(&["checkout", "--theirs", ".ledger/facts/architecture.md"]);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-edit"]);
    assert!(repo
        .read(".ledger/facts/architecture.md")
        .contains("Retries: 5"));

    let (passed, v) = verify(&repo, &format!("{base}..HEAD"));
    assert!(passed, "{v:#}");

    let why = repo.json(&["why", &fact, "--json"]);
    let effect = |v: &serde_json::Value, commit: &str| {
        v.as_array()
            .unwrap()
            .iter()
            .find(|d| d["commit"] == commit.trim())
            .unwrap()["in_effect"]
            .clone()
    };
    assert_eq!(effect(&why["decisions"], &ours), false, "{why:#}");
    assert_eq!(effect(&why["decisions"], &theirs), true, "{why:#}");
    assert_eq!(effect(&why["decisions"], &base), true, "{why:#}");
    let log = repo.json(&["log", &fact, "--json"]);
    assert_eq!(effect(&log, &ours), false, "{log:#}");
    assert!(log[0].get("changes").is_none(), "texts only with -p");
    let text = repo.mneme(&["why", &fact]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let flagged: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("not in effect"))
        .collect();
    assert_eq!(flagged.len(), 1, "{text}");
    assert!(flagged[0].contains(&ours[..10]), "{text}");
}

/// `review undo` of approvals a squash carried, known only by their records: an update gets its
/// old text back, a supersession is reversed, and a fact changed twice in one squash says its
/// older text is gone rather than guess.
#[test]
fn review_undo_takes_back_squashed_approvals_by_their_records() {
    let repo = Repo::committed();
    let kept = repo.approve_new("architecture", "Retries: 3 (marker U).");
    let old = repo.approve_new("pitfalls", "Logs go to syslog (marker S).");
    let twice = repo.approve_new("invariants", "Ids are 4 characters (marker T).");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let update = repo.propose_update(&kept, "Retries: 5 (marker U).", &["--reason", "r"]);
    repo.approve(&update);
    let supersede = repo.propose(&[
        "supersede",
        &old,
        "Logs go to journald (marker S).",
        "--reason",
        "moved",
    ]);
    repo.approve(&supersede);
    for text in [
        "Ids are 5 characters (marker T).",
        "Ids are 6 characters (marker T).",
    ] {
        let p = repo.propose_update(&twice, text, &["--reason", "r"]);
        repo.approve(&p);
    }
    let second = repo.json(&["log", &twice, "--json", "-n", "1"])[0]["proposal"]
        .as_str()
        .unwrap()
        .to_owned();
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--squash", "feature"]);
    repo.git(&["commit", "-qm", "Facts (#9)"]);
    let squash = repo.head();

    let undo = repo.json(&["review", "undo", &update, "--json"]);
    let ops = &undo["proposal"]["operations"];
    assert_eq!(ops[0]["op"], "update", "{undo:#}");
    assert_eq!(ops[0]["text"], "Retries: 3 (marker U).", "{undo:#}");
    assert!(
        undo["proposal"]["reason"]
            .as_str()
            .unwrap()
            .contains(&squash[..10]),
        "{undo:#}"
    );
    repo.approve(undo["id"].as_str().unwrap());
    assert!(repo
        .read(".ledger/facts/architecture.md")
        .contains("Retries: 3 (marker U)."));

    let undo = repo.json(&["review", "undo", &supersede, "--json"]);
    repo.approve(undo["id"].as_str().unwrap());
    let pitfalls = repo.read(".ledger/facts/pitfalls.md");
    assert!(!pitfalls.contains("journald"), "{pitfalls}");
    let facts = repo.json(&["facts", "--json"]);
    let restored = facts
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|file| file["facts"].as_array().unwrap())
        .find(|f| f["id"] == old)
        .unwrap_or_else(|| panic!("{facts:#}"));
    assert_eq!(restored["state"], "active", "{facts:#}");

    let out = repo.mneme(&["review", "undo", &second]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&twice) && stderr.contains("propose update"),
        "{stderr}"
    );
    repo.mneme(&["verify", &format!("{squash}~1..HEAD")])
        .assert()
        .success();
}
