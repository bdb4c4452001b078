//! What a remote claim costs: `update --claim` with `claims_remote` set, against `git daemon` on
//! 127.0.0.1 and over file://, beside a local claim and beside the push it is made of (`git push`
//! of one new ref, the round-trip floor). Then 16 claimers racing for one task from 4 clones.
//! Then `ready` (outside its fetch reuse) in a clone that fetched 50,000 claims, with the claim
//! refs as mneme keeps them (packed) and as they were loose, one file each.
//!
//!   cargo bench --bench claims

// A benchmark reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod common;

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{git, git_text, mneme, release_binary, report};

const TASKS: usize = 16;
const ROUNDS: usize = 5;

/// `git daemon` serving `base`, pushes enabled, on a free port; killed on drop.
struct Daemon(Child, u16);

impl Daemon {
    fn start(base: &Path) -> Daemon {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("git")
            .args([
                "daemon",
                "--reuseaddr",
                "--export-all",
                "--enable=receive-pack",
                "--listen=127.0.0.1",
                &format!("--port={port}"),
                &format!("--base-path={}", base.display()),
            ])
            .arg(base)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("git daemon");
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            std::thread::sleep(Duration::from_millis(10));
        }
        Daemon(child, port)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A clone of `url` with mneme's config, in a new directory under `base`.
fn clone(bin: &Path, base: &Path, url: &str, name: &str) -> std::path::PathBuf {
    let dir = base.join(name);
    git(base, &["clone", "-q", url, name]);
    git(&dir, &["config", "user.name", "Bench"]);
    git(&dir, &["config", "user.email", "bench@example.com"]);
    mneme(bin, &dir, &["init"]);
    dir
}

fn timed(bin: &Path, root: &Path, args: &[&str]) -> Duration {
    let start = Instant::now();
    mneme(bin, root, args);
    start.elapsed()
}

fn main() {
    let bin = release_binary();
    let seed = common::repo(&bin);
    let ids: Vec<String> = (0..TASKS)
        .map(|i| {
            let out = mneme(
                &bin,
                seed.path(),
                &["--json", "create", &format!("Task {i}")],
            );
            let v: serde_json::Value = serde_json::from_slice(&out).expect("json");
            v["id"].as_str().expect("id").to_owned()
        })
        .collect();
    let config = std::fs::read_to_string(seed.path().join(".ledger/config.yaml")).expect("config");
    std::fs::write(
        seed.path().join(".ledger/config.yaml"),
        format!("{config}\nclaims_remote: origin\n"),
    )
    .expect("config");
    git(seed.path(), &["add", "-A"]);
    git(seed.path(), &["commit", "-qm", "tasks"]);
    let base = tempfile::tempdir().expect("tempdir");
    let bare = base.path().join("srv.git");
    git(
        seed.path(),
        &["clone", "-q", "--bare", ".", bare.to_str().expect("utf8")],
    );
    let daemon = Daemon::start(base.path());
    let url = format!("git://127.0.0.1:{}/srv.git", daemon.1);
    let file_url = format!("file://{}", bare.display());
    let over_daemon = clone(&bin, base.path(), &url, "daemon");
    let over_file = clone(&bin, base.path(), &file_url, "file");

    println!("{TASKS} claims of different tasks, {ROUNDS} rounds (each released after):");
    let mut rows: Vec<(&str, &Path, Vec<&str>)> = vec![
        ("update --claim, git daemon", &over_daemon, vec![]),
        ("update --claim, file://", &over_file, vec![]),
        (
            "update --claim --local-only",
            &over_daemon,
            vec!["--local-only"],
        ),
    ];
    for (name, root, extra) in rows.drain(..) {
        let mut claims = Vec::new();
        let mut releases = Vec::new();
        for _ in 0..ROUNDS {
            for id in &ids {
                let mut args = vec!["update", id, "--claim", "--agent", "bench"];
                args.extend(&extra);
                claims.push(timed(&bin, root, &args));
                releases.push(timed(
                    &bin,
                    root,
                    &["update", id, "--unclaim", "--agent", "bench"],
                ));
            }
        }
        report(name, claims);
        report("  then --unclaim (release)", releases);
    }
    // The floor: one push that creates a ref, as a claim does, with git alone.
    let blob = git_text(&over_daemon, &["hash-object", "-w", ".ledger/config.yaml"]);
    let mut pushes = Vec::new();
    for i in 0..TASKS * ROUNDS {
        let spec = format!("{blob}:refs/bench/push-{i}");
        let start = Instant::now();
        git(&over_daemon, &["push", "-q", "origin", &spec]);
        pushes.push(start.elapsed());
    }
    report("git push of one new ref, git daemon", pushes);

    // 16 claimers, 4 clones, one task, all at once.
    let clones: Vec<_> = (0..4)
        .map(|k| clone(&bin, base.path(), &url, &format!("racer-{k}")))
        .collect();
    let mut races = Vec::new();
    for (round, id) in ids.iter().enumerate().take(ROUNDS) {
        let start = Instant::now();
        let children: Vec<_> = (0..16)
            .map(|i| {
                Command::new(&bin)
                    .current_dir(&clones[i % 4])
                    .args(["update", id, "--claim", "--agent", &format!("r{round}-{i}")])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("spawn")
            })
            .collect();
        let won = children
            .into_iter()
            .map(|mut c| c.wait().expect("wait").success())
            .filter(|w| *w)
            .count();
        races.push(start.elapsed());
        assert_eq!(won, 1, "exactly one claimer wins");
    }
    report("16 claimers in 4 clones, one task (wall)", races);
    ready_at_scale(&bin, base.path(), &bare, &url);
    drop(daemon);
}

/// Claim refs on the server and fetched into one clone.
const MANY_CLAIMS: usize = 50_000;

/// `ready` in a clone that fetched [`MANY_CLAIMS`] claims, each run past the fetch reuse, beside
/// `ready` in a clone that fetched none.
fn ready_at_scale(bin: &Path, base: &Path, bare: &Path, url: &str) {
    let blob = git_text(bare, &["hash-object", "-w", "--stdin"]);
    let creates: String = (0..MANY_CLAIMS)
        .map(|n| format!("create refs/mneme/claims/t-z{n:05x} {blob}\n"))
        .collect();
    update_refs(bare, &creates);
    git(bare, &["pack-refs", "--all"]);
    let ready = |label: &str, clone: &Path| {
        let stamps = clone.join(".git/mneme-claims-fetched");
        let times = (0..ROUNDS * 4)
            .map(|_| {
                let _ = std::fs::remove_dir_all(&stamps);
                timed(bin, clone, &["ready", "--json"])
            })
            .collect();
        report(label, times);
    };
    println!("\n`ready` of {TASKS} tasks, {MANY_CLAIMS} claims on the server, git daemon:");
    ready(
        "ready, no claims fetched here",
        &clone(bin, base, url, "none"),
    );
    let many = clone(bin, base, url, "many");
    let start = Instant::now();
    mneme(bin, &many, &["claims", "--json"]);
    println!(
        "`claims` fetched all {MANY_CLAIMS} in {:.0} ms",
        start.elapsed().as_secs_f64() * 1000.0
    );
    ready("ready, all fetched (refs packed)", &many);
    // As a fetch of all claims left them before mneme packed them: one loose file each.
    let other = git_text(&many, &["hash-object", "-w", ".ledger/config.yaml"]);
    let loose: String = (0..MANY_CLAIMS)
        .map(|n| format!("update refs/mneme/remotes/origin/claims/t-z{n:05x} {other}\n"))
        .collect();
    update_refs(&many, &loose);
    let files = std::fs::read_dir(many.join(".git/refs/mneme/remotes/origin/claims"))
        .map_or(0, Iterator::count);
    assert_eq!(files, MANY_CLAIMS, "the refs are loose");
    ready("ready, all fetched, refs loose", &many);
}

/// `git update-ref --stdin` in `root` with `commands`.
fn update_refs(root: &Path, commands: &str) {
    use std::io::Write as _;
    let mut child = Command::new("git")
        .current_dir(root)
        .args(["update-ref", "--stdin"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("git update-ref");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(commands.as_bytes())
        .expect("write");
    assert!(child.wait().expect("wait").success(), "git update-ref");
}
