//! The queue index: `propose` and `context` keep what they need of the review queue in the git
//! directory, and follow every change to the proposals directory.

use std::path::Path;

use crate::common::{error_code, json, Repo};

const INDEX: &str = ".git/mneme-queue.idx";

/// The id of a proposal adding `text`, which must be accepted.
fn added(repo: &Repo, text: &str) -> String {
    repo.propose_add("pitfalls", text, &["--reason", "r"])
}

fn add(repo: &Repo, text: &str) -> std::process::Output {
    repo.mneme(&[
        "propose", "--json", "add", "-f", "pitfalls", text, "--reason", "r",
    ])
    .output()
    .unwrap()
}

/// Dates the proposals directory a day back, so the index may trust it unchanged.
fn settle(repo: &Repo) {
    let out = std::process::Command::new("touch")
        .args(["-d", "1 day ago"])
        .arg(repo.file(".ledger/proposals"))
        .output()
        .unwrap();
    assert!(out.status.success());
}

fn context(repo: &Repo) -> serde_json::Value {
    json(&repo.mneme(&["context", "--json"]).output().unwrap())
}

/// A copy of the proposal file `from` as a new proposal `id` proposing `text`, written the way
/// a checkout or a hand copy writes it.
fn copy_as(repo: &Repo, from: &str, id: &str, text: &str) {
    let mut p: serde_json::Value =
        serde_json::from_str(&repo.read(&format!(".ledger/proposals/{from}.json"))).unwrap();
    p["id"] = id.into();
    p["operations"][0]["text"] = text.into();
    p["operations"][0]["fact_id"] = "f-copy1".into();
    repo.write(
        &format!(".ledger/proposals/{id}.json"),
        &serde_json::to_string_pretty(&p).unwrap(),
    );
}

#[test]
fn the_index_follows_files_added_and_removed_behind_its_back() {
    let repo = Repo::new();
    let first = added(&repo, "Never block the executor.");
    settle(&repo);
    assert_eq!(context(&repo)["proposals"]["count"], 1);
    assert!(repo.file(INDEX).is_file(), "context keeps the index");
    // Trusted as it is now: the directory did not change since.
    assert_eq!(context(&repo)["proposals"]["count"], 1);

    copy_as(
        &repo,
        &first,
        "20261122T100000Z-0000c0de",
        "Retry idempotent calls only.",
    );
    assert_eq!(context(&repo)["proposals"]["count"], 2);
    let dup = add(&repo, "retry idempotent calls ONLY");
    assert_eq!(error_code(&dup), "duplicate_proposal", "{dup:?}");

    settle(&repo);
    std::fs::remove_file(repo.file(".ledger/proposals/20261122T100000Z-0000c0de.json")).unwrap();
    assert_eq!(context(&repo)["proposals"]["count"], 1);
    assert!(add(&repo, "Retry idempotent calls only.").status.success());
}

#[test]
fn an_edit_in_place_is_seen_after_check() {
    let repo = Repo::new();
    let id = added(&repo, "Never block the executor.");
    settle(&repo);
    assert_eq!(context(&repo)["proposals"]["count"], 1);
    // Rewrite the file in place (same inode, directory untouched), as some editors save.
    let rel = format!(".ledger/proposals/{id}.json");
    let edited = repo
        .read(&rel)
        .replace("Never block the executor.", "Pin the toolchain.");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(repo.file(&rel))
        .unwrap();
    std::io::Write::write_all(&mut f, edited.as_bytes()).unwrap();
    drop(f);
    settle(&repo);
    repo.mneme(&["check"]).assert().success();
    assert_eq!(
        error_code(&add(&repo, "Pin the toolchain")),
        "duplicate_proposal"
    );
    assert!(add(&repo, "Never block the executor.").status.success());
}

#[test]
fn a_damaged_or_foreign_index_is_rebuilt() {
    let repo = Repo::new();
    assert!(add(&repo, "Never block the executor.").status.success());
    settle(&repo);
    assert_eq!(context(&repo)["proposals"]["count"], 1);
    let good = std::fs::read(repo.file(INDEX)).unwrap();
    for damaged in [
        b"garbage".to_vec(),
        good[..good.len() / 2].to_vec(),
        Vec::new(),
        // One flipped byte in the middle: the checksum no longer matches.
        {
            let mut b = good.clone();
            let mid = b.len() / 2;
            b[mid] ^= 0x55;
            b
        },
    ] {
        std::fs::write(repo.file(INDEX), &damaged).unwrap();
        // A refused proposal rebuilds it too: the next run need not read the files again.
        let dup = add(&repo, "never block the executor");
        assert_eq!(error_code(&dup), "duplicate_proposal");
        let rebuilt = std::fs::read(repo.file(INDEX)).unwrap();
        assert!(rebuilt.starts_with(b"mneme-queue\n"));
        assert_eq!(rebuilt.len(), good.len(), "the same entries again");
        assert_eq!(context(&repo)["proposals"]["count"], 1);
    }
}

