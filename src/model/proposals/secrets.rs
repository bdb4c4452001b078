//! Credentials must not become memory: facts are committed and shown to every agent. This finds
//! what looks like one in a text: known token formats, private key blocks, JWTs, connection
//! strings with a password, and long random-looking strings.

use std::collections::BTreeMap;

/// A credential-like piece of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    /// What it looks like: `a GitHub token`, `a private key`, …
    pub kind: &'static str,
    /// Its first characters and its length, never the whole value.
    pub sample: String,
}

impl std::fmt::Display for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.kind, self.sample)
    }
}

/// What stands for `text` where it would be shown to more people than its branch reaches (a pull
/// request's comment, a CI log), when it holds what looks like a credential.
pub fn withheld(text: &str) -> Option<String> {
    find(text)
        .into_iter()
        .next()
        .map(|s| format!("(text withheld: it holds what looks like {s})"))
}

/// Prefixes of well-known token formats, the characters that follow and how many at least.
const PREFIXED: &[(&str, &str, usize)] = &[
    ("AKIA", "an AWS access key id", 16),
    ("ASIA", "an AWS access key id", 16),
    ("ghp_", "a GitHub token", 30),
    ("gho_", "a GitHub token", 30),
    ("ghu_", "a GitHub token", 30),
    ("ghs_", "a GitHub token", 30),
    ("ghr_", "a GitHub token", 30),
    ("github_pat_", "a GitHub token", 30),
    ("glpat-", "a GitLab token", 20),
    ("xoxb-", "a Slack token", 10),
    ("xoxp-", "a Slack token", 10),
    ("xoxa-", "a Slack token", 10),
    ("xoxr-", "a Slack token", 10),
    ("xoxs-", "a Slack token", 10),
    ("xapp-", "a Slack token", 10),
    ("sk_live_", "a Stripe key", 16),
    ("rk_live_", "a Stripe key", 16),
    ("AIza", "a Google API key", 35),
    ("sk-", "an API secret key", 32),
    ("npm_", "an npm token", 36),
];

/// Every credential-like piece of `text`, in order.
pub fn find(text: &str) -> Vec<Secret> {
    let mut found = Vec::new();
    if let Some(block) = text.find("-----BEGIN ").and_then(|at| text.get(at..)) {
        if block
            .lines()
            .next()
            .is_some_and(|l| l.contains("PRIVATE KEY"))
        {
            found.push(secret("a private key", block));
        }
    }
    if text.contains("hooks.slack.com/services/") {
        found.push(secret("a Slack webhook", "hooks.slack.com/services/"));
    }
    for token in tokens(text) {
        if let Some(kind) = known_format(token) {
            found.push(secret(kind, token));
        } else if is_jwt(token) {
            found.push(secret("a JSON web token", token));
        } else if has_password(token) {
            found.push(secret("a connection string with a password", token));
        } else if looks_random(token) {
            found.push(secret("a long random-looking string", token));
        }
    }
    found
}

/// The pieces of `text` a credential could be: runs of characters tokens, keys and URLs use.
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| {
        c.is_whitespace() || matches!(c, '"' | '\'' | '`' | ',' | ';' | '(' | ')' | '<' | '>')
    })
    .map(|t| t.trim_end_matches(['.', ':']))
    .filter(|t| t.len() >= 16)
}

fn known_format(token: &str) -> Option<&'static str> {
    PREFIXED.iter().find_map(|(prefix, kind, min)| {
        let (before, rest) = token.split_once(prefix)?;
        let body = rest
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
            .count();
        let starts_word = before
            .as_bytes()
            .last()
            .is_none_or(|b| !b.is_ascii_alphanumeric());
        (body >= *min && starts_word).then_some(*kind)
    })
}

/// Three base64url segments, the first a JSON header (`eyJ…`).
fn is_jwt(token: &str) -> bool {
    let parts: Vec<&str> = token.split('.').collect();
    parts.len() == 3
        && parts[0].starts_with("eyJ")
        && parts.iter().all(|p| {
            p.len() >= 8
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'='))
        })
}

/// `scheme://user:password@host`.
fn has_password(token: &str) -> bool {
    let Some((_, rest)) = token.split_once("://") else {
        return false;
    };
    let authority = rest.split('/').next().unwrap_or("");
    let Some((credentials, host)) = authority.rsplit_once('@') else {
        return false;
    };
    matches!(credentials.split_once(':'), Some((user, password)) if !user.is_empty() && !password.is_empty() && !is_placeholder(password))
        && !host.is_empty()
}

