//! The interactive review driven in a real terminal: tmux runs `mneme review`, send-keys types,
//! capture-pane reads the screen.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::Repo;

struct Tmux {
    socket: String,
    session: &'static str,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        // UTF-8 whatever the caller's locale, so the screen holds every script as it is.
        Command::new("tmux")
            .env("LC_ALL", "C.UTF-8")
            .arg("-u")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux")
    }

    fn screen(&self, escapes: bool) -> String {
        let mut args = vec![
            "capture-pane",
            "-p",
            "-J",
            "-S",
            "-2000",
            "-t",
            self.session,
        ];
        if escapes {
            args.push("-e");
        }
        String::from_utf8_lossy(&self.cmd(&args).stdout).into_owned()
    }

    /// What the terminal shows now, without what scrolled out of sight.
    fn visible(&self) -> String {
        let out = self.cmd(&["capture-pane", "-p", "-J", "-t", self.session]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until `needle` appears `count` times on the screen.
    fn wait_for(&self, needle: &str, count: usize) {
        let start = Instant::now();
        loop {
            let screen = self.screen(false);
            if screen.matches(needle).count() >= count {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "timed out waiting for {needle:?} x{count}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", self.session];
        args.extend_from_slice(keys);
        assert!(self.cmd(&args).status.success());
    }

    /// Waits for the `n`-th review prompt, then presses `key`.
    fn at_prompt(&self, n: usize, key: &str) {
        self.wait_for(PROMPT, n);
        self.keys(&[key]);
    }

    /// Waits for `question` to be on screen `count` times, then types `text` and Enter.
    fn answer(&self, question: &str, count: usize, text: &str) {
        self.wait_for(question, count);
        self.keys(&["-l", text]);
        self.keys(&["Enter"]);
    }
}

impl Tmux {
    /// `mneme review` in a new tmux session, in `repo`, with `editor` as `$VISUAL`.
    fn review(repo: &Repo, editor: &std::path::Path, session: &'static str) -> Tmux {
        Tmux::review_with(repo, editor, session, &[])
    }

    /// `mneme review ARGS` (each single-quoted, as the shell gets them).
    fn review_with(
        repo: &Repo,
        editor: &std::path::Path,
        session: &'static str,
        args: &[&str],
    ) -> Tmux {
        let tmux = Tmux {
            socket: format!("mneme-test-{}-{session}", std::process::id()),
            session,
        };
        let args: String = args.iter().map(|a| format!(" '{a}'")).collect();
        let script = format!(
            "cd '{}' && env -u NO_COLOR -u GIT_DIR VISUAL='{}' GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 '{}' review{args}; echo \"EXIT=$?\"; sleep 60",
            repo.path().display(),
            editor.display(),
            assert_cmd::cargo::cargo_bin("mneme").display(),
        );
        let started = tmux.cmd(&[
            "new-session",
            "-d",
            "-s",
            tmux.session,
            "-x",
            "160",
            "-y",
            "50",
            &script,
        ]);
        assert!(
            started.status.success(),
            "{}",
            String::from_utf8_lossy(&started.stderr)
        );
        tmux
    }
}

/// Whether tmux can run here; CI must have it.
fn tmux_available() -> bool {
    if Command::new("tmux").arg("-V").output().is_ok() {
        return true;
    }
    crate::skips::skip("tmux", "the review in a real terminal");
    false
}

/// A committed repository to review in a real terminal; `None` where tmux cannot run.
fn terminal_repo() -> Option<Repo> {
    tmux_available().then(Repo::committed)
}

/// The reviewer's editor: a shell script running `body` on the file it is given (`$1`).
fn editor(repo: &Repo, body: &str) -> PathBuf {
    let path = repo.file(".git/test-editor.sh");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

const PROMPT: &str = "Approve this proposal [";

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

#[test]
fn approve_reject_edit_and_quit_in_a_real_terminal() {
    let Some(repo) = terminal_repo() else {
        return;
    };
    let p1 = repo.propose_add(
        "architecture",
        "We use PostgreSQL 16.",
        &["--reason", "adr", "--evidence", "docs/adr.md"],
    );
    let p2 = repo.propose_add("pitfalls", "Tabs beat spaces.", &["--reason", "opinion"]);
    let p3 = repo.propose_add("invariants", "Ids are a draft idea.", &["--reason", "r"]);
    let p4 = repo.propose_add("pitfalls", "Left for later.", &["--reason", "r"]);
    let f3 = repo.new_fact_id(&p3);

    let editor = editor(&repo, "sed -i 's/a draft idea/never reused/' \"$1\"");

    let tmux = Tmux::review(&repo, &editor, "review");
    tmux.wait_for(PROMPT, 1);
    let screen = tmux.screen(false);
    assert!(
        screen.contains("(1 of 4)") && screen.contains("+- **f-") && screen.contains("docs/adr.md"),
        "{screen}"
    );
    assert!(
        tmux.screen(true).contains("\u{1b}["),
        "colored on a terminal"
    );
    tmux.keys(&["y"]);

    tmux.wait_for(PROMPT, 2);
    assert!(tmux.screen(false).contains("NO EVIDENCE"));
    tmux.keys(&["n"]);
    tmux.answer("Reason for rejecting", 1, "not a fact");

    tmux.at_prompt(3, "e");
    tmux.wait_for("edited by you", 1);
    tmux.wait_for(PROMPT, 4);
    assert!(tmux.screen(false).contains("Ids are never reused."));
    tmux.keys(&["y"]);

    tmux.at_prompt(5, "q");
    tmux.wait_for("EXIT=", 1);
    let screen = tmux.screen(false);
    assert!(
        screen.contains("2 approved, 1 rejected, 1 left pending."),
        "{screen}"
    );
    assert!(screen.contains("EXIT=0"), "{screen}");

    let subjects = repo.git(&["log", "--format=%s", "-3"]);
    let subjects: Vec<_> = subjects.lines().collect();
    assert_eq!(subjects.len(), 3);
    assert_eq!(
        subjects[0],
        format!("ledger(invariants): add {f3} Ids are never reused.")
    );
    assert!(subjects[1].starts_with("ledger(pitfalls): reject add f-"));
    assert!(subjects[2].starts_with("ledger(architecture): add f-"));
    assert_eq!(repo.trailer("HEAD", "Mneme-Edited"), ["true"]);
    // The agent's own text stays on record beside the reviewer's edit.
    assert_eq!(
        repo.trailer("HEAD", "Mneme-Proposed-Text"),
        [format!("{f3} \"Ids are a draft idea.\"")]
    );
    assert_eq!(repo.trailer("HEAD", "Mneme-Proposal"), [p3.as_str()]);
    let log = repo.stdout(&["log", "-n", "1"]);
    assert!(
        log.contains("edited by the reviewer") && !log.contains(" of "),
        "{log}"
    );
    assert_eq!(repo.trailer("HEAD~1", "Mneme-Proposal"), [p2.as_str()]);
    assert!(repo
        .git(&["log", "-1", "--format=%b", "HEAD~1"])
        .starts_with("Rejected: not a fact\n"));
    assert_eq!(repo.trailer("HEAD~2", "Mneme-Proposal"), [p1.as_str()]);
    assert!(repo
        .read(".ledger/facts/invariants.md")
        .contains(&format!("- **{f3}** Ids are never reused.")));
    let left: Vec<_> = repo
        .proposals()
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, [p4]);
    assert_eq!(
        repo.git(&["status", "--porcelain", "--", ".ledger/facts"]),
        ""
    );
}

#[test]
fn the_editor_flow_in_a_real_terminal() {
    let Some(repo) = terminal_repo() else {
        return;
    };
    let gone = repo.propose_add("pitfalls", "Soon removed.", &["--reason", "r"]);
    let gone_id = repo.new_fact_id(&gone);
    repo.approve(&gone);
    let stale = repo.propose_update(&gone_id, "Rewritten.", &["--reason", "r"]);
    let removal = repo.propose(&["remove", &gone_id, "--reason", "r"]);
    repo.approve(&removal);
    let p = repo.propose_add("invariants", "Ids are a draft idea.", &["--reason", "r"]);
    let fact = repo.new_fact_id(&p);
    // Each run of the editor does the next step: empty the text, leave it, fail, write an
    // invalid statement, then a real edit.
    let steps = repo.file(".git/editor-steps");
    let editor = editor(&repo, &format!(
            "n=$(cat '{s}' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '{s}'\n\
             case $n in 1) : > \"$1\";; 2) exit 0;; 3) exit 3;; 4) printf 'Bad <!-- x -->' > \"$1\";;\n\
             *) sed -i 's/Ids are a draft idea/Identifiers are never reused/' \"$1\";; esac",
            s = steps.display()
        ),
    );
    let before = repo.head();
    let tmux = Tmux::review(&repo, &editor, "editor");

    // The stale update targets a removed fact: only reject, skip or quit.
    tmux.wait_for(PROMPT, 1);
    let screen = tmux.screen(false);
    assert!(
        screen.contains(&stale) && screen.contains("[n,s,q,?]"),
        "{screen}"
    );
    tmux.keys(&["e"]);
    tmux.wait_for(PROMPT, 2);
    assert_eq!(
        std::fs::read_to_string(&steps).ok(),
        None,
        "e opened the editor"
    );
    tmux.keys(&["s"]);

    tmux.wait_for(PROMPT, 3);
    for (n, shown) in [
        (1, "edit cancelled"),
        (2, "nothing changed"),
        (3, "exited with"),
        (4, "reserved for fact metadata"),
    ] {
        tmux.keys(&["e"]);
        tmux.wait_for(shown, 1);
        tmux.wait_for(PROMPT, 3 + n);
        let screen = tmux.screen(false);
        assert!(!screen.contains("edited by you"), "step {n}:\n{screen}");
    }
    tmux.keys(&["e"]);
    tmux.wait_for("edited by you", 1);
    tmux.at_prompt(8, "y");
    tmux.wait_for("EXIT=", 1);
    let screen = tmux.screen(false);
    assert!(
        screen.contains("1 approved, 0 rejected, 1 left pending."),
        "{screen}"
    );
    assert!(screen.contains("EXIT=0"), "{screen}");
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), before);
    assert_eq!(repo.trailer("HEAD", "Mneme-Edited"), ["true"]);
    assert!(repo
        .read(".ledger/facts/invariants.md")
        .contains(&format!("- **{fact}** Identifiers are never reused.")));
    assert_eq!(
        repo.proposals().len(),
        1,
        "the stale update is still pending"
    );
}

