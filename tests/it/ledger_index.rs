//! The ledger indexes (`<git dir>/mneme-ledger.idx`, each fact file's SHA-256, and
//! `mneme-facts.idx`, the words of each fact) are kept with each fact file's status, as git's
//! index does. Whatever happens to the fact files (a hand edit in place that keeps size and
//! modification time, an edit within one clock tick of the index, a checkout, damage to the
//! index) a proposal is planned against what the files say: duplicates are refused by their
//! current text, and the base a proposal records is the hash of the file as it is.

use std::fs;
use std::path::Path;
use std::time::Duration;

use mneme::model::base::ids::sha256_hex;
use serde_json::Value;

use crate::common::{edit_in_place, json, settle, succeeded, Repo};

const HASHES: &str = ".git/mneme-ledger.idx";
const FACTS: &str = ".git/mneme-facts.idx";

/// Two statements of one length: either can replace the other in place.
const FIRST: &str = "Caches are keyed by the content hash of the source.";
const SECOND: &str = "Workers drain the queue before the process exits.";

/// A ledger whose `pitfalls.md` holds `f-aaaa` with `text` and `f-bbbb`, committed.
fn ledger(text: &str) -> Repo {
    let repo = Repo::committed();
    repo.seed_facts(
        "pitfalls",
        &[
            ("f-aaaa", text),
            ("f-bbbb", "Retries back off exponentially."),
        ],
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "facts"]);
    repo
}

/// Rewrites `path` in place (same inode, same length) and puts its modification time back: only
/// its change time tells it was written.
fn edit_keeping_time(path: &Path, text: &str) {
    let mtime = filetime::FileTime::from_last_modification_time(&fs::metadata(path).unwrap());
    edit_in_place(path, text);
    filetime::set_file_mtime(path, mtime).unwrap();
}

/// What `propose add` of `text` to pitfalls says: the JSON of the proposal, or the error code.
fn propose(repo: &Repo, text: &str) -> Result<Value, String> {
    let out = repo
        .mneme(&[
            "propose", "add", "--file", "pitfalls", text, "--reason", "r", "--json",
        ])
        .output()
        .unwrap();
    if out.status.success() {
        Ok(json(&out))
    } else {
        Err(crate::common::error_code(&out))
    }
}

/// The base hash of `pitfalls.md` the proposal `json` recorded, the proposal withdrawn (so the
/// same text can be proposed again).
fn base_of(repo: &Repo, json: &Value) -> String {
    let path = repo.file(json["path"].as_str().unwrap());
    let proposal: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    fs::remove_file(path).unwrap();
    proposal["base"]["pitfalls.md"].as_str().unwrap().to_owned()
}

/// Checks that a proposal is planned against the fact file as it now is, holding `now` where it
/// held `gone`: `now` is refused as a duplicate, `gone` is proposed, and the proposal's base is
/// the file's hash.
fn read_as_it_is(repo: &Repo, gone: &str, now: &str, case: &str) {
    assert_eq!(propose(repo, now).unwrap_err(), "duplicate_fact", "{case}");
    let proposed = propose(repo, gone).unwrap_or_else(|e| panic!("{case}: {e}"));
    let file = fs::read(repo.file(".ledger/facts/pitfalls.md")).unwrap();
    assert_eq!(base_of(repo, &proposed), sha256_hex(&file), "{case}");
}

/// Swaps `from` for `to` in the fact file, keeping its size and modification time.
fn swap_statement(repo: &Repo, from: &str, to: &str) {
    let path = repo.file(".ledger/facts/pitfalls.md");
    let text = fs::read_to_string(&path).unwrap().replace(from, to);
    edit_keeping_time(&path, &text);
}

#[test]
fn a_fact_file_edited_in_place_with_its_old_size_and_time_is_read_as_it_now_is() {
    let repo = ledger(FIRST);
    settle();
    assert_eq!(propose(&repo, FIRST).unwrap_err(), "duplicate_fact");
    assert!(repo.file(HASHES).exists() && repo.file(FACTS).exists());
    propose(&repo, "Anything new, so the indexes are used.").unwrap();

    swap_statement(&repo, FIRST, SECOND);
    read_as_it_is(&repo, FIRST, SECOND, "edited in place");
}

/// Two statements of one length, for a second fact file.
const THIRD: &str = "Every migration runs inside one transaction.";
const FOURTH: &str = "No handler may block on the network thread.";

#[test]
fn a_fact_file_a_proposal_does_not_touch_is_read_as_it_now_is() {
    // A run whose indexes describe every file parses only the files its questions reach; one
    // edited in place, keeping size and time, is no longer described and is read again.
    let repo = ledger(FIRST);
    repo.seed_facts("architecture", &[("f-cccc", THIRD)]);
    settle();
    propose(&repo, "Builds the indexes.").unwrap();
    assert_eq!(propose(&repo, THIRD).unwrap_err(), "duplicate_fact");
    let similar = propose(&repo, &format!("{THIRD} Always.")).unwrap();
    assert_eq!(similar["similar"][0]["fact_id"], "f-cccc", "{similar}");
    assert_eq!(similar["similar"][0]["text"], THIRD, "{similar}");

    let architecture = repo.file(".ledger/facts/architecture.md");
    let text = fs::read_to_string(&architecture).unwrap();
    edit_keeping_time(&architecture, &text.replace(THIRD, FOURTH));
    assert_eq!(propose(&repo, FOURTH).unwrap_err(), "duplicate_fact");
    let similar = propose(&repo, &format!("{FOURTH} Ever.")).unwrap();
    assert_eq!(similar["similar"][0]["text"], FOURTH, "{similar}");
    propose(&repo, THIRD).unwrap();

    // An update of its fact is based on the file as it now is.
    let out = repo
        .mneme(&[
            "propose",
            "update",
            "f-cccc",
            "Migrations run one at a time.",
            "--reason",
            "r",
            "--json",
        ])
        .output()
        .unwrap();
    let path = repo.file(json(&succeeded(out))["path"].as_str().unwrap());
    let proposal: Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    let file = fs::read(&architecture).unwrap();
    assert_eq!(proposal["base"]["architecture.md"], sha256_hex(&file));
}

