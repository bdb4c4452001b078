//! The task index (`<git dir>/mneme-tasks.idx`): `context` keeps what it shows of the task files
//! with each file's status, as git's index does. Whatever happens to the files (a hand edit in
//! place, a checkout, a pull, another work tree, writers in parallel, a crash that left the index
//! half-written) `context` shows what the files say, and `list` gives the tasks they hold: each
//! case checks both against runs without an index.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{edit_in_place, json, settle, Repo};

const INDEX: &str = ".git/mneme-tasks.idx";

/// A task file's text, of a fixed length for a given title length.
fn task_text(id: &str, title: &str, status: &str) -> String {
    let mut text = serde_json::to_string_pretty(&json!({
        "id": id, "title": title, "description": "", "type": "task", "priority": 2,
        "status": status, "assignee": null, "labels": [], "deps": [], "notes": [],
        "created_at": "2026-11-22T10:00:00.000000Z", "updated_at": "2026-11-22T10:00:00.000000Z",
        "closed_at": null, "close_reason": null
    }))
    .unwrap();
    text.push('\n');
    text
}

/// Writes `count` tasks `t-i000`… (`open`), returning their ids.
fn seed(repo: &Repo, count: usize) -> Vec<String> {
    (0..count)
        .map(|i| {
            let id = format!("t-i{i:03}");
            repo.write(
                &format!(".ledger/tasks/{id}.json"),
                &task_text(&id, "Seeded", "open"),
            );
            id
        })
        .collect()
}

/// `context --json`'s tasks, run in `dir`. Before it, `list` meets the index in the same state,
/// and what it lists is checked against a `list` that has no index to go by.
fn tasks_in(repo: &Repo, dir: &Path) -> Value {
    let index = index_of(dir);
    let met = fs::read(&index).ok();
    let listed = listed_in(repo, dir);
    put_back(&index, met);
    let tasks = context_in(repo, dir);
    let left = fs::read(&index).ok();
    let _ = fs::remove_file(&index);
    assert_eq!(
        listed,
        listed_in(repo, dir),
        "list disagrees with the task files"
    );
    put_back(&index, left);
    tasks
}

/// `context --json`'s tasks, run in `dir`.
fn context_in(repo: &Repo, dir: &Path) -> Value {
    repo.json_in(dir, &["context", "--json"])["tasks"].clone()
}

/// The task index of the work tree `dir`.
fn index_of(dir: &Path) -> PathBuf {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--absolute-git-dir"])
        .current_dir(dir)
        .output()
        .unwrap();
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()).join("mneme-tasks.idx")
}

/// The index file as it was: `bytes`, or none.
fn put_back(index: &Path, bytes: Option<Vec<u8>>) {
    match bytes {
        Some(bytes) => fs::write(index, bytes).unwrap(),
        None => {
            let _ = fs::remove_file(index);
        }
    }
}

/// Every task, as `list --all --json` gives them in `dir`.
fn listed_in(repo: &Repo, dir: &Path) -> Value {
    repo.json_in(dir, &["list", "--all", "--json"])
}

/// What `context` shows in `dir` with the index as it is, checked against a run that has no
/// index to go by (`index` is that work tree's index file).
fn checked(repo: &Repo, dir: &Path, index: &Path) -> Value {
    let indexed = tasks_in(repo, dir);
    fs::remove_file(index).unwrap();
    let fresh = tasks_in(repo, dir);
    assert_eq!(indexed, fresh, "the index disagrees with the task files");
    assert!(index.exists(), "context writes the index");
    indexed
}