#[test]
fn approve_with_a_message_then_approve_the_rest_in_a_real_terminal() {
    let Some(repo) = terminal_repo() else {
        return;
    };
    let base = repo.propose_add("architecture", "Fact A.", &["--reason", "r"]);
    let fa = repo.new_fact_id(&base);
    repo.approve(&base);
    let p1 = repo.propose_add("pitfalls", "Never block the executor.", &["--reason", "r"]);
    let up1 = repo.propose_update(&fa, "Fact A, first rewrite.", &["--reason", "r"]);
    let up2 = repo.propose_update(&fa, "Fact A, competing rewrite.", &["--reason", "r"]);
    let p4 = repo.propose_add("invariants", "Ids are never reused.", &["--reason", "r"]);
    let editor = editor(&repo, "exit 0");

    let tmux = Tmux::review(&repo, &editor, "rest");
    tmux.wait_for(PROMPT, 1);
    assert!(tmux.screen(false).contains("[y,m,a,n,e,s,q,?]"));
    tmux.keys(&["m"]);
    tmux.answer("Message for the commit", 1, "checked the runtime docs");

    tmux.at_prompt(2, "a");
    tmux.wait_for("Approve this and the 2 later proposal(s) that apply?", 1);
    tmux.keys(&["y"]);
    tmux.wait_for("EXIT=", 1);
    let screen = tmux.screen(false);
    assert!(
        screen.contains("3 approved, 0 rejected, 1 left pending."),
        "{screen}"
    );
    assert!(screen.contains("left pending: proposal"), "{screen}");

    assert_eq!(repo.trailer("HEAD~2", "Mneme-Proposal"), [p1.as_str()]);
    assert!(repo
        .git(&["log", "-1", "--format=%b", "HEAD~2"])
        .contains("checked the runtime docs"));
    assert_eq!(repo.trailer("HEAD~1", "Mneme-Proposal"), [up1.as_str()]);
    assert_eq!(repo.trailer("HEAD", "Mneme-Proposal"), [p4.as_str()]);
    let left: Vec<_> = repo
        .proposals()
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, [up2], "the conflicting update stays pending");
}