#[test]
fn validity_follows_the_limits_not_the_index() {
    let repo = Repo::new();
    let first = added(&repo, "Never block the executor.");
    // A proposal for a fact file the ledger does not have yet is invalid.
    let mut p: serde_json::Value =
        serde_json::from_str(&repo.read(&format!(".ledger/proposals/{first}.json"))).unwrap();
    p["id"] = "20261122T100000Z-0000beef".into();
    p["operations"][0]["file"] = "runbooks.md".into();
    p["operations"][0]["text"] = "Page the on-call first.".into();
    p["base"] = serde_json::json!({});
    repo.write(
        ".ledger/proposals/20261122T100000Z-0000beef.json",
        &serde_json::to_string_pretty(&p).unwrap(),
    );
    settle(&repo);
    let c = context(&repo);
    assert_eq!(
        (
            c["proposals"]["count"].clone(),
            c["proposals"]["invalid"].clone()
        ),
        (1.into(), 1.into())
    );
    repo.write(".ledger/facts/runbooks.md", "# Runbooks\n");
    let c = context(&repo);
    assert_eq!(
        (
            c["proposals"]["count"].clone(),
            c["proposals"]["invalid"].clone()
        ),
        (2.into(), 0.into())
    );
}

#[test]
fn context_lists_the_newest_proposals_and_counts_the_rest() {
    let repo = Repo::new();
    for i in 0..23 {
        assert!(
            add(&repo, &format!("Statement {i} about part {}.", i * 7919))
                .status
                .success()
        );
    }
    let c = context(&repo);
    let items = c["proposals"]["items"].as_array().unwrap();
    assert_eq!(c["proposals"]["count"], 23);
    assert_eq!(items.len(), 20);
    let first_op = items[0]["operations"][0].as_str().unwrap();
    assert!(
        first_op.ends_with("Statement 22 about part 174218."),
        "{first_op}"
    );
    let text = repo.stdout(&["context"]);
    assert!(text.contains("## Pending proposals (23)"), "{text}");
    assert!(
        text.contains("3 more pending proposal(s): `mneme review list`"),
        "{text}"
    );
    assert!(!text.contains("Statement 2 about"), "{text}");
}

#[test]
fn an_unwritable_git_directory_costs_only_time() {
    let repo = Repo::new();
    std::fs::create_dir(repo.file(INDEX)).unwrap();
    assert!(add(&repo, "Never block the executor.").status.success());
    assert_eq!(context(&repo)["proposals"]["count"], 1);
    assert_eq!(
        error_code(&add(&repo, "Never block the executor!")),
        "duplicate_proposal"
    );
    assert!(Path::new(&repo.file(INDEX)).is_dir());
}

#[test]
fn a_proposal_does_not_rewrite_an_index_that_lacks_only_a_few_files() {
    let repo = Repo::new();
    let first = added(&repo, "Never block the executor.");
    settle(&repo);
    assert_eq!(context(&repo)["proposals"]["count"], 1);
    let before = std::fs::read(repo.file(INDEX)).unwrap();
    copy_as(
        &repo,
        &first,
        "20261122T100000Z-0000c0de",
        "Retry idempotent calls only.",
    );
    settle(&repo);
    // It reads the one file the index lacks, and its own file leaves the index stale anyway.
    let dup = add(&repo, "retry idempotent calls ONLY");
    assert_eq!(error_code(&dup), "duplicate_proposal", "{dup:?}");
    let rebuilt = std::fs::read(repo.file(INDEX)).unwrap();
    assert_ne!(
        rebuilt, before,
        "a refused request leaves the directory as it was: rewritten"
    );
    copy_as(
        &repo,
        &first,
        "20261122T100001Z-0000beef",
        "Pin the toolchain.",
    );
    settle(&repo);
    added(&repo, "Log every retry.");
    assert_eq!(std::fs::read(repo.file(INDEX)).unwrap(), rebuilt);
    // The next reader sees all four and, the directory now quiet, rewrites the index.
    settle(&repo);
    assert_eq!(context(&repo)["proposals"]["count"], 4);
    assert!(std::fs::read(repo.file(INDEX)).unwrap().len() > rebuilt.len());
    let dup = add(&repo, "pin the toolchain");
    assert_eq!(error_code(&dup), "duplicate_proposal", "{dup:?}");
}

/// The proposals `context` lists, as it finds them with the queue index and without it. Ages
/// are left out: a second may pass between the two runs.
fn listed_with_and_without_index(repo: &Repo) -> (serde_json::Value, serde_json::Value) {
    let with = ageless(context(repo)["proposals"].clone());
    std::fs::remove_file(repo.file(INDEX)).unwrap();
    let without = ageless(context(repo)["proposals"].clone());
    (with, without)
}

/// `proposals` as `context --json` lists them, without each one's age.
fn ageless(mut proposals: serde_json::Value) -> serde_json::Value {
    for item in proposals["items"].as_array_mut().unwrap() {
        item.as_object_mut().unwrap().remove("age");
    }
    proposals
}

