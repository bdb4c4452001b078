//! What a stored field may hold. `propose` checks its arguments with these rules and review,
//! `check` and `verify` check proposal files with the same ones: a proposal that arrives by a
//! branch or a hand edit is held to what `propose` would have written.

use crate::model::base::text::{first_hidden, is_line_control};
use crate::model::facts::file::mimics_structure;

/// Longest reason accepted, in characters.
pub const MAX_REASON: usize = 4000;
/// Longest evidence reference accepted, in characters.
pub const MAX_EVIDENCE: usize = 500;
/// Longest agent or author name accepted, in characters.
pub const MAX_NAME: usize = 200;

/// Text that cannot be stored: a statement, reason, name or evidence reference.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    #[error("the fact text is empty; give the statement as an argument or with --stdin")]
    Empty,
    #[error("the fact text has {len} characters, more than the limit of {max} (max_fact_chars in {}); split it into smaller facts", crate::model::base::paths::CONFIG)]
    TooLong { len: usize, max: usize },
    #[error("invalid {what}: {why}")]
    Invalid { what: &'static str, why: String },
}

/// A fact statement: trimmed, `\n` line endings, no control characters, no HTML comment markers
/// (they would be read as metadata), within the size limit.
pub fn check_text(text: &str, max_chars: usize) -> Result<String, TextError> {
    let text = text.replace("\r\n", "\n");
    let text = text
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n");
    let text = text.trim();
    if text.is_empty() {
        return Err(TextError::Empty);
    }
    let len = text.chars().count();
    if len > max_chars {
        return Err(TextError::TooLong {
            len,
            max: max_chars,
        });
    }
    let invalid = |why: &str| TextError::Invalid {
        what: "fact text",
        why: why.to_owned(),
    };
    if has_control(text) {
        return Err(invalid("it contains control characters"));
    }
    if let Some(why) = hidden(text) {
        return Err(invalid(&why));
    }
    if text.contains("<!--") || text.contains("-->") {
        return Err(invalid(
            "HTML comments (`<!--`, `-->`) are reserved for fact metadata",
        ));
    }
    if text.lines().skip(1).any(mimics_structure) {
        return Err(invalid(
            "a line of it reads as another fact (`- **f-…** …`, `- f-… …`) or a heading (`## …`), \
             which an agent's context could take for its own; propose each fact on its own",
        ));
    }
    Ok(text.to_owned())
}

/// Control characters other than line feed and tab: escape sequences, carriage returns,
/// backspaces, anything a terminal acts on; and the Unicode line and paragraph separators, which
/// break a line where mneme's own structure sees none.
pub fn has_control(s: &str) -> bool {
    s.chars()
        .any(|c| is_line_control(c) && c != '\n' && c != '\t')
}

/// Why `s` cannot be shown as it is stored: the first invisible or direction-changing
/// character in it, and where.
pub fn hidden(s: &str) -> Option<String> {
    Some(format!(
        "it contains {}, an invisible or direction-changing character that makes text read \
         differently from what is stored; remove it",
        first_hidden(s)?
    ))
}

/// Why a reason cannot be stored: it may span lines, but holds no other control characters.
pub fn check_reason(s: &str) -> Result<String, TextError> {
    let s = s.trim();
    let why = if s.chars().count() > MAX_REASON {
        format!("longer than {MAX_REASON} characters")
    } else if has_control(s) {
        "it contains control characters".to_owned()
    } else if let Some(why) = hidden(s) {
        why
    } else {
        return Ok(s.to_owned());
    };
    Err(TextError::Invalid {
        what: "reason",
        why,
    })
}

/// One line of text (an agent or author name): no control characters at all, no line breaks.
pub fn check_line(what: &'static str, s: &str, max: usize) -> Result<String, TextError> {
    let s = s.trim();
    let why = if s.chars().count() > max {
        format!("longer than {max} characters")
    } else if s.chars().any(char::is_control) {
        "it must be one line without control characters".to_owned()
    } else if let Some(why) = hidden(s) {
        why
    } else {
        return Ok(s.to_owned());
    };
    Err(TextError::Invalid { what, why })
}

/// An evidence reference (`src/db.rs:12`, a commit id, a URL): one token, stored in fact
/// metadata, so no spaces, `;` or comment markers.
pub fn check_evidence(e: &str) -> Result<String, TextError> {
    let e = e.trim();
    match token_problem(e, MAX_EVIDENCE, "one reference per --evidence") {
        Some(why) => Err(invalid_token("evidence reference", e, &why)),
        None => Ok(e.to_owned()),
    }
}