/// The reviewer sees text in any script as it is, and hidden characters as escapes: the fact
/// around the change that holds a right-to-left override cannot read differently on screen.
#[test]
fn the_review_screen_shows_every_script_and_escapes_hidden_characters() {
    let Some(repo) = terminal_repo() else {
        return;
    };
    repo.seed_facts(
        "architecture",
        &[
            ("f-zh01", "数据库连接池的大小固定为 32。"),
            ("f-hid1", "Access is \u{202e}denied\u{202c} for guests."),
            ("f-ar01", "يجب أن تكون جميع الاستجابات بترميز UTF-8."),
        ],
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "facts"]);
    let p = repo.propose_update(
        "f-zh01",
        "数据库连接池的大小固定为 64。🚀",
        &["--reason", "负载测试", "--agent", "克劳德"],
    );
    let editor = editor(&repo, "true");
    let tmux = Tmux::review(&repo, &editor, "scripts");
    tmux.wait_for(PROMPT, 1);
    let screen = tmux.screen(false);
    for shown in [
        "数据库连接池的大小固定为 64。🚀",
        "负载测试",
        "克劳德",
        "Access is \\u{202e}denied\\u{202c}",
        "يجب أن تكون",
    ] {
        assert!(screen.contains(shown), "{shown:?} not on screen:\n{screen}");
    }
    assert!(
        !screen.contains('\u{202e}'),
        "a raw override reached the screen:\n{screen}"
    );
    tmux.keys(&["y"]);
    tmux.wait_for("EXIT=", 1);
    assert!(tmux.screen(false).contains("EXIT=0"));
    assert!(repo
        .read(".ledger/facts/architecture.md")
        .contains("- **f-zh01** 数据库连接池的大小固定为 64。🚀"));
    assert_eq!(repo.trailer("HEAD", "Mneme-Proposal"), [p]);
}