fn in_progress(tasks: &Value) -> Vec<&str> {
    tasks["in_progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect()
}

#[test]
fn a_hand_edit_in_place_is_seen_even_with_its_old_size_and_modification_time() {
    let repo = Repo::new();
    let ids = seed(&repo, 40);
    let index = repo.file(INDEX);
    settle();
    let before = checked(&repo, repo.path(), &index);
    assert_eq!(before["open"], 40);
    assert!(in_progress(&before).is_empty());

    // Same length, same inode, and the modification time put back: only the change time moved.
    let path = repo.file(&format!(".ledger/tasks/{}.json", ids[0]));
    let mtime = filetime::FileTime::from_last_modification_time(&fs::metadata(&path).unwrap());
    edit_in_place(&path, &task_text(&ids[0], "Edited", "open"));
    filetime::set_file_mtime(&path, mtime).unwrap();
    let after = tasks_in(&repo, repo.path());
    assert_eq!(after["ready"][0]["title"], "Edited");
    assert_eq!(checked(&repo, repo.path(), &index), after);

    // An edit right after the index was built, within one clock tick, with the same length.
    settle();
    tasks_in(&repo, repo.path());
    let claimed = task_text(&ids[8], "Seeded", "in_progress");
    let path = repo.file(&format!(".ledger/tasks/{}.json", ids[8]));
    edit_in_place(&path, &claimed);
    tasks_in(&repo, repo.path());
    edit_in_place(&path, &claimed.replace("Seeded", "Edited"));
    let tasks = tasks_in(&repo, repo.path());
    assert_eq!(tasks["in_progress"][0]["title"], "Edited");
    assert_eq!(checked(&repo, repo.path(), &index), tasks);
}

#[test]
fn checkouts_merges_and_pulls_that_bring_task_files_are_seen() {
    let repo = Repo::committed();
    let ids = seed(&repo, 30);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "tasks"]);
    let index = repo.file(INDEX);
    settle();
    assert!(in_progress(&checked(&repo, repo.path(), &index)).is_empty());

    // A branch where one task is in progress: same file names, same lengths as on main.
    repo.git(&["checkout", "-qb", "work"]);
    let text = task_text(&ids[3], "Seeded", "in_progress");
    repo.write(&format!(".ledger/tasks/{}.json", ids[3]), &text);
    repo.git(&["commit", "-qam", "claim"]);
    repo.git(&["checkout", "-q", "main"]);
    tasks_in(&repo, repo.path());
    for (branch, expected) in [("work", vec![ids[3].as_str()]), ("main", vec![])] {
        repo.git(&["checkout", "-q", branch]);
        assert_eq!(
            in_progress(&tasks_in(&repo, repo.path())),
            expected,
            "{branch}"
        );
    }

    // A merge that brings a new task and the claim.
    repo.git(&["checkout", "-qb", "more", "work"]);
    repo.write(
        ".ledger/tasks/t-new1.json",
        &task_text("t-new1", "Brought by a merge", "in_progress"),
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "more"]);
    repo.git(&["checkout", "-q", "main"]);
    tasks_in(&repo, repo.path());
    repo.git(&["merge", "-q", "--no-ff", "-m", "merge", "more"]);
    let merged = checked(&repo, repo.path(), &index);
    assert_eq!(in_progress(&merged), [ids[3].as_str(), "t-new1"]);

    // A pull from another clone that closed a task and added one.
    let remote = repo.path().with_extension("remote.git");
    let remote_path = remote.to_string_lossy().into_owned();
    repo.git(&["clone", "-q", "--bare", ".", &remote_path]);
    repo.git(&["remote", "add", "origin", &remote_path]);
    repo.git(&["fetch", "-q", "origin"]);
    repo.git(&["branch", "-q", "--set-upstream-to", "origin/main"]);
    let clone = repo.path().with_extension("clone");
    let clone_path = clone.to_string_lossy().into_owned();
    repo.git(&["clone", "-q", &remote_path, &clone_path]);
    let close = task_text("t-new1", "Brought by a merge", "closed");
    fs::write(clone.join(".ledger/tasks/t-new1.json"), close).unwrap();
    let added = task_text("t-pul1", "Pulled", "in_progress");
    fs::write(clone.join(".ledger/tasks/t-pul1.json"), added).unwrap();
    for args in [
        &["add", "-A"][..],
        &[
            "-c",
            "user.name=Other",
            "-c",
            "user.email=o@example.com",
            "commit",
            "-qm",
            "x",
        ],
        &["push", "-q", "origin", "HEAD:main"],
    ] {
        let status = std::process::Command::new("git")
            .current_dir(&clone)
            .args(args)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }
    tasks_in(&repo, repo.path());
    repo.git(&["pull", "-q", "--no-rebase"]);
    let pulled = checked(&repo, repo.path(), &index);
    assert_eq!(in_progress(&pulled), [ids[3].as_str(), "t-pul1"]);
    for dir in [remote, clone] {
        fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn each_work_tree_keeps_its_own_index() {
    let repo = Repo::committed();
    let ids = seed(&repo, 20);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "tasks"]);
    let other = repo.path().with_extension("wt");
    let other_path = other.to_string_lossy().into_owned();
    repo.git(&["worktree", "add", "-q", "-b", "other", &other_path]);
    let name = other.file_name().unwrap().to_string_lossy().into_owned();
    let other_index = repo.file(&format!(".git/worktrees/{name}/mneme-tasks.idx"));
    let index = repo.file(INDEX);
    let claim = |dir: &Path, id: &str| {
        let path = dir.join(format!(".ledger/tasks/{id}.json"));
        fs::write(path, task_text(id, "Seeded", "in_progress")).unwrap();
    };
    claim(repo.path(), &ids[1]);
    claim(&other, &ids[2]);
    settle();
    for _ in 0..2 {
        assert_eq!(
            in_progress(&tasks_in(&repo, repo.path())),
            [ids[1].as_str()]
        );
        assert_eq!(in_progress(&tasks_in(&repo, &other)), [ids[2].as_str()]);
    }
    assert!(index.exists() && other_index.exists());
    // An index copied from the other work tree describes other files: it is not believed.
    fs::copy(&other_index, &index).unwrap();
    assert_eq!(
        in_progress(&checked(&repo, repo.path(), &index)),
        [ids[1].as_str()]
    );
    assert_eq!(
        in_progress(&checked(&repo, &other, &other_index)),
        [ids[2].as_str()]
    );
    repo.git(&["worktree", "remove", "--force", &other_path]);
}

