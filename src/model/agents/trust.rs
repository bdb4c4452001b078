//! Whether an agent runtime will run mneme's hooks: the trust it records in its own files, and
//! whether its version is one the real-runtime suite ran. Pure: file texts in, answers out.

use std::path::Path;

use serde_json::Value;

use crate::model::agents::runtimes::Runtime;

/// Each runtime's program, npm package and the version the real-runtime suite runs
/// (`tests/runtimes/run` installs from the same lines).
const TESTED: &str = include_str!("runtime-versions.txt");

/// The version of `runtime` the suite runs, and its npm package; none for Cursor, which has no
/// command-line runtime to run.
pub fn tested(runtime: Runtime) -> Option<(&'static str, &'static str)> {
    TESTED.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        let name = words.next()?;
        let package = words.next()?;
        let version = words.next()?;
        (name == runtime.as_str()).then_some((package, version))
    })
}

/// The first `x.y.z` in `text` (a `--version` line, a package.json's version).
pub fn version_in(text: &str) -> Option<(u64, u64, u64)> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find_map(|word| {
            let mut parts = word.split('.').filter(|p| !p.is_empty());
            let v = (
                parts.next()?.parse().ok()?,
                parts.next()?.parse().ok()?,
                parts.next()?.parse().ok()?,
            );
            Some(v)
        })
}

/// Whether `found` is in the tested series of `tested`: the same major and minor version.
pub fn in_tested_range(tested: &str, found: &str) -> bool {
    match (version_in(tested), version_in(found)) {
        (Some((a, b, _)), Some((x, y, _))) => (a, b) == (x, y),
        _ => false,
    }
}

/// What Codex's `config.toml` records for a repository: whether the project is trusted (its
/// `.codex/` files load only then), and which of the hook `events` (`SessionStart`) of
/// `hooks_json` the user has not trusted (`/hooks` writes
/// `[hooks.state."<hooks.json>:session_start:…"] trusted_hash` for each it trusts). Codex runs a
/// hook only while that hash matches its definition; that it still does is for Codex to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexTrust<'e> {
    pub project: bool,
    pub untrusted: Vec<&'e str>,
}

/// The table at `item`, if it is one.
fn table(item: Option<&toml_edit::Item>) -> Option<&dyn toml_edit::TableLike> {
    item.and_then(toml_edit::Item::as_table_like)
}

pub fn codex_trust<'e>(
    config: &str,
    repo: &Path,
    hooks_json: &Path,
    events: &[&'e str],
) -> CodexTrust<'e> {
    let doc = config.parse::<toml_edit::DocumentMut>().ok();
    let doc = doc.as_ref();
    let project = doc
        .and_then(|d| table(d.get("projects")))
        .and_then(|p| table(p.get(&repo.to_string_lossy())))
        .and_then(|p| p.get("trust_level"))
        .and_then(toml_edit::Item::as_str)
        == Some("trusted");
    let state = doc
        .and_then(|d| table(d.get("hooks")))
        .and_then(|h| table(h.get("state")));
    let trusted = |event: &str| {
        let prefix = format!("{}:{}:", hooks_json.to_string_lossy(), snake_case(event));
        state.is_some_and(|state| {
            state.iter().any(|(key, entry)| {
                key.starts_with(&prefix)
                    && entry
                        .as_table_like()
                        .and_then(|e| e.get("trusted_hash"))
                        .and_then(toml_edit::Item::as_str)
                        .is_some_and(|h| !h.is_empty())
            })
        })
    };
    CodexTrust {
        project,
        untrusted: events.iter().copied().filter(|e| !trusted(e)).collect(),
    }
}

