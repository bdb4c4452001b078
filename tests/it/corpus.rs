//! Real-world text: the multilingual corpus under `tests/corpus/` (hand-written ledgers and agent
//! files in German, Chinese, Japanese, Russian, Arabic and Hebrew, with emoji, box drawings,
//! combining marks, astral-plane scripts, CRLF, tabs and a byte order mark) goes through every
//! verb. Each exits 0 or 1, never with a panic, and leaves every byte it does not mean to change.
//! Also: hidden and direction-changing characters are shown escaped and refused, and a panic is
//! reported as an internal error.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Output;

use mneme::model::base::text::display_width;
use serde_json::{json, Value};

use crate::common::{error_code, json, Repo};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");

/// A repository whose ledger is the corpus's fact files, committed by hand.
fn corpus_repo() -> Repo {
    let repo = Repo::committed();
    for entry in fs::read_dir(repo.file(".ledger/facts")).unwrap() {
        fs::remove_file(entry.unwrap().path()).unwrap();
    }
    for entry in fs::read_dir(Path::new(CORPUS).join("facts")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        fs::copy(&path, repo.file(".ledger/facts").join(name)).unwrap();
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "hand-written multilingual ledger"]);
    repo
}

/// Every fact file's bytes, by name.
fn fact_files(repo: &Repo) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(repo.file(".ledger/facts"))
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read(&path).unwrap())
        })
        .collect()
}

