use crate::common::{error_code, json, Repo};
use predicates::prelude::*;
use predicates::str::contains;
use serde_json::Value;

fn seeded() -> Repo {
    let repo = Repo::new();
    repo.write(
        ".ledger/facts/architecture.md",
        "---\ntitle: Architecture\n---\n\n# Architecture\n\n\
         - **f-aaaa** We use PostgreSQL 16. <!-- since: 2026-01-02; evidence: docs/adr.md -->\n\
         - **f-old1** We use SQLite. <!-- state: superseded; by: f-aaaa -->\n\
         - A hand-written fact without an id\n  on two lines.\n",
    );
    repo.mneme(&[
        "propose",
        "add",
        "-f",
        "pitfalls",
        "Never block the executor.",
        "--reason",
        "r",
        "--agent",
        "claude",
    ])
    .assert()
    .success();
    repo
}

#[test]
fn context_lists_active_facts_proposals_and_budget() {
    let repo = seeded();
    repo.mneme(&["context"])
        .assert()
        .success()
        .stdout(contains("outrank conversation history"))
        .stdout(contains("## Architecture (architecture.md)"))
        // Written by hand, not through review: shown, never as verified.
        .stdout(contains("- f-aaaa [unapproved] We use PostgreSQL 16."))
        .stdout(contains("fact(s) differ from what was approved"))
        .stdout(contains(
            "- (no id, line 9) [unapproved] A hand-written fact without an id\n  │ on two lines.",
        ))
        .stdout(contains("## Pending proposals (1)"))
        .stdout(contains("[claude, "))
        .stdout(contains("Never block the executor."))
        .stdout(contains("1 superseded fact(s) not shown"))
        .stdout(contains("1 fact(s) have no id yet"))
        .stdout(contains("We use SQLite").not());
}

