//! Signed approvals: with `.ledger/allowed_signers`, `verify` accepts only decisions carrying a
//! good SSH signature by a key listed for their committer, read from the tip the range is merged
//! into.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::common::{json, Repo};

/// A new ed25519 key pair in the repository's git directory: (private key path, public line).
pub(crate) fn keygen(repo: &Repo, name: &str) -> Option<(PathBuf, String)> {
    let key = repo.file(&format!(".git/{name}-key"));
    let status = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
        .arg(&key)
        .status();
    match status {
        Ok(s) => assert!(s.success()),
        Err(_) => {
            crate::skips::skip("ssh-keygen", "signed decision commits");
            return None;
        }
    }
    let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    Some((key, public.trim().to_owned()))
}

pub(crate) fn sign_with(repo: &Repo, key: &std::path::Path) {
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingKey", key.to_str().unwrap()]);
    repo.git(&["config", "commit.gpgSign", "true"]);
}

/// Commits `.ledger/allowed_signers` holding `signers`: from here on decisions must be signed.
fn require_signers(repo: &Repo, signers: &str) {
    repo.write(".ledger/allowed_signers", signers);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "require signed decisions"]);
}

fn approve(repo: &Repo, text: &str) -> String {
    let id = repo.propose_add("pitfalls", text, &["--reason", "r"]);
    repo.approve(&id);
    repo.head()
}

fn verify(repo: &Repo, range: &str) -> (Option<i32>, Value) {
    let out = repo.mneme(&["verify", range, "--json"]).output().unwrap();
    (out.status.code(), json(&out))
}

