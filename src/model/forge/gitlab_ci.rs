//! The one `include:` entry `mneme init --ci gitlab` adds to a project's `.gitlab-ci.yml`,
//! edited as text so that every other byte stays as the project wrote it, and read back as
//! YAML to prove that nothing else changed.

use serde_json::Value;

/// The edit, or why it cannot be made safely.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Include {
    /// The file already includes `path`.
    Present,
    /// The file with the entry added.
    Added(String),
    /// The file's `include:` is written in a way this edit does not touch (a mapping, a flow
    /// list, a file that does not parse): the user adds the entry.
    ByHand(String),
}

/// `old` (the text of `.gitlab-ci.yml`, "" when there is none) with a `local` include of `path`.
pub fn with_include(old: &str, path: &str) -> Include {
    let before = match parse(old) {
        Ok(v) => v,
        Err(why) => return Include::ByHand(why),
    };
    if included(&before, path) {
        return Include::Present;
    }
    let entries = match before.get("include") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.clone(),
        Some(one @ Value::String(_)) => vec![one.clone()],
        Some(_) => return Include::ByHand("its `include:` is a single mapping, not a list".into()),
    };
    let entry = format!("local: '{path}'");
    let Some(new) = add_entry(old, &entry) else {
        return Include::ByHand("its `include:` is not a block list".into());
    };
    // The edit holds only if the file now reads as before plus the one entry.
    let mut expected = before;
    let mut added = entries;
    added.push(serde_json::json!({ "local": path }));
    match &mut expected {
        Value::Object(map) => {
            map.insert("include".into(), Value::Array(added));
        }
        _ => return Include::ByHand("it is not a mapping of jobs and keywords".into()),
    }
    match parse(&new) {
        Ok(after) if after == expected => Include::Added(new),
        _ => Include::ByHand("adding the entry as text would change more than the entry".into()),
    }
}

/// Whether the CI file `text` includes the local file `path`, in any of the forms GitLab
/// reads; `Err` says why the file cannot be read.
pub fn includes(text: &str, path: &str) -> Result<bool, String> {
    Ok(included(&parse(text)?, path))
}

fn included(ci: &Value, path: &str) -> bool {
    match ci.get("include") {
        Some(Value::Array(items)) => items.iter().any(|e| names(e, path)),
        Some(one) => names(one, path),
        None => false,
    }
}

fn parse(text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_saphyr::from_str::<Value>(text).map_err(|e| format!("it does not parse as YAML: {e}"))
}

/// Whether an include entry names the local file `path`.
fn names(entry: &Value, path: &str) -> bool {
    let local = match entry {
        Value::String(s) => Some(s.as_str()),
        Value::Object(m) => m.get("local").and_then(Value::as_str),
        _ => None,
    };
    local.is_some_and(|l| l.trim_start_matches('/') == path.trim_start_matches('/'))
}

