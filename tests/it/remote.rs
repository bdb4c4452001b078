//! Many clones of one repository, through a real git server: `git daemon` on 127.0.0.1 and
//! `file://`. Task files merge across clones with nothing lost.

use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

use crate::common::{mneme_std, Repo};

/// A bare repository served by `git daemon` (pushes enabled) on a free port of 127.0.0.1.
pub struct Server {
    dir: TempDir,
    /// The repository's path under the server's root: `srv.git`, `owner/name.git`.
    name: String,
    port: u16,
    daemon: Option<Child>,
}

impl Server {
    /// Serves a bare copy of `seed`.
    pub fn start(seed: &Repo) -> Server {
        Server::start_as(seed, "srv.git")
    }

    /// Serves a bare copy of `seed` as `name` (`owner/name.git`).
    pub fn start_as(seed: &Repo, name: &str) -> Server {
        let dir = tempfile::Builder::new()
            .prefix("mneme-server-")
            .tempdir()
            .unwrap();
        let bare = dir.path().join(name);
        seed.git(&["clone", "-q", "--bare", ".", bare.to_str().unwrap()]);
        let mut server = Server {
            dir,
            name: name.to_owned(),
            port: 0,
            daemon: None,
        };
        server.restart();
        server
    }

    pub fn bare(&self) -> PathBuf {
        self.dir.path().join(&self.name)
    }

    /// `git://127.0.0.1:<port>`: the server's root.
    pub fn root_url(&self) -> String {
        format!("git://127.0.0.1:{}", self.port)
    }

    pub fn url(&self) -> String {
        format!("{}/{}", self.root_url(), self.name)
    }

    pub fn file_url(&self) -> String {
        format!("file://{}", self.bare().display())
    }