/// The problems `verify` reports for `commit`.
fn problems(report: &Value, commit: &str) -> String {
    report["violations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["commit"] == commit)
        .map(|v| v["problems"].to_string())
        .collect()
}

/// A ledger without decision records (from before them): the signed decision commits are the
/// proof.
#[test]
fn only_decisions_signed_by_a_listed_key_pass() {
    let repo = Repo::committed();
    let Some((grace, grace_pub)) = keygen(&repo, "grace") else {
        return;
    };
    let (mallory, _) = keygen(&repo, "mallory").unwrap();
    repo.write(
        ".ledger/allowed_signers",
        &format!("# reviewers\nhuman@example.com {grace_pub}\n"),
    );
    let config = repo.read(".ledger/config.yaml");
    repo.write(
        ".ledger/config.yaml",
        &config.replace("decision_records: true", "decision_records: false"),
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "require signed decisions"]);
    let base = repo.head();

    // Signed by a listed key for the committer: passes.
    sign_with(&repo, &grace);
    let good = approve(&repo, "Signed facts are trusted.");
    let (code, report) = verify(&repo, &format!("{base}..HEAD"));
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(report["signatures"]["keys"], 1);
    assert_eq!(report["signatures"]["from"], base.as_str());
    assert_eq!(report["signatures"]["changed_in_range"], false);

    // Unsigned.
    repo.git(&["config", "commit.gpgSign", "false"]);
    let unsigned = approve(&repo, "Unsigned decisions fail.");
    // Signed by a key nobody listed.
    sign_with(&repo, &mallory);
    let foreign = approve(&repo, "Foreign keys fail.");
    // A listed key, but for another committer.
    sign_with(&repo, &grace);
    repo.git(&["config", "user.email", "other@example.com"]);
    let other = approve(&repo, "Keys belong to people.");
    repo.git(&["config", "user.email", "human@example.com"]);

    let (code, report) = verify(&repo, &format!("{base}..HEAD"));
    assert_eq!(code, Some(1));
    assert_eq!(problems(&report, &good), "");
    assert!(problems(&report, &unsigned).contains("decision commit: it is not signed"));
    let p = problems(&report, &foreign);
    assert!(
        p.contains("a key not in allowed_signers") && p.contains("SHA256:"),
        "{p}"
    );
    assert!(
        problems(&report, &other).contains("not for the committer other@example.com"),
        "{report:#}"
    );
    assert_eq!(report["violations"].as_array().unwrap().len(), 3);
    repo.mneme(&["verify", &format!("{base}..HEAD")])
        .assert()
        .code(1)
        .stdout(predicates::str::contains(
            "signed decisions required: 1 key(s)",
        ))
        .stdout(predicates::str::contains(&unsigned[..10]));

    // The same trailers and signature over a changed message: the signature no longer matches.
    let raw = repo.git(&["cat-file", "commit", &good]);
    let forged = raw.replace("Signed facts are trusted.", "Signed facts are trusted!");
    let out = Command::new("git")
        .args(["hash-object", "-t", "commit", "-w", "--stdin"])
        .current_dir(repo.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(forged.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    let forged_id = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    assert_ne!(forged_id, good);
    let (code, report) = verify(&repo, &format!("{base}..{forged_id}"));
    assert_eq!(code, Some(1));
    assert!(
        problems(&report, &forged_id).contains("does not match its content"),
        "{report:#}"
    );
}

#[test]
fn a_range_cannot_allow_its_own_keys() {
    let repo = Repo::committed();
    let Some((grace, grace_pub)) = keygen(&repo, "grace") else {
        return;
    };
    let (mallory, mallory_pub) = keygen(&repo, "mallory").unwrap();
    require_signers(&repo, &format!("human@example.com {grace_pub}\n"));
    let base = repo.head();
    // The branch lists Mallory's key and approves with it.
    repo.write(
        ".ledger/allowed_signers",
        &format!("human@example.com {grace_pub}\nhuman@example.com {mallory_pub}\n"),
    );
    repo.git(&["commit", "-q", "-am", "add a reviewer"]);
    sign_with(&repo, &mallory);
    let sneaky = approve(&repo, "Mallory approves herself.");
    let (code, report) = verify(&repo, &format!("{base}..HEAD"));
    assert_eq!(code, Some(1), "{report:#}");
    assert!(problems(&report, &sneaky).contains("not in allowed_signers"));
    assert_eq!(report["signatures"]["changed_in_range"], true);
    // Once the new key is on the base, it counts.
    let later = repo.head();
    sign_with(&repo, &grace);
    approve(&repo, "Grace still signs.");
    sign_with(&repo, &mallory);
    approve(&repo, "Mallory now signs too.");
    let (code, report) = verify(&repo, &format!("{later}..HEAD"));
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(report["signatures"]["keys"], 2);
}

#[test]
fn doctor_explains_how_to_sign() {
    let repo = Repo::committed();
    let doctor = |repo: &Repo| {
        let out = repo.mneme(&["doctor", "--json"]).output().unwrap();
        json(&out)
    };
    let signing = |d: &Value| -> Vec<String> {
        d["problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| {
                let what = p["what"].as_str().unwrap();
                what.contains("sign commits") || what.contains("signing key")
            })
            .map(|p| format!("{} | {}", p["what"], p["fix"]))
            .collect()
    };
    let d = doctor(&repo);
    assert!(signing(&d).is_empty());
    assert!(d["notes"]
        .to_string()
        .contains("approvals are not required to be signed"));

    let Some((grace, grace_pub)) = keygen(&repo, "grace") else {
        return;
    };
    let (mallory, _) = keygen(&repo, "mallory").unwrap();
    repo.write(
        ".ledger/allowed_signers",
        &format!("human@example.com {grace_pub}\nbroken line\n"),
    );
    let problems = signing(&doctor(&repo));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("has no SSH signing key to sign decision records with"),
        "{problems:?}"
    );
    assert!(problems[0].contains("git config gpg.format ssh"));
    assert!(doctor(&repo)["problems"]
        .to_string()
        .contains("line 2: not a public key"));

    sign_with(&repo, &mallory);
    let problems = signing(&doctor(&repo));
    assert!(
        problems
            .iter()
            .any(|p| p.contains("your signing key is not listed for human@example.com")),
        "{problems:?}"
    );
    sign_with(&repo, &grace);
    assert!(signing(&doctor(&repo)).is_empty());
    repo.mneme(&["doctor"])
        .assert()
        .stdout(predicates::str::contains("allowed_signers line 2"));
}