/// Runs `mneme ARGS`, which must exit 0 or 1 and report no internal error.
fn run(repo: &Repo, args: &[&str]) -> Output {
    let out = repo
        .mneme(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "mneme {args:?} exited {:?}: {stderr}",
        out.status.code()
    );
    assert!(
        !stderr.contains("panicked") && !stderr.contains("internal"),
        "mneme {args:?}: {stderr}"
    );
    out
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The verbs that only read, each run as a person and as an agent would.
const READERS: &[&[&str]] = &[
    &["context"],
    &["context", "--max-chars", "700"],
    &["check"],
    &["status"],
    &["doctor"],
    &["facts"],
    &["show", "f-ja03"],
    &["show", "f-he02"],
    &["stale"],
    &["verify"],
    &["diff"],
    &["log"],
    &["why", "f-zh01"],
    &["review", "list"],
    &["list"],
    &["ready"],
];

#[test]
fn every_reading_verb_reads_the_corpus_and_changes_no_byte() {
    let repo = corpus_repo();
    let before = fact_files(&repo);
    for args in READERS {
        run(&repo, args);
        let mut with_json = args.to_vec();
        with_json.push("--json");
        let out = run(&repo, &with_json);
        if out.status.success() {
            json(&out);
        }
    }
    let context = stdout(&run(&repo, &["context"]));
    for text in [
        "数据库连接池的大小固定为 32",
        "日本語のファイル名は NFC",
        "Ёмкость очереди — 10 000 сообщений",
        "כל בקשה לשרת חייבת לכלול",
        "يجب أن تكون جميع الاستجابات",
        "│ Entwurf  │ ──────────▶ │ Bestätigt │",
        "Z\u{335}\u{347}a\u{337}l\u{336}g\u{338}o",
        "👨‍👩‍👧‍👦",
        "𐌰𐌱𐌲",
    ] {
        assert!(context.contains(text), "context lacks {text:?}:\n{context}");
    }
    for runtime in ["claude", "codex", "gemini", "cursor", "opencode"] {
        let out = stdout(&run(&repo, &["context", "--for", runtime]));
        let text = match runtime {
            "opencode" => out,
            _ => {
                let v: Value = serde_json::from_str(&out).unwrap();
                v["hookSpecificOutput"]["additionalContext"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            }
        };
        assert!(
            text.contains("f-zh01") && text.contains("f-he02"),
            "{runtime}: {text}"
        );
    }
    assert_eq!(
        fact_files(&repo),
        before,
        "a reading verb changed a fact file"
    );
}

#[test]
fn fixes_proposals_and_approvals_change_only_their_lines() {
    let repo = corpus_repo();
    let before = fact_files(&repo);
    run(&repo, &["check", "--fix"]);
    let fixed = fact_files(&repo);
    for (name, bytes) in &before {
        if name == "数据库.md" {
            let (old, new) = (
                String::from_utf8(bytes.clone()).unwrap(),
                String::from_utf8(fixed[name].clone()).unwrap(),
            );
            let changed: Vec<_> = old
                .lines()
                .zip(new.lines())
                .filter(|(a, b)| a != b)
                .collect();
            assert_eq!(changed.len(), 1, "{changed:?}");
            assert!(
                changed[0].1.starts_with("- **f-")
                    && changed[0].1.ends_with("批处理任务每晚 02:00 运行。")
            );
        } else {
            assert_eq!(&fixed[name], bytes, "{name} changed by check --fix");
        }
    }
    repo.git(&["commit", "-qam", "ids"]);

    let update = repo.propose_update(
        "f-ru02",
        "Ёмкость очереди — 20 000 сообщений.",
        &["--reason", "нагрузочный тест 📈", "--agent", "克劳德"],
    );
    let add = repo.propose_add(
        "落とし穴",
        "全角の空白　を含む行も、そのまま保存される。",
        &["--reason", "テスト", "--agent", "Агент"],
    );
    // Columns line up by terminal width, however wide the agents' names are.
    let list = stdout(&run(&repo, &["review", "list"]));
    let starts: Vec<usize> = list
        .lines()
        .map(|l| display_width(&l[..l.find("update f-").or(l.find("add f-")).unwrap()]))
        .collect();
    assert_eq!(starts.len(), 2, "{list}");
    assert_eq!(starts[0], starts[1], "operations misaligned:\n{list}");
    run(&repo, &["review", "show", &update]);
    run(&repo, &["review", "approve", &update]);
    run(&repo, &["review", "approve", &add]);
    let after = fact_files(&repo);
    let russian = String::from_utf8(after["инварианты.md"].clone()).unwrap();
    let old = String::from_utf8(fixed["инварианты.md"].clone()).unwrap();
    assert!(
        russian.contains("- **f-ru02** Ёмкость очереди — 20 000 сообщений."),
        "{russian:?}"
    );
    assert!(
        russian.contains("\r\n") && !russian.replace("\r\n", "").contains('\n'),
        "CRLF kept: {russian:?}"
    );
    let untouched = |s: &str| {
        s.split("\r\n")
            .filter(|l| !l.contains("f-ru02") && !l.starts_with("  Продолжение"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(untouched(&russian), untouched(&old));
    for name in ["architektur.md", "emoji.md", "rtl.md", "数据库.md"] {
        assert_eq!(
            after[name], fixed[name],
            "{name} changed by an approval elsewhere"
        );
    }
    let log = stdout(&run(&repo, &["log"]));
    assert!(log.contains("克劳德") && log.contains("Агент"), "{log}");
    let why = stdout(&run(&repo, &["why", "f-ru02"]));
    assert!(why.contains("10 000") && why.contains("20 000"), "{why}");
    run(&repo, &["verify"]);
    run(&repo, &["diff"]);
    run(&repo, &["stale"]);
}

#[test]
fn exports_imports_and_the_merge_driver_carry_every_script() {
    let repo = corpus_repo();
    run(&repo, &["check", "--fix"]);
    repo.git(&["commit", "-qam", "ids"]);
    let out_dir = tempfile::tempdir().unwrap();
    let dir = |f: &str| out_dir.path().join(f).to_string_lossy().into_owned();
    for format in ["mif", "compiled", "records", "context-pack"] {
        let out = run(
            &repo,
            &["export", "--format", format, "--out", &dir(format)],
        );
        assert!(
            out.status.success(),
            "export {format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let agents = Path::new(CORPUS).join("agents");
    let agents = |p: &str| agents.join(p).to_string_lossy().into_owned();
    let imports = [
        ("claude", agents("CLAUDE.md"), "所有数据库迁移必须可以回滚"),
        (
            "agents",
            agents("AGENTS.md"),
            "Тесты запускаются параллельно",
        ),
        ("cursor", agents("cursor"), "Abfragen über 100 ms"),
        (
            "memory-bank",
            agents("memory-bank"),
            "Все обработчики идемпотентны",
        ),
        ("adr", agents("adr"), "所有服务都使用 PostgreSQL 16"),
        ("notes", agents("notes"), "פעולות ארוכות רצות ברקע"),
        ("mif", dir("mif"), ""),
        ("compiled", dir("compiled"), ""),
        ("records", format!("{}/records.jsonl", dir("records")), ""),
    ];
    for (source, path, expected) in &imports {
        let out = run(&repo, &["import", "--dry-run", "--json", source, path]);
        assert!(
            out.status.success(),
            "import {source}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout(&out).contains(expected),
            "import {source}: {}",
            stdout(&out)
        );
    }
    // What an export wrote, an import of it finds already held: every statement round-trips.
    for (source, path, _) in &imports[6..] {
        let v = json(&run(
            &repo,
            &["import", "--dry-run", "--json", source, path],
        ));
        assert_eq!(
            v["proposed"].as_array().map_or(0, Vec::len),
            0,
            "{source}: {v}"
        );
    }

    let file = repo.file(".ledger/facts/数据库.md");
    let base = fs::read_to_string(&file).unwrap();
    let ours = base.replace("固定为 32", "固定为 48");
    let theirs = format!("{base}- **f-zh09** 新的事实：日志保留 30 天。🗂️\n");
    let work = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = work.path().join(name);
        fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    };
    let (b, o, t) = (
        write("base", &base),
        write("ours", &ours),
        write("theirs", &theirs),
    );
    let out = run(&repo, &["merge-file", &b, &o, &t]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = fs::read_to_string(&o).unwrap();
    assert!(
        merged.contains("固定为 48") && merged.contains("日志保留 30 天。🗂️"),
        "{merged}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn the_mcp_tools_serve_every_script() {
    let repo = corpus_repo();
    let client = crate::mcp::connect(&repo, rmcp::ClientLifecycleMode::Initialize).await;
    let context = crate::mcp::call(&client, "context", json!({})).await;
    let text = crate::mcp::structured(&context)["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(text.contains("שם המשתמש מוצג מימין לשמאל"), "{text}");
    let facts = crate::mcp::structured(&crate::mcp::call(&client, "facts", json!({})).await);
    assert!(facts.to_string().contains("数据库连接池"), "{facts}");
    let found = crate::mcp::structured(
        &crate::mcp::call(&client, "search", json!({"query": "ОЧЕРЕДИ"})).await,
    );
    assert_eq!(found["facts"][0]["id"], "f-ru02", "{found}");
    let shown =
        crate::mcp::structured(&crate::mcp::call(&client, "show", json!({"id": "f-ja03"})).await);
    assert!(shown["text"].as_str().unwrap().contains("👨‍👩‍👧‍👦"), "{shown}");
    let stale = crate::mcp::call(&client, "stale", json!({})).await;
    assert_ne!(stale.is_error, Some(true), "{stale:?}");
    let proposed = crate::mcp::call(
        &client,
        "propose",
        json!({
            "reason": "压力测试 📈",
            "operations": [{"op": "update", "fact_id": "f-zh01", "text": "数据库连接池的大小固定为 64。"}]
        }),
    )
    .await;
    assert_ne!(proposed.is_error, Some(true), "{proposed:?}");
    let refused = crate::mcp::call(
        &client,
        "propose",
        json!({"reason": "x", "operations": [{"op": "add", "file": "rtl", "text": HIDDEN}]}),
    )
    .await;
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    assert_eq!(crate::mcp::structured(&refused)["code"], "invalid_text");
    client.cancel().await.unwrap();
}

/// A bug inside one tool call is that call's `internal` error; the server goes on serving.
#[tokio::test(flavor = "current_thread")]
async fn a_panic_in_an_mcp_tool_is_an_error_result() {
    let repo = corpus_repo();
    let client = crate::mcp::connect_with(
        &repo,
        rmcp::ClientLifecycleMode::Initialize,
        &[("MNEME_FAULT", "load")],
    )
    .await;
    for _ in 0..2 {
        let result = crate::mcp::call(&client, "context", json!({})).await;
        assert_eq!(result.is_error, Some(true), "{result:?}");
        let error = crate::mcp::structured(&result);
        assert_eq!(error["code"], "internal", "{error}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("src/store/fault.rs"),
            "{error}"
        );
    }
    let ready = crate::mcp::call(&client, "task_ready", json!({})).await;
    assert_ne!(ready.is_error, Some(true), "{ready:?}");
    client.cancel().await.unwrap();
}

/// Right-to-left override, an isolate and a zero-width space: what Trojan Source uses.
const HIDDEN: &str = "Use the \u{202e}gnirts\u{202c} check\u{2067} only\u{2069} here\u{200b}.";

#[test]
fn hidden_characters_are_shown_escaped_warned_and_refused() {
    let repo = corpus_repo();
    let mut rtl = fs::read_to_string(repo.file(".ledger/facts/rtl.md")).unwrap();
    rtl.push_str(&format!("- **f-hid1** {HIDDEN}\n"));
    repo.write(".ledger/facts/rtl.md", &rtl);
    repo.git(&["commit", "-qam", "a fact with hidden characters"]);
    for args in [
        &["context"][..],
        &["context", "--for", "claude"],
        &["facts"],
        &["show", "f-hid1"],
        &["why", "f-hid1"],
        &["check"],
    ] {
        let out = run(&repo, args);
        let mut text = format!("{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
        if args.contains(&"--for") {
            let v: Value = serde_json::from_str(&text).unwrap();
            text = v["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap()
                .to_owned();
        }
        for c in ['\u{202e}', '\u{202c}', '\u{2067}', '\u{2069}', '\u{200b}'] {
            assert!(!text.contains(c), "{args:?} printed {c:?} raw:\n{text}");
        }
        if args[0] != "check" {
            assert!(
                text.contains("\\u{202e}gnirts\\u{202c}"),
                "{args:?}:\n{text}"
            );
        }
    }
    let findings = repo.findings();
    let hidden: Vec<_> = findings
        .iter()
        .filter(|f| f["code"] == "hidden_text")
        .collect();
    assert_eq!(hidden.len(), 1, "{findings:?}");
    assert!(
        hidden[0]["message"].as_str().unwrap().contains("U+202E"),
        "{hidden:?}"
    );
    // The family emoji's joiners and Persian's non-joiner are text, not hidden.
    assert!(!findings
        .iter()
        .any(|f| f["code"] == "hidden_text" && f["path"] != ".ledger/facts/rtl.md"));

    let before = repo.snapshot();
    // A hidden character in the statement, the reason or the evidence.
    for (statement, reason, evidence) in [
        (HIDDEN, "x", "src/a.rs"),
        ("Plain text.", "a\u{2066}b", "src/a.rs"),
        ("Plain text.", "x", "src/\u{202e}a.rs"),
    ] {
        let args = [
            "propose",
            "--json",
            "add",
            "--file",
            "rtl",
            statement,
            "--reason",
            reason,
            "--evidence",
            evidence,
        ];
        let out = repo.mneme(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(error_code(&out), "invalid_text", "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("U+20"),
            "{args:?}"
        );
    }
    assert_eq!(
        repo.snapshot(),
        before,
        "a refused proposal wrote something"
    );
    let ok = repo.propose_add(
        "rtl",
        "خانواده‌ها 👨‍👩‍👧 are one grapheme each.",
        &["--reason", "x"],
    );
    assert!(!ok.is_empty());

    let notes = tempfile::tempdir().unwrap();
    fs::write(
        notes.path().join("notes.md"),
        format!("# Notes\n\n{HIDDEN}\n\nA plain statement about the cache.\n"),
    )
    .unwrap();
    let out = run(
        &repo,
        &[
            "import",
            "--dry-run",
            "--json",
            "notes",
            &notes.path().to_string_lossy(),
        ],
    );
    let v = json(&out);
    assert_eq!(v["refused"].as_array().unwrap().len(), 1, "{v}");
    assert!(v["refused"].to_string().contains("U+202E"), "{v}");
}

#[test]
fn a_panic_is_one_line_and_exit_70_and_the_hook_still_explains() {
    let repo = corpus_repo();
    for json_flag in [false, true] {
        let mut cmd = repo.mneme(&["context"]);
        if json_flag {
            cmd.arg("--json");
        }
        let out = cmd
            .env("MNEME_FAULT", "load")
            .env("RUST_BACKTRACE", "1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(70));
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8(out.stderr.clone()).unwrap();
        assert!(
            !stderr.contains("panicked") && !stderr.contains("backtrace"),
            "{stderr}"
        );
        assert!(stderr.contains("src/store/fault.rs:"), "{stderr}");
        if json_flag {
            assert_eq!(error_code(&out), "internal");
        } else {
            assert!(stderr.starts_with("error: internal error: "), "{stderr}");
            assert_eq!(
                stderr.lines().count(),
                2,
                "the error and its hint: {stderr}"
            );
        }
    }
    for runtime in ["claude", "codex", "gemini", "cursor", "opencode"] {
        let out = repo
            .mneme(&["context", "--for", runtime])
            .env("MNEME_FAULT", "load")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{runtime}");
        let text = stdout(&out);
        assert!(
            text.contains("mneme check") && text.contains("internal error"),
            "{runtime}: {text}"
        );
        if runtime != "opencode" {
            let v: Value = serde_json::from_str(&text).unwrap();
            assert!(
                v["hookSpecificOutput"]["additionalContext"].is_string(),
                "{runtime}: {text}"
            );
        }
    }
}

#[test]
fn task_listings_line_up_by_terminal_width() {
    let repo = corpus_repo();
    let mut ids = Vec::new();
    for (title, agent) in [
        ("修复缓存失效", "克劳德"),
        ("Fix the cache", "bob"),
        ("Кэш", "Агент"),
    ] {
        let task = repo.json(&["create", title, "--json"]);
        let id = task["id"].as_str().unwrap().to_owned();
        run(&repo, &["update", &id, "--claim", "--agent", agent]);
        ids.push((id, title));
    }
    let out = stdout(&run(&repo, &["list"]));
    let columns: Vec<usize> = ids
        .iter()
        .map(|(id, title)| {
            let line = out.lines().find(|l| l.starts_with(id.as_str())).unwrap();
            display_width(&line[..line.find(title).unwrap()])
        })
        .collect();
    assert!(columns.windows(2).all(|w| w[0] == w[1]), "{out}");
}