#[test]
fn an_edit_within_one_clock_tick_of_the_index_is_read_as_it_now_is() {
    let repo = ledger(FIRST);
    // No pause anywhere: each edit lands within the tick of the run before it.
    for (i, (from, to)) in [(FIRST, SECOND), (SECOND, FIRST), (FIRST, SECOND)]
        .into_iter()
        .enumerate()
    {
        propose(&repo, &format!("Something new, {i}")).unwrap();
        swap_statement(&repo, from, to);
        read_as_it_is(&repo, from, to, &format!("edit {i}"));
    }
}

#[test]
fn a_checkout_that_swaps_a_fact_file_of_the_same_size_is_read_as_it_now_is() {
    let repo = ledger(FIRST);
    repo.git(&["checkout", "-qb", "other"]);
    swap_statement(&repo, FIRST, SECOND);
    repo.git(&["commit", "-qam", "other"]);
    repo.git(&["checkout", "-q", "main"]);
    for (branch, here, gone) in [("other", SECOND, FIRST), ("main", FIRST, SECOND)] {
        settle();
        propose(&repo, &format!("Something new on {branch}")).unwrap();
        repo.git(&["checkout", "-q", branch]);
        read_as_it_is(&repo, gone, here, branch);
    }
}

#[test]
fn a_damaged_or_foreign_index_is_replaced_and_never_believed() {
    let repo = ledger(FIRST);
    settle();
    propose(&repo, "Builds the indexes.").unwrap();
    let hashes = fs::read(repo.file(HASHES)).unwrap();
    let facts = fs::read(repo.file(FACTS)).unwrap();
    let damaged: Vec<(Vec<u8>, Vec<u8>)> = vec![
        (Vec::new(), Vec::new()),
        (b"garbage".to_vec(), vec![0xff; 4096]),
        // Truncated, as a crash mid-write would leave them.
        (
            hashes[..hashes.len() / 2].to_vec(),
            facts[..facts.len() / 2].to_vec(),
        ),
        // Each in the other's place.
        (facts.clone(), hashes.clone()),
        // One byte changed.
        (
            flip(&hashes, hashes.len() - 20),
            flip(&facts, facts.len() / 2),
        ),
    ];
    for (i, (h, f)) in damaged.into_iter().enumerate() {
        let (from, to) = if i % 2 == 0 {
            (FIRST, SECOND)
        } else {
            (SECOND, FIRST)
        };
        swap_statement(&repo, from, to);
        fs::write(repo.file(HASHES), h).unwrap();
        fs::write(repo.file(FACTS), f).unwrap();
        read_as_it_is(&repo, from, to, &format!("case {i}"));
        for index in [HASHES, FACTS] {
            let kept = fs::read(repo.file(index)).unwrap();
            assert!(kept.starts_with(b"mneme-"), "case {i}: {index} replaced");
        }
    }
}

/// `bytes` with the byte at `at` changed.
fn flip(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at] ^= 0x55;
    out
}

#[test]
fn an_index_that_cannot_be_written_costs_nothing_but_time() {
    let repo = ledger(FIRST);
    fs::create_dir(repo.file(HASHES)).unwrap();
    fs::create_dir(repo.file(FACTS)).unwrap();
    assert_eq!(propose(&repo, FIRST).unwrap_err(), "duplicate_fact");
    propose(&repo, SECOND).unwrap();
    repo.mneme(&["context"]).assert().success();
    assert!(repo.file(HASHES).is_dir() && repo.file(FACTS).is_dir());
}

#[test]
fn an_index_that_is_a_fifo_or_a_link_to_an_endless_device_is_replaced_unread() {
    let repo = ledger(FIRST);
    let fifo = std::process::Command::new("mkfifo")
        .arg(repo.file(FACTS))
        .status()
        .unwrap();
    assert!(fifo.success());
    std::os::unix::fs::symlink("/dev/zero", repo.file(HASHES)).unwrap();
    // A read of either would block or never end: the run would time out.
    succeeded(
        repo.mneme(&[
            "propose", "add", "--file", "pitfalls", SECOND, "--reason", "r",
        ])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap(),
    );
    assert_eq!(propose(&repo, FIRST).unwrap_err(), "duplicate_fact");
    for index in [HASHES, FACTS] {
        let meta = fs::symlink_metadata(repo.file(index)).unwrap();
        assert!(meta.is_file(), "{index} replaced by a regular file");
    }
}