#[test]
fn context_shows_the_newest_proposals_from_the_index_as_their_files_say() {
    let repo = Repo::new();
    let mut ids = Vec::new();
    for i in 0..22 {
        let reason = format!("reason {i}: 漢字 🦀");
        let agent = format!("agent-{i}");
        let text = format!("Statement {i} about part {}.", i * 7919);
        ids.push(repo.propose_add("pitfalls", &text, &["--reason", &reason, "--agent", &agent]));
    }
    settle(&repo);
    // Kept with their lines, then read from the index alone while it is current.
    let (with, without) = listed_with_and_without_index(&repo);
    assert_eq!(with, without);
    settle(&repo);
    context(&repo);
    assert_eq!(ageless(context(&repo)["proposals"].clone()), without);
    let items = without["items"].as_array().unwrap();
    assert_eq!(items[0]["reason"], "reason 21: 漢字 🦀");
    assert_eq!(items[0]["agent"], "agent-21");

    // A proposal added behind the index's back, then the newest one removed.
    copy_as(
        &repo,
        &ids[0],
        "20991122T100000Z-0000c0de",
        "Pin the toolchain.",
    );
    let (with, without) = listed_with_and_without_index(&repo);
    assert_eq!(with, without);
    assert_eq!(with["count"], 23);
    context(&repo);
    settle(&repo);
    let newest = ids.last().unwrap();
    std::fs::remove_file(repo.file(&format!(".ledger/proposals/{newest}.json"))).unwrap();
    let (with, without) = listed_with_and_without_index(&repo);
    assert_eq!(with, without);
    assert_eq!(with["items"][0]["reason"], "reason 20: 漢字 🦀");

    // Read from the index alone while it is current: an edit in place (same inode, directory
    // untouched) shows after `check`, as the index's other contents do.
    settle(&repo);
    context(&repo);
    let rel = format!(".ledger/proposals/{}.json", ids[20]);
    edit_in_place(&repo, &rel, "reason 20:", "reason twenty:");
    settle(&repo);
    assert_eq!(
        context(&repo)["proposals"]["items"][0]["reason"],
        "reason 20: 漢字 🦀"
    );
    repo.mneme(&["check"]).assert().success();
    assert_eq!(
        context(&repo)["proposals"]["items"][0]["reason"],
        "reason twenty: 漢字 🦀"
    );
}

/// Rewrites the proposal file `rel` in place (same inode, directory untouched), as some editors
/// save, replacing `from` with `to`.
fn edit_in_place(repo: &Repo, rel: &str, from: &str, to: &str) {
    crate::common::edit_in_place(&repo.file(rel), &repo.read(rel).replace(from, to));
}

#[test]
fn an_index_rewritten_after_a_removal_keeps_every_newest_line() {
    let repo = Repo::new();
    let ids: Vec<String> = (0..22)
        .map(|i| {
            let reason = format!("reason {i}");
            let text = format!("Statement {i} about part {}.", i * 7919);
            repo.propose_add("pitfalls", &text, &["--reason", &reason])
        })
        .collect();
    settle(&repo);
    context(&repo);
    // The newest goes: the next one in is a proposal the old summary had no line for.
    std::fs::remove_file(repo.file(&format!(".ledger/proposals/{}.json", ids[21]))).unwrap();
    settle(&repo);
    assert_eq!(
        context(&repo)["proposals"]["items"][0]["reason"],
        "reason 20"
    );
    // Read from the index alone from now on: an edit in place shows only after `check`.
    let rel = format!(".ledger/proposals/{}.json", ids[2]);
    edit_in_place(&repo, &rel, "reason 2\"", "reason two\"");
    settle(&repo);
    let items = context(&repo)["proposals"]["items"].clone();
    assert_eq!(items[18]["reason"], "reason 2", "{items}");
    repo.mneme(&["check"]).assert().success();
    let items = context(&repo)["proposals"]["items"].clone();
    assert_eq!(items[18]["reason"], "reason two", "{items}");
}

#[test]
fn reasons_too_long_for_the_summary_are_read_from_their_files() {
    let repo = Repo::new();
    // Twenty reasons of 4,000 four-byte characters: far more than a summary may hold.
    let reason = "🦀".repeat(4000);
    for i in 0..20 {
        let text = format!("Statement {i} about part {}.", i * 7919);
        repo.propose_add("pitfalls", &text, &["--reason", &reason]);
    }
    settle(&repo);
    let (with, without) = listed_with_and_without_index(&repo);
    // Not `assert_eq!`: it would print hundreds of kilobytes of crabs.
    assert!(with == without, "the index changed what context shows");
    settle(&repo);
    let items = context(&repo)["proposals"]["items"].clone();
    assert_eq!(items.as_array().unwrap().len(), 20);
    assert!(items[0]["reason"] == reason.as_str());
    assert!(ageless(context(&repo)["proposals"].clone()) == without);
}
