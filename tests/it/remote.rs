//! Many clones of one repository, through a real git server: `git daemon` on 127.0.0.1 and
//! `file://`. Task files merge across clones with nothing lost.

use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

use crate::common::Repo;

/// A bare repository served by `git daemon` (pushes enabled) on a free port of 127.0.0.1.
pub struct Server {
    dir: TempDir,
    port: u16,
    daemon: Option<Child>,
}

impl Server {
    /// Serves a bare copy of `seed`.
    pub fn start(seed: &Repo) -> Server {
        let dir = tempfile::Builder::new()
            .prefix("mneme-server-")
            .tempdir()
            .unwrap();
        let bare = dir.path().join("srv.git");
        seed.git(&["clone", "-q", "--bare", ".", bare.to_str().unwrap()]);
        let mut server = Server {
            dir,
            port: 0,
            daemon: None,
        };
        server.restart();
        server
    }

    fn bare(&self) -> PathBuf {
        self.dir.path().join("srv.git")
    }

    pub fn url(&self) -> String {
        format!("git://127.0.0.1:{}/srv.git", self.port)
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
    repo.mneme(&["init"]).assert().success();
    repo
}

/// A committed repository with one task; its id.
pub fn seed_with_task() -> (Repo, String) {
    let seed = Repo::committed();
    let out = seed
        .mneme(&["create", "Shared work", "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let id = crate::common::json(&out)["id"].as_str().unwrap().to_owned();
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