/// With decision records, each approval's record carries the reviewer's SSH signature: a
/// squash keeps the proof. A record signed by another key, a signature moved to another record,
/// or a reviewer who cannot sign, proves nothing.
#[test]
fn signed_records_prove_approvals_and_nothing_else() {
    let repo = Repo::committed();
    let Some((grace, grace_pub)) = keygen(&repo, "grace") else {
        return;
    };
    let (mallory, _) = keygen(&repo, "mallory").unwrap();
    require_signers(&repo, &format!("human@example.com {grace_pub}\n"));
    let base = repo.head();

    // No signing key: the approval is refused, nothing written.
    let id = repo.propose_add("pitfalls", "Unsigned.", &["--reason", "r"]);
    let before = repo.snapshot();
    let out = repo
        .mneme(&["review", "approve", &id, "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(crate::common::error_code(&out), "signing_failed");
    assert_eq!(repo.snapshot(), before);
    assert_eq!(repo.head(), base);
    repo.mneme(&["review", "reject", &id]).assert().code(1);

    // Grace signs her records; her commits are not signed.
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingKey", grace.to_str().unwrap()]);
    repo.approve(&id);
    let good = repo.git(&[
        "show",
        "--name-only",
        "--format=",
        "HEAD",
        "--",
        ".ledger/decisions",
    ]);
    let good = good.trim().to_owned();
    let (code, report) = verify(&repo, &format!("{base}..HEAD"));
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(report["state"]["unproven"], serde_json::json!([]));

    // Mallory's key is in nobody's list.
    repo.git(&["checkout", "-q", "-b", "mallory"]);
    repo.git(&["config", "user.signingKey", mallory.to_str().unwrap()]);
    let id = repo.propose_add("pitfalls", "Mallory's fact.", &["--reason", "r"]);
    repo.approve(&id);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--squash", "mallory"]);
    repo.git(&["commit", "-q", "-m", "Mallory (#9)"]);
    let (code, report) = verify(&repo, &format!("{base}..HEAD"));
    assert_eq!(code, Some(1), "{report:#}");
    let unproven = report["state"]["unproven"].to_string();
    assert!(
        unproven.contains("a key not in allowed_signers"),
        "{unproven}"
    );
    repo.git(&["reset", "-q", "--hard", "HEAD~1"]);

    // Grace's signature copied onto a record Mallory wrote.
    let grace_record: Value = serde_json::from_str(&repo.read(&good)).unwrap();
    repo.git(&["checkout", "-q", "mallory"]);
    let theirs = repo.git(&[
        "show",
        "--name-only",
        "--format=",
        "HEAD",
        "--",
        ".ledger/decisions",
    ]);
    let theirs = theirs.trim();
    let mut record: Value = serde_json::from_str(&repo.read(theirs)).unwrap();
    record["signature"] = grace_record["signature"].clone();
    repo.write(
        theirs,
        &(serde_json::to_string_pretty(&record).unwrap() + "\n"),
    );
    repo.git(&["commit", "-q", "-am", "borrow a signature"]);
    let (code, report) = verify(&repo, &format!("{base}..HEAD"));
    assert_eq!(code, Some(1), "{report:#}");
    let unproven = report["state"]["unproven"].to_string();
    assert!(
        unproven.contains("does not match its content"),
        "{unproven}"
    );
    repo.mneme(&["verify", &format!("{base}..HEAD")])
        .assert()
        .code(1)
        .stdout(predicates::str::contains("the approval does not count"));
    // In CI the forged record is annotated where it is.
    repo.mneme(&["verify", &format!("{base}..HEAD"), "--format", "github"])
        .assert()
        .code(1)
        .stdout(predicates::str::contains(format!(
            "::error file={theirs},title=mneme verify%3A decision record::the approval does not count: "
        )));
}

/// A signed ledger from before decision records migrates: each converted record names the
/// signed decision commit it came from, and that commit's signature proves it. A converted
/// record that names an unsigned commit, or says other than its commit did, proves nothing.
#[test]
fn migrated_records_are_proven_by_their_signed_decision_commits() {
    let repo = Repo::committed();
    let Some((grace, grace_pub)) = keygen(&repo, "grace") else {
        return;
    };
    let config = repo
        .read(".ledger/config.yaml")
        .replace("decision_records: true\n", "");
    repo.write(".ledger/config.yaml", &config);
    repo.write(
        ".ledger/allowed_signers",
        &format!("human@example.com {grace_pub}\n"),
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "a signed ledger from before records"]);
    sign_with(&repo, &grace);
    let signed = approve(&repo, "Signed before records (marker S).");
    // An approval whose commit nobody signed.
    repo.git(&["config", "commit.gpgSign", "false"]);
    let unsigned = approve(&repo, "Unsigned commit (marker U).");
    repo.git(&["rm", "-rq", ".ledger/decisions"]);
    repo.git(&["commit", "-qm", "before records existed"]);
    let base = repo.head();

    let m = repo.json(&["migrate", "--json"]);
    let written: Vec<String> = m["written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(written.len(), 2, "{m:#}");
    let of = |commit: &str| {
        written
            .iter()
            .find(|w| repo.read(w).contains(commit))
            .unwrap()
            .clone()
    };
    let (good, bad) = (of(&signed), of(&unsigned));
    assert!(!repo.read(&good).contains("signature"));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "ledger: decision records"]);
    let (code, report) = verify(&repo, &format!("{base}..HEAD"));
    assert_eq!(code, Some(1), "{report:#}");
    let unproven = report["state"]["unproven"].as_array().unwrap();
    assert_eq!(unproven.len(), 1, "{report:#}");
    assert_eq!(unproven[0]["file"], bad.as_str());
    assert!(
        unproven[0]["why"]
            .as_str()
            .unwrap()
            .contains("nor is its decision commit"),
        "{report:#}"
    );

    // The signed commit's record, claiming other facts: it is refused too.
    repo.git(&["reset", "-q", "--hard", &base]);
    repo.json(&["migrate", "--json"]);
    std::fs::remove_file(repo.file(&bad)).unwrap();
    let mut record: Value = serde_json::from_str(&repo.read(&good)).unwrap();
    record["facts"][0]["after"] = Value::from(format!("sha256:{}", "0".repeat(64)));
    let forged: mneme::model::provenance::record::Record = serde_json::from_value(record).unwrap();
    std::fs::remove_file(repo.file(&good)).unwrap();
    repo.write(
        &format!(".ledger/decisions/{}.json", forged.id()),
        &forged.render(),
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "ledger: decision records"]);
    let (code, report) = verify(&repo, &format!("{base}..HEAD"));
    assert_eq!(code, Some(1), "{report:#}");
    assert!(
        report["state"]["unproven"]
            .to_string()
            .contains("not what its decision commit"),
        "{report:#}"
    );
}

