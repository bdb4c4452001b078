//! Review on the forge, run as GitHub runs it: the `mneme-decide.yml` workflow that
//! `mneme init --ci github` writes, each `run:` step under bash with the event file, against a
//! local stand-in of GitHub's REST API that checks every request against GitHub's own OpenAPI
//! description (tests/it/harness/github-standin.mjs), pushing to a bare repository served by
//! `git daemon`. The events are GitHub's published examples with this test's values, checked
//! against GitHub's published schemas (tests/it/harness/webhook-event.mjs).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{path_with_mneme, succeeded, Repo};
use crate::remote::Server;
use crate::signing::{keygen, sign_with};
use crate::standin::StandIn;

const TOKEN: &str = "ghs_standintoken";
const REPO: &str = "o/r";
const PR: u64 = 7;
const MARKER: &str = "<!-- mneme fact summary -->";

fn harness() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/harness")
}

/// Runs one of the harness's node scripts; `None` (after recording the skip) without node or
/// the harness's packages.
fn node(script: &str, args: &[&str]) -> Option<std::process::Output> {
    let out = crate::ci::tool(
        "node",
        &[&[harness().join(script).to_str().unwrap()], args].concat(),
        "review on the forge against GitHub's published API and events",
    )?;
    if !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("Cannot find") {
        crate::skips::skip(
            "GitHub's API description: `npm ci` in tests/it/harness",
            "review on the forge",
        );
        return None;
    }
    Some(out)
}

/// An `issue_comment` event: GitHub's example, with the test's comment, pull request and
/// repository, valid against GitHub's schema.
fn event(action: &str, body: &str, login: &str, user_id: u64) -> Option<Value> {
    let overrides = json!({
        "comment": {
            "id": 9999,
            "html_url": format!("https://github.com/{REPO}/pull/{PR}#issuecomment-9999"),
            "body": body,
            "user": {"login": login, "id": user_id, "type": "User"},
            "author_association": "OWNER",
        },
        "issue": {
            "number": PR,
            "pull_request": {
                "url": format!("https://api.github.com/repos/{REPO}/pulls/{PR}"),
                "html_url": format!("https://github.com/{REPO}/pull/{PR}"),
                "diff_url": format!("https://github.com/{REPO}/pull/{PR}.diff"),
                "patch_url": format!("https://github.com/{REPO}/pull/{PR}.patch"),
                "merged_at": null,
            },
        },
        "repository": {"name": "r", "full_name": REPO, "html_url": format!("https://github.com/{REPO}")},
        "sender": {"login": login, "id": user_id},
    });
    webhook("issue_comment", action, &overrides)
}

/// GitHub's example of the event `name`.`action` with `overrides`, valid against its schema.
fn webhook(name: &str, action: &str, overrides: &Value) -> Option<Value> {
    let out = node("webhook-event.mjs", &[name, action, &overrides.to_string()])?;
    Some(serde_json::from_slice(&succeeded(out).stdout).unwrap())
}

/// The stand-in of GitHub's API, serving `state`; `None` (after recording the skip) without
/// node or the harness's packages.
fn github_standin(state: &Value) -> Option<StandIn> {
    crate::ci::tool(
        "node",
        &["--version"],
        "review on the forge against GitHub's API",
    )?;
    if !harness().join("node_modules/@octokit/openapi").is_dir() {
        crate::skips::skip(
            "GitHub's API description: `npm ci` in tests/it/harness",
            "review on the forge",
        );
        return None;
    }
    Some(StandIn::start(&harness().join("github-standin.mjs"), state))
}

/// What a run of the workflow did.
#[derive(Debug, Default)]
struct Run {
    /// Each step's name and whether it ran, and succeeded.
    steps: Vec<(String, Option<bool>)>,
    /// The time from the first step after mneme's install to the end of the push step.
    to_push: Option<Duration>,
    /// What each failed step printed.
    failures: Vec<String>,
    /// How long each `run:` step took.
    times: Vec<(String, Duration)>,
}

impl Run {
    fn ran(&self, name: &str) -> Option<bool> {
        self.steps
            .iter()
            .find(|(n, _)| n.starts_with(name))
            .unwrap_or_else(|| panic!("no step {name}: {:?}", self.steps))
            .1
    }
}

/// GitHub's expression language, as much as the workflows use: paths into the contexts,
/// string literals, `==`, `!=`, `!`, `&&`, `||`, parentheses, `always()`, `success()`,
/// `contains()` and `startsWith()` (case-insensitive, as GitHub compares).
struct Expr<'a> {
    s: &'a [u8],
    at: usize,
    cx: &'a Value,
    failed: bool,
}