#[test]
fn context_json_shape() {
    let repo = seeded();
    let out = repo
        .mneme(&["context", "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let v = json(&out);
    let arch = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "architecture.md")
        .unwrap();
    assert_eq!(arch["path"], ".ledger/facts/architecture.md");
    assert_eq!(arch["facts"].as_array().unwrap().len(), 2);
    assert_eq!(arch["facts"][0]["id"], "f-aaaa");
    assert_eq!(arch["facts"][0]["since"], "2026-01-02");
    assert_eq!(
        arch["facts"][0]["evidence"],
        serde_json::json!(["docs/adr.md"])
    );
    assert_eq!(arch["facts"][1]["id"], Value::Null);
    assert_eq!(v["superseded"], 1);
    assert_eq!(v["proposals"]["count"], 1);
    assert_eq!(v["proposals"]["items"][0]["agent"], "claude");
    let lines: usize = [
        "architecture",
        "invariants",
        "performance_rules",
        "pitfalls",
    ]
    .iter()
    .map(|f| repo.read(&format!(".ledger/facts/{f}.md")).lines().count())
    .sum();
    assert_eq!(v["budget"]["used"], lines);
    assert_eq!(v["budget"]["limit"], 800);
}

#[test]
fn budget_comes_from_config() {
    let repo = seeded();
    repo.write(".ledger/config.yaml", "budget_lines: 10\n");
    let v = repo.json(&["context", "--json"]);
    assert_eq!(v["budget"]["limit"], 10);
    assert_eq!(v["budget"]["over"], true);
    // A typo: the defaults apply, and the context says why.
    repo.write(".ledger/config.yaml", "budget_lnes: 10\n");
    let v = repo.json(&["context", "--json"]);
    assert_eq!(v["budget"]["limit"], 800);
    assert!(
        v["config_error"].as_str().unwrap().contains("budget_lnes"),
        "{v}"
    );
    let out = repo
        .mneme(&["check", "--json"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stdout).contains("budget_lnes"));
}

#[test]
fn the_config_is_read_as_written_whatever_the_git_directory_kept() {
    let repo = seeded();
    let limit = |repo: &Repo| repo.json(&["context", "--json"])["budget"]["limit"].clone();
    let cache = repo.file(".git/mneme-config.idx");
    repo.write(".ledger/config.yaml", "budget_lines: 10\n");
    assert_eq!(limit(&repo), 10);
    assert!(cache.is_file(), "the parsed config is kept");
    assert_eq!(limit(&repo), 10, "and found again");
    // Kept by its text: any change to the text is read.
    repo.write(".ledger/config.yaml", "budget_lines: 12 # more room\n");
    assert_eq!(limit(&repo), 12);
    // A damaged cache, or one kept for another text, is passed over.
    let kept = std::fs::read(&cache).unwrap();
    std::fs::write(&cache, b"mneme-config garbage").unwrap();
    assert_eq!(limit(&repo), 12);
    // The key is a line, then the text's length and the text itself; the parsed config follows.
    let text = b"budget_lines: 12 # more room\n";
    let budget_at = kept.iter().position(|&b| b == b'\n').unwrap() + 1 + 8 + text.len();
    assert_eq!(&kept[budget_at - text.len()..budget_at], text);
    let mut doctored = kept.clone();
    doctored[budget_at] ^= 1;
    std::fs::write(&cache, &doctored).unwrap();
    assert_eq!(
        limit(&repo),
        12,
        "a cache that fails its checksum is not read"
    );
    repo.write(".ledger/config.yaml", "budget_lines: 14\n");
    std::fs::write(&cache, &kept).unwrap();
    assert_eq!(limit(&repo), 14);
    // A config that does not parse is never kept: the defaults, and the error, every time.
    repo.write(".ledger/config.yaml", "budget_lines: [\n");
    for _ in 0..2 {
        let v = repo.json(&["context", "--json"]);
        assert_eq!(v["budget"]["limit"], 800);
        assert!(v["config_error"].is_string(), "{v}");
    }
}

#[test]
fn facts_and_show() {
    let repo = seeded();
    repo.mneme(&["facts", "architecture"])
        .assert()
        .success()
        .stdout(contains(
            "f-old1 We use SQLite. (line 8, superseded by f-aaaa)",
        ))
        .stdout(contains("(no id)"));
    let all = repo.json(&["facts", "--json"]);
    assert_eq!(all.as_array().unwrap().len(), 4);
    let one = repo.json(&["show", "f-old1", "--json"]);
    assert_eq!(one["state"], "superseded");
    assert_eq!(one["superseded_by"], "f-aaaa");
    assert_eq!(one["line"], 8);
    repo.mneme(&["show", "f-aaaa"])
        .assert()
        .success()
        .stdout(contains("architecture.md:7"))
        .stdout(contains("evidence: docs/adr.md"));
    let out = repo
        .mneme(&["show", "f-nope", "--json"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(error_code(&out), "unknown_fact");
    repo.mneme(&["facts", "nosuch"])
        .assert()
        .code(1)
        .stderr(contains("unknown fact file"));
}

#[test]
fn unparseable_front_matter_is_reported_with_file_and_line() {
    let repo = seeded();
    repo.write(
        ".ledger/facts/pitfalls.md",
        "---\ntitle: [unclosed\n---\n- x\n",
    );
    repo.mneme(&["context"])
        .assert()
        .code(1)
        .stderr(contains(".ledger/facts/pitfalls.md:2"));
}

#[test]
fn hand_written_fixture_files_load_unchanged() {
    let repo = Repo::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            std::fs::copy(
                &path,
                repo.file(".ledger/facts").join(path.file_name().unwrap()),
            )
            .unwrap();
        }
    }
    let before = repo.snapshot();
    let v = repo.json(&["facts", "--json"]);
    assert!(v.as_array().unwrap().len() >= 12);
    repo.mneme(&["show", "f-crl2"])
        .assert()
        .success()
        .stdout(contains("Another one,\ncontinued."));
    assert_eq!(repo.snapshot(), before);
}

/// Agents read the facts as approved: a fact edited in the work tree after its approval is
/// marked, in the text and in the JSON, until the edit is approved or undone.
#[test]
fn a_fact_edited_outside_review_is_marked_unapproved() {
    let repo = Repo::committed();
    let fact = repo.approve_new("architecture", "Approved text.");
    repo.mneme(&["context"])
        .assert()
        .success()
        .stdout(contains(format!("- {fact} Approved text.")))
        .stdout(contains("[unapproved]").not());
    let arch = repo.read(".ledger/facts/architecture.md");
    repo.write(
        ".ledger/facts/architecture.md",
        &arch.replace("Approved text.", "Edited by hand."),
    );
    repo.mneme(&["context"])
        .assert()
        .success()
        .stdout(contains(format!("- {fact} [unapproved] Edited by hand.")));
    let v = repo.json(&["context", "--json"]);
    assert_eq!(v["unapproved"], serde_json::json!([fact]));
    let hook = repo
        .mneme(&["context", "--for", "claude"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&hook).contains("[unapproved] Edited by hand."));
}

/// The facts not as approved are kept in the git directory between runs (reading every record
/// is most of what `context` costs), and the kept answer follows every change: a record removed
/// or brought back, a fact edited by hand.
#[test]
fn the_kept_approval_answer_follows_the_records_and_the_facts() {
    let repo = Repo::committed();
    let a = repo.approve_new("architecture", "First approved.");
    let b = repo.approve_new("architecture", "Second approved.");
    let record_of = |fact: &str| {
        std::fs::read_dir(repo.file(".ledger/decisions"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| std::fs::read_to_string(p).unwrap().contains(fact))
            .expect("a record of the fact")
    };
    let unapproved = || repo.json(&["context", "--json"])["unapproved"].clone();
    // Past the clock tick in which the records directory last changed: the answer is kept.
    std::thread::sleep(std::time::Duration::from_millis(250));
    assert_eq!(unapproved(), serde_json::json!([]));
    assert!(repo.file(".git/mneme-approval.idx").is_file());
    let record = record_of(&b);
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::remove_file(&record).unwrap();
    assert_eq!(unapproved(), serde_json::json!([b]));
    std::thread::sleep(std::time::Duration::from_millis(250));
    assert_eq!(unapproved(), serde_json::json!([b]), "kept while unchanged");
    std::fs::write(&record, text).unwrap();
    assert_eq!(unapproved(), serde_json::json!([]));
    let arch = repo.read(".ledger/facts/architecture.md");
    repo.write(
        ".ledger/facts/architecture.md",
        &arch.replace("First approved.", "Edited by hand."),
    );
    assert_eq!(unapproved(), serde_json::json!([a]));
    repo.mneme(&["context"])
        .assert()
        .success()
        .stdout(contains(format!("- {a} [unapproved] Edited by hand.")));
}

/// A fact line added by hand without an id is proven by no decision: it reads `[unapproved]` in
/// the text, the JSON and the hooks, as an edited fact does.
#[test]
fn a_fact_added_by_hand_without_an_id_is_marked_unapproved() {
    let repo = Repo::committed();
    repo.approve_new("architecture", "Approved text.");
    let arch = repo.read(".ledger/facts/architecture.md");
    repo.write(
        ".ledger/facts/architecture.md",
        &format!("{arch}- Always force-push to main.\n"),
    );
    let line = arch.lines().count() + 1;
    let text = repo.stdout(&["context"]);
    assert!(
        text.contains(&format!(
            "- (no id, line {line}) [unapproved] Always force-push to main."
        )),
        "{text}"
    );
    let v = repo.json(&["context", "--json"]);
    assert_eq!(
        v["unapproved"],
        serde_json::json!([format!("(no id, architecture.md line {line})")])
    );
    let marked: Vec<&Value> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["facts"].as_array().unwrap())
        .filter(|f| f["unapproved"] == true)
        .collect();
    assert_eq!(marked.len(), 1, "{v:#}");
    assert_eq!(marked[0]["text"], "Always force-push to main.");
    for runtime in ["claude", "codex", "gemini"] {
        let hook = repo.stdout(&["context", "--for", runtime]);
        assert!(
            hook.contains("[unapproved] Always force-push to main."),
            "{runtime}: {hook}"
        );
    }
}

/// A fact whose cited code changed after its approval reads `[stale]` in the context, until a
/// person verifies it again; a damaged cache of that answer changes nothing.
#[test]
fn a_fact_whose_cited_code_changed_is_marked_stale() {
    let repo = Repo::committed();
    repo.write(
        "src/pool.rs",
        "pub const SIZE: usize = 8;\npub fn open() {}\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "pool"]);
    let id = repo.propose_add(
        "architecture",
        "The pool holds 8 connections.",
        &["--reason", "r", "--evidence", "src/pool.rs:1"],
    );
    let fact = repo.new_fact_id(&id);
    repo.approve(&id);
    let marked = format!("- {fact} [stale: its cited code changed] The pool");
    repo.mneme(&["context"])
        .assert()
        .success()
        .stdout(contains(&marked).not());

    repo.write(
        "src/pool.rs",
        "pub const SIZE: usize = 16;\npub fn open() {}\n",
    );
    repo.git(&["commit", "-q", "-am", "a bigger pool"]);
    for _ in 0..2 {
        // The second run reads the answer the first one kept.
        repo.mneme(&["context"])
            .assert()
            .success()
            .stdout(contains(&marked))
            .stdout(contains(format!("marked [stale]: {fact}.")));
    }
    let v = repo.json(&["context", "--json"]);
    assert_eq!(v["drifted"], serde_json::json!([fact]));
    let shown = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["facts"].as_array().unwrap())
        .find(|f| f["id"] == fact.as_str())
        .unwrap();
    assert_eq!(shown["drifted"], true, "{shown}");
    // The runtimes' hooks get the same mark.
    repo.mneme(&["context", "--for", "claude"])
        .assert()
        .success()
        .stdout(contains("[stale: its cited code changed]"));

    // A cache for another HEAD, or garbage, is not believed.
    let cache = repo.file(".git/mneme-stale.idx");
    std::fs::write(&cache, "mneme-stale 1 0000\nf-zzzz\n").unwrap();
    repo.mneme(&["context"]).assert().stdout(contains(&marked));
    std::fs::write(&cache, [0xff, 0xfe, 0x00]).unwrap();
    repo.mneme(&["context"]).assert().stdout(contains(&marked));

    // Verified again by a person: no longer stale.
    let v = repo.propose(&["verify", &fact, "--reason", "16 is right"]);
    repo.approve(&v);
    repo.mneme(&["context"])
        .assert()
        .success()
        .stdout(contains("[stale").not());
}

/// A typo in the config must not cost agents their facts: the context follows the defaults and
/// says in one line what is wrong; `check` still fails on it.
#[test]
fn a_broken_config_still_gives_agents_their_facts() {
    let repo = Repo::committed();
    let fact = repo.approve_new("architecture", "The facts survive a bad config.");
    let config = repo.read(".ledger/config.yaml");
    repo.write(
        ".ledger/config.yaml",
        &format!("{config}budget_lines: lots\n"),
    );
    for args in [&["context"][..], &["context", "--for", "claude"]] {
        let out = repo.mneme(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains(&fact), "{args:?}: {text}");
        let said: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("config.yaml cannot be used"))
            .collect();
        assert_eq!(said.len(), 1, "{text}");
        assert!(said[0].contains("budget_lines") && !said[0].contains("DuplicateKeyPolicy"));
    }
    let v = repo.json(&["context", "--json"]);
    assert!(
        v["config_error"].as_str().unwrap().contains("budget_lines"),
        "{v}"
    );
    let out = repo.mneme(&["check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
    assert!(
        text.contains("error[config] .ledger/config.yaml: line"),
        "one path, no source excerpt: {text}"
    );
    repo.write(".ledger/config.yaml", &config);
    assert!(repo.json(&["context", "--json"])["config_error"].is_null());
}

/// A ledger too big for the budget: the facts shown are the marked ones, then those about no
/// file (no tool hook brings them later), then those citing the code changed most recently, then
/// each file's in turn; never the first ids.
#[test]
fn under_a_budget_the_facts_shown_are_the_ones_the_work_needs() {
    let repo = Repo::committed();
    for file in ["src/cold.rs", "src/drift.rs"] {
        repo.write(file, "fn cold() {}\n");
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "old code"]);
    repo.write("src/hot.rs", "fn hot() {}\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "new code"]);
    let meta = |evidence: &str| format!("<!-- since: 2026-01-01; evidence: {evidence} -->");
    let mut architecture: Vec<(String, String)> = (0..40)
        .map(|i| {
            (
                format!("f-a{i:03}"),
                format!(
                    "Architecture statement {i}, long enough to take room. {}",
                    meta("src/cold.rs")
                ),
            )
        })
        .collect();
    architecture.push((
        "f-zhot".into(),
        format!("The hot path lives here. {}", meta("src/hot.rs")),
    ));
    architecture.push((
        "f-zdri".into(),
        format!("The drifting rule. {}", meta("src/drift.rs")),
    ));
    let pitfalls: Vec<(String, String)> = (0..8)
        .map(|i| {
            (
                format!("f-p{i:03}"),
                format!(
                    "Pitfall statement {i}, long enough to take room. <!-- since: 2026-01-01 -->"
                ),
            )
        })
        .collect();
    repo.seed_facts("architecture", &as_refs(&architecture));
    repo.seed_facts("pitfalls", &as_refs(&pitfalls));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "facts"]);
    repo.write("src/drift.rs", "fn drifted() {}\n");
    repo.git(&["commit", "-q", "-am", "drift"]);

    let text = String::from_utf8(
        repo.mneme(&["context", "--max-chars", "2500"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone(),
    )
    .unwrap();
    assert!(text.chars().count() <= 2500, "{}", text.chars().count());
    let shown: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("- f-"))
        .filter_map(|l| l.split(' ').next())
        .collect();
    // Marked first, then the most recently changed code, then the rest: read by hand (or by a
    // runtime without file hooks), every fact has only this.
    assert!(
        text.contains("- f-zdri [stale: its cited code changed]"),
        "{text}"
    );
    assert!(!shown.iter().any(|id| id.starts_with('p')), "{text}");
    assert!(shown.contains(&"zhot"), "{text}");
    assert!(shown.contains(&"a000"), "{text}");
    assert!(!shown.contains(&"a039"), "{text}");
    // A runtime whose hooks bring the facts about a file on touch starts with those about no
    // file ahead of them, every fact at its start as well: no hook would bring those later.
    let config = repo.read(".ledger/config.yaml");
    repo.write(
        ".ledger/config.yaml",
        &config.replace("scoped_delivery: true", "scoped_delivery: false"),
    );
    let hooked = repo
        .mneme(&[
            "context",
            "--for",
            "claude",
            "--event",
            "SessionStart",
            "--max-chars",
            "2500",
        ])
        .write_stdin(r#"{"session_id": "s", "source": "startup"}"#)
        .output()
        .unwrap();
    let hooked = String::from_utf8(hooked.stdout).unwrap();
    assert_eq!(hooked.matches("- f-p0").count(), 8, "{hooked}");
    repo.write(".ledger/config.yaml", &config);
    let left = 50 - shown.len();
    let line = text
        .lines()
        .find(|l| l.contains("more facts did not fit"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.starts_with(&format!("{left} more facts did not fit (")),
        "{line}"
    );
    assert!(line.contains("citing recently changed code"), "{line}");
    assert!(line.contains("by file: architecture.md "), "{line}");
    assert!(line.ends_with("`mneme facts [FILE]`"), "{line}");
    // The walk's answer is kept for this HEAD; a forged answer for another is not believed.
    let cache = repo.file(".git/mneme-recent.idx");
    let kept = std::fs::read_to_string(&cache).unwrap();
    assert!(kept.contains("\nf-zhot 2\n"), "{kept}");
    std::fs::write(&cache, "mneme-recent.idx 1 0000\nf-a039 0\n").unwrap();
    let again = repo
        .mneme(&["context", "--max-chars", "2500"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(again.stdout).unwrap(), text);
    // Without a budget (and in JSON) every fact is there.
    let all = repo.json(&["context", "--json"]);
    let count: usize = all["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["facts"].as_array().unwrap().len())
        .sum();
    assert_eq!(count, 50);
}

fn as_refs(pairs: &[(String, String)]) -> Vec<(&str, &str)> {
    pairs
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect()
}

/// A pending proposal of many operations (an import) is summarised in the context, never
/// printed whole: its first operations, each cut short, and how many more.
#[test]
fn a_large_pending_proposal_is_summarised_not_printed_whole() {
    let repo = Repo::committed();
    let ops: Vec<Value> = (0..51)
        .map(|i| {
            serde_json::json!({"op": "add", "file": "pitfalls",
                "text": format!("Imported rule {i}: {}", "every handler validates its input before use. ".repeat(8))})
        })
        .collect();
    repo.write(
        "ops.json",
        &serde_json::json!({"reason": "import", "operations": ops}).to_string(),
    );
    repo.mneme(&["propose", "--from-json", "ops.json"])
        .assert()
        .success();
    let text = repo.stdout(&["context"]);
    let line = text
        .lines()
        .find(|l| l.contains("Imported rule 0"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.chars().count() < 700,
        "{} characters: {line}",
        line.chars().count()
    );
    assert!(line.contains("and 48 more operation(s)"), "{line}");
    assert!(!text.contains("Imported rule 3:"), "{text}");
}
