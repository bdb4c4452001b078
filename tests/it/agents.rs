//! Agent runtimes: `mneme setup` merges hooks into their settings, and `mneme context --for`
//! prints what their hooks expect, within the budget, and never fails their session.

use serde_json::{json, Value};

use crate::common::{json, Repo};

fn seeded() -> Repo {
    let repo = Repo::committed();
    let facts: Vec<(String, String)> = (0..200)
        .map(|i| {
            (
                format!("f-{i:04}"),
                format!("Fact number {i} says something specific about the system."),
            )
        })
        .collect();
    let facts: Vec<(&str, &str)> = facts
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    repo.seed_facts("architecture", &facts);
    repo
}

fn hook(repo: &Repo, runtime: &str, event: &str) -> String {
    let out = repo
        .mneme(&["context", "--for", runtime, "--event", event])
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8(out.stdout).unwrap()
}

fn additional_context(output: &str) -> String {
    let v: Value = serde_json::from_str(output).unwrap_or_else(|e| panic!("{e}: {output}"));
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn claude_gets_its_json_within_the_budget_naming_what_did_not_fit() {
    let repo = seeded();
    let out = hook(&repo, "claude", "SessionStart");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    let text = additional_context(&out);
    assert!(
        text.chars().count() <= 9000,
        "{} characters",
        text.chars().count()
    );
    assert!(text.contains("f-0000") || text.contains("f-0199"));
    assert!(text.contains("more facts did not fit ("), "{text}");
    assert!(text.contains("`mneme facts [FILE]`"), "{text}");
    // Every fact shown is whole.
    for line in text.lines().filter(|l| l.starts_with("- f-")) {
        assert!(line.ends_with("about the system."), "cut: {line}");
    }
    let small = repo
        .mneme(&["context", "--max-chars", "1500"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(small.len() <= 1500 + 100, "{}", small.len());
}

/// Hooks set up for every repository (`setup --user`) run in repositories without a ledger too:
/// there they add nothing. A ledger that cannot be read is explained, with exit 0.
#[test]
fn without_a_ledger_the_hook_adds_nothing_and_a_broken_one_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let bare = Repo::bare_init();
    let broken = Repo::new();
    // A fact file that cannot be read (a broken config only costs its settings: context.rs).
    broken.write(
        ".ledger/facts/architecture.md",
        "---\ntitle: never closed\n\n- **f-0001** X.\n",
    );
    for runtime in ["claude", "codex", "gemini", "cursor", "opencode"] {
        for cwd in [dir.path(), bare.path()] {
            let out = bare
                .mneme_in(cwd, &["context", "--for", runtime])
                .assert()
                .success()
                .get_output()
                .clone();
            assert!(out.stdout.is_empty(), "{runtime}: {out:?}");
        }
        let out = broken
            .mneme(&["context", "--for", runtime])
            .assert()
            .success()
            .get_output()
            .clone();
        let text = String::from_utf8(out.stdout).unwrap();
        let text = if runtime == "opencode" {
            text
        } else {
            additional_context(&text)
        };
        assert!(text.contains("could not load the project facts"), "{text}");
        assert!(text.contains("architecture.md"), "{text}");
    }
}

/// The hook as Codex and Gemini CLI run it: the event's JSON on stdin.
fn hook_with(repo: &Repo, runtime: &str, event: &str, input: Value) -> String {
    let out = repo
        .mneme(&["context", "--for", runtime, "--event", event])
        .write_stdin(input.to_string())
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8(out.stdout).unwrap()
}

fn codex_hook(repo: &Repo, session: &str, source: &str) -> String {
    let input = json!({"session_id": session, "hook_event_name": "SessionStart", "source": source});
    hook_with(repo, "codex", "SessionStart", input)
}

/// Codex keeps hook context in a session's history: a resumed session already holds the facts,
/// and SessionStart `compact` puts them back once after a compaction (the real runtime's
/// requests are checked by tests/runtimes/codex.test.mjs).
#[test]
fn codex_gets_the_facts_once_per_session_history() {
    let repo = seeded();
    assert!(additional_context(&codex_hook(&repo, "s-1", "startup")).contains("# Project facts"));
    assert_eq!(
        codex_hook(&repo, "s-1", "resume"),
        "",
        "a resumed session holds them"
    );
    assert!(additional_context(&codex_hook(&repo, "s-1", "compact")).contains("# Project facts"));
    assert_eq!(codex_hook(&repo, "s-1", "resume"), "");
    // A session mneme never saw, such as one from before `setup`, gets them on resume.
    assert!(additional_context(&codex_hook(&repo, "s-2", "resume")).contains("# Project facts"));
    // The PostCompact and UserPromptSubmit hooks of older setups add nothing.
    for event in [
        "PostCompact",
        "UserPromptSubmit",
        "PostCompact",
        "UserPromptSubmit",
    ] {
        assert_eq!(hook(&repo, "codex", event), "", "{event}");
    }
}

/// A session marker per Codex session: a new session clears those of sessions a month old.
#[test]
fn codex_session_markers_older_than_30_days_are_cleared() {
    let repo = seeded();
    codex_hook(&repo, "s-old", "startup");
    codex_hook(&repo, "s-recent", "startup");
    let dir = repo.path().join(".git/mneme-sessions");
    let markers = || std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(markers(), 2);
    let day = std::time::Duration::from_secs(24 * 60 * 60);
    let mut ages = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path());
    let (old, recent) = (ages.next().unwrap(), ages.next().unwrap());
    let age = |path: &std::path::Path, days: u32| {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(std::time::SystemTime::now() - day * days)
            .unwrap();
    };
    age(&old, 31);
    age(&recent, 29);
    codex_hook(&repo, "s-new", "startup");
    assert!(!old.exists() && recent.exists());
    assert_eq!(markers(), 2);
}

/// Gemini CLI's hook input, with the session's transcript.
fn gemini_hook(repo: &Repo, event: &str, transcript: &std::path::Path) -> String {
    let input = json!({"session_id": "g-1", "hook_event_name": event, "source": "startup", "transcript_path": transcript});
    hook_with(repo, "gemini", event, input)
}

/// Gemini CLI fires PreCompress before every request: the facts go in where the session's
/// transcript shows them missing from the current history, and only there (the real runtime's
/// requests are checked by tests/runtimes/gemini.test.mjs).
#[test]
fn gemini_gets_the_facts_where_its_history_lacks_them() {
    let repo = seeded();
    let transcript = repo.file(".git/transcript.jsonl");
    repo.write(
        ".git/transcript.jsonl",
        "{\"sessionId\":\"g-1\",\"kind\":\"main\"}\n",
    );
    let out = gemini_hook(&repo, "SessionStart", &transcript);
    assert!(additional_context(&out).contains("# Project facts"));
    // The first turn's prompt carries SessionStart's context: BeforeAgent adds no second copy.
    let first_turn = json!({"hook_event_name": "BeforeAgent", "transcript_path": transcript,
        "prompt": format!("<hook_context>{}</hook_context>\n\nfirst question", additional_context(&out))});
    assert_eq!(hook_with(&repo, "gemini", "BeforeAgent", first_turn), "");
    let held = format!(
        "{{\"id\":\"1\",\"type\":\"user\",\"content\":[{{\"text\":{}}}]}}\n",
        serde_json::to_string(&additional_context(&out)).unwrap()
    );
    let mut text = repo.read(".git/transcript.jsonl") + &held;
    repo.write(".git/transcript.jsonl", &text);
    assert_eq!(
        gemini_hook(&repo, "BeforeAgent", &transcript),
        "",
        "the history holds them"
    );
    assert_eq!(gemini_hook(&repo, "PreCompress", &transcript), "");
    // A compression replaces the history with its summary: the next turn gets them back.
    text.push_str(
        "{\"$set\":{\"messages\":[{\"type\":\"user\",\"content\":[{\"text\":\"summary\"}]}]}}\n",
    );
    repo.write(".git/transcript.jsonl", &text);
    let out = gemini_hook(&repo, "BeforeAgent", &transcript);
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap()["hookSpecificOutput"]["hookEventName"],
        "BeforeAgent"
    );
    assert!(additional_context(&out).contains("# Project facts"));
}