/// The keys that count are those of the branch a range is merged into, as it is now: a branch
/// forked before signing was required, or before a key was revoked, is held to them all the same.
#[test]
fn the_target_branch_keys_count_whenever_the_branch_forked() {
    let repo = Repo::committed();
    let Some((_, grace_pub)) = keygen(&repo, "grace") else {
        return;
    };
    let (mallory, mallory_pub) = keygen(&repo, "mallory").unwrap();
    let main = repo
        .git(&["rev-parse", "--abbrev-ref", "HEAD"])
        .trim()
        .to_owned();

    // Forked before signing was required: an unsigned approval on the branch.
    repo.git(&["checkout", "-q", "-b", "early"]);
    let unsigned = approve(&repo, "Approved before anyone signed.");
    repo.git(&["checkout", "-q", &main]);
    require_signers(&repo, &format!("human@example.com {grace_pub}\n"));
    let (code, report) = verify(&repo, &format!("{main}..early"));
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(report["signatures"]["from"], repo.head(), "{report:#}");
    assert!(!problems(&report, &unsigned).is_empty(), "{report:#}");

    // Forked while Mallory's key was listed; main revokes it before the branch is merged.
    require_signers(
        &repo,
        &format!("human@example.com {grace_pub}\nhuman@example.com {mallory_pub}\n"),
    );
    let fork = repo.head();
    repo.git(&["checkout", "-q", "-b", "late"]);
    sign_with(&repo, &mallory);
    approve(&repo, "Approved with a key revoked since.");
    repo.git(&["config", "--unset", "commit.gpgSign"]);
    repo.git(&["checkout", "-q", &main]);
    require_signers(&repo, &format!("human@example.com {grace_pub}\n"));
    let (code, report) = verify(&repo, &format!("{main}..late"));
    assert_eq!(code, Some(1), "a revoked key passed: {report:#}");
    // Against the fork, where the key was listed, the same approval holds.
    let (code, report) = verify(&repo, &format!("{fork}..late"));
    assert_eq!(code, Some(0), "{report:#}");
}

