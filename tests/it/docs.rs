//! The documentation cannot drift from the code: the examples in docs/format.md parse as the
//! formats they illustrate, the README walkthrough runs as written, and every command the docs
//! mention is one mneme understands.

use crate::common::Repo;
use mneme::model::facts::file::FactFile;
use mneme::model::proposals::plan::Request;
use mneme::model::proposals::proposal::Proposal;
use mneme::model::tasks::task::Task;

/// The fenced code blocks of `lang` in the file, in order.
fn blocks(lang: &str) -> Vec<String> {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/format.md")).unwrap();
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        match &mut current {
            Some(block) if line.starts_with("```") => {
                out.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None if line == format!("```{lang}") => current = Some(String::new()),
            None => {}
        }
    }
    out
}

#[test]
fn the_fact_file_example_parses() {
    let example = &blocks("markdown")[0];
    let file = FactFile::parse(example).unwrap();
    let ids: Vec<_> = file.facts().map(|f| f.id.clone().unwrap()).collect();
    assert_eq!(ids, ["f-7f3c", "f-k2a9", "f-old1"]);
    assert_eq!(file.front_matter.title.as_deref(), Some("Architecture"));
    assert_eq!(
        file.facts().nth(2).unwrap().meta.by.as_deref(),
        Some("f-7f3c")
    );
    assert_eq!(file.render(), *example);
}

#[test]
fn the_json_examples_parse() {
    let json = blocks("json");
    let proposal = json.iter().find(|b| b.contains("\"schema\": 1")).unwrap();
    let p = Proposal::parse(proposal).unwrap();
    assert_eq!(p.operations.len(), 7);
    let request = json
        .iter()
        .find(|b| b.contains("\"reason\": \"storage rework\""))
        .unwrap();
    let r: Request = serde_json::from_str(request).unwrap();
    assert_eq!(r.operations.len(), 7);
    let task = json
        .iter()
        .find(|b| b.contains("\"id\": \"t-a3f8\""))
        .unwrap();
    let t = Task::parse(task).unwrap();
    assert_eq!(t.deps.len(), 2);
    assert_eq!(t.notes.len(), 1);
}

/// The shell commands of the fenced `sh` blocks of a Markdown file, in order: continuation
/// lines joined, blank and comment lines left out.
fn shell_commands(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            in_block = line == "```sh";
            continue;
        }
        if !in_block {
            continue;
        }
        let line = line.trim();
        if let Some(start) = line.strip_suffix('\\') {
            pending.push_str(start);
            continue;
        }
        pending.push_str(line);
        let command = std::mem::take(&mut pending);
        if !command.is_empty() && !command.starts_with('#') {
            out.push(command);
        }
    }
    out
}

/// Words of `command` that look like the example ids the docs use, by kind.
fn example_ids(command: &str, kind: fn(&str) -> bool) -> Vec<&str> {
    command
        .split(|c: char| c.is_whitespace() || c == '"' || c == '\'')
        .filter(|w| kind(w))
        .collect()
}

fn is_fact_id(w: &str) -> bool {
    w.len() >= 6 && w.starts_with("f-") && w[2..].chars().all(|c| c.is_ascii_alphanumeric())
}

fn is_task_id(w: &str) -> bool {
    w.len() == 6 && w.starts_with("t-") && w[2..].chars().all(|c| c.is_ascii_alphanumeric())
}

fn is_proposal_prefix(w: &str) -> bool {
    w.len() >= 13 && w.starts_with("2026") && w.as_bytes()[8] == b'T'
}

/// Maps the docs' example ids to real ones: each new example id takes the oldest real one of
/// its kind not taken yet.
#[derive(Default)]
struct Ids {
    map: Vec<(String, String)>,
}

impl Ids {
    fn bind(&mut self, example: &str, candidates: Vec<String>) {
        if self.map.iter().any(|(e, _)| e == example) {
            return;
        }
        let real = candidates
            .into_iter()
            .find(|c| !self.map.iter().any(|(_, r)| r == c))
            .unwrap_or_else(|| panic!("nothing for the example id {example} to stand for"));
        self.map.push((example.to_owned(), real));
    }