    /// Starts the daemon (again), on a new port.
    pub fn restart(&mut self) {
        self.port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("git")
            .args([
                "daemon",
                "--reuseaddr",
                "--export-all",
                "--enable=receive-pack",
                "--listen=127.0.0.1",
                &format!("--port={}", self.port),
                &format!("--base-path={}", self.dir.path().display()),
            ])
            .arg(self.dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        self.daemon = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "git daemon did not start");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Kills the daemon and every connection it serves.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.daemon.take() {
            // The daemon forks a process per connection, all in its process group.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A clone of `url` with an identity and `mneme init` run (which registers the merge driver).
pub fn clone(url: &str) -> Repo {
    let dir = tempfile::Builder::new()
        .prefix("mneme-clone-")
        .tempdir()
        .unwrap();
    let repo = Repo { dir };
    repo.git(&["clone", "-q", url, "."]);
    repo.git(&["config", "user.name", "Test Human"]);
    repo.git(&["config", "user.email", "human@example.com"]);
    repo.init(&[]);
    repo
}

/// A committed repository with one task; its id.
pub fn seed_with_task() -> (Repo, String) {
    let seed = Repo::committed();
    let id = seed.json(&["create", "Shared work", "--json"])["id"]
        .as_str()
        .unwrap()
        .to_owned();
    seed.git(&["add", "-A"]);
    seed.git(&["commit", "-qm", "a task"]);
    (seed, id)
}

fn task(repo: &Repo, id: &str) -> Value {
    serde_json::from_str(&repo.read(&format!(".ledger/tasks/{id}.json"))).unwrap()
}

/// Every order of `0..n`.
fn orders(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for rest in orders(n - 1) {
        for at in 0..=rest.len() {
            let mut order = rest.clone();
            order.insert(at, n - 1);
            out.push(order);
        }
    }
    out
}

#[test]
fn notes_from_four_clones_survive_every_push_order() {
    let (seed, id) = seed_with_task();
    let server = Server::start(&seed);
    // Each clone reaches the server through git daemon as `origin` and through file:// as `local`.
    let clones: Vec<Repo> = (0..4).map(|_| clone(&server.url())).collect();
    for c in &clones {
        c.git(&["remote", "add", "local", &server.file_url()]);
    }
    let file = format!(".ledger/tasks/{id}.json");
    for (n, order) in orders(4).into_iter().enumerate() {
        let rebase = n % 2 == 1;
        let remote = if n % 3 == 0 { "local" } else { "origin" };
        let title = format!("Shared work, retitled in order {n}");
        for (k, c) in clones.iter().enumerate() {
            let note = format!("order {n}: a note from clone {k}");
            let agent = format!("agent-{k}");
            let mut args = vec!["update", &id, "--notes", &note, "--agent", &agent];
            // Two clones also change different fields of the task.
            let priority = format!("P{}", n % 5);
            match k {
                0 => args.extend(["--priority", &priority]),
                1 => args.extend(["--title", &title]),
                _ => {}
            }
            c.mneme(&args).assert().success();
            c.git(&["commit", "-qam", &format!("clone {k} notes the task")]);
        }
        for &k in &order {
            let mode = if rebase { "--rebase" } else { "--no-rebase" };
            clones[k].git(&["pull", "-q", mode, remote, "main"]);
            clones[k].git(&["push", "-q", remote, "HEAD:main"]);
        }
        for c in &clones {
            c.git(&["pull", "-q", "--no-rebase", remote, "main"]);
        }
        let t = task(&clones[0], &id);
        let texts: Vec<&str> = t["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["text"].as_str().unwrap())
            .filter(|t| t.starts_with(&format!("order {n}:")))
            .collect();
        assert_eq!(texts.len(), 4, "order {order:?} (rebase: {rebase}): {t:#}");
        assert_eq!(t["priority"], n % 5);
        assert_eq!(t["title"].as_str().unwrap(), title);
        // Every clone has the same file.
        for c in &clones[1..] {
            assert_eq!(c.read(&file), clones[0].read(&file), "order {order:?}");
        }
    }
    let t = task(&clones[0], &id);
    assert_eq!(t["notes"].as_array().unwrap().len(), 4 * 24);
    let broken: Vec<Value> = clones[0]
        .findings()
        .into_iter()
        .filter(|f| f["code"].as_str().unwrap().starts_with("task_"))
        .collect();
    assert!(broken.is_empty(), "{broken:?}");
}

#[test]
fn a_true_conflict_follows_the_rule_and_is_noted_on_the_task() {
    let (seed, id) = seed_with_task();
    let server = Server::start(&seed);
    let (a, b) = (clone(&server.url()), clone(&server.url()));
    a.mneme(&["update", &id, "--status", "blocked", "--agent", "ada"])
        .assert()
        .success();
    a.git(&["commit", "-qam", "blocked here"]);
    // One second later, so that the other side is the one updated last.
    std::thread::sleep(Duration::from_millis(1100));
    b.mneme(&["close", &id, "--reason", "done elsewhere"])
        .assert()
        .success();
    b.git(&["commit", "-qam", "closed there"]);
    a.git(&["push", "-q", "origin", "HEAD:main"]);
    let out = b.git_output(&["pull", "--no-rebase", "origin", "main"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("both sides changed status"), "{said}");
    let t = task(&b, &id);
    assert_eq!(t["status"], "closed");
    assert_eq!(t["close_reason"], "done elsewhere");
    let last = t["notes"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["author"], "mneme-merge");
    assert!(
        last["text"].as_str().unwrap().contains("set aside blocked"),
        "{last}"
    );

    // A side that does not parse is left to a person, and `check` reports the file.
    let (c, d) = (clone(&server.url()), clone(&server.url()));
    b.git(&["push", "-q", "origin", "HEAD:main"]);
    let file = format!(".ledger/tasks/{id}.json");
    c.git(&["pull", "-q", "origin", "main"]);
    c.write(&file, "{ not a task\n");
    c.git(&["commit", "-qam", "a broken hand edit"]);
    c.git(&["push", "-q", "origin", "HEAD:main"]);
    d.mneme(&["update", &id, "--notes", "meanwhile", "--agent", "dee"])
        .assert()
        .success();
    d.git(&["commit", "-qam", "a note"]);
    let out = d.git_output(&["pull", "--no-rebase", "origin", "main"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("conflicting task file"));
    assert!(d.read(&file).contains("<<<<<<< ours"));
    let codes: Vec<String> = d
        .findings()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect();
    assert!(codes.contains(&"task_parse".to_owned()), "{codes:?}");
}

/// A server whose seed ledger sets `claims_remote: origin` with `lease`, and its task.
fn claims_server(lease: &str) -> (Server, String) {
    let (seed, id) = seed_with_task();
    let config = seed.read(".ledger/config.yaml");
    seed.write(
        ".ledger/config.yaml",
        &format!("{config}\nclaims_remote: origin\nclaim_lease: {lease}\n"),
    );
    seed.git(&["commit", "-qam", "claims go to origin"]);
    (Server::start(&seed), id)
}

/// The claim refs on the server: `(task, claim object)`.
fn server_claims(server: &Server) -> Vec<(String, Value)> {
    let bare = server.bare();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .arg("--git-dir")
            .arg(&bare)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8(crate::common::succeeded(out).stdout).unwrap()
    };
    git(&[
        "for-each-ref",
        "--format=%(refname) %(objectname)",
        "refs/mneme/claims/",
    ])
    .lines()
    .map(|l| {
        let (name, oid) = l.split_once(' ').unwrap();
        let task = name.strip_prefix("refs/mneme/claims/").unwrap().to_owned();
        (
            task,
            serde_json::from_str(&git(&["cat-file", "-p", oid])).unwrap(),
        )
    })
    .collect()
}

/// Runs `mneme --json ARGS` in `repo`; the output, whatever the exit code.
fn run(repo: &Repo, args: &[&str]) -> std::process::Output {
    let mut full = vec!["--json"];
    full.extend_from_slice(args);
    repo.mneme(&full).output().unwrap()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn sixteen_claimers_in_four_clones_one_wins_and_every_loser_names_it() {
    let (server, id) = claims_server("2h");
    // Two clones reach the server through git daemon, two through file://.
    let clones: Vec<Repo> = (0..4)
        .map(|i| {
            clone(&if i < 2 {
                server.url()
            } else {
                server.file_url()
            })
        })
        .collect();
    let children: Vec<_> = (0..16)
        .map(|i| {
            mneme_std(clones[i % 4].path())
                .args([
                    "--json",
                    "update",
                    &id,
                    "--claim",
                    "--agent",
                    &format!("agent-{i}"),
                ])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let winners: Vec<usize> = (0..16).filter(|&i| outs[i].status.success()).collect();
    assert_eq!(
        winners.len(),
        1,
        "{:?}",
        outs.iter().map(stderr).collect::<Vec<_>>()
    );
    let winner = format!("agent-{}", winners[0]);
    for (i, out) in outs.iter().enumerate().filter(|(i, _)| *i != winners[0]) {
        assert_eq!(out.status.code(), Some(1), "agent-{i}: {}", stderr(out));
        assert_eq!(
            crate::common::error_code(out),
            "already_claimed",
            "{}",
            stderr(out)
        );
        assert!(
            stderr(out).contains(&winner),
            "agent-{i} does not name {winner}: {}",
            stderr(out)
        );
    }
    // One claim on the server, the winner's; the losers' clones wrote nothing.
    let on_server = server_claims(&server);
    assert_eq!(on_server.len(), 1);
    assert_eq!(on_server[0].0, id);
    assert_eq!(on_server[0].1["agent"], winner.as_str());
    for (k, c) in clones.iter().enumerate() {
        let t = task(c, &id);
        if k == winners[0] % 4 {
            assert_eq!(t["assignee"], winner.as_str());
        } else {
            assert_eq!(t["status"], "open", "clone {k}");
            // Every other clone leaves the task out of `ready` and lists the claim.
            let ready = c.json(&["ready", "--json"]);
            assert_eq!(ready, serde_json::json!([]), "clone {k}");
            let claims = c.json(&["claims", "--json"]);
            assert_eq!(claims["claims"][0]["agent"], winner.as_str());
            assert_eq!(claims["claims"][0]["stale"], false);
        }
    }
}

#[test]
fn a_server_that_dies_mid_claim_never_lets_two_clones_hold_a_task() {
    let (mut server, id) = claims_server("2h");
    let (a, b) = (clone(&server.url()), clone(&server.url()));
    let marker = server.dir.path().join("in-hook");
    // The server stops while it checks the push, before the ref is written.
    let hooks = server.bare().join("hooks");
    std::fs::write(
        hooks.join("pre-receive"),
        format!("#!/bin/sh\ntouch '{}'\nsleep 30\n", marker.display()),
    )
    .unwrap();
    make_executable(&hooks.join("pre-receive"));
    let claim = |repo: &Repo, who: &str| {
        mneme_std(repo.path())
            .args(["--json", "update", &id, "--claim", "--agent", who])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let pending = claim(&a, "ada");
    wait_for(&marker);
    server.stop();
    let out = pending.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        crate::common::error_code(&out),
        "remote_unreachable",
        "{}",
        stderr(&out)
    );
    let said = stderr(&out);
    assert!(
        said.contains("could not reach the remote `origin` to claim"),
        "{said}"
    );
    assert!(said.contains("run the same command again"), "{said}");
    assert_eq!(task(&a, &id)["status"], "open", "nothing written here");
    assert!(server_claims(&server).is_empty());

    // Now it stops after writing the ref, before it answers.
    std::fs::remove_file(hooks.join("pre-receive")).unwrap();
    std::fs::remove_file(&marker).unwrap();
    std::fs::write(
        hooks.join("reference-transaction"),
        format!(
            "#!/bin/sh\n[ \"$1\" = committed ] || exit 0\ntouch '{}'\nsleep 30\n",
            marker.display()
        ),
    )
    .unwrap();
    make_executable(&hooks.join("reference-transaction"));
    server.restart();
    for c in [&a, &b] {
        c.git(&["remote", "set-url", "origin", &server.url()]);
    }
    let pending = claim(&a, "ada");
    wait_for(&marker);
    server.stop();
    let out = pending.wait_with_output().unwrap();
    assert_eq!(
        crate::common::error_code(&out),
        "remote_unreachable",
        "{}",
        stderr(&out)
    );
    assert_eq!(task(&a, &id)["status"], "open");
    // The claim did reach the server: another clone loses to it, and ada settles it as hers.
    std::fs::remove_file(hooks.join("reference-transaction")).unwrap();
    server.restart();
    for c in [&a, &b] {
        c.git(&["remote", "set-url", "origin", &server.url()]);
    }
    let lost = run(&b, &["update", &id, "--claim", "--agent", "bob"]);
    assert_eq!(crate::common::error_code(&lost), "already_claimed");
    assert!(stderr(&lost).contains("ada on "), "{}", stderr(&lost));
    let settled = run(&a, &["update", &id, "--claim", "--agent", "ada"]);
    assert!(settled.status.success(), "{}", stderr(&settled));
    assert_eq!(task(&a, &id)["assignee"], "ada");
    let on_server = server_claims(&server);
    assert_eq!(on_server.len(), 1);
    assert_eq!(on_server[0].1["agent"], "ada");
    assert_eq!(task(&b, &id)["status"], "open");
}

#[test]
fn leases_run_out_and_only_a_stale_claim_can_be_taken_over() {
    let (server, id) = claims_server("3s");
    let (a, b) = (clone(&server.url()), clone(&server.url()));
    assert!(run(&a, &["update", &id, "--claim", "--agent", "ada"])
        .status
        .success());
    let first = server_claims(&server)[0].1.clone();
    let refused = run(
        &b,
        &[
            "claims", "--steal", &id, "--reason", "mine now", "--agent", "bob",
        ],
    );
    assert_eq!(crate::common::error_code(&refused), "claim_not_stale");
    // The holder's update renews the lease.
    std::thread::sleep(Duration::from_millis(1100));
    assert!(run(
        &a,
        &["update", &id, "--notes", "still on it", "--agent", "ada"]
    )
    .status
    .success());
    let renewed = server_claims(&server)[0].1.clone();
    assert_eq!(renewed["claimed_at"], first["claimed_at"]);
    assert_ne!(renewed["renewed_at"], first["renewed_at"]);

    std::thread::sleep(Duration::from_millis(3200));
    let lost = run(&b, &["update", &id, "--claim", "--agent", "bob"]);
    assert_eq!(crate::common::error_code(&lost), "already_claimed");
    let v: Value = serde_json::from_slice(&lost.stderr).unwrap();
    assert_eq!(v["error"]["stale"], true, "{v}");
    assert!(
        v["error"]["hint"].as_str().unwrap().contains("--steal"),
        "{v}"
    );
    let listed = b.json(&["claims", "--json"]);
    assert_eq!(listed["claims"][0]["stale"], true);

    let steal = [
        "--json",
        "claims",
        "--steal",
        &id,
        "--reason",
        "ada's sandbox is gone",
        "--agent",
        "bob",
    ];
    // A take-over whose task file cannot be written gives the claim back.
    let before = b.read(&format!(".ledger/tasks/{id}.json"));
    let failed = b
        .mneme(&steal)
        .env("MNEME_FAULT", "write-task")
        .output()
        .unwrap();
    assert!(!failed.status.success());
    assert!(
        stderr(&failed).contains("injected fault"),
        "{}",
        stderr(&failed)
    );
    assert_eq!(b.read(&format!(".ledger/tasks/{id}.json")), before);
    assert_eq!(server_claims(&server)[0].1, renewed, "ada's claim is back");

    let stolen = b.mneme(&steal).output().unwrap();
    assert!(stolen.status.success(), "{}", stderr(&stolen));
    let t = task(&b, &id);
    assert_eq!(
        (t["status"].as_str(), t["assignee"].as_str()),
        (Some("in_progress"), Some("bob"))
    );
    let note = t["notes"].as_array().unwrap().last().unwrap()["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        note.contains("Took over the claim of ada on ") && note.contains("ada's sandbox is gone"),
        "{note}"
    );
    assert_eq!(server_claims(&server)[0].1["agent"], "bob");

    // The old holder learns it lost the task, and writes nothing.
    let before = a.read(&format!(".ledger/tasks/{id}.json"));
    let out = run(&a, &["update", &id, "--notes", "done?", "--agent", "ada"]);
    assert_eq!(
        crate::common::error_code(&out),
        "claim_lost",
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("taken over by bob on "),
        "{}",
        stderr(&out)
    );
    assert_eq!(a.read(&format!(".ledger/tasks/{id}.json")), before);
    // Closing where the old claim was made does not release the new holder's claim.
    assert!(run(&a, &["close", &id, "--reason", "gave up"])
        .status
        .success());
    assert_eq!(server_claims(&server)[0].1["agent"], "bob");
}

#[test]
fn close_unclaim_and_status_open_release_the_remote_claim() {
    let (server, id) = claims_server("2h");
    let (a, b) = (clone(&server.url()), clone(&server.file_url()));
    let claim = |r: &Repo, who: &str| run(r, &["update", &id, "--claim", "--agent", who]);
    // A claim whose task file cannot be written is released on the server again.
    let failed = a
        .mneme(&["update", &id, "--claim", "--agent", "ada"])
        .env("MNEME_FAULT", "write-task")
        .output()
        .unwrap();
    assert!(!failed.status.success());
    assert!(server_claims(&server).is_empty(), "{}", stderr(&failed));
    assert_eq!(task(&a, &id)["status"], "open");
    for release in [
        vec!["update", &id, "--unclaim", "--agent", "ada"],
        vec!["update", &id, "--status", "open", "--agent", "ada"],
        vec!["close", &id, "--reason", "done"],
    ] {
        assert!(claim(&a, "ada").status.success());
        assert_eq!(server_claims(&server).len(), 1);
        assert!(!claim(&b, "bob").status.success());
        let out = run(&a, &release);
        assert!(out.status.success(), "{release:?}: {}", stderr(&out));
        assert!(server_claims(&server).is_empty(), "{release:?}");
        // Released: another clone may claim it, then gives it back.
        assert!(claim(&b, "bob").status.success(), "{release:?}");
        assert!(run(&b, &["update", &id, "--unclaim", "--agent", "bob"])
            .status
            .success());
    }
    // Reopened, the task is nobody's, here and on the server.
    assert!(run(&a, &["reopen", &id]).status.success());
    assert!(task(&a, &id)["assignee"].is_null());
    assert!(server_claims(&server).is_empty());
}

#[test]
fn an_unreachable_remote_fails_a_claim_and_nothing_is_written() {
    let (mut server, id) = claims_server("2h");
    let a = clone(&server.url());
    // `ready` fetches the claims of the tasks it would list; `claims` fetches them all, which
    // the next `ready` may reuse for a while. Then the server goes away.
    assert_eq!(a.json(&["ready", "--json"]).as_array().unwrap().len(), 1);
    a.mneme(&["claims"]).assert().success();
    server.stop();
    let file = format!(".ledger/tasks/{id}.json");
    let before = a.read(&file);
    let out = run(&a, &["update", &id, "--claim", "--agent", "ada"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(crate::common::error_code(&out), "remote_unreachable");
    assert!(stderr(&out).contains("--local-only"), "{}", stderr(&out));
    assert_eq!(a.read(&file), before);
    // Within 30 s `ready` reuses what it fetched; later (the fetch time forgotten here) it tries
    // again, and goes on with the claims fetched before, saying so. --offline does not try.
    assert!(a.mneme(&["ready"]).output().unwrap().stderr.is_empty());
    std::fs::remove_dir_all(a.path().join(".git/mneme-claims-fetched")).unwrap();
    let ready = a.mneme(&["ready", "--json"]).output().unwrap();
    assert!(ready.status.success());
    assert!(
        stderr(&ready).contains("using the claims fetched before"),
        "{}",
        stderr(&ready)
    );
    let offline = a.mneme(&["ready", "--offline", "--json"]).output().unwrap();
    assert!(
        offline.status.success() && offline.stderr.is_empty(),
        "{}",
        stderr(&offline)
    );
    let listed = run(&a, &["claims"]);
    assert_eq!(crate::common::error_code(&listed), "remote_unreachable");
    assert!(a
        .mneme(&["claims", "--offline"])
        .output()
        .unwrap()
        .status
        .success());
    // --local-only claims this clone alone.
    assert!(run(
        &a,
        &["update", &id, "--claim", "--local-only", "--agent", "ada"]
    )
    .status
    .success());
    assert_eq!(task(&a, &id)["assignee"], "ada");
    let unknown = run(
        &a,
        &[
            "update", &id, "--claim", "--remote", "upstream", "--agent", "ada",
        ],
    );
    assert_eq!(crate::common::error_code(&unknown), "no_such_remote");
    // A clone without the configured remote still lists its work, and says why it cannot check;
    // `check` warns about the setting (a warning: the exit code stays 0).
    let claims_warnings = |r: &Repo| {
        r.json(&["check", "--json"])["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "claims_remote_missing")
            .map(|f| (f["path"].clone(), f["message"].as_str().unwrap().to_owned()))
            .collect::<Vec<_>>()
    };
    assert_eq!(claims_warnings(&a), []);
    a.git(&["remote", "rename", "origin", "upstream"]);
    let ready = a.mneme(&["ready"]).output().unwrap();
    assert!(ready.status.success());
    assert!(
        stderr(&ready).contains("no remote named `origin`"),
        "{}",
        stderr(&ready)
    );
    let warned = claims_warnings(&a);
    assert_eq!(warned.len(), 1);
    assert_eq!(warned[0].0, ".ledger/config.yaml");
    assert!(warned[0].1.contains("git remote add origin"), "{warned:?}");
}

fn make_executable(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Waits until `path` exists (a server hook reached its point).
fn wait_for(path: &std::path::Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn claim_refs_never_touch_branches_hooks_or_the_users_work() {
    let (server, id) = claims_server("2h");
    let a = clone(&server.url());
    // Work in progress: a staged file and an unstaged edit; a pre-push hook that must not run.
    a.write("staged.txt", "staged\n");
    a.git(&["add", "staged.txt"]);
    a.write("README.md", "# project, edited\n");
    let marker = a.path().join("pre-push-ran");
    let hook = a.path().join(".git/hooks/pre-push");
    std::fs::write(&hook, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
    make_executable(&hook);
    let state = |r: &Repo| {
        (
            r.git(&["for-each-ref", "refs/heads", "refs/remotes", "refs/tags"]),
            r.git(&["ls-files", "--stage"]),
            r.git(&["status", "--porcelain", "--", ".", ":!.ledger/tasks"]),
            r.read("README.md"),
        )
    };
    let before = state(&a);
    for args in [
        vec!["update", &id, "--claim", "--agent", "ada"],
        vec!["update", &id, "--notes", "renewing", "--agent", "ada"],
        vec!["claims"],
        vec!["ready"],
        vec!["update", &id, "--unclaim", "--agent", "ada"],
    ] {
        let out = run(&a, &args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(state(&a), before);
    assert!(
        !marker.exists(),
        "a claim is not a push of work: pre-push must not run"
    );
    assert!(!a.path().join(".git/FETCH_HEAD").exists());
    // The server's branches are as they were: only claim refs ever changed there.
    let bare_refs = Command::new("git")
        .arg("--git-dir")
        .arg(server.bare())
        .args(["for-each-ref", "--format=%(refname)"])
        .output()
        .unwrap();
    let refs = String::from_utf8(bare_refs.stdout).unwrap();
    assert_eq!(refs.trim(), "refs/heads/main", "{refs}");
}

/// A remote may hold tens of thousands of claim refs (abandoned clones, other projects' tasks):
/// `ready` fetches only the claims of the tasks it would list, and still leaves out one that
/// is claimed there.
#[test]
fn ready_fetches_only_the_claims_it_needs_and_all_claims_are_kept_packed() {
    let (server, id) = claims_server("2h");
    let bare = server.bare();
    let git = |args: &[&str], input: Option<&str>| {
        let mut child = Command::new("git")
            .arg("--git-dir")
            .arg(&bare)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.unwrap_or("").as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let blob = git(&["hash-object", "-w", "--stdin"], Some("{}\n"));
    let creates: String = (0..3_000)
        .map(|n| format!("create refs/mneme/claims/t-z{n:04x} {}\n", blob.trim()))
        .collect();
    git(&["update-ref", "--stdin"], Some(&creates));
    git(&["pack-refs", "--all"], None);

    let a = clone(&server.url());
    assert_eq!(a.json(&["ready", "--json"]).as_array().unwrap().len(), 1);
    let tracked = a.git(&["for-each-ref", "refs/mneme/remotes/"]);
    assert_eq!(tracked.lines().count(), 0, "{tracked}");
    // Claimed in another clone: this one's `ready` leaves it out, having fetched that claim.
    let b = clone(&server.url());
    assert!(run(&b, &["update", &id, "--claim", "--agent", "bob"])
        .status
        .success());
    assert_eq!(a.json(&["ready", "--json"]), serde_json::json!([]));
    let tracked = a.git(&["for-each-ref", "--format=%(refname)", "refs/mneme/remotes/"]);
    assert_eq!(
        tracked.trim(),
        format!("refs/mneme/remotes/origin/claims/{id}")
    );
    // All claims fetched are packed, not one loose file each: with tens of thousands loose,
    // every later fetch of a few (`ready`'s) reads them all.
    a.mneme(&["claims"]).assert().success();
    let tracked = a.git(&["for-each-ref", "refs/mneme/remotes/"]);
    assert_eq!(tracked.lines().count(), 3_001);
    let loose = a.file(".git/refs/mneme/remotes/origin/claims");
    let loose = std::fs::read_dir(&loose).map_or(0, Iterator::count);
    assert_eq!(loose, 0, "claim refs left loose");
    std::fs::remove_dir_all(a.file(".git/mneme-claims-fetched")).unwrap();
    assert_eq!(a.json(&["ready", "--json"]), serde_json::json!([]));
    // Released there, the claim fetched before is dropped here by `ready`'s own fetch.
    assert!(run(&b, &["update", &id, "--unclaim", "--agent", "bob"])
        .status
        .success());
    let _ = std::fs::remove_dir_all(a.file(".git/mneme-claims-fetched"));
    assert_eq!(a.json(&["ready", "--json"]).as_array().unwrap().len(), 1);
    let tracked = a.git(&["for-each-ref", "--format=%(refname)", "refs/mneme/remotes/"]);
    assert!(!tracked.contains(&id), "the released claim is dropped");
    assert_eq!(tracked.lines().count(), 3_000);
}