impl Expr<'_> {
    fn eval(expr: &str, cx: &Value, failed: bool) -> Value {
        let mut e = Expr {
            s: expr.trim().as_bytes(),
            at: 0,
            cx,
            failed,
        };
        let v = e.or();
        e.ws();
        assert_eq!(e.at, e.s.len(), "unread expression: {expr}");
        v
    }

    fn ws(&mut self) {
        while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.ws();
        let found = self.s[self.at..].starts_with(token.as_bytes());
        if found {
            self.at += token.len();
        }
        found
    }

    fn or(&mut self) -> Value {
        let mut v = self.and();
        while self.eat("||") {
            let r = self.and();
            v = if truthy(&v) { v } else { r };
        }
        v
    }

    fn and(&mut self) -> Value {
        let mut v = self.unary();
        while self.eat("&&") {
            let r = self.unary();
            v = if truthy(&v) { r } else { v };
        }
        v
    }

    fn unary(&mut self) -> Value {
        if self.eat("!") && !self.s[self.at..].starts_with(b"=") {
            return Value::Bool(!truthy(&self.unary()));
        }
        let left = self.primary();
        if self.eat("==") {
            return Value::Bool(same(&left, &self.primary()));
        }
        if self.eat("!=") {
            return Value::Bool(!same(&left, &self.primary()));
        }
        left
    }

    fn primary(&mut self) -> Value {
        self.ws();
        if self.eat("(") {
            let v = self.or();
            assert!(self.eat(")"));
            return v;
        }
        if self.eat("'") {
            let start = self.at;
            while self.s[self.at] != b'\'' {
                self.at += 1;
            }
            let lit = String::from_utf8(self.s[start..self.at].to_vec()).unwrap();
            self.at += 1;
            return Value::String(lit);
        }
        let start = self.at;
        while self
            .s
            .get(self.at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        {
            self.at += 1;
        }
        let name = std::str::from_utf8(&self.s[start..self.at])
            .unwrap()
            .to_owned();
        if self.eat("(") {
            let mut args = Vec::new();
            while !self.eat(")") {
                args.push(self.or());
                self.eat(",");
            }
            let text = |v: &Value| string(v).to_lowercase();
            return match name.as_str() {
                "always" => Value::Bool(true),
                "success" => Value::Bool(!self.failed),
                "contains" => Value::Bool(text(&args[0]).contains(&text(&args[1]))),
                "startsWith" => Value::Bool(text(&args[0]).starts_with(&text(&args[1]))),
                other => panic!("function {other} is not emulated"),
            };
        }
        name.split('.')
            .try_fold(self.cx, |v, k| v.get(k))
            .cloned()
            .unwrap_or(Value::Null)
    }
}

fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Null | Value::Bool(false))
        && v.as_str() != Some("")
        && v.as_f64() != Some(0.0)
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Null, _) | (_, Value::Null) => false,
        _ => string(a).eq_ignore_ascii_case(&string(b)),
    }
}