    fn apply(&self, command: &str) -> String {
        let mut out = command.to_owned();
        for (example, real) in &self.map {
            out = out.replace(example.as_str(), real);
        }
        out
    }
}

fn strings(v: &serde_json::Value, key: &str) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x[key].as_str().unwrap().to_owned())
        .collect()
}

/// The README walkthrough, followed literally in a fresh repository: every command succeeds
/// (only `mneme review`, which needs a terminal, refuses), with the example ids standing for the
/// real ones mneme printed.
#[test]
fn the_readme_runs_as_written() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let commands: Vec<String> = shell_commands(&readme)
        .into_iter()
        .filter(|c| !c.starts_with("cargo ") && !c.starts_with("cd "))
        .collect();
    assert!(commands.len() > 30, "{commands:?}");
    let repo = Repo::bare_init();
    let mut ids = Ids::default();
    for command in &commands {
        for example in example_ids(command, is_fact_id) {
            let facts = repo.json(&["facts", "--json"]);
            let real: Vec<String> = facts
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|f| strings(&f["facts"], "id"))
                .collect();
            ids.bind(example, real);
        }
        for example in example_ids(command, is_proposal_prefix) {
            ids.bind(
                example,
                strings(&repo.json(&["review", "list", "--json"]), "id"),
            );
        }
        for example in example_ids(command, is_task_id) {
            let mut tasks = repo
                .json(&["list", "--all", "--json"])
                .as_array()
                .unwrap()
                .clone();
            tasks.sort_by(|a, b| a["created_at"].as_str().cmp(&b["created_at"].as_str()));
            ids.bind(example, strings(&serde_json::Value::Array(tasks), "id"));
        }
        let real = ids.apply(command);
        let out = repo.sh(&real);
        let expected = if real.trim_end().split('#').next().unwrap().trim() == "mneme review" {
            1
        } else {
            0
        };
        assert_eq!(
            out.status.code(),
            Some(expected),
            "`{real}`:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // What the walkthrough did.
    let fact = &ids.map.iter().find(|(e, _)| e == "f-7f3c").unwrap().1;
    assert!(repo
        .read(".ledger/facts/architecture.md")
        .contains(&format!("**{fact}** We use PostgreSQL 16, not SQLite.")));
    assert_eq!(repo.trailer("HEAD~0", "Mneme-Decision").len(), 1);
    repo.mneme(&["verify"]).assert().success();
    assert!(repo.file(".github/workflows/mneme.yml").exists());
    assert!(repo.file(".claude/settings.json").exists());
}

/// Inline mentions of commands in the docs (`` `mneme …` ``), made runnable: notation
/// (`[optional]`, `a|b`, `…`, placeholders) replaced by example values.
fn inline_commands(markdown: &str) -> Vec<String> {
    const PLACEHOLDERS: [(&str, &str); 20] = [
        ("<runtime>", "claude"),
        ("<path>", "src/db.rs"),
        ("PATH…", "src/db.rs"),
        ("<event>", "SessionStart"),
        ("<shell>", "bash"),
        ("<fact-id>", "f-xxxx"),
        ("<id>…", "t-a3f8"),
        ("<id>", "t-a3f8"),
        ("<range>", "HEAD..HEAD"),
        ("BASE..HEAD", "HEAD..HEAD"),
        ("<the repository>", "https://example.com/acme/app"),
        ("FACT", "f-xxxx"),
        ("fact-id", "f-xxxx"),
        (" ID ", " f-xxxx "),
        ("--message TEXT", "--message text"),
        ("--reason TEXT", "--reason text"),
        ("FILE", "ops.json"),
        (" DIR ", " . "),
        (" N ", " 500 "),
        (" TEXT ", " text "),
    ];
    // Flags named in prose without their values or the arguments they need.
    const COMPLETIONS: [(&str, &str); 4] = [
        ("mneme context --max-chars", "mneme context --max-chars 500"),
        (
            "mneme propose --from-json",
            "mneme propose --from-json ops.json",
        ),
        (
            "mneme review approve --allow-secrets",
            "mneme review approve --all --allow-secrets",
        ),
        (
            "mneme review approve|reject … --json",
            "mneme review approve --all --json",
        ),
    ];
    let mut out = Vec::new();
    for piece in markdown.split('`').skip(1).step_by(2) {
        if !piece.starts_with("mneme ") {
            continue;
        }
        // Markdown tables escape pipes; brackets mark what is optional.
        let piece = piece.replace("\\|", "|");
        let mut command = format!("{} ", piece.replace(['[', ']'], ""));
        for (from, to) in COMPLETIONS {
            if piece == from {
                command = format!("{to} ");
            }
        }
        for (from, to) in PLACEHOLDERS {
            command = command.replace(from, to);
        }
        let words: Vec<String> = command
            .split_whitespace()
            .filter(|w| *w != "…" && *w != "...")
            .map(|w| {
                // `a|b` and `add/rm/tree` name alternatives: take the first (a pipe stays).
                let w = if w.len() > 1 && !w.starts_with('"') {
                    w.split('|').next().unwrap()
                } else {
                    w
                };
                let w = if w.contains('/') && w.chars().all(|c| c.is_ascii_lowercase() || c == '/')
                {
                    w.split('/').next().unwrap()
                } else {
                    w
                };
                w.to_owned()
            })
            .filter(|w| !w.is_empty())
            .collect();
        // Where the output goes or the input comes from is the reader's business, not mneme's.
        let end = words
            .iter()
            .position(|w| [">", ">>", "<"].contains(&w.as_str()))
            .unwrap_or(words.len());
        out.push(words[..end].join(" "));
    }
    out
}