#[test]
fn writers_in_parallel_never_leave_an_index_that_disagrees_with_the_files() {
    let repo = Repo::new();
    let ids = seed(&repo, 60);
    let index = repo.file(INDEX);
    // Indexed long enough before the writers start that the index trusts every file it has.
    settle();
    tasks_in(&repo, repo.path());
    std::thread::scope(|scope| {
        // Four writers, each working through its own tasks, and four readers rebuilding and
        // replacing the index all the while.
        for w in 0..4 {
            let (repo, ids) = (&repo, &ids);
            scope.spawn(move || {
                for (n, id) in ids.iter().skip(w).step_by(4).take(6).enumerate() {
                    let args: &[&str] = match n % 3 {
                        0 => &["update", id, "--claim", "--agent", "writer"],
                        1 => &["update", id, "--notes", "a note"],
                        _ => &["close", id, "--reason", "done"],
                    };
                    repo.mneme(args).assert().success();
                }
                repo.mneme(&["create", "Made while others read"])
                    .assert()
                    .success();
            });
        }
        for r in 0..4 {
            let repo = &repo;
            scope.spawn(move || {
                for n in 0..8 {
                    if (r + n) % 2 == 0 {
                        context_in(repo, repo.path());
                    } else {
                        listed_in(repo, repo.path());
                    }
                }
            });
        }
    });
    // Then writers alone, on tasks the index has trusted since the start, and past the clock
    // tick of their writes: the index the readers left is taken at its word where keys match.
    std::thread::scope(|scope| {
        for id in &ids[50..54] {
            let repo = &repo;
            scope.spawn(move || {
                let args = ["update", id, "--claim", "--agent", "late"];
                repo.mneme(&args).assert().success();
            });
        }
    });
    settle();
    let end = checked(&repo, repo.path(), &index);
    assert_eq!(end["open"], 64 - 8, "{end}");
    // Two claims by each writer, and the four late ones.
    assert_eq!(end["in_progress_total"], 8 + 4, "{end}");
    settle();
    tasks_in(&repo, repo.path());
    assert_eq!(checked(&repo, repo.path(), &index), end);
}

#[test]
fn a_half_written_or_damaged_index_is_never_believed() {
    let repo = Repo::new();
    let ids = seed(&repo, 25);
    let index = repo.file(INDEX);
    settle();
    tasks_in(&repo, repo.path());
    let whole = fs::read(&index).unwrap();
    // Every cut of the index, and a flipped byte anywhere, with a task changed meanwhile so
    // that an index taken at its word would show the old state.
    let path = repo.file(&format!(".ledger/tasks/{}.json", ids[0]));
    let cuts: Vec<usize> = (0..whole.len()).step_by(whole.len() / 40 + 1).collect();
    for (n, cut) in cuts.into_iter().enumerate() {
        let status = if n % 2 == 0 { "in_progress" } else { "open" };
        edit_in_place(&path, &task_text(&ids[0], "Seeded", status));
        let mut damaged = whole.clone();
        if n % 3 == 0 {
            damaged.truncate(cut);
        } else {
            damaged[cut] ^= 0x20;
        }
        fs::write(&index, &damaged).unwrap();
        let shown = in_progress(&checked(&repo, repo.path(), &index)).len();
        assert_eq!(shown, usize::from(status == "in_progress"), "at byte {cut}");
    }
    // A run that died while writing leaves its temporary file beside the index: harmless.
    fs::write(
        repo.file(".git/.mneme-crashed.tmp"),
        &whole[..whole.len() / 2],
    )
    .unwrap();
    fs::write(&index, &whole[..whole.len() / 2]).unwrap();
    assert_eq!(checked(&repo, repo.path(), &index)["open"], 25);
}

#[test]
fn unreadable_and_broken_task_files_are_reported_from_the_index_too() {
    let repo = Repo::new();
    seed(&repo, 5);
    repo.write(".ledger/tasks/t-bad1.json", "{ not json");
    settle();
    for _ in 0..2 {
        let out = repo.mneme(&["context"]).output().unwrap();
        assert!(out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("skipping .ledger/tasks/t-bad1.json"),
            "{stderr}"
        );
    }
    let fixed = task_text("t-bad1", "Fixed", "in_progress");
    let path: PathBuf = repo.file(".ledger/tasks/t-bad1.json");
    edit_in_place(&path, &fixed);
    let out = repo.mneme(&["context", "--json"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).is_empty());
    assert_eq!(in_progress(&json(&out)["tasks"]), ["t-bad1"]);
}