/// `PostToolUse` as Codex keys its state: `post_tool_use`.
fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for c in event.chars() {
        if c.is_ascii_uppercase() && !out.is_empty() {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// Whether Gemini CLI trusts the folder `repo` (project hooks are off in an untrusted one), from
/// its user settings and `trustedFolders.json`: folder trust turned off trusts every folder;
/// else the rules decide ([`folder_rule`]). `None` when no rule covers it: Gemini asks at start.
pub fn gemini_folder_trusted(
    settings: Option<&str>,
    folders: Option<&str>,
    repo: &Path,
) -> Option<bool> {
    if folder_trust_enabled(settings) == Some(false) {
        return Some(true);
    }
    folder_rule(folders, repo)
}

/// Whether Qwen Code trusts the folder `repo`: every folder unless the user turned folder trust
/// on (it is off by default), then as its `trustedFolders.json` rules say, as Gemini CLI's (Qwen
/// Code is a fork of it).
pub fn qwen_folder_trusted(
    settings: Option<&str>,
    folders: Option<&str>,
    repo: &Path,
) -> Option<bool> {
    if folder_trust_enabled(settings) != Some(true) {
        return Some(true);
    }
    folder_rule(folders, repo)
}

/// Whether Copilot CLI trusts the folder `repo` (a repository's hooks load only in a trusted
/// one): its `config.json` lists the folder, or one above it, in `trustedFolders`. Copilot
/// writes that file with `//` comment lines above the JSON.
pub fn copilot_folder_trusted(config: Option<&str>, repo: &Path) -> bool {
    let Some(config) = config else {
        return false;
    };
    let json: String = config
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let Ok(config) = serde_json::from_str::<Value>(&json) else {
        return false;
    };
    config
        .get("trustedFolders")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .any(|folder| !folder.is_empty() && repo.starts_with(folder))
}

/// `security.folderTrust.enabled` of a user settings file, where it is set.
fn folder_trust_enabled(settings: Option<&str>) -> Option<bool> {
    settings
        .and_then(|t| serde_json::from_str::<Value>(t).ok())?
        .pointer("/security/folderTrust/enabled")?
        .as_bool()
}

/// What the rules of a `trustedFolders.json` say of `repo`: the longest rule that covers the
/// folder decides (`TRUST_PARENT` covers the rule's parent); `None` when none does.
fn folder_rule(folders: Option<&str>, repo: &Path) -> Option<bool> {
    let rules = folders.and_then(|t| serde_json::from_str::<Value>(t).ok())?;
    let mut best: Option<(usize, &str)> = None;
    for (rule, level) in rules.as_object()? {
        let Some(level) = level.as_str() else {
            continue;
        };
        let path = Path::new(rule);
        let covered = if level == "TRUST_PARENT" {
            path.parent()
        } else {
            Some(path)
        };
        if covered.is_some_and(|c| repo.starts_with(c))
            && best.is_none_or(|(len, _)| rule.len() > len)
        {
            best = Some((rule.len(), level));
        }
    }
    match best?.1 {
        "DO_NOT_TRUST" => Some(false),
        "TRUST_FOLDER" | "TRUST_PARENT" => Some(true),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_runtime_with_a_program_has_a_tested_version() {
        for runtime in Runtime::ALL {
            assert_eq!(
                tested(runtime).is_some(),
                runtime != Runtime::Cursor,
                "{runtime:?}"
            );
        }
        assert_eq!(tested(Runtime::Gemini).unwrap().0, "@google/gemini-cli");
        assert_eq!(version_in("2.1.328 (Claude Code)"), Some((2, 1, 328)));
        assert_eq!(version_in("codex-cli 0.169.0"), Some((0, 169, 0)));
        assert_eq!(version_in("v1.2"), None);
        assert!(in_tested_range("0.61.0", "0.61.4"));
        assert!(!in_tested_range("0.61.0", "0.62.0"));
        assert!(!in_tested_range("0.61.0", "unknown"));
    }

    #[test]
    fn codex_trust_is_read_from_its_config() {
        let repo = Path::new("/work/app");
        let hooks = Path::new("/work/app/.codex/hooks.json");
        let events = ["SessionStart", "PostToolUse"];
        let none = codex_trust("model = \"gpt-5\"\n", repo, hooks, &events);
        assert_eq!(
            none,
            CodexTrust {
                project: false,
                untrusted: events.to_vec()
            }
        );
        let one = "[projects.\"/work/app\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"/work/app/.codex/hooks.json:session_start:0:0\"]\ntrusted_hash = \"sha256:ab\"\n";
        assert_eq!(
            codex_trust(one, repo, hooks, &events),
            CodexTrust {
                project: true,
                untrusted: vec!["PostToolUse"]
            }
        );
        let both = format!(
            "{one}[hooks.state.\"/work/app/.codex/hooks.json:post_tool_use:1:0\"]\ntrusted_hash = \"sha256:cd\"\n"
        );
        assert!(codex_trust(&both, repo, hooks, &events)
            .untrusted
            .is_empty());
        let other = one.replace("/work/app\"]", "/work/other\"]");
        assert!(!codex_trust(&other, repo, hooks, &events).project);
        assert_eq!(codex_trust("[oops", repo, hooks, &events), none);
    }

    #[test]
    fn copilot_trusts_a_listed_folder_and_the_folders_below_it() {
        let repo = Path::new("/work/app");
        let config = |folders: &str| {
            format!("// User settings belong in settings.json.\n// This file is managed automatically.\n{{\n  \"trustedFolders\": {folders},\n  \"firstLaunchAt\": \"2026-03-11T00:00:00.000Z\"\n}}\n")
        };
        for (folders, trusted) in [
            (r#"["/work/app"]"#, true),
            (r#"["/work/app/"]"#, true),
            (r#"["/work"]"#, true),
            (r#"["/work/app/src", "/work/application"]"#, false),
            (r#"["", 3]"#, false),
            ("[]", false),
            ("{}", false),
        ] {
            assert_eq!(
                copilot_folder_trusted(Some(&config(folders)), repo),
                trusted,
                "{folders}"
            );
        }
        assert!(!copilot_folder_trusted(None, repo));
        assert!(!copilot_folder_trusted(Some("{"), repo));
    }

    #[test]
    fn gemini_folder_trust_follows_the_longest_rule() {
        let repo = Path::new("/home/me/src/app");
        let folders = |rules: &str| gemini_folder_trusted(None, Some(rules), repo);
        assert_eq!(
            folders(r#"{"/home/me/src/app": "TRUST_FOLDER"}"#),
            Some(true)
        );
        assert_eq!(
            folders(r#"{"/home/me/src/other": "TRUST_PARENT"}"#),
            Some(true)
        );
        assert_eq!(
            folders(r#"{"/home/me": "TRUST_FOLDER", "/home/me/src": "DO_NOT_TRUST"}"#),
            Some(false)
        );
        assert_eq!(
            folders(r#"{"/home/me/src/application": "TRUST_FOLDER"}"#),
            None
        );
        assert_eq!(folders("{}"), None);
        assert_eq!(gemini_folder_trusted(None, None, repo), None);
        let off = r#"{"security": {"folderTrust": {"enabled": false}}}"#;
        assert_eq!(gemini_folder_trusted(Some(off), None, repo), Some(true));
        // Qwen Code trusts every folder until the user turns folder trust on.
        assert_eq!(qwen_folder_trusted(None, None, repo), Some(true));
        let on = r#"{"security": {"folderTrust": {"enabled": true}}}"#;
        assert_eq!(qwen_folder_trusted(Some(on), None, repo), None);
        let rules = format!(r#"{{"{}": "TRUST_FOLDER"}}"#, repo.display());
        assert_eq!(
            qwen_folder_trusted(Some(on), Some(&rules), repo),
            Some(true)
        );
    }
}