/// A stand-in for a password, not one: `${DB_PASSWORD}`, `$DB_PASSWORD`, `%DB_PASSWORD%`,
/// `%(password)s`, `{{password}}`, `{password}`, `<password>`, `***`, `xxxx`, or a word that
/// names what goes there (`password`, `changeme`, …).
fn is_placeholder(password: &str) -> bool {
    let name = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
    };
    let wrapped = |open: &str, close: &str| {
        password
            .strip_prefix(open)
            .and_then(|rest| rest.strip_suffix(close))
            .is_some_and(name)
    };
    let masked = password.len() >= 3
        && password
            .chars()
            .all(|c| c == '*' || c == 'x' || c == 'X' || c == '.');
    let word = [
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "changeme",
        "yourpassword",
    ]
    .iter()
    .any(|w| password.eq_ignore_ascii_case(w));
    wrapped("${", "}")
        || wrapped("$", "")
        || wrapped("%", "%")
        || wrapped("%(", ")s")
        || wrapped("{{", "}}")
        || wrapped("{", "}")
        || wrapped("<", ">")
        || wrapped("$(", ")")
        || masked
        || word
}

/// At least 24 characters of base64 with upper case, lower case and digits, spread as evenly as
/// random bytes are: identifiers and words are far more repetitive.
fn looks_random(token: &str) -> bool {
    let chars: Vec<char> = token.chars().collect();
    let base64 = chars
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '_' | '-'));
    base64
        && chars.len() >= 24
        && chars.iter().any(char::is_ascii_uppercase)
        && chars.iter().any(char::is_ascii_lowercase)
        && chars.iter().any(char::is_ascii_digit)
        && entropy(&chars) >= 4.4
}

/// Shannon entropy in bits per character.
fn entropy(chars: &[char]) -> f64 {
    let mut counts: BTreeMap<char, usize> = BTreeMap::new();
    for c in chars {
        *counts.entry(*c).or_default() += 1;
    }
    let n = chars.len() as f64;
    counts
        .values()
        .map(|&k| {
            let p = k as f64 / n;
            -p * p.log2()
        })
        .sum()
}

fn secret(kind: &'static str, value: &str) -> Secret {
    let shown: String = value.chars().take(6).collect();
    Secret {
        kind,
        sample: format!("`{shown}…`, {} characters", value.chars().count()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<&'static str> {
        find(text).into_iter().map(|s| s.kind).collect()
    }

    #[test]
    fn known_formats_are_found() {
        assert_eq!(
            kinds("key AKIAIOSFODNN7EXAMPLE in config"),
            ["an AWS access key id"]
        );
        assert_eq!(
            kinds("token=ghp_abcdEFGH1234ijklMNOP5678qrstUVWX90yz"),
            ["a GitHub token"]
        );
        assert_eq!(kinds("xoxb-123456789012-abcdefghij"), ["a Slack token"]);
        assert_eq!(
            kinds("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA==\n-----END OPENSSH PRIVATE KEY-----"),
            ["a private key"]
        );
        assert_eq!(
            kinds("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            ["a JSON web token"]
        );
        assert_eq!(
            kinds("DATABASE_URL=postgres://app:s3cr3t-Pa55@db.internal:5432/main"),
            ["a connection string with a password"]
        );
        assert_eq!(
            kinds("aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            ["a long random-looking string"]
        );
    }

    #[test]
    fn engineering_prose_is_not_a_secret() {
        for text in [
            "We use PostgreSQL 16, not SQLite; PostgreSQLConnectionPoolSize16 is tuned.",
            "See https://github.com/org/repo/commit/f3c9a1b2d4e5f60718293a4b5c6d7e8f90a1b2c3",
            "src/model/facts.rs:12 d41d8cd98f00b204e9800998ecf8427e",
            "postgres://db.internal:5432/main has no password in it",
            "HTTPServerRequestHandlerV2Impl and SessionStartCompactSource2026Nov",
            "-----BEGIN PUBLIC KEY----- is fine",
            "The task-runner uses sk-learn models.",
            "postgres://app:${DB_PASSWORD}@db/app reads the password from the environment",
            "DATABASE_URL=postgres://app:$DB_PASSWORD@db.internal:5432/main",
            "mysql://root:%(password)s@localhost/app in the Python settings",
            "amqp://guest:{{ rabbit_password }}@mq/ is templated",
            "redis://default:{{rabbit_password}}@cache:6379 and redis://u:****@cache",
            "set DSN=postgres://app:%PGPASSWORD%@db/app on Windows",
            "postgres://user:password@localhost/db is the example in the README",
        ] {
            assert_eq!(kinds(text), Vec::<&str>::new(), "{text}");
        }
    }

    #[test]
    fn the_value_is_never_repeated_whole() {
        let found = find("ghp_abcdEFGH1234ijklMNOP5678qrstUVWX90yz");
        let shown = found[0].to_string();
        assert!(!shown.contains("UVWX90yz"), "{shown}");
        assert!(shown.contains("40 characters"), "{shown}");
    }
}