/// Every command the docs mention inline is one mneme understands: run in a scratch repository,
/// none is a usage error (exit 2). A bare verb (`mneme close`) must have `--help`.
#[test]
fn every_command_the_docs_mention_parses() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut sources = vec![
        format!("{root}/README.md"),
        format!("{root}/AGENTS.md"),
        format!("{root}/templates/agents_block.md"),
    ];
    // docs/ and its subdirectories (docs/formats/).
    let mut dirs = vec![std::path::PathBuf::from(format!("{root}/docs"))];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                sources.push(path.display().to_string());
            }
        }
    }
    let repo = Repo::committed();
    repo.write("ops.json", r#"{"reason": "r", "operations": [{"op": "add", "file": "pitfalls", "text": "A doc example."}]}"#);
    let mut checked = 0;
    let mut wrong = Vec::new();
    // The examples of every verb's --help, too.
    let pages = repo.stdout(&["man", "--list"]);
    let mut help = Vec::new();
    for page in pages.lines() {
        let verb: Vec<&str> = page.split('-').skip(1).collect();
        let mut args = verb.clone();
        args.push("--help");
        let out = repo.mneme(&args).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let examples = text.split("Examples:").nth(1).unwrap_or("");
        let lines: Vec<String> = examples
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("mneme ") && !l.ends_with('\\'))
            .map(|l| format!("`{l}`"))
            .collect();
        help.push((format!("mneme {} --help", verb.join(" ")), lines.join(" ")));
    }
    let files: Vec<(String, String)> = sources
        .iter()
        .map(|s| (s.clone(), std::fs::read_to_string(s).unwrap()))
        .chain(help)
        .collect();
    for (source, text) in &files {
        for command in inline_commands(text) {
            if command == "mneme mcp" || command.ends_with(" mcp") {
                continue; // a server: exercised by the mcp tests
            }
            let out = repo.sh(&command);
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            let misspelt = ["unexpected argument", "unrecognized", "invalid value"]
                .iter()
                .any(|m| stderr.contains(m));
            // A verb named without the arguments it needs must at least exist.
            let understood = out.status.code() != Some(2)
                || (!misspelt && repo.sh(&format!("{command} --help")).status.success());
            if !understood {
                wrong.push(format!(
                    "{source}: `{command}`: {}",
                    stderr.lines().next().unwrap_or("")
                ));
            }
            checked += 1;
        }
    }
    assert!(
        wrong.is_empty(),
        "commands mneme does not understand:\n{}",
        wrong.join("\n")
    );
    assert!(checked > 50, "{checked}");
}