/// In a signed ledger, `check` and the agents' context hold each approval to a signature by a
/// key HEAD's `allowed_signers` lists: a fact whose record is unsigned or forged is an error for
/// `check` and `[unapproved]` for the agent. Checks are remembered by the record's bytes.
#[test]
fn check_and_context_see_unproven_records_in_a_signed_ledger() {
    let repo = Repo::committed();
    let Some((grace, grace_pub)) = keygen(&repo, "grace") else {
        return;
    };
    // An approval nobody signed (made before the ledger required it, or forged on a branch).
    let unsigned = repo.approve_new("pitfalls", "Approved without a signature.");
    require_signers(&repo, &format!("human@example.com {grace_pub}\n"));
    sign_with(&repo, &grace);
    let signed = repo.approve_new("pitfalls", "Approved and signed by Grace.");

    let context = repo.json(&["context", "--json"]);
    let flag = |id: &str| {
        context["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["facts"].as_array().unwrap())
            .find(|f| f["id"] == id)
            .map(|f| f["unapproved"].clone())
    };
    assert_eq!(flag(&unsigned), Some(Value::Bool(true)), "{context:#}");
    assert_eq!(flag(&signed), Some(Value::Bool(false)), "{context:#}");
    let findings = repo.findings();
    let codes: Vec<&str> = findings.iter().filter_map(|f| f["code"].as_str()).collect();
    assert!(codes.contains(&"invalid_record"), "{findings:#?}");
    assert!(codes.contains(&"not_as_decided"), "{findings:#?}");
    assert!(repo.file(".git/mneme-signatures.idx").exists());

    // A signature tampered with proves nothing, though the record keeps its id (the id leaves
    // the signature out) and Grace's check was remembered.
    let signed_record = std::fs::read_dir(repo.file(".ledger/decisions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("\"signature\"")
        })
        .expect("Grace's signed record");
    let text = std::fs::read_to_string(&signed_record).unwrap();
    let mut record: Value = serde_json::from_str(&text).unwrap();
    let armored = record["signature"].as_str().unwrap().to_owned();
    let at = armored.find("\n").unwrap() + 10;
    let flipped = if &armored[at..=at] == "A" { "B" } else { "A" };
    record["signature"] =
        Value::String(format!("{}{flipped}{}", &armored[..at], &armored[at + 1..]));
    std::fs::write(
        &signed_record,
        serde_json::to_string_pretty(&record).unwrap() + "\n",
    )
    .unwrap();
    let context = repo.json(&["context", "--json"]);
    let tampered = context["unapproved"].as_array().unwrap();
    assert!(
        tampered.contains(&Value::String(signed.clone())),
        "{context:#}"
    );
}