#[test]
fn setup_merges_into_existing_settings_and_remove_restores_them() {
    let repo = Repo::committed();
    let existing = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [{\"type\": \"command\", \"command\": \"guard\"}]\n      }\n    ]\n  }\n}\n";
    repo.write(".claude/settings.json", existing);
    let dry = repo.json(&["setup", "claude", "--dry-run", "--json"]);
    assert_eq!(dry["files"][0]["action"], "updated");
    // Named as git names a file in a diff: from the repository's root.
    assert!(
        dry["files"][0]["diff"]
            .as_str()
            .unwrap()
            .starts_with("--- a/.claude/settings.json\n+++ b/.claude/settings.json\n"),
        "{dry:#}"
    );
    assert!(dry["files"][0]["diff"]
        .as_str()
        .unwrap()
        .contains(r#"\"$m\" context --for claude"#));
    assert_eq!(
        repo.read(".claude/settings.json"),
        existing,
        "dry run wrote"
    );

    repo.mneme(&["setup", "claude"]).assert().success();
    let v: Value = serde_json::from_str(&repo.read(".claude/settings.json")).unwrap();
    assert_eq!(v["model"], "opus");
    assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "guard");
    assert_eq!(
        v["hooks"]["SessionStart"][0]["matcher"],
        "startup|resume|clear|compact"
    );
    assert_eq!(v["env"]["MNEME_AGENT"], "claude-code");
    assert_eq!(
        repo.json(&["setup", "claude", "--json"])["files"][0]["action"],
        "unchanged"
    );

    repo.mneme(&["setup", "claude", "--remove"])
        .assert()
        .success();
    let back: Value = serde_json::from_str(&repo.read(".claude/settings.json")).unwrap();
    assert_eq!(back, serde_json::from_str::<Value>(existing).unwrap());

    for (runtime, file, events) in [
        (
            "codex",
            ".codex/hooks.json",
            vec!["SessionStart", "PostToolUse"],
        ),
        (
            "gemini",
            ".gemini/settings.json",
            vec!["SessionStart", "BeforeAgent", "AfterTool"],
        ),
    ] {
        let report = repo.json(&["setup", runtime, "--json"]);
        assert_eq!(report["files"][0]["action"], "created");
        let v: Value = serde_json::from_str(&repo.read(file)).unwrap();
        let keys: Vec<&str> = v["hooks"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, events);
        for event in events {
            let command = v["hooks"][event][0]["hooks"][0]["command"]
                .as_str()
                .unwrap();
            assert!(
                command.contains(&format!(r#""$m" context --for {runtime} --event {event}"#)),
                "{command}"
            );
        }
        // What the runtime needs before the hooks run: trust, with the commands.
        let notes = report["notes"].to_string();
        assert!(notes.contains("trust"), "{notes}");
    }
    // Gemini's timeouts are milliseconds; the others' seconds.
    let gemini: Value = serde_json::from_str(&repo.read(".gemini/settings.json")).unwrap();
    assert_eq!(
        gemini["hooks"]["SessionStart"][0]["hooks"][0]["timeout"],
        10_000
    );
    assert!(gemini["hooks"]["SessionStart"][0].get("matcher").is_none());
    let notes = repo.json(&["setup", "codex", "--json"])["notes"].to_string();
    assert!(
        notes.contains("/hooks") && notes.contains("trust_level"),
        "{notes}"
    );
    repo.mneme(&["setup", "gemini", "--remove"])
        .assert()
        .success();
    assert!(
        !repo.path().join(".gemini").exists(),
        "an empty .gemini/ is left"
    );
}

#[test]
fn setup_codex_switches_its_hooks_on_and_names_the_agent_in_config_toml() {
    let repo = Repo::committed();
    let mine = "# my settings\nmodel = \"gpt-5\"\n";
    repo.write(".codex/config.toml", mine);
    let report = repo.json(&["setup", "codex", "--json"]);
    assert_eq!(report["files"][1]["action"], "updated");
    assert!(report["files"][1]["path"]
        .as_str()
        .unwrap()
        .ends_with(".codex/config.toml"));
    let config = repo.read(".codex/config.toml");
    assert!(config.starts_with(mine), "{config}");
    assert!(
        !config.contains("codex_hooks"),
        "hooks are on by default: {config}"
    );
    assert!(config.contains("MNEME_AGENT = \"codex\""), "{config}");

    repo.mneme(&["setup", "codex", "--remove"])
        .assert()
        .success();
    let config = repo.read(".codex/config.toml");
    assert!(!config.contains("MNEME_AGENT"), "{config}");
    assert_eq!(config, mine);
    assert!(!repo.path().join(".codex/hooks.json").exists());

    // A config.toml it cannot parse: refused, and no file of the setup is written.
    repo.write(".codex/config.toml", "[features\n");
    let out = repo
        .mneme(&["--json", "setup", "codex"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(crate::common::error_code(&out), "invalid_input");
    assert_eq!(repo.read(".codex/config.toml"), "[features\n");
    assert!(!repo.path().join(".codex/hooks.json").exists());
}

/// The plugin's shape; that OpenCode runs it and the facts reach the model is proven by
/// running OpenCode itself (tests/runtimes/opencode.test.mjs).
#[test]
fn setup_opencode_writes_a_plugin_and_remove_keeps_a_hand_edited_one() {
    let repo = Repo::committed();
    let report = repo.json(&["setup", "opencode", "--json"]);
    assert_eq!(report["files"][0]["action"], "created");
    let plugin = repo.file(".opencode/plugins/mneme.js");
    let text = repo.read(".opencode/plugins/mneme.js");
    assert!(text.contains("} context --for opencode --event ${event}"));
    assert!(text.contains(r#"run("session")"#));
    // The events mneme reads the session and file of, on stdin.
    assert!(text.contains(r#""tool.execute.after": async"#));
    assert!(text.contains(r#"run("tool.execute.after", {"#));
    assert!(text.contains(r#"run("session.compacting", {"#));
    assert!(
        text.contains("node_modules"),
        "finds a project's npm install"
    );
    assert!(text.contains("experimental.chat.system.transform"));

    // Edited by hand: --remove keeps it. Unchanged: --remove deletes it.
    repo.write(".opencode/plugins/mneme.js", &format!("{text}// mine\n"));
    let kept = repo.json(&["setup", "opencode", "--remove", "--json"]);
    assert_eq!(kept["files"][0]["action"], "unchanged");
    let notes = kept["notes"].to_string();
    assert!(notes.contains("changed by hand"), "{notes}");
    assert!(plugin.exists());
    repo.write(".opencode/plugins/mneme.js", &text);
    repo.mneme(&["setup", "opencode", "--remove"])
        .assert()
        .success();
    assert!(!plugin.exists());
}

#[test]
fn setup_user_writes_where_each_runtime_looks() {
    let repo = Repo::committed();
    let dirs = tempfile::tempdir().unwrap();
    let (home, codex, xdg) = (
        dirs.path().join("home"),
        dirs.path().join("codex-home"),
        dirs.path().join("xdg"),
    );
    let user = |runtime: &str| {
        repo.mneme(&["setup", runtime, "--user"])
            .env("HOME", &home)
            .env("CODEX_HOME", &codex)
            .env("XDG_CONFIG_HOME", &xdg)
            .env_remove("CLAUDE_CONFIG_DIR")
            .assert()
            .success();
    };
    for runtime in ["claude", "codex", "opencode"] {
        user(runtime);
    }
    assert!(home.join(".claude/settings.json").is_file());
    assert!(codex.join("hooks.json").is_file());
    assert!(codex.join("config.toml").is_file());
    assert!(!home.join(".codex").exists());
    assert!(xdg.join("opencode/plugins/mneme.js").is_file());
    assert!(
        !repo.path().join(".claude").exists(),
        "nothing in the repository"
    );
}

#[test]
fn a_hook_tells_an_unnamed_agent_its_name() {
    let repo = Repo::committed();
    let text = |agent: Option<&str>| {
        let mut cmd = repo.mneme(&["context", "--for", "gemini", "--max-chars", "600"]);
        if let Some(a) = agent {
            cmd.env("MNEME_AGENT", a);
        }
        let out = cmd.assert().success().get_output().stdout.clone();
        additional_context(&String::from_utf8(out).unwrap())
    };
    let unnamed = text(None);
    assert!(unnamed.contains("--agent gemini-cli"), "{unnamed}");
    assert!(unnamed.chars().count() <= 600, "{}", unnamed.len());
    assert!(!text(Some("gemini-cli")).contains("--agent"));
}

/// `setup` and `doctor` say which of the files setup writes git would leave out of a commit, as
/// `git check-ignore` judges them (patterns on a file or a directory, negation, a nested
/// `.gitignore`, `info/exclude`); a file added with `git add -f` is committed and no longer named.
#[test]
fn setup_and_doctor_name_the_files_git_ignores_as_git_does() {
    let repo = Repo::committed();
    repo.write(".gitignore", ".codex/*\n!.codex/config.toml\n/.cursor/\n");
    repo.write(".opencode/.gitignore", "plugins/\n");
    repo.write(".git/info/exclude", ".gemini\n");
    repo.git(&["add", ".gitignore", ".opencode/.gitignore"]);
    repo.git(&["commit", "-qm", "ignore rules"]);
    let mut all_ignored = Vec::new();
    for runtime in ["claude", "codex", "gemini", "cursor", "opencode"] {
        let v = repo.json(&["setup", runtime, "--json"]);
        let files: Vec<String> = v["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let path = f["path"].as_str().unwrap();
                let root = format!("{}/", repo.path().canonicalize().unwrap().display());
                path.strip_prefix(&root).unwrap_or(path).to_owned()
            })
            .collect();
        let mut args = vec!["check-ignore"];
        args.extend(files.iter().map(String::as_str));
        let git_says: Vec<String> = String::from_utf8_lossy(&repo.git_output(&args).stdout)
            .lines()
            .map(str::to_owned)
            .collect();
        let ignored: Vec<String> = v["ignored"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["path"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(ignored, git_says, "{runtime}: {v:#}");
        for path in &ignored {
            assert!(
                v["notes"]
                    .to_string()
                    .contains(&format!("git add -f {path}")),
                "{v:#}"
            );
        }
        all_ignored.extend(ignored);
    }
    assert_eq!(
        all_ignored,
        [
            ".codex/hooks.json",
            ".gemini/settings.json",
            ".cursor/hooks.json",
            ".cursor/rules/mneme.mdc",
            ".opencode/plugins/mneme.js"
        ]
    );
    let warnings = |repo: &Repo| {
        let d = json(&repo.mneme(&["doctor", "--json"]).output().unwrap());
        d["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["what"].as_str().unwrap().contains("ignored by git"))
            .map(|w| w["fix"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let fixes = warnings(&repo);
    assert_eq!(fixes.len(), all_ignored.len(), "{fixes:?}");
    for path in &all_ignored {
        assert!(
            fixes
                .iter()
                .any(|f| f.starts_with(&format!("git add -f {path} "))),
            "{fixes:?}"
        );
    }
    let mut add = vec!["add", "-f"];
    add.extend(all_ignored.iter().map(String::as_str));
    repo.git(&add);
    assert_eq!(warnings(&repo), Vec::<String>::new());
}

#[test]
fn setup_refuses_a_settings_file_it_cannot_parse() {
    let repo = Repo::committed();
    repo.write(".claude/settings.json", "{ not json");
    let out = repo
        .mneme(&["--json", "setup", "claude"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(crate::common::error_code(&out), "invalid_input");
    assert_eq!(repo.read(".claude/settings.json"), "{ not json");
    let _ = json;
}

#[test]
fn compact_lists_what_an_agent_must_do_before_its_context_goes() {
    let repo = Repo::committed();
    let out = repo.json(&["create", "Long job", "--json"]);
    let id = out["id"].as_str().unwrap().to_owned();
    repo.mneme(&["update", &id, "--claim", "--agent", "claude-code"])
        .assert()
        .success();
    let proposal = repo.propose_add(
        "pitfalls",
        "Pending fact.",
        &["--reason", "r", "--agent", "claude-code"],
    );
    let list = repo.json(&["compact", "--agent", "claude-code", "--json"]);
    assert_eq!(list["tasks_without_recent_note"], serde_json::json!([id]));
    assert_eq!(list["pending_proposals"], serde_json::json!([proposal]));
    let uncommitted: Vec<&str> = list["uncommitted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(uncommitted.contains(&format!(".ledger/tasks/{id}.json").as_str()));
    assert!(uncommitted.contains(&format!(".ledger/proposals/{proposal}.json").as_str()));

    repo.mneme(&[
        "update",
        &id,
        "--notes",
        "halfway",
        "--agent",
        "claude-code",
    ])
    .assert()
    .success();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "work"]);
    let list = repo.json(&["compact", "--agent", "claude-code", "--json"]);
    assert_eq!(list["tasks_without_recent_note"], serde_json::json!([]));
    assert_eq!(list["uncommitted"], serde_json::json!([]));
    let other = repo.json(&["compact", "--agent", "someone-else", "--json"]);
    assert_eq!(other["pending_proposals"], serde_json::json!([]));
}

#[test]
fn status_and_doctor_report_with_a_fix_for_each_problem() {
    let repo = Repo::committed();
    let s = repo.json(&["status", "--json"]);
    assert_eq!(s["facts"], 0);
    assert_eq!(s["budget_limit"], 800);
    let out = repo
        .mneme(&["doctor", "--json"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let d = json(&out);
    let fixes: Vec<&str> = d["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["fix"].as_str().unwrap())
        .collect();
    assert!(fixes.contains(&"mneme hooks install"), "{fixes:?}");
    repo.mneme(&["hooks", "install"]).assert().success();
    repo.write(".claude/settings.json", "{}\n");
    let d = json(&repo.mneme(&["doctor", "--json"]).output().unwrap());
    let fixes: Vec<&str> = d["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["fix"].as_str().unwrap())
        .collect();
    assert!(!fixes.contains(&"mneme hooks install"), "{fixes:?}");
    assert!(fixes.contains(&"mneme setup claude"), "{fixes:?}");
    repo.mneme(&["setup", "claude"]).assert().success();
    let d = json(&repo.mneme(&["doctor", "--json"]).output().unwrap());
    assert!(!d["problems"].to_string().contains("setup claude"));

    // Codex's hooks without its feature flag, and a hand-edited OpenCode plugin.
    repo.mneme(&["setup", "codex"]).assert().success();
    repo.mneme(&["setup", "opencode"]).assert().success();
    let problems =
        || json(&repo.mneme(&["doctor", "--json"]).output().unwrap())["problems"].to_string();
    assert!(!problems().contains("mneme setup codex"), "{}", problems());
    assert!(
        !problems().contains("mneme setup opencode"),
        "{}",
        problems()
    );
    repo.write(".codex/config.toml", "");
    repo.write(
        ".opencode/plugins/mneme.js",
        "export const Mneme = async () => ({});\n",
    );
    assert!(problems().contains("mneme setup codex"), "{}", problems());
    assert!(
        problems().contains("mneme setup opencode"),
        "{}",
        problems()
    );
}

#[test]
fn cursor_gets_an_always_apply_rule_and_its_session_start_hook() {
    let repo = Repo::committed();
    repo.write(
        ".cursor/hooks.json",
        "{\"version\": 1, \"hooks\": {\"stop\": [{\"command\": \"audit\"}]}}\n",
    );
    let report = repo.json(&["setup", "cursor", "--json"]);
    let actions: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["action"].as_str().unwrap())
        .collect();
    // The hooks, the rule, and the ledger compiled into Cursor's rule files (none without facts).
    assert_eq!(actions, ["updated", "created", "updated"]);
    assert!(repo
        .read(".ledger/config.yaml")
        .contains("compile: [cursor]"));
    let hooks: Value = serde_json::from_str(&repo.read(".cursor/hooks.json")).unwrap();
    assert_eq!(hooks["version"], 1);
    assert_eq!(hooks["hooks"]["stop"][0]["command"], "audit");
    assert!(hooks["hooks"]["sessionStart"][0]["command"]
        .as_str()
        .unwrap()
        .contains(r#""$m" context --for cursor --event sessionStart"#));
    let rule = repo.read(".cursor/rules/mneme.mdc");
    assert!(rule.starts_with("---\n") && rule.contains("alwaysApply: true"));
    assert!(rule.contains("mneme context"));
    repo.mneme(&["setup", "cursor", "--remove"])
        .assert()
        .success();
    assert!(!repo.file(".cursor/rules/mneme.mdc").exists());
    let hooks: Value = serde_json::from_str(&repo.read(".cursor/hooks.json")).unwrap();
    assert_eq!(
        hooks,
        serde_json::json!({"version": 1, "hooks": {"stop": [{"command": "audit"}]}})
    );
}

/// The commands `setup` writes, run by a real `sh` as the runtimes do: with `mneme` on the PATH
/// they print the facts; without it, a notice in the runtime's shape and exit 0 (Gemini CLI
/// blocks every prompt on the exit 127 of a bare `mneme`).
#[test]
fn hook_commands_degrade_to_a_notice_when_mneme_is_not_installed() {
    let repo = Repo::committed();
    repo.seed_facts(
        "architecture",
        &[("f-0001", "The cache keeps entries for 5 minutes.")],
    );
    for (runtime, file) in [
        ("claude", ".claude/settings.json"),
        ("codex", ".codex/hooks.json"),
        ("gemini", ".gemini/settings.json"),
    ] {
        repo.mneme(&["setup", runtime]).assert().success();
        let v: Value = serde_json::from_str(&repo.read(file)).unwrap();
        let command = v["hooks"]["SessionStart"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .to_owned();
        let run = |path: &std::ffi::OsStr| {
            let out = std::process::Command::new("sh")
                .args(["-c", &command])
                .current_dir(repo.path())
                .env("PATH", path)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            assert!(out.status.success(), "{runtime}: {out:?}");
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            v["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        let facts = run(&crate::common::path_with_mneme());
        assert!(
            facts.contains("The cache keeps entries for 5 minutes."),
            "{facts}"
        );
        // A PATH with the shell's tools but no mneme.
        let notice = run(std::ffi::OsStr::new("/usr/bin:/bin"));
        assert!(notice.contains("mneme is not installed"), "{notice}");
        assert!(notice.contains(".ledger/facts/"), "{notice}");
    }
    // Installed in the project with npm (`npm install -D mneme-ledger`): the hooks find
    // node_modules/.bin/mneme from any directory of the work tree, with no mneme on the PATH.
    let bin = repo.path().join("node_modules/.bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("mneme"), bin.join("mneme")).unwrap();
    std::fs::create_dir_all(repo.path().join("src/deep")).unwrap();
    let v: Value = serde_json::from_str(&repo.read(".claude/settings.json")).unwrap();
    let command = v["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    let out = std::process::Command::new("sh")
        .args(["-c", command])
        .current_dir(repo.path().join("src/deep"))
        .env("PATH", "/usr/bin:/bin")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("The cache keeps entries for 5 minutes."),
        "{said}"
    );
}

/// `doctor` says whether each runtime set up here will run mneme's hooks on this machine: the
/// trust Codex and Gemini CLI record in the user's files, the `mneme` the hooks find, and the
/// runtime's version against the tested ones (a warning, not a failure).
#[cfg(unix)]
#[test]
fn doctor_checks_that_the_runtimes_will_run_the_hooks() {
    use std::os::unix::fs::PermissionsExt;
    let repo = Repo::committed();
    repo.mneme(&["setup", "codex"]).assert().success();
    repo.mneme(&["setup", "gemini"]).assert().success();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "setup"]);
    let home = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let program = |dir: &std::path::Path, name: &str, version: &str| {
        let file = dir.join(name);
        std::fs::write(&file, format!("#!/bin/sh\necho '{version}'\n")).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        file
    };
    let mneme_dir = assert_cmd::cargo::cargo_bin("mneme")
        .parent()
        .unwrap()
        .to_owned();
    let doctor = |path: &[&std::path::Path]| {
        let path = std::env::join_paths(
            path.iter()
                .map(|p| p.to_path_buf())
                .chain([std::path::PathBuf::from("/usr/bin"), "/bin".into()]),
        )
        .unwrap();
        let out = repo
            .mneme(&["--json", "doctor"])
            .env("PATH", path)
            .env("HOME", home.path())
            .env_remove("CODEX_HOME")
            .env_remove("GEMINI_CLI_HOME")
            .env_remove("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
            .output()
            .unwrap();
        json(&out)
    };
    let root = std::fs::canonicalize(repo.path()).unwrap();

    let d = doctor(&[&mneme_dir]);
    // Which mneme the hooks run, and its version.
    let notes = d["notes"].to_string();
    assert!(
        notes.contains("the hooks run ") && notes.contains("this one"),
        "{notes}"
    );
    let problems = d["problems"].to_string();
    assert!(
        problems.contains("Codex does not trust this project"),
        "{problems}"
    );
    assert!(problems.contains("run `/hooks`"), "{problems}");
    assert!(
        problems.contains("Gemini CLI does not trust this folder"),
        "{problems}"
    );
    assert!(
        problems.contains(&format!("{}", root.display())),
        "{problems}"
    );
    assert!(d["notes"]
        .to_string()
        .contains("codex is set up here but not on this PATH"));

    // Trusted as the runtimes record it; a tested Codex, a Gemini of another series (found by
    // its npm package, as npm installs it), and an old mneme first on the PATH.
    std::fs::create_dir_all(home.path().join(".codex")).unwrap();
    let trusted = |event: &str| {
        format!(
            "[hooks.state.\"{}/.codex/hooks.json:{event}:0:0\"]\ntrusted_hash = \"sha256:00\"\n",
            root.display()
        )
    };
    let codex_config = format!(
        "[projects.\"{}\"]\ntrust_level = \"trusted\"\n\n{}",
        root.display(),
        trusted("session_start")
    );
    std::fs::write(home.path().join(".codex/config.toml"), &codex_config).unwrap();
    let problems = doctor(&[&mneme_dir])["problems"].to_string();
    assert!(
        problems.contains("Codex has not trusted mneme's PostToolUse hook(s)"),
        "{problems}"
    );
    std::fs::write(
        home.path().join(".codex/config.toml"),
        codex_config + &trusted("post_tool_use"),
    )
    .unwrap();
    std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
    std::fs::write(
        home.path().join(".gemini/trustedFolders.json"),
        serde_json::json!({ root.to_str().unwrap(): "TRUST_FOLDER" }).to_string(),
    )
    .unwrap();
    program(bin.path(), "codex", "codex-cli 0.169.4");
    let package = bin.path().join("lib/node_modules/@google/gemini-cli");
    std::fs::create_dir_all(package.join("dist")).unwrap();
    std::fs::write(
        package.join("package.json"),
        r#"{"name": "@google/gemini-cli", "version": "0.70.1"}"#,
    )
    .unwrap();
    let gemini = program(&package.join("dist"), "index.js", "never run");
    std::os::unix::fs::symlink(&gemini, bin.path().join("gemini")).unwrap();
    let old = tempfile::tempdir().unwrap();
    program(old.path(), "mneme", "mneme 0.0.1");

    let d = doctor(&[&mneme_dir, bin.path()]);
    let problems = d["problems"].to_string();
    for runtime in ["Codex", "Gemini", "the hooks run"] {
        assert!(!problems.contains(runtime), "{problems}");
    }
    let warnings = d["warnings"].to_string();
    assert!(
        warnings.contains("gemini 0.70.1 is not a version"),
        "{warnings}"
    );
    assert!(!warnings.contains("codex"), "{warnings}");

    let d = doctor(&[old.path(), &mneme_dir, bin.path()]);
    let problems = d["problems"].to_string();
    assert!(
        problems.contains("(mneme 0.0.1), not this mneme"),
        "{problems}"
    );
}

/// `doctor`'s problems as JSON text, with `home` as the user's home directory (and no runtime's
/// own directory moved elsewhere).
fn doctor_problems(repo: &Repo, home: &std::path::Path) -> String {
    let out = repo
        .mneme(&["--json", "doctor"])
        .env("HOME", home)
        .env_remove("COPILOT_HOME")
        .output()
        .unwrap();
    json(&out)["problems"].to_string()
}

/// `setup qwen` writes Qwen Code's Claude-shaped hooks into `.qwen/settings.json` beside what is
/// there, `--remove` takes exactly them out, and `doctor` reads Qwen's folder trust: nothing to
/// fix while trust is off (its default), a problem with the fix once the user turns it on, none
/// once the folder is trusted.
#[test]
fn setup_qwen_and_doctor_read_its_hooks_and_folder_trust() {
    let repo = Repo::committed();
    let own = r#"{"model": {"name": "qwen3-coder"}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo done"}]}]}}"#;
    repo.write(".qwen/settings.json", own);
    repo.mneme(&["setup", "qwen"]).assert().success();
    let settings: Value = serde_json::from_str(&repo.read(".qwen/settings.json")).unwrap();
    assert_eq!(settings["model"]["name"], "qwen3-coder");
    assert_eq!(
        settings["hooks"]["Stop"][0]["hooks"][0]["command"],
        "echo done"
    );
    let start = &settings["hooks"]["SessionStart"][0]["hooks"][0];
    assert!(start["command"]
        .as_str()
        .unwrap()
        .contains("context --for qwen --event SessionStart"));
    assert_eq!(start["timeout"], 10, "seconds");
    assert_eq!(
        settings["hooks"]["PostToolUse"][0]["matcher"],
        "read_file|write_file|edit"
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "setup qwen"]);

    let home = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(repo.path()).unwrap();
    let problems = |repo: &Repo| doctor_problems(repo, home.path());
    assert!(!problems(&repo).contains("Qwen Code"));
    std::fs::create_dir_all(home.path().join(".qwen")).unwrap();
    std::fs::write(
        home.path().join(".qwen/settings.json"),
        r#"{"security": {"folderTrust": {"enabled": true}}}"#,
    )
    .unwrap();
    let found = problems(&repo);
    assert!(
        found.contains("Qwen Code has folder trust on and does not trust this folder")
            && found.contains("TRUST_FOLDER"),
        "{found}"
    );
    std::fs::write(
        home.path().join(".qwen/trustedFolders.json"),
        serde_json::json!({ root.to_str().unwrap(): "TRUST_FOLDER" }).to_string(),
    )
    .unwrap();
    assert!(!problems(&repo).contains("Qwen Code"));

    repo.mneme(&["setup", "qwen", "--remove"])
        .assert()
        .success();
    let left: Value = serde_json::from_str(&repo.read(".qwen/settings.json")).unwrap();
    let expected: Value = serde_json::from_str(own).unwrap();
    assert_eq!(left, expected);
}

/// `setup pi` writes mneme's extension where pi loads a project's (`.pi/extensions/`), or with
/// `--user` into pi's agent directory (`PI_CODING_AGENT_DIR` moves it); `--remove` deletes it
/// unless someone changed it; `doctor` names an extension that is not the current one. The
/// extension's hook answers with the text itself (pi's extension reads it).
#[test]
fn setup_pi_writes_its_extension_and_doctor_checks_it() {
    let repo = Repo::committed();
    repo.mneme(&["setup", "pi"]).assert().success();
    let rel = ".pi/extensions/mneme.ts";
    let extension = repo.read(rel);
    assert!(
        extension.contains("\"context\", \"--for\", \"pi\""),
        "{extension}"
    );
    let out = repo
        .mneme(&["context", "--for", "pi", "--event", "session_start"])
        .write_stdin(r#"{"session_id": "s1", "source": "startup"}"#)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("# Project facts"), "plain text: {text}");

    let problems = |repo: &Repo| {
        json(&repo.mneme(&["--json", "doctor"]).output().unwrap())["problems"].to_string()
    };
    assert!(!problems(&repo).contains(rel));
    repo.write(rel, &format!("{extension}// changed by hand\n"));
    assert!(problems(&repo).contains(&format!("{rel} is not mneme's current extension")));
    repo.mneme(&["setup", "pi", "--remove"]).assert().success();
    assert!(repo.file(rel).exists(), "a changed extension stays");
    repo.write(rel, &extension);
    repo.mneme(&["setup", "pi", "--remove"]).assert().success();
    assert!(!repo.file(rel).exists());

    let agent = tempfile::tempdir().unwrap();
    repo.mneme(&["setup", "pi", "--user"])
        .env("PI_CODING_AGENT_DIR", agent.path())
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(agent.path().join("extensions/mneme.ts")).unwrap(),
        extension
    );
}

/// `setup copilot` writes mneme's own hooks file where Copilot CLI reads a repository's
/// (`.github/hooks/`), each event once by its PascalCase name, beside the team's other hooks
/// files, which stay as they are; `--user` writes it where `COPILOT_HOME` says; `--remove` takes
/// it and the folders it leaves empty away. `doctor` reads Copilot's folder trust from its
/// `config.json`, comment lines and all.
#[test]
fn setup_copilot_writes_its_hooks_file_and_doctor_reads_its_folder_trust() {
    let repo = Repo::committed();
    let theirs =
        r#"{"version": 1, "hooks": {"postToolUse": [{"type": "command", "bash": "./lint.sh"}]}}"#;
    repo.write(".github/hooks/lint.json", theirs);
    repo.write(".github/workflows/ci.yml", "on: push\n");
    repo.mneme(&["setup", "copilot"]).assert().success();
    let rel = ".github/hooks/mneme.json";
    let text = repo.read(rel);
    assert!(text.starts_with("{\n  \"version\": 1,"), "{text}");
    let hooks: Value = serde_json::from_str(&text).unwrap();
    let events: Vec<&String> = hooks["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(
        events,
        [
            "SessionStart",
            "UserPromptSubmit",
            "PostToolUse",
            "PreCompact"
        ]
    );
    let tool = &hooks["hooks"]["PostToolUse"][0];
    assert_eq!(tool["matcher"], "view|edit|create");
    assert_eq!(tool["type"], "command");
    assert_eq!(tool["timeoutSec"], 10);
    assert!(tool["bash"]
        .as_str()
        .unwrap()
        .contains("context --for copilot --event PostToolUse"));
    assert_eq!(repo.read(".github/hooks/lint.json"), theirs);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "setup copilot"]);

    let home = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(repo.path()).unwrap();
    let problems = |repo: &Repo| doctor_problems(repo, home.path());
    let found = problems(&repo);
    assert!(
        found.contains("Copilot CLI does not trust this folder")
            && found.contains("trustedFolders"),
        "{found}"
    );
    let config = |folders: Value| {
        format!(
            "// User settings belong in settings.json.\n// This file is managed automatically.\n{}\n",
            json!({ "trustedFolders": folders, "firstLaunchAt": "2026-03-11T00:00:00.000Z" })
        )
    };
    std::fs::create_dir_all(home.path().join(".copilot")).unwrap();
    let write_config = |folders| {
        std::fs::write(home.path().join(".copilot/config.json"), config(folders)).unwrap();
    };
    write_config(json!([root.join("src")]));
    assert!(problems(&repo).contains("Copilot CLI does not trust this folder"));
    write_config(json!([root.parent().unwrap()]));
    assert!(!problems(&repo).contains("Copilot CLI"));

    // Its own file goes, and the folders it leaves empty; the team's stay.
    repo.mneme(&["setup", "copilot", "--remove"])
        .assert()
        .success();
    assert!(!repo.file(rel).exists());
    assert_eq!(repo.read(".github/hooks/lint.json"), theirs);
    std::fs::remove_file(repo.file(".github/hooks/lint.json")).unwrap();
    repo.mneme(&["setup", "copilot"]).assert().success();
    repo.mneme(&["setup", "copilot", "--remove"])
        .assert()
        .success();
    assert!(!repo.file(".github/hooks").exists());
    assert!(repo.file(".github/workflows/ci.yml").exists());

    // A user's hooks go under COPILOT_HOME, or ~/.copilot.
    let moved = tempfile::tempdir().unwrap();
    repo.mneme(&["setup", "copilot", "--user"])
        .env("HOME", home.path())
        .env("COPILOT_HOME", moved.path())
        .assert()
        .success();
    assert!(moved.path().join("hooks/mneme.json").is_file());
    repo.mneme(&["setup", "copilot", "--user"])
        .env("HOME", home.path())
        .env_remove("COPILOT_HOME")
        .assert()
        .success();
    assert!(home.path().join(".copilot/hooks/mneme.json").is_file());
}

fn copilot_hook(repo: &Repo, event: &str, input: Value) -> String {
    let out = hook_with(repo, "copilot", event, input);
    if out.is_empty() {
        return out;
    }
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert!(v.get("hookSpecificOutput").is_none(), "{out}");
    v["additionalContext"].as_str().unwrap().to_owned()
}

/// Copilot CLI reads a top-level `additionalContext`, and its compaction drops the session's
/// start with everything else: PreCompact drops the session's record, and the first of the next
/// tool hook and prompt hook puts the session's facts back, once, with the facts about the file
/// the tool touched. Without a compaction, neither adds them again.
#[test]
fn copilot_gets_the_facts_back_once_after_a_compaction() {
    let (repo, [db, other, global]) = scoped_repo();
    let session = |extra: Value| {
        let mut input = json!({"session_id": "cp-1", "cwd": repo.path()});
        input
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        input
    };
    let start = copilot_hook(&repo, "SessionStart", session(json!({"source": "new"})));
    assert!(start.contains(&global) && !start.contains(&db), "{start}");
    assert!(start.contains("`copilot-cli` to mneme"), "{start}");
    let prompt = || copilot_hook(&repo, "UserPromptSubmit", session(json!({"prompt": "hi"})));
    assert_eq!(prompt(), "", "the start already holds them");
    let view = |file: &str| {
        let input = session(json!({"tool_name": "Read", "tool_input": {"path": repo.file(file)}}));
        copilot_hook(&repo, "PostToolUse", input)
    };
    let first = view("src/db.rs");
    assert!(first.contains(&db) && !first.contains(&global), "{first}");
    assert_eq!(view("src/db.rs"), "");

    // A compaction: the next tool brings the start, the facts about the files the session
    // worked on before it, and the tool's file's, each once.
    assert_eq!(
        copilot_hook(&repo, "PreCompact", session(json!({"trigger": "auto"}))),
        ""
    );
    let back = view("src/other.rs");
    assert!(back.starts_with("# Project facts"), "{back}");
    assert!(
        back.contains(&global) && back.contains(&other) && back.contains(&db),
        "{back}"
    );
    for fact in [&global, &other, &db] {
        assert_eq!(back.matches(fact.as_str()).count(), 1, "{back}");
    }
    assert_eq!(prompt(), "");
    assert_eq!(view("src/db.rs"), "", "given back with the start");
    // A tool on no cited file after a compaction still brings the start; then the prompt none.
    copilot_hook(&repo, "PreCompact", session(json!({"trigger": "manual"})));
    let dir = session(json!({"tool_name": "Read", "tool_input": {"path": repo.file("src")}}));
    assert!(copilot_hook(&repo, "PostToolUse", dir).contains(&global));
    assert_eq!(prompt(), "");
    // Or the next prompt does, when no tool ran; a resumed process starts with them again.
    copilot_hook(&repo, "PreCompact", session(json!({"trigger": "manual"})));
    let again = prompt();
    assert!(again.contains(&global) && again.contains(&db), "{again}");
    assert_eq!(prompt(), "");
    assert_eq!(view("src/db.rs"), "");
    let resumed = copilot_hook(&repo, "SessionStart", session(json!({"source": "resume"})));
    assert!(resumed.contains(&global), "{resumed}");
    assert_eq!(view("src/db.rs"), "", "a resumed history still holds it");
}

/// Hundreds of facts edited outside review stay within the budget: the context names a few
/// and says how many (found by the real-runtime suite: the list of all ids ran past it).
#[test]
fn many_unapproved_facts_stay_within_the_budget() {
    let repo = Repo::committed();
    let body: String = (0..400)
        .map(|i| format!("- **f-h{i:03}** Hand-written fact number {i}.\n"))
        .collect();
    repo.write(
        ".ledger/facts/architecture.md",
        &format!("# Architecture\n\n{body}"),
    );
    let out = repo
        .mneme(&["context", "--max-chars", "1500"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.len() <= 1500 + 100, "{}", text.len());
    assert!(
        text.contains("400 fact(s) differ from what was approved"),
        "{text}"
    );
    assert!(text.contains("and 380 more (see `mneme check`)"), "{text}");
}

/// `setup` says to install mneme only where the PATH lacks it.
#[test]
fn setup_says_to_install_mneme_only_when_it_is_missing() {
    let repo = Repo::committed();
    let notes = |path: &std::ffi::OsStr| {
        let out = repo
            .mneme(&["setup", "claude", "--dry-run", "--json"])
            .env("PATH", path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["notes"].to_string()
    };
    assert!(!notes(&crate::common::path_with_mneme()).contains("install it with"));
    let without = std::path::Path::new("/usr/bin");
    assert!(notes(without.as_os_str()).contains("install it with"));
}

/// A repository whose ledger delivers facts about files as Claude Code touches them: one fact
/// about `src/db.rs`, one about `src/other.rs`, one about no file.
fn scoped_repo() -> (Repo, [String; 3]) {
    let repo = Repo::committed();
    repo.write("src/db.rs", "fn pool() {}\n");
    repo.write("src/other.rs", "fn other() {}\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "code"]);
    let db = repo.approve_new_with(
        "pitfalls",
        "The pool holds ten connections.",
        &["--reason", "r", "--evidence", "src/db.rs:1"],
    );
    let other = repo.approve_new_with(
        "pitfalls",
        "Other stays alone.",
        &["--reason", "r", "--evidence", "./src/other.rs"],
    );
    let global = repo.approve_new("pitfalls", "Every change is reviewed.");
    // Scoped delivery is what `init` writes, and the default.
    assert!(repo
        .read(".ledger/config.yaml")
        .contains("\nscoped_delivery: true\n"));
    (repo, [db, other, global])
}

fn claude_tool(repo: &Repo, session: &str, file: &str) -> String {
    let input = json!({"session_id": session, "hook_event_name": "PostToolUse", "tool_name": "Read",
                       "tool_input": {"file_path": file}});
    hook_with(repo, "claude", "PostToolUse", input)
}

fn claude_start(repo: &Repo, session: &str, source: &str) -> String {
    let input = json!({"session_id": session, "hook_event_name": "SessionStart", "source": source});
    additional_context(&hook_with(repo, "claude", "SessionStart", input))
}

/// A fact is about the code it cites, not the document it came from: with scoped delivery,
/// rules imported from `CLAUDE.md` (a link to `AGENTS.md`, whose lines they cite) and a fact
/// citing an ADR come at session start, where an agent gets them, not when it opens those files
/// with a tool, which it rarely does.
#[test]
fn facts_from_instruction_and_documentation_files_come_at_session_start() {
    let (repo, [db, _, global]) = scoped_repo();
    repo.write(
        "AGENTS.md",
        "# Rules\n\n- Never log request bodies anywhere.\n- Run the linter before you commit.\n",
    );
    std::os::unix::fs::symlink("AGENTS.md", repo.file("CLAUDE.md")).unwrap();
    repo.write("docs/adr/0001-pool.md", "# Pool\n\nTen connections.\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "docs"]);
    let v = repo.json(&["import", "claude", "CLAUDE.md", "--json"]);
    let imported = v["proposals"][0]["id"].as_str().unwrap().to_owned();
    repo.approve(&imported);
    let adr = repo.approve_new_with(
        "architecture",
        "The pool size was decided in ADR 1.",
        &["--reason", "r", "--evidence", "docs/adr/0001-pool.md:3"],
    );
    let start = claude_start(&repo, "s1", "startup");
    for text in [
        "Never log request bodies anywhere.",
        "Run the linter before you commit.",
    ] {
        assert!(start.contains(text), "{start}");
    }
    assert!(start.contains(&adr) && start.contains(&global), "{start}");
    assert!(!start.contains(&db), "{start}");
    assert!(
        start.contains("2 more fact(s) are about specific files and come when you read or edit one of them: src/ (2)"),
        "{start}"
    );
    for file in ["AGENTS.md", "CLAUDE.md", "docs/adr/0001-pool.md"] {
        let path = repo.file(file).display().to_string();
        let out = claude_tool(&repo, "s1", &path);
        assert!(!out.contains("Project facts about"), "{file}: {out}");
    }
}

/// With scoped delivery, a session starts with the facts about no file and an index of the
/// others; a fact about a file comes once per session when the agent reads or edits the file,
/// again after a compaction dropped it, and never for another file.
#[test]
fn facts_about_a_file_come_when_the_agent_touches_it_once_per_session() {
    let (repo, [db, other, global]) = scoped_repo();
    let start = claude_start(&repo, "s1", "startup");
    assert!(start.contains(&global), "{start}");
    assert!(!start.contains(&db) && !start.contains(&other), "{start}");
    assert!(start.contains("2 more fact(s) are about specific files and come when you read or edit one of them: src/ (2)"), "{start}");

    let absolute = repo.file("src/db.rs").display().to_string();
    let first = additional_context(&claude_tool(&repo, "s1", &absolute));
    assert!(
        first.starts_with("# Project facts about the files you touched (`src/db.rs`)"),
        "{first}"
    );
    assert!(
        first.contains(&db) && !first.contains(&other) && !first.contains(&global),
        "{first}"
    );
    // Once per session: the same file again, or by a relative path, adds nothing.
    assert_eq!(claude_tool(&repo, "s1", &absolute), "");
    assert_eq!(claude_tool(&repo, "s1", "src/db.rs"), "");
    // Another session gets it; a file no fact cites, or one outside the repository, gets nothing.
    assert!(claude_tool(&repo, "s2", "src/db.rs").contains(&db));
    assert_eq!(claude_tool(&repo, "s1", "README.md"), "");
    assert_eq!(claude_tool(&repo, "s1", "/etc/hostname"), "");
    // A resumed session still holds it. A compaction drops it, and its hook gives it back
    // with the start (the work goes on with that file, and a tool's hook comes after the
    // tool), once: the file then adds nothing. A fact about a file not touched stays out.
    claude_start(&repo, "s1", "resume");
    assert_eq!(claude_tool(&repo, "s1", &absolute), "");
    let compacted = claude_start(&repo, "s1", "compact");
    assert!(
        compacted.contains("# Project facts about the files you worked on before the compaction"),
        "{compacted}"
    );
    assert!(
        compacted.contains(&db) && compacted.contains(&global),
        "{compacted}"
    );
    assert!(!compacted.contains(&other), "{compacted}");
    assert_eq!(claude_tool(&repo, "s1", &absolute), "");
    // A new session has touched nothing: its compaction gives the start alone.
    claude_start(&repo, "s3", "startup");
    assert!(!claude_start(&repo, "s3", "compact").contains(&db));

    // The full briefing and `--files` still give everything asked for.
    let all = repo.stdout(&["context"]);
    assert!(all.contains(&db) && all.contains(&other), "{all}");
    let files = repo.stdout(&["context", "--files", "src/other.rs"]);
    assert!(
        files.contains(&other) && !files.contains(&db) && !files.contains(&global),
        "{files}"
    );
}

/// Claude Code runs the hooks of parallel tool calls at the same time: twenty hooks of one
/// session reading the same file give its fact exactly once between them, trial after trial.
/// `MNEME_PARALLEL_TRIALS` sets the number of trials (the closing measurement used 50).
#[test]
fn parallel_hooks_of_one_session_give_a_fact_once() {
    use std::io::Write as _;
    use std::process::Stdio;
    let (repo, [db, ..]) = scoped_repo();
    let trials: usize = std::env::var("MNEME_PARALLEL_TRIALS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    let mut copies = Vec::new();
    for trial in 0..trials {
        let session = format!("parallel-{trial}");
        let input = json!({"session_id": session, "hook_event_name": "PostToolUse",
                           "tool_name": "Read", "tool_input": {"file_path": "src/db.rs"}})
        .to_string();
        // All started before any is given its input, so that they run together.
        let children: Vec<_> = (0..20)
            .map(|_| {
                crate::common::mneme_std(repo.path())
                    .args(["context", "--for", "claude", "--event", "PostToolUse"])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let children: Vec<_> = children
            .into_iter()
            .map(|mut c| {
                c.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
                c
            })
            .collect();
        let given = children
            .into_iter()
            .map(|c| crate::common::succeeded(c.wait_with_output().unwrap()))
            .filter(|out| String::from_utf8_lossy(&out.stdout).contains(&db))
            .count();
        copies.push(given);
    }
    assert!(
        copies.iter().all(|&n| n == 1),
        "copies per trial: {copies:?}"
    );
}

/// A marked fact comes at the start whatever it cites, and without scoped delivery every fact
/// does; setup writes the PostToolUse hook for the tools that touch one file.
#[test]
fn marked_facts_and_unscoped_ledgers_start_with_everything() {
    let (repo, [db, _, _]) = scoped_repo();
    // The cited code changes: the fact is stale, and a stale fact is never held back.
    repo.write("src/db.rs", "fn pool() { grow() }\n");
    repo.git(&["commit", "-q", "-am", "grow the pool"]);
    let start = claude_start(&repo, "s1", "startup");
    assert!(start.contains(&format!("{db} [stale")), "{start}");
    let config = repo
        .read(".ledger/config.yaml")
        .replace("scoped_delivery: true\n", "scoped_delivery: false\n");
    repo.write(".ledger/config.yaml", &config);
    let start = claude_start(&repo, "s2", "startup");
    assert!(!start.contains("are about specific files"), "{start}");

    repo.mneme(&["setup", "claude"]).assert().success();
    let settings: Value = serde_json::from_str(&repo.read(".claude/settings.json")).unwrap();
    let post = &settings["hooks"]["PostToolUse"][0];
    assert_eq!(post["matcher"], "Read|Edit|Write|MultiEdit");
    assert!(post["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .contains("context --for claude --event PostToolUse"));
    repo.mneme(&["setup", "claude", "--remove"])
        .assert()
        .success();
    assert!(
        !repo.file(".claude/settings.json").exists()
            || !repo.read(".claude/settings.json").contains("PostToolUse")
    );
}

/// The file hooks are bounded whatever the runtime sends: a patch naming 10,000 files is
/// matched by its first paths and named by a short heading, so the fact still fits; a huge
/// transcript line is passed over, not read whole, and the history after it still counts.
#[test]
fn the_file_hooks_are_bounded_by_what_they_read_and_write() {
    let (repo, [db, ..]) = scoped_repo();
    let mut patch = String::from("*** Begin Patch\n*** Update File: src/db.rs\n@@\n-a\n+b\n");
    std::fs::create_dir_all(repo.file("gen")).unwrap();
    for i in 0..10_000 {
        std::fs::write(repo.file(&format!("gen/file{i}.rs")), "x\n").unwrap();
        patch.push_str(&format!("*** Update File: gen/file{i}.rs\n@@\n-x\n+y\n"));
    }
    patch.push_str("*** End Patch\n");
    let input = json!({"session_id": "big", "hook_event_name": "PostToolUse",
                       "tool_name": "apply_patch", "tool_input": {"command": patch}});
    let got = additional_context(&hook_with(&repo, "codex", "PostToolUse", input));
    let start: String = got.chars().take(300).collect();
    assert!(got.contains(&db), "{start}");
    assert!(
        got.chars().count() < 2_000,
        "{} characters: {start}",
        got.chars().count()
    );

    // A Gemini transcript with a 6 MiB line, then the line that shows the fact given.
    let transcript = repo.file(".git/transcript.jsonl");
    let long = format!(
        "{{\"type\":\"user\",\"content\":\"{}\"}}\n",
        "x".repeat(6 << 20)
    );
    let shown = format!("{{\"type\":\"user\",\"content\":\"- {db} The pool\"}}\n");
    std::fs::write(&transcript, format!("{long}{shown}")).unwrap();
    let input = json!({"session_id": "g1", "hook_event_name": "AfterTool", "tool_name": "read_file",
                       "tool_input": {"file_path": "src/db.rs"},
                       "transcript_path": transcript.to_str().unwrap()});
    assert_eq!(
        hook_with(&repo, "gemini", "AfterTool", input),
        "",
        "the history holds it"
    );
}

/// A path and the file it links to are one file for matching: reading a link brings the facts
/// about its target (`CLAUDE.md -> AGENTS.md` is common).
#[test]
fn a_link_and_its_target_are_one_file_for_the_file_hooks() {
    let (repo, [db, other, _]) = scoped_repo();
    std::os::unix::fs::symlink("db.rs", repo.file("src/pool.rs")).unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "link"]);
    let got = additional_context(&claude_tool(&repo, "l1", "src/pool.rs"));
    assert!(got.contains(&db) && !got.contains(&other), "{got}");
    assert_eq!(
        claude_tool(&repo, "l1", "src/db.rs"),
        "",
        "the same file, once"
    );
}

/// Codex's PostToolUse names no file: the files come from its shell command or patch. Cursor
/// has no hook after a tool, so its session starts with every fact. A setup without the file
/// hooks is a problem `doctor` names.
#[test]
fn codex_finds_files_in_its_commands_and_cursor_starts_with_every_fact() {
    let (repo, [db, other, global]) = scoped_repo();
    let codex = |tool: &str, command: &str| {
        let input = json!({"session_id": "c1", "hook_event_name": "PostToolUse",
                           "tool_name": tool, "tool_input": {"command": command}});
        hook_with(&repo, "codex", "PostToolUse", input)
    };
    let read = additional_context(&codex("Bash", "sed -n '1,80p' src/db.rs | nl -ba"));
    assert!(read.contains(&db) && !read.contains(&other), "{read}");
    // The heading names the files, not the command's other words.
    let heading = read.lines().next().unwrap();
    assert!(heading.contains("touched (`src/db.rs`) —"), "{heading}");
    assert_eq!(codex("Bash", "cat src/db.rs"), "", "once per session");
    let patch = "*** Begin Patch\n*** Update File: src/other.rs\n@@\n-fn other() {}\n+fn other() { }\n*** End Patch\n";
    let edit = additional_context(&codex("apply_patch", patch));
    assert!(edit.contains(&other) && !edit.contains(&db), "{edit}");
    assert_eq!(codex("Bash", "ls -la; git status"), "");

    let cursor = hook(&repo, "cursor", "sessionStart");
    for id in [&db, &other, &global] {
        assert!(cursor.contains(id.as_str()), "{cursor}");
    }
    assert!(!cursor.contains("are about specific files"), "{cursor}");

    repo.mneme(&["setup", "claude"]).assert().success();
    let mut settings: Value = serde_json::from_str(&repo.read(".claude/settings.json")).unwrap();
    settings["hooks"]
        .as_object_mut()
        .unwrap()
        .remove("PostToolUse");
    repo.write(".claude/settings.json", &settings.to_string());
    let out = repo.mneme(&["--json", "doctor"]).output().unwrap();
    let problems = json(&out)["problems"].to_string();
    assert!(
        problems.contains(".claude/settings.json does not hold mneme's current hooks: with scoped_delivery on, its sessions may never get the facts about files")
            && problems.contains("mneme setup claude"),
        "{problems}"
    );
}

/// A scope glob a proposal sets: the reviewer sees it, the approval writes it, the hook delivers
/// the fact for a matching file, `check` warns while it matches nothing tracked, and a glob that
/// could reach outside the repository is refused with nothing written.
#[test]
fn a_scope_glob_is_reviewed_written_delivered_and_checked() {
    let (repo, _) = scoped_repo();
    let text = "Migrations never drop a column in the same release.";
    let proposal = repo.propose_add(
        "pitfalls",
        text,
        &["--scope", "migrations/**/*.sql", "--reason", "r"],
    );
    let p: Value =
        serde_json::from_str(&repo.read(&format!(".ledger/proposals/{proposal}.json"))).unwrap();
    assert_eq!(p["operations"][0]["scope"], json!(["migrations/**/*.sql"]));
    let shown = repo.stdout(&["review", "show", &proposal]);
    assert!(
        shown.contains(
            "scope:    migrations/**/*.sql (agents get the fact when they read or edit a match)"
        ) && shown.contains("scope: migrations/**/*.sql -->"),
        "the header and the diff show it: {shown}"
    );
    let fact = repo.new_fact_id(&proposal);
    repo.approve(&proposal);
    assert!(repo
        .read(".ledger/facts/pitfalls.md")
        .contains(&format!("**{fact}** {text} <!-- since: ")));
    assert_eq!(repo.facts()[&fact]["scope"], json!(["migrations/**/*.sql"]));

    let findings = || Value::from(repo.findings()).to_string();
    assert!(findings().contains("scope `migrations/**/*.sql` matches no file git tracks"));
    repo.write("migrations/2026/001_init.sql", "create table t ();\n");
    repo.git(&["add", "-A"]);
    assert!(!findings().contains("scope_unmatched"));

    let start = claude_start(&repo, "s1", "startup");
    assert!(!start.contains(&fact), "{start}");
    assert!(start.contains("migrations/ (1)"), "{start}");
    let touched = claude_tool(&repo, "s1", "migrations/2026/001_init.sql");
    assert!(touched.contains(&fact), "{touched}");
    assert_eq!(claude_tool(&repo, "s1", "migrations/README.md"), "");

    // An update without --scope keeps it; with one, replaces it.
    let kept = repo.propose_update(&fact, "Migrations never drop a column.", &["--reason", "r"]);
    repo.approve(&kept);
    assert_eq!(repo.facts()[&fact]["scope"], json!(["migrations/**/*.sql"]));
    let moved = repo.propose_update(
        &fact,
        "Migrations never drop columns.",
        &["--scope", "db/**", "--reason", "r"],
    );
    repo.approve(&moved);
    assert_eq!(repo.facts()[&fact]["scope"], json!(["db/**"]));

    for bad in ["/etc/*", "../**", "src/a b", "src/\u{202e}x"] {
        let before = repo.proposals();
        let out = repo
            .mneme(&[
                "propose", "add", "-f", "pitfalls", "Another.", "--reason", "r", "--scope", bad,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("invalid scope"), "{bad}: {err}");
        assert_eq!(repo.proposals(), before, "nothing written");
    }
}