/// The text with `- <entry>` added to its top-level `include:` block list, or a new `include:`
/// before its first key; `None` when `include:` holds its value on its own line (a flow list,
/// a mapping).
fn add_entry(old: &str, entry: &str) -> Option<String> {
    let lines: Vec<&str> = old.split_inclusive('\n').collect();
    let eol = if old.contains("\r\n") { "\r\n" } else { "\n" };
    let at = lines.iter().position(|l| {
        l.strip_prefix("include:")
            .is_some_and(|rest| rest.trim().is_empty() || rest.trim_start().starts_with('#'))
    });
    let Some(at) = at else {
        if lines.iter().any(|l| l.starts_with("include:")) {
            // `include: <value>` on the key's own line: a string becomes a list of two.
            let (i, line) = lines
                .iter()
                .enumerate()
                .find(|(_, l)| l.starts_with("include:"))?;
            let value = line.strip_prefix("include:")?.trim();
            if value.starts_with(['[', '{', '&', '*', '!', '|', '>']) {
                return None;
            }
            let mut out: String = lines[..i].concat();
            out.push_str(&format!("include:{eol}  - {value}{eol}  - {entry}{eol}"));
            out.push_str(&lines[i + 1..].concat());
            return Some(out);
        }
        // No `include:` yet: before the first line that is not a comment, a directive or `---`.
        let first = lines
            .iter()
            .position(|l| {
                let t = l.trim();
                !(t.is_empty() || t.starts_with('#') || t.starts_with('%') || t == "---")
            })
            .unwrap_or(lines.len());
        let mut out: String = lines[..first].concat();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(eol);
        }
        out.push_str(&format!("include:{eol}  - {entry}{eol}"));
        if first < lines.len() {
            out.push_str(eol);
        }
        out.push_str(&lines[first..].concat());
        return Some(out);
    };
    // The block list's items: indented lines (and comments) after `include:`.
    let items = lines[at + 1..]
        .iter()
        .take_while(|l| l.starts_with([' ', '\t', '#']) || l.trim().is_empty())
        .count();
    let indent = lines[at + 1..at + 1 + items]
        .iter()
        .find(|l| l.trim_start().starts_with('-'))
        .map_or("  ".to_owned(), |l| {
            l.chars().take_while(|c| *c == ' ').collect()
        });
    // After the last item, before the blank lines and comments that close the block.
    let last = lines[at + 1..at + 1 + items]
        .iter()
        .rposition(|l| l.starts_with(' ') && !l.trim().is_empty() && !l.trim().starts_with('#'))
        .map_or(at + 1, |i| at + 2 + i);
    let mut out: String = lines[..last].concat();
    if !out.ends_with('\n') {
        out.push_str(eol);
    }
    out.push_str(&format!("{indent}- {entry}{eol}"));
    out.push_str(&lines[last..].concat());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATH: &str = ".gitlab/mneme.gitlab-ci.yml";

    fn added(old: &str) -> String {
        match with_include(old, PATH) {
            Include::Added(new) => new,
            other => panic!("{old:?}: {other:?}"),
        }
    }

    #[test]
    fn the_entry_joins_what_is_there_and_nothing_else_changes() {
        assert_eq!(
            added(""),
            "include:\n  - local: '.gitlab/mneme.gitlab-ci.yml'\n"
        );
        assert_eq!(
            added("# CI\nstages: [build]\nbuild:\n  script: make\n"),
            "# CI\ninclude:\n  - local: '.gitlab/mneme.gitlab-ci.yml'\n\nstages: [build]\nbuild:\n  script: make\n"
        );
        assert_eq!(
            added("include:\n    - template: Security/SAST.gitlab-ci.yml\n    - local: ci/x.yml\n\n# jobs\nbuild:\n  script: make\n"),
            "include:\n    - template: Security/SAST.gitlab-ci.yml\n    - local: ci/x.yml\n    - local: '.gitlab/mneme.gitlab-ci.yml'\n\n# jobs\nbuild:\n  script: make\n"
        );
        assert_eq!(
            added("build:\n  script: make\ninclude: 'ci/x.yml'\n"),
            "build:\n  script: make\ninclude:\n  - 'ci/x.yml'\n  - local: '.gitlab/mneme.gitlab-ci.yml'\n"
        );
        assert_eq!(
            added("include:\r\n  - local: ci/x.yml\r\nbuild:\r\n  script: make\r\n"),
            "include:\r\n  - local: ci/x.yml\r\n  - local: '.gitlab/mneme.gitlab-ci.yml'\r\nbuild:\r\n  script: make\r\n"
        );
    }

    #[test]
    fn an_include_already_there_or_one_the_edit_cannot_keep_is_left_alone() {
        for present in [
            "include:\n  - local: .gitlab/mneme.gitlab-ci.yml\n",
            "include: '/.gitlab/mneme.gitlab-ci.yml'\n",
            "include:\n  - '.gitlab/mneme.gitlab-ci.yml'\n",
            "include:\n  local: .gitlab/mneme.gitlab-ci.yml\n",
            "include: [ci/a.yml, {local: .gitlab/mneme.gitlab-ci.yml}]\n",
        ] {
            assert_eq!(with_include(present, PATH), Include::Present, "{present:?}");
            assert_eq!(includes(present, PATH), Ok(true), "{present:?}");
        }
        assert_eq!(includes("", PATH), Ok(false));
        assert_eq!(includes("include:\n  local: ci/a.yml\n", PATH), Ok(false));
        assert!(includes("build: [\n", PATH).is_err());
        for by_hand in [
            "include: [ci/a.yml, ci/b.yml]\n",
            "include:\n  local: ci/a.yml\n",
            "include: *shared\n",
            "build: [\n",
        ] {
            assert!(
                matches!(with_include(by_hand, PATH), Include::ByHand(_)),
                "{by_hand:?}"
            );
        }
    }
}