/// A value as GitHub puts it in a string.
fn string(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `text` with each `${{ … }}` replaced by its value.
fn interpolate(text: &str, cx: &Value) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").unwrap() + start;
        out.push_str(&string(&Expr::eval(&rest[start + 3..end], cx, false)));
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// A condition: `${{ … }}` or bare, as GitHub reads `if:`.
fn condition(text: &str, cx: &Value, failed: bool) -> bool {
    let inner = text
        .trim()
        .strip_prefix("${{")
        .and_then(|t| t.strip_suffix("}}"))
        .unwrap_or(text);
    truthy(&Expr::eval(inner, cx, failed))
}

/// A pull request whose agent proposed three facts in its branch, on a signed ledger: its
/// repository served by git daemon, the API stand-in, and the workflow.
struct Pr {
    server: Server,
    api: StandIn,
    /// The workflows by file name: `mneme.yml`, `mneme-decide.yml`.
    workflows: BTreeMap<&'static str, Value>,
    /// The secret the workflow signs with; a test may take it away.
    forge_key: std::cell::RefCell<String>,
    proposals: Vec<String>,
    /// Each proposal's pin, as the summary shows it.
    pins: Vec<String>,
    state: Value,
}

/// A project set up for review on a forge (`mneme init --ci <ci>`) on a signed ledger, whose
/// agent branch `agent/facts` raises the pool and proposes three facts: the repository that made
/// it (back on `main`), the forge's private key, the proposals, their pins as the summary writes
/// them, and the branch's base and head.
pub(crate) struct AgentBranch {
    pub seed: Repo,
    pub forge_key: PathBuf,
    pub proposals: Vec<String>,
    pub pins: Vec<String>,
    pub base: String,
    pub head: String,
}

/// [`AgentBranch`]; `None` (after recording the skip) without ssh-keygen.
pub(crate) fn agent_branch(ci: &str) -> Option<AgentBranch> {
    let seed = Repo::committed();
    seed.init(&["--ci", ci]);
    let (human, human_pub) = keygen(&seed, "human")?;
    let (forge_key, forge_pub) = keygen(&seed, "forge")?;
    sign_with(&seed, &human);
    seed.write(
        ".ledger/allowed_signers",
        &format!("human@example.com {human_pub}\nmneme-forge {forge_pub}\n"),
    );
    seed.write("src/db.rs", "fn pool() {}\nconst SIZE: u32 = 10;\n");
    seed.git(&["add", "-A"]);
    seed.git(&["commit", "-q", "-m", "ci, keys, code"]);
    seed.approve_new(
        "architecture",
        "Every service stores its data in PostgreSQL.",
    );
    let base = seed.head();
    // The agent's branch: code, and three proposals committed with it.
    seed.git(&["checkout", "-q", "-b", "agent/facts"]);
    seed.write("src/db.rs", "fn pool() {}\nconst SIZE: u32 = 20;\n");
    let proposals = vec![
        seed.propose_add(
            "performance_rules",
            "The pool holds twenty connections.",
            &[
                "--reason",
                "raised after the load test",
                "--evidence",
                "src/db.rs:2",
                "--agent",
                "claude",
            ],
        ),
        seed.propose_add(
            "pitfalls",
            "Never block the executor.",
            &["--reason", "r", "--agent", "claude"],
        ),
        seed.propose_add(
            "invariants",
            "Every migration is reversible.",
            &["--reason", "r", "--agent", "claude"],
        ),
    ];
    seed.git(&["add", "-A"]);
    seed.git(&["commit", "-q", "-m", "raise the pool; propose facts"]);
    let head = seed.head();
    let diff = seed.json(&["diff", "main..agent/facts", "--json"]);
    let pins = proposals
        .iter()
        .map(|id| {
            let p = diff["pending"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["id"] == id.as_str())
                .unwrap();
            p["review"]["pin"].as_str().unwrap().to_owned()
        })
        .collect();
    seed.git(&["checkout", "-q", "main"]);
    Some(AgentBranch {
        seed,
        forge_key,
        proposals,
        pins,
        base,
        head,
    })
}

impl Pr {
    fn open() -> Option<Pr> {
        let AgentBranch {
            seed,
            forge_key,
            proposals,
            pins,
            base,
            head,
        } = agent_branch("github")?;
        let server = Server::start_as(&seed, &format!("{REPO}.git"));
        let state = json!({
            "token": TOKEN,
            "repo": REPO,
            "permissions": {"grace": "write", "rex": "read", "max": "admin"},
            "pulls": {PR.to_string(): {"state": "open",
                "head": {"ref": "agent/facts", "sha": head},
                "base": {"ref": "main", "sha": base}}},
            "comments": {PR.to_string(): [
                // Anyone can post the marker: only GitHub Actions' own comment is the summary.
                {"id": 500, "body": format!("{MARKER}\nforged"), "login": "mallory", "type": "User"},
                {"id": 501, "body": format!("{MARKER}\nthe summary"), "login": "github-actions[bot]", "type": "Bot"},
            ]},
        });
        let api = github_standin(&state)?;
        api.requests();
        let workflows = ["mneme.yml", "mneme-decide.yml"]
            .into_iter()
            .map(|n| {
                (
                    n,
                    serde_saphyr::from_str(&seed.read(&format!(".github/workflows/{n}"))).unwrap(),
                )
            })
            .collect();
        Some(Pr {
            server,
            api,
            workflows,
            forge_key: std::fs::read_to_string(forge_key).unwrap().into(),
            proposals,
            pins,
            state,
        })
    }

    /// The short id a reviewer types: the random part of a proposal's id.
    fn short(&self, i: usize) -> &str {
        self.proposals[i].rsplit_once('-').unwrap().1
    }

    /// A proposal as the summary's command names it: its short id and its pin.
    fn pinned(&self, i: usize) -> String {
        format!("{}@{}", self.short(i), self.pins[i])
    }

    /// The branch's tip on the server.
    fn tip(&self, branch: &str) -> String {
        let out = Command::new("git")
            .args(["rev-parse", &format!("refs/heads/{branch}")])
            .current_dir(self.server.bare())
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    /// Runs the decide workflow for `event` as GitHub would; `between` runs before each step.
    fn comment(&self, event: &Value, between: impl FnMut(&str)) -> Run {
        self.run_job(
            "mneme-decide.yml",
            "decide",
            "issue_comment",
            event,
            between,
        )
    }

    /// Runs `job` of `workflow` for the event `name` as GitHub would: its `if:`, then each step
    /// whose `if:` holds, `run:` under bash with GitHub's variables, `actions/checkout` as a
    /// clone of the server at the event's head. `between` runs before each step.
    fn run_job(
        &self,
        workflow: &str,
        job: &str,
        name: &str,
        event: &Value,
        mut between: impl FnMut(&str),
    ) -> Run {
        let job = &self.workflows[workflow]["jobs"][job];
        let runner = tempfile::tempdir().unwrap();
        let temp = runner.path().join("temp");
        let workspace = runner.path().join("workspace");
        std::fs::create_dir_all(&temp).unwrap();
        std::fs::create_dir_all(&workspace).unwrap();
        let event_path = runner.path().join("event.json");
        std::fs::write(&event_path, event.to_string()).unwrap();
        let mut cx = json!({
            "github": {"token": TOKEN, "event": event, "event_name": name, "repository": REPO,
                       "server_url": "https://github.com"},
            "runner": {"temp": temp},
            "secrets": {"MNEME_FORGE_SIGNING_KEY": *self.forge_key.borrow()},
            "steps": {},
        });
        let mut run = Run::default();
        if !job["if"].as_str().is_none_or(|c| condition(c, &cx, false)) {
            return run;
        }
        let job_env: Vec<(String, String)> = env_of(&job["env"], &cx);
        let mut failed = false;
        let mut started = None;
        for step in job["steps"].as_array().unwrap() {
            let name = string(if step["name"].is_null() {
                &step["uses"]
            } else {
                &step["name"]
            });
            between(&name);
            let runs = step["if"]
                .as_str()
                .map_or(!failed, |c| condition(c, &cx, failed));
            if !runs {
                run.steps.push((name, None));
                continue;
            }
            if name.starts_with("Install mneme") {
                // The release install is the one thing not run: mneme under test is on the PATH.
                run.steps.push((name, Some(true)));
                continue;
            }
            if step["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/checkout@"))
            {
                let head = string(&cx["github"]["event"]["pull_request"]["head"]["sha"]);
                let out = Command::new("git")
                    .args(["clone", "-q", &self.server.url(), "."])
                    .current_dir(&workspace)
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{out:?}");
                let ok = Command::new("git")
                    .args(["checkout", "-q", &head])
                    .current_dir(&workspace)
                    .status()
                    .unwrap()
                    .success();
                run.steps.push((name, Some(ok)));
                continue;
            }
            started.get_or_insert_with(Instant::now);
            let step_start = Instant::now();
            let output = runner.path().join("output");
            std::fs::write(&output, "").unwrap();
            let mut cmd = Command::new("bash");
            cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c"])
                .arg(step["run"].as_str().unwrap())
                .current_dir(&workspace)
                .env_clear()
                .env("PATH", path_with_mneme())
                .env("HOME", runner.path())
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("NO_COLOR", "1")
                .env("GITHUB_EVENT_PATH", &event_path)
                .env("GITHUB_OUTPUT", &output)
                .env("GITHUB_STEP_SUMMARY", runner.path().join("step-summary"))
                .env("GITHUB_API_URL", self.api.url())
                .env("GITHUB_SERVER_URL", self.server.root_url())
                .env("GITHUB_REPOSITORY", REPO)
                .env("GITHUB_WORKSPACE", &workspace)
                .env("RUNNER_TEMP", &temp);
            for (k, v) in job_env.iter().chain(&env_of(&step["env"], &cx)) {
                cmd.env(k, v);
            }
            let out = cmd.output().unwrap();
            let ok = out.status.success();
            if !ok {
                run.failures.push(format!(
                    "{name}:\n{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            failed |= !ok;
            if let Some(id) = step["id"].as_str() {
                let outputs: BTreeMap<String, String> = std::fs::read_to_string(&output)
                    .unwrap()
                    .lines()
                    .filter_map(|l| l.split_once('='))
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect();
                cx["steps"][id] = json!({ "outputs": outputs });
            }
            if name.starts_with("Push the decisions") {
                run.to_push = started.map(|s| s.elapsed());
            }
            run.times.push((name.clone(), step_start.elapsed()));
            run.steps.push((name, Some(ok)));
        }
        run
    }

    /// The replies, reactions and summary updates the run made, by kind.
    fn answers(&self) -> Answers {
        let requests = self.api.requests();
        let mut a = Answers::default();
        for r in requests {
            let template = r["template"].as_str().unwrap_or_default();
            match (r["method"].as_str().unwrap(), template) {
                ("POST", t) if t.ends_with("/reactions") => a
                    .reactions
                    .push(r["body"]["content"].as_str().unwrap().to_owned()),
                ("POST", t) if t.ends_with("/issues/{issue_number}/comments") => {
                    let body = r["body"]["body"].as_str().unwrap().to_owned();
                    if body.starts_with(MARKER) {
                        a.summaries.push((None, body));
                    } else {
                        a.replies.push(body);
                    }
                }
                ("PATCH", _) => a.summaries.push((
                    r["path"]
                        .as_str()
                        .unwrap()
                        .rsplit('/')
                        .next()
                        .map(str::to_owned),
                    r["body"]["body"].as_str().unwrap().to_owned(),
                )),
                ("GET", t) => a.read.push(t.to_owned()),
                other => panic!("unexpected request {other:?}"),
            }
        }
        a
    }
}

#[derive(Debug, Default)]
struct Answers {
    replies: Vec<String>,
    reactions: Vec<String>,
    /// `(comment id patched, body)`; `None`: posted new.
    summaries: Vec<(Option<String>, String)>,
    read: Vec<String>,
}

fn env_of(env: &Value, cx: &Value) -> Vec<(String, String)> {
    env.as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), interpolate(&string(v), cx)))
                .collect()
        })
        .unwrap_or_default()
}

