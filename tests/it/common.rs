//! Helpers for tests that run the real `mneme` binary in temporary git repositories.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::cargo_bin;
use serde_json::Value;
use tempfile::TempDir;

/// A temporary git repository with an identity configured and no global config leaking in.
pub struct Repo {
    pub dir: TempDir,
}

impl Repo {
    /// `git init` only.
    pub fn bare_init() -> Repo {
        let dir = tempfile::Builder::new()
            .prefix("mneme-test-")
            .tempdir()
            .unwrap();
        let repo = Repo { dir };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test Human"]);
        repo.git(&["config", "user.email", "human@example.com"]);
        repo
    }

    /// `git init` and `mneme init`, less the commit-msg hook `init` installs: the repository
    /// stands for any clone or branch, where a commit the hook would refuse can still be made
    /// (the tests of the hook install it again).
    pub fn new() -> Repo {
        let repo = Repo::bare_init();
        repo.init(&[]);
        repo
    }

    /// `mneme init ARGS`, less the commit-msg hook it installs (see [`Repo::new`]).
    pub fn init(&self, args: &[&str]) {
        self.mneme(&[&["init"], args].concat()).assert().success();
        let hook = self.file(".git/hooks/commit-msg");
        if hook.exists() {
            fs::remove_file(hook).unwrap();
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn file(&self, rel: &str) -> PathBuf {
        self.path().join(rel)
    }

    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.file(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    pub fn write(&self, rel: &str, contents: &str) {
        let path = self.file(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
    }

    /// The `mneme` binary, run in the repository root with a clean environment.
    pub fn mneme(&self, args: &[&str]) -> assert_cmd::Command {
        self.mneme_in(self.path(), args)
    }

    pub fn mneme_in(&self, dir: &Path, args: &[&str]) -> assert_cmd::Command {
        let mut cmd = assert_cmd::Command::new(cargo_bin("mneme"));
        isolate(cmd.current_dir(dir).args(args));
        cmd
    }

    /// Runs git in the repository and returns stdout; panics on failure.
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.git_output(args);
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Runs git and returns stdout, whether or not it succeeded.
    pub fn try_git(&self, args: &[&str]) -> String {
        String::from_utf8(self.git_output(args).stdout).unwrap()
    }

    /// Runs git and returns its whole output.
    pub fn git_output(&self, args: &[&str]) -> std::process::Output {
        let mut cmd = Command::new("git");
        isolate_std(cmd.current_dir(self.path()).args(args));
        cmd.output().unwrap()
    }

    /// Runs git as a GUI client or an IDE may: without `mneme` on its PATH, so the merge driver
    /// cannot run. Returns whether git succeeded.
    pub fn git_without_mneme(&self, args: &[&str]) -> bool {
        self.git_output_without_mneme(args).status.success()
    }

    /// [`Repo::git_without_mneme`], with git's whole output.
    pub fn git_output_without_mneme(&self, args: &[&str]) -> std::process::Output {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let dirs = std::env::split_paths(&path).filter(|d| !d.join("mneme").exists());
        let mut cmd = Command::new("git");
        isolate_std(cmd.current_dir(self.path()).args(args));
        cmd.env("PATH", std::env::join_paths(dirs).unwrap());
        cmd.output().unwrap()
    }

    /// Proposal files, sorted by name.
    pub fn proposals(&self) -> Vec<PathBuf> {
        let mut files: Vec<_> = fs::read_dir(self.file(".ledger/proposals"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        files
    }

    /// `sh -c SCRIPT` in the repository root, with the binary under test on the PATH and no
    /// global git config; stdin is empty.
    pub fn sh(&self, script: &str) -> std::process::Output {
        let mut cmd = Command::new("sh");
        isolate_std(cmd.current_dir(self.path()).arg("-c").arg(script));
        cmd.env("NO_COLOR", "1")
            .env_remove("MNEME_AGENT")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    }

    /// Every file under `.ledger` with its bytes, to check that a refused command wrote nothing.
    pub fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![self.file(".ledger")];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for e in entries {
                let path = e.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    out.push((path.clone(), fs::read(&path).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    /// Writes a fact file with the given facts (`(id, text)`) under the seed front matter.
    /// Writes the fact file `file` with `facts`, as approved earlier: with the decision record
    /// an approval would have written (for `verify`'s state check), left to commit.
    pub fn seed_facts(&self, file: &str, facts: &[(&str, &str)]) {
        use mneme::model::provenance::decision::Verdict;
        use mneme::model::provenance::record::Record;
        let mut src = format!("---\ntitle: {file}\n---\n\n# {file}\n\n");
        for (id, text) in facts {
            src.push_str(&format!("- **{id}** {text}\n"));
        }
        let rel = format!(".ledger/facts/{file}.md");
        let name = format!("{file}.md");
        let old = fs::read_to_string(self.file(&rel)).unwrap_or_default();
        self.write(&rel, &src);
        let before = [(name.clone(), old)].into_iter().collect();
        let after = [(name, src)].into_iter().collect();
        // Seeds are told apart by what they hold: each gets its own proposal id and record.
        let seed = mneme::model::base::ids::sha256_hex(rel.as_bytes());
        let proposal = format!("20260101T000000Z-{}", &seed[..8]);
        let at = mneme::model::base::time::Timestamp::from_unix(1_767_225_600);
        let record = Record::new(
            Verdict::Approve,
            &proposal,
            "Test Human <human@example.com>",
            at,
            &before,
            &after,
        );
        self.write(
            &format!(".ledger/decisions/{}.json", record.id()),
            &record.render(),
        );
    }
}

/// Rewrites `path` in place (same inode), as an editor that saves in place does.
pub fn edit_in_place(path: &Path, text: &str) {
    let mut f = fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
}

/// Long enough that a file written before it is no longer within the clock tick of a run
/// after it (the indexes distrust files written within 100 ms of being read).
pub fn settle() {
    std::thread::sleep(std::time::Duration::from_millis(150));
}

/// PATH with the binary under test first: git runs `mneme` as a merge driver and from hooks.
pub fn path_with_mneme() -> std::ffi::OsString {
    let bin_dir = cargo_bin("mneme").parent().unwrap().to_owned();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin_dir];
    dirs.extend(std::env::split_paths(&path));
    std::env::join_paths(dirs).unwrap()
}

fn isolate(cmd: &mut assert_cmd::Command) {
    cmd.env("PATH", path_with_mneme())
        .env_remove("MNEME_AGENT")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("NO_COLOR", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
}

/// The binary under test as a plain command in `dir`, isolated as [`Repo::mneme`] is, for
/// tests that start several at once.
pub fn mneme_std(dir: &Path) -> Command {
    let mut cmd = Command::new(cargo_bin("mneme"));
    isolated(cmd.current_dir(dir));
    cmd
}

/// `cmd` with the environment [`Repo::mneme`] gives mneme (for a wrapper that runs it, such as
/// a shell setting limits first).
pub fn isolated(cmd: &mut Command) -> &mut Command {
    isolate_std(cmd);
    cmd.env("NO_COLOR", "1").env_remove("MNEME_AGENT")
}

fn isolate_std(cmd: &mut Command) {
    cmd.env("PATH", path_with_mneme())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
}

/// `output`, after failing the test with its stderr unless the command succeeded.
pub fn succeeded(output: std::process::Output) -> std::process::Output {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Parses a command's stdout as JSON.
pub fn json(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// Parses a command's stderr as a JSON error and returns its `code`.
pub fn error_code(output: &std::process::Output) -> String {
    let v: Value = serde_json::from_slice(&output.stderr).unwrap_or_else(|e| {
        panic!(
            "stderr not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    v["error"]["code"].as_str().unwrap().to_owned()
}

impl Repo {
    /// `git init` + identity + `mneme init` + a first commit of everything.
    pub fn committed() -> Repo {
        let repo = Repo::new();
        repo.write("README.md", "# project\n");
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "initial"]);
        repo
    }

    /// Runs `mneme propose --json ARGS` and returns the proposal id.
    pub fn propose(&self, args: &[&str]) -> String {
        let mut full = vec!["propose", "--json"];
        full.extend_from_slice(args);
        let out = self.mneme(&full).assert().success().get_output().clone();
        json(&out)["id"].as_str().unwrap().to_owned()
    }

    /// Runs `mneme propose add -f FILE TEXT MORE…`; the proposal id.
    pub fn propose_add(&self, file: &str, text: &str, more: &[&str]) -> String {
        self.propose(&[&["add", "-f", file, text], more].concat())
    }

    /// Runs `mneme propose update FACT TEXT MORE…`; the proposal id.
    pub fn propose_update(&self, fact: &str, text: &str, more: &[&str]) -> String {
        self.propose(&[&["update", fact, text], more].concat())
    }

    /// Runs `mneme review approve ID`, which must succeed.
    pub fn approve(&self, id: &str) {
        self.mneme(&["review", "approve", id]).assert().success();
    }

    /// Proposes `text` as a new fact of `file` and approves it; the new fact's id.
    pub fn approve_new(&self, file: &str, text: &str) -> String {
        self.approve_new_with(file, text, &["--reason", "r"])
    }

    /// Proposes `text` as a new fact of `file` with `propose add` arguments `more` (a reason,
    /// evidence) and approves it; the new fact's id.
    pub fn approve_new_with(&self, file: &str, text: &str, more: &[&str]) -> String {
        let id = self.propose_add(file, text, more);
        let fact = self.new_fact_id(&id);
        self.approve(&id);
        fact
    }

    /// The facts of the ledger by id, as `facts --json` gives them.
    pub fn facts(&self) -> std::collections::BTreeMap<String, Value> {
        self.json(&["facts", "--json"])
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["facts"].as_array().unwrap().clone())
            .map(|f| (f["id"].as_str().unwrap().to_owned(), f))
            .collect()
    }

    /// The id of the one fact the proposal adds (add or supersede).
    pub fn new_fact_id(&self, proposal: &str) -> String {
        let p: Value =
            serde_json::from_str(&self.read(&format!(".ledger/proposals/{proposal}.json")))
                .unwrap();
        let op = &p["operations"][0];
        op.get("new_fact_id")
            .unwrap_or(&op["fact_id"])
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// Starts `n` mneme processes at once (`args(i)` for the i-th) and waits for all of them.
    pub fn concurrently(
        &self,
        n: usize,
        args: impl Fn(usize) -> Vec<String>,
    ) -> Vec<std::process::Output> {
        let children: Vec<_> = (0..n)
            .map(|i| {
                let mut cmd = Command::new(cargo_bin("mneme"));
                cmd.current_dir(self.path())
                    .args(args(i))
                    .env_remove("MNEME_AGENT")
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped());
                cmd.spawn().unwrap()
            })
            .collect();
        children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect()
    }

    /// The findings of `check --json`, whatever its exit code.
    pub fn findings(&self) -> Vec<Value> {
        let out = self.mneme(&["check", "--json"]).output().unwrap();
        json(&out)["findings"].as_array().unwrap().clone()
    }

    /// Runs `mneme ARGS`; its stdout, whatever its exit code.
    pub fn stdout(&self, args: &[&str]) -> String {
        String::from_utf8(self.mneme(args).output().unwrap().stdout).unwrap()
    }

    /// Runs `mneme ARGS`, expects success, parses stdout as JSON.
    pub fn json(&self, args: &[&str]) -> Value {
        self.json_in(self.path(), args)
    }

    /// Runs `mneme ARGS` in `dir`, expects success, parses stdout as JSON.
    pub fn json_in(&self, dir: &Path, args: &[&str]) -> Value {
        json(
            &self
                .mneme_in(dir, args)
                .assert()
                .success()
                .get_output()
                .clone(),
        )
    }

    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"]).trim().to_owned()
    }

    /// Paths changed by the HEAD commit, as `git show --name-status` lines.
    /// HEAD's changes other than the decision record a decision commit adds.
    pub fn fact_changes(&self) -> Vec<String> {
        self.head_changes()
            .into_iter()
            .filter(|c| !c.starts_with("A\t.ledger/decisions/"))
            .collect()
    }

    /// The decision record HEAD added, parsed.
    pub fn head_record(&self) -> Value {
        let added: Vec<String> = self
            .head_changes()
            .into_iter()
            .filter_map(|c| c.strip_prefix("A\t").map(str::to_owned))
            .filter(|p| p.starts_with(".ledger/decisions/"))
            .collect();
        assert_eq!(added.len(), 1, "one record per decision: {added:?}");
        serde_json::from_str(&self.read(&added[0])).unwrap()
    }

    pub fn head_changes(&self) -> Vec<String> {
        self.git(&["show", "--format=", "--name-status", "HEAD"])
            .lines()
            .map(str::to_owned)
            .collect()
    }

    pub fn trailer(&self, rev: &str, key: &str) -> Vec<String> {
        self.git(&[
            "log",
            "-1",
            &format!("--format=%(trailers:key={key},valueonly)"),
            rev,
        ])
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
    }

    pub fn status(&self) -> String {
        self.git(&["status", "--porcelain"])
    }
}