/// Focus: `mneme review --agent NAME` takes up that agent's proposals only, and `mneme review
/// ID` the one named; the rest stay pending, untouched.
#[test]
fn review_takes_up_only_the_proposals_in_focus() {
    let Some(repo) = terminal_repo() else {
        return;
    };
    let by = |agent: &str, text: &str| {
        let out = repo
            .mneme(&[
                "propose", "--json", "add", "-f", "pitfalls", text, "--reason", "r",
            ])
            .env("MNEME_AGENT", agent)
            .output()
            .unwrap();
        crate::common::json(&out)["id"].as_str().unwrap().to_owned()
    };
    let a = by("claude", "Claude's first fact here.");
    let b = by("codex", "Codex's only fact here.");
    let c = by("claude", "Claude's second fact here.");
    let editor = editor(&repo, "exit 0");

    let tmux = Tmux::review_with(&repo, &editor, "focus", &["--agent", "codex"]);
    tmux.wait_for(PROMPT, 1);
    let screen = tmux.screen(false);
    assert!(
        screen.contains(&format!("Proposal {b}  (1 of 1)")),
        "{screen}"
    );
    tmux.keys(&["y"]);
    tmux.wait_for("EXIT=0", 1);
    assert_eq!(repo.trailer("HEAD", "Mneme-Proposal"), [b.as_str()]);
    drop(tmux);

    let tmux = Tmux::review_with(&repo, &editor, "named", &[&c]);
    tmux.wait_for(PROMPT, 1);
    assert!(tmux
        .screen(false)
        .contains(&format!("Proposal {c}  (1 of 1)")));
    tmux.keys(&["n"]);
    tmux.wait_for("Reason for rejecting", 1);
    tmux.keys(&["Enter"]);
    tmux.wait_for("EXIT=0", 1);
    let left: Vec<_> = repo
        .proposals()
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, std::slice::from_ref(&a));
    // Outside a terminal, `list` takes the same focus.
    let v = repo.json(&[
        "review", "list", "--agent", "claude", "--since", "1h", "--json",
    ]);
    assert_eq!(v.as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v[0]["id"], a.as_str());
    let v = repo.json(&["review", "list", "--file", "architecture.md", "--json"]);
    assert_eq!(v, serde_json::json!([]));
    let out = repo
        .mneme(&["review", "list", "--since", "yesterday"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--since yesterday"));
}

/// Leaving an edited proposal by skip or quit asks first: `n` keeps the edit on screen, `y`
/// leaves the proposal as the agent wrote it.
#[test]
fn leaving_an_edit_by_skip_or_quit_asks_first() {
    let Some(repo) = terminal_repo() else {
        return;
    };
    let p = repo.propose_add("pitfalls", "Retries are a draft.", &["--reason", "r"]);
    let editor = editor(
        &repo,
        "sed -i 's/Retries are a draft/Retries back off exponentially/' \"$1\"",
    );
    let tmux = Tmux::review(&repo, &editor, "leave");
    tmux.at_prompt(1, "e");
    tmux.wait_for("Retries back off exponentially", 1);
    tmux.at_prompt(2, "s");
    tmux.wait_for("Leave without your edit?", 1);
    tmux.keys(&["n"]);
    tmux.at_prompt(3, "q");
    tmux.wait_for("Leave without your edit?", 2);
    tmux.keys(&["y"]);
    tmux.wait_for("EXIT=0", 1);
    let file = repo.read(&format!(".ledger/proposals/{p}.json"));
    assert!(
        file.contains("Retries are a draft."),
        "the agent's text stays: {file}"
    );
}

/// A proposal whose fact changed since is resolved without a text change: `r` (or the editor
/// saved as it was) aims it at the fact as it is now, shows the new diff, and it can be
/// approved. Verify proposals, which have no text, are resolvable too.
#[test]
fn a_conflict_is_resolved_by_retargeting_without_a_text_change() {
    let Some(repo) = terminal_repo() else {
        return;
    };
    let fact = repo.approve_new("architecture", "The pool holds 8 connections.");
    let verify = repo.propose(&["verify", &fact, "--reason", "checked the config"]);
    let update = repo.propose_update(&fact, "The pool holds 12 connections.", &["--reason", "r"]);
    let other = repo.propose_update(&fact, "The pool holds 16 connections.", &["--reason", "r"]);
    repo.approve(&other);
    let editor = editor(&repo, "exit 0");
    let tmux = Tmux::review(&repo, &editor, "retarget");
    tmux.wait_for("[n,e,r,s,q,?]", 1);
    assert!(tmux.screen(false).contains(&verify));
    tmux.keys(&["r"]);
    tmux.wait_for("the proposal now acts on the facts as they are", 1);
    tmux.wait_for("[y,m,a,n,e,s,q,?]", 1);
    tmux.keys(&["y"]);
    // The update: saved unchanged in the editor, it is re-targeted too.
    tmux.wait_for("[n,e,r,s,q,?]", 2);
    tmux.keys(&["e"]);
    tmux.wait_for("the proposal now acts on the facts as they are", 2);
    tmux.wait_for("[y,m,a,n,e,s,q,?]", 2);
    tmux.keys(&["y"]);
    tmux.wait_for("EXIT=0", 1);
    assert_eq!(repo.trailer("HEAD~1", "Mneme-Proposal"), [verify.as_str()]);
    assert_eq!(repo.trailer("HEAD", "Mneme-Proposal"), [update.as_str()]);
    assert_eq!(repo.trailer("HEAD", "Mneme-Edited"), ["true"]);
    assert!(repo
        .read(".ledger/facts/architecture.md")
        .contains("12 connections"));
    repo.mneme(&["verify", "HEAD~3..HEAD"]).assert().success();
}

/// `o` decides a proposal of several operations one by one, as `git add -p` does hunks: keep,
/// drop, or edit one statement (an emptied one stays as it was, the others' edits stay).
#[test]
fn operations_are_decided_one_by_one_in_a_real_terminal() {
    let Some(repo) = terminal_repo() else {
        return;
    };
    repo.write(
        "CLAUDE.md",
        "# Notes\n\n- Statement one is kept as it is.\n- Statement two gets dropped here.\n- Statement three gets edited here.\n- Statement four is emptied in the editor.\n",
    );
    let v = repo.json(&["import", "claude", "CLAUDE.md", "--json"]);
    let id = v["proposals"][0]["id"].as_str().unwrap().to_owned();
    let steps = repo.file(".git/editor-steps");
    let editor = editor(&repo, &format!(
            "n=$(cat '{s}' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '{s}'\n\
             case $n in 1) sed -i 's/gets edited here/was edited by the reviewer/' \"$1\";; *) : > \"$1\";; esac",
            s = steps.display()
        ),
    );
    let tmux = Tmux::review(&repo, &editor, "each");
    tmux.wait_for("[y,m,a,n,e,o,s,q,?]", 1);
    tmux.keys(&["o"]);
    tmux.wait_for("Operation 1 of 4:", 1);
    tmux.keys(&["y"]);
    tmux.wait_for("Operation 2 of 4:", 1);
    tmux.keys(&["d"]);
    tmux.wait_for("Operation 3 of 4:", 1);
    tmux.keys(&["e"]);
    tmux.wait_for("Operation 3 of 4:", 2);
    tmux.keys(&["y"]);
    tmux.wait_for("Operation 4 of 4:", 1);
    tmux.keys(&["e"]);
    tmux.wait_for("the statement stays as it was", 1);
    tmux.keys(&["y"]);
    // The new diff, then the usual prompt.
    tmux.wait_for("[y,m,a,n,e,o,s,q,?]", 2);
    let screen = tmux.screen(false);
    assert!(screen.contains("was edited by the reviewer"), "{screen}");
    tmux.keys(&["y"]);
    tmux.wait_for("EXIT=0", 1);
    assert_eq!(repo.trailer("HEAD", "Mneme-Proposal"), [id.as_str()]);
    assert_eq!(repo.trailer("HEAD", "Mneme-Dropped").len(), 1);
    let facts = repo.read(".ledger/facts/architecture.md");
    assert!(facts.contains("Statement one is kept as it is."));
    assert!(!facts.contains("Statement two"));
    assert!(facts.contains("Statement three was edited by the reviewer."));
    assert!(
        facts.contains("Statement four is emptied in the editor."),
        "{facts}"
    );
}

/// The walk over operations goes back (`k`), says which operation the reviewer edited or dropped,
/// decides nothing on a key it does not offer, keeps every choice when stopped early (Escape), and
/// resumes them when walked again; its header, printed with each operation, stays in sight on a
/// 50-row terminal.
#[test]
fn the_operation_walk_goes_back_resumes_and_keeps_its_header_in_sight() {
    let Some(repo) = terminal_repo() else {
        return;
    };
    let lines: String = (1..=12)
        .map(|n| format!("- Statement number {n} stays as written.\n"))
        .collect();
    repo.write("CLAUDE.md", &format!("# Notes\n\n{lines}"));
    let v = repo.json(&["import", "claude", "CLAUDE.md", "--json"]);
    let id = v["proposals"][0]["id"].as_str().unwrap().to_owned();
    let editor = editor(
        &repo,
        "sed -i 's/number 3 stays/number 3 was edited/' \"$1\"",
    );
    let tmux = Tmux::review(&repo, &editor, "walk");
    let operation = |n: usize| format!("Operation {n} of 12:");
    tmux.wait_for("[y,m,a,n,e,o,s,q,?]", 1);
    tmux.keys(&["o"]);
    tmux.wait_for(&operation(1), 1);
    tmux.keys(&["y"]);
    tmux.wait_for(&operation(2), 1);
    tmux.keys(&["d"]);
    tmux.wait_for(&operation(3), 1);
    tmux.keys(&["e"]);
    tmux.wait_for("(edited by you)", 1);
    tmux.keys(&["x"]);
    tmux.wait_for("nothing was decided", 1);
    tmux.keys(&["k"]);
    tmux.wait_for(&operation(2), 2);
    assert!(tmux.visible().contains("(dropped)"), "{}", tmux.visible());
    tmux.keys(&["y"]);
    tmux.wait_for(&operation(3), 3);
    tmux.keys(&["y"]);
    tmux.wait_for(&operation(4), 1);
    tmux.keys(&["d"]);
    tmux.wait_for(&operation(5), 1);
    tmux.keys(&["Escape"]);
    tmux.wait_for("Kept 11 of 12 operation(s): 1 dropped, 1 edited.", 1);

    // Walked again, the choices are there to see and to change.
    tmux.wait_for("[y,m,a,n,e,o,s,q,?]", 2);
    tmux.keys(&["o"]);
    // Shown before: operation 1 once, 2 twice (again after `k`), 3 four times (on arrival, after
    // the edit, after the key not offered, after `k` and `y`).
    for (n, seen) in [(1, 1), (2, 2), (3, 4)] {
        tmux.wait_for(&operation(n), seen + 1);
        tmux.keys(&["y"]);
    }
    tmux.wait_for(&operation(4), 2);
    assert!(tmux.visible().contains("(dropped)"), "{}", tmux.visible());
    tmux.keys(&["d"]);
    for n in 5..=12 {
        tmux.wait_for(&operation(n), if n == 5 { 2 } else { 1 });
        tmux.keys(&["?"]);
        tmux.wait_for("k - back to the previous operation", n - 4);
        if n == 12 {
            let shown = tmux.visible();
            assert!(
                shown.contains(&operation(12)) && shown.contains(&format!("proposal {id}")),
                "{shown}"
            );
        }
        tmux.keys(&["y"]);
    }
    tmux.wait_for("Kept 11 of 12 operation(s): 1 dropped, 1 edited.", 2);
    tmux.wait_for("[y,m,a,n,e,o,s,q,?]", 3);
    tmux.keys(&["y"]);
    tmux.wait_for("EXIT=0", 1);
    assert_eq!(repo.trailer("HEAD", "Mneme-Dropped").len(), 1);
    let facts = repo.read(".ledger/facts/architecture.md");
    assert!(
        facts.contains("Statement number 2 stays as written."),
        "{facts}"
    );
    assert!(
        facts.contains("Statement number 3 was edited as written."),
        "{facts}"
    );
    assert!(!facts.contains("Statement number 4 "), "{facts}");
    assert!(
        facts.contains("Statement number 12 stays as written."),
        "{facts}"
    );
}

/// The editor is chosen as git chooses it: with `$VISUAL` empty, `core.editor` runs (an empty
/// variable counts as unset), through the shell, so an editor command with arguments works.
#[test]
fn the_editor_is_the_one_git_would_run() {
    let Some(repo) = terminal_repo() else {
        return;
    };
    let p = repo.propose_add("invariants", "Ids are a draft idea.", &["--reason", "r"]);
    let fact = repo.new_fact_id(&p);
    let script = editor(
        &repo,
        "[ \"$1\" = --rewrite ] && shift; sed -i 's/a draft idea/never reused/' \"$1\"",
    );
    repo.git(&[
        "config",
        "core.editor",
        &format!("'{}' --rewrite", script.display()),
    ]);
    let tmux = Tmux::review(&repo, std::path::Path::new(""), "giteditor");
    tmux.wait_for(PROMPT, 1);
    tmux.keys(&["e"]);
    tmux.wait_for(PROMPT, 2);
    tmux.keys(&["y"]);
    tmux.wait_for("EXIT=0", 1);
    let facts = repo.read(".ledger/facts/invariants.md");
    assert!(facts.contains("Ids are never reused."), "{facts}");
    assert!(facts.contains(&fact), "{facts}");
}

/// A key the prompt does not offer is answered, not ignored: it says which keys are offered.
#[test]
fn a_key_not_offered_is_answered() {
    let Some(repo) = terminal_repo() else {
        return;
    };
    repo.propose_add("pitfalls", "Keys are answered.", &["--reason", "r"]);
    let editor = editor(&repo, "exit 0");
    let tmux = Tmux::review(&repo, &editor, "keys");
    tmux.wait_for(PROMPT, 1);
    tmux.keys(&["x"]);
    tmux.wait_for(PROMPT, 2);
    let screen = tmux.screen(false);
    assert!(
        screen.contains("`x` is not one of the keys offered here"),
        "{screen}"
    );
    tmux.keys(&["q"]);
    tmux.wait_for("EXIT=0", 1);
}

/// After an approval, the next screen's `similar:` lines name the approved fact, never the
/// proposal that made it as still pending.
#[test]
fn a_proposal_approved_on_one_screen_is_not_pending_on_the_next() {
    let Some(repo) = terminal_repo() else {
        return;
    };
    let first = repo.propose_add(
        "pitfalls",
        "Never hold the pool lock across an await point.",
        &["--reason", "r"],
    );
    let other = repo.propose_add(
        "pitfalls",
        "Never hold the pool lock across an await point in handlers.",
        &["--reason", "r"],
    );
    let fact = repo.new_fact_id(&first);
    let editor = editor(&repo, "exit 0");
    let tmux = Tmux::review(&repo, &editor, "similar");
    tmux.wait_for(PROMPT, 1);
    let screen = tmux.screen(false);
    assert!(screen.contains(&format!("pending {other}")), "{screen}");
    tmux.keys(&["y"]);
    tmux.wait_for(PROMPT, 2);
    let screen = tmux.screen(false);
    let second = &screen[screen.rfind("(2 of 2)").unwrap_or(0)..];
    assert!(!second.contains(&format!("pending {first}")), "{screen}");
    assert!(
        second.contains(&fact),
        "the approved fact is similar: {screen}"
    );
    tmux.keys(&["q"]);
    tmux.wait_for("EXIT=0", 1);
}