/// A clone of the server's branch, to look at what was pushed.
fn clone_of(server: &Server, branch: &str) -> Repo {
    let repo = crate::remote::clone(&server.url());
    repo.git(&["checkout", "-q", branch]);
    repo
}

#[test]
fn one_comment_takes_three_proposals_to_approved_signed_and_verified() {
    let Some(pr) = Pr::open() else { return };
    let before = pr.tip("agent/facts");
    let body = format!(
        "Read them all, these hold.\n/mneme approve {} {} {}\n",
        pr.pinned(0),
        pr.pinned(1),
        pr.pinned(2)
    );
    let Some(event) = event("created", &body, "grace", 42) else {
        return;
    };
    let run = pr.comment(&event, |_| {});
    assert_eq!(run.ran("Push the decisions"), Some(true), "{run:?}");
    let to_push = run.to_push.unwrap();

    // Three decision commits on the branch, each the commenter's, each naming the comment.
    let clone = clone_of(&pr.server, "agent/facts");
    let log = clone.git(&[
        "log",
        "--format=%an <%ae>|%cn|%s",
        &format!("{before}..HEAD"),
    ]);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 3, "{log}");
    for line in &lines {
        assert!(
            line.starts_with("grace <42+grace@users.noreply.github.com>|grace|ledger("),
            "{line}"
        );
    }
    let url = format!("https://github.com/{REPO}/pull/{PR}#issuecomment-9999");
    assert_eq!(
        clone.trailer("HEAD", "Mneme-Forge"),
        vec![format!("github.com grace 42 {url}")]
    );
    // Each record names the forge reviewer and is signed by the forge's key.
    let record = clone.head_record();
    assert_eq!(
        record["forge"],
        json!({"site": "github.com", "login": "grace", "id": 42, "comment": url})
    );
    assert!(record["signature"]
        .as_str()
        .unwrap()
        .starts_with("-----BEGIN SSH SIGNATURE-----"));
    assert!(clone.proposals().is_empty());

    // verify holds the branch to the base's keys: the forge's key signs forge decisions.
    let out = clone
        .mneme(&["verify", "origin/main..HEAD", "--json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(out.status.success(), "{report}");
    assert_eq!(report["decisions"], 3);
    let fact = clone
        .facts()
        .into_iter()
        .find(|(_, f)| f["text"] == "The pool holds twenty connections.")
        .unwrap()
        .0;
    let why = clone.stdout(&["why", &fact]);
    assert!(
        why.contains(&format!("approved on GitHub by @grace ({url})")),
        "{why}"
    );
    let log = clone.stdout(&["log"]);
    assert!(log.contains("(claude → @grace on GitHub)"), "{log}");
    assert!(
        log.contains(&format!("    approved on GitHub by @grace ({url})")),
        "{log}"
    );

    // The API: who commented and on what was asked; the command got +1, the thread a reply,
    // and GitHub Actions' summary comment (not the forged one) was updated.
    let a = pr.answers();
    assert!(
        a.read
            .contains(&"/repos/{owner}/{repo}/collaborators/{username}/permission".to_owned()),
        "{a:?}"
    );
    assert!(a
        .read
        .contains(&"/repos/{owner}/{repo}/pulls/{pull_number}".to_owned()));
    assert_eq!(a.reactions, vec!["+1"]);
    assert_eq!(a.replies.len(), 1, "{a:?}");
    let reply = &a.replies[0];
    assert!(
        reply.starts_with("@grace: decided 3 proposals on `agent/facts`, as 3 commits:"),
        "{reply}"
    );
    for id in &pr.proposals {
        assert!(
            reply.contains(&format!("| `{id}` | approved | [")),
            "{reply}"
        );
    }
    assert!(reply.contains("`mneme verify "), "{reply}");
    assert!(reply.contains("passes."), "{reply}");
    assert_eq!(a.summaries.len(), 1, "{a:?}");
    let (patched, summary) = &a.summaries[0];
    assert_eq!(patched.as_deref(), Some("501"));
    assert!(
        summary.contains("The pool holds twenty connections."),
        "{summary}"
    );
    // Named, never notified: each summary update would ping the reviewer again.
    assert!(summary.contains("@&#8203;grace on GitHub"), "{summary}");
    std::fs::write(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("forge-summary-after.md"),
        summary,
    )
    .unwrap();
    assert!(!summary.contains("### Pending proposals"), "{summary}");
    // For scripts/bench-forge and the docs: how long, and what the reviewer reads.
    std::fs::write(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("forge-decide.txt"),
        format!(
            "comment to pushed decisions: {to_push:?} ({})\n\n{reply}",
            run.times
                .iter()
                .map(|(n, t)| format!("{n}: {t:?}"))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    )
    .unwrap();
}

/// The pull request's own workflow keeps one summary comment: it shows each pending proposal
/// with the comment that decides it, and updates GitHub Actions' comment in place.
#[test]
fn the_pull_request_s_summary_tells_reviewers_what_to_comment() {
    let Some(pr) = Pr::open() else { return };
    let pull = &pr.state["pulls"][PR.to_string()];
    let overrides = json!({
        "number": PR,
        "pull_request": {
            "number": PR,
            "head": {"ref": pull["head"]["ref"], "sha": pull["head"]["sha"], "repo": {"full_name": REPO}},
            "base": {"ref": pull["base"]["ref"], "sha": pull["base"]["sha"], "repo": {"full_name": REPO}},
        },
        "repository": {"name": "r", "full_name": REPO},
    });
    let Some(event) = webhook("pull_request", "synchronize", &overrides) else {
        return;
    };
    let run = pr.run_job("mneme.yml", "ledger", "pull_request", &event, |_| {});
    assert!(run.steps.iter().all(|(_, ok)| *ok == Some(true)), "{run:?}");
    let a = pr.answers();
    assert!(a.replies.is_empty() && a.reactions.is_empty(), "{a:?}");
    assert_eq!(a.summaries.len(), 1, "{a:?}");
    let (patched, summary) = &a.summaries[0];
    assert_eq!(
        patched.as_deref(),
        Some("501"),
        "GitHub Actions' comment, not the forged one"
    );
    assert!(summary.starts_with(MARKER), "{summary}");
    // As a reviewer reads it, for the docs.
    std::fs::write(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("forge-summary.md"),
        summary,
    )
    .unwrap();
    assert!(summary.contains("### Pending proposals (3)"), "{summary}");
    for i in 0..3 {
        let (short, pinned) = (pr.short(i), pr.pinned(i));
        assert!(
            summary.contains(&format!(
                "decide: comment `/mneme approve {pinned}` or `/mneme reject {short} <reason>`"
            )),
            "{summary}"
        );
    }

    // Without a summary of its own yet, the workflow posts one.
    let mut fresh = pr.state.clone();
    fresh["comments"][PR.to_string()] = json!([]);
    pr.api.set_state(&fresh);
    pr.run_job("mneme.yml", "ledger", "pull_request", &event, |_| {});
    let a = pr.answers();
    assert_eq!(a.summaries.len(), 1, "{a:?}");
    assert_eq!(a.summaries[0].0, None);
}

/// Runs `body` by `login` (`action`: created or edited) and asserts that nothing was pushed
/// and the thread was told why; returns the reply.
fn refused(pr: &Pr, action: &str, body: &str, login: &str) -> Option<String> {
    let before = pr.tip("agent/facts");
    let event = event(action, body, login, 77)?;
    let run = pr.comment(&event, |_| {});
    assert_eq!(pr.tip("agent/facts"), before, "nothing is pushed: {run:?}");
    let a = pr.answers();
    assert_eq!(a.reactions, vec!["confused"], "{a:?}");
    assert_eq!(a.replies.len(), 1, "{a:?}");
    assert!(a.summaries.is_empty(), "{a:?}");
    Some(a.replies[0].clone())
}

#[test]
fn every_refused_command_is_answered_and_pushes_nothing() {
    let Some(pr) = Pr::open() else { return };
    let approve = format!("/mneme approve {}", pr.short(0));

    // A reader: their author association in the payload says OWNER; the API says read.
    let Some(reply) = refused(&pr, "created", &approve, "rex") else {
        return;
    };
    assert!(
        reply.contains("@rex: nothing was decided: deciding needs write permission"),
        "{reply}"
    );

    // An edited comment is never a command, whoever edited it.
    let reply = refused(&pr, "edited", &approve, "grace").unwrap();
    assert!(
        reply.contains("an edited comment is not a command"),
        "{reply}"
    );

    // A proposal that changed after the summary was read: its pin no longer names it.
    let reply = refused(
        &pr,
        "created",
        &format!("/mneme approve {}@0badc0de", pr.short(0)),
        "grace",
    )
    .unwrap();
    assert!(
        reply.contains("changed after the summary you read was written"),
        "{reply}"
    );
    assert!(
        reply.contains(&format!("it is now `{}`", pr.pins[0])),
        "{reply}"
    );

    // A signed ledger, and a workflow without the forge's key: nothing can be signed.
    let key = pr.forge_key.replace(String::new());
    let reply = refused(&pr, "created", &approve, "grace").unwrap();
    assert!(reply.contains("could not sign: add the forge's key as the repository secret `MNEME_FORGE_SIGNING_KEY`"), "{reply}");
    pr.forge_key.replace(key);

    // Unknown ids, and a command that cannot be read.
    let reply = refused(&pr, "created", "/mneme approve zzzz9999", "grace").unwrap();
    assert!(reply.contains("unknown proposal `zzzz9999`"), "{reply}");
    let reply = refused(
        &pr,
        "created",
        "/mneme approve all\n/mneme merge now",
        "grace",
    )
    .unwrap();
    assert!(reply.contains("`merge` is not a mneme command"), "{reply}");

    // A command the reader cannot see: hidden in HTML, the comment is refused and says why.
    let reply = refused(
        &pr,
        "created",
        "Looks fine.\n<!--\n/mneme approve all\n-->",
        "grace",
    )
    .unwrap();
    assert!(reply.contains("can hide text from the reader"), "{reply}");

    // All or none: the second of two commands cannot apply, so the first is not pushed.
    let reply = refused(
        &pr,
        "created",
        &format!("{approve}\n/mneme drop {} 2", pr.short(1)),
        "grace",
    )
    .unwrap();
    assert!(reply.contains("command 2 cannot apply"), "{reply}");
    assert!(
        reply.contains("operation 2: the proposal has operations 1 to 1"),
        "{reply}"
    );

    // A head that moved after GitHub answered: the checkout is not the head the API named.
    let mut stale = pr.state.clone();
    let tip = pr.tip("agent/facts");
    let parent = {
        let out = Command::new("git")
            .args(["rev-parse", &format!("{tip}~1")])
            .current_dir(pr.server.bare())
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    stale["pulls"][PR.to_string()]["head"]["sha"] = json!(parent);
    pr.api.set_state(&stale);
    let reply = refused(&pr, "created", &approve, "grace").unwrap();
    assert!(reply.contains("it moved"), "{reply}");

    // A pull request from a fork: its branch is never fetched with this repository's token.
    let mut fork = pr.state.clone();
    fork["pulls"][PR.to_string()]["head"]["repo"] = json!("mallory/r");
    pr.api.set_state(&fork);
    let event = event("created", &approve, "grace", 42).unwrap();
    let run = pr.comment(&event, |_| {});
    assert_eq!(run.ran("Check out"), None, "{run:?}");
    let a = pr.answers();
    assert!(
        a.replies[0].contains("this pull request's branch is in `mallory/r`"),
        "{a:?}"
    );
    assert_eq!(a.reactions, vec!["confused"]);
    pr.api.set_state(&pr.state);

    // The branch moves while the decisions are made: the push is refused, and said so.
    let before = pr.tip("agent/facts");
    let event = crate::forge::event("created", &approve, "grace", 42).unwrap();
    let pusher = crate::remote::clone(&pr.server.url());
    let run = pr.comment(&event, |step| {
        if step.starts_with("Push the decisions") {
            pusher.git(&["checkout", "-q", "agent/facts"]);
            pusher.write("NOTES.md", "moved\n");
            pusher.git(&["add", "-A"]);
            pusher.git(&["commit", "-q", "-m", "meanwhile"]);
            pusher.git(&["push", "-q", "origin", "agent/facts"]);
        }
    });
    assert_eq!(run.ran("Push the decisions"), Some(true), "{run:?}");
    let moved = pr.tip("agent/facts");
    assert_ne!(moved, before);
    assert_eq!(pusher.head(), moved, "only the other push landed");
    let a = pr.answers();
    assert!(
        a.replies[0].contains("moved while the decisions were made"),
        "{a:?}"
    );
    assert_eq!(a.reactions, vec!["confused"]);
    assert!(a.summaries.is_empty());

    // Comments that are not mneme's run nothing and say nothing.
    let event =
        crate::forge::event("created", "Thanks, /mnemonic is a nice name", "grace", 42).unwrap();
    let run = pr.comment(&event, |_| {});
    assert!(
        run.steps.is_empty() || run.ran("Check out").is_none(),
        "{run:?}"
    );
    let a = pr.answers();
    assert!(a.replies.is_empty() && a.reactions.is_empty(), "{a:?}");

    // Two competing updates of one fact, pushed to the branch: approving both conflicts on the
    // second, so neither is pushed.
    pusher.git(&["pull", "-q", "--no-rebase", "origin", "agent/facts"]);
    let fact = pusher
        .facts()
        .into_iter()
        .find(|(_, f)| f["text"] == "Every service stores its data in PostgreSQL.")
        .unwrap()
        .0;
    let first = pusher.propose_update(
        &fact,
        "Every service stores its data in PostgreSQL 16.",
        &["--reason", "r"],
    );
    let second = pusher.propose_update(
        &fact,
        "Every service stores its data in SQLite.",
        &["--reason", "r"],
    );
    pusher.git(&["add", "-A"]);
    pusher.git(&["commit", "-q", "-m", "two competing updates"]);
    pusher.git(&["push", "-q", "origin", "agent/facts"]);
    let mut competing = pr.state.clone();
    competing["pulls"][PR.to_string()]["head"]["sha"] = json!(pusher.head());
    pr.api.set_state(&competing);
    let short = |id: &str| id.rsplit_once('-').unwrap().1.to_owned();
    let reply = refused(
        &pr,
        "created",
        &format!("/mneme approve {} {}", short(&first), short(&second)),
        "grace",
    )
    .unwrap();
    assert!(reply.contains("command 1 cannot apply"), "{reply}");
    assert!(
        reply.contains(&format!(
            "proposal `{second}` conflicts with the current facts"
        )),
        "{reply}"
    );
}

/// Where decisions are signed, the forge's key signs only forge decisions, and a forge decision
/// counts only when the forge's key signed it.
#[test]
fn the_forge_key_and_forge_decisions_prove_only_each_other() {
    let repo = Repo::committed();
    let Some((human, human_pub)) = keygen(&repo, "human") else {
        return;
    };
    let (forge, forge_pub) = keygen(&repo, "forge").unwrap();
    sign_with(&repo, &human);
    // The forge's key is also listed, by a pattern, for the team's addresses.
    repo.write(
        ".ledger/allowed_signers",
        &format!("human@example.com {human_pub}\nmneme-forge,*@example.com {forge_pub}\n"),
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "keys"]);
    let base = repo.head();

    // A person who holds the forge's key signs an ordinary approval with it.
    sign_with(&repo, &forge);
    repo.approve_new("pitfalls", "Never block the executor.");
    let out = repo
        .mneme(&["verify", &format!("{base}..HEAD"), "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("signs only decisions made on the forge"),
        "{text}"
    );
    repo.git(&["reset", "-q", "--hard", &base]);

    // A listed person's key signs a record that claims a forge reviewer.
    sign_with(&repo, &human);
    let id = repo.propose_add("pitfalls", "Never block the executor.", &["--reason", "r"]);
    let dir = repo.file(".git/forge-inputs");
    std::fs::create_dir_all(&dir).unwrap();
    let head = repo.head();
    let files = [
        (
            "event.json",
            json!({"action": "created",
            "comment": {"id": 1, "html_url": "https://github.com/o/r/pull/1#issuecomment-1",
                        "body": format!("/mneme approve {id}"), "user": {"login": "grace", "id": 42, "type": "User"}},
            "issue": {"number": 1, "pull_request": {}},
            "repository": {"full_name": "o/r", "html_url": "https://github.com/o/r"}}),
        ),
        (
            "pull.json",
            json!({"number": 1, "state": "open",
            "head": {"ref": "main", "sha": head, "repo": {"full_name": "o/r"}},
            "base": {"ref": "main", "sha": base, "repo": {"full_name": "o/r"}}}),
        ),
        (
            "permission.json",
            json!({"permission": "write", "role_name": "write", "user": {"login": "grace"}}),
        ),
    ];
    for (name, value) in &files {
        std::fs::write(dir.join(name), value.to_string()).unwrap();
    }
    let arg = |n: &str| dir.join(n).to_str().unwrap().to_owned();
    let out = repo
        .mneme(&[
            "forge",
            "decide",
            "--event",
            &arg("event.json"),
            "--pull",
            &arg("pull.json"),
            "--permission",
            &arg("permission.json"),
            "--out",
            &arg("answer"),
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&succeeded(out).stdout),
        "push=true\n"
    );
    assert_eq!(repo.head_record()["forge"]["login"], "grace");
    let out = repo
        .mneme(&["verify", &format!("{base}..HEAD"), "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("not for the committer mneme-forge"), "{text}");
}