/// A scope glob (`src/db/**`, `migrations/*.sql`): a path pattern from the repository's root,
/// stored in fact metadata like evidence, so one token; never absolute, never out of the
/// repository.
pub fn check_scope(glob: &str) -> Result<String, TextError> {
    let glob = glob.trim();
    let why = token_problem(glob, MAX_SCOPE, "one glob per --scope").or_else(|| {
        if glob.starts_with('/') || glob.starts_with('!') || glob.contains('\\') {
            Some(
                "use a path pattern from the repository's root, with `/`, such as `src/db/**`"
                    .to_owned(),
            )
        } else if glob.split('/').any(|part| part == ".." || part == ".") {
            Some("`.` and `..` are not allowed in a scope".to_owned())
        } else {
            None
        }
    });
    match why {
        Some(why) => Err(invalid_token("scope", glob, &why)),
        None => Ok(glob.to_owned()),
    }
}

/// Why `s` cannot be one token of fact metadata of at most `max` characters, if it cannot;
/// `one` says what one token is (`one reference per --evidence`).
fn token_problem(s: &str, max: usize, one: &str) -> Option<String> {
    if s.is_empty() {
        Some("it is empty".to_owned())
    } else if s.chars().count() > max {
        Some(format!("longer than {max} characters"))
    } else if s
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == ';')
    {
        Some(format!("use {one}, without spaces or `;`"))
    } else if s.contains("<!--") || s.contains("-->") {
        Some("it contains an HTML comment marker".to_owned())
    } else {
        hidden(s)
    }
}

fn invalid_token(what: &'static str, s: &str, why: &str) -> TextError {
    TextError::Invalid {
        what,
        why: format!("`{}`: {why}", crate::model::base::text::escape_line(s)),
    }
}

/// Longest scope glob: a path pattern, not a program.
pub const MAX_SCOPE: usize = 200;

/// Most scope globs one fact holds.
pub const MAX_SCOPES: usize = 16;

/// A fact's scope globs, each checked, each once, at most [`MAX_SCOPES`].
pub fn check_scopes(scope: &[String]) -> Result<Vec<String>, TextError> {
    let mut out: Vec<String> = Vec::new();
    for glob in scope {
        let glob = check_scope(glob)?;
        if !out.contains(&glob) {
            out.push(glob);
        }
    }
    if out.len() > MAX_SCOPES {
        return Err(TextError::Invalid {
            what: "scope",
            why: format!(
                "{} globs, more than {MAX_SCOPES}; use broader ones",
                out.len()
            ),
        });
    }
    Ok(out)
}

/// A fact file name as the ledger stores it: `name.md`, no path, no leading dot.
pub fn is_fact_file_name(name: &str) -> bool {
    name.strip_suffix(".md").is_some_and(|stem| {
        !stem.is_empty()
            && !stem.starts_with('.')
            && stem
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
            && !stem.contains("..")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_reasons_and_evidence() {
        assert_eq!(check_line("agent name", " claude ", 100).unwrap(), "claude");
        for bad in ["a\nb", "a\u{1b}[31m", "a\rb"] {
            assert!(check_line("agent name", bad, 100).is_err(), "{bad:?}");
        }
        assert!(check_line("agent name", &"x".repeat(101), 100).is_err());
        assert_eq!(check_reason("two\nlines").unwrap(), "two\nlines");
        assert!(check_reason("esc \u{1b}[2J").is_err());
        assert!(check_evidence("a;b").is_err());
        assert!(check_evidence("src/a.rs:3").is_ok());
        assert_eq!(check_scope(" src/db/** ").unwrap(), "src/db/**");
        for bad in [
            "",
            "/etc/*",
            "../x/*",
            "src/./a",
            "a b",
            "a;b",
            "!src",
            "src\\a",
            "a\u{202e}b",
        ] {
            let err = check_scope(bad).unwrap_err().to_string();
            assert!(err.starts_with("invalid scope"), "{bad}: {err}");
        }
        assert!(check_scope(&"a".repeat(201)).is_err());
        let err = check_evidence("\u{1b}[2J").unwrap_err().to_string();
        assert!(!err.contains('\u{1b}'), "{err}");
    }

    #[test]
    fn fact_file_names() {
        for ok in ["architecture.md", "performance_rules.md", "a-b.md"] {
            assert!(is_fact_file_name(ok), "{ok}");
        }
        for bad in [
            "../x.md",
            "a/b.md",
            ".hidden.md",
            ".md",
            "a.txt",
            "a b.md",
            "a\n.md",
            "..md",
        ] {
            assert!(!is_fact_file_name(bad), "{bad:?}");
        }
    }
}
